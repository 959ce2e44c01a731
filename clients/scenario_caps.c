/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * scenario_caps.c: GPU caps in a scenario (a kaibatch extension of
 * FORMAT.md; src/sched/qoslimit.c): the top-level `gpu_caps:` and a
 * job's `gpu_cap:`, the way kaid gives every (user, QoS) pair with a
 * per-user GPU limit a cap of its own.
 *
 *	gpu_caps:
 *	  - {name: alice-debug, gpus: 2}
 *	jobs:
 *	  - {name: a, queue: q, gpu_cap: alice-debug, tasks: [{gpus: 1}]}
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>

#include "base/xmalloc.h"
#include "scenario.h"

int
scenario_load_caps(struct sload *ld, const struct ynode *cs)
{
	static const char *const keys[] = {"name", "gpus", NULL};
	struct scenario *sc = ld->sc;
	const struct ynode *m, *g;
	const char *name;
	size_t i;
	int rc;

	if (cs == NULL)
		return 0;
	if ((rc = sload_kind(ld, cs, YT_SEQ, "gpu_caps")) != 0)
		return rc;
	sc->gpu_caps = kai_xcalloc(cs->n + 1, sizeof(*sc->gpu_caps));
	for (i = 0; i < cs->n; i++) {
		m = cs->v[i];
		if ((rc = sload_kind(ld, m, YT_MAP, "a GPU cap")) != 0 ||
		    (rc = sload_keys(ld, m, keys, "a GPU cap")) != 0 ||
		    (rc = sload_get_str(ld, m, "name", true, &name)) != 0 ||
		    (rc = sload_index(ld, &sc->cap_ix, ytree_get(m, "name"), i,
			"GPU cap")) != 0)
			return rc;
		if ((g = ytree_get(m, "gpus")) == NULL)
			return sload_fail(ld, m, "a GPU cap needs gpus");
		if ((rc = sload_gpu(ld, g, false, &sc->gpu_caps[i])) != 0)
			return rc;
	}
	sc->snap.gpu_limits = sc->gpu_caps;
	sc->snap.ngpu_limits = cs->n;
	return 0;
}

int
scenario_job_cap(struct sload *ld, const struct ynode *m,
    struct kai_sched_snap_job *j)
{
	const struct ynode *n = ytree_get(m, "gpu_cap");
	size_t c;
	int rc;

	j->gpu_limit = 0;
	if (n == NULL)
		return 0;
	if ((rc = sload_kind(ld, n, YT_SCALAR, "a GPU cap name")) != 0)
		return rc;
	if ((c = sload_find(&ld->sc->cap_ix, n->s)) == 0)
		return sload_fail(ld, n,
		    "no GPU cap \"%s\" (gpu_caps: must list it)", n->s);
	j->gpu_limit = (uint32_t)c; /* 1 + its index, as sload_find */
	return 0;
}

void
scenario_caps_fini(struct scenario *sc)
{
	kai_map_fini(&sc->cap_ix);
	free(sc->gpu_caps);
	sc->gpu_caps = NULL;
}
