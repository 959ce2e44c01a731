/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * db_queue.c: the queue tree (kctl queue): loading it, applying a batch
 * of changes, deleting queues.
 *
 * A change is checked against the whole tree as it will be, not row by
 * row: inside one transaction, with the queues table locked against other
 * writers, the current queues and their active job counts are read, the
 * batch is applied to that copy in memory, and only a tree that passes
 * every check (each queue's own values, parents that exist, no cycle, no
 * active jobs in a parent queue) is written.  So a batch is all or
 * nothing, and the reason for a refusal names the queue and the rule in
 * words a user can act on.
 *
 * Values travel as text parameters: GPU quotas, limits and all weights as
 * exact decimals (kai_queue_fmt_units()), read back as integers in the
 * scheduler's units by the SELECT itself, so nothing is ever rounded
 * through a double.
 */
#include "config.h"

#include "db/db.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/map.h"
#include "base/xmalloc.h"
#include "db/db_internal.h"

#define ACTIVE "('PENDING', 'CONFIGURING', 'RUNNING')"
#define MICRO(c) "round(" c " * 1000000)::bigint"
#define GPU(c)	 "CASE WHEN " c " < 0 THEN -1 ELSE " MICRO(c) " END"

static const char load_sql[] =
    "SELECT q.name, q.parent, q.priority, "
    GPU("q.gpu_quota") ", " GPU("q.gpu_limit") ", " MICRO("q.gpu_weight") ", "
    "q.cpu_quota, q.cpu_limit, " MICRO("q.cpu_weight") ", "
    "q.mem_quota, q.mem_limit, " MICRO("q.mem_weight") ", "
    "q.preempt_min_runtime_s, q.reclaim_min_runtime_s, q.ord, "
    "coalesce(a.n, 0), "
    /* The GPU types in the form they travel in, ';' between them. */
    "(SELECT string_agg(t.type || ' ' || " GPU("t.quota") " || ' ' || "
    GPU("t.lim") " || ' ' || " GPU("t.weight") ", ';' ORDER BY t.type) "
    "FROM queue_gpu_types t WHERE t.queue = q.name) "
    "FROM queues q LEFT JOIN (SELECT queue, count(*) AS n FROM jobs "
    "WHERE state IN " ACTIVE " GROUP BY queue) a ON a.queue = q.name "
    "WHERE NOT q.deleted ORDER BY q.ord";

/* The settable columns, in the order queue_params() adds them ($2...). */
#define COLS                                                                   \
	"parent, priority, gpu_quota, gpu_limit, gpu_weight, cpu_quota, "      \
	"cpu_limit, cpu_weight, mem_quota, mem_limit, mem_weight, "            \
	"preempt_min_runtime_s, reclaim_min_runtime_s"
#define VALS                                                                   \
	"$2, $3, $4::numeric, $5::numeric, $6::numeric, $7, $8, "              \
	"$9::numeric, $10, $11, $12::numeric, $13, $14"

static const char insert_sql[] =
    "INSERT INTO queues (name, " COLS ") VALUES ($1, " VALS ") "
    "ON CONFLICT (name) DO UPDATE SET (" COLS ", deleted, ord, created) = "
    "(" VALS ", false, nextval('queues_ord_seq'), now()) "
    "WHERE queues.deleted";
static const char update_sql[] =
    "UPDATE queues SET (" COLS ") = (" VALS ") "
    "WHERE name = $1 AND NOT deleted";
static const char types_del_sql[] =
    "DELETE FROM queue_gpu_types WHERE queue = $1";
static const char types_ins_sql[] =
    "INSERT INTO queue_gpu_types (queue, type, quota, lim, weight) "
    "VALUES ($1, $2, $3::numeric, $4::numeric, $5::numeric)";

/* The tree being changed: the queues, a name index, what happened. */
enum qstate {
	Q_KEPT = 0,	/* as loaded */
	Q_UPDATED,	/* to be written with UPDATE */
	Q_NEW		/* to be written with INSERT (or revived) */
};

struct qtree {
	struct kai_queue *q;
	enum qstate *st;
	size_t n;
	struct kai_map ix;	/* name -> index + 1 */
};

