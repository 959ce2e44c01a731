/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * acctshare.c: the accounts' shares inside a leaf queue (Slurm's
 * association fair share, kaid.yaml's accounts.fairshare).
 *
 * The jobs of a leaf are grouped by (user, account) (sess_jobs.c); each
 * (leaf, account) pair is a slot that knows the GPUs its jobs hold now.
 * Group order (order.c) compares, after the head job's priority and
 * elastic state, the slot's GPUs over the account's weight: the account
 * furthest below its weighted share goes first, so accounts of weights 3
 * and 1 that both keep a queue busy end up holding about 3:1 of it.  The
 * comparison needs no total: a/wa < b/wb is the same test whatever the
 * shares are normalised by.  Jobs without an account form a slot of no
 * weight that compares as holding nothing, so they are not held back by
 * the accounts.  Usage that decayed is not counted (the users' is, next).
 * Any change of a slot's GPUs (stmt.c, and its undo) touches every group
 * of the slot, so the group heaps re-key them.
 */
#include "config.h"

#include <string.h>

#include "sched/sched_int.h"

void
kai_sched_acct_init(struct sess *S)
{
	uint32_t cap = 16, g, s, *ids;
	uint64_t *keys;

	S->nslots = 0;
	while (cap < 2 * (S->ng + 1))
		cap *= 2;
	keys = kai_sched_calloc(S->ctx, cap, sizeof(*keys));
	ids = kai_sched_calloc(S->ctx, cap, sizeof(*ids));
	memset(keys, 0xff, cap * sizeof(*keys));
	S->slot_at = kai_sched_calloc(S->ctx, S->ng + 2, sizeof(*S->slot_at));
	for (g = 0; g < S->ng; g++) {
		struct sgroup *G = &S->groups[g];
		uint64_t key = (uint64_t)G->leaf << 32 | (uint32_t)G->account;
		size_t h;

		G->slot = -1;
		if (G->account < 0)
			continue;
		h = kai_sched_mix64(key) & (cap - 1);
		while (keys[h] != UINT64_MAX && keys[h] != key)
			h = (h + 1) & (cap - 1);
		if (keys[h] == UINT64_MAX) {
			keys[h] = key;
			ids[h] = S->nslots++;
		}
		G->slot = (int32_t)ids[h];
		S->slot_at[ids[h] + 1]++;
	}
	for (s = 0; s < S->nslots; s++)
		S->slot_at[s + 1] += S->slot_at[s];
	S->slot_grp = kai_sched_calloc(S->ctx, S->ng + 1, sizeof(*S->slot_grp));
	S->slot_gpu = kai_sched_calloc(S->ctx, S->nslots + 1,
	    sizeof(*S->slot_gpu));
	/* Fill with slot_at[s] as the cursor, then shift it back. */
	for (g = 0; g < S->ng; g++)
		if (S->groups[g].slot >= 0)
			S->slot_grp[S->slot_at[S->groups[g].slot]++] = g;
	for (s = S->nslots; s > 0; s--)
		S->slot_at[s] = S->slot_at[s - 1];
	S->slot_at[0] = 0;
	kai_sched_free(S->ctx, keys);
	kai_sched_free(S->ctx, ids);
}

void
kai_sched_acct_add(struct sess *S, uint32_t g, int64_t ugpu, bool touch)
{
	int32_t s = S->groups[g].slot;
	uint32_t i;

	if (s < 0 || ugpu == 0)
		return;
	S->slot_gpu[s] += ugpu;
	if (!touch)
		return;
	for (i = S->slot_at[s]; i < S->slot_at[s + 1]; i++)
		kai_sched_touch_group(S, S->slot_grp[i]);
}

double
kai_sched_acct_key(const struct sess *S, uint32_t g)
{
	const struct sgroup *G = &S->groups[g];

	if (G->slot < 0)
		return 0;
	return (double)S->slot_gpu[G->slot] /
	    (double)S->s->accounts[G->account].weight;
}
