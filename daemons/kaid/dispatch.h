/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * dispatch.h: the pods kaid makes of a job: their environment (podenv.c),
 * their spec's volumes, annotations and pool (podspec.c), the ConfigMap
 * of the wrapper and shims they mount (helpers.c), and their creation,
 * binding and deletion (dispatch.c).
 */
#ifndef KAID_DISPATCH_H
#define KAID_DISPATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kaid.h"
#include "kube/kube.h"
#include "model/job.h"

/* pod/, compiled by build-aux/pod2c.sh: the wrapper (the container's
 * command), the --signal timer and the shims */
extern const char podshim_wrapper[];
extern const char podshim_scontrol[];
extern const char podshim_srun[];
extern const char podshim_signal[];

/* podenv.c: a pod's environment, as name, value pairs for the pod spec */
struct podenv {
	char **v;	/* name, value, name, value ... ($ doubled) */
	size_t n;	/* strings */
	const char *helpers; /* set by the caller: the helpers' directory
				(kubernetes.pod_helpers configmap), or NULL:
				the shims travel in KAI_SHIM_* */
};
void podenv_build(const struct kai_job *job, const struct kai_jobspec *js,
    uint32_t task, struct podenv *env);
/* KAI_JOB_ID, KAI_JOB_KEY, KAI_CONTROLLER: the job's way to kaid
 * (jobauth.c), when job_key_file is set. */
void podenv_jobauth(const struct kaid *k, const struct kai_job *job,
    struct podenv *env);
/* The GPU share of a fractional task (NVIDIA_VISIBLE_DEVICES, ...). */
void podenv_gpu(const struct kaid *k, const struct kai_job *job,
    const struct kai_alloc *a, struct podenv *env);
/* The device indices of mask, "0,3" (none: "0"), into buf. */
void podenv_devices(uint64_t mask, char *buf, size_t size);
void podenv_fini(struct podenv *env);
/* The wrapper's time limit and KillWait: KAI_TIME_LIMIT, KAI_KILL_WAIT. */
void podenv_limits(const struct kaid *k, const struct kai_job *job,
    int64_t now, struct podenv *env);
/* Seconds of the time limit left to a pod started now (0 = no limit). */
int64_t podenv_time_left(const struct kai_job *job, int64_t now);
/* jobs.kill_wait in whole seconds (at least 1). */
int64_t podenv_kill_wait(const struct kaid *k);
/* activeDeadlineSeconds is the limit, KillWait and this: the wrapper acts
 * first, and the deadline kills only a pod whose wrapper did not. */
#define PODENV_DEADLINE_SLACK_S 10
/* s with every $ doubled: the kubelet expands $(VAR) and reads $$ as $. */
char *podenv_kubelet_escape(const char *s);
/* "kai-<id>": the headless Service and subdomain of a multi-task job. */
char *podenv_service_name(uint64_t job_id);
/* "kai-<id>.<namespace>.svc.<cluster domain>" */
char *podenv_dns_search(const struct kaid *k, uint64_t job_id);

/* dispatch.c */
void dispatch_init(struct kaid *k);
void dispatch_free(struct kaid *k);
/* Whether a create, bind or delete of pod is under way (or awaits the
 * watch): it must not be made or deleted again yet. */
bool dispatch_inflight(const struct kaid *k, const char *pod);
/* Creates and binds the job's missing pods; now: the tick's clock. */
void dispatch_ensure_pods(struct kaid *k, struct kai_job *job, int64_t now);
void dispatch_delete_pods(struct kaid *k, const struct kai_job *job,
    int64_t grace_s);
void dispatch_delete_pod(struct kaid *k, const char *pod, int64_t grace_s);
/* An evicted pod: the condition DisruptionTarget (why), then the delete;
 * now: when the scheduler decided. */
void dispatch_evict_pod(struct kaid *k, const char *pod, int64_t grace_s,
    const char *why, int64_t now);
/* The pod watch saw pod bound (or deleted): it may be ensured again. */
void dispatch_pod_seen(struct kaid *k, const char *pod, bool bound_or_gone);
/* A relist began: forget which pods were made and not yet seen. */
void dispatch_watch_reset(struct kaid *k);
/* Deletes the headless Service of a multi-task job (absent is fine). */
void dispatch_delete_service(struct kaid *k, uint64_t job_id);

/*
 * podspec.c: a pod's volumes (shared filesystems, /dev/shm, the passwd
 * and group of its user), its annotations and its partition's node pool
 * (nodeSelector, tolerations, imagePullSecrets, image).  podspec_build()
 * fills those fields of ps with pointers into x and k->conf, which must
 * outlive ps; podspec_fini() frees x.
 */
#define PODSPEC_VOLS_MORE 5	/* volumes besides the filesystems */
struct podextra {
	struct kai_pod_volume *vol;
	size_t nvol;
	struct kai_pod_mount *mnt;
	size_t nmnt;
	struct kai_pod_toleration *tol;
	char **fsnames;		/* "kai-fs-N" */
	size_t nfs;
	char *passwd, *group;	/* the files' text */
	const char *annot[4];	/* annotation pairs */
	const char *items[4];	/* the identity volume's file, key pairs */
	char *secret;		/* the job key's Secret; NULL = none */
};
void podspec_build(const struct kaid *k, const struct kai_job *j,
    const struct kai_jobspec *js, const uint32_t *groups, size_t ngroups,
    struct kai_pod_spec *ps, struct podextra *x);
void podspec_fini(struct podextra *x);
/* The home directory of uid on kaid's host, or "/"; caller owns it. */
char *podspec_home(uint32_t uid);

/*
 * helpers.c: the ConfigMap that ships the wrapper and shims once
 * (kubernetes.pod_helpers configmap), mounted at HELPERS_DIR in pods.
 */
#define HELPERS_DIR "/kaibatch"
/* Names the ConfigMap after its content (at start). */
void helpers_init(struct kaid *k);
void helpers_free(struct kaid *k);
/* Its name, for the pods' volume. */
const char *helpers_configmap(const struct kaid *k);
/* Creates it when due (every tick, now its clock; a call at a time). */
void helpers_ensure(struct kaid *k, int64_t now);
/* The pods' volume items: key, file pairs (*n pairs); static. */
const char *const *helpers_items(size_t *n);

#endif /* KAID_DISPATCH_H */
