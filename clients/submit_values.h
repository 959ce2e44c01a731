/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * submit_values.h: the value syntaxes of ksubmit's options, each parsed
 * into a small struct the way sbatch 22.05 reads it.
 *
 *	--nodes		N or MIN-MAX
 *	--gpus*		[TYPE:]N			--gres	gpu[:TYPE][:N][,...] | none
 *	--signal	[{R|B}:]SIG[@SECONDS]
 *	--gpu-fraction	a decimal in (0, 1)
 *	--topology	[NAME:]LEVEL
 *
 * --array and --dependency are read by kaid's own parsers
 * (kai_array_parse() and kai_dep_parse() in src/model), so ksubmit
 * accepts exactly what kaid does, with the same messages.
 *
 * Every parser is pure, fills its output only on success, and names the
 * value and the reason on failure ("invalid node count \"4-2\": maximum
 * below minimum").  The structs own their strings; their
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

/* "Not given" for the integer fields of the structs below. */
#define SUBMIT_UNSET (-1)

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
