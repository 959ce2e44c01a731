/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * job.c: the job structs' destructors, the spec checker, and the parsers
 * for the value syntaxes users bring from Slurm (time limits, memory sizes,
 * file name patterns).  See job.h.
 *
 * Everything here is pure: strings in, numbers or strings out.  The parsers
 * follow Slurm 22.05's behaviour (src/common/parse_time.c time_str2secs,
 * str_to_mbytes) rather than a tidier grammar of our own, because users'
 * scripts were tested against Slurm: "2-" means two days, "1-25" means one
 * day plus 25 hours, "1:30" means ninety seconds rounded up to two minutes.
 * Where Slurm relies on undefined behaviour (sscanf overflowing an int) we
 * refuse the value instead.
 */
#include "config.h"

#include "model/job.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/utf8.h"
#include "base/xmalloc.h"
#include "model/jobfields.h"

/*
 * The largest limit we accept: Slurm keeps limits as 32-bit minutes, and
 * anything past that is a typo, not a plan.
 */
#define TIME_LIMIT_MAX_S ((int64_t)INT32_MAX * 60)
/* Slurm caps the zero-padding width of "%<n>j" the same way. */
#define PATTERN_WIDTH_MAX 10
/* Slurm's SLURM_BATCH_SCRIPT, which %s prints for the batch step */
#define BATCH_STEP_ID UINT64_C(4294967291)

