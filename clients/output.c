/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * output.c: columns, parsable lines, JSON and time formats for the
 * clients.  See output.h.
 */
#include "config.h"

#include "output.h"

#include <inttypes.h>
#include <json-c/json.h>
#include <stdarg.h>
#include <string.h>
#include <time.h>

#include "model/job.h"

#define OUT_CELL_MAX 256 /* widths padded in one buffer */

static void
pad(FILE *f, size_t n)
{
	static const char spaces[] = "                                ";

	while (n > 0) {
		size_t k = n < sizeof(spaces) - 1 ? n : sizeof(spaces) - 1;

		(void)fwrite(spaces, 1, k, f);
		n -= k;
	}
}

void
out_field(FILE *f, const char *text, int width, bool right,
    enum out_trunc trunc)
{
	size_t len, w;

	if (text == NULL)
		text = "";
	len = strlen(text);
	if (width <= 0) {
		(void)fputs(text, f);
		return;
	}
	w = (size_t)width;
	if (len <= w && w < OUT_CELL_MAX) {
		/*
		 * One fwrite per cell: this runs for every cell of a
		 * 50,000-row kqueue, where a printf per cell was a fifth of
		 * the client's time and three stdio calls still showed.
		 */
		char cell[OUT_CELL_MAX];
		size_t gap = w - len;

		memset(cell, ' ', w);
		memcpy(cell + (right ? gap : 0), text, len);
		(void)fwrite(cell, 1, w, f);
		return;
	}
	if (len > w) {
		if (trunc == OUT_TRUNC_PLUS) {
			(void)fwrite(text, 1, w - 1, f);
			(void)fputc('+', f);
		} else {
			(void)fwrite(text, 1, w, f);
		}
		return;
	}
	if (right)
		pad(f, w - len);
	(void)fwrite(text, 1, len, f);
	if (!right)
		pad(f, w - len);
}

void
out_line_begin(struct out_line *ln)
{
	ln->len = 0;
}

void
out_line_put(struct out_line *ln, const char *s, size_t n)
{
	if (n > sizeof(ln->b) - ln->len)
		n = sizeof(ln->b) - ln->len;
	memcpy(ln->b + ln->len, s, n);
	ln->len += n;
}

static void
line_pad(struct out_line *ln, size_t gap)
{
	if (gap > sizeof(ln->b) - ln->len)
		gap = sizeof(ln->b) - ln->len;
	memset(ln->b + ln->len, ' ', gap);
	ln->len += gap;
}

void
out_line_cell(struct out_line *ln, const char *text, int width, bool right)
{
	size_t len = strlen(text), w = (size_t)width;

	if (width <= 0 || len >= w) {
		out_line_put(ln, text, width <= 0 ? len : w);
		return;
	}
	if (right)
		line_pad(ln, w - len);
	out_line_put(ln, text, len);
	if (!right)
		line_pad(ln, w - len);
}

void
out_line_end(struct out_line *ln, FILE *f)
{
	out_line_put(ln, "\n", 1);
	ln->b[ln->len - 1] = '\n'; /* a full line still ends with one */
	(void)fwrite(ln->b, 1, ln->len, f);
}

void
out_copy(char *b, size_t n, const char *s)
{
	size_t len;

	if (n == 0)
		return;
	len = s != NULL ? strlen(s) : 0;
	if (len >= n)
		len = n - 1;
	memcpy(b, s != NULL ? s : "", len);
	b[len] = '\0';
}

