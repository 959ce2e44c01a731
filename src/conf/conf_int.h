/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * conf_int.h: what the files of src/conf share and nobody else sees.
 *
 * A setting is one struct kai_conf_entry (conf_table.c): its key path, its
 * type, where it lives in the struct it fills, its default as YAML text,
 * its bounds, its unit and its help.  A type (struct kai_conf_type,
 * conf_types.c) knows how to read a value from the event stream, how to
 * write it back as YAML and how to free it.  The reader (conf_yaml.c)
 * walks libyaml events against a table and knows nothing of any one key.
 *
 * Defaults go through the very parser that reads the file, so what
 * `kaid --help-config` prints as a default is what a file holding that
 * text would give, by construction.
 */
#ifndef KAI_CONF_CONF_INT_H
#define KAI_CONF_CONF_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <yaml.h>

#include "base/buf.h"
#include "base/err.h"

#define KAI_CONF_FILE_MAX  ((size_t)1024 * 1024) /* bytes of a file */
#define KAI_CONF_DEPTH_MAX 16		 /* nested mappings and sequences */
#define KAI_CONF_KEY_MAX   128		 /* bytes of a dotted key path */
#define KAI_CONF_SHOW_MAX  48		 /* bytes of a value quoted in errors */

enum kai_conf_type_id {
	KAI_CONF_STRING,	/* non-empty text, max = length limit */
	KAI_CONF_PATH,		/* absolute file name */
	KAI_CONF_ADDRESS,	/* "host:port", "[v6]:port" */
	KAI_CONF_DNSLABEL,	/* a Kubernetes name (RFC 1123 label) */
	KAI_CONF_DNSNAME,	/* a DNS domain: labels joined by '.' */
	KAI_CONF_ENUM,		/* one of choices; stored as its index */
	KAI_CONF_BOOL,		/* true or false */
	KAI_CONF_DURATION,	/* "500ms", "2s", "1m", "1h"; bare = ms */
	KAI_CONF_SIZE,		/* "100K", "1G"; bare = the key's unit */
	KAI_CONF_UIDS,		/* sequence of uids or user names */
	KAI_CONF_PARTITIONS,	/* sequence of partition mappings */
	KAI_CONF_PARTNAME,	/* [a-z0-9_-]{1,63} */
	KAI_CONF_TIMELIMIT,	/* Slurm time limit or UNLIMITED */
	KAI_CONF_NUMBER,	/* a decimal number (double) in [min, max] */
	KAI_CONF_INTEGER,	/* a whole number (int64_t) in [min, max] */
	KAI_CONF_GRACE,		/* a duration or "never" (-1) */
	KAI_CONF_PHASES,	/* sequence of distinct enum choices */
	KAI_CONF_FILESYSTEMS,	/* sequence of filesystem mappings */
	KAI_CONF_LABELS,	/* mapping of label keys to values */
	KAI_CONF_TOLERATIONS,	/* sequence of toleration mappings */
	KAI_CONF_NAMES,		/* sequence of Kubernetes object names */
	KAI_CONF_QOSLIST,	/* sequence of QoS mappings */
	KAI_CONF_ACCOUNTS,	/* sequence of account mappings */
	KAI_CONF_NTYPES
};

#define KAI_CONF_REQUIRED 0x1	/* the file must set it */
#define KAI_CONF_SECRET	  0x2	/* masked in dumps, wiped when freed */
#define KAI_CONF_ITEM	  0x4	/* a field of each element of a list */
#define KAI_CONF_OFF	  0x8	/* an address that may also be "off" */
#define KAI_CONF_LIST	  0x10	/* addresses joined by "," (a:1,b:2) */
#define KAI_CONF_AUTO	  0x20	/* an address that may also be "auto" */