/* "A100 2000000 -1 -1;H100 ..." into q's types. */
static int
read_types(struct kai_queue *q, const char *s, struct kai_err *err)
{
	char buf[KAI_QUEUE_TYPE_WIRE_MAX + 1];
	const char *p = s, *e;
	size_t len;

	while (p != NULL && *p != '\0') {
		e = strchr(p, ';');
		len = e != NULL ? (size_t)(e - p) : strlen(p);
		if (len >= sizeof(buf))
			return kai_err_set(err, KAI_EDB,
			    "could not load the queues: GPU type of queue "
			    "\"%s\" too long", q->name);
		memcpy(buf, p, len);
		buf[len] = '\0';
		if (kai_queue_type_wire_parse(q, buf, err) != 0)
			return kai_err_prefix(err, "could not load the queues");
		p = e != NULL ? e + 1 : NULL;
	}
	return 0;
}

static int
read_rows(PGresult *res, struct kai_queue *q, size_t n, struct kai_err *err)
{
	struct kai_db_row row = {res, 0, false};
	size_t i;
	int r, c;

	for (i = 0; i < n; i++) {
		row.row = (int)i;
		kai_queue_init(&q[i]);
		q[i].name = kai_db_get_dup(&row, 0);
		q[i].parent = kai_db_get_dupnull(&row, 1);
		q[i].priority = kai_db_get_i64(&row, 2);
		for (r = 0, c = 3; r < KAI_QUEUE_NRES; r++) {
			q[i].res[r].quota = kai_db_get_i64(&row, c++);
			q[i].res[r].limit = kai_db_get_i64(&row, c++);
			q[i].res[r].weight = kai_db_get_i64(&row, c++);
		}
		q[i].preempt_min_runtime_s = kai_db_get_i64(&row, 12);
		q[i].reclaim_min_runtime_s = kai_db_get_i64(&row, 13);
		q[i].order = kai_db_get_i64(&row, 14);
		q[i].active_jobs = kai_db_get_u32(&row, 15);
		if (!PQgetisnull(res, (int)i, 16) &&
		    read_types(&q[i], PQgetvalue(res, (int)i, 16), err) != 0)
			return KAI_EDB;
	}
	if (row.bad)
		return kai_err_set(err, KAI_EDB,
		    "could not load the queues: malformed value");
	return 0;
}

/* Reads the queues on the current connection (in or out of a transaction). */
static int
load_now(struct kai_db *db, struct kai_queue **qs, size_t *n,
    struct kai_err *err)
{
	struct kai_queue *q;
	PGresult *res;
	size_t m;
	int r;

	res = kai_db_exec(db, load_sql, NULL, PGRES_TUPLES_OK,
	    "could not load the queues", err);
	if (res == NULL)
		return kai_db_errcode(err);
	m = (size_t)PQntuples(res);
	q = kai_xcalloc(m + 1, sizeof(*q));
	if ((r = read_rows(res, q, m, err)) != 0) {
		kai_queues_free(q, m);
		PQclear(res);
		return r;
	}
	PQclear(res);
	*qs = q;
	*n = m;
	return 0;
}

int
kai_db_queues_load(struct kai_db *db, struct kai_queue **qs, size_t *n,
    struct kai_err *err)
{
	int r;

	*qs = NULL;
	*n = 0;
	if ((r = kai_db_ready(db, err)) != 0)
		return r;
	return load_now(db, qs, n, err);
}

/*
 * The transaction and the tree
 */

static int
begin_locked(struct kai_db *db, const char *what, struct kai_err *err)
{
	int r;

	if ((r = kai_db_ready(db, err)) != 0 ||
	    (r = kai_db_cmd(db, "BEGIN", NULL, what, err)) != 0)
		return r;
	/* Readers go on; another writer waits for our COMMIT. */
	if ((r = kai_db_cmd(db, "LOCK TABLE queues IN SHARE ROW EXCLUSIVE MODE",
	    NULL, what, err)) != 0)
		kai_db_rollback(db);
	return r;
}

static int
commit(struct kai_db *db, int r, const char *what, struct kai_err *err)
{
	if (r == 0)
		r = kai_db_cmd(db, "COMMIT", NULL, what, err);
	if (r != 0)
		kai_db_rollback(db);
	return r;
}

/* Loads the tree, with room for extra queues. */
static int
tree_load(struct kai_db *db, struct qtree *t, size_t extra,
    struct kai_err *err)
{
	struct kai_queue *q;
	size_t i, n;
	int r;

