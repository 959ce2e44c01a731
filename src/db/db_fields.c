/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * db_fields.c: the jobs columns that model/jobfields.def names.
 *
 * A row of the table with a column is stored and read here, by its type,
 * so that a new job field needs no hand-written SQL: the INSERT of a
 * submission (db_job.c), the read of a job's spec (db_job.c) and the
 * query of kqueue and kacct (db_query.c) each append these columns after
 * their own, in the order of the table, and hand the rest of the row to
 * kai_db_fields_read().  A NULL column reads as 0 or a NULL string.
 */
#include "config.h"

#include "db/db_internal.h"

static bool
stored(const struct kai_jobfield *f, enum kai_jf_rec rec)
{
	return f->column != NULL && kai_jf_in(f, rec);
}

int
kai_db_fields_columns(struct kai_buf *sql, enum kai_jf_rec rec)
{
	size_t i;
	int r = 0;

	for (i = 0; i < kai_njobfields && r == 0; i++)
		if (stored(&kai_jobfields[i], rec))
			r = kai_buf_addf(sql, ", %s", kai_jobfields[i].column);
	return r;
}

int
kai_db_fields_count(enum kai_jf_rec rec)
{
	size_t i;
	int n = 0;

	for (i = 0; i < kai_njobfields; i++)
		n += stored(&kai_jobfields[i], rec);
	return n;
}

void
kai_db_fields_params(struct kai_db_params *p, const struct kai_jobspec *js)
{
	const enum kai_jf_rec rec = KAI_JF_REC_SPEC;
	size_t i;

	for (i = 0; i < kai_njobfields; i++) {
		const struct kai_jobfield *f = &kai_jobfields[i];

		if (!stored(f, rec))
			continue;
		switch (f->type) {
		case KAI_JF_T_STR:
			(void)kai_db_param_str(p, kai_jf_cstr(f, rec, js));
			break;
		case KAI_JF_T_BOOL:
			(void)kai_db_param_bool(p, kai_jf_get_int(f, rec, js));
			break;
		case KAI_JF_T_U32:
		case KAI_JF_T_U64:
		case KAI_JF_T_ENUM:
			(void)kai_db_param_u64(p,
			    (uint64_t)kai_jf_get_int(f, rec, js));
			break;
		case KAI_JF_T_I32:
		case KAI_JF_T_I64:
			(void)kai_db_param_i64(p, kai_jf_get_int(f, rec, js));
			break;
		}
	}
}

int
kai_db_fields_read(struct kai_db_row *r, int col, enum kai_jf_rec rec,
    void *out)
{
	size_t i;

	for (i = 0; i < kai_njobfields; i++) {
		const struct kai_jobfield *f = &kai_jobfields[i];
		bool null;

		if (!stored(f, rec))
			continue;
		null = PQgetisnull(r->res, r->row, col);
		switch (f->type) {
		case KAI_JF_T_STR:
			*kai_jf_str(f, rec, out) = kai_db_get_dupnull(r, col);
			break;
		case KAI_JF_T_BOOL:
			kai_jf_set_int(f, rec, out,
			    !null && kai_db_get_bool(r, col));
			break;
		case KAI_JF_T_U32:
		case KAI_JF_T_ENUM:
			kai_jf_set_int(f, rec, out,
			    null ? 0 : kai_db_get_u32(r, col));
			break;
		case KAI_JF_T_U64:
			kai_jf_set_int(f, rec, out,
			    null ? 0 : (int64_t)kai_db_get_u64(r, col));
			break;
		case KAI_JF_T_I32:
		case KAI_JF_T_I64:
			kai_jf_set_int(f, rec, out,
			    null ? 0 : kai_db_get_i64(r, col));
			break;
		}
		col++;
	}
	return col;
}
