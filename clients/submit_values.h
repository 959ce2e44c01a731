/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * submit_values.h: the value syntaxes of ksubmit's options, each parsed
 * into a small struct the way sbatch 22.05 reads it.
 *
 *	--nodes		N or MIN-MAX
 *	--gpus*		[TYPE:]N			--gres	gpu[:TYPE][:N][,...] | none
 *	--array		A, A-B, A-B:S, comma lists, %MAX	(expanded, sorted)
 *	--dependency	TYPE:ID[:ID...] joined by "," (all) or "?" (any)
 *	--signal	[{R|B}:]SIG[@SECONDS]
 *	--gpu-fraction	a decimal in (0, 1)
 *	--topology	[NAME:]LEVEL
 *
 * Every parser is pure, fills its output only on success, and names the
 * value and the reason on failure ("invalid array \"1-2000\": index 2000
 * is over the maximum 1000").  The structs own their strings; their
 * _fini() functions release them and leave a zeroed struct, and _fini()
 * of a zeroed struct is a no-op.
 */
#ifndef KAI_CLIENTS_SUBMIT_VALUES_H
#define KAI_CLIENTS_SUBMIT_VALUES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/compiler.h"
#include "base/err.h"
#include "model/array.h"

/* "Not given" for the integer fields of the structs below. */
#define SUBMIT_UNSET (-1)

/*
 * Indices run from 0 to kaid's KAI_ARRAY_INDEX_MAX (model/array.h),
 * above a stock Slurm's 1000: a 10,000-task array is one row in kaid.
 */
#define SUBMIT_ARRAY_MAX_SIZE (KAI_ARRAY_INDEX_MAX + 1)

/* A GPU request of one kind (per job, node or task). */
struct submit_gpu {
	int64_t count;   /* SUBMIT_UNSET = not requested */
	char *type;      /* as written ("a100", "1g.10gb"); NULL = any */
	const char *opt; /* static label of the option that set it */
};

/* "[TYPE:]N" (--gpus, --gpus-per-node, --gpus-per-task). */
int submit_gpu_parse(const char *s, struct submit_gpu *g,
    struct kai_err *err) KAI_MUST_CHECK;

/*
 * --gres: "gpu", "gpu:N", "gpu:TYPE", "gpu:TYPE:N" (count 1 by default),
 * or "none" (count SUBMIT_UNSET: no GPU).  Any other resource is refused,
 * because kaid schedules GPUs only: "invalid gres \"nvme:1\": kaibatch
 * knows only gpu".  A list may name gpu once.
 */
int submit_gres_parse(const char *s, struct submit_gpu *g,
    struct kai_err *err) KAI_MUST_CHECK;
void submit_gpu_fini(struct submit_gpu *g);

/* "N" or "MIN-MAX", 1 <= MIN <= MAX. */
int submit_nodes_parse(const char *s, int64_t *min, int64_t *max,
    struct kai_err *err) KAI_MUST_CHECK;

struct submit_array {
	uint32_t *idx; /* the indices, ascending, no duplicates */
	size_t n;
	int64_t throttle; /* %MAX; SUBMIT_UNSET = none, 0 = no limit */
};

int submit_array_parse(const char *s, struct submit_array *a,
    struct kai_err *err) KAI_MUST_CHECK;
void submit_array_fini(struct submit_array *a);

enum submit_dep_type {
	SUBMIT_DEP_AFTER = 0,
	SUBMIT_DEP_AFTERANY,
	SUBMIT_DEP_AFTERBURSTBUFFER,
	SUBMIT_DEP_AFTERCORR,
	SUBMIT_DEP_AFTERNOTOK,
	SUBMIT_DEP_AFTEROK,
	SUBMIT_DEP_SINGLETON
};

/*
 * One "type:id:id" group.  A group of "after" whose jobs carry different
 * "+minutes" delays is split into one item per run of equal delays.
 */
struct submit_dep_item {
	enum submit_dep_type type;
	char **jobs; /* "123" or "123_4" (an array task) */
	size_t njobs;
	int64_t delay_min; /* after only: minutes after the start */
};

struct submit_dep {
	bool any; /* "?" given: any item may be satisfied */
	struct submit_dep_item *items;
	size_t n;
};

int submit_dep_parse(const char *s, struct submit_dep *d,
    struct kai_err *err) KAI_MUST_CHECK;
void submit_dep_fini(struct submit_dep *d);
const char *submit_dep_type_name(enum submit_dep_type t);

struct submit_signal {
	int number;      /* 1..64 */
	int64_t secs;    /* seconds before the time limit, default 60 */
	bool batch_only; /* "B:": only the batch shell */
	bool resv;       /* "R:": may overlap a reservation (no meaning here) */
};

int submit_signal_parse(const char *s, struct submit_signal *sg,
    struct kai_err *err) KAI_MUST_CHECK;
/* "USR1" for SIGUSR1, or NULL when the number has no name in the table. */
const char *submit_signal_name(int number);

/* A decimal in (0, 1) such as "0.5"; *f is its value. */
int submit_fraction_parse(const char *s, double *f,
    struct kai_err *err) KAI_MUST_CHECK;

/*
 * "[NAME:]LEVEL" of --topology and --topology-preferred: NAME is a
 * Topology object, LEVEL a node label key ("k8s.io/rack").  *name is NULL
 * when not given.  Caller owns both strings.
 */
int submit_topology_parse(const char *s, char **name, char **level,
    struct kai_err *err) KAI_MUST_CHECK;

/* A Kubernetes object name (DNS subdomain): --priority-class. */
bool submit_k8s_name_ok(const char *s);

#endif /* KAI_CLIENTS_SUBMIT_VALUES_H */
