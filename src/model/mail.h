/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * mail.h: Slurm's job mail (sbatch --mail-type / --mail-user), the pure
 * part: the types and their text, and the subject line and environment
 * of one notice.
 *
 * A job keeps its mail types as the canonical text kai_mail_type_format()
 * writes ("BEGIN,END,FAIL", Slurm's order, the text scontrol shows), and
 * kaid parses it back into a mask when it loads the job.  kaid decides
 * when a notice is due and runs the mail program (daemons/kaid/mail.c);
 * this file only says what the notice reads, with the words of Slurm's
 * slurmctld, so that mail filters written for Slurm keep matching.
 *
 * Pure: no I/O, no clock (now is an argument).
 */
#ifndef KAI_MODEL_MAIL_H
#define KAI_MODEL_MAIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/compiler.h"
#include "base/err.h"
#include "model/jobstate.h"

/* The types; a job's mask is their union. */
#define KAI_MAIL_BEGIN		UINT32_C(0x001)
#define KAI_MAIL_END		UINT32_C(0x002)
#define KAI_MAIL_FAIL		UINT32_C(0x004)
#define KAI_MAIL_REQUEUE	UINT32_C(0x008)
#define KAI_MAIL_INVALID_DEPEND UINT32_C(0x010)
#define KAI_MAIL_STAGE_OUT	UINT32_C(0x020)
#define KAI_MAIL_TIME100	UINT32_C(0x040) /* TIME_LIMIT */
#define KAI_MAIL_TIME90		UINT32_C(0x080)
#define KAI_MAIL_TIME80		UINT32_C(0x100)
#define KAI_MAIL_TIME50		UINT32_C(0x200)
#define KAI_MAIL_ARRAY_TASKS	UINT32_C(0x400) /* per task, not per array */
/* ALL, as sbatch(1) defines it: not the time limits, not ARRAY_TASKS. */
#define KAI_MAIL_ALL                                                        \
	(KAI_MAIL_BEGIN | KAI_MAIL_END | KAI_MAIL_FAIL | KAI_MAIL_REQUEUE | \
	    KAI_MAIL_INVALID_DEPEND | KAI_MAIL_STAGE_OUT)
#define KAI_MAIL_TIMES                                                      \
	(KAI_MAIL_TIME100 | KAI_MAIL_TIME90 | KAI_MAIL_TIME80 |             \
	    KAI_MAIL_TIME50)

/* Longest canonical text (every type named once, with commas). */
#define KAI_MAIL_TYPE_TEXT_MAX 128
/* Longest --mail-user a submission may carry. */
#define KAI_MAIL_USER_MAX 255

/*
 * Parses sbatch's --mail-type: types joined by ",", case-insensitive.
 * "NONE" stops the list and gives 0 (sbatch's rule).  As sbatch, a type
 * it does not know among known ones is skipped, and *unknown (may be
 * NULL) counts them so that ksubmit can warn; a list of which none is
 * known is refused with sbatch's message "Invalid --mail-type
 * specification", naming the text (KAI_EINVAL).
 */
int kai_mail_type_parse(const char *s, uint32_t *mask, size_t *unknown,
    struct kai_err *err) KAI_MUST_CHECK;
/*
 * Writes mask as scontrol shows MailType ("NONE" for 0, else Slurm's
 * order: ARRAY_TASKS,INVALID_DEPEND,BEGIN,END,FAIL,REQUEUE,STAGE_OUT,
 * TIME_LIMIT_50,TIME_LIMIT_80,TIME_LIMIT_90,TIME_LIMIT) into buf (at
 * least KAI_MAIL_TYPE_TEXT_MAX bytes).  Returns buf.
 */
char *kai_mail_type_format(uint32_t mask, char *buf, size_t len);
/* The mask of the stored text s; 0 for NULL, "" or text not parsed. */
uint32_t kai_mail_type_mask(const char *s);
/* Checks a --mail-user: not empty, printable, no space, no leading '-'
 * (it is an argument of the mail program). */
int kai_mail_user_check(const char *s, struct kai_err *err) KAI_MUST_CHECK;

/* Slurm's secs2time_str(): "HH:MM:SS" or "D-HH:MM:SS". */
void kai_mail_duration(int64_t secs, char *buf, size_t len);

/* What one notice is about: a job, an array task or an array. */
struct kai_mail_job {
	uint64_t id;
	const char *name;
	const char *user;
	uint32_t uid;
	uint32_t gid;
	const char *queue;	/* the partition */
	const char *account;	/* "" or NULL = none */
	const char *qos;	/* "" or NULL = none */
	const char *nodelist;	/* "" or NULL = none */
	enum kai_job_state state;
	uint64_t array_job_id;	/* 0 = not an array */
	uint32_t array_task_id; /* with array_job_id and !summary */
	bool summary;		/* the whole array (sent once, at its end) */
	int32_t exit_code;	/* summary: the largest */
	int32_t exit_signal;	/* summary: the largest */
	int32_t exit_min;	/* summary: the smallest exit code */
	bool with_requeued;	/* summary: a task was requeued */
	int64_t submit_time;	/* unix s */
	int64_t start_time;	/* unix s, 0 = not started */
	int64_t end_time;	/* unix s, 0 = not ended */
	uint32_t restart_count;
	const char *cluster;	/* SLURM_CLUSTER_NAME; NULL = none */
};

/*
 * The subject of the notice of event (one KAI_MAIL_* type) about j, as
 * slurmctld words it ("Slurm Job_id=12 Name=train Began, Queued time
 * 00:00:03"), and the environment of the mail program ("NAME=value"
 * strings: SLURM_JOB_ID, SLURM_JOB_NAME, SLURM_JOB_USER,
 * SLURM_JOB_STATE, SLURM_JOB_MAIL_TYPE, the times and exit codes...).
 * now is the time of the event.  Caller owns *subject and *env (each
 * string and the array, *nenv of them): kai_mail_env_free().
 */
void kai_mail_build(const struct kai_mail_job *j, uint32_t event,
    int64_t now, char **subject, char ***env, size_t *nenv);
void kai_mail_env_free(char **env, size_t nenv);
/* "Began", "Ended", ... for one type. */
const char *kai_mail_event_text(uint32_t event);

#endif /* KAI_MODEL_MAIL_H */
