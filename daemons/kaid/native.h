/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * native.h: what native.c, native_owner.c and native_gang.c share
 * (doc/k8s-native.md).  The rest of kaid sees only the native_*
 * functions of kaid.h.
 *
 * Ownership: a struct native_owner belongs to the owner cache
 * (native_owner.c) and is borrowed by the functions below for the
 * length of one call; a struct native_group's strings are its own,
 * freed by native_group_fini().
 */
#ifndef KAI_KAID_NATIVE_H
#define KAI_KAID_NATIVE_H

#include <stdbool.h>
#include <stdint.h>

#include "daemons/kaid/kaid.h"
#include "db/db.h"
#include "kube/kube.h"
#include "model/job.h"

/* A pending gang member whose task is not chosen yet (tick.c chooses). */
#define NATIVE_NO_TASK UINT32_MAX

/*
 * One object of a pod's owner chain, or a PodGroup, as read from the
 * API server.  Strings are "" when absent.
 */
struct native_owner {
	char *api, *kind, *ns, *name;
	char *uid;
	char *up_api, *up_kind, *up_name, *up_uid; /* ownerReferences[0] */
	char *queue;		/* label kai.scheduler/queue; PodGroup:
				   spec.queue */
	char *prio_class;	/* label priorityClassName; PodGroup: spec */
	char *preempt;		/* label kai.scheduler/preemptibility; PG */
	char *topo_req;		/* annotation kai.scheduler/topology-
				   required-placement; PG: topologyConstraint */
	char *topo_pref;	/* ...-preferred-placement */
	int64_t min_member;	/* the gang rule's size; 0 = a group per pod */
	struct kai_sgtree *tree; /* its subgroup tree (native_sgtree.c),
				   NULL: none */
	uint32_t cond_id;	/* PodGroup: its last schedulingCondition's
				   transitionID, 0 = none (native_pgstatus.c
				   counts on from it after a restart) */
	char *cond_reason;	/* that condition's reason code, "" */
	char *cond_message;	/* and its words, "" */
	int64_t cond_since;	/* its lastTransitionTime, unix s; 0 */
	bool readable;		/* false: the API refused it (403, 404) */
	int64_t read_at;	/* kaid_now() when read */
};

/* The group a pod belongs to, once its owners are known. */
struct native_group {
	char *key;		/* "ns/Kind:name", the gang job's workload;
				   NULL: the pod is a group of its own */
	char *name;		/* the job's name: the top owner's */
	char *top_kind;		/* the top owner's kind, "" for a bare pod */
	uint32_t min;		/* tasks: minMember (>= 2 for a gang) */
	char *subgroup;		/* the pod's leaf subgroup of the tree,
				   NULL if none is named or known */
	uint32_t sg_min;	/* that subgroup's minMember: the members
				   of it the gang takes */
	char *queue, *prio_class, *preempt, *topo_req, *topo_pref;
				/* "" = not said by the owners */
	struct kai_sgtree *tree; /* the gang's subgroup tree, its own; NULL:
				   a flat gang */
};
void native_group_fini(struct native_group *g);

enum native_resolve {
	NATIVE_READY,	/* *g is filled */
	NATIVE_WAIT,	/* a read is under way; the pod is tried again */
	NATIVE_REFUSED	/* *why says why the pod cannot be a job */
};

/*
 * native_owner.c: the PodGroup ns/name as kaid knows it: the watch's
 * copy once the PodGroup list is whole (one it does not hold: an entry
 * with readable false), else the cache's, read by GET (NULL while that
 * read, started by the call if none is under way, answers).  Borrowed
 * until the watch or the cache changes.
 */
const struct native_owner *native_pg_known(struct kaid *k, const char *ns,
    const char *name, int64_t now);
/*
 * native_owner.c: the group of pod (keyed key), from its owner chain read
 * through the API (cached by uid, bounded, read again after a while or
 * on a miss) and its PodGroup if it names one.  On NATIVE_WAIT the pod
 * is kept (a copy) and given again to state_native_retry() once the
 * reads it waits for have answered.  *why is the caller's.
 */
enum native_resolve native_resolve(struct kaid *k, const char *key,
    const struct kai_pod *pod, int64_t now, struct native_group *g,
    char **why);
/* The pod keyed key no longer waits for a read (bound, gone). */
void native_unpark(struct kaid *k, const char *key);
/*
 * Whether why was the last refusal told about the pod keyed key (and
 * records it if not): each refusal is posted once, not at each retry.
 */