struct kai_conf_entry {
	const char *key;		/* dotted path: "scheduler.interval" */
	enum kai_conf_type_id type;
	size_t offset;			/* into the struct being filled */
	size_t count_offset;		/* lists: their size_t count */
	const char *def;		/* default as YAML; NULL = unset */
	int64_t min;			/* bounds in the key's unit */
	int64_t max;			/* (strings: length; lists: count) */
	int64_t scale;			/* sizes: bytes per unit (1, 1 MiB) */
	const char *unit;		/* "ms", "MiB", "bytes" for help */
	const char *const *choices;	/* enums: NULL-terminated */
	unsigned flags;			/* KAI_CONF_* above */
	const char *help;		/* one line for --help-config */
};

struct kai_conf_table {
	const struct kai_conf_entry *entries;
	size_t n;			/* at most KAI_CONF_ENTRIES_MAX */
};

/* The keys of one mapping seen so far: bit i stands for entry i. */
#define KAI_CONF_ENTRIES_MAX 256
struct kai_conf_seen {
	uint64_t bits[KAI_CONF_ENTRIES_MAX / 64];
};

static inline bool
kai_conf_seen_has(const struct kai_conf_seen *s, size_t i)
{
	return (s->bits[i / 64] & (UINT64_C(1) << (i % 64))) != 0;
}

static inline void
kai_conf_seen_add(struct kai_conf_seen *s, size_t i)
{
	s->bits[i / 64] |= UINT64_C(1) << (i % 64);
}

/* kaid.yaml and kai.yaml (conf_table.c). */
extern const struct kai_conf_table kai_conf_daemon_table;
extern const struct kai_conf_table kai_conf_client_table;

/*
 * A reader over one YAML text.  It owns the current event and refuses, as
 * events arrive, what no kaibatch file may hold: anchors and aliases
 * (exponential expansion), tags, nesting past KAI_CONF_DEPTH_MAX.
 */
struct kai_conf_rd {
	yaml_parser_t parser;
	yaml_event_t ev;		/* the current event, if have */
	bool have;
	int depth;			/* open mappings and sequences */
	const char *path;		/* for messages */
	const struct kai_conf_table *table;
	struct kai_err *err;
};

struct kai_conf_type {
	const char *name;		/* "duration", for help */
	bool block;			/* dumped as a block, from a new line */
	/*
	 * Reads the value that starts at the next event into base + the
	 * entry's offset, releasing what was there.  shown is the key as
	 * messages print it ("partitions[1].max_time").
	 */
	int (*parse)(struct kai_conf_rd *rd, const struct kai_conf_entry *e,
	    const char *shown, void *base);
	/*
	 * Appends the value as YAML, without a final newline; block lists
	 * start on a new line with indent spaces before each item.
	 */
	int (*dump)(struct kai_buf *b, const struct kai_conf_entry *e,
	    const void *base, int indent);
	/* Releases what the field holds and zeroes it; NULL = nothing held. */
	void (*release)(const struct kai_conf_entry *e, void *base);
};

/* conf_types.c: indexed by enum kai_conf_type_id. */
extern const struct kai_conf_type kai_conf_types[KAI_CONF_NTYPES];

/* conf_yaml.c */
void kai_conf_rd_init(struct kai_conf_rd *rd, const char *path,
    const char *text, size_t len, const struct kai_conf_table *table,
    struct kai_err *err);
void kai_conf_rd_fini(struct kai_conf_rd *rd);
/* Moves to the next event; KAI_ECONFIG with "path:line:col: ..." */
int kai_conf_rd_next(struct kai_conf_rd *rd) KAI_MUST_CHECK;
/* Sets err to "path:line:col: <fmt>" at the current event. */
int kai_conf_rd_fail(struct kai_conf_rd *rd, const char *fmt, ...)
    KAI_PRINTF(2, 3);
/* Same, at an earlier mark. */
int kai_conf_rd_fail_at(struct kai_conf_rd *rd, yaml_mark_t mark,
    const char *fmt, ...) KAI_PRINTF(3, 4);
/* The current event's start mark. */
yaml_mark_t kai_conf_rd_mark(const struct kai_conf_rd *rd);
/*
 * Refuses the current event as the value of shown: "invalid value "abc"
 * for "scheduler.interval": expected a duration", or for a mapping or a
 * list "invalid value for "listen": expected host:port, found a list".
 * Long values are cut and control characters replaced; values of secret
 * keys are never shown.
 */
