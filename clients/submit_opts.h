/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * submit_opts.h: ksubmit's options, where they come from, and what they
 * ask for.
 *
 * One table (submit_table.c) lists every option, in three parts:
 *
 *  1. sbatch's own options, exactly sbatch 22.05's long names and short
 *     letters, so that "#SBATCH" lines parse as sbatch parses them --
 *     unambiguous prefixes included ("--tasks" is --tasks-per-node,
 *     "--cpus" is ambiguous).  Each is honoured, parsed but refused at
 *     submission because kaid cannot honour it yet (SOPT_LATER: --begin,
 *     --input), accepted with one warning and dropped because a
 *     Kubernetes cluster gives it no meaning (SOPT_IGNORE: --mail-type,
 *     --constraint, ...), or always refused (SOPT_REFUSE: --uid, ...).
 *  2. kaibatch's own options (SOPT_KAI: --image, --gpu-fraction, ...),
 *     for "#KSUB" lines and the command line only, so that they never
 *     change how an #SBATCH line is read.
 *  3. Options of the command line alone (SOPT_CLI: --parse-only, --json).
 *
 * Options come from three sources, applied in this order so that the
 * last value wins: the script's directives, the SBATCH_* environment
 * variables, the command line (sbatch(1): command line > environment >
 * script).  --mem, --mem-per-cpu and --mem-per-gpu follow Slurm's own
 * rule (src/common/slurm_opt.c): two of them from the script and the
 * command line together are an error; one of those beats any from the
 * environment; two from the environment alone are an error.
 *
 * Everything here is pure: the working directory, the environment and
 * the clock reading come in as arguments, and getopt's global state is
 * the only state touched.
 */
#ifndef KAI_CLIENTS_SUBMIT_OPTS_H
#define KAI_CLIENTS_SUBMIT_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "cliopt.h"
#include "model/array.h"
#include "model/dep.h"
#include "model/job.h"
#include "submit_values.h"

/* struct cliopt.flags of the submit_table entries */
#define SOPT_IGNORE 0x01 /* accepted with a warning, then dropped */
#define SOPT_REFUSE 0x02 /* always an error; the note says why */
#define SOPT_LATER  0x04 /* parsed; kaid cannot honour it yet */
#define SOPT_KAI    0x10 /* kaibatch's own: #KSUB and command line */
#define SOPT_CLI    0x20 /* the command line only */

extern const struct cliopt submit_table[];
extern const size_t submit_table_len;        /* everything */
extern const size_t submit_table_script_len; /* sbatch + kaibatch */
extern const size_t submit_table_sbatch_len; /* sbatch's alone */

/* Keys of the long-only options (short ones use their letter). */
enum submit_key {
	K_CPUS_PER_GPU = CLIOPT_LONG,
	K_EXPORT,
	K_GPUS_PER_NODE,
	K_GPUS_PER_TASK,
	K_GRES,
	K_MEM, /* these three in enum submit_mem's order */
	K_MEM_PER_CPU,
	K_MEM_PER_GPU,
	K_NO_REQUEUE,
	K_NTASKS_PER_NODE,
	K_OPEN_MODE,
	K_PARSABLE,
	K_REQUEUE,
	K_SIGNAL,
	K_USAGE,
	K_WRAP,
	K_IMAGE,
	K_QUEUE, /* --queue, kaibatch's old spelling of --partition */
	K_GPU_FRACTION,
	K_GPU_MEMORY,
	K_GPU_DEVICES,
	K_MIN_TASKS,
	K_TOPOLOGY,
	K_TOPOLOGY_PREFERRED,
	K_PRIORITY_CLASS,
	K_PRIORITY,
	K_PREEMPTIBLE,
	K_NO_PREEMPTIBLE,
	K_PARSE_ONLY,
	K_JSON,
	K_KILL_ON_INVALID_DEP,
	K_EXCLUSIVE,
	K_MAIL_TYPE,
	K_MAIL_USER,
	K_OTHER /* ignored and refused options: K_OTHER + n */
};

