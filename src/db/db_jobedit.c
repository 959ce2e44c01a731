/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * db_jobedit.c: changes to a pending job that are not state changes:
 * kctl hold, release and update job.
 *
 * The shape is db_change.c's: one statement, an UPDATE guarded by
 * "state = 'PENDING'" whose RETURNING drives the event row through a
 * data-modifying CTE.  A job that left PENDING meanwhile updates nothing,
 * writes no event and returns no row, so kaid learns it from *applied
 * without a lock or a second query.  The event keeps the state
 * (PENDING -> PENDING) and says what changed, with who asked.
 */
#include "config.h"

#include <stdlib.h>

#include "db/db.h"
#include "db/db_internal.h"

static const char edit_sql[] =
    "WITH u AS (UPDATE jobs SET hold = coalesce($2::boolean, hold), "
    "priority = coalesce($3::bigint, priority), "
    "time_limit_s = coalesce($4::bigint, time_limit_s), "
    "queue = coalesce($5::text, queue), "
    "reason = coalesce($6::text, reason), "
    "mail_type = coalesce($10::text, mail_type), "
    "mail_user = coalesce($11::text, mail_user) "
    "WHERE id = $1::bigint AND state = 'PENDING' RETURNING id), "
    "e AS (INSERT INTO events (job_id, time, from_state, to_state, reason, "
    "actor_uid) SELECT id, $7::bigint, 'PENDING', 'PENDING', $8::text, "
    "$9::bigint FROM u) "
    "SELECT id FROM u";

static void
edit_params(struct kai_db_params *p, const struct kai_db_jobedit *e)
{
	(void)kai_db_param_u64(p, e->id);
	if (e->set_hold) {
		(void)kai_db_param_bool(p, e->hold);
		(void)kai_db_param_u64(p, e->priority);
	} else {
		(void)kai_db_param_str(p, NULL);
		(void)kai_db_param_str(p, NULL);
	}
	if (e->set_time_limit)
		(void)kai_db_param_i64(p, e->time_limit_s);
	else
		(void)kai_db_param_str(p, NULL);
	(void)kai_db_param_str(p, e->queue);
	(void)kai_db_param_str(p, e->reason);
	(void)kai_db_param_i64(p, e->time);
	(void)kai_db_param_str(p, e->event != NULL ? e->event : "");
	(void)kai_db_param_i64(p, e->actor_uid);
	(void)kai_db_param_str(p, e->mail_type);
	(void)kai_db_param_str(p, e->mail_user);
}

int
kai_db_job_edit(struct kai_db *db, const struct kai_db_jobedit *e,
    bool *applied, struct kai_err *err)
{
	struct kai_db_params p;
	PGresult *res;
	int r;

	*applied = false;
	if ((r = kai_db_ready(db, err)) != 0)
		return r;
	kai_db_params_init(&p);
	edit_params(&p, e);
	res = kai_db_exec(db, edit_sql, &p, PGRES_TUPLES_OK,
	    "could not change the job", err);
	kai_db_params_fini(&p);
	if (res == NULL)
		return kai_db_errcode(err);
	*applied = PQntuples(res) == 1;
	PQclear(res);
	return 0;
}
