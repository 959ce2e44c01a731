/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * conf.c: loading kaid.yaml and kai.yaml; queries, dump and help.
 *
 * A load reads the whole file (at most KAI_CONF_FILE_MAX bytes) into one
 * buffer, sets every key to its default, then lets the reader replace
 * what the file names.  Nothing is handed to the caller until the whole
 * file has passed, so a reload that fails leaves the running config as it
 * was.  The file text and the conninfo may hold a database password: both
 * are wiped before they are freed, and the dump masks it.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/xmalloc.h"
#include "conf/conf.h"
#include "conf/conf_int.h"

/*
 * Reads path into *text (caller frees it with kai_free_secret(*text,
 * *len + 1)).  A missing file is KAI_ENOENT, for the clients' sake.
 */
static int
read_file(const char *path, char **text, size_t *len, struct kai_err *err)
{
	char *buf;
	size_t n = 0;
	ssize_t got = 0;
	int fd, e;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1) {
		e = errno;
		return kai_err_set(err, e == ENOENT ? KAI_ENOENT : KAI_ECONFIG,
		    "could not open config file \"%s\": %s", path, strerror(e));
	}
	/*
	 * One buffer of the largest size allowed, never grown: growing would
	 * leave copies of a password in freed memory.
	 */
	buf = kai_xmalloc(KAI_CONF_FILE_MAX + 1);
	for (;;) {
		got = read(fd, buf + n, KAI_CONF_FILE_MAX + 1 - n);
		if (got == -1 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		n += (size_t)got;
		if (n > KAI_CONF_FILE_MAX)
			break;
	}
	e = errno;
	(void)close(fd); /* read-only: nothing is lost when close fails */
	if (got == -1 || n > KAI_CONF_FILE_MAX) {
		kai_free_secret(buf, n);
		if (got == -1)
			return kai_err_set(err, KAI_ECONFIG,
			    "could not read config file \"%s\": %s", path,
			    strerror(e));
		return kai_err_set(err, KAI_ECONFIG,
		    "config file \"%s\" is larger than %zu bytes", path,
		    KAI_CONF_FILE_MAX);
	}
	buf[n] = '\0';
	*text = buf;
	*len = n;
	return 0;
}

/* Reads path into base, which holds the defaults already. */
static int
load(const char *path, const struct kai_conf_table *t, void *base,
    struct kai_err *err)
{
	struct kai_conf_rd rd;
	char *text = NULL;
	size_t len = 0;
	int r;

	if ((r = read_file(path, &text, &len, err)) != 0)
		return r;
	kai_conf_rd_init(&rd, path, text, len, t, err);
	r = kai_conf_rd_document(&rd, base);
	kai_conf_rd_fini(&rd);
	kai_free_secret(text, len + 1);
	return r;
}

int
kai_conf_load(const char *path, struct kai_conf **confp, struct kai_err *err)
{
	struct kai_conf *conf;

	*confp = NULL;
	conf = kai_xcalloc(1, sizeof(*conf));
	conf->path = kai_xstrdup(path);
	kai_conf_defaults(&kai_conf_daemon_table, "", false, conf);
	if (load(path, &kai_conf_daemon_table, conf, err) != 0) {
		kai_conf_free(conf);
		if (err != NULL)
			err->code = KAI_ECONFIG;
		return KAI_ECONFIG;
	}
	*confp = conf;
	return 0;
}

void
kai_conf_free(struct kai_conf *conf)
{
	if (conf == NULL)
		return;
	kai_conf_release(&kai_conf_daemon_table, "", false, conf);
	free(conf->path);
	free(conf);
}

const struct kai_conf_partition *
kai_conf_partition(const struct kai_conf *conf, const char *name)
{
	size_t i;

	for (i = 0; i < conf->npartitions; i++) {
		if (name == NULL ? conf->partitions[i].is_default :
		    strcmp(conf->partitions[i].name, name) == 0)
			return &conf->partitions[i];
	}
	return NULL;
}

