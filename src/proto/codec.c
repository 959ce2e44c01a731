/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * codec.c: bounded big-endian writers and readers.  See codec.h.
 *
 * The readers are the only code in kaibatch that looks at bytes an
 * unauthenticated peer chose (kaid decodes the frame before it can check
 * the credential over it), so every read checks the bytes left first, and
 * every count is checked against its limit and against the remaining body
 * before the array it sizes is allocated: a 20-byte body cannot make kaid
 * allocate megabytes.
 */
#include "config.h"

#include "proto/codec.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/utf8.h"
#include "base/xmalloc.h"

int
kai_codec_put_u8(struct kai_buf *b, uint8_t v)
{
	return kai_buf_add(b, &v, 1);
}

int
kai_codec_put_u16(struct kai_buf *b, uint16_t v)
{
	uint8_t x[2] = {(uint8_t)(v >> 8), (uint8_t)v};

	return kai_buf_add(b, x, sizeof(x));
}

int
kai_codec_put_u32(struct kai_buf *b, uint32_t v)
{
	uint8_t x[4];
	int i;

	for (i = 0; i < 4; i++)
		x[i] = (uint8_t)(v >> (24 - 8 * i));
	return kai_buf_add(b, x, sizeof(x));
}

int
kai_codec_put_u64(struct kai_buf *b, uint64_t v)
{
	uint8_t x[8];
	int i;

	for (i = 0; i < 8; i++)
		x[i] = (uint8_t)(v >> (56 - 8 * i));
	return kai_buf_add(b, x, sizeof(x));
}

int
kai_codec_put_i32(struct kai_buf *b, int32_t v)
{
	return kai_codec_put_u32(b, (uint32_t)v);
}

int
kai_codec_put_i64(struct kai_buf *b, int64_t v)
{
	return kai_codec_put_u64(b, (uint64_t)v);
}

int
kai_codec_put_bool(struct kai_buf *b, bool v)
{
	return kai_codec_put_u8(b, v ? 1 : 0);
}

int
kai_codec_put_str(struct kai_buf *b, const char *s, size_t max)
{
	size_t n;
	int r;

	if (s == NULL)
		return kai_codec_put_u32(b, KAI_CODEC_NULL_STR);
	n = strlen(s);
	if (n > max || n >= KAI_CODEC_NULL_STR)
		return KAI_EINVAL;
	if ((r = kai_codec_put_u32(b, (uint32_t)n)) != 0)
		return r;
	return kai_buf_add(b, s, n);
}

int
kai_codec_put_count(struct kai_buf *b, size_t n, size_t max)
{
	if (n > max || n > UINT32_MAX)
		return KAI_EINVAL;
	return kai_codec_put_u32(b, (uint32_t)n);
}

int
kai_codec_put_strv(struct kai_buf *b, char *const *v, size_t n, size_t max_n,
    size_t max_len)
{
	size_t i;
	int r;

	if ((r = kai_codec_put_count(b, n, max_n)) != 0)
		return r;
	for (i = 0; i < n; i++) {
		/* A NULL inside a list would decode as a hole callers do
		 * not expect; lists hold strings only. */
		if (v[i] == NULL)
			return KAI_EINVAL;
		if ((r = kai_codec_put_str(b, v[i], max_len)) != 0)
			return r;
	}
	return 0;
}

int
kai_codec_put_u32v(struct kai_buf *b, const uint32_t *v, size_t n, size_t max_n)
{
	size_t i;
	int r;

	if ((r = kai_codec_put_count(b, n, max_n)) != 0)
		return r;
	for (i = 0; i < n; i++)
		if ((r = kai_codec_put_u32(b, v[i])) != 0)
			return r;
	return 0;
}

