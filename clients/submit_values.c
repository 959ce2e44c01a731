/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * submit_values.c: parsers for the value syntaxes of ksubmit's options.
 * See submit_values.h.
 *
 * The parsers read digits themselves instead of calling strtol: Slurm's
 * syntaxes never allow a sign, blanks or a base prefix, and strtol
 * accepts all three.  Every number is bounded before it is multiplied.
 */
#include "config.h"

#include "submit_values.h"

#include <ctype.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/strconv.h"
#include "base/xmalloc.h"

#define COUNT_MAX ((int64_t)INT32_MAX)

/*
 * Reads a run of digits at *p into *v (at most max); false when there is
 * none or it is too large.  *p moves past the digits.
 */
static bool
take_digits(const char **p, int64_t max, int64_t *v)
{
	const char *q = *p;
	int64_t x = 0;

	if (!isdigit((unsigned char)*q))
		return false;
	for (; isdigit((unsigned char)*q); q++) {
		x = x * 10 + (*q - '0');
		if (x > max)
			return false;
	}
	*v = x;
	*p = q;
	return true;
}

/* The whole of s[0..n) is digits with a value in [min, max]. */
static bool
digits_value(const char *s, size_t n, int64_t min, int64_t max, int64_t *v)
{
	char buf[24];
	const char *p = buf;

	if (n == 0 || n >= sizeof(buf))
		return false;
	memcpy(buf, s, n);
	buf[n] = '\0';
	return take_digits(&p, max, v) && *p == '\0' && *v >= min;
}

/* A GPU type: letters, digits and "-._" ("a100", "v100-32gb", "1g.10gb"). */
static bool
gpu_type_ok(const char *s, size_t n)
{
	size_t i;

	if (n == 0 || n > 64)
		return false;
	for (i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) &&
		    strchr("-._", s[i]) == NULL)
			return false;
	return true;
}

static void
gpu_set(struct submit_gpu *g, int64_t count, const char *type, size_t tlen)
{
	submit_gpu_fini(g);
	g->count = count;
	g->type = type != NULL ? kai_xstrndup(type, tlen) : NULL;
}

void
submit_gpu_fini(struct submit_gpu *g)
{
	KAI_FREE(g->type);
	g->count = SUBMIT_UNSET;
}

int
submit_gpu_parse(const char *s, struct submit_gpu *g, struct kai_err *err)
{
	const char *colon = strchr(s, ':');
	const char *num = colon != NULL ? colon + 1 : s;
	int64_t n;

	if ((colon != NULL && !gpu_type_ok(s, (size_t)(colon - s))) ||
	    !digits_value(num, strlen(num), 0, COUNT_MAX, &n))
		return kai_err_set(err, KAI_EINVAL, "invalid GPU count \"%s\"",
		    s);
	gpu_set(g, n, colon != NULL ? s : NULL,
	    colon != NULL ? (size_t)(colon - s) : 0);
	return 0;
}

/* One "gpu[:TYPE][:N]" entry, of length len. */
static int
gres_gpu(const char *all, const char *e, size_t len, struct submit_gpu *g,
    struct kai_err *err)
{
	const char *p = e + 3, *end = e + len, *c2;
	int64_t n = 1;

	if (p < end) {
		p++; /* the ':' */
		c2 = memchr(p, ':', (size_t)(end - p));
		if (c2 != NULL) {
			if (!gpu_type_ok(p, (size_t)(c2 - p)) ||
			    !digits_value(c2 + 1, (size_t)(end - c2 - 1), 0,
				COUNT_MAX, &n))
				goto bad;
			gpu_set(g, n, p, (size_t)(c2 - p));
			return 0;
		}
		if (digits_value(p, (size_t)(end - p), 0, COUNT_MAX, &n)) {
			gpu_set(g, n, NULL, 0);
			return 0;
		}
		if (!gpu_type_ok(p, (size_t)(end - p)))
			goto bad;
		gpu_set(g, 1, p, (size_t)(end - p));
		return 0;
	}
	gpu_set(g, 1, NULL, 0);
	return 0;
bad:
	return kai_err_set(err, KAI_EINVAL, "invalid gres \"%s\"", all);
}