	memset(t, 0, sizeof(*t));
	kai_map_init(&t->ix, NULL);
	if ((r = load_now(db, &q, &n, err)) != 0)
		return r;
	t->q = kai_xreallocarray(q, n + extra + 1, sizeof(*q));
	t->st = kai_xcalloc(n + extra + 1, sizeof(*t->st));
	t->n = n;
	for (i = 0; i < n; i++)
		kai_map_put(&t->ix, t->q[i].name, (void *)(uintptr_t)(i + 1));
	return 0;
}

static void
tree_fini(struct qtree *t)
{
	kai_queues_free(t->q, t->n);
	free(t->st);
	kai_map_fini(&t->ix);
}

/* The index of name, or -1. */
static long
tree_find(const struct qtree *t, const char *name)
{
	uintptr_t v = name != NULL ? (uintptr_t)kai_map_get(&t->ix, name) : 0;

	return v == 0 ? -1 : (long)(v - 1);
}

/* src's GPU types onto dst, a type of the same name replaced. */
static int
types_merge(struct kai_queue *dst, const struct kai_queue *src,
    struct kai_err *err)
{
	size_t i;
	int r = 0;

	for (i = 0; i < src->ntypes && r == 0; i++) {
		const struct kai_queue_gtype *x = &src->types[i];

		r = kai_queue_type_set(dst, x->type, x->quota, x->limit,
		    x->weight, err);
	}
	return r;
}

/* Copies the fields of src that set names onto dst. */
static int
merge(struct kai_queue *dst, const struct kai_queue *src, uint32_t set,
    struct kai_err *err)
{
	int r;

	if (set & KAI_QUEUE_SET_PARENT) {
		free(dst->parent);
		dst->parent = src->parent != NULL ? kai_xstrdup(src->parent)
						  : NULL;
	}
	if (set & KAI_QUEUE_SET_PRIORITY)
		dst->priority = src->priority;
	for (r = 0; r < KAI_QUEUE_NRES; r++) {
		if (set & KAI_QUEUE_SET_QUOTA(r))
			dst->res[r].quota = src->res[r].quota;
		if (set & KAI_QUEUE_SET_LIMIT(r))
			dst->res[r].limit = src->res[r].limit;
		if (set & KAI_QUEUE_SET_WEIGHT(r))
			dst->res[r].weight = src->res[r].weight;
	}
	if (set & KAI_QUEUE_SET_PREEMPT_MIN)
		dst->preempt_min_runtime_s = src->preempt_min_runtime_s;
	if (set & KAI_QUEUE_SET_RECLAIM_MIN)
		dst->reclaim_min_runtime_s = src->reclaim_min_runtime_s;
	if (set & KAI_QUEUE_SET_GPU_TYPES)
		kai_queue_types_clear(dst);
	if (set & (KAI_QUEUE_SET_GPU_TYPES | KAI_QUEUE_SET_GPU_TYPE_EACH))
		return types_merge(dst, src, err);
	return 0;
}

static bool
same_settings(const struct kai_queue *a, const struct kai_queue *b)
{
	int r;

	if ((a->parent == NULL) != (b->parent == NULL) ||
	    (a->parent != NULL && strcmp(a->parent, b->parent) != 0) ||
	    a->priority != b->priority ||
	    a->preempt_min_runtime_s != b->preempt_min_runtime_s ||
	    a->reclaim_min_runtime_s != b->reclaim_min_runtime_s ||
	    !kai_queue_types_equal(a, b))
		return false;
	for (r = 0; r < KAI_QUEUE_NRES; r++)
		if (a->res[r].quota != b->res[r].quota ||
		    a->res[r].limit != b->res[r].limit ||
		    a->res[r].weight != b->res[r].weight)
			return false;
	return true;
}

/* Applies one change to the tree in memory; sets *res. */
static int
tree_change(struct qtree *t, const struct kai_queue_change *c,
    enum kai_queue_result *res, struct kai_err *err)
{
	long i = tree_find(t, c->q.name);
	struct kai_queue nq;

