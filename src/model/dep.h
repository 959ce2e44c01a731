/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * dep.h: job dependencies (sbatch --dependency) and what satisfies them.
 *
 * kaid keeps a dependency as the canonical text kai_dep_format() writes
 * ("afterok:12,afterok:13_4,after:5+10,singleton") and parses it back
 * when it loads the job.  Each tick it describes the job every item
 * names as a struct kai_dep_target, and kai_dep_eval() says whether the
 * whole dependency is satisfied, still waiting, or can never be.
 *
 * Pure: no I/O, no clock (now is an argument).
 */
#ifndef KAI_MODEL_DEP_H
#define KAI_MODEL_DEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/compiler.h"
#include "base/err.h"

#define KAI_DEP_ITEMS_MAX 1024
#define KAI_DEP_TEXT_MAX  8192
#define KAI_DEP_TASK_ALL  UINT32_MAX /* the whole job, every array task */

enum kai_dep_type {
	KAI_DEP_AFTER = 0,	/* the job started (or was cancelled) */
	KAI_DEP_AFTERANY,	/* the job ended, however */
	KAI_DEP_AFTERNOTOK,	/* the job ended in any state but COMPLETED */
	KAI_DEP_AFTEROK,	/* the job COMPLETED (exit 0) */
	KAI_DEP_SINGLETON,	/* no earlier job of this name and user is
				 * still active */
	KAI_DEP_NTYPES
};

struct kai_dep_item {
	enum kai_dep_type type;
	uint64_t job;		/* 0 for singleton */
	uint32_t task;		/* array task index or KAI_DEP_TASK_ALL */
	uint32_t delay_min;	/* after only: minutes after the start */
	uint32_t group;		/* which "type:job:job" of the text (from 0)
				 * the item was written in; ksubmit
				 * --parse-only shows the groups */
};

struct kai_dep {
	bool any;		/* "?": one satisfied item is enough */
	struct kai_dep_item *items;
	size_t n;
};

/*
 * Parses sbatch's syntax: items "type:job[:job...]" (job is "123" or
 * "123_4", "after" jobs may end in "+minutes"), "singleton", or a bare
 * job id (afterany), joined by "," (all) or "?" (any).
 * "afterburstbuffer" is read as afterany (there are no burst buffers);
 * "aftercorr" is refused.  KAI_EINVAL "invalid dependency \"%s\"...".
 * *d must be initialised: on success its old items are freed and
 * replaced; on failure it is left as it was.
 */
int kai_dep_parse(const char *s, struct kai_dep *d, struct kai_err *err)
    KAI_MUST_CHECK;
void kai_dep_fini(struct kai_dep *d);
/* The canonical text; false when it does not fit in size bytes. */
bool kai_dep_format(const struct kai_dep *d, char *buf, size_t size);
const char *kai_dep_type_name(enum kai_dep_type t);

/* What kaid knows of the job (all its array tasks) an item names. */
struct kai_dep_target {
	bool started;		/* some part started, or all ended */
	bool ended;		/* every part is in a terminal state */
	bool failed;		/* some part ended other than COMPLETED */
	int64_t start_time;	/* the first start, unix s; 0 = none */
};

enum kai_dep_status {
	KAI_DEP_WAIT = 0,
	KAI_DEP_OK,
	KAI_DEP_NEVER
};

/* One item against its target (for singleton: ended = no blocker). */
enum kai_dep_status kai_dep_item_status(const struct kai_dep_item *it,
    const struct kai_dep_target *t, int64_t now);
/*
 * What squeue's %E shows: the items not met yet, each with its state,
 * "afterok:12(unfulfilled),afterany:13_4(failed)"; "" when all are met.
 * t[i] describes d->items[i].  False when it does not fit in size bytes.
 */
bool kai_dep_format_left(const struct kai_dep *d,
    const struct kai_dep_target *t, int64_t now, char *buf, size_t size);
/* The whole dependency, t[i] describing d->items[i]. */
enum kai_dep_status kai_dep_eval(const struct kai_dep *d,
    const struct kai_dep_target *t, int64_t now);

#endif /* KAI_MODEL_DEP_H */