int
submit_gres_parse(const char *s, struct submit_gpu *g, struct kai_err *err)
{
	struct submit_gpu tmp = {SUBMIT_UNSET, NULL, NULL};
	const char *e = s, *comma;
	size_t len, nlen;
	int ngpu = 0;

	if (strcasecmp(s, "none") == 0) {
		submit_gpu_fini(g);
		return 0;
	}
	for (;;) {
		comma = strchr(e, ',');
		len = comma != NULL ? (size_t)(comma - e) : strlen(e);
		if (len > 5 && strncmp(e, "gres/", 5) == 0)
			e += 5, len -= 5;
		nlen = strcspn(e, ":,");
		if (len == 0 || nlen == 0) {
			submit_gpu_fini(&tmp);
			return kai_err_set(err, KAI_EINVAL,
			    "invalid gres \"%s\"", s);
		}
		if (nlen != 3 || strncmp(e, "gpu", 3) != 0) {
			submit_gpu_fini(&tmp);
			return kai_err_set(err, KAI_EINVAL,
			    "invalid gres \"%s\": kaibatch knows only gpu, not "
			    "\"%.*s\"",
			    s, (int)nlen, e);
		}
		if (ngpu++ > 0) {
			submit_gpu_fini(&tmp);
			return kai_err_set(err, KAI_EINVAL,
			    "invalid gres \"%s\": gpu is given twice", s);
		}
		if (gres_gpu(s, e, len, &tmp, err) != 0)
			return KAI_EINVAL;
		if (comma == NULL)
			break;
		e = comma + 1;
	}
	submit_gpu_fini(g);
	*g = tmp;
	return 0;
}

int
submit_nodes_parse(const char *s, int64_t *min, int64_t *max,
    struct kai_err *err)
{
	const char *dash = strchr(s, '-');
	int64_t lo, hi;

	if (dash == NULL) {
		if (!digits_value(s, strlen(s), 1, COUNT_MAX, &lo))
			return kai_err_set(err, KAI_EINVAL,
			    "invalid node count \"%s\"", s);
		*min = *max = lo;
		return 0;
	}
	if (!digits_value(s, (size_t)(dash - s), 1, COUNT_MAX, &lo) ||
	    !digits_value(dash + 1, strlen(dash + 1), 1, COUNT_MAX, &hi))
		return kai_err_set(err, KAI_EINVAL, "invalid node count \"%s\"",
		    s);
	if (hi < lo)
		return kai_err_set(err, KAI_EINVAL,
		    "invalid node count \"%s\": maximum below minimum", s);
	*min = lo;
	*max = hi;
	return 0;
}

/*
 * Signals: the names Slurm's sig_name2num knows
 */

static const struct {
	const char *name;
	int number;
} signals[] = {
    {"HUP", SIGHUP},
    {"INT", SIGINT},
    {"QUIT", SIGQUIT},
    {"ABRT", SIGABRT},
    {"KILL", SIGKILL},
    {"ALRM", SIGALRM},
    {"TERM", SIGTERM},
    {"USR1", SIGUSR1},
    {"USR2", SIGUSR2},
    {"URG", SIGURG},
    {"CONT", SIGCONT},
    {"STOP", SIGSTOP},
    {"TSTP", SIGTSTP},
    {"TTIN", SIGTTIN},
    {"TTOU", SIGTTOU},
};

/* Linux numbers its signals 1 to 64; Slurm would take any 16-bit value. */
#define SIGNAL_MAX 64

const char *
submit_signal_name(int number)
{
	size_t i;

	for (i = 0; i < KAI_NELEM(signals); i++)
		if (signals[i].number == number)
			return signals[i].name;
	return NULL;
}