int
kai_codec_put_u64v(struct kai_buf *b, const uint64_t *v, size_t n, size_t max_n)
{
	size_t i;
	int r;

	if ((r = kai_codec_put_count(b, n, max_n)) != 0)
		return r;
	for (i = 0; i < n; i++)
		if ((r = kai_codec_put_u64(b, v[i])) != 0)
			return r;
	return 0;
}

void
kai_codec_rollback(struct kai_buf *b, size_t len)
{
	KAI_ASSERT(len <= b->len);
	b->len = len;
	if (b->cap > 0) /* an empty buffer points at the shared "" */
		b->data[len] = '\0';
}

void
kai_codec_rd_init(struct kai_codec_rd *r, const void *p, size_t len,
    struct kai_err *err)
{
	r->p = p;
	r->len = p == NULL ? 0 : len;
	r->off = 0;
	r->err = err;
}

/* Takes n bytes or fails naming the field. */
static int
take(struct kai_codec_rd *r, const char *field, size_t n, const uint8_t **out)
{
	if (n > r->len - r->off) {
		kai_err_set(r->err, KAI_EPROTO, "truncated field \"%s\"",
		    field);
		return KAI_EPROTO;
	}
	*out = r->p + r->off;
	r->off += n;
	return 0;
}

static uint64_t
be(const uint8_t *x, int n)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < n; i++)
		v = v << 8 | x[i];
	return v;
}

int
kai_codec_get_u8(struct kai_codec_rd *r, const char *field, uint8_t *v)
{
	const uint8_t *x;
	int rc;

	if ((rc = take(r, field, 1, &x)) != 0)
		return rc;
	*v = x[0];
	return 0;
}

int
kai_codec_get_u16(struct kai_codec_rd *r, const char *field, uint16_t *v)
{
	const uint8_t *x;
	int rc;

	if ((rc = take(r, field, 2, &x)) != 0)
		return rc;
	*v = (uint16_t)be(x, 2);
	return 0;
}

int
kai_codec_get_u32(struct kai_codec_rd *r, const char *field, uint32_t *v)
{
	const uint8_t *x;
	int rc;

	if ((rc = take(r, field, 4, &x)) != 0)
		return rc;
	*v = (uint32_t)be(x, 4);
	return 0;
}

int
kai_codec_get_u64(struct kai_codec_rd *r, const char *field, uint64_t *v)
{
	const uint8_t *x;
	int rc;

	if ((rc = take(r, field, 8, &x)) != 0)
		return rc;
	*v = be(x, 8);
	return 0;
}

int
kai_codec_get_i32(struct kai_codec_rd *r, const char *field, int32_t *v)
{
	uint32_t u;
	int rc;

	if ((rc = kai_codec_get_u32(r, field, &u)) != 0)
		return rc;
	/* Two's complement back to signed without implementation-defined
	 * conversion of an out-of-range unsigned value. */
	*v = u <= INT32_MAX ? (int32_t)u : -(int32_t)(UINT32_MAX - u) - 1;
	return 0;
}

int
kai_codec_get_i64(struct kai_codec_rd *r, const char *field, int64_t *v)
{
	uint64_t u;
	int rc;

	if ((rc = kai_codec_get_u64(r, field, &u)) != 0)
		return rc;
	*v = u <= INT64_MAX ? (int64_t)u : -(int64_t)(UINT64_MAX - u) - 1;
	return 0;
}

int
kai_codec_get_bool(struct kai_codec_rd *r, const char *field, bool *v)
{
	uint8_t u;
	int rc;

	if ((rc = kai_codec_get_u8(r, field, &u)) != 0)
		return rc;
	if (u > 1)
		return kai_err_set(r->err, KAI_EPROTO,
		    "invalid value %u for field \"%s\": must be 0 or 1", u,
		    field);
	*v = u == 1;
	return 0;
}

/*
 * A string; utf8 also refuses bytes that are not well-formed UTF-8, which
 * the database (a UTF8 one) would refuse later, in a commit shared with
 * other requests.
 */
