/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * err.c: error codes and messages.  See err.h.
 */
#include "config.h"

#include "base/err.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
	const char *name;
	const char *text;
} err_table[] = {
	/* indexed by -code */
	{"OK", "success"},
	{"EINVAL", "invalid argument"},
	{"ENOENT", "not found"},
	{"EEXIST", "already exists"},
	{"EPERM", "permission denied"},
	{"EAUTH", "authentication failed"},
	{"EAGAIN", "resource temporarily unavailable"},
	{"ETIMEDOUT", "timed out"},
	{"EPROTO", "protocol error"},
	{"ECONFIG", "configuration error"},
	{"EDB", "database error"},
	{"EKUBE", "kubernetes API error"},
	{"ESYS", "system error"},
	{"EINTERNAL", "internal error"},
};

const char *
kai_strerror(int code)
{
	if (code > 0 || code < KAI_ERR_MIN)
		return "unrecognized error";
	return err_table[-code].text;
}

const char *
kai_errname(int code)
{
	if (code > 0 || code < KAI_ERR_MIN)
		return "EUNKNOWN";
	return err_table[-code].name;
}

size_t
kai_str_oneline(char *dst, size_t size, const char *src)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)src;
	char esc[5];
	size_t n = 0, k;

	if (size == 0)
		return 0;
	for (; *p != '\0'; p++) {
		if (*p >= 0x20 && *p != 0x7f) {
			esc[0] = (char)*p;
			k = 1;
		} else {
			esc[0] = '\\';
			k = 2;
			if (*p == '\n')
				esc[1] = 'n';
			else if (*p == '\r')
				esc[1] = 'r';
			else if (*p == '\t')
				esc[1] = 't';
			else {
				esc[1] = 'x';
				esc[2] = hex[*p >> 4];
				esc[3] = hex[*p & 0xf];
				k = 4;
			}
		}
		/* Cut before an escape that does not fit, never inside. */
		if (n + k >= size)
			break;
		memcpy(dst + n, esc, k);
		n += k;
	}
	dst[n] = '\0';
	return n;
}

/* Rewrites err->msg as one line (kai_str_oneline()). */
static void
err_oneline(struct kai_err *err)
{
	char raw[KAI_ERR_MSG_MAX];
	const unsigned char *p;

	for (p = (const unsigned char *)err->msg; *p != '\0'; p++)
		if (*p < 0x20 || *p == 0x7f)
			break;
	if (*p == '\0')
		return;
	memcpy(raw, err->msg, sizeof(raw));
	(void)kai_str_oneline(err->msg, sizeof(err->msg), raw);
}

void
kai_err_clear(struct kai_err *err)
{
	if (err == NULL)
		return;
	err->code = KAI_OK;
	err->msg[0] = '\0';
	err->hint = NULL;
}

int
kai_err_set(struct kai_err *err, int code, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL)
		return code;
	err->code = code;
	err->hint = NULL;
	va_start(ap, fmt);
	(void)vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	err_oneline(err);
	return code;
}

void
kai_err_hint(struct kai_err *err, const char *hint)
{
	if (err != NULL)
		err->hint = hint;
}

int
kai_err_prefix(struct kai_err *err, const char *fmt, ...)
{
	char old[KAI_ERR_MSG_MAX];
	const char *src;
	va_list ap;
	size_t n;
	int r;

	if (err == NULL)
		return KAI_EINTERNAL;
	memcpy(old, err->msg, sizeof(old));
	va_start(ap, fmt);
	r = vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	/* The message is cut at the buffer's end, never overrun. */
	n = r < 0 ? 0 : (size_t)r;
	if (n >= sizeof(err->msg) - 3)
		return err->code;
	err->msg[n++] = ':';
	err->msg[n++] = ' ';
	err->msg[n] = '\0';
	src = old[0] != '\0' ? old : kai_strerror(err->code);
	while (*src != '\0' && n < sizeof(err->msg) - 1)
		err->msg[n++] = *src++;
	err->msg[n] = '\0';
	err_oneline(err);
	return err->code;
}

const char *
kai_err_msg(const struct kai_err *err)
{
	if (err == NULL)
		return "unrecognized error";
	return err->msg[0] != '\0' ? err->msg : kai_strerror(err->code);
}

void
kai_assert_fail(const char *expr, const char *file, int line)
{
	/*
	 * The one place base writes to a stream: a broken invariant must be
	 * reported before the abort, and no logger may be set up yet.
	 */
	(void)fprintf(stderr, "assertion \"%s\" failed at %s:%d\n", expr, file,
	    line);
	abort();
}
