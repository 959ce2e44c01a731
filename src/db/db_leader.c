/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * db_leader.c: one leader among several kaid (sql/011-leader.sql).
 *
 * The leader is the kaid whose main connection holds the session advisory
 * lock KAI_DB_LEADER_LOCK: PostgreSQL releases it when that connection
 * ends, so the death of a leader (or of its link to the database) frees
 * the lead at once, and a standby polling kai_db_leader_try() takes it.
 * Taking it raises leader.epoch; the epoch is the fencing token that
 * kai_db_jobs_change() checks in the transaction of every change (the
 * placements that dispatch pods among them).  A leader whose connection
 * is reopened (db.c) must take the lock again before anything else; if
 * another kaid holds it, the connection is refused and the db is marked
 * deposed, for kaid to stop.
 */
#include "config.h"

#include "db/db.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "db/db_internal.h"

/* pg_advisory_lock key of the lead: "kaiL" in ASCII. */
#define KAI_DB_LEADER_LOCK 0x6b61694c

int
kai_db_leader_lock(struct kai_db *db, bool *got, struct kai_err *err)
{
	struct kai_db_row row = {NULL, 0, false};
	struct kai_db_params p;
	PGresult *res;

	*got = false;
	kai_db_params_init(&p);
	(void)kai_db_param_i64(&p, KAI_DB_LEADER_LOCK);
	res = kai_db_exec(db, "SELECT pg_try_advisory_lock($1)", &p,
	    PGRES_TUPLES_OK, "could not take the lead", err);
	kai_db_params_fini(&p);
	if (res == NULL)
		return kai_db_errcode(err);
	row.res = res;
	*got = kai_db_get_bool(&row, 0);
	PQclear(res);
	return 0;
}

int
kai_db_leader_try(struct kai_db *db, const char *holder, const char *address,
    int64_t now, bool *leads, struct kai_err *err)
{
	struct kai_db_row row = {NULL, 0, false};
	struct kai_db_params p;
	PGresult *res;
	bool got;
	int r;

	*leads = false;
	if ((r = kai_db_ready(db, err)) != 0 ||
	    (r = kai_db_leader_lock(db, &got, err)) != 0 || !got)
		return r;
	kai_db_params_init(&p);
	(void)kai_db_param_str(&p, holder);
	(void)kai_db_param_i64(&p, now);
	(void)kai_db_param_str(&p, address);
	res = kai_db_exec(db, "UPDATE leader SET epoch = epoch + 1, "
	    "holder = $1, since = $2, address = $3 WHERE id = 1 "
	    "RETURNING epoch", &p,
	    PGRES_TUPLES_OK, "could not take the lead", err);
	kai_db_params_fini(&p);
	if (res == NULL) {
		db->broken = true;	/* drops the lock with the session */
		return kai_db_errcode(err);
	}
	row.res = res;
	db->epoch = PQntuples(res) == 1 ? kai_db_get_i64(&row, 0) : 0;
	PQclear(res);
	if (db->epoch <= 0 || row.bad) {
		db->broken = true;
		return kai_err_set(err, KAI_EDB,
		    "could not take the lead: no leader row");
	}
	*leads = true;
	return 0;
}

int
kai_db_leader_holder(struct kai_db *db, char **holder, char **address,
    int64_t *epoch, struct kai_err *err)
{
	struct kai_db_row row = {NULL, 0, false};
	PGresult *res;
	int r;

	*holder = NULL;
	*address = NULL;
	*epoch = 0;
	if ((r = kai_db_ready(db, err)) != 0)
		return r;
	res = kai_db_exec(db, "SELECT holder, epoch, address FROM leader "
	    "WHERE id = 1",
	    NULL, PGRES_TUPLES_OK, "could not read the leader", err);
	if (res == NULL)
		return kai_db_errcode(err);
	row.res = res;
	if (PQntuples(res) == 1) {
		*holder = kai_db_get_dup(&row, 0);
		*epoch = kai_db_get_i64(&row, 1);
		*address = kai_db_get_dup(&row, 2);
	}
	PQclear(res);
	if (*holder == NULL)
		*holder = kai_xstrdup("");
	if (*address == NULL)
		*address = kai_xstrdup("");
	return 0;
}

int64_t
kai_db_epoch(const struct kai_db *db)
{
	return db->epoch;
}

bool
kai_db_deposed(const struct kai_db *db)
{
	return db->deposed;
}