int kai_conf_rd_bad(struct kai_conf_rd *rd, const struct kai_conf_entry *e,
    const char *shown, const char *fmt, ...) KAI_PRINTF(4, 5);
/*
 * Fills base from the mapping whose MAPPING_START is the current event,
 * with the entries of rd->table in scope: entries under prefix (a table
 * key like "partitions", "" for the top) that carry KAI_CONF_ITEM when
 * item is true.  shown is the prefix as messages print it
 * ("partitions[1]").  Adds each key found to *seen, sections included.
 */
int kai_conf_rd_mapping(struct kai_conf_rd *rd, const char *prefix,
    const char *shown, bool item, void *base, struct kai_conf_seen *seen)
    KAI_MUST_CHECK;
/*
 * Fails with "missing required key" for the first required entry in scope
 * that seen lacks; at mark, or with no position when mark is NULL.
 */
int kai_conf_rd_required(struct kai_conf_rd *rd, const char *prefix,
    const char *shown, bool item, const struct kai_conf_seen *seen,
    const yaml_mark_t *mark) KAI_MUST_CHECK;
/*
 * Reads a whole stream, which must hold at most one document whose top
 * level is a mapping, into base, then checks the required keys.  An empty
 * stream leaves base as it is.
 */
int kai_conf_rd_document(struct kai_conf_rd *rd, void *base) KAI_MUST_CHECK;
/*
 * Sets every entry in scope (see kai_conf_rd_mapping) that has a default
 * by parsing the table's default text; entries without one keep what base
 * holds.  A default that does not parse is a bug in the table and aborts.
 */
void kai_conf_defaults(const struct kai_conf_table *t, const char *prefix,
    bool item, void *base);
/* Releases every field in scope. */
void kai_conf_release(const struct kai_conf_table *t, const char *prefix,
    bool item, void *base);
/*
 * Whether e is in the scope (prefix, item): under prefix ("" = anywhere)
 * and an element field exactly when item is true.
 */
bool kai_conf_in_scope(const struct kai_conf_entry *e, const char *prefix,
    bool item);
/* The entry with exactly this key, or NULL. */
const struct kai_conf_entry *kai_conf_entry_find(
    const struct kai_conf_table *t, const char *key);

/* The text of the current event, a scalar. */
static inline const char *
kai_conf_text(const struct kai_conf_rd *rd)
{
	return (const char *)rd->ev.data.scalar.value;
}

/* Fields of the struct a table fills, by entry. */
#define FIELD(base, e, type) ((type *)(void *)((char *)(base) + (e)->offset))
#define CFIELD(base, e, type)                                              \
	((const type *)(const void *)((const char *)(base) + (e)->offset))
#define COUNT(base, e) ((size_t *)(void *)((char *)(base) + (e)->count_offset))

/*
 * conf_types.c: checks that the current event is a scalar free of control
 * characters; else fails naming shown and "expected <expect>".
 */
int kai_conf_scalar_here(struct kai_conf_rd *rd,
    const struct kai_conf_entry *e, const char *shown, const char *expect)
    KAI_MUST_CHECK;
/* conf_lists.c: the list types of kai_conf_types[]. */
int kai_conf_parse_uids(struct kai_conf_rd *rd,
    const struct kai_conf_entry *e, const char *shown, void *base);
int kai_conf_dump_uids(struct kai_buf *b, const struct kai_conf_entry *e,
    const void *base, int indent);
void kai_conf_release_uids(const struct kai_conf_entry *e, void *base);
int kai_conf_parse_partitions(struct kai_conf_rd *rd,
    const struct kai_conf_entry *e, const char *shown, void *base);
int kai_conf_dump_partitions(struct kai_buf *b,
    const struct kai_conf_entry *e, const void *base, int indent);
void kai_conf_release_partitions(const struct kai_conf_entry *e, void *base);

