/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * model-mail: sbatch's --mail-type (src/model/mail.c): what is accepted
 * and refused, the canonical text scontrol shows, and the subject lines
 * and environment of the notices in slurmctld's words.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "model/mail.h"
#include "tap.h"

static void
type_ok(const char *s, const char *want, size_t unknown)
{
	struct kai_err err;
	uint32_t m = 12345;
	size_t bad = 99;
	char buf[KAI_MAIL_TYPE_TEXT_MAX];

	kai_err_clear(&err);
	if (!is_int(kai_mail_type_parse(s, &m, &bad, &err), 0, "\"%s\"", s))
		diag("error: %s", kai_err_msg(&err));
	is_str(kai_mail_type_format(m, buf, sizeof(buf)), want,
	    "\"%s\" reads as \"%s\"", s, want);
	is_int((int64_t)bad, (int64_t)unknown, "\"%s\": %zu unknown", s,
	    unknown);
	is_int(kai_mail_type_mask(buf), m, "\"%s\" reads back", want);
}

static void
type_bad(const char *s)
{
	struct kai_err err;
	uint32_t m = 7;

	kai_err_clear(&err);
	is_int(kai_mail_type_parse(s, &m, NULL, &err), KAI_EINVAL,
	    "\"%s\" refused", s);
	ok(strncmp(kai_err_msg(&err), "Invalid --mail-type specification",
	       33) == 0,
	    "\"%s\": sbatch's words (%s)", s, kai_err_msg(&err));
	is_int(m, 7, "\"%s\": mask untouched", s);
}

/* The subject of event about j, and one variable of its environment. */
static void
subject_is(const struct kai_mail_job *j, uint32_t event, int64_t now,
    const char *want, const char *var)
{
	char *subject, **env;
	size_t n, i;
	int found = var == NULL;

	kai_mail_build(j, event, now, &subject, &env, &n);
	is_str(subject, want, "subject \"%s\"", want);
	for (i = 0; var != NULL && i < n; i++)
		if (strcmp(env[i], var) == 0)
			found = 1;
	ok(found, "environment has %s", var != NULL ? var : "-");
	kai_mail_env_free(env, n);
	free(subject);
}

static void
subjects(void)
{
	struct kai_mail_job j;

	memset(&j, 0, sizeof(j));
	j.id = 12;
	j.name = "train";
	j.user = "alice";
	j.state = KAI_JOB_RUNNING;
	j.submit_time = 1000;
	j.start_time = 1003;
	subject_is(&j, KAI_MAIL_BEGIN, 1003,
	    "Slurm Job_id=12 Name=train Began, Queued time 00:00:03",
	    "SLURM_JOB_QUEUED_TIME=00:00:03");
	j.state = KAI_JOB_COMPLETED;
	j.end_time = 1003 + 65;
	subject_is(&j, KAI_MAIL_END, 1068,
	    "Slurm Job_id=12 Name=train Ended, Run time 00:01:05, "
	    "COMPLETED, ExitCode 0",
	    "SLURM_JOB_EXIT_CODE_MAX=0");
	j.state = KAI_JOB_FAILED;
	j.exit_code = 2;
	j.end_time = 1003 + 41;
	subject_is(&j, KAI_MAIL_FAIL, 1044,
	    "Slurm Job_id=12 Name=train Failed, Run time 00:00:41, FAILED, "
	    "ExitCode 2",
	    "SLURM_JOB_STATE=FAILED");
	j.state = KAI_JOB_TIMEOUT;
	j.exit_code = 0;
	j.end_time = 1003 + 86400 + 3661;
	subject_is(&j, KAI_MAIL_FAIL, j.end_time,
	    "Slurm Job_id=12 Name=train Failed, Run time 1-01:01:01, TIMEOUT",
	    "SLURM_JOB_MAIL_TYPE=Failed");
	j.state = KAI_JOB_PENDING;
	j.end_time = 1100;
	subject_is(&j, KAI_MAIL_REQUEUE, 1100,
	    "Slurm Job_id=12 Name=train Requeued, Run time 00:01:37", NULL);
	j.state = KAI_JOB_RUNNING;
	j.end_time = 0;
	subject_is(&j, KAI_MAIL_TIME90, 1003 + 540,
	    "Slurm Job_id=12 Name=train Reached 90% of time limit, Run time "
	    "00:09:00",
	    "SLURM_JOB_RUN_TIME=00:09:00");

	j.id = 31;
	j.array_job_id = 30;
	j.array_task_id = 1;
	j.state = KAI_JOB_RUNNING;
	subject_is(&j, KAI_MAIL_BEGIN, 1003,
	    "Slurm Array Task Job_id=30_1 (31) Name=train Began, Queued time "
	    "00:00:03",
	    "SLURM_ARRAY_TASK_ID=1");
	j.summary = true;
	j.id = 30;
	j.state = KAI_JOB_COMPLETED;
	j.exit_min = 0;
	j.exit_code = 0;
	subject_is(&j, KAI_MAIL_END, 1200,
	    "Slurm Array Summary Job_id=30_* (30) Name=train Ended, "
	    "COMPLETED, ExitCode [0-0]",
	    "SLURM_JOB_EXIT_CODE_MIN=0");
	j.exit_code = 3;
	j.state = KAI_JOB_FAILED;
	subject_is(&j, KAI_MAIL_FAIL, 1200,
	    "Slurm Array Summary Job_id=30_* (30) Name=train Failed, Mixed, "
	    "ExitCode [0-3]",
	    "SLURM_JOB_EXIT_CODE_MAX=3");
}

static void
users(void)
{
	struct kai_err err;

	ok(kai_mail_user_check("alice@example.org", &err) == 0, "an address");
	ok(kai_mail_user_check("alice", &err) == 0, "a user name");
	is_int(kai_mail_user_check("", &err), KAI_EINVAL, "empty refused");
	is_int(kai_mail_user_check("-oQ/tmp/x", &err), KAI_EINVAL,
	    "an option refused");
	is_int(kai_mail_user_check("a b", &err), KAI_EINVAL, "a space refused");
}

int
main(void)
{
	type_ok("BEGIN", "BEGIN", 0);
	type_ok("end,fail", "END,FAIL", 0);
	type_ok("FAIL,END,BEGIN", "BEGIN,END,FAIL", 0);
	type_ok("ALL", "INVALID_DEPEND,BEGIN,END,FAIL,REQUEUE,STAGE_OUT", 0);
	type_ok("NONE", "NONE", 0);
	type_ok("BEGIN,NONE", "NONE", 0);
	type_ok("END,TIME_LIMIT_90,TIME_LIMIT", "END,TIME_LIMIT_90,TIME_LIMIT",
	    0);
	type_ok("TIME_LIMIT_50,TIME_LIMIT_80", "TIME_LIMIT_50,TIME_LIMIT_80",
	    0);
	type_ok("END,ARRAY_TASKS", "ARRAY_TASKS,END", 0);
	type_ok("BEGIN,BOGUS", "BEGIN", 1);
	type_ok("END,", "END", 0);
	type_bad("BOGUS");
	type_bad("");
	type_bad("BEGIN END");
	type_bad(",");
	subjects();
	users();
	return done_testing();
}