void
out_u64(char *b, size_t n, uint64_t v)
{
	char t[24];
	size_t i = sizeof(t);

	t[--i] = '\0';
	do {
		t[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v != 0);
	out_copy(b, n, t + i);
}

void
out_table_init(struct out_table *t, FILE *f, const struct out_col *cols,
    size_t ncols, enum out_mode mode, enum out_trunc trunc)
{
	t->f = f;
	t->cols = cols;
	t->ncols = ncols;
	t->mode = mode;
	t->trunc = trunc;
	t->cur = 0;
}

void
out_table_header(struct out_table *t, bool dashes)
{
	size_t i;
	int w;

	for (i = 0; i < t->ncols; i++)
		out_table_cell(t, t->cols[i].header);
	out_table_end_row(t);
	if (!dashes || t->mode != OUT_MODE_TABLE)
		return;
	for (i = 0; i < t->ncols; i++) {
		if (i > 0)
			(void)fputc(' ', t->f);
		w = t->cols[i].width > 0 ? t->cols[i].width
					 : (int)strlen(t->cols[i].header);
		while (w-- > 0)
			(void)fputc('-', t->f);
	}
	(void)fputc('\n', t->f);
}

void
out_table_cell(struct out_table *t, const char *text)
{
	const struct out_col *c;

	if (t->cur >= t->ncols)
		return;
	c = &t->cols[t->cur];
	if (t->mode == OUT_MODE_TABLE) {
		if (t->cur > 0)
			(void)fputc(' ', t->f);
		out_field(t->f, text, c->width, c->right, t->trunc);
	} else {
		if (t->cur > 0)
			(void)fputc('|', t->f);
		(void)fputs(text != NULL ? text : "", t->f);
	}
	t->cur++;
}

void
out_table_cellf(struct out_table *t, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	(void)vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	out_table_cell(t, buf);
}

void
out_table_end_row(struct out_table *t)
{
	while (t->cur < t->ncols)
		out_table_cell(t, "");
	if (t->mode == OUT_MODE_PARSABLE)
		(void)fputc('|', t->f);
	(void)fputc('\n', t->f);
	t->cur = 0;
}

const char *
out_elapsed_squeue(int64_t seconds, char buf[OUT_TIME_LEN])
{
	if (seconds <= 0) {
		(void)snprintf(buf, OUT_TIME_LEN, "0:00");
		return buf;
	}
	kai_time_format(seconds, buf, OUT_TIME_LEN);
	return buf;
}

const char *
out_elapsed_sacct(int64_t seconds, char buf[OUT_TIME_LEN])
{
	int64_t d, h, m, s;

	if (seconds < 0)
		seconds = 0;
	d = seconds / 86400;
	h = seconds / 3600 % 24;
	m = seconds / 60 % 60;
	s = seconds % 60;
	if (d > 0)
		(void)snprintf(buf, OUT_TIME_LEN,
		    "%" PRId64 "-%02" PRId64 ":%02" PRId64 ":%02" PRId64, d, h,
		    m, s);
	else
		(void)snprintf(buf, OUT_TIME_LEN,
		    "%02" PRId64 ":%02" PRId64 ":%02" PRId64, h, m, s);
	return buf;
}

const char *
out_limit(int64_t seconds, bool sacct, char buf[OUT_TIME_LEN])
{
	if (seconds == KAI_TIME_UNLIMITED) {
		(void)snprintf(buf, OUT_TIME_LEN, "UNLIMITED");
		return buf;
	}
	if (seconds < 0) {
		(void)snprintf(buf, OUT_TIME_LEN, "N/A");
		return buf;
	}
	if (sacct)
		return out_elapsed_sacct(seconds, buf);
	kai_time_format(seconds, buf, OUT_TIME_LEN);
	return buf;
}

const char *
out_timestamp(int64_t t, char buf[OUT_TIME_LEN])
{
	struct tm tm;
	time_t tt = (time_t)t;

	if (t <= 0 || localtime_r(&tt, &tm) == NULL ||
	    strftime(buf, OUT_TIME_LEN, "%Y-%m-%dT%H:%M:%S", &tm) == 0)
		(void)snprintf(buf, OUT_TIME_LEN, "Unknown");
	return buf;
}

void
out_json_add_str(struct json_object *o, const char *key, const char *s)
{
	(void)json_object_object_add(o, key,
	    json_object_new_string(s != NULL ? s : ""));
}

void
out_json_add_int(struct json_object *o, const char *key, int64_t v)
{
	(void)json_object_object_add(o, key, json_object_new_int64(v));
}

void
out_json_add_bool(struct json_object *o, const char *key, bool v)
{
	(void)json_object_object_add(o, key, json_object_new_boolean(v));
}

void
out_json_print(FILE *f, struct json_object *root)
{
	(void)fputs(json_object_to_json_string_ext(root,
			JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
			    JSON_C_TO_STRING_NOSLASHESCAPE),
	    f);
	(void)fputc('\n', f);
}

/* "[.]digits" between p and end; -1 when it is not that or passes max. */
static int
field_width(const char *p, const char *end, int max, int *width, bool *right)
{
	int w = 0;

	*right = p < end && *p == '.';
	p += *right;
	if (p == end)
		return -1;
	for (; p < end; p++) {
		if (*p < '0' || *p > '9' || w > max / 10)
			return -1;
		w = w * 10 + (*p - '0');
	}
	*width = w;
	return w <= max ? 0 : -1;
}

int
out_format_list(const char *list, int def, int max,
    const void *(*find)(const char *name, size_t len, void *ctx),
    void (*add)(const void *field, int width, bool right, void *ctx),
    void *ctx, struct kai_err *err)
{
	const char *p = list, *end, *colon;
	const void *f;
	size_t len;
	int width;
	bool right;

	while (*p != '\0') {
		end = p + strcspn(p, ",");
		colon = memchr(p, ':', (size_t)(end - p));
		len = (size_t)((colon != NULL ? colon : end) - p);
		if ((f = find(p, len, ctx)) == NULL)
			return kai_err_set(err, KAI_EINVAL,
			    "invalid --Format field \"%.*s\"", (int)len, p);
		width = def;
		right = false;
		if (colon != NULL &&
		    field_width(colon + 1, end, max, &width, &right) != 0)
			return kai_err_set(err, KAI_EINVAL,
			    "invalid --Format field \"%.*s\": bad width",
			    (int)(end - p), p);
		add(f, width, right, ctx);
		p = *end == ',' ? end + 1 : end;
	}
	return 0;
}
