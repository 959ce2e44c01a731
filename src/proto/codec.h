/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * codec.h: the body encoding shared by every message (private to proto).
 *
 * After openssh's sshbuf and munge's m_msg: big-endian u8/u16/u32/u64,
 * signed values as their two's-complement bit pattern, a bool as a u8 that
 * must be 0 or 1, a string as u32 length plus bytes without a NUL
 * (KAI_CODEC_NULL_STR as the length encodes a NULL pointer), an array as a
 * u32 count plus the items.
 *
 * Writers append to a struct kai_buf and return 0 or KAI_EINVAL when the
 * buffer's max or a field limit would be passed; callers roll the buffer
 * back with kai_codec_rollback() so a failed encode leaves no half message.
 *
 * Readers walk a struct kai_codec_rd over borrowed bytes.  Each getter
 * names its field, so every failure is KAI_EPROTO with a message that says
 * which field and why: "truncated field \"script\"", "field \"name\" too
 * long: 300 > 255 bytes", "too many env entries: 5000 > 4096".  Counts
 * are checked against their limit, and against the bytes that are left,
 * before anything is allocated.  On failure a getter leaves its output
 * untouched (a string output stays NULL), so decoders free what they
 * built with the ordinary _fini() functions.
 */
#ifndef KAI_PROTO_CODEC_H
#define KAI_PROTO_CODEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/compiler.h"
#include "base/err.h"

#define KAI_CODEC_NULL_STR UINT32_C(0xffffffff) /* length of a NULL string */

struct kai_codec_rd {
	const uint8_t *p;    /* the body, borrowed */
	size_t len;          /* bytes in p */
	size_t off;          /* next byte to read */
	struct kai_err *err; /* where failures are described; may be NULL */
};

/* Writers. */
int kai_codec_put_u8(struct kai_buf *b, uint8_t v) KAI_MUST_CHECK;
int kai_codec_put_u16(struct kai_buf *b, uint16_t v) KAI_MUST_CHECK;
int kai_codec_put_u32(struct kai_buf *b, uint32_t v) KAI_MUST_CHECK;
int kai_codec_put_u64(struct kai_buf *b, uint64_t v) KAI_MUST_CHECK;
int kai_codec_put_i32(struct kai_buf *b, int32_t v) KAI_MUST_CHECK;
int kai_codec_put_i64(struct kai_buf *b, int64_t v) KAI_MUST_CHECK;
int kai_codec_put_bool(struct kai_buf *b, bool v) KAI_MUST_CHECK;
/* s may be NULL; KAI_EINVAL when strlen(s) > max. */
int
kai_codec_put_str(struct kai_buf *b, const char *s, size_t max) KAI_MUST_CHECK;
/* An array count; KAI_EINVAL when n > max. */
int kai_codec_put_count(struct kai_buf *b, size_t n, size_t max) KAI_MUST_CHECK;
/* n non-NULL strings of at most max_len bytes each, n <= max_n. */
int kai_codec_put_strv(struct kai_buf *b, char *const *v, size_t n,
    size_t max_n, size_t max_len) KAI_MUST_CHECK;
int kai_codec_put_u32v(struct kai_buf *b, const uint32_t *v, size_t n,
    size_t max_n) KAI_MUST_CHECK;
int kai_codec_put_u64v(struct kai_buf *b, const uint64_t *v, size_t n,
    size_t max_n) KAI_MUST_CHECK;
/* Truncates b back to len bytes (what it held before a failed encode). */
void kai_codec_rollback(struct kai_buf *b, size_t len);

/* Readers. */
void kai_codec_rd_init(struct kai_codec_rd *r, const void *p, size_t len,
    struct kai_err *err);
int kai_codec_get_u8(struct kai_codec_rd *r, const char *field,
    uint8_t *v) KAI_MUST_CHECK;
int kai_codec_get_u16(struct kai_codec_rd *r, const char *field,
    uint16_t *v) KAI_MUST_CHECK;
int kai_codec_get_u32(struct kai_codec_rd *r, const char *field,
    uint32_t *v) KAI_MUST_CHECK;
int kai_codec_get_u64(struct kai_codec_rd *r, const char *field,
    uint64_t *v) KAI_MUST_CHECK;
int kai_codec_get_i32(struct kai_codec_rd *r, const char *field,
    int32_t *v) KAI_MUST_CHECK;
int kai_codec_get_i64(struct kai_codec_rd *r, const char *field,
    int64_t *v) KAI_MUST_CHECK;
int kai_codec_get_bool(struct kai_codec_rd *r, const char *field,
    bool *v) KAI_MUST_CHECK;
/*
 * A string of at most max bytes of well-formed UTF-8 without an embedded
 * NUL ("field \"name\" is not valid UTF-8 (byte 0xff at offset 3)").
 * Caller owns *s (NUL-terminated; NULL when the wire says NULL and
 * nullable is true; a NULL on the wire is an error otherwise).
 */
