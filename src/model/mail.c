/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * mail.c: the types of job mail and the words of a notice.  See mail.h.
 *
 * The words follow slurmctld's agent.c (mail_job_info()), read and not
 * copied: a mail filter matching "Slurm Job_id=... Ended" must match
 * kaibatch's notices too.
 */
#include "config.h"

#include "model/mail.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/xmalloc.h"

/* In the order scontrol prints them. */
static const struct {
	const char *name;
	uint32_t bit;
} mail_types[] = {
    {"ARRAY_TASKS", KAI_MAIL_ARRAY_TASKS},
    {"INVALID_DEPEND", KAI_MAIL_INVALID_DEPEND},
    {"BEGIN", KAI_MAIL_BEGIN},
    {"END", KAI_MAIL_END},
    {"FAIL", KAI_MAIL_FAIL},
    {"REQUEUE", KAI_MAIL_REQUEUE},
    {"STAGE_OUT", KAI_MAIL_STAGE_OUT},
    {"TIME_LIMIT_50", KAI_MAIL_TIME50},
    {"TIME_LIMIT_80", KAI_MAIL_TIME80},
    {"TIME_LIMIT_90", KAI_MAIL_TIME90},
    {"TIME_LIMIT", KAI_MAIL_TIME100},
};

/* One type's bit, KAI_MAIL_ALL for "ALL", 0 when not a type. */
static uint32_t
type_bit(const char *s, size_t n)
{
	size_t i;

	if (n == 3 && strncasecmp(s, "ALL", 3) == 0)
		return KAI_MAIL_ALL;
	for (i = 0; i < sizeof(mail_types) / sizeof(mail_types[0]); i++)
		if (strlen(mail_types[i].name) == n &&
		    strncasecmp(s, mail_types[i].name, n) == 0)
			return mail_types[i].bit;
	return 0;
}

int
kai_mail_type_parse(const char *s, uint32_t *mask, size_t *unknown,
    struct kai_err *err)
{
	uint32_t m = 0;
	size_t bad = 0;
	bool none = false;
	const char *p = s;

	while (p != NULL && *p != '\0') {
		size_t n = strcspn(p, ",");
		uint32_t bit;

		if (n == 4 && strncasecmp(p, "NONE", 4) == 0) {
			m = 0;
			none = true;
			break;
		}
		if ((bit = type_bit(p, n)) == 0)
			bad++;
		m |= bit;
		p += n;
		if (*p == ',')
			p++;
	}
	if (m == 0 && !none)
		return kai_err_set(err, KAI_EINVAL,
		    "Invalid --mail-type specification \"%s\": expected "
		    "NONE, BEGIN, END, FAIL, REQUEUE, ALL, INVALID_DEPEND, "
		    "STAGE_OUT, TIME_LIMIT, TIME_LIMIT_90, TIME_LIMIT_80, "
		    "TIME_LIMIT_50 or ARRAY_TASKS",
		    s != NULL ? s : "");
	*mask = m;
	if (unknown != NULL)
		*unknown = bad;
	return 0;
}

char *
kai_mail_type_format(uint32_t mask, char *buf, size_t len)
{
	size_t i, at = 0;

	if (len == 0)
		return buf;
	buf[0] = '\0';
	if (mask == 0) {
		snprintf(buf, len, "NONE");
		return buf;
	}
	for (i = 0; i < sizeof(mail_types) / sizeof(mail_types[0]); i++) {
		int w;

		if ((mask & mail_types[i].bit) == 0 || at >= len)
			continue;
		w = snprintf(buf + at, len - at, "%s%s", at > 0 ? "," : "",
		    mail_types[i].name);
		if (w > 0)
			at += (size_t)w;
	}
	return buf;
}

uint32_t
kai_mail_type_mask(const char *s)
{
	uint32_t m = 0;

	if (s == NULL || s[0] == '\0' ||
	    kai_mail_type_parse(s, &m, NULL, NULL) != 0)
		return 0;
	return m;
}

int
kai_mail_user_check(const char *s, struct kai_err *err)
{
	size_t i;

	if (s == NULL || s[0] == '\0')
		return kai_err_set(err, KAI_EINVAL,
		    "invalid --mail-user \"\": empty");
	if (strlen(s) > KAI_MAIL_USER_MAX)
		return kai_err_set(err, KAI_EINVAL,
		    "invalid --mail-user: longer than %d bytes",
		    KAI_MAIL_USER_MAX);
	/* It becomes an argument of the mail program: no option. */
	if (s[0] == '-')
		return kai_err_set(err, KAI_EINVAL,
		    "invalid --mail-user \"%s\": may not begin with '-'", s);
	for (i = 0; s[i] != '\0'; i++)
		if (!isgraph((unsigned char)s[i]) &&
		    !((unsigned char)s[i] & 0x80))
			return kai_err_set(err, KAI_EINVAL,
			    "invalid --mail-user \"%s\": spaces and control "
			    "characters are not allowed",
			    s);
	return 0;
}

