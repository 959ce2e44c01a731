/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * db_jobsize.c: a pending job's size per task grows (a Kubernetes gang
 * whose later member asks for more than the first, doc/k8s-native.md).
 *
 * As db_jobedit.c: one UPDATE guarded by "state = 'PENDING'", so a job
 * that left PENDING meanwhile is not changed and *applied says so.  The
 * sizes only grow (greatest()), so a repeated or late call never shrinks
 * what a task was placed with.
 */
#include "config.h"

#include <stdlib.h>

#include "db/db.h"
#include "db/db_internal.h"

static const char size_sql[] =
    "UPDATE jobs SET cpus_per_task = greatest(cpus_per_task, $2::int), "
    "mem_mb = greatest(mem_mb, $3::bigint), "
    "gpus_per_task = greatest(gpus_per_task, $4::int) "
    "WHERE id = $1::bigint AND state = 'PENDING' RETURNING id";

int
kai_db_job_grow(struct kai_db *db, uint64_t id, uint32_t cpus_per_task,
    uint64_t mem_mb, uint32_t gpus_per_task, bool *applied,
    struct kai_err *err)
{
	struct kai_db_params p;
	PGresult *res;
	int r;

	*applied = false;
	if ((r = kai_db_ready(db, err)) != 0)
		return r;
	kai_db_params_init(&p);
	(void)kai_db_param_u64(&p, id);
	(void)kai_db_param_u64(&p, cpus_per_task);
	(void)kai_db_param_u64(&p, mem_mb);
	(void)kai_db_param_u64(&p, gpus_per_task);
	res = kai_db_exec(db, size_sql, &p, PGRES_TUPLES_OK,
	    "could not change the job's size", err);
	kai_db_params_fini(&p);
	if (res == NULL)
		return kai_db_errcode(err);
	*applied = PQntuples(res) == 1;
	PQclear(res);
	return 0;
}