/* conf_pools.c: the types of filesystems and node pools. */
int kai_conf_parse_filesystems(struct kai_conf_rd *rd,
    const struct kai_conf_entry *e, const char *shown, void *base);
int kai_conf_dump_filesystems(struct kai_buf *b,
    const struct kai_conf_entry *e, const void *base, int indent);
void kai_conf_release_filesystems(const struct kai_conf_entry *e, void *base);
int kai_conf_parse_labels(struct kai_conf_rd *rd,
    const struct kai_conf_entry *e, const char *shown, void *base);
int kai_conf_dump_labels(struct kai_buf *b, const struct kai_conf_entry *e,
    const void *base, int indent);
void kai_conf_release_labels(const struct kai_conf_entry *e, void *base);
int kai_conf_parse_tolerations(struct kai_conf_rd *rd,
    const struct kai_conf_entry *e, const char *shown, void *base);
int kai_conf_dump_tolerations(struct kai_buf *b,
    const struct kai_conf_entry *e, const void *base, int indent);
void kai_conf_release_tolerations(const struct kai_conf_entry *e, void *base);
int kai_conf_parse_names(struct kai_conf_rd *rd,
    const struct kai_conf_entry *e, const char *shown, void *base);
int kai_conf_dump_names(struct kai_buf *b, const struct kai_conf_entry *e,
    const void *base, int indent);
void kai_conf_release_names(const struct kai_conf_entry *e, void *base);

/* conf_qos.c: the types of qos: and accounts:. */
int kai_conf_parse_qos(struct kai_conf_rd *rd, const struct kai_conf_entry *e,
    const char *shown, void *base);
int kai_conf_dump_qos(struct kai_buf *b, const struct kai_conf_entry *e,
    const void *base, int indent);
void kai_conf_release_qos(const struct kai_conf_entry *e, void *base);
int kai_conf_parse_accounts(struct kai_conf_rd *rd,
    const struct kai_conf_entry *e, const char *shown, void *base);
int kai_conf_dump_accounts(struct kai_buf *b, const struct kai_conf_entry *e,
    const void *base, int indent);
void kai_conf_release_accounts(const struct kai_conf_entry *e, void *base);

/* conf_types.c: the current scalar as a duration (checked clean first). */
int kai_conf_duration_here(struct kai_conf_rd *rd,
    const struct kai_conf_entry *e, const char *shown, void *base)
    KAI_MUST_CHECK;
/* conf_sched.c: the types of the scheduling: section. */
int kai_conf_parse_number(struct kai_conf_rd *rd,
    const struct kai_conf_entry *e, const char *shown, void *base);
int kai_conf_dump_number(struct kai_buf *b, const struct kai_conf_entry *e,
    const void *base, int indent);
int kai_conf_parse_integer(struct kai_conf_rd *rd,
    const struct kai_conf_entry *e, const char *shown, void *base);
int kai_conf_dump_integer(struct kai_buf *b, const struct kai_conf_entry *e,
    const void *base, int indent);
int kai_conf_parse_grace(struct kai_conf_rd *rd,
    const struct kai_conf_entry *e, const char *shown, void *base);
int kai_conf_dump_grace(struct kai_buf *b, const struct kai_conf_entry *e,
    const void *base, int indent);
int kai_conf_parse_phases(struct kai_conf_rd *rd,
    const struct kai_conf_entry *e, const char *shown, void *base);
int kai_conf_dump_phases(struct kai_buf *b, const struct kai_conf_entry *e,
    const void *base, int indent);
void kai_conf_release_phases(const struct kai_conf_entry *e, void *base);

/* conf_types.c: plain-scalar nulls ("", "~", "null") for nullable keys. */
bool kai_conf_is_null(const yaml_event_t *ev);
/* Appends s as a double-quoted YAML string. */
int kai_conf_dump_quoted(struct kai_buf *b, const char *s) KAI_MUST_CHECK;
/* Copies conninfo with its password replaced by "***".  Caller owns it. */
char *kai_conf_mask_conninfo(const char *conninfo);

#endif /* KAI_CONF_CONF_INT_H */
