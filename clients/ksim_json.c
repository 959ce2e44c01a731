/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * ksim_json.c: a cycle's result as JSON, printed by hand.
 *
 * The document is small and its shape fixed (FORMAT.md), so it is
 * written directly, keys always in the same order, two-space indented,
 * one task per line.  Strings are escaped for JSON: quote, backslash and
 * every control character; other bytes pass through (UTF-8 stays UTF-8).
 * GPU amounts are exact decimals of micro-GPUs (kai_sched_fmt_gpu): 0.5,
 * not 0.500000.
 */
#include "config.h"

#include <inttypes.h>

#include "ksim.h"

/* s escaped for a JSON string, without the quotes. */
static void
json_esc(FILE *f, const char *s)
{
	const unsigned char *p;

	for (p = (const unsigned char *)s; *p != '\0'; p++) {
		if (*p == '"' || *p == '\\')
			(void)fprintf(f, "\\%c", *p);
		else if (*p == '\n')
			(void)fputs("\\n", f);
		else if (*p == '\t')
			(void)fputs("\\t", f);
		else if (*p < 0x20)
			(void)fprintf(f, "\\u%04x", *p);
		else
			(void)fputc(*p, f);
	}
}

static void
json_str(FILE *f, const char *s)
{
	if (s == NULL) {
		(void)fputs("null", f);
		return;
	}
	(void)fputc('"', f);
	json_esc(f, s);
	(void)fputc('"', f);
}

void
ksim_gpu(FILE *f, int64_t ugpu)
{
	char buf[32];

	kai_sched_fmt_gpu(ugpu, buf, sizeof(buf));
	(void)fputs(buf, f);
}

static void
fair_shares(FILE *f, const struct scenario *sc,
    const struct kai_sched_result *r)
{
	size_t q;

	(void)fputs("  \"fair_share\": {", f);
	for (q = 0; q < sc->snap.nqueues; q++) {
		const int64_t *fs = r->queues[q].fair_share;

		(void)fputs(q > 0 ? ",\n    " : "\n    ", f);
		json_str(f, sc->queues[q].name);
		(void)fputs(": {\"gpu\": ", f);
		ksim_gpu(f, fs[KAI_SCHED_GPU]);
		(void)fprintf(f,
		    ", \"cpu\": %" PRId64 ", \"memory\": %" PRId64 "}",
		    fs[KAI_SCHED_CPU], fs[KAI_SCHED_MEM]);
	}
	(void)fputs(sc->snap.nqueues > 0 ? "\n  },\n" : "},\n", f);
}

/* Per queue and GPU type figures, only when the cycle has types. */
static void
gpu_types(FILE *f, const struct scenario *sc,
    const struct kai_sched_result *r)
{
	size_t q, t;

	if (r->ntypes == 0)
		return;
	(void)fputs("  \"gpu_types\": {", f);
	for (q = 0; q < sc->snap.nqueues; q++) {
		(void)fputs(q > 0 ? ",\n    " : "\n    ", f);
		json_str(f, sc->queues[q].name);
		(void)fputs(": {", f);
		for (t = 0; t < r->ntypes; t++) {
			const struct kai_sched_type_out *o =
			    &r->qtypes[q * r->ntypes + t];

			(void)fputs(t > 0 ? ", " : "", f);
			json_str(f, r->types[t]);
			(void)fputs(": {\"fair_share\": ", f);
			ksim_gpu(f, o->fair_share);
			(void)fputs(", \"allocated\": ", f);
			ksim_gpu(f, o->allocated);
			(void)fputs(", \"requested\": ", f);
			ksim_gpu(f, o->requested);
			(void)fputc('}', f);
		}
		(void)fputc('}', f);
	}
	(void)fputs(sc->snap.nqueues > 0 ? "\n  },\n" : "},\n", f);
}

static void
task_line(FILE *f, const struct scenario *sc, const char *job, size_t k,
    const struct kai_sched_task_out *t)
{
	uint64_t m = t->gpu_mask;

	(void)fputs("        {\"name\": \"", f);
	json_esc(f, job);
	(void)fprintf(f, "-%zu\", \"state\": \"%s\", \"node\": ", k,
	    kai_sched_task_state_name(t->state));
	json_str(f, t->node >= 0 ? sc->nodes[t->node].name : NULL);
	(void)fputs(", \"gpu_index\": ", f);
	if (t->node < 0 || m == 0) {
		(void)fputs("null", f);
	} else {
		(void)fprintf(f, "[%d", __builtin_ctzll(m));
		for (m &= m - 1; m != 0; m &= m - 1)
			(void)fprintf(f, ", %d", __builtin_ctzll(m));
		(void)fputc(']', f);
	}
	(void)fputs(", \"gpu_fraction\": ", f);
	if (t->gpu_fraction > 0 && t->node >= 0)
		ksim_gpu(f, t->gpu_fraction);
	else
		(void)fputs("null", f);
	(void)fputc('}', f);
}

static void
job(FILE *f, const struct scenario *sc, const struct kai_sched_result *r,
    size_t j)
{
	const struct kai_sched_snap_job *J = &sc->jobs[j];
	const struct kai_sched_job_out *o = &r->jobs[j];
	size_t k;

	(void)fputs("    ", f);
	json_str(f, J->name);
	(void)fprintf(f, ": {\n      \"state\": \"%s\",\n      \"reason\": ",
	    kai_sched_job_state_name(o->state));
	if (o->why.why == KAI_SCHED_WHY_NONE) {
		(void)fputs("null", f);
	} else {
		char why[512];

		json_str(f,
		    kai_sched_why_text(&sc->snap, &o->why, why, sizeof(why)));
	}
	(void)fputs(",\n      \"tasks\": [\n", f);
	for (k = 0; k < J->ntasks; k++) {
		task_line(f, sc, J->name, k, &r->tasks[J->first_task + k]);
		(void)fputs(k + 1 < J->ntasks ? ",\n" : "\n", f);
	}
	(void)fputs("      ]\n    }", f);
}

void
ksim_json(FILE *f, const struct scenario *sc, const struct kai_sched_result *r)
{
	size_t j;

	(void)fputs("{\n  \"name\": ", f);
	json_str(f, sc->name);
	(void)fputs(",\n", f);
	fair_shares(f, sc, r);
	gpu_types(f, sc, r);
	(void)fputs("  \"jobs\": {", f);
	for (j = 0; j < sc->snap.njobs; j++) {
		(void)fputs(j > 0 ? ",\n" : "\n", f);
		job(f, sc, r, j);
	}
	(void)fputs(sc->snap.njobs > 0 ? "\n  }\n}\n" : "}\n}\n", f);
}