/* Where an option came from, in the order the sources are applied. */
enum submit_pass {
	SUBMIT_PASS_SCRIPT = 1, /* #SBATCH / #KSUB directives */
	SUBMIT_PASS_ENV = 2,    /* SBATCH_* variables */
	SUBMIT_PASS_CLI = 3     /* the command line */
};

/* The three memory options, which exclude each other. */
enum submit_mem {
	SUBMIT_MEM_NODE = 0, /* --mem */
	SUBMIT_MEM_CPU,      /* --mem-per-cpu */
	SUBMIT_MEM_GPU,      /* --mem-per-gpu */
	SUBMIT_MEM_KINDS
};

struct submit_mem_opt {
	uint64_t mib; /* 0 = all the memory of the node */
	int pass;     /* the source that set it last; 0 = not set */
};

struct submit_opts {
	/* sbatch's, honoured */
	char *name;              /* -J */
	char *partition;         /* -p (a comma list is kept whole) */
	char *account;           /* -A */
	char *output;            /* -o, kept as written */
	char *error;             /* -e, kept as written */
	char *chdir;             /* -D, made absolute against cwd */
	char *export;            /* --export as written; NULL = ALL */
	char *wrap;              /* --wrap (command line only) */
	int64_t time_limit_s;    /* KAI_TIME_UNSET or the parsed limit */
	int64_t nodes_min;       /* -N; SUBMIT_UNSET */
	int64_t nodes_max;       /* -N MIN-MAX; equal to nodes_min for N */
	int64_t ntasks;          /* -n; SUBMIT_UNSET */
	int64_t ntasks_per_node; /* SUBMIT_UNSET */
	int64_t cpus_per_task;   /* -c; SUBMIT_UNSET */
	int64_t cpus_per_gpu;    /* SUBMIT_UNSET */
	struct submit_mem_opt mem[SUBMIT_MEM_KINDS];
	struct submit_gpu gpus_job;  /* -G/--gpus */
	struct submit_gpu gpus_node; /* --gres=gpu, --gpus-per-node */
	struct submit_gpu gpus_task; /* --gpus-per-task */
	bool hold;                   /* -H */
	bool exclusive;              /* --exclusive: whole nodes */
	int requeue;                 /* --requeue 1, --no-requeue 0, -1 */
	char open_mode;              /* 'a', 't', or 0 = not given */
	char *array_spec; /* -a as written; NULL = not an array */
	struct kai_array array; /* read by kaid's parser (model/array.h) */
	char *dep_spec; /* -d as written */
	struct kai_dep dep; /* read by kaid's parser (model/dep.h) */
	bool kill_invalid_dep; /* --kill-on-invalid-dep=yes */
	bool signal_set;       /* --signal given */
	struct submit_signal signal;
	bool wait; /* -W: ksubmit waits for the job to end */
	char *mail_type; /* --mail-type, canonical (model/mail.h); NULL */
	char *mail_user; /* --mail-user; NULL = kaid's default, the user */
	/* sbatch's, parsed but not honoured yet (SOPT_LATER) */
	char *begin;     /* -b as written */
	int64_t begin_t; /* and as unix seconds */
	char *input;     /* -i */
	/* sbatch's, dropped with a warning but reported */
	char *qos; /* -q */
	char *constraint; /* -C as written */
	char *nodelist;	  /* -w as written, or a file's names (ksubmit.c) */
	char *exclude;	  /* -x, likewise */
	/* kaibatch's */
	char *image;             /* --image (honoured) */
	char *gpu_fraction;      /* as written; NULL = not given */
	double gpu_fraction_v;   /* its value */
	uint64_t gpu_memory_mib; /* 0 = not given */
	int64_t gpu_devices;     /* --gpu-devices; SUBMIT_UNSET */
	int64_t min_tasks;       /* SUBMIT_UNSET */
	char *topo_name;         /* from either topology option */
	char *topo_required;     /* --topology level */
	char *topo_preferred;    /* --topology-preferred level */
	char *priority_class;
	int preemptible; /* 1, 0, or -1 = not given */
	/* ksubmit's */
	bool parsable, quiet, help, version, parse_only, json;
	/* bookkeeping */
	unsigned char *seen; /* per table entry: SOPT_IGNORE option seen */
	int64_t now;         /* clock reading for --begin (unix s) */
};

