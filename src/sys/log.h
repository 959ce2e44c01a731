/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * log.h: the daemon's and the clients' logger.
 *
 * kai_log_init() chooses stderr (foreground, systemd, tests) or syslog.
 * The macros check the level before any formatting happens (redis
 * serverLog), so debug lines cost nothing when off.  Messages follow the
 * house wording: one line, lower-case, no final period, subject first.
 * Only daemons/, clients/ and sys/ log; pure modules return kai_err.
 */
#ifndef KAI_SYS_LOG_H
#define KAI_SYS_LOG_H

#include "base/compiler.h"

#define KAI_LOG_STDERR 0x1
#define KAI_LOG_SYSLOG 0x2

enum kai_log_level {
	KAI_LOG_ERR = 0,
	KAI_LOG_WARN = 1,
	KAI_LOG_INFO = 2,
	KAI_LOG_DEBUG = 3
};

extern int kai_log_level_cur;

/* ident is borrowed for the life of the process. */
void kai_log_init(const char *ident, int where, enum kai_log_level level);
void kai_log_set_level(enum kai_log_level level);
void kai_log_msg(enum kai_log_level level, const char *fmt, ...)
    KAI_PRINTF(2, 3);
/* Logs at KAI_LOG_ERR and exits 1. */
KAI_NORETURN void kai_fatal(const char *fmt, ...) KAI_PRINTF(1, 2);

#define KAI_LOG_(lvl, ...)                                                 \
	do {                                                               \
		if ((int)(lvl) <= kai_log_level_cur)                       \
			kai_log_msg((lvl), __VA_ARGS__);                   \
	} while (0)
#define kai_log_err(...)   KAI_LOG_(KAI_LOG_ERR, __VA_ARGS__)
#define kai_log_warn(...)  KAI_LOG_(KAI_LOG_WARN, __VA_ARGS__)
#define kai_log_info(...)  KAI_LOG_(KAI_LOG_INFO, __VA_ARGS__)
#define kai_log_debug(...) KAI_LOG_(KAI_LOG_DEBUG, __VA_ARGS__)

#endif /* KAI_SYS_LOG_H */