static int
signal_number(const char *s, size_t n)
{
	int64_t v;
	size_t i;

	if (digits_value(s, n, 1, SIGNAL_MAX, &v))
		return (int)v;
	if (n > 3 && strncasecmp(s, "SIG", 3) == 0)
		s += 3, n -= 3;
	for (i = 0; i < KAI_NELEM(signals); i++)
		if (strlen(signals[i].name) == n &&
		    strncasecmp(s, signals[i].name, n) == 0)
			return signals[i].number;
	return 0;
}

int
submit_signal_parse(const char *s, struct submit_signal *sg,
    struct kai_err *err)
{
	struct submit_signal tmp = {0, 60, false, false};
	const char *p = s, *at;
	int64_t secs;

	if (strncasecmp(p, "RB:", 3) == 0 || strncasecmp(p, "BR:", 3) == 0) {
		tmp.batch_only = tmp.resv = true;
		p += 3;
	} else if (strncasecmp(p, "B:", 2) == 0) {
		tmp.batch_only = true;
		p += 2;
	} else if (strncasecmp(p, "R:", 2) == 0) {
		tmp.resv = true;
		p += 2;
	}
	at = strchr(p, '@');
	tmp.number =
	    signal_number(p, at != NULL ? (size_t)(at - p) : strlen(p));
	if (tmp.number == 0)
		return kai_err_set(err, KAI_EINVAL,
		    "invalid signal \"%s\": unrecognized signal", s);
	if (at != NULL) {
		if (!digits_value(at + 1, strlen(at + 1), 0, 0xffff, &secs))
			return kai_err_set(err, KAI_EINVAL,
			    "invalid signal \"%s\": the time after \"@\" must "
			    "be 0 to 65535 seconds",
			    s);
		tmp.secs = secs;
	}
	*sg = tmp;
	return 0;
}

/*
 * kaibatch's own values
 */

int
submit_fraction_parse(const char *s, double *f, struct kai_err *err)
{
	size_t ndig = strspn(s, "0123456789");
	const char *p = s + ndig;

	if (*p == '.') {
		ndig += strspn(p + 1, "0123456789");
		p += 1 + strspn(p + 1, "0123456789");
	}
	if (ndig == 0 || *p != '\0' ||
	    kai_strtod(s, 0.0, 1.0, f, "GPU fraction", NULL) != 0 ||
	    *f <= 0.0 || *f >= 1.0)
		return kai_err_set(err, KAI_EINVAL,
		    "invalid GPU fraction \"%s\": must be a decimal above 0 "
		    "and below 1",
		    s);
	return 0;
}

static bool
chars_ok(const char *s, size_t n, const char *extra, bool upper)
{
	size_t i;

	if (n == 0 || n > 253)
		return false;
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (!(islower(c) || isdigit(c) || (upper && isupper(c)) ||
			strchr(extra, c) != NULL))
			return false;
	}
	return true;
}

bool
submit_k8s_name_ok(const char *s)
{
	size_t n = strlen(s);

	return chars_ok(s, n, "-.", false) && isalnum((unsigned char)s[0]) &&
	    isalnum((unsigned char)s[n - 1]);
}

int
submit_topology_parse(const char *s, char **name, char **level,
    struct kai_err *err)
{
	const char *colon = strchr(s, ':');
	const char *lv = colon != NULL ? colon + 1 : s;
	char *nm = colon != NULL ? kai_xstrndup(s, (size_t)(colon - s)) : NULL;

	if ((nm != NULL && !submit_k8s_name_ok(nm)) ||
	    !chars_ok(lv, strlen(lv), "-._/", true)) {
		free(nm);
		return kai_err_set(err, KAI_EINVAL,
		    "invalid topology \"%s\": expected [NAME:]LEVEL, as in "
		    "\"k8s.io/rack\"",
		    s);
	}
	*name = nm;
	*level = kai_xstrdup(lv);
	return 0;
}