	if (c->op == KAI_QUEUE_UPDATE && i < 0)
		return kai_err_set(err, KAI_ENOENT,
		    "queue \"%s\" does not exist", c->q.name);
	if (c->op == KAI_QUEUE_CREATE && i >= 0)
		return kai_err_set(err, KAI_EEXIST,
		    "queue \"%s\" already exists", c->q.name);
	if (i >= 0 && c->op == KAI_QUEUE_UPDATE) {
		kai_queue_copy(&nq, &t->q[i]);
	} else {
		kai_queue_init(&nq);
		nq.name = kai_xstrdup(c->q.name);
	}
	if (merge(&nq, &c->q, c->set, err) != 0) {
		kai_queue_fini(&nq);
		return KAI_EINVAL;
	}
	if (i < 0) {
		t->q[t->n] = nq;
		t->st[t->n] = Q_NEW;
		kai_map_put(&t->ix, nq.name, (void *)(uintptr_t)(t->n + 1));
		t->n++;
		*res = KAI_QUEUE_CREATED;
		return kai_queue_check(&nq, err);
	}
	nq.order = t->q[i].order;
	nq.active_jobs = t->q[i].active_jobs;
	*res = same_settings(&nq, &t->q[i]) ? KAI_QUEUE_UNCHANGED
					    : KAI_QUEUE_UPDATED;
	kai_queue_fini(&t->q[i]);
	t->q[i] = nq;
	if (*res == KAI_QUEUE_UPDATED)
		t->st[i] = Q_UPDATED;
	return kai_queue_check(&nq, err);
}

/* The children of queue i, "a, b, c" (at most a few), into buf. */
static void
children_text(const struct qtree *t, size_t i, char *buf, size_t size)
{
	size_t k, shown = 0, len = 0;

	buf[0] = '\0';
	for (k = 0; k < t->n && len + 1 < size; k++) {
		const char *p = t->q[k].parent;

		if (p == NULL || strcmp(p, t->q[i].name) != 0)
			continue;
		if (shown == 4) {
			(void)snprintf(buf + len, size - len, ", ...");
			break;
		}
		(void)snprintf(buf + len, size - len, "%s%s",
		    shown > 0 ? ", " : "", t->q[k].name);
		len = strlen(buf);
		shown++;
	}
}

/* Parents exist, the parent links end at the top, parents hold no jobs. */
static int
tree_check(const struct qtree *t, struct kai_err *err)
{
	size_t i, steps;
	long p;

	if (t->n > KAI_QUEUE_MAX)
		return kai_err_set(err, KAI_EINVAL,
		    "too many queues: %zu, at most %d", t->n, KAI_QUEUE_MAX);
	for (i = 0, steps = 0; i < t->n; i++)
		steps += t->q[i].ntypes;
	if (steps > KAI_QUEUE_TYPE_SETTINGS_MAX)
		return kai_err_set(err, KAI_EINVAL,
		    "too many GPU type settings: %zu in all queues, at most %d",
		    steps, KAI_QUEUE_TYPE_SETTINGS_MAX);
	for (i = 0; i < t->n; i++) {
		if (t->q[i].parent == NULL)
			continue;
		if ((p = tree_find(t, t->q[i].parent)) < 0)
			return kai_err_set(err, KAI_ENOENT,
			    "parent queue \"%s\" of queue \"%s\" does not "
			    "exist", t->q[i].parent, t->q[i].name);
		if (t->q[p].active_jobs > 0)
			return kai_err_set(err, KAI_EINVAL,
			    "queue \"%s\" has %u active job%s and cannot have "
			    "child queues: only leaf queues hold jobs",
			    t->q[p].name, t->q[p].active_jobs,
			    t->q[p].active_jobs == 1 ? "" : "s");
		/* Up from i: back at i is a cycle through i (a queue that
		 * only leads into one is reported with a queue on it). */
		for (steps = 0, p = tree_find(t, t->q[i].parent);
		     p >= 0 && p != (long)i && steps < t->n; steps++)
			p = tree_find(t, t->q[p].parent);
		if (p == (long)i)
			return kai_err_set(err, KAI_EINVAL,
			    "queue \"%s\" would be its own ancestor: parents "
			    "may not form a cycle", t->q[i].name);
	}
	return 0;
}

/* $1 name, then the columns of COLS (formatted values are copied: a
 * parameter keeps the pointer it is given). */
