/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * policy.c: QoS and accounts at submission (issue 12).
 *
 * Slurm keeps QoS and accounts in slurmdbd and checks them when
 * AccountingStorageEnforce says so; kaibatch keeps them in kaid.yaml
 * (doc/kaid.yaml.5, QOS AND ACCOUNTS) and always checks them, with
 * Slurm's messages, so that scripts that match on sbatch's words keep
 * working:
 *
 *   - an unknown -q: "Invalid qos specification";
 *   - an -A the user may not charge (or any -A when the user may charge
 *     none): "Invalid account or account/partition combination
 *     specified";
 *   - a -t over the QoS's MaxWall: refused, as Slurm does for a QoS with
 *     DenyOnLimit, where its default leaves the job pending for ever
 *     with QOSMaxWallDurationPerJobLimit.  kaibatch refuses a -t over a
 *     partition's MaxTime too (doc/architecture.md): a refusal the user
 *     sees at once is kinder than a job that never starts.  A job that
 *     gave no -t gets the partition's default cut down to MaxWall, as
 *     slurmctld does.
 *
 * The QoS's priority and preemptibility become the job's, which the
 * scheduler core knows already: a priority (KAI's priority classes are
 * 50 to 125) and a preemptible flag.  Its per-user GPU limit is applied
 * by the core at every tick (src/sched/qoslimit.c).
 */
#include "config.h"

#include "policy.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/map.h"
#include "base/xmalloc.h"
#include "conf/conf.h"
#include "kaid.h"
#include "snapshot.h"

#define SLURM_BAD_QOS	  "Invalid qos specification"
#define SLURM_BAD_ACCOUNT                                                      \
	"Invalid account or account/partition combination specified"
#define SLURM_QOS_POLICY                                                       \
	"Job violates accounting/QOS policy (job submit limit, user's size "   \
	"and/or time limits)"

/* Replaces *field with a copy of s (NULL stays NULL). */
static void
set_name(char **field, const char *s)
{
	char *copy = s != NULL ? kai_xstrdup(s) : NULL;

	free(*field);
	*field = copy;
}

static int
check_wall(const struct kai_conf_qos *q, int64_t *tl, bool given,
    struct kai_err *err)
{
	char want[32], max[32];

	if (q->max_wall_s == KAI_TIME_UNLIMITED ||
	    (*tl != KAI_TIME_UNLIMITED && *tl <= q->max_wall_s))
		return 0;
	if (!given) {
		*tl = q->max_wall_s;
		return 0;
	}
	kai_time_format(*tl, want, sizeof(want));
	kai_time_format(q->max_wall_s, max, sizeof(max));
	return kai_err_set(err, KAI_EINVAL, SLURM_QOS_POLICY ": time limit "
	    "%s exceeds MaxWall %s of QOS \"%s\"", want, max, q->name);
}

void
policy_snap(const struct kaid *k, struct snap *sn)
{
	const struct kai_conf_qos *q;
	const struct kai_job *j;
	struct kai_map ix;
	uintptr_t c;
	size_t i, n = 0;
	char *key;

	kai_map_init(&ix, NULL);
	for (i = 0; i < sn->s.njobs; i++) {
		if ((j = sn->kjobs[i]) == NULL || j->qos == NULL ||
		    j->qos[0] == '\0' || (q = kai_conf_qos(k->conf, j->qos)) ==
		    NULL || q->max_gpus_user < 0)
			continue;
		/* A user name holds no newline (kaid made it from passwd). */
		key = kai_xasprintf("%s\n%s", j->user != NULL ? j->user : "",
		    q->name);
		if ((c = (uintptr_t)kai_map_get(&ix, key)) == 0) {
			sn->gpu_limits = kai_xreallocarray(sn->gpu_limits,
			    n + 1, sizeof(*sn->gpu_limits));
			sn->gpu_limits[n] = q->max_gpus_user *
			    KAI_SCHED_GPU_UNIT;
			c = ++n;
			kai_map_put(&ix, key, (void *)c);
		}
		free(key);
		sn->jobs[i].gpu_limit = (uint32_t)c;
	}
	kai_map_fini(&ix);
	sn->s.gpu_limits = sn->gpu_limits;
	sn->s.ngpu_limits = n;
}

int
policy_check_wall(const struct kaid *k, const char *qos, int64_t tl,
    struct kai_err *err)
{
	const struct kai_conf_qos *q;

	if (qos == NULL || qos[0] == '\0' ||
	    (q = kai_conf_qos(k->conf, qos)) == NULL)
		return 0;
	return check_wall(q, &tl, true, err);
}

uint32_t
policy_priority(const struct kaid *k, const char *qos, const char *cls)
{
	const struct kai_conf_qos *q = NULL;
	uint32_t prio;

	if (qos != NULL && qos[0] != '\0')
		q = kai_conf_qos(k->conf, qos);
	if (cls == NULL && q != NULL && q->priority >= 0)
		return (uint32_t)q->priority;
	/* A class no longer known (a job from an older kaid): the default. */
	if (kai_prio_class(cls, &prio, NULL) != 0 &&
	    kai_prio_class(NULL, &prio, NULL) != 0)
		prio = 0;	/* never: the default class exists */
	return prio;
}

int
policy_submit(struct kaid *k, uint32_t uid, struct kai_jobspec *js,
    int64_t tl, bool given, struct policy *out, struct kai_err *err)
{
	const struct kai_conf_qos *q = kai_conf_qos(k->conf, js->qos);
	const char *account;
	bool refused;
	int r;

	if (q == NULL)
		return kai_err_set(err, KAI_EINVAL, SLURM_BAD_QOS);
	account = kai_conf_account(k->conf, js->account, uid, &refused);
	if (refused)
		return kai_err_set(err, KAI_EINVAL, SLURM_BAD_ACCOUNT);
	if ((r = check_wall(q, &tl, given, err)) != 0)
		return r;
	if (js->priority_class != NULL &&
	    (r = kai_prio_class(js->priority_class, &out->priority, err)) != 0)
		return r;
	out->priority = policy_priority(k, q->name, js->priority_class);
	/* KAI's rule: preemptible below 100 unless the job says. */
	out->preemptible = js->preempt == KAI_TRI_DEFAULT ?
	    out->priority < KAI_PRIO_PREEMPT_BELOW :
	    js->preempt == KAI_TRI_YES;
	/* A QoS that is preemptible cannot be escaped by the job; one that
	 * is not still lets a job offer itself. */
	if (q->preemptible == KAI_CONF_PREEMPT_YES)
		out->preemptible = true;
	else if (q->preemptible == KAI_CONF_PREEMPT_NO)
		out->preemptible = js->preempt == KAI_TRI_YES;
	out->time_limit_s = tl;
	set_name(&js->qos, q->name);
	if (account != js->account)
		set_name(&js->account, account);
	return 0;
}