static void
free_strv(char **v, size_t n)
{
	size_t i;

	if (v == NULL)
		return;
	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void
kai_jobspec_fini(struct kai_jobspec *js)
{
	if (js == NULL)
		return;
	free(js->name);
	free(js->queue);
	free(js->account);
	free(js->script);
	free_strv(js->argv, js->argc);
	free_strv(js->env, js->nenv);
	free(js->workdir);
	free(js->stdout_pattern);
	free(js->stderr_pattern);
	free(js->image);
	free(js->priority_class);
	free(js->topology);
	free(js->topology_preferred);
	free(js->workload);
	free(js->qos);
	free(js->gpu_type);
	free(js->mail_type);
	free(js->mail_user);
	free(js->features);
	free(js->node_req);
	memset(js, 0, sizeof(*js));
}

void
kai_alloc_fini(struct kai_alloc *a)
{
	if (a == NULL)
		return;
	free(a->node);
	free(a->pod);
	memset(a, 0, sizeof(*a));
}

char kai_job_empty[1];

char *
kai_job_optstr(const char *s)
{
	return s == NULL || *s == '\0' ? kai_job_empty : kai_xstrdup(s);
}

static void
optstr_free(char *s)
{
	if (s != kai_job_empty)
		free(s);
}

void
kai_job_fini(struct kai_job *job)
{
	size_t i;

	if (job == NULL)
		return;
	free(job->user);
	free(job->name);
	free(job->queue);
	optstr_free(job->account);
	free(job->workdir);
	free(job->reason);
	free(job->why);
	for (i = 0; i < job->nallocs; i++)
		kai_alloc_fini(&job->allocs[i]);
	free(job->allocs);
	optstr_free(job->topology);
	optstr_free(job->topology_preferred);
	optstr_free(job->workload);
	optstr_free(job->qos);
	optstr_free(job->gpu_type);
	optstr_free(job->mail_user);
	optstr_free(job->features);
	optstr_free(job->node_req);
	if (job->array_pending != NULL)
		kai_array_fini(job->array_pending);
	free(job->array_pending);
	free(job->array_spec);
	free(job->dep_text);
	free(job->dep_left);
	free(job->told_why);
	free(job->told_code);
	if (job->dep != NULL)
		kai_dep_fini(job->dep);
	free(job->dep);
	memset(job, 0, sizeof(*job));
}

/*
 * Validation
 */

static bool
has_control(const char *s)
{
	for (; *s != '\0'; s++)
		if (iscntrl((unsigned char)*s))
			return true;
	return false;
}

/* An optional one-line name (job name, queue, account): NULL is fine. */
/*
 * kaid refuses a request holding a string that is not UTF-8 (the
 * database would refuse it); the client says which option it was before
 * anything is sent.
 */
static int
check_utf8(const char *field, const char *s, struct kai_err *err)
{
	size_t n = strlen(s), bad = kai_utf8_invalid_at(s, n);

	if (bad < n)
		return kai_err_set(err, KAI_EINVAL,
		    "%s is not valid UTF-8 (byte 0x%02x at offset %zu)", field,
		    (unsigned char)s[bad], bad);
	return 0;
}

static int
check_name(const char *field, const char *s, struct kai_err *err)
{
	size_t n;

	if (s == NULL)
		return 0;
	n = strlen(s);
	if (n == 0)
		return kai_err_set(err, KAI_EINVAL, "%s is empty", field);
	if (n > KAI_JOB_NAME_MAX)
		return kai_err_set(err, KAI_EINVAL,
		    "%s is too long: %zu bytes (limit %d)", field, n,
		    KAI_JOB_NAME_MAX);
	if (check_utf8(field, s, err) != 0)
		return KAI_EINVAL;
	if (has_control(s))
		return kai_err_set(err, KAI_EINVAL,
		    "%s \"%s\" contains a control character", field, s);
	return 0;
}

/*
 * Every string of the SUBMIT record travels as UTF-8 (src/proto/codec.c):
 * one that is not is refused here, whichever field it is, so that a
 * client never sends what kaid would refuse to read.
 */
static int
check_strings(const struct kai_jobspec *js, struct kai_err *err)
{
	const char *s;
	size_t i;

	for (i = 0; i < kai_njobfields; i++) {
		const struct kai_jobfield *f = &kai_jobfields[i];

		if (f->type != KAI_JF_T_STR || !kai_jf_in(f, KAI_JF_REC_SPEC))
			continue;
		memcpy(&s, (const char *)js + f->off[KAI_JF_REC_SPEC],
		    sizeof(s));
		if (s != NULL && check_utf8(f->member, s, err) != 0)
			return KAI_EINVAL;
	}
	return 0;
}

/* An optional path or pattern; absolute says whether it must start at /. */
static int
check_path(const char *field, const char *s, bool absolute, struct kai_err *err)
{
	size_t n;

	if (s == NULL)
		return 0;
	n = strlen(s);
	if (n == 0)
		return kai_err_set(err, KAI_EINVAL, "%s is empty", field);
	if (n > KAI_JOB_PATH_MAX)
		return kai_err_set(err, KAI_EINVAL,
		    "%s is too long: %zu bytes (limit %d)", field, n,
		    KAI_JOB_PATH_MAX);
	if (check_utf8(field, s, err) != 0)
		return KAI_EINVAL;
	if (has_control(s))
		return kai_err_set(err, KAI_EINVAL,
		    "%s \"%s\" contains a control character", field, s);
	if (absolute && s[0] != '/')
		return kai_err_set(err, KAI_EINVAL,
		    "%s \"%s\" is not an absolute path", field, s);
	return 0;
}

static int
check_count(const char *field, uint64_t v, uint64_t min, uint64_t max,
    struct kai_err *err)
{
	if (v < min || v > max)
		return kai_err_set(err, KAI_EINVAL,
		    "invalid %s %" PRIu64 ": must be between %" PRIu64
		    " and %" PRIu64,
		    field, v, min, max);
	return 0;
}

static int
check_env(const struct kai_jobspec *js, struct kai_err *err)
{
	size_t i, total = 0;
	const char *eq;

	if (js->nenv > KAI_JOB_ENV_MAX)
		return kai_err_set(err, KAI_EINVAL,
		    "too many environment variables: %zu (limit %d)", js->nenv,
		    KAI_JOB_ENV_MAX);
	for (i = 0; i < js->nenv; i++) {
		if (js->env == NULL || js->env[i] == NULL)
			return kai_err_set(err, KAI_EINVAL,
			    "environment entry %zu is missing", i);
		eq = strchr(js->env[i], '=');
		if (eq == NULL || eq == js->env[i])
			return kai_err_set(err, KAI_EINVAL,
			    "invalid environment entry \"%.64s\": expected "
			    "NAME=VALUE",
			    js->env[i]);
		if (check_utf8("environment", js->env[i], err) != 0)
			return KAI_EINVAL;
		total += strlen(js->env[i]) + 1;
	}
	if (total > (size_t)KAI_JOB_ENV_BYTES)
		return kai_err_set(err, KAI_EINVAL,
		    "environment is too large: %zu bytes (limit %d)", total,
		    KAI_JOB_ENV_BYTES);
	return 0;
}

static int
check_script(const struct kai_jobspec *js, struct kai_err *err)
{
	size_t i, n;

	n = js->script != NULL ? strlen(js->script) : 0;
	if (n == 0)
		return kai_err_set(err, KAI_EINVAL, "script is empty");
	if (n > (size_t)KAI_JOB_SCRIPT_MAX)
		return kai_err_set(err, KAI_EINVAL,
		    "script is too large: %zu bytes (limit %d)", n,
		    KAI_JOB_SCRIPT_MAX);
	if (js->argc > KAI_JOB_ARGS_MAX)
		return kai_err_set(err, KAI_EINVAL,
		    "too many script arguments: %zu (limit %d)", js->argc,
		    KAI_JOB_ARGS_MAX);
	for (i = 0; i < js->argc; i++) {
		if (js->argv == NULL || js->argv[i] == NULL)
			return kai_err_set(err, KAI_EINVAL,
			    "script argument %zu is missing", i + 1);
		if (strlen(js->argv[i]) > KAI_JOB_PATH_MAX)
			return kai_err_set(err, KAI_EINVAL,
			    "script argument %zu is too long (limit %d bytes)",
			    i + 1, KAI_JOB_PATH_MAX);
		if (check_utf8("script argument", js->argv[i], err) != 0)
			return KAI_EINVAL;
	}
	return check_utf8("script", js->script, err);
}

/* The longest path pattern may name for js (see the header). */
static size_t
output_len(const struct kai_jobspec *js, const char *pattern,
    const char *user)
{
	char *s = kai_pattern_expand_array(pattern, UINT64_MAX,
	    js->name != NULL ? js->name : "", user, UINT64_MAX, UINT32_MAX);
	size_t n = strlen(s);

	if (s[0] != '/')
		n += (js->workdir != NULL ? strlen(js->workdir) : 0) + 1;
	free(s);
	return n;
}

int
kai_jobspec_check_output(const struct kai_jobspec *js, const char *user,
    struct kai_err *err)
{
	const char *out = js->stdout_pattern != NULL ? js->stdout_pattern :
	    "slurm-%A_%a.out";
	size_t n;

	if ((n = output_len(js, out, user)) > KAI_JOB_PATH_MAX)
		return kai_err_set(err, KAI_EINVAL,
		    "invalid --output: the path it names may be %zu bytes "
		    "long, over the limit of %d", n, KAI_JOB_PATH_MAX);
	if (js->stderr_pattern != NULL &&
	    (n = output_len(js, js->stderr_pattern, user)) > KAI_JOB_PATH_MAX)
		return kai_err_set(err, KAI_EINVAL,
		    "invalid --error: the path it names may be %zu bytes "
		    "long, over the limit of %d", n, KAI_JOB_PATH_MAX);
	return 0;
}

/* --mail-type as ksubmit sends it (every type known) and --mail-user. */
static int
check_mail(const struct kai_jobspec *js, struct kai_err *err)
{
	uint32_t mask;
	size_t unknown = 0;
	int r;

	if (js->mail_type != NULL &&
	    ((r = kai_mail_type_parse(js->mail_type, &mask, &unknown, err)) !=
		    0 ||
		unknown > 0))
		return kai_err_set(err, KAI_EINVAL,
		    "Invalid --mail-type specification \"%s\"", js->mail_type);
	if (js->mail_user != NULL)
		return kai_mail_user_check(js->mail_user, err);
	return 0;
}

int
kai_jobspec_validate(const struct kai_jobspec *js, struct kai_err *err)
{
	int r;

	if ((r = check_script(js, err)) != 0 ||
	    (r = check_name("job name", js->name, err)) != 0 ||
	    (r = check_name("partition", js->queue, err)) != 0 ||
	    (r = check_name("account", js->account, err)) != 0 ||
	    (r = check_name("qos", js->qos, err)) != 0 ||
	    (r = check_path("image", js->image, false, err)) != 0 ||
	    (r = check_path("output pattern", js->stdout_pattern, false,
		 err)) != 0 ||
	    (r = check_path("error pattern", js->stderr_pattern, false, err)) !=
		0 ||
	    (r = check_env(js, err)) != 0)
		return r;
	if ((r = check_mail(js, err)) != 0)
		return r;
	if (js->workdir == NULL)
		return kai_err_set(err, KAI_EINVAL,
		    "working directory is missing");
	if ((r = check_path("working directory", js->workdir, true, err)) != 0)
		return r;
	/* 0 stands for the default of 1 in these counts */
	if ((r = check_count("ntasks", js->ntasks, 0, KAI_JOB_NTASKS_MAX,
		 err)) != 0 ||
	    (r = check_count("cpus-per-task", js->cpus_per_task, 0,
		 KAI_JOB_CPUS_MAX, err)) != 0 ||
	    (r = check_count("gpus-per-task", js->gpus_per_task, 0,
		 KAI_JOB_GPUS_MAX, err)) != 0 ||
	    (r = check_count("gpus-per-node", js->gpus_per_node, 0,
		 KAI_JOB_GPUS_MAX, err)) != 0)
		return r;
	/* The scheduler holds a task's memory in 32 bits (sched_model.h). */
	if (js->mem_mb > KAI_JOB_MEM_MAX)
		return kai_err_set(err, KAI_EINVAL,
		    "invalid memory %" PRIu64 " MiB per task: the limit is %d "
		    "MiB (1 PiB)", js->mem_mb, KAI_JOB_MEM_MAX);
	if (js->time_limit_s < KAI_TIME_UNSET ||
	    js->time_limit_s > TIME_LIMIT_MAX_S)
		return kai_err_set(err, KAI_EINVAL,
		    "invalid time limit %" PRId64 " s", js->time_limit_s);
	if (js->signal_number > KAI_JOB_SIGNAL_MAX ||
	    js->signal_secs > KAI_JOB_SIGNAL_SECS_MAX)
		return kai_err_set(err, KAI_EINVAL,
		    "invalid signal %" PRIu32 "@%" PRIu32 ": the number must be "
		    "1 to %d and the time 0 to %d seconds", js->signal_number,
		    js->signal_secs, KAI_JOB_SIGNAL_MAX,
		    KAI_JOB_SIGNAL_SECS_MAX);
	if (js->open_mode > KAI_OPEN_APPEND)
		return kai_err_set(err, KAI_EINVAL,
		    "invalid open mode %" PRIu32, js->open_mode);
	if (js->umask != 0 && (js->umask < KAI_JOB_UMASK_SET ||
	    js->umask > KAI_JOB_UMASK_MAX))
		return kai_err_set(err, KAI_EINVAL,
		    "invalid umask %#" PRIo32 ": expected 01000 plus a mode of "
		    "0 to 0777", js->umask);
	/* After the fields' own checks, whose messages name them better. */
	if ((r = check_strings(js, err)) != 0)
		return r;
	return kai_jobspec_check_sched(js, err);
}

/*
 * Time limits
 */

/*
 * Slurm's shape check (_is_valid_timespec): only digits, '-' and ':', at
 * most one '-' and it comes before any ':', at most two ':', and enough
 * digit groups that no separator is left dangling, except that a trailing
 * '-' ("2-") is allowed.
 */
static bool
time_shape_ok(const char *s)
{
	int groups = 0, dash = 0, colon = 0;
	bool in_digits = false;

	for (; *s != '\0'; s++) {
		if (isdigit((unsigned char)*s)) {
			if (!in_digits)
				groups++;
			in_digits = true;
			continue;
		}
		in_digits = false;
		if (*s == '-') {
			if (colon > 0)
				return false;
			dash++;
		} else if (*s == ':') {
			colon++;
		} else {
			return false;
		}
	}
	if (groups == 0 || dash > 1 || colon > 2)
		return false;
	return groups >= colon + 1 + (dash > 0 && colon > 0 ? 1 : 0);
}

/* Reads one digit group; false when it overflows the sanity bound. */
static bool
time_field(const char **p, int64_t *v)
{
	int64_t x = 0;

	while (isdigit((unsigned char)**p)) {
		x = x * 10 + (**p - '0');
		if (x > TIME_LIMIT_MAX_S)
			return false;
		(*p)++;
	}
	*v = x;
	return true;
}

/* Splits s (already shape-checked, no leading '-') into up to 4 fields. */
static bool
time_fields(const char *s, int64_t f[4], int *nf, bool *days)
{
	const char *p = s;

	*nf = 0;
	*days = strchr(s, '-') != NULL;
	while (*p != '\0' && *nf < 4) {
		if (!time_field(&p, &f[(*nf)++]))
			return false;
		if (*p == '-' || *p == ':')
			p++;
	}
	return true;
}

int
kai_time_limit_parse(const char *s, int64_t *seconds, struct kai_err *err)
{
	int64_t f[4] = {0, 0, 0, 0}, d = 0, h = 0, m = 0, sec = 0, total;
	bool days;
	int nf;

	if (s == NULL || *s == '\0')
		return kai_err_set(err, KAI_EINVAL, "invalid time limit \"\"");
	if (strcmp(s, "-1") == 0 || strcasecmp(s, "INFINITE") == 0 ||
	    strcasecmp(s, "UNLIMITED") == 0) {
		*seconds = KAI_TIME_UNLIMITED;
		return 0;
	}
	/* Slurm reads "-5" as minus five days; a negative limit is a typo. */
	if (s[0] == '-' || !time_shape_ok(s) || !time_fields(s, f, &nf, &days))
		return kai_err_set(err, KAI_EINVAL, "invalid time limit \"%s\"",
		    s);
	if (days) {
		/* days-hours[:minutes[:seconds]], "2-" included */
		d = f[0], h = f[1], m = f[2], sec = f[3];
	} else if (nf == 3) {
		h = f[0], m = f[1], sec = f[2];
	} else {
		m = f[0], sec = f[1];
	}
	/* each field is below TIME_LIMIT_MAX_S, so this cannot overflow */
	total = d * 86400 + h * 3600 + m * 60 + sec;
	if (total > TIME_LIMIT_MAX_S)
		return kai_err_set(err, KAI_EINVAL,
		    "invalid time limit \"%s\": too large", s);
	/* one-minute resolution, seconds round up; 0 means no limit */
	*seconds = (total + 59) / 60 * 60;
	return 0;
}

void
kai_time_format(int64_t seconds, char *out, size_t size)
{
	int64_t d, h, m, s;

	if (size == 0)
		return;
	if (seconds == KAI_TIME_UNLIMITED) {
		(void)snprintf(out, size, "UNLIMITED");
		return;
	}
	if (seconds < 0) {
		(void)snprintf(out, size, "INVALID");
		return;
	}
	d = seconds / 86400;
	h = seconds / 3600 % 24;
	m = seconds / 60 % 60;
	s = seconds % 60;
	if (d > 0)
		(void)snprintf(out, size,
		    "%" PRId64 "-%02" PRId64 ":%02" PRId64 ":%02" PRId64, d, h,
		    m, s);
	else if (h > 0)
		(void)snprintf(out, size,
		    "%" PRId64 ":%02" PRId64 ":%02" PRId64, h, m, s);
	else
		(void)snprintf(out, size, "%" PRId64 ":%02" PRId64, m, s);
}

/*
 * Memory sizes
 */

int
kai_mem_parse(const char *s, uint64_t *mib, struct kai_err *err)
{
	uint64_t v = 0, mult = 1;
	const char *p = s;
	bool kib = false;

	if (s == NULL || !isdigit((unsigned char)*s))
		return kai_err_set(err, KAI_EINVAL,
		    "invalid memory size \"%s\"", s != NULL ? s : "");
	for (; isdigit((unsigned char)*p); p++) {
		if (v > (UINT64_MAX - 9) / 10)
			goto toobig;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	switch (*p) {
	case 'k':
	case 'K':
		kib = true;
		p++;
		break;
	case 'm':
	case 'M':
		p++;
		break;
	case 'g':
	case 'G':
		mult = 1024;
		p++;
		break;
	case 't':
	case 'T':
		mult = (uint64_t)1024 * 1024;
		p++;
		break;
	default:
		break;
	}
	/* a B may follow a unit ("64GB"), and a bare number is MiB */
	if (p != s && (*p == 'b' || *p == 'B') && isalpha((unsigned char)p[-1]))
		p++;
	if (*p != '\0')
		return kai_err_set(err, KAI_EINVAL,
		    "invalid memory size \"%s\"", s);
	if (kib) {
		*mib = v / 1024 + (v % 1024 != 0);
		return 0;
	}
	if (v > UINT64_MAX / mult)
		goto toobig;
	*mib = v * mult;
	return 0;
toobig:
	return kai_err_set(err, KAI_EINVAL,
	    "invalid memory size \"%s\": too large", s);
}

/*
 * File name patterns
 *
 * A small local string builder rather than struct kai_buf: the output has
 * no limit of its own (it grows at most by the name or the user per
 * %-sequence, and widths are capped), so the only bound is memory.
 */

struct sb {
	char *p;
	size_t len;
	size_t cap;
};

static void
sb_add(struct sb *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		while (b->len + n + 1 > b->cap)
			b->cap = b->cap < 64 ? 64 : b->cap * 2;
		b->p = kai_xreallocarray(b->p, b->cap, 1);
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

static void
sb_adds(struct sb *b, const char *s)
{
	sb_add(b, s != NULL ? s : "", s != NULL ? strlen(s) : 0);
}

static void
sb_num(struct sb *b, uint64_t v, int width)
{
	char tmp[32];
	int n;

	n = snprintf(tmp, sizeof(tmp), "%0*" PRIu64, width, v);
	sb_add(b, tmp, n > 0 ? (size_t)n : 0);
}

/*
 * Appends the expansion of the %-sequence at *p (just after the '%'),
 * advancing *p past it; unknown sequences are copied unchanged.
 */
/* The array of a job being expanded: id 0 = not an array. */
struct arr_ids {
	uint64_t id;
	uint32_t task;
};

static void
expand_one(struct sb *b, const char **p, uint64_t jobid, const char *jobname,
    const char *user, const struct arr_ids *arr)
{
	const char *start = *p - 1, *q = *p;
	int width = 0;

	while (isdigit((unsigned char)*q)) {
		if (width < 100)
			width = width * 10 + (*q - '0');
		q++;
	}
	if (width > PATTERN_WIDTH_MAX)
		width = PATTERN_WIDTH_MAX;
	*p = q + (*q != '\0');
	switch (*q) {
	case '%':
		sb_add(b, "%", 1);
		break;
	case 'j':
	case 'J': /* the batch step's %J is the job id alone */
		sb_num(b, jobid, width);
		break;
	case 'A': /* array master id: the job id outside an array */
		sb_num(b, arr->id != 0 ? arr->id : jobid, width);
		break;
	case 'a':
		sb_num(b, arr->id != 0 ? arr->task : 0, width);
		break;
	case 'x':
		sb_adds(b, jobname);
		break;
	case 'N': {
		char *host = kai_job_pod_name(jobid, 0);

		sb_adds(b, host);
		free(host);
		break;
	}
	case 'n': /* the batch step runs on the job's first node ... */
	case 't': /* ... as its only task */
		sb_num(b, 0, width);
		break;
	case 's':
		sb_num(b, BATCH_STEP_ID, width);
		break;
	case 'u':
		sb_adds(b, user);
		break;
	default:
		/* keep "%q", "%5q", a lone trailing "%" as written */
		sb_add(b, start, (size_t)(*p - start));
		break;
	}
}

char *
kai_pattern_expand(const char *pattern, uint64_t jobid, const char *jobname,
    const char *user)
{
	return kai_pattern_expand_array(pattern, jobid, jobname, user, 0, 0);
}

char *
kai_pattern_expand_array(const char *pattern, uint64_t jobid,
    const char *jobname, const char *user, uint64_t array_id, uint32_t task)
{
	const struct arr_ids arr = {array_id, task};
	struct sb b = {NULL, 0, 0};
	const char *p = pattern, *lit;

	sb_add(&b, "", 0);
	while (*p != '\0') {
		lit = p;
		while (*p != '\0' && *p != '%')
			p++;
		sb_add(&b, lit, (size_t)(p - lit));
		if (*p == '%') {
			p++;
			expand_one(&b, &p, jobid, jobname, user, &arr);
		}
	}
	return b.p;
}

char *
kai_job_pod_name(uint64_t job_id, uint32_t task)
{
	return kai_xasprintf("kai-%" PRIu64 "-%" PRIu32, job_id, task);
}