static int
get_str(struct kai_codec_rd *r, const char *field, size_t max, bool nullable,
    bool utf8, char **s)
{
	size_t bad;

	const uint8_t *x;
	uint32_t n;
	int rc;

	if ((rc = kai_codec_get_u32(r, field, &n)) != 0)
		return rc;
	if (n == KAI_CODEC_NULL_STR) {
		if (!nullable)
			return kai_err_set(r->err, KAI_EPROTO,
			    "field \"%s\" is null", field);
		*s = NULL;
		return 0;
	}
	if (n > max)
		return kai_err_set(r->err, KAI_EPROTO,
		    "field \"%s\" too long: %u > %zu bytes", field, n, max);
	if ((rc = take(r, field, n, &x)) != 0)
		return rc;
	if (memchr(x, '\0', n) != NULL)
		return kai_err_set(r->err, KAI_EPROTO,
		    "field \"%s\" contains a NUL byte", field);
	if (utf8 && (bad = kai_utf8_invalid_at(x, n)) < n)
		return kai_err_set(r->err, KAI_EPROTO,
		    "field \"%s\" is not valid UTF-8 (byte 0x%02x at offset "
		    "%zu)", field, x[bad], bad);
	/* n is known and NUL-free: no strndup (it scans again) */
	*s = kai_xmalloc((size_t)n + 1);
	memcpy(*s, x, n);
	(*s)[n] = '\0';
	return 0;
}

int
kai_codec_get_str(struct kai_codec_rd *r, const char *field, size_t max,
    bool nullable, char **s)
{
	return get_str(r, field, max, nullable, true, s);
}

int
kai_codec_get_text(struct kai_codec_rd *r, const char *field, size_t max,
    bool nullable, char **s)
{
	return get_str(r, field, max, nullable, false, s);
}

int
kai_codec_get_count(struct kai_codec_rd *r, const char *field, size_t max,
    size_t min_item, size_t *n)
{
	uint32_t c;
	int rc;

	if ((rc = kai_codec_get_u32(r, field, &c)) != 0)
		return rc;
	if (c > max)
		return kai_err_set(r->err, KAI_EPROTO,
		    "too many %s entries: %u > %zu", field, c, max);
	if (min_item > 0 && c > (r->len - r->off) / min_item)
		return kai_err_set(r->err, KAI_EPROTO,
		    "truncated field \"%s\": %u entries need at least %zu "
		    "bytes, %zu left",
		    field, c, (size_t)c * min_item, r->len - r->off);
	*n = c;
	return 0;
}