void
kai_mail_duration(int64_t secs, char *buf, size_t len)
{
	int64_t d = secs / 86400, h = secs / 3600 % 24, m = secs / 60 % 60,
		s = secs % 60;

	if (secs < 0)
		snprintf(buf, len, "INVALID");
	else if (d > 0)
		snprintf(buf, len,
		    "%" PRId64 "-%02" PRId64 ":%02" PRId64 ":%02" PRId64, d, h,
		    m, s);
	else
		snprintf(buf, len, "%02" PRId64 ":%02" PRId64 ":%02" PRId64, h,
		    m, s);
}

const char *
kai_mail_event_text(uint32_t event)
{
	switch (event) {
	case KAI_MAIL_INVALID_DEPEND:
		return "Invalid dependency";
	case KAI_MAIL_BEGIN:
		return "Began";
	case KAI_MAIL_END:
		return "Ended";
	case KAI_MAIL_FAIL:
		return "Failed";
	case KAI_MAIL_REQUEUE:
		return "Requeued";
	case KAI_MAIL_STAGE_OUT:
		return "StageOut/Teardown";
	case KAI_MAIL_TIME100:
		return "Reached time limit";
	case KAI_MAIL_TIME90:
		return "Reached 90% of time limit";
	case KAI_MAIL_TIME80:
		return "Reached 80% of time limit";
	case KAI_MAIL_TIME50:
		return "Reached 50% of time limit";
	default:
		return "unknown";
	}
}

struct envb {
	char **v;
	size_t n;
};

static void KAI_PRINTF(3, 4)
    env_add(struct envb *e, const char *name, const char *fmt, ...)
{
	char val[1024];
	va_list ap;

	va_start(ap, fmt);
	(void)vsnprintf(val, sizeof(val), fmt, ap);
	va_end(ap);
	e->v = kai_xreallocarray(e->v, e->n + 1, sizeof(*e->v));
	e->v[e->n++] = kai_xasprintf("%s=%s", name, val);
}

static const char *
orempty(const char *s)
{
	return s != NULL ? s : "";
}

/*
 * ", Queued time ..." or ", Run time ..." (Slurm's _set_job_time()), and
 * the variable that carries the duration.
 */
static void
job_time(const struct kai_mail_job *j, uint32_t event, int64_t now, char *buf,
    size_t len, struct envb *e)
{
	char d[32];

	buf[0] = '\0';
	if (event == KAI_MAIL_BEGIN && j->start_time > 0 &&
	    j->submit_time > 0) {
		kai_mail_duration(j->start_time - j->submit_time, d, sizeof(d));
		snprintf(buf, len, ", Queued time %s", d);
		env_add(e, "SLURM_JOB_QUEUED_TIME", "%s", d);
	} else if ((event == KAI_MAIL_END || event == KAI_MAIL_FAIL ||
		       event == KAI_MAIL_REQUEUE) &&
	    j->start_time > 0 && j->end_time > 0) {
		kai_mail_duration(j->end_time - j->start_time, d, sizeof(d));
		snprintf(buf, len, ", Run time %s", d);
		env_add(e, "SLURM_JOB_RUN_TIME", "%s", d);
	} else if ((event & KAI_MAIL_TIMES) != 0 && j->start_time > 0) {
		kai_mail_duration(now - j->start_time, d, sizeof(d));
		snprintf(buf, len, ", Run time %s", d);
		env_add(e, "SLURM_JOB_RUN_TIME", "%s", d);
	}
}

/* Whether the job ended by exiting (Slurm's WIFEXITED) rather than by a
 * signal: a TIMEOUT was killed at its limit. */
static bool
exited(const struct kai_mail_job *j)
{
	return j->exit_signal == 0 && j->state != KAI_JOB_TIMEOUT;
}

/* ", COMPLETED, ExitCode 0" (Slurm's _set_job_term_info()). */
static void
term_info(const struct kai_mail_job *j, uint32_t event, char *buf, size_t len,
    struct envb *e)
{
	const char *st = kai_jobstate_name(j->state);

