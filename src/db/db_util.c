/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * db_util.c: the helpers every db file uses to talk to libpq.
 *
 * Parameters are text, built here and handed to PQexecParams, so no value
 * is ever part of the SQL text.  Results are read as text too: the numbers
 * are parsed strictly by hand (PostgreSQL prints them in one canonical
 * form, and a hand-rolled loop keeps 10,000-row answers cheap), and arrays
 * travel as quoted literals in both directions.  See db_internal.h.
 */
#include "config.h"

#include "db/db_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "model/job.h"
#include "model/jobstate.h"

void
kai_db_params_init(struct kai_db_params *p)
{
	memset(p, 0, sizeof(*p));
}

void
kai_db_params_fini(struct kai_db_params *p)
{
	size_t i;

	for (i = 0; i < p->nowned; i++)
		free(p->owned[i]);
	free(p->owned);
	free(p->v);
	memset(p, 0, sizeof(*p));
}

int
kai_db_param_str(struct kai_db_params *p, const char *s)
{
	if (p->n == p->cap) {
		p->cap = p->cap == 0 ? 32 : p->cap * 2;
		p->v = kai_xreallocarray(p->v, (size_t)p->cap, sizeof(*p->v));
	}
	p->v[p->n++] = s;
	return p->n;
}

int
kai_db_param_own(struct kai_db_params *p, char *s)
{
	if (p->nowned == p->capowned) {
		p->capowned = p->capowned == 0 ? 32 : p->capowned * 2;
		p->owned = kai_xreallocarray(p->owned, p->capowned,
		    sizeof(*p->owned));
	}
	p->owned[p->nowned++] = s;
	return kai_db_param_str(p, s);
}

int
kai_db_param_i64(struct kai_db_params *p, int64_t v)
{
	return kai_db_param_own(p, kai_xasprintf("%" PRId64, v));
}

int
kai_db_param_u64(struct kai_db_params *p, uint64_t v)
{
	return kai_db_param_own(p, kai_xasprintf("%" PRIu64, v));
}

int
kai_db_param_bool(struct kai_db_params *p, bool v)
{
	return kai_db_param_str(p, v ? "t" : "f");
}

/*
 * Errors
 */

/* Copies the first line of s, the part of libpq's messages that matters. */
static void
first_line(char *out, size_t size, const char *s)
{
	size_t n = strcspn(s, "\n");

	if (n >= size)
		n = size - 1;
	memcpy(out, s, n);
	out[n] = '\0';
}

int
kai_db_error(struct kai_db *db, const PGresult *res, const char *what,
    struct kai_err *err)
{
	const char *state, *msg, *detail;
	char line[KAI_ERR_MSG_MAX], dline[KAI_ERR_MSG_MAX];
	size_t dn;
	int code = KAI_EDB;

	state = res != NULL ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
	msg = res != NULL ? PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY) :
	    NULL;
	detail = res != NULL ? PQresultErrorField(res, PG_DIAG_MESSAGE_DETAIL) :
	    NULL;
	if (msg == NULL)
		msg = res != NULL && *PQresultErrorMessage(res) != '\0' ?
		    PQresultErrorMessage(res) : PQerrorMessage(db->conn);
	first_line(line, sizeof(line), msg);
	if (state != NULL) {
		if (strcmp(state, "23505") == 0)
			code = KAI_EEXIST;
		else if (strcmp(state, "23503") == 0)
			code = KAI_ENOENT;
		else if (strcmp(state, "40001") == 0 ||
		    strcmp(state, "40P01") == 0)
			code = KAI_EAGAIN;
	}
	if (PQstatus(db->conn) != CONNECTION_OK)
		db->broken = true;
	/* The detail names the culprit: "Key (queue)=(x) is not present". */
	first_line(dline, sizeof(dline), detail != NULL ? detail : "");
	dn = strlen(dline);
	if (dn > 0 && dline[dn - 1] == '.')
		dline[dn - 1] = '\0';
	return kai_err_set(err, code, "%s: %s%s%s", what,
	    line[0] != '\0' ? line : "connection lost",
	    dline[0] != '\0' ? ": " : "", dline);
}