int kai_codec_get_str(struct kai_codec_rd *r, const char *field, size_t max,
    bool nullable, char **s) KAI_MUST_CHECK;
/*
 * The same without the UTF-8 check, for text kaid composes and a client
 * only prints (error messages, which may quote a cut-off value).
 */
int kai_codec_get_text(struct kai_codec_rd *r, const char *field, size_t max,
    bool nullable, char **s) KAI_MUST_CHECK;
/*
 * An array count: refused when over max ("too many <field> entries: n >
 * max") or when n items of at least min_item bytes cannot fit in what is
 * left of the body.  Allocate only after this succeeds.
 */
int kai_codec_get_count(struct kai_codec_rd *r, const char *field, size_t max,
    size_t min_item, size_t *n) KAI_MUST_CHECK;
/* Arrays; caller owns *v (NULL when empty) and, for strv, each string. */
int kai_codec_get_strv(struct kai_codec_rd *r, const char *field, size_t max_n,
    size_t max_len, char ***v, size_t *n) KAI_MUST_CHECK;
int kai_codec_get_u32v(struct kai_codec_rd *r, const char *field, size_t max_n,
    uint32_t **v, size_t *n) KAI_MUST_CHECK;
int kai_codec_get_u64v(struct kai_codec_rd *r, const char *field, size_t max_n,
    uint64_t **v, size_t *n) KAI_MUST_CHECK;
/* KAI_EPROTO when bytes are left after the last field. */
int kai_codec_rd_end(struct kai_codec_rd *r) KAI_MUST_CHECK;

/* Frees n strings and the array; v may be NULL. */
void kai_codec_strv_free(char **v, size_t n);

/*
 * Records: a struct described by a table of its wire fields, in wire
 * order, so that the field order is written down once (and mirrored in
 * PROTOCOL.md) and encoder and decoder cannot drift apart.  On the wire a
 * record is a u32 length then its fields, so that fields can be appended
 * to a record without a version bump: a reader skips the fields it does
 * not know and leaves the ones an older peer did not send at zero.
 */
enum kai_codec_type {
	KAI_CODEC_BOOL, /* bool, as a u8 0 or 1 */
	KAI_CODEC_U32,  /* uint32_t */
	KAI_CODEC_U64,  /* uint64_t */
	KAI_CODEC_I32,  /* int32_t */
	KAI_CODEC_I64,  /* int64_t */
	KAI_CODEC_ENUM, /* a 32-bit enum, as a u32 below max */
	KAI_CODEC_STR,  /* char *, nullable, at most max bytes */
	KAI_CODEC_STRV, /* char ** of non-NULL strings, count at off_n */
	KAI_CODEC_HOLE  /* a tag handed out to a field not merged yet: a u8
			 * 0 written, a u8 read and dropped (no member) */
};

struct kai_codec_field {
	const char *name; /* in error messages */
	enum kai_codec_type type;
	size_t off;   /* offsetof() the member */
	size_t off_n; /* STRV: offsetof() its size_t count */
	size_t max;   /* STR, STRV: bytes per string;
					   ENUM: values are below max */
	size_t max_n; /* STRV: most items */
};

/* Appends rec's fields; KAI_EINVAL past a limit (b not rolled back). */
int kai_codec_put_record(struct kai_buf *b, const struct kai_codec_field *f,
    size_t nf, const void *rec) KAI_MUST_CHECK;
/*
 * A list that may span frames: a u32 count, then records [*first, n) of
 * recs (size bytes apart) while at most max_count are written and the
 * body, counted from b->data + origin, stays within max_body; the first
 * record that does not fit, or that kai_codec_put_record() refuses, ends
 * the list.  Advances *first past the records written.  KAI_EINVAL when
 * not even the count fits (b not rolled back); whether an empty list
 * with records left is an error is the caller's to say.
 */
int kai_codec_put_records(struct kai_buf *b, const struct kai_codec_field *f,
    size_t nf, const void *recs, size_t size, size_t n, size_t *first,
    size_t origin, size_t max_count, size_t max_body) KAI_MUST_CHECK;
/*
 * Decodes a record into rec, which must start zeroed: the fields the
 * record holds, in order; the ones after its end stay zero; bytes after
 * the last field of f are skipped.  On failure the fields decoded so far
 * stay in rec for the struct's _fini().
 */
int kai_codec_get_record(struct kai_codec_rd *r,
    const struct kai_codec_field *f, size_t nf, void *rec) KAI_MUST_CHECK;
/* Bytes of the smallest record a peer may send (a length, no fields). */
#define KAI_CODEC_RECORD_MIN 4

#endif /* KAI_PROTO_CODEC_H */