void submit_opts_init(struct submit_opts *o, int64_t now);
void submit_opts_fini(struct submit_opts *o);

/*
 * Applies one option (key from submit_table, arg as given) from the given
 * pass.  cwd is the submit directory (for -D).  KAI_EINVAL with err naming
 * the value and the reason ("invalid time limit \"1-2-3\"").
 */
int submit_opts_set(struct submit_opts *o, int key, const char *arg,
    const char *cwd, int pass, struct kai_err *err) KAI_MUST_CHECK;

/*
 * Parses argv[1..argc) with the first tlen entries of submit_table.  With
 * first_operand, parsing stops at the first operand and its index is
 * stored there (argc when none); otherwise an operand is an error
 * ("invalid directive \"x\": not an option"), as sbatch treats a stray
 * word in an #SBATCH line.  lines[i], when lines is not NULL, is the
 * script line argv[i] came from, and errors get "<source>:<line>: ".
 */
int submit_opts_parse(struct submit_opts *o, size_t tlen, int argc, char **argv,
    const int *lines, const char *source, const char *cwd, int pass,
    int *first_operand, struct kai_err *err) KAI_MUST_CHECK;

struct directives;

/*
 * Applies the arguments of a script's directives (directives.h), each run
 * of arguments from #SBATCH lines with sbatch's options only and each run
 * from #KSUB lines with kaibatch's too, in script order.  Errors are
 * prefixed with "<script>:<line>: ".
 */
int submit_opts_directives(struct submit_opts *o, const struct directives *d,
    const char *cwd, struct kai_err *err) KAI_MUST_CHECK;

/*
 * Applies the SBATCH_* variables of envp (NULL-terminated) that stand for
 * options ksubmit reads, as SUBMIT_PASS_ENV.  Errors are prefixed with
 * the variable's name: "SBATCH_TIMELIMIT: invalid time limit \"x\"".
 */
int submit_opts_env(struct submit_opts *o, char *const *envp, const char *cwd,
    struct kai_err *err) KAI_MUST_CHECK;

/*
 * Settles what depends on all sources together, once they are applied:
 * the memory rule above, options that exclude each other, counts that
 * must agree.  KAI_EINVAL with err on a conflict.
 */
int
submit_opts_finish(struct submit_opts *o, struct kai_err *err) KAI_MUST_CHECK;

/*
 * -w without -N, -n or --ntasks-per-node: as many nodes as listed names,
 * as sbatch gives them (call once -w holds names, a file's read).
 */
void submit_opts_nodelist_nodes(struct submit_opts *o);

/*
 * The options that kaid cannot honour yet, as "--array" labels, in table
 * order; at most max of them into names.  Returns how many there are.
 */
size_t submit_opts_refusals(const struct submit_opts *o, const char **names,
    size_t max);

/*
 * The warnings due for options dropped or not matched, one line each
 * ("option \"--mail-type\" is ignored: kaibatch sends no mail"), with the
 * label of the option concerned.  fn is called once per warning.
 */
void submit_opts_warnings(const struct submit_opts *o,
    void (*fn)(const char *option, const char *msg, void *ctx), void *ctx);

/*
 * Fills the request fields of js (name, queue, account, patterns, workdir,
 * image, counts, memory, GPUs, time, hold) from o, turning Slurm's
 * per-node and per-job requests into kaibatch's per-task ones.  Does not
 * touch script, argv or env.  KAI_EINVAL when the combination cannot be
 * translated ("option \"--mem-per-gpu\" needs a GPU request").
 */
int submit_opts_to_spec(const struct submit_opts *o, const char *cwd,
    struct kai_jobspec *js, struct kai_err *err) KAI_MUST_CHECK;

/* The memory option in force after submit_opts_finish(), or -1. */
int submit_opts_mem_kind(const struct submit_opts *o);

#endif /* KAI_CLIENTS_SUBMIT_OPTS_H */