	buf[0] = '\0';
	if (event != KAI_MAIL_END && event != KAI_MAIL_FAIL)
		return;
	if (!j->summary) {
		if (exited(j)) {
			snprintf(buf, len, ", %s, ExitCode %d", st,
			    (int)j->exit_code);
			env_add(e, "SLURM_JOB_EXIT_CODE_MAX", "%d",
			    (int)j->exit_code);
		} else {
			snprintf(buf, len, ", %s", st);
			env_add(e, "SLURM_JOB_EXIT_CODE_MAX", "0");
		}
		return;
	}
	if (j->exit_signal != 0) {
		snprintf(buf, len, ", Mixed, MaxSignal [%d]",
		    (int)j->exit_signal);
		env_add(e, "SLURM_JOB_TERM_SIGNAL_MAX", "%d",
		    (int)j->exit_signal);
	} else {
		snprintf(buf, len, ", %s, ExitCode [%d-%d]",
		    j->exit_min == 0 && j->exit_code > 0 ? "Mixed" : st,
		    (int)j->exit_min, (int)j->exit_code);
		env_add(e, "SLURM_JOB_EXIT_CODE_MIN", "%d", (int)j->exit_min);
		env_add(e, "SLURM_JOB_EXIT_CODE_MAX", "%d", (int)j->exit_code);
	}
	if (j->with_requeued) {
		size_t at = strlen(buf);

		snprintf(buf + at, len - at, ", with requeued tasks");
	}
}

/* What slurmctld's job_common_env_vars() gives that kaid knows. */
static void
common_env(const struct kai_mail_job *j, uint32_t event, struct envb *e)
{
	if (j->account != NULL && j->account[0] != '\0')
		env_add(e, "SLURM_JOB_ACCOUNT", "%s", j->account);
	if (j->qos != NULL && j->qos[0] != '\0')
		env_add(e, "SLURM_JOB_QOS", "%s", j->qos);
	if (event == KAI_MAIL_END || event == KAI_MAIL_FAIL) {
		int32_t code = exited(j) ? j->exit_code : 0;

		env_add(e, "SLURM_JOB_EXIT_CODE2", "%d:%d", (int)code,
		    (int)j->exit_signal);
		/* The wait(2) status, as slurmctld passes it. */
		env_add(e, "SLURM_JOB_EXIT_CODE", "%d",
		    j->exit_signal != 0 ? (int)(j->exit_signal & 0x7f)
					: (int)((code & 0xff) << 8));
	}
	if (j->array_job_id != 0 && !j->summary) {
		env_add(e, "SLURM_ARRAY_JOB_ID", "%" PRIu64, j->array_job_id);
		env_add(e, "SLURM_ARRAY_TASK_ID", "%" PRIu32, j->array_task_id);
	}
	if (j->cluster != NULL)
		env_add(e, "SLURM_CLUSTER_NAME", "%s", j->cluster);
	env_add(e, "SLURM_JOB_END_TIME", "%" PRId64, j->end_time);
	env_add(e, "SLURM_JOB_GID", "%" PRIu32, j->gid);
	env_add(e, "SLURM_JOBID", "%" PRIu64, j->id);
	env_add(e, "SLURM_JOB_ID", "%" PRIu64, j->id);
	env_add(e, "SLURM_JOB_NAME", "%s", orempty(j->name));
	env_add(e, "SLURM_JOB_NODELIST", "%s", orempty(j->nodelist));
	env_add(e, "SLURM_JOB_PARTITION", "%s", orempty(j->queue));
	env_add(e, "SLURM_JOB_RESTART_COUNT", "%" PRIu32, j->restart_count);
	env_add(e, "SLURM_JOB_START_TIME", "%" PRId64, j->start_time);
	env_add(e, "SLURM_JOB_UID", "%" PRIu32, j->uid);
	env_add(e, "SLURM_JOB_USER", "%s", orempty(j->user));
	env_add(e, "SLURM_JOB_STATE", "%s", kai_jobstate_name(j->state));
	env_add(e, "SLURM_JOB_MAIL_TYPE", "%s", kai_mail_event_text(event));
}

void
kai_mail_build(const struct kai_mail_job *j, uint32_t event, int64_t now,
    char **subject, char ***env, size_t *nenv)
{
	struct envb e = {NULL, 0};
	char jt[128], term[128];
	const char *what = kai_mail_event_text(event);

	common_env(j, event, &e);
	job_time(j, event, now, jt, sizeof(jt), &e);
	term_info(j, event, term, sizeof(term), &e);
	if (j->summary)
		*subject = kai_xasprintf("Slurm Array Summary Job_id=%" PRIu64
					 "_* (%" PRIu64 ") Name=%s %s%s",
		    j->array_job_id, j->id, orempty(j->name), what, term);
	else if (j->array_job_id != 0)
		*subject =
		    kai_xasprintf("Slurm Array Task Job_id=%" PRIu64 "_%" PRIu32
				  " (%" PRIu64 ") Name=%s %s%s%s",
			j->array_job_id, j->array_task_id, j->id,
			orempty(j->name), what, jt, term);
	else
		*subject =
		    kai_xasprintf("Slurm Job_id=%" PRIu64 " Name=%s %s%s%s",
			j->id, orempty(j->name), what, jt, term);
	*env = e.v;
	*nenv = e.n;
}

void
kai_mail_env_free(char **env, size_t nenv)
{
	size_t i;

	for (i = 0; i < nenv; i++)
		free(env[i]);
	free(env);
}
