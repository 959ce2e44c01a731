/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * db_mail.c: what job mail needs from the store (daemons/kaid/mail.c).
 *
 * A notice that follows a state change goes at most once because the
 * change is recorded once.  The others (a time limit's 50/80/90/100%, an
 * array's one BEGIN and its summary at the end) are claimed here first:
 * one guarded UPDATE sets the notice's bit in jobs.mail_sent
 * (sql/021-job-mail.sql) and says whether this call set it, so a kaid
 * restarted, or a new leader, never sends the same notice again.  A
 * kaid that dies between the claim and the mail program loses that one
 * notice: at most once, never twice.
 */
#include "config.h"

#include <stdlib.h>

#include "db/db.h"
#include "db/db_internal.h"

int
kai_db_mail_claim(struct kai_db *db, uint64_t id, uint32_t bit, bool *claimed,
    struct kai_err *err)
{
	struct kai_db_params p;
	PGresult *res;
	int r;

	*claimed = false;
	if ((r = kai_db_ready(db, err)) != 0)
		return r;
	kai_db_params_init(&p);
	(void)kai_db_param_u64(&p, id);
	(void)kai_db_param_i64(&p, (int64_t)bit);
	res = kai_db_exec(db,
	    "UPDATE jobs SET mail_sent = mail_sent | $2::integer "
	    "WHERE id = $1::bigint AND mail_sent & $2::integer = 0 "
	    "RETURNING id",
	    &p, PGRES_TUPLES_OK, "could not record a job's mail", err);
	kai_db_params_fini(&p);
	if (res == NULL)
		return kai_db_errcode(err);
	*claimed = PQntuples(res) == 1;
	PQclear(res);
	return 0;
}

int
kai_db_mail_array(struct kai_db *db, uint64_t array_id,
    struct kai_db_mail_array *a, struct kai_err *err)
{
	struct kai_db_params p;
	struct kai_db_row row;
	PGresult *res;
	int r;

	if ((r = kai_db_ready(db, err)) != 0)
		return r;
	kai_db_params_init(&p);
	(void)kai_db_param_u64(&p, array_id);
	res = kai_db_exec(db,
	    "SELECT count(*) FILTER (WHERE state IN ('PENDING', "
	    "'CONFIGURING', 'RUNNING')), "
	    "coalesce(min(exit_code), 0), coalesce(max(exit_code), 0), "
	    "coalesce(max(exit_signal), 0), "
	    "count(*) FILTER (WHERE requeue_count > 0), "
	    "count(*) FILTER (WHERE state <> 'COMPLETED') "
	    "FROM jobs WHERE array_job_id = $1::bigint OR id = $1::bigint",
	    &p, PGRES_TUPLES_OK, "could not read an array's tasks", err);
	kai_db_params_fini(&p);
	if (res == NULL)
		return kai_db_errcode(err);
	row.res = res;
	row.row = 0;
	row.bad = PQntuples(res) != 1;
	if (!row.bad) {
		a->active = kai_db_get_u32(&row, 0);
		a->exit_min = (int32_t)kai_db_get_i64(&row, 1);
		a->exit_max = (int32_t)kai_db_get_i64(&row, 2);
		a->signal_max = (int32_t)kai_db_get_i64(&row, 3);
		a->requeued = kai_db_get_u32(&row, 4) > 0;
		a->not_completed = kai_db_get_u32(&row, 5);
	}
	PQclear(res);
	if (row.bad)
		return kai_err_set(err, KAI_EDB,
		    "could not read an array's tasks: malformed answer");
	return 0;
}