PGresult *
kai_db_exec(struct kai_db *db, const char *sql, const struct kai_db_params *p,
    ExecStatusType want, const char *what, struct kai_err *err)
{
	PGresult *res;

	res = PQexecParams(db->conn, sql, p != NULL ? p->n : 0, NULL,
	    p != NULL ? p->v : NULL, NULL, NULL, 0);
	if (res != NULL && PQresultStatus(res) == want)
		return res;
	(void)kai_db_error(db, res, what, err);
	PQclear(res);
	return NULL;
}

int
kai_db_cmd(struct kai_db *db, const char *sql, const struct kai_db_params *p,
    const char *what, struct kai_err *err)
{
	PGresult *res;
	ExecStatusType st;
	int r = 0;

	res = PQexecParams(db->conn, sql, p != NULL ? p->n : 0, NULL,
	    p != NULL ? p->v : NULL, NULL, NULL, 0);
	st = res != NULL ? PQresultStatus(res) : PGRES_FATAL_ERROR;
	if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK)
		r = kai_db_error(db, res, what, err);
	PQclear(res);
	return r;
}

int
kai_db_errcode(const struct kai_err *err)
{
	return err != NULL && err->code != 0 ? err->code : KAI_EDB;
}

void
kai_db_rollback(struct kai_db *db)
{
	PGresult *res;

	res = PQexec(db->conn, "ROLLBACK");
	if (res == NULL || PQresultStatus(res) != PGRES_COMMAND_OK)
		db->broken = true;
	PQclear(res);
}

/*
 * Rows
 */

int64_t
kai_db_get_i64(struct kai_db_row *r, int col)
{
	const char *s = PQgetvalue(r->res, r->row, col);
	uint64_t v = 0, lim = INT64_MAX;
	bool neg = false;
	const char *start;

	if (*s == '-') {
		neg = true;
		lim = (uint64_t)INT64_MAX + 1;
		s++;
	}
	start = s;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (v > (lim - (uint64_t)(*s - '0')) / 10) {
			r->bad = true;
			return 0;
		}
		v = v * 10 + (uint64_t)(*s - '0');
	}
	if (s == start || *s != '\0') {
		r->bad = true;
		return 0;
	}
	if (neg)
		return v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v;
	return (int64_t)v;
}

uint32_t
kai_db_get_u32(struct kai_db_row *r, int col)
{
	int64_t v = kai_db_get_i64(r, col);

	if (v < 0 || v > (int64_t)UINT32_MAX) {
		r->bad = true;
		return 0;
	}
	return (uint32_t)v;
}

uint64_t
kai_db_get_u64(struct kai_db_row *r, int col)
{
	int64_t v = kai_db_get_i64(r, col);

	if (v < 0) {
		r->bad = true;
		return 0;
	}
	return (uint64_t)v;
}

bool
kai_db_get_bool(struct kai_db_row *r, int col)
{
	const char *s = PQgetvalue(r->res, r->row, col);

	if (strcmp(s, "t") == 0)
		return true;
	if (strcmp(s, "f") != 0)
		r->bad = true;
	return false;
}

/* The jobs.open_mode column: 'append', 'truncate' or NULL (not given). */
uint32_t
kai_db_get_open_mode(struct kai_db_row *r, int col)
{
	const char *s;

	if (PQgetisnull(r->res, r->row, col))
		return KAI_OPEN_DEFAULT;
	s = PQgetvalue(r->res, r->row, col);
	if (strcmp(s, "append") == 0)
		return KAI_OPEN_APPEND;
	if (strcmp(s, "truncate") == 0)
		return KAI_OPEN_TRUNCATE;
	r->bad = true;
	return KAI_OPEN_DEFAULT;
}

const char *
kai_db_open_mode_text(uint32_t mode)
{
	return mode == KAI_OPEN_APPEND ? "append" :
	    mode == KAI_OPEN_TRUNCATE ? "truncate" : NULL;
}

char *
kai_db_get_dup(struct kai_db_row *r, int col)
{
	return kai_xstrndup(PQgetvalue(r->res, r->row, col),
	    (size_t)PQgetlength(r->res, r->row, col));
}

char *
kai_db_get_optstr(struct kai_db_row *r, int col)
{
	if (PQgetlength(r->res, r->row, col) == 0)
		return kai_job_optstr(NULL);
	return kai_db_get_dup(r, col);
}