void
kai_codec_strv_free(char **v, size_t n)
{
	size_t i;

	if (v == NULL)
		return;
	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

int
kai_codec_get_strv(struct kai_codec_rd *r, const char *field, size_t max_n,
    size_t max_len, char ***v, size_t *n)
{
	char **a = NULL;
	size_t c = 0, i;
	int rc;

	if ((rc = kai_codec_get_count(r, field, max_n, 4, &c)) != 0)
		return rc;
	if (c > 0)
		a = kai_xcalloc(c, sizeof(*a));
	for (i = 0; i < c; i++) {
		rc = kai_codec_get_str(r, field, max_len, false, &a[i]);
		if (rc != 0) {
			kai_codec_strv_free(a, i);
			return rc;
		}
	}
	*v = a;
	*n = c;
	return 0;
}

int
kai_codec_get_u32v(struct kai_codec_rd *r, const char *field, size_t max_n,
    uint32_t **v, size_t *n)
{
	uint32_t *a = NULL;
	size_t c = 0, i;
	int rc;

	if ((rc = kai_codec_get_count(r, field, max_n, 4, &c)) != 0)
		return rc;
	if (c > 0)
		a = kai_xcalloc(c, sizeof(*a));
	/* Cannot fail: get_count checked that 4 * c bytes are left. */
	for (i = 0; i < c; i++)
		if ((rc = kai_codec_get_u32(r, field, &a[i])) != 0)
			break;
	if (rc != 0) {
		free(a);
		return rc;
	}
	*v = a;
	*n = c;
	return 0;
}

int
kai_codec_get_u64v(struct kai_codec_rd *r, const char *field, size_t max_n,
    uint64_t **v, size_t *n)
{
	uint64_t *a = NULL;
	size_t c = 0, i;
	int rc;

	if ((rc = kai_codec_get_count(r, field, max_n, 8, &c)) != 0)
		return rc;
	if (c > 0)
		a = kai_xcalloc(c, sizeof(*a));
	for (i = 0; i < c; i++)
		if ((rc = kai_codec_get_u64(r, field, &a[i])) != 0)
			break;
	if (rc != 0) {
		free(a);
		return rc;
	}
	*v = a;
	*n = c;
	return 0;
}

int
kai_codec_rd_end(struct kai_codec_rd *r)
{
	if (r->off != r->len)
		return kai_err_set(r->err, KAI_EPROTO,
		    "trailing bytes after the last field: %zu",
		    r->len - r->off);
	return 0;
}

/*
 * Records.  Members are reached by offset and copied with memcpy(), which
 * is well-defined whatever the member's type, so one loop serves every
 * struct.  Users of KAI_CODEC_ENUM assert that their enum is 32 bits.
 */
static int
put_field(struct kai_buf *b, const struct kai_codec_field *f, const char *rec)
{
	const char *m = rec + f->off;
	uint32_t u32;
	uint64_t u64;
	char *s, **v;
	size_t n;
	bool t;

	switch (f->type) {
	case KAI_CODEC_BOOL:
		memcpy(&t, m, sizeof(t));
		return kai_codec_put_bool(b, t);
	case KAI_CODEC_U32:
	case KAI_CODEC_I32:
	case KAI_CODEC_ENUM:
		memcpy(&u32, m, sizeof(u32));
		if (f->type == KAI_CODEC_ENUM && u32 >= f->max)
			return KAI_EINVAL;
		return kai_codec_put_u32(b, u32);
	case KAI_CODEC_U64:
	case KAI_CODEC_I64:
		memcpy(&u64, m, sizeof(u64));
		return kai_codec_put_u64(b, u64);
	case KAI_CODEC_STR:
		memcpy(&s, m, sizeof(s));
		return kai_codec_put_str(b, s, f->max);
	case KAI_CODEC_STRV:
		memcpy(&v, m, sizeof(v));
		memcpy(&n, rec + f->off_n, sizeof(n));
		if (n > 0 && v == NULL)
			return KAI_EINVAL;
		return kai_codec_put_strv(b, v, n, f->max_n, f->max);
	case KAI_CODEC_HOLE:
		return kai_codec_put_bool(b, false);
	}
	return KAI_EINVAL;
}

/* Writes v big-endian over the 4 bytes at b->data + at. */
static void
patch_u32(struct kai_buf *b, size_t at, uint32_t v)
{
	uint8_t *x = (uint8_t *)b->data + at;

	x[0] = (uint8_t)(v >> 24);
	x[1] = (uint8_t)(v >> 16);
	x[2] = (uint8_t)(v >> 8);
	x[3] = (uint8_t)v;
}

/*
 * A record is a u32 length, then its fields: the length is what lets a
 * reader skip the fields a newer peer appended and stop early on the
 * record of an older one (PROTOCOL.md "Evolution").
 */
int
kai_codec_put_record(struct kai_buf *b, const struct kai_codec_field *f,
    size_t nf, const void *rec)
{
	size_t at = b->len, i;
	int r;

	if ((r = kai_codec_put_u32(b, 0)) != 0)
		return r;
	for (i = 0; i < nf; i++)
		if ((r = put_field(b, &f[i], rec)) != 0)
			return r;
	if (b->len - at - 4 > UINT32_MAX)
		return KAI_EINVAL;
	patch_u32(b, at, (uint32_t)(b->len - at - 4));
	return 0;
}

int
kai_codec_put_records(struct kai_buf *b, const struct kai_codec_field *f,
    size_t nf, const void *recs, size_t size, size_t n, size_t *first,
    size_t origin, size_t max_count, size_t max_body)
{
	size_t at = b->len, before, i = *first;
	uint32_t count = 0;

	if (kai_codec_put_u32(b, 0) != 0 || b->len - origin > max_body)
		return KAI_EINVAL;
	for (; i < n && count < max_count; i++, count++) {
		before = b->len;
		if (kai_codec_put_record(b, f, nf,
		    (const char *)recs + i * size) != 0 ||
		    b->len - origin > max_body) {
			kai_codec_rollback(b, before);
			break;
		}
	}
	/* The count, over its placeholder, big-endian as put_u32 writes. */
	patch_u32(b, at, count);
	*first = i;
	return 0;
}

static int
get_field(struct kai_codec_rd *r, const struct kai_codec_field *f, char *rec)
{
	char *m = rec + f->off, *s, **v;
	uint32_t u32;
	uint64_t u64;
	size_t n;
	bool t;
	int rc;

	switch (f->type) {
	case KAI_CODEC_BOOL:
		if ((rc = kai_codec_get_bool(r, f->name, &t)) == 0)
			memcpy(m, &t, sizeof(t));
		return rc;
	case KAI_CODEC_U32:
	case KAI_CODEC_I32:
	case KAI_CODEC_ENUM:
		if ((rc = kai_codec_get_u32(r, f->name, &u32)) != 0)
			return rc;
		if (f->type == KAI_CODEC_ENUM && u32 >= f->max)
			return kai_err_set(r->err, KAI_EPROTO,
			    "invalid value %u for field \"%s\"", u32, f->name);
		memcpy(m, &u32, sizeof(u32));
		return 0;
	case KAI_CODEC_U64:
	case KAI_CODEC_I64:
		if ((rc = kai_codec_get_u64(r, f->name, &u64)) == 0)
			memcpy(m, &u64, sizeof(u64));
		return rc;
	case KAI_CODEC_STR:
		if ((rc = kai_codec_get_str(r, f->name, f->max, true, &s)) == 0)
			memcpy(m, &s, sizeof(s));
		return rc;
	case KAI_CODEC_STRV:
		if ((rc = kai_codec_get_strv(r, f->name, f->max_n, f->max, &v,
			 &n)) != 0)
			return rc;
		memcpy(m, &v, sizeof(v));
		memcpy(rec + f->off_n, &n, sizeof(n));
		return 0;
	case KAI_CODEC_HOLE:
		return kai_codec_get_bool(r, "reserved", &t);
	}
	return kai_err_set(r->err, KAI_EINTERNAL, "field \"%s\" has no type",
	    f->name);
}

/*
 * The fields are read from a reader bounded by the record's length: a
 * field cut by that bound is truncated (named), a record that ends
 * between two fields leaves the rest as they were (zero: an older peer
 * never sent them), and bytes after the last known field are a newer
 * peer's fields, skipped.
 */
int
kai_codec_get_record(struct kai_codec_rd *r, const struct kai_codec_field *f,
    size_t nf, void *rec)
{
	struct kai_codec_rd in;
	uint32_t len;
	size_t i;
	int rc;

	if ((rc = kai_codec_get_u32(r, "record length", &len)) != 0)
		return rc;
	if (len > r->len - r->off)
		return kai_err_set(r->err, KAI_EPROTO,
		    "truncated record: %u bytes announced, %zu left", len,
		    r->len - r->off);
	kai_codec_rd_init(&in, r->p + r->off, len, r->err);
	for (i = 0; i < nf && in.off < in.len; i++)
		if ((rc = get_field(&in, &f[i], rec)) != 0)
			return rc;
	r->off += len;
	return 0;
}

