/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * kinfo_layout.h: kinfo's rows, groups and output line (kinfo_layout.c:
 * sinfo's fields, and -o and -O parsed into a layout of them).
 */
#ifndef KAI_CLIENTS_KINFO_LAYOUT_H
#define KAI_CLIENTS_KINFO_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "nodequery.h"

/* One (partition, node) pair that passed the filters. */
struct row {
	const struct kai_partinfo *p;
	const struct kai_nodeinfo *n;
};

/* Rows that print the same, merged. */
struct group {
	const struct row *first;
	char *key;
	char **names; /* node names, borrowed */
	size_t n;
	int64_t gpus, gpus_alloc, cpus, cpus_alloc, cpus_other;
	size_t nalloc, nidle, nother; /* nodes by state, for %F */
};

typedef void field_fn(const struct group *g, char *b, size_t n);

/* A sinfo field: its -o letter, its -O name, its header. */
struct field {
	char c;
	const char *oname;
	const char *header;
	field_fn *fn;
	bool sums; /* summed over a group, not part of its key */
};

/* One piece of the line: a field, or literal text when f == NULL. */
struct seg {
	const struct field *f;
	int width;   /* 0 = natural */
	bool right;  /* '.' */
	bool widest; /* '#': as wide as the widest value */
	char *text;
};

struct layout {
	struct seg *segs;
	size_t n;
};

/* sinfo -o: "%[#][.][width]X" and literal text, appended to l. */
int kinfo_layout_format(const char *fmt, struct layout *l,
    struct kai_err *err);
/* sinfo -O: "NodeList,StateLong:.12,CPUs", 20 wide by default. */
int kinfo_layout_Format(const char *fmt, struct layout *l,
    struct kai_err *err);
void kinfo_layout_free(struct layout *l);

#endif /* KAI_CLIENTS_KINFO_LAYOUT_H */
