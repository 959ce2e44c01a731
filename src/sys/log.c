/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * log.c: stderr or syslog logging with a level check.  See log.h.
 */
#include "config.h"

#include "sys/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <syslog.h>
#include <time.h>

#include "base/err.h"

int kai_log_level_cur = KAI_LOG_INFO;
static const char *log_ident = "kaibatch";
static int log_where = KAI_LOG_STDERR;

static const char *const level_names[] = {"error", "warning", "info", "debug"};
static const int level_prio[] = {LOG_ERR, LOG_WARNING, LOG_INFO, LOG_DEBUG};

void
kai_log_init(const char *ident, int where, enum kai_log_level level)
{
	log_ident = ident;
	log_where = where;
	kai_log_level_cur = (int)level;
	if (where & KAI_LOG_SYSLOG)
		openlog(ident, LOG_PID | LOG_NDELAY, LOG_DAEMON);
}

void
kai_log_set_level(enum kai_log_level level)
{
	kai_log_level_cur = (int)level;
}

static void log_v(enum kai_log_level level, const char *fmt, va_list ap)
    KAI_PRINTF(2, 0);

static void
log_v(enum kai_log_level level, const char *fmt, va_list ap)
{
	char raw[1024], line[1024];
	struct timespec ts;
	struct tm tm;
	char stamp[32];

	/*
	 * One message, one line: a newline inside a logged value (a job
	 * name, a refused queue) would otherwise forge a line of the audit
	 * log.
	 */
	(void)vsnprintf(raw, sizeof(raw), fmt, ap);
	(void)kai_str_oneline(line, sizeof(line), raw);
	if (log_where & KAI_LOG_SYSLOG)
		syslog(level_prio[level], "%s", line);
	if (log_where & KAI_LOG_STDERR) {
		(void)clock_gettime(CLOCK_REALTIME, &ts);
		(void)gmtime_r(&ts.tv_sec, &tm);
		(void)strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm);
		(void)fprintf(stderr, "%s.%03ldZ %s: %s: %s\n", stamp,
		    ts.tv_nsec / 1000000, log_ident, level_names[level], line);
	}
}

void
kai_log_msg(enum kai_log_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_v(level, fmt, ap);
	va_end(ap);
}

void
kai_fatal(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_v(KAI_LOG_ERR, fmt, ap);
	va_end(ap);
	exit(1);
}
