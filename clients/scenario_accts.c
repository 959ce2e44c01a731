/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * scenario_accts.c: accounts in a scenario (a kaibatch extension of
 * FORMAT.md; src/sched/acctshare.c): the top-level `accounts:` with
 * their weights (kaid.yaml's accounts.fairshare) and a job's `account:`.
 *
 *	accounts:
 *	  - {name: physics, fairshare: 3}
 *	jobs:
 *	  - {name: a, queue: q, account: physics, tasks: [{gpus: 1}]}
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>

#include "base/xmalloc.h"
#include "scenario.h"

int
scenario_load_accounts(struct sload *ld, const struct ynode *as)
{
	static const char *const keys[] = {"name", "fairshare", NULL};
	struct scenario *sc = ld->sc;
	const struct ynode *m;
	const char *name;
	size_t i;
	int rc;

	if (as == NULL)
		return 0;
	if ((rc = sload_kind(ld, as, YT_SEQ, "accounts")) != 0)
		return rc;
	sc->accounts = kai_xcalloc(as->n + 1, sizeof(*sc->accounts));
	for (i = 0; i < as->n; i++) {
		m = as->v[i];
		sc->accounts[i].weight = 1;
		if ((rc = sload_kind(ld, m, YT_MAP, "an account")) != 0 ||
		    (rc = sload_keys(ld, m, keys, "an account")) != 0 ||
		    (rc = sload_get_str(ld, m, "name", true, &name)) != 0 ||
		    (rc = sload_index(ld, &sc->acct_ix, ytree_get(m, "name"), i,
			"account")) != 0 ||
		    (rc = sload_get_i64(ld, m, "fairshare", 1, 1000000,
			&sc->accounts[i].weight)) != 0)
			return rc;
		sc->accounts[i].name = name;
	}
	sc->snap.accounts = sc->accounts;
	sc->snap.naccounts = as->n;
	return 0;
}

int
scenario_job_account(struct sload *ld, const struct ynode *m,
    struct kai_sched_snap_job *j)
{
	const struct ynode *n = ytree_get(m, "account");
	size_t a;
	int rc;

	j->account = -1;
	if (n == NULL)
		return 0;
	if ((rc = sload_kind(ld, n, YT_SCALAR, "an account name")) != 0)
		return rc;
	if ((a = sload_find(&ld->sc->acct_ix, n->s)) == 0)
		return sload_fail(ld, n,
		    "no account \"%s\" (accounts: must list it)", n->s);
	j->account = (int32_t)(a - 1);
	return 0;
}

void
scenario_accounts_fini(struct scenario *sc)
{
	kai_map_fini(&sc->acct_ix);
	free(sc->accounts);
	sc->accounts = NULL;
}