static void
queue_params(struct kai_db_params *p, const struct kai_queue *q)
{
	char v[32];
	int r;

	(void)kai_db_param_str(p, q->name);
	(void)kai_db_param_str(p, q->parent);
	(void)kai_db_param_i64(p, q->priority);
	for (r = 0; r < KAI_QUEUE_NRES; r++) {
		int64_t unit = r == KAI_QUEUE_GPU ? KAI_QUEUE_GPU_UNIT : 1;

		if (unit == 1) {
			(void)kai_db_param_i64(p, q->res[r].quota);
			(void)kai_db_param_i64(p, q->res[r].limit);
		} else {
			kai_queue_fmt_units(q->res[r].quota, unit, v, sizeof(v));
			(void)kai_db_param_own(p, kai_xstrdup(v));
			kai_queue_fmt_units(q->res[r].limit, unit, v, sizeof(v));
			(void)kai_db_param_own(p, kai_xstrdup(v));
		}
		kai_queue_fmt_units(q->res[r].weight, KAI_QUEUE_WEIGHT_UNIT, v,
		    sizeof(v));
		(void)kai_db_param_own(p, kai_xstrdup(v));
	}
	(void)kai_db_param_i64(p, q->preempt_min_runtime_s);
	(void)kai_db_param_i64(p, q->reclaim_min_runtime_s);
}

/* q's GPU types replace the ones stored (a revived queue's too). */
static int
write_types(struct kai_db *db, const struct kai_queue *q, const char *what,
    struct kai_err *err)
{
	struct kai_db_params p;
	char v[32];
	size_t i;
	int r;

	kai_db_params_init(&p);
	(void)kai_db_param_str(&p, q->name);
	r = kai_db_cmd(db, types_del_sql, &p, what, err);
	kai_db_params_fini(&p);
	for (i = 0; i < q->ntypes && r == 0; i++) {
		const struct kai_queue_gtype *x = &q->types[i];

		kai_db_params_init(&p);
		(void)kai_db_param_str(&p, q->name);
		(void)kai_db_param_str(&p, x->type);
		kai_queue_fmt_units(x->quota, KAI_QUEUE_GPU_UNIT, v, sizeof(v));
		(void)kai_db_param_own(&p, kai_xstrdup(v));
		kai_queue_fmt_units(x->limit, KAI_QUEUE_GPU_UNIT, v, sizeof(v));
		(void)kai_db_param_own(&p, kai_xstrdup(v));
		kai_queue_fmt_units(x->weight, KAI_QUEUE_WEIGHT_UNIT, v,
		    sizeof(v));
		(void)kai_db_param_own(&p, kai_xstrdup(v));
		r = kai_db_cmd(db, types_ins_sql, &p, what, err);
		kai_db_params_fini(&p);
	}
	return r;
}

static int
write_one(struct kai_db *db, const struct kai_queue *q, bool insert,
    struct kai_err *err)
{
	struct kai_db_params p;
	char what[128];
	int r;

	(void)snprintf(what, sizeof(what), "could not %s queue \"%s\"",
	    insert ? "create" : "update", q->name);
	kai_db_params_init(&p);
	queue_params(&p, q);
	r = kai_db_cmd(db, insert ? insert_sql : update_sql, &p, what, err);
	kai_db_params_fini(&p);
	if (r == 0)
		r = write_types(db, q, what, err);
	return r;
}

/*
 * New queues go in parents first (a new queue's parent may be new too),
 * so the foreign key holds at every statement and creation order follows
 * the tree; then the updated ones, whose new parents now exist.
 */
static int
tree_write(struct kai_db *db, struct qtree *t, struct kai_err *err)
{
	size_t i, left = 0;
	long p;
	int r;

	for (i = 0; i < t->n; i++)
		left += t->st[i] == Q_NEW;
	while (left > 0) {
		for (i = 0; i < t->n; i++) {
			if (t->st[i] != Q_NEW)
				continue;
			p = tree_find(t, t->q[i].parent);
			if (p >= 0 && t->st[p] == Q_NEW)
				continue;
			if ((r = write_one(db, &t->q[i], true, err)) != 0)
				return r;
			t->st[i] = Q_KEPT;
			left--;
		}
	}
	for (i = 0; i < t->n; i++)
		if (t->st[i] == Q_UPDATED &&
		    (r = write_one(db, &t->q[i], false, err)) != 0)
			return r;
	return 0;
}

static int
apply_locked(struct kai_db *db, const struct kai_queue_change *c, size_t n,
    enum kai_queue_result *res, struct kai_err *err)
{
	struct kai_map seen;
	struct qtree t;
	size_t i;
	int r;

