/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * output.h: how the clients print data: Slurm-style columns, parsable
 * lines, JSON, and the time formats users know from squeue and sacct.
 *
 * Columns follow Slurm's two habits: squeue cuts a value that does not
 * fit its column (OUT_TRUNC_CUT), sacct cuts it one shorter and appends
 * "+" so the cut shows (OUT_TRUNC_PLUS).  Parsable output separates
 * fields with "|" (sacct -p also ends each line with one, -P does not)
 * and never cuts.  JSON goes through json-c and is printed pretty with
 * one final newline, so scripts can pipe it to jq.
 *
 * All functions write to the FILE they are given and return nothing:
 * a short write to stdout shows at exit (the programs check ferror).
 */
#ifndef KAI_CLIENTS_OUTPUT_H
#define KAI_CLIENTS_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/err.h"

struct json_object;

enum out_trunc {
	OUT_TRUNC_CUT = 0, /* squeue: keep the first width bytes */
	OUT_TRUNC_PLUS = 1 /* sacct: width - 1 bytes and "+" */
};

enum out_mode {
	OUT_MODE_TABLE = 0,    /* padded columns separated by one space */
	OUT_MODE_PARSABLE = 1, /* "a|b|c|" */
	OUT_MODE_PARSABLE2 = 2 /* "a|b|c" */
};

/*
 * Writes text in a field of width bytes (0 = as long as the text),
 * right-justified or not, cut as trunc says when it is longer.
 */
void out_field(FILE *f, const char *text, int width, bool right,
    enum out_trunc trunc);

/*
 * A line built in memory and written with one fwrite (kqueue prints
 * 50,000 of them, where three stdio calls a cell showed in profiles).
 * Cells follow out_field's OUT_TRUNC_CUT rule; what passes the buffer is
 * cut, and the line still ends with its newline.
 */
#define OUT_LINE_MAX (64 * 1024)
struct out_line {
	char b[OUT_LINE_MAX];
	size_t len;
};
void out_line_begin(struct out_line *ln);
void out_line_put(struct out_line *ln, const char *s, size_t n);
void out_line_cell(struct out_line *ln, const char *text, int width,
    bool right);
/* Appends the newline and writes the line to f. */
void out_line_end(struct out_line *ln, FILE *f);

struct out_col {
	const char *header; /* "JobID" */
	int width;          /* 0 = the text's own width */
	bool right;         /* right-justify */
};

/* A table being printed row by row. */
struct out_table {
	FILE *f;
	const struct out_col *cols; /* borrowed */
	size_t ncols;
	enum out_mode mode;
	enum out_trunc trunc;
	size_t cur; /* next column of the current row */
};

void out_table_init(struct out_table *t, FILE *f, const struct out_col *cols,
    size_t ncols, enum out_mode mode, enum out_trunc trunc);
/* The header line; with dashes (sacct) a line of '-' under each column. */
void out_table_header(struct out_table *t, bool dashes);
/* The next cell of the current row; NULL prints as "". */
void out_table_cell(struct out_table *t, const char *text);
void out_table_cellf(struct out_table *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Ends the row (cells not given are printed empty). */
void out_table_end_row(struct out_table *t);

/*
 * Durations and times
 */

/*
 * Cell text without printf: these run for every cell of a 50,000-row
 * listing.  Both always NUL-terminate (when n > 0) and truncate to fit.
 */
void out_copy(char *b, size_t n, const char *s);
/*
 * A -O list as squeue and sinfo read it, "JobID,UserName:10,State:.8":
 * for each name, find(name, len, ctx) gives its field (NULL: "invalid
 * --Format field"), then its width ("[.]digits", "." right-justifies;
 * def when absent; above max refused) goes to add(field, width, right,
 * ctx).  KAI_EINVAL naming the item at the first bad one.
 */
int out_format_list(const char *list, int def, int max,
    const void *(*find)(const char *name, size_t len, void *ctx),
    void (*add)(const void *field, int width, bool right, void *ctx),
    void *ctx, struct kai_err *err);
void out_u64(char *b, size_t n, uint64_t v);

#define OUT_TIME_LEN 32

/* squeue TIME: "0:00" for 0, else kai_time_format ("M:SS", "H:MM:SS"...). */
const char *out_elapsed_squeue(int64_t seconds, char buf[OUT_TIME_LEN]);
/* sacct Elapsed / Timelimit: "HH:MM:SS" or "D-HH:MM:SS". */
const char *out_elapsed_sacct(int64_t seconds, char buf[OUT_TIME_LEN]);
/* A time limit for either: "UNLIMITED" for KAI_TIME_UNLIMITED. */
const char *out_limit(int64_t seconds, bool sacct, char buf[OUT_TIME_LEN]);
/* "YYYY-MM-DDTHH:MM:SS" in local time; "Unknown" for 0 (sacct, squeue). */
const char *out_timestamp(int64_t t, char buf[OUT_TIME_LEN]);

/*
 * JSON (json-c); the helpers take NULL strings as "".
 */
void out_json_add_str(struct json_object *o, const char *key, const char *s);
void out_json_add_int(struct json_object *o, const char *key, int64_t v);
void out_json_add_bool(struct json_object *o, const char *key, bool v);
/* Prints root pretty-printed with a final newline. */
void out_json_print(FILE *f, struct json_object *root);

#endif /* KAI_CLIENTS_OUTPUT_H */
