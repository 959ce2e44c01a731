/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * jobfields.h: the rows of model/jobfields.def as data, for the code that
 * walks the job record at run time (the database columns, --json, kctl
 * show job).  The wire codec expands the .def itself, at compile time.
 *
 * A field is read and written through its offset in struct kai_jobspec
 * or struct kai_jobinfo; KAI_JF_ABSENT says the struct has no such member.
 * Everything here is static and read-only.
 */
#ifndef KAI_MODEL_JOBFIELDS_H
#define KAI_MODEL_JOBFIELDS_H

#include <stddef.h>
#include <stdint.h>

#include "model/job.h"

/* The wire type of a field (KAI_CODEC_* without the prefix). */
enum kai_jf_type {
	KAI_JF_T_BOOL,	/* bool */
	KAI_JF_T_U32,	/* uint32_t */
	KAI_JF_T_U64,	/* uint64_t */
	KAI_JF_T_I32,	/* int32_t */
	KAI_JF_T_I64,	/* int64_t */
	KAI_JF_T_ENUM,	/* enum kai_job_state, 32 bits */
	KAI_JF_T_STR	/* char *, owned by the struct, may be NULL */
};

/* Which struct (and wire record) an offset is into. */
enum kai_jf_rec {
	KAI_JF_REC_SPEC,	/* struct kai_jobspec, SUBMIT */
	KAI_JF_REC_INFO		/* struct kai_jobinfo, jobinfo */
};

#define KAI_JF_ABSENT	  SIZE_MAX /* no such member in that struct */
#define KAI_JF_OMIT_EMPTY 0x1u	   /* --json leaves out NULL and "" */
#define KAI_JF_MODE	  0x2u	   /* KAI_JOB_UMASK_SET | a mode 0-0777,
					    * printed as 4 octal digits;
					    * 0 = not known */

struct kai_jobfield {
	const char *member;	/* the C member, also its name in errors */
	enum kai_jf_type type;
	size_t off[2];		/* by enum kai_jf_rec; KAI_JF_ABSENT */
	uint32_t tag[2];	/* wire tags by enum kai_jf_rec; 0 = none */
	const char *column;	/* jobs column src/db handles; NULL = none */
	const char *json;	/* --json key; NULL = none */
	const char *label;	/* kctl show job Key; NULL = none */
	unsigned flags;		/* KAI_JF_OMIT_EMPTY, KAI_JF_MODE */
};

/* The rows of jobfields.def (the string lists excepted), in its order. */
extern const struct kai_jobfield kai_jobfields[];
extern const size_t kai_njobfields;

/* Whether f is a member of the struct of record rec. */
static inline int
kai_jf_in(const struct kai_jobfield *f, enum kai_jf_rec rec)
{
	return f->off[rec] != KAI_JF_ABSENT;
}

/*
 * The value of a numeric field (BOOL 0/1, unsigned types zero-extended,
 * signed ones sign-extended) in rec, a struct of record r.
 */
int64_t kai_jf_get_int(const struct kai_jobfield *f, enum kai_jf_rec r,
    const void *rec);
/* Stores v, converted to the field's type. */
void kai_jf_set_int(const struct kai_jobfield *f, enum kai_jf_rec r,
    void *rec, int64_t v);
/* The address of a STR field's pointer (owned by rec). */
char **kai_jf_str(const struct kai_jobfield *f, enum kai_jf_rec r, void *rec);
const char *kai_jf_cstr(const struct kai_jobfield *f, enum kai_jf_rec r,
    const void *rec);

/* A deep copy of s into d: every string of the table duplicated. */
void kai_jobinfo_copy(struct kai_jobinfo *d, const struct kai_jobinfo *s);

#endif /* KAI_MODEL_JOBFIELDS_H */