const struct kai_conf_fs *
kai_conf_filesystems(const struct kai_conf *conf, const char *name,
    size_t *n)
{
	const struct kai_conf_partition *p = kai_conf_partition(conf, name);

	if (p != NULL && p->filesystems != NULL) {
		*n = p->nfilesystems;
		return p->filesystems;
	}
	*n = conf->nfilesystems;
	return conf->filesystems;
}

bool
kai_conf_is_operator(const struct kai_conf *conf, uint32_t uid)
{
	size_t i;

	if (uid == 0)
		return true;
	for (i = 0; i < conf->noperators; i++)
		if (conf->operators[i] == uid)
			return true;
	return false;
}

/* Appends s[from, to) and moves from past it. */
static void
copy_span(struct kai_buf *b, const char *s, size_t *from, size_t to)
{
	KAI_ASSERT(kai_buf_add(b, s + *from, to - *from) == 0);
	*from = to;
}

/* "postgresql://user:secret@host/db?password=x&sslmode=y" */
static void
mask_uri(struct kai_buf *b, const char *s, size_t start)
{
	size_t i = start, done = 0, auth_end, at = 0;
	const char *p;

	auth_end = start + strcspn(s + start, "/?");
	for (; i < auth_end; i++)
		if (s[i] == '@')
			at = i;
	p = at != 0 ? memchr(s + start, ':', at - start) : NULL;
	if (p != NULL) {
		copy_span(b, s, &done, (size_t)(p - s) + 1);
		KAI_ASSERT(kai_buf_adds(b, "***") == 0);
		done = at;
	}
	if ((p = strchr(s + auth_end, '?')) == NULL) {
		copy_span(b, s, &done, strlen(s));
		return;
	}
	for (i = (size_t)(p - s) + 1; s[i] != '\0';) {
		size_t end = i + strcspn(s + i, "&");

		if (strncmp(s + i, "password=", 9) == 0) {
			copy_span(b, s, &done, i + 9);
			KAI_ASSERT(kai_buf_adds(b, "***") == 0);
			done = end;
		}
		i = end + (s[end] == '&');
	}
	copy_span(b, s, &done, strlen(s));
}

/* End of the value at s[i], libpq's rules: 'quoted' or up to a space. */
static size_t
value_end(const char *s, size_t i)
{
	bool quoted = s[i] == '\'';

	for (i += quoted; s[i] != '\0'; i++) {
		if (s[i] == '\\' && s[i + 1] != '\0')
			i++;
		else if (quoted ? s[i] == '\'' : isspace((unsigned char)s[i]))
			return i + quoted;
	}
	return i;
}

char *
kai_conf_mask_conninfo(const char *s)
{
	struct kai_buf b;
	size_t i = 0, done = 0, key, keylen, v;

	/* Each "***" replaces a value after a keyword of 8 bytes or more. */
	kai_buf_init(&b, 2 * strlen(s) + 16);
	if (strncmp(s, "postgresql://", 13) == 0 ||
	    strncmp(s, "postgres://", 11) == 0) {
		mask_uri(&b, s, (size_t)(strchr(s, ':') - s) + 3);
		return kai_buf_detach(&b, NULL);
	}
	for (;;) {
		while (isspace((unsigned char)s[i]))
			i++;
		if (s[i] == '\0')
			break;
		key = i;
		i += strcspn(s + i, "= \t\n\r\f\v");
		keylen = i - key;
		while (isspace((unsigned char)s[i]))
			i++;
		if (s[i] != '=') {
			/* Not a conninfo libpq would take: show none of it. */
			kai_buf_reset(&b);
			KAI_ASSERT(kai_buf_adds(&b, "***") == 0);
			return kai_buf_detach(&b, NULL);
		}
		i++;
		while (isspace((unsigned char)s[i]))
			i++;
		v = i;
		i = value_end(s, i);
		if (keylen == 8 && strncmp(s + key, "password", 8) == 0) {
			copy_span(&b, s, &done, v);
			KAI_ASSERT(kai_buf_adds(&b, "***") == 0);
			done = i;
		}
	}
	copy_span(&b, s, &done, strlen(s));
	return kai_buf_detach(&b, NULL);
}