char *
kai_db_get_dupnull(struct kai_db_row *r, int col)
{
	if (PQgetisnull(r->res, r->row, col))
		return NULL;
	return kai_db_get_dup(r, col);
}

int
kai_db_get_state(struct kai_db_row *r, int col)
{
	enum kai_job_state s;

	if (kai_jobstate_parse(PQgetvalue(r->res, r->row, col), &s) != 0) {
		r->bad = true;
		return KAI_JOB_PENDING;
	}
	return (int)s;
}

/*
 * Array literals
 */

int
kai_db_array_text(struct kai_buf *b, const char *const *v, size_t n)
{
	const char *s, *run;
	size_t i;
	int r = kai_buf_addc(b, '{');

	for (i = 0; i < n && r == 0; i++) {
		if (i > 0)
			r = kai_buf_addc(b, ',');
		if (r == 0)
			r = kai_buf_addc(b, '"');
		for (s = v[i] != NULL ? v[i] : ""; r == 0 && *s != '\0';) {
			run = s;
			while (*s != '\0' && *s != '"' && *s != '\\')
				s++;
			r = kai_buf_add(b, run, (size_t)(s - run));
			if (r == 0 && *s != '\0') {
				r = kai_buf_addc(b, '\\');
				if (r == 0)
					r = kai_buf_addc(b, *s++);
			}
		}
		if (r == 0)
			r = kai_buf_addc(b, '"');
	}
	if (r == 0)
		r = kai_buf_addc(b, '}');
	return r;
}

int
kai_db_array_u64(struct kai_buf *b, const uint64_t *v, size_t n)
{
	size_t i;
	int r = kai_buf_addc(b, '{');

	for (i = 0; i < n && r == 0; i++)
		r = kai_buf_addf(b, i > 0 ? ",%" PRIu64 : "%" PRIu64, v[i]);
	if (r == 0)
		r = kai_buf_addc(b, '}');
	return r;
}

int
kai_db_array_u32(struct kai_buf *b, const uint32_t *v, size_t n)
{
	size_t i;
	int r = kai_buf_addc(b, '{');

	for (i = 0; i < n && r == 0; i++)
		r = kai_buf_addf(b, i > 0 ? ",%" PRIu32 : "%" PRIu32, v[i]);
	if (r == 0)
		r = kai_buf_addc(b, '}');
	return r;
}

/*
 * Reads one element at *sp: a quoted one with backslash escapes, or a bare
 * one up to the next ',' or '}'.  Bare NULL is refused: we never store it.
 */
static char *
parse_element(const char **sp)
{
	const char *s = *sp, *start;
	char *out, *o;

	if (*s == '"') {
		out = o = kai_xmalloc(strlen(s));
		for (s++; *s != '"'; s++) {
			if (*s == '\\')
				s++;
			if (*s == '\0') {
				free(out);
				return NULL;
			}
			*o++ = *s;
		}
		*o = '\0';
		*sp = s + 1;
		return out;
	}
	start = s;
	while (*s != '\0' && *s != ',' && *s != '}')
		s++;
	if (s == start || (s - start == 4 && strncmp(start, "NULL", 4) == 0))
		return NULL;
	*sp = s;
	return kai_xstrndup(start, (size_t)(s - start));
}

int
kai_db_parse_text_array(const char *s, char ***vp, size_t *np)
{
	char **v = NULL, *e;
	size_t n = 0, cap = 0;

	if (*s++ != '{')
		return KAI_EINVAL;
	while (*s != '}') {
		if (n > 0 && *s++ != ',')
			goto bad;
		if ((e = parse_element(&s)) == NULL)
			goto bad;
		if (n + 1 >= cap) {
			cap = cap == 0 ? 8 : cap * 2;
			v = kai_xreallocarray(v, cap, sizeof(*v));
		}
		v[n++] = e;
	}
	if (s[1] != '\0')
		goto bad;
	if (v == NULL)
		v = kai_xcalloc(1, sizeof(*v));
	v[n] = NULL;
	*vp = v;
	*np = n;
	return 0;
bad:
	while (n > 0)
		free(v[--n]);
	free(v);
	return KAI_EINVAL;
}
