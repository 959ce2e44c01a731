/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * err.h: error codes and the error-with-reason struct.
 *
 * A function that can fail returns int: 0 on success or a negative KAI_E*
 * code.  When the caller may need the reason it also takes a struct kai_err
 * as its last argument; kai_err_set() fills it and returns the code, so the
 * idiom is
 *
 *	return kai_err_set(err, KAI_EINVAL, "invalid time limit \"%s\"", s);
 *
 * The codes travel on the wire (see doc/design/PROTOCOL.md): they are
 * append-only and never renumbered.
 */
#ifndef KAI_BASE_ERR_H
#define KAI_BASE_ERR_H

#include <stddef.h>

#include "base/compiler.h"

enum {
	KAI_OK = 0,
	KAI_EINVAL = -1,    /* bad input: option, field, directive, frame */
	KAI_ENOENT = -2,    /* no such job, queue, node, object */
	KAI_EEXIST = -3,    /* already exists */
	KAI_EPERM = -4,     /* not allowed for this uid */
	KAI_EAUTH = -5,     /* credential missing, invalid, expired, replayed */
	KAI_EAGAIN = -6,    /* try again later */
	KAI_ETIMEDOUT = -7, /* an operation took too long */
	KAI_EPROTO = -8,    /* malformed frame or version mismatch */
	KAI_ECONFIG = -9,   /* configuration file error */
	KAI_EDB = -10,	    /* PostgreSQL error */
	KAI_EKUBE = -11,    /* Kubernetes API error */
	KAI_ESYS = -12,	    /* system call failed */
	KAI_EINTERNAL = -13 /* a bug */
};
#define KAI_ERR_MIN (-13)

#define KAI_ERR_MSG_MAX 256

struct kai_err {
	int code;		    /* KAI_OK or a KAI_E* value */
	char msg[KAI_ERR_MSG_MAX];  /* one line, lower-case, no final period */
	const char *hint;	    /* static string or NULL */
};

/*
 * Static text for a code ("invalid argument", ...); never NULL, an unknown
 * code gives "unrecognized error".
 */
const char *kai_strerror(int code);

/*
 * Short stable name of a code ("EINVAL"), for logs and --json output.
 */
const char *kai_errname(int code);

/* Resets err to KAI_OK with an empty message.  err may be NULL. */
void kai_err_clear(struct kai_err *err);

/*
 * Fills err with code and a formatted message (truncated to fit) and returns
 * code.  err may be NULL, in which case only the code is returned.
 */
int kai_err_set(struct kai_err *err, int code, const char *fmt, ...)
    KAI_PRINTF(3, 4);

/* Sets the hint of err (a static string).  err may be NULL. */
void kai_err_hint(struct kai_err *err, const char *hint);

/*
 * Prepends "<context>: " to err's message, to add context on the way up:
 * "job 42: invalid time limit".  Returns err->code (KAI_EINTERNAL if err is
 * NULL, which callers only reach through a bug).
 */
/*
 * Copies src into dst (size bytes, always terminated when size > 0) with
 * each control character written as \n, \r, \t or \xNN, so that the copy
 * is one line: a value quoted in a message or a log line (a job name, a
 * queue) cannot start a line of its own.  Printable text and bytes of
 * 0x80 and above are copied as they are, so escaping twice changes
 * nothing.  A copy that does not fit is cut before an escape, never
 * inside one.  Returns the length of dst.  kai_err_set() and
 * kai_err_prefix() apply it to every message, and the logger to every
 * line.
 */
size_t kai_str_oneline(char *dst, size_t size, const char *src);

int kai_err_prefix(struct kai_err *err, const char *fmt, ...) KAI_PRINTF(2, 3);

/* The message of err, or kai_strerror(code) when the message is empty. */
const char *kai_err_msg(const struct kai_err *err);

#endif /* KAI_BASE_ERR_H */