bool native_told(struct kaid *k, const char *key, const char *why);
/* Whether pods wait for owner reads. */
bool native_busy(const struct kaid *k);
/* Tries again the pods that wait for reads refused a while ago. */
void native_retry_parked(struct kaid *k, int64_t now);

/*
 * native_gang.c: KAI's pod grouper.  The gang size of the object o of
 * kind: a PodGroup's minMember (else its leaf subgroups'), a Job's 1 (or kai.scheduler/batch-min-
 * member), a StatefulSet's replicas (with podManagementPolicy Parallel,
 * else 1) or a ReplicaSet's, a JobSet's replicas
 * times parallelism, a PyTorchJob's minAvailable (else the replicas'
 * sum), a RayCluster's head plus its workers' minimum, a
 * LeaderWorkerSet's group size; 0 for a Deployment (a group per pod)
 * and every other kind.
 */
int64_t native_gang_min(const char *kind, const struct kai_kube_obj *o);
/* native_gang.c: the integer at path of o, else dflt. */
int64_t native_int_or(const struct kai_kube_obj *o, const char *path,
    int64_t dflt);
/* native_gang.c: kai.scheduler/batch-min-member of o (annotation, else
 * label), or 0. */
int64_t native_batch_min(const struct kai_kube_obj *o);
/*
 * native_sgtree.c: the subgroup tree of object o of kind (a PodGroup's
 * spec.subGroups, or what KAI's pod grouper derives for a JobSet, a
 * PyTorchJob, a RayCluster, a LeaderWorkerSet); NULL when it has none.
 * Caller owns the result.
 */
struct kai_sgtree *native_gang_tree(const char *kind,
    const struct kai_kube_obj *o);
/* The pods a tree's gang takes: its leaves' minMember summed. */
uint32_t native_tree_size(const struct kai_sgtree *t);
/*
 * The group of a pod whose chain is chain[0..n) (chain[0] its first
 * owner, chain[n-1] the top one; n may be 0) and whose PodGroup is pg
 * (or NULL): a PodGroup first, else the top owner's rule.  Labels and
 * annotations come from the top owner first, then the pod.
 */
void native_group_make(const struct kai_pod *pod,
    const struct native_owner *const *chain, size_t n,
    const struct native_owner *pg, struct native_group *g);
/*
 * The members of gang job j: the keys of the unbound pods that joined
 * it, sorted (the order tasks take them in); *n gets their count.
 * Caller owns the array, not the keys (they are k->pods' keys).
 */
const char **native_members(const struct kaid *k, const struct kai_job *j,
    size_t *n);

/*
 * A workload's job built but not yet recorded: the row to insert and the
 * job to add to the state once it has its id.  Everything is its own.
 */
struct native_new {
	char *key;			/* the pod's key ("ns/name") */
	struct kai_jobspec js;		/* nj.spec */
	struct kai_db_newjob nj;	/* its user and queue are j's */
	struct kai_job *j;		/* id 0 until recorded */
};

/*
 * native_burst.c: the one-pod jobs of one watch burst, recorded together.
 * native_burst_add takes nn, to be recorded by native_burst_commit()
 * (kaid's loop calls it before it sleeps, once every ready event was
 * handled) in one transaction with the burst's others; the pod then
 * becomes the job's if the watch still shows it pending, unbound and
 * not deleted.  native_burst_has: whether the pod keyed key waits so.
 */
void native_burst_add(struct kaid *k, struct native_new *nn);
bool native_burst_has(const struct kaid *k, const char *key);
/*
 * Records nn alone (a gang's job, at once: its next members join it),
 * frees it and returns the job now in the state; NULL, logged, when the
 * database refused it (the pod is tried again at its next change).
 */
struct kai_job *native_new_record(struct kaid *k, struct native_new *nn);
void native_new_free(struct native_new *nn);

/*
 * native_owner.c: a copy of the fields of pod that native.c reads (a
 * pod kept while it waits), and its free.
 */
struct kai_pod *native_pod_dup(const struct kai_pod *pod);
void native_pod_free(void *pod);

/*
 * native_qwait.c: pods that wait for their queue to exist (or to be a
 * leaf).  native_qwait_put keeps a copy of pod keyed key with the reason
 * why, to run through native_pod() again once the queue tree changes;
 * returns whether why is new for the pod (to be logged and posted).
 * native_qwait_del: the pod waits for its queue no more.
 */
bool native_qwait_put(struct kaid *k, const char *key,
    const struct kai_pod *pod, const char *why);
void native_qwait_del(struct kaid *k, const char *key);

/* state.c: runs the pod keyed key through native_pod() again. */
void state_native_retry(struct kaid *k, const char *key,
    const struct kai_pod *pod, int64_t now);

#endif
