/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * conf_types.c: how each type of setting is read, written back and freed.
 *
 * A parser reads the value that starts at the next event, checks it
 * against the entry's bounds and only then replaces what the field held,
 * so a field is always either its default or a valid value from the file.
 * Scalar values are text: libyaml resolves no types, and neither do we,
 * so "yes" is not a boolean and "010" is ten (not eight).
 *
 * Units: a duration is an integer with an optional unit (ms, s, m, h);
 * with none it is milliseconds, the unit every duration key stores.  A
 * size is an integer with an optional K, M, G or T (powers of 1024, "B",
 * "KB" and "KiB" spellings alike, any case); with no suffix it is in the
 * key's own unit (bytes for jobs.max_script_size, MiB for
 * scheduler.default_mem), and with one it is rounded up to that unit.
 * The list types live in conf_lists.c.
 */
#include "config.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/strconv.h"
#include "base/xmalloc.h"
#include "conf/conf.h"
#include "conf/conf_int.h"
#include "model/job.h"

#define KIB ((int64_t)1024)

bool
kai_conf_is_null(const yaml_event_t *ev)
{
	const char *s = (const char *)ev->data.scalar.value;

	if (ev->type != YAML_SCALAR_EVENT ||
	    ev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return false;
	return *s == '\0' || strcmp(s, "~") == 0 || strcmp(s, "null") == 0 ||
	    strcmp(s, "Null") == 0 || strcmp(s, "NULL") == 0;
}

/*
 * Checks that the current event is a scalar free of control characters
 * (a NUL or a newline in a value is never meant).
 */
int
kai_conf_scalar_here(struct kai_conf_rd *rd, const struct kai_conf_entry *e,
    const char *shown, const char *expect)
{
	size_t i;

	if (rd->ev.type != YAML_SCALAR_EVENT)
		return kai_conf_rd_bad(rd, e, shown, "expected %s", expect);
	for (i = 0; i < rd->ev.data.scalar.length; i++) {
		unsigned char c = rd->ev.data.scalar.value[i];

		if (c < 0x20 || c == 0x7f)
			return kai_conf_rd_bad(rd, e, shown,
			    "control characters are not allowed");
	}
	return 0;
}

/* Moves to the value of e and checks it as scalar_here() does. */
static int
scalar(struct kai_conf_rd *rd, const struct kai_conf_entry *e,
    const char *shown, const char *expect)
{
	int r;

	if ((r = kai_conf_rd_next(rd)) != 0)
		return r;
	return kai_conf_scalar_here(rd, e, shown, expect);
}

/* Keys with no default and not required may be set to null (unset). */
static bool
nullable(const struct kai_conf_entry *e)
{
	return e->def == NULL && (e->flags & KAI_CONF_REQUIRED) == 0;
}

static bool
valid_address(const char *s)
{
	const char *host = s, *colon;
	int64_t port;

	if (*s == '[') {
		if ((colon = strchr(s, ']')) == NULL || colon == s + 1 ||
		    colon[1] != ':')
			return false;
		colon++;
	} else {
		colon = strrchr(s, ':');
		if (colon == NULL || colon == host ||
		    memchr(host, ':', (size_t)(colon - host)) != NULL)
			return false;
	}
	if (strpbrk(s, " \t") != NULL)
		return false;
	return kai_strtoi64(colon + 1, 1, 65535, &port, "port", NULL) == 0 &&
	    isdigit((unsigned char)colon[1]);
}

/* "a:1,b:2": each one an address. */
static bool
valid_address_list(const char *s)
{
	char one[256];
	const char *comma;
	size_t len;

	for (;; s = comma + 1) {
		comma = strchr(s, ',');
		len = comma != NULL ? (size_t)(comma - s) : strlen(s);
		if (len == 0 || len >= sizeof(one))
			return false;
		memcpy(one, s, len);
		one[len] = '\0';
		if (!valid_address(one))
			return false;
		if (comma == NULL)
			return true;
	}
}

/* RFC 1123 label, as Kubernetes wants for namespaces. */
static bool
valid_dnslabel(const char *s, size_t len)
{
	size_t i;

	if (len == 0 || len > 63 || s[0] == '-' || s[len - 1] == '-')
		return false;
	for (i = 0; i < len; i++)
		if (!(islower((unsigned char)s[i]) ||
		    isdigit((unsigned char)s[i]) || s[i] == '-'))
			return false;
	return true;
}

/* A DNS domain of RFC 1123 labels ("cluster.local"). */
static bool
valid_dnsname(const char *s, size_t len)
{
	size_t i = 0, start;

	if (len == 0 || len > 253)
		return false;
	for (;;) {
		start = i;
		while (i < len && s[i] != '.')
			i++;
		if (!valid_dnslabel(s + start, i - start))
			return false;
		if (i == len)
			return true;
		i++;
	}
}

static bool
valid_partname(const char *s, size_t len)
{
	size_t i;

	if (len == 0 || len > 63)
		return false;
	for (i = 0; i < len; i++)
		if (!(islower((unsigned char)s[i]) ||
		    isdigit((unsigned char)s[i]) || s[i] == '-' || s[i] == '_'))
			return false;
	return true;
}

/* Why s is no value of e's text type, or NULL when it is one. */
static const char *
text_problem(const struct kai_conf_entry *e, const char *s, size_t len)
{
	switch (e->type) {
	case KAI_CONF_PATH:
		return *s != '/' ? "expected an absolute path" : NULL;
	case KAI_CONF_ADDRESS:
		if ((e->flags & KAI_CONF_OFF) != 0 && strcmp(s, "off") == 0)
			return NULL;
		if ((e->flags & KAI_CONF_AUTO) != 0 && strcmp(s, "auto") == 0)
			return NULL;
		if ((e->flags & KAI_CONF_LIST) != 0)
			return !valid_address_list(s) ?
			    "expected host:port[,host:port...] with ports "
			    "between 1 and 65535" : NULL;
		return !valid_address(s) ?
		    "expected host:port with a port between 1 and 65535" : NULL;
	case KAI_CONF_DNSLABEL:
		if (valid_dnslabel(s, len))
			return NULL;
		return "expected a Kubernetes name: at most 63 lower-case "
		    "letters, digits and '-', starting and ending with a "
		    "letter or digit";
	case KAI_CONF_DNSNAME:
		return !valid_dnsname(s, len) ?
		    "expected a DNS domain: labels of lower-case letters, "
		    "digits and '-' joined by '.'" : NULL;
	case KAI_CONF_PARTNAME:
		return !valid_partname(s, len) ?
		    "expected a partition name: 1 to 63 lower-case letters, "
		    "digits, '_' and '-'" : NULL;
	default:
		return len == 0 ? "expected a non-empty string" : NULL;
	}
}

static void
release_text(const struct kai_conf_entry *e, void *base)
{
	char **f = FIELD(base, e, char *);

	if (*f != NULL && (e->flags & KAI_CONF_SECRET) != 0)
		kai_free_secret(*f, strlen(*f));
	else
		free(*f);
	*f = NULL;
}

static int
parse_text(struct kai_conf_rd *rd, const struct kai_conf_entry *e,
    const char *shown, void *base)
{
	const char *s, *why;
	size_t len;
	int r;

	if ((r = scalar(rd, e, shown, "a string")) != 0)
		return r;
	s = kai_conf_text(rd);
	len = rd->ev.data.scalar.length;
	if (nullable(e) && kai_conf_is_null(&rd->ev)) {
		release_text(e, base);
		return 0;
	}
	if ((why = text_problem(e, s, len)) != NULL)
		return kai_conf_rd_bad(rd, e, shown, "%s", why);
	if (e->max > 0 && len > (size_t)e->max)
		return kai_conf_rd_bad(rd, e, shown, "longer than %" PRId64
		    " bytes", e->max);
	release_text(e, base);
	*FIELD(base, e, char *) = kai_xstrndup(s, len);
	/*
	 * libyaml's copy goes back to its heap: wipe it first.  (Its scanner
	 * buffers are out of reach; the file buffer is wiped by the caller.)
	 */
	if ((e->flags & KAI_CONF_SECRET) != 0)
		explicit_bzero(rd->ev.data.scalar.value, len);
	return 0;
}

int
kai_conf_dump_quoted(struct kai_buf *b, const char *s)
{
	int r = kai_buf_addc(b, '"');

	for (; r == 0 && *s != '\0'; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			r = kai_buf_addf(b, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			r = kai_buf_addf(b, "\\x%02x", c);
		else
			r = kai_buf_addc(b, (char)c);
	}
	return r != 0 ? r : kai_buf_addc(b, '"');
}

static int
dump_text(struct kai_buf *b, const struct kai_conf_entry *e,
    const void *base, int indent)
{
	const char *s = *CFIELD(base, e, char *);
	char *masked;
	int r;

	(void)indent;
	if (s == NULL)
		return kai_buf_adds(b, "~");
	if ((e->flags & KAI_CONF_SECRET) == 0)
		return kai_conf_dump_quoted(b, s);
	masked = kai_conf_mask_conninfo(s);
	r = kai_conf_dump_quoted(b, masked);
	free(masked);
	return r;
}

static int
parse_enum(struct kai_conf_rd *rd, const struct kai_conf_entry *e,
    const char *shown, void *base)
{
	char list[KAI_ERR_MSG_MAX] = "one of ";
	size_t i, n = strlen(list);
	int r;

	for (i = 0; e->choices[i] != NULL; i++) {
		r = snprintf(list + n, sizeof(list) - n, "%s%s",
		    i > 0 ? ", " : "", e->choices[i]);
		if (r > 0 && (size_t)r < sizeof(list) - n)
			n += (size_t)r;
	}
	if ((r = scalar(rd, e, shown, list)) != 0)
		return r;
	for (i = 0; e->choices[i] != NULL; i++) {
		if (strcmp(kai_conf_text(rd), e->choices[i]) == 0) {
			*FIELD(base, e, int) = (int)i;
			return 0;
		}
	}
	return kai_conf_rd_bad(rd, e, shown, "expected %s", list);
}

static int
dump_enum(struct kai_buf *b, const struct kai_conf_entry *e,
    const void *base, int indent)
{
	(void)indent;
	return kai_buf_adds(b, e->choices[*CFIELD(base, e, int)]);
}

/* YAML 1.2 core schema spellings only: "yes" and "on" are not booleans. */
static int
parse_bool(struct kai_conf_rd *rd, const struct kai_conf_entry *e,
    const char *shown, void *base)
{
	static const char *const t[] = {"true", "True", "TRUE"};
	static const char *const f[] = {"false", "False", "FALSE"};
	size_t i;
	int r;

	if ((r = scalar(rd, e, shown, "true or false")) != 0)
		return r;
	for (i = 0; i < KAI_NELEM(t); i++) {
		if (strcmp(kai_conf_text(rd), t[i]) == 0 ||
		    strcmp(kai_conf_text(rd), f[i]) == 0) {
			*FIELD(base, e, bool) =
			    strcmp(kai_conf_text(rd), t[i]) == 0;
			return 0;
		}
	}
	return kai_conf_rd_bad(rd, e, shown, "expected true or false");
}

static int
dump_bool(struct kai_buf *b, const struct kai_conf_entry *e,
    const void *base, int indent)
{
	(void)indent;
	return kai_buf_adds(b, *CFIELD(base, e, bool) ? "true" : "false");
}

/*
 * Leading decimal digits of s into *n, saturating at INT64_MAX so that a
 * huge number is reported as out of bounds, not as garbage.  Returns the
 * first byte after them, or NULL when s does not start with a digit.
 */
static const char *
digits(const char *s, int64_t *n)
{
	if (!isdigit((unsigned char)*s))
		return NULL;
	for (*n = 0; isdigit((unsigned char)*s); s++) {
		if (*n > (INT64_MAX - 9) / 10)
			*n = INT64_MAX;
		else
			*n = *n * 10 + (*s - '0');
	}
	return s;
}

static int64_t
mul_sat(int64_t a, int64_t b)
{
	return a > INT64_MAX / b ? INT64_MAX : a * b;
}

static void
fmt_duration(int64_t ms, char *out, size_t size)
{
	static const struct {
		int64_t ms;
		const char *unit;
	} u[] = {{86400000, "d"}, {3600000, "h"}, {60000, "m"}, {1000, "s"}};
	size_t i;

	for (i = 0; i < KAI_NELEM(u); i++) {
		if (ms != 0 && ms % u[i].ms == 0) {
			(void)snprintf(out, size, "%" PRId64 "%s", ms / u[i].ms,
			    u[i].unit);
			return;
		}
	}
	(void)snprintf(out, size, "%" PRId64 "ms", ms);
}

/* The current scalar as a duration within e's bounds, into base. */
int
kai_conf_duration_here(struct kai_conf_rd *rd, const struct kai_conf_entry *e,
    const char *shown, void *base)
{
	static const struct {
		const char *unit;
		int64_t ms;
	} u[] = {{"", 1}, {"ms", 1}, {"s", 1000}, {"m", 60000}, {"h", 3600000},
	    {"d", 86400000}};
	char lo[32], hi[32];
	const char *p;
	int64_t n;
	size_t i;

	if ((p = digits(kai_conf_text(rd), &n)) == NULL)
		return kai_conf_rd_bad(rd, e, shown, "expected a duration");
	i = 0;
	while (i < KAI_NELEM(u) && strcmp(p, u[i].unit) != 0)
		i++;
	if (i == KAI_NELEM(u))
		return kai_conf_rd_bad(rd, e, shown, "expected a duration");
	n = mul_sat(n, u[i].ms);
	if (n < e->min || n > e->max) {
		fmt_duration(e->min, lo, sizeof(lo));
		fmt_duration(e->max, hi, sizeof(hi));
		return kai_conf_rd_bad(rd, e, shown,
		    "must be between %s and %s", lo, hi);
	}
	*FIELD(base, e, int64_t) = n;
	return 0;
}

static int
parse_duration(struct kai_conf_rd *rd, const struct kai_conf_entry *e,
    const char *shown, void *base)
{
	int r;

	if ((r = scalar(rd, e, shown, "a duration")) != 0)
		return r;
	return kai_conf_duration_here(rd, e, shown, base);
}

static int
dump_duration(struct kai_buf *b, const struct kai_conf_entry *e,
    const void *base, int indent)
{
	char s[32];

	(void)indent;
	fmt_duration(*CFIELD(base, e, int64_t), s, sizeof(s));
	return kai_buf_adds(b, s);
}

/* value in e's unit as text: the largest suffix that keeps it exact. */
static void
fmt_size(const struct kai_conf_entry *e, int64_t value, char *out,
    size_t size)
{
	static const char suffix[] = "TGMK";
	int64_t bytes = mul_sat(value, e->scale);
	int64_t unit = KIB * KIB * KIB * KIB;
	size_t i;

	for (i = 0; i < 4; i++, unit /= KIB) {
		if (bytes != 0 && bytes != INT64_MAX && bytes % unit == 0) {
			(void)snprintf(out, size, "%" PRId64 "%c", bytes / unit,
			    suffix[i]);
			return;
		}
	}
	(void)snprintf(out, size, "%" PRId64, value);
}

/* Bytes per suffix unit, 0 when p is no size suffix. */
static int64_t
size_suffix(const char *p)
{
	static const char letters[] = "bkmgt";
	const char *l;
	int64_t mult = 1;

	if ((l = strchr(letters, tolower((unsigned char)*p))) == NULL ||
	    *p == '\0')
		return 0;
	for (; l > letters; l--)
		mult *= KIB;
	p++;
	if (mult > 1 && (*p == 'i' || *p == 'I') &&
	    (p[1] == 'b' || p[1] == 'B'))
		p += 2;
	else if (mult > 1 && (*p == 'b' || *p == 'B'))
		p++;
	return *p == '\0' ? mult : 0;
}

static int
parse_size(struct kai_conf_rd *rd, const struct kai_conf_entry *e,
    const char *shown, void *base)
{
	char lo[32], hi[32];
	const char *p;
	int64_t n, mult, bytes;
	int r;

	if ((r = scalar(rd, e, shown, "a size")) != 0)
		return r;
	if ((p = digits(kai_conf_text(rd), &n)) == NULL)
		return kai_conf_rd_bad(rd, e, shown, "expected a size");
	if (*p != '\0') {
		if ((mult = size_suffix(p)) == 0)
			return kai_conf_rd_bad(rd, e, shown, "expected a size");
		bytes = mul_sat(n, mult);
		n = bytes / e->scale + (bytes % e->scale != 0);
	}
	if (n < e->min || n > e->max) {
		fmt_size(e, e->min, lo, sizeof(lo));
		fmt_size(e, e->max, hi, sizeof(hi));
		return kai_conf_rd_bad(rd, e, shown,
		    "must be between %s and %s", lo, hi);
	}
	*FIELD(base, e, int64_t) = n;
	return 0;
}

static int
dump_size(struct kai_buf *b, const struct kai_conf_entry *e,
    const void *base, int indent)
{
	char s[32];

	(void)indent;
	fmt_size(e, *CFIELD(base, e, int64_t), s, sizeof(s));
	return kai_buf_adds(b, s);
}

static int
parse_timelimit(struct kai_conf_rd *rd, const struct kai_conf_entry *e,
    const char *shown, void *base)
{
	int64_t s;
	int r;

	if ((r = scalar(rd, e, shown, "a time limit")) != 0)
		return r;
	if (kai_time_limit_parse(kai_conf_text(rd), &s, NULL) != 0)
		return kai_conf_rd_bad(rd, e, shown, "expected a time limit "
		    "([days-]hours:minutes:seconds, minutes or UNLIMITED)");
	*FIELD(base, e, int64_t) = s;
	return 0;
}

static int
dump_timelimit(struct kai_buf *b, const struct kai_conf_entry *e,
    const void *base, int indent)
{
	char s[64];

	(void)indent;
	kai_time_format(*CFIELD(base, e, int64_t), s, sizeof(s));
	/* Quoted: other YAML 1.1 readers take 1:00:00 for base 60. */
	return kai_conf_dump_quoted(b, s);
}

const struct kai_conf_type kai_conf_types[KAI_CONF_NTYPES] = {
	[KAI_CONF_STRING] = {"string", false, parse_text, dump_text,
	    release_text},
	[KAI_CONF_PATH] = {"path", false, parse_text, dump_text, release_text},
	[KAI_CONF_ADDRESS] = {"host:port", false, parse_text, dump_text,
	    release_text},
	[KAI_CONF_DNSLABEL] = {"name", false, parse_text, dump_text,
	    release_text},
	[KAI_CONF_DNSNAME] = {"domain", false, parse_text, dump_text,
	    release_text},
	[KAI_CONF_ENUM] = {"enum", false, parse_enum, dump_enum, NULL},
	[KAI_CONF_BOOL] = {"bool", false, parse_bool, dump_bool, NULL},
	[KAI_CONF_DURATION] = {"duration", false, parse_duration,
	    dump_duration, NULL},
	[KAI_CONF_SIZE] = {"size", false, parse_size, dump_size, NULL},
	[KAI_CONF_UIDS] = {"users", false, kai_conf_parse_uids,
	    kai_conf_dump_uids, kai_conf_release_uids},
	[KAI_CONF_PARTITIONS] = {"list", true, kai_conf_parse_partitions,
	    kai_conf_dump_partitions, kai_conf_release_partitions},
	[KAI_CONF_PARTNAME] = {"name", false, parse_text, dump_text,
	    release_text},
	[KAI_CONF_TIMELIMIT] = {"time", false, parse_timelimit,
	    dump_timelimit, NULL},
	[KAI_CONF_NUMBER] = {"number", false, kai_conf_parse_number,
	    kai_conf_dump_number, NULL},
	[KAI_CONF_INTEGER] = {"integer", false, kai_conf_parse_integer,
	    kai_conf_dump_integer, NULL},
	[KAI_CONF_GRACE] = {"duration", false, kai_conf_parse_grace,
	    kai_conf_dump_grace, NULL},
	[KAI_CONF_PHASES] = {"list", false, kai_conf_parse_phases,
	    kai_conf_dump_phases, kai_conf_release_phases},
	[KAI_CONF_FILESYSTEMS] = {"list", false, kai_conf_parse_filesystems,
	    kai_conf_dump_filesystems, kai_conf_release_filesystems},
	[KAI_CONF_LABELS] = {"labels", false, kai_conf_parse_labels,
	    kai_conf_dump_labels, kai_conf_release_labels},
	[KAI_CONF_TOLERATIONS] = {"list", false, kai_conf_parse_tolerations,
	    kai_conf_dump_tolerations, kai_conf_release_tolerations},
	[KAI_CONF_NAMES] = {"list", false, kai_conf_parse_names,
	    kai_conf_dump_names, kai_conf_release_names},
	[KAI_CONF_QOSLIST] = {"list", true, kai_conf_parse_qos,
	    kai_conf_dump_qos, kai_conf_release_qos},
	[KAI_CONF_ACCOUNTS] = {"list", true, kai_conf_parse_accounts,
	    kai_conf_dump_accounts, kai_conf_release_accounts},
};