	if ((r = tree_load(db, &t, n, err)) != 0)
		return r;
	kai_map_init(&seen, NULL);
	for (i = 0; i < n && r == 0; i++) {
		if ((r = kai_queue_name_check(c[i].q.name, err)) != 0)
			break;
		if (kai_map_get(&seen, c[i].q.name) != NULL) {
			r = kai_err_set(err, KAI_EINVAL,
			    "queue \"%s\" is listed twice", c[i].q.name);
			break;
		}
		kai_map_put(&seen, c[i].q.name, (void *)1);
		r = tree_change(&t, &c[i], &res[i], err);
	}
	if (r == 0)
		r = tree_check(&t, err);
	if (r == 0)
		r = tree_write(db, &t, err);
	kai_map_fini(&seen);
	tree_fini(&t);
	return r;
}

int
kai_db_queue_apply(struct kai_db *db, const struct kai_queue_change *c,
    size_t n, enum kai_queue_result *res, struct kai_err *err)
{
	static const char what[] = "could not change the queues";
	size_t i;
	int r;

	if (n == 0 || n > KAI_QUEUE_MAX)
		return kai_err_set(err, KAI_EINVAL,
		    "a change names 1 to %d queues, not %zu", KAI_QUEUE_MAX,
		    n);
	for (i = 0; i < n; i++)
		if ((unsigned)c[i].op >= KAI_QUEUE_NOPS)
			return kai_err_set(err, KAI_EINVAL,
			    "unrecognized queue operation %u",
			    (unsigned)c[i].op);
	if ((r = begin_locked(db, what, err)) != 0)
		return r;
	r = apply_locked(db, c, n, res, err);
	return commit(db, r, what, err);
}

/*
 * Deleting
 */

static int
delete_check(const struct qtree *t, const struct kai_map *del, const char *name,
    struct kai_err *err)
{
	long i = tree_find(t, name);
	char kids[256];
	size_t k;

	if (i < 0)
		return kai_err_set(err, KAI_ENOENT,
		    "queue \"%s\" does not exist", name);
	if (t->q[i].active_jobs > 0)
		return kai_err_set(err, KAI_EINVAL,
		    "queue \"%s\" has %u active job%s: it can be deleted once "
		    "they have finished", name, t->q[i].active_jobs,
		    t->q[i].active_jobs == 1 ? "" : "s");
	for (k = 0; k < t->n; k++) {
		if (t->q[k].parent == NULL ||
		    strcmp(t->q[k].parent, name) != 0 ||
		    kai_map_get(del, t->q[k].name) != NULL)
			continue;
		children_text(t, (size_t)i, kids, sizeof(kids));
		return kai_err_set(err, KAI_EINVAL,
		    "queue \"%s\" has child queues (%s): delete them first",
		    name, kids);
	}
	return 0;
}

static int
delete_locked(struct kai_db *db, char *const *names, size_t n,
    struct kai_err *err)
{
	struct kai_db_params p;
	struct kai_map del;
	struct kai_buf b;
	struct qtree t;
	size_t i;
	int r;

	if ((r = tree_load(db, &t, 0, err)) != 0)
		return r;
	kai_map_init(&del, NULL);
	for (i = 0; i < n; i++)
		kai_map_put(&del, names[i], (void *)1);
	for (i = 0; i < n && r == 0; i++)
		r = delete_check(&t, &del, names[i], err);
	kai_buf_init(&b, KAI_DB_TEXT_MAX);
	if (r == 0 && kai_db_array_text(&b, (const char *const *)names, n) != 0)
		r = kai_err_set(err, KAI_EINVAL, "too many queues");
	if (r == 0) {
		kai_db_params_init(&p);
		(void)kai_db_param_own(&p, kai_buf_detach(&b, NULL));
		/* Detached, so a revived queue starts at the top. */
		r = kai_db_cmd(db, "UPDATE queues SET deleted = true, "
		    "parent = NULL WHERE name = ANY ($1::text[])", &p,
		    "could not delete the queues", err);
		kai_db_params_fini(&p);
	}
	kai_buf_fini(&b);
	kai_map_fini(&del);
	tree_fini(&t);
	return r;
}

int
kai_db_queue_delete(struct kai_db *db, char *const *names, size_t n,
    struct kai_err *err)
{
	static const char what[] = "could not delete the queues";
	int r;

	if (n == 0 || n > KAI_QUEUE_MAX)
		return kai_err_set(err, KAI_EINVAL,
		    "a deletion names 1 to %d queues, not %zu", KAI_QUEUE_MAX,
		    n);
	if ((r = begin_locked(db, what, err)) != 0)
		return r;
	r = delete_locked(db, names, n, err);
	return commit(db, r, what, err);
}
