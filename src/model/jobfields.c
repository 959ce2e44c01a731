/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * jobfields.c: kai_jobfields[], the rows of jobfields.def as data, and
 * the compile-time proof that every row's member exists in the structs
 * its macro names, with the size its wire type says.  A row whose type
 * disagrees with job.h fails the build here rather than corrupting a
 * record at run time.
 */
#include "config.h"

#include "model/jobfields.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"

#define SPEC(m) offsetof(struct kai_jobspec, m)
#define INFO(m) offsetof(struct kai_jobinfo, m)

/* The size a member of each wire type has. */
#define JF_SIZE_BOOL sizeof(bool)
#define JF_SIZE_U32  sizeof(uint32_t)
#define JF_SIZE_U64  sizeof(uint64_t)
#define JF_SIZE_I32  sizeof(int32_t)
#define JF_SIZE_I64  sizeof(int64_t)
#define JF_SIZE_ENUM sizeof(uint32_t)
#define JF_SIZE_STR  sizeof(char *)

#define SIZE_OK(s, m, t)                                                   \
	_Static_assert(sizeof(((s *)NULL)->m) == JF_SIZE_##t,              \
	    #s "." #m " is not of its wire type " #t);
#define KAI_JF_SPEC(m, t, max, st, it, col, json, label, fl)              \
	SIZE_OK(struct kai_jobspec, m, t)
#define KAI_JF_INFO(m, t, max, st, it, col, json, label, fl)              \
	SIZE_OK(struct kai_jobinfo, m, t)
#define KAI_JF_BOTH(m, t, max, st, it, col, json, label, fl)              \
	SIZE_OK(struct kai_jobspec, m, t) SIZE_OK(struct kai_jobinfo, m, t)
#include "model/jobfields.def"

#define ROW(m, t, so, io, st, it, col, json, label, fl)                    \
	{#m, KAI_JF_T_##t, {so, io}, {st, it}, col, json, label, fl},
#define KAI_JF_SPEC(m, t, max, st, it, col, json, label, fl)              \
	ROW(m, t, SPEC(m), KAI_JF_ABSENT, st, 0, col, json, label, fl)
#define KAI_JF_INFO(m, t, max, st, it, col, json, label, fl)              \
	ROW(m, t, KAI_JF_ABSENT, INFO(m), 0, it, col, json, label, fl)
#define KAI_JF_BOTH(m, t, max, st, it, col, json, label, fl)              \
	ROW(m, t, SPEC(m), INFO(m), st, it, col, json, label, fl)
const struct kai_jobfield kai_jobfields[] = {
#include "model/jobfields.def"
};
const size_t kai_njobfields = sizeof(kai_jobfields) / sizeof(kai_jobfields[0]);

int64_t
kai_jf_get_int(const struct kai_jobfield *f, enum kai_jf_rec r,
    const void *rec)
{
	const char *p = (const char *)rec + f->off[r];
	uint64_t u64;
	uint32_t u32;
	int64_t i64;
	int32_t i32;
	bool b;

	switch (f->type) {
	case KAI_JF_T_BOOL:
		memcpy(&b, p, sizeof(b));
		return b ? 1 : 0;
	case KAI_JF_T_U32:
	case KAI_JF_T_ENUM:
		memcpy(&u32, p, sizeof(u32));
		return u32;
	case KAI_JF_T_U64:
		memcpy(&u64, p, sizeof(u64));
		return (int64_t)u64;
	case KAI_JF_T_I32:
		memcpy(&i32, p, sizeof(i32));
		return i32;
	case KAI_JF_T_I64:
		memcpy(&i64, p, sizeof(i64));
		return i64;
	case KAI_JF_T_STR:
		break;
	}
	KAI_ASSERT(!"kai_jf_get_int of a string field");
	return 0;
}

void
kai_jf_set_int(const struct kai_jobfield *f, enum kai_jf_rec r, void *rec,
    int64_t v)
{
	char *p = (char *)rec + f->off[r];
	uint64_t u64 = (uint64_t)v;
	uint32_t u32 = (uint32_t)v;
	int32_t i32 = (int32_t)v;
	bool b = v != 0;

	switch (f->type) {
	case KAI_JF_T_BOOL:
		memcpy(p, &b, sizeof(b));
		return;
	case KAI_JF_T_U32:
	case KAI_JF_T_ENUM:
		memcpy(p, &u32, sizeof(u32));
		return;
	case KAI_JF_T_U64:
		memcpy(p, &u64, sizeof(u64));
		return;
	case KAI_JF_T_I32:
		memcpy(p, &i32, sizeof(i32));
		return;
	case KAI_JF_T_I64:
		memcpy(p, &v, sizeof(v));
		return;
	case KAI_JF_T_STR:
		break;
	}
	KAI_ASSERT(!"kai_jf_set_int of a string field");
}

char **
kai_jf_str(const struct kai_jobfield *f, enum kai_jf_rec r, void *rec)
{
	KAI_ASSERT(f->type == KAI_JF_T_STR);
	return (char **)(void *)((char *)rec + f->off[r]);
}

const char *
kai_jf_cstr(const struct kai_jobfield *f, enum kai_jf_rec r, const void *rec)
{
	const char *s;

	KAI_ASSERT(f->type == KAI_JF_T_STR);
	memcpy(&s, (const char *)rec + f->off[r], sizeof(s));
	return s;
}

/*
 * A jobinfo's strings are exactly its STR rows, so copying and freeing
 * them from the table keeps both right when a field is added (a copy by
 * hand that missed one shared the pointer and freed it twice).
 */
void
kai_jobinfo_copy(struct kai_jobinfo *d, const struct kai_jobinfo *s)
{
	size_t i;

	*d = *s;
	for (i = 0; i < kai_njobfields; i++) {
		const struct kai_jobfield *f = &kai_jobfields[i];
		const char *v;

		if (f->type != KAI_JF_T_STR || !kai_jf_in(f, KAI_JF_REC_INFO))
			continue;
		v = kai_jf_cstr(f, KAI_JF_REC_INFO, s);
		*kai_jf_str(f, KAI_JF_REC_INFO, d) =
		    v != NULL ? kai_xstrdup(v) : NULL;
	}
}

void
kai_jobinfo_fini(struct kai_jobinfo *ji)
{
	size_t i;

	if (ji == NULL)
		return;
	for (i = 0; i < kai_njobfields; i++) {
		const struct kai_jobfield *f = &kai_jobfields[i];

		if (f->type == KAI_JF_T_STR && kai_jf_in(f, KAI_JF_REC_INFO))
			free(*kai_jf_str(f, KAI_JF_REC_INFO, ji));
	}
	memset(ji, 0, sizeof(*ji));
}
