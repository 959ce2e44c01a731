/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * submit_opts.h: ksubmit's option table and what the options mean.
 *
 * One table serves the command line and the #SBATCH / #KSUB directives,
 * so a directive accepts exactly what the command line accepts, with the
 * same spelling rules (getopt_long: "--opt=v", "--opt v", "-x v", "-xv",
 * unambiguous long prefixes).  The table also lists sbatch options that
 * kaibatch cannot honour on Kubernetes: they are accepted with one short
 * warning (--mail-type, --constraint, --exclusive, ...) or refused with a
 * clear error when ignoring them would change what the job does (--array,
 * --dependency, --begin, --wait).  Listing them keeps prefix matching the
 * same as sbatch's: "--tasks" is --tasks-per-node and "--cpus" is
 * ambiguous, as users' scripts expect.
 *
 * Everything here is pure: the caller supplies the working directory,
 * and getopt's global state is the only state touched.
 */
#ifndef KAI_CLIENTS_SUBMIT_OPTS_H
#define KAI_CLIENTS_SUBMIT_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "cliopt.h"
#include "model/job.h"

extern const struct cliopt submit_table[];
extern const size_t submit_table_len;

/* How --mem was given: they are mutually exclusive, as in sbatch. */
enum submit_mem {
	SUBMIT_MEM_NONE = 0,
	SUBMIT_MEM_NODE, /* --mem: per node */
	SUBMIT_MEM_CPU,  /* --mem-per-cpu */
	SUBMIT_MEM_GPU   /* --mem-per-gpu */
};

/* Where an option came from; a later source overrides an earlier one. */
enum submit_pass {
	SUBMIT_PASS_SCRIPT = 1, /* #SBATCH / #KSUB directives */
	SUBMIT_PASS_CLI = 2     /* the command line */
};

#define SUBMIT_UNSET (-1)

struct submit_opts {
	char *name;              /* -J */
	char *queue;             /* -p / -q */
	char *account;           /* -A */
	char *output;            /* -o, kept as written */
	char *error;             /* -e, kept as written */
	char *chdir;             /* -D, made absolute against cwd */
	char *export;            /* --export, as written; NULL = ALL */
	char *image;             /* --image */
	char *wrap;              /* --wrap (command line only) */
	int64_t time_limit_s;    /* KAI_TIME_UNSET or the parsed limit */
	int64_t ntasks;          /* -n; SUBMIT_UNSET */
	int64_t nodes;           /* -N (the minimum of a range); SUBMIT_UNSET */
	int64_t ntasks_per_node; /* SUBMIT_UNSET */
	int64_t cpus_per_task;   /* SUBMIT_UNSET */
	enum submit_mem mem_kind;
	uint64_t mem_mb;       /* value of the --mem* option in MiB */
	int mem_pass;          /* pass that set mem_kind */
	int64_t gpus_per_task; /* --gpus-per-task; SUBMIT_UNSET */
	int64_t gpus_per_node; /* --gres=gpu[:type]:N, --gpus-per-node */
	int64_t gpus;          /* -G/--gpus: for the whole job */
	bool hold;             /* -H */
	bool parsable;         /* --parsable */
	bool quiet;            /* -Q: no warnings */
	bool help;             /* -h */
	bool version;          /* -V */
	unsigned char *seen;   /* per table entry: ignored option seen */
	char *gpu_type;        /* last GPU type named, for the warning */
};

void submit_opts_init(struct submit_opts *o);
void submit_opts_fini(struct submit_opts *o);

/*
 * Applies one option (key from submit_table, arg as given) from the given
 * pass.  cwd is the submit directory (for -D).  KAI_EINVAL with err naming
 * the option and value: "invalid time limit \"1-2-3\"", "option \"--array\"
 * is not supported by kaibatch".
 */
int submit_opts_set(struct submit_opts *o, int key, const char *arg,
    const char *cwd, int pass, struct kai_err *err) KAI_MUST_CHECK;

/*
 * Parses argv[1..argc) with the table.  With in_order, parsing stops at
 * the first operand and *first_operand is set to its index (argc when
 * none); otherwise an operand is an error ("invalid directive \"x\": not
 * an option"), as sbatch treats a stray word in an #SBATCH line.
 * lines[i], when lines is not NULL, is the script line argv[i] came from,
 * and every error is prefixed with "<source>:<line>: ".
 */
int submit_opts_parse(struct submit_opts *o, int argc, char **argv,
    const int *lines, const char *source, const char *cwd, int pass,
    int *first_operand, struct kai_err *err) KAI_MUST_CHECK;

/*
 * Fills the request fields of js (name, queue, account, patterns, workdir,
 * image, counts, memory, GPUs, time, hold) from o, turning Slurm's
 * per-node requests into kaibatch's per-task ones.  Does not touch
 * script, argv or env.  KAI_EINVAL when the combination is impossible.
 */
int submit_opts_to_spec(const struct submit_opts *o, const char *cwd,
    struct kai_jobspec *js, struct kai_err *err) KAI_MUST_CHECK;

/*
 * The warnings due for the ignored options seen so far, one line each,
 * in table order ("option \"--mail-type\" is ignored: kaibatch sends no
 * mail").  fn is called once per warning.
 */
void submit_opts_warnings(const struct submit_opts *o,
    void (*fn)(const char *msg, void *ctx), void *ctx);

#endif /* KAI_CLIENTS_SUBMIT_OPTS_H */