/* The part of key before its first dot, as a length; 0 = top level. */
static size_t
section_len(const char *key)
{
	const char *dot = strchr(key, '.');

	return dot != NULL ? (size_t)(dot - key) : 0;
}

char *
kai_conf_dump(const struct kai_conf *conf)
{
	const struct kai_conf_table *t = &kai_conf_daemon_table;
	const struct kai_conf_entry *e, *prev = NULL;
	struct kai_buf b;
	size_t i, sl;
	int r = 0, indent;

	kai_buf_init(&b, KAI_CONF_FILE_MAX);
	for (i = 0; r == 0 && i < t->n; i++) {
		e = &t->entries[i];
		if ((e->flags & KAI_CONF_ITEM) != 0)
			continue;
		sl = section_len(e->key);
		if (sl != 0 && (prev == NULL || section_len(prev->key) != sl ||
		    strncmp(prev->key, e->key, sl) != 0))
			r = kai_buf_addf(&b, "%.*s:\n", (int)sl, e->key);
		indent = sl != 0 ? 2 : 0;
		if (r == 0)
			r = kai_buf_addf(&b, "%*s%s:%s", indent, "",
			    e->key + sl + (sl != 0),
			    kai_conf_types[e->type].block ? "" : " ");
		if (r == 0)
			r = kai_conf_types[e->type].dump(&b, e, conf,
			    indent + 2);
		if (r == 0)
			r = kai_buf_addc(&b, '\n');
		prev = e;
	}
	/* 256 partitions of four short lines fit many times over. */
	KAI_ASSERT(r == 0);
	return kai_buf_detach(&b, NULL);
}

char *
kai_conf_help(void)
{
	const struct kai_conf_table *t = &kai_conf_daemon_table;
	const struct kai_conf_entry *e;
	char key[KAI_CONF_KEY_MAX], type[32];
	const char *def;
	struct kai_buf b;
	size_t i, sl;
	int r = 0;

	kai_buf_init(&b, (size_t)64 * 1024);
	for (i = 0; r == 0 && i < t->n; i++) {
		e = &t->entries[i];
		sl = section_len(e->key);
		if ((e->flags & KAI_CONF_ITEM) != 0)
			(void)snprintf(key, sizeof(key), "%.*s[].%s", (int)sl,
			    e->key, e->key + sl + 1);
		else
			(void)snprintf(key, sizeof(key), "%s", e->key);
		if (e->type == KAI_CONF_SIZE || e->type == KAI_CONF_DURATION)
			(void)snprintf(type, sizeof(type), "%s(%s)",
			    kai_conf_types[e->type].name, e->unit);
		else
			(void)snprintf(type, sizeof(type), "%s",
			    kai_conf_types[e->type].name);
		if (e->def != NULL)
			def = e->def;
		else
			def = (e->flags & KAI_CONF_REQUIRED) != 0 ?
			    "(required)" : "(unset)";
		r = kai_buf_addf(&b, "%-26s %-15s %-20s %s\n", key, type, def,
		    e->help);
	}
	KAI_ASSERT(r == 0);
	return kai_buf_detach(&b, NULL);
}

int
kai_client_conf_load(const char *path, struct kai_client_conf *cc,
    struct kai_err *err)
{
	int r;

	memset(cc, 0, sizeof(*cc));
	kai_conf_defaults(&kai_conf_client_table, "", false, cc);
	r = load(path, &kai_conf_client_table, cc, err);
	if (r == KAI_ENOENT) {
		kai_err_clear(err);
		return 0;
	}
	if (r != 0) {
		kai_client_conf_fini(cc);
		if (err != NULL)
			err->code = KAI_ECONFIG;
		return KAI_ECONFIG;
	}
	return 0;
}

void
kai_client_conf_fini(struct kai_client_conf *cc)
{
	if (cc == NULL)
		return;
	kai_conf_release(&kai_conf_client_table, "", false, cc);
}
