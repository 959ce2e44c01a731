/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * submit_table.c: every option ksubmit knows, and what it does with each.
 * See submit_opts.h for the three parts of the table.
 *
 * The sbatch part lists all of sbatch 22.05's batch options, including
 * the ones kaibatch drops or refuses: leaving one out would change which
 * prefixes are ambiguous, and "unrecognized option" is the wrong answer
 * for an option sbatch users write every day.  Within the part, the order
 * decides the order of the candidates in an "is ambiguous" message and of
 * the -h listing: honoured options first.
 */
#include "config.h"

#include "submit_opts.h"

#define IGN(name, key, arg, why)                                               \
	{                                                                      \
		name, key, arg, NULL, NULL, why, SOPT_IGNORE                   \
	}
#define REF(name, key, arg, why)                                               \
	{                                                                      \
		name, key, arg, NULL, NULL, why, SOPT_REFUSE                   \
	}
#define OPT(name, key, arg, meta, help, flags)                                 \
	{                                                                      \
		name, key, arg, meta, help, NULL, flags                        \
	}

/* Reasons printed after "option \"--x\" is ignored: ". */
#define R_NODES  "kaid's scheduler chooses the nodes"
#define R_LAYOUT "Kubernetes lays out tasks inside a node"
#define R_SHARE  "pods share nodes by the resources they request"
#define R_NOTYET "kaibatch does not support it yet"

#define LATER SOPT_LATER
#define KAI   SOPT_KAI

const struct cliopt submit_table[] = {
    /* sbatch's options */
    CLIOPT("account", 'A', CLIOPT_ARG, "ACCOUNT", "charge the job to ACCOUNT"),
    OPT("array", 'a', CLIOPT_ARG, "INDEXES",
	"a job array: 0-15, 1,3,5-7, 0-15:4, 1-100%10", 0),
    OPT("begin", 'b', CLIOPT_ARG, "TIME",
	"start no earlier than TIME (not yet)", LATER),
    CLIOPT("chdir", 'D', CLIOPT_ARG, "DIR",
	"run the script in DIR (default: the current directory)"),
    CLIOPT("cpus-per-task", 'c', CLIOPT_ARG, "N", "CPUs for each task"),
    CLIOPT("cpus-per-gpu", K_CPUS_PER_GPU, CLIOPT_ARG, "N",
	"CPUs for each GPU of a task"),
    OPT("dependency", 'd', CLIOPT_ARG, "TYPE:ID[:ID][,...]",
	"start after other jobs", 0),
    CLIOPT("error", 'e', CLIOPT_ARG, "PATTERN",
	"standard error file (default: the output file)"),
    CLIOPT("exclusive", K_EXCLUSIVE, CLIOPT_OPTARG, NULL,
	"whole nodes: no other job on the job's nodes"),
    CLIOPT("export", K_EXPORT, CLIOPT_ARG, "ALL|NONE|VARS",
	"environment passed to the job (default: ALL)"),
    CLIOPT("gpus", 'G', CLIOPT_ARG, "[TYPE:]N", "GPUs for the whole job"),
    CLIOPT("gpus-per-node", K_GPUS_PER_NODE, CLIOPT_ARG, "[TYPE:]N",
	"GPUs on each node"),
    CLIOPT("gpus-per-task", K_GPUS_PER_TASK, CLIOPT_ARG, "[TYPE:]N",
	"GPUs for each task"),
    CLIOPT("gres", K_GRES, CLIOPT_ARG, "gpu[:TYPE][:N]",
	"generic resources per node; only gpu is known"),
    CLIOPT("help", 'h', CLIOPT_NOARG, NULL, "print this help and exit"),
    CLIOPT("hold", 'H', CLIOPT_NOARG, NULL, "submit the job held"),
    OPT("input", 'i', CLIOPT_ARG, "PATTERN", "standard input file (not yet)",
	LATER),
    CLIOPT("job-name", 'J', CLIOPT_ARG, "NAME",
	"name of the job (default: the script's file name)"),
    CLIOPT("kill-on-invalid-dep", K_KILL_ON_INVALID_DEP, CLIOPT_ARG, "yes|no",
	"cancel the job if its dependency can never be met"),
    CLIOPT("mem", K_MEM, CLIOPT_ARG, "SIZE",
	"memory per node, N[K|M|G|T] (default unit: M)"),
    CLIOPT("mem-per-cpu", K_MEM_PER_CPU, CLIOPT_ARG, "SIZE", "memory per CPU"),
    CLIOPT("mem-per-gpu", K_MEM_PER_GPU, CLIOPT_ARG, "SIZE", "memory per GPU"),
    CLIOPT("no-requeue", K_NO_REQUEUE, CLIOPT_NOARG, NULL,
	"a preempted job ends PREEMPTED instead of waiting again"),
    CLIOPT("nodes", 'N', CLIOPT_ARG, "N[-M]",
	"nodes; without -n, one task per node"),
    CLIOPT("ntasks", 'n', CLIOPT_ARG, "N", "tasks (one pod each)"),
    CLIOPT("ntasks-per-node", K_NTASKS_PER_NODE, CLIOPT_ARG, "N",
	"tasks on each node"),
    CLIOPT("tasks-per-node", K_NTASKS_PER_NODE, CLIOPT_ARG, "N",
	"same as --ntasks-per-node"),
    CLIOPT("mail-type", K_MAIL_TYPE, CLIOPT_ARG, "TYPE[,TYPE...]",
	"mail on BEGIN, END, FAIL, REQUEUE, ALL, TIME_LIMIT[_90|_80|_50], "
	"ARRAY_TASKS or NONE"),
    CLIOPT("mail-user", K_MAIL_USER, CLIOPT_ARG, "ADDRESS",
	"where the mail goes (default: your user name)"),
    CLIOPT("open-mode", K_OPEN_MODE, CLIOPT_ARG, "append|truncate",
	"how output files are opened (default: truncate)"),
    CLIOPT("output", 'o', CLIOPT_ARG, "PATTERN",
	"standard output file (default: slurm-%j.out)"),
    CLIOPT("parsable", K_PARSABLE, CLIOPT_NOARG, NULL, "print only the job id"),
    CLIOPT("partition", 'p', CLIOPT_ARG, "NAME[,NAME...]",
	"partition (queue) of the job; of a list, the first that can run it"),
    CLIOPT("qos", 'q', CLIOPT_ARG, "QOS",
	"quality of service, as kaid.yaml defines them"),
    /*
     * kaibatch's --queue is the partition (queues and partitions are one
     * thing here).  It lost its -q to sbatch's -q, --qos, which scripts
     * use far more (issue 12).
     */
    CLIOPT("queue", K_QUEUE, CLIOPT_ARG, "NAME", "same as --partition"),
    CLIOPT("quiet", 'Q', CLIOPT_NOARG, NULL, "print no warnings"),
    OPT("requeue", K_REQUEUE, CLIOPT_NOARG, NULL,
	"requeue the job when it is preempted (the default)", 0),
    CLIOPT("signal", K_SIGNAL, CLIOPT_ARG, "[B:]SIG[@SECS]",
	"send SIG SECS (default 60) seconds before the time limit"),
    CLIOPT("time", 't', CLIOPT_ARG, "TIME",
	"time limit: M, M:S, H:M:S, D-H, D-H:M, D-H:M:S or UNLIMITED"),
    CLIOPT("usage", K_USAGE, CLIOPT_NOARG, NULL, "same as --help"),
    CLIOPT("verbose", 'v', CLIOPT_NOARG, NULL, "accepted; no effect"),
    CLIOPT("version", 'V', CLIOPT_NOARG, NULL, "print the version and exit"),
    CLIOPT("wait", 'W', CLIOPT_NOARG, NULL,
	"wait for the job to end; exit with its exit code"),
    CLIOPT("wrap", K_WRAP, CLIOPT_ARG, "COMMAND",
	"submit a sh script that runs COMMAND"),

    IGN("acctg-freq", K_OTHER + 0, CLIOPT_ARG, R_NOTYET),
    IGN("bb", K_OTHER + 1, CLIOPT_ARG, R_NOTYET),
    IGN("bbf", K_OTHER + 2, CLIOPT_ARG, R_NOTYET),
    IGN("cluster-constraint", K_OTHER + 3, CLIOPT_ARG, R_NODES),
    IGN("clusters", 'M', CLIOPT_ARG, "kaibatch has one cluster"),
    IGN("comment", K_OTHER + 4, CLIOPT_ARG, R_NOTYET),
    OPT("constraint", 'C', CLIOPT_ARG, "LIST",
	"node features: a100, a100&ib, v100|a100, [a100|h100]", 0),
    IGN("container", K_OTHER + 5, CLIOPT_ARG, "use --image"),
    IGN("contiguous", K_OTHER + 6, CLIOPT_NOARG, R_NODES),
    IGN("core-spec", 'S', CLIOPT_ARG, R_LAYOUT),
    IGN("cores-per-socket", K_OTHER + 7, CLIOPT_ARG, R_LAYOUT),
    IGN("cpu-freq", K_OTHER + 8, CLIOPT_ARG, R_LAYOUT),
    IGN("deadline", K_OTHER + 10, CLIOPT_ARG, R_NOTYET),
    IGN("delay-boot", K_OTHER + 11, CLIOPT_ARG, R_NODES),
    IGN("distribution", 'm', CLIOPT_ARG, R_LAYOUT),
    OPT("exclude", 'x', CLIOPT_ARG, "HOSTLIST",
	"never run on these nodes (a host list, or a file with a /)", 0),
    IGN("extra-node-info", 'B', CLIOPT_ARG, R_LAYOUT),
    IGN("get-user-env", K_OTHER + 13, CLIOPT_OPTARG,
	"the job gets the --export environment"),
    IGN("gpu-bind", K_OTHER + 14, CLIOPT_ARG, R_LAYOUT),
    IGN("gpu-freq", K_OTHER + 15, CLIOPT_ARG, R_LAYOUT),
    IGN("gres-flags", K_OTHER + 16, CLIOPT_ARG, R_LAYOUT),
    IGN("hint", K_OTHER + 17, CLIOPT_ARG, R_LAYOUT),
    IGN("ignore-pbs", K_OTHER + 18, CLIOPT_NOARG, "no PBS directives"),
    IGN("licenses", 'L', CLIOPT_ARG, "kaibatch has no licenses"),
    IGN("mcs-label", K_OTHER + 22, CLIOPT_ARG, R_NOTYET),
    IGN("mem-bind", K_OTHER + 23, CLIOPT_ARG, R_LAYOUT),
    IGN("mincpus", K_OTHER + 24, CLIOPT_ARG, "use --cpus-per-task"),
    IGN("network", K_OTHER + 25, CLIOPT_ARG, R_LAYOUT),
    IGN("nice", K_OTHER + 26, CLIOPT_OPTARG, R_NOTYET),
    IGN("no-kill", 'k', CLIOPT_OPTARG, R_NOTYET),
    IGN("nodefile", 'F', CLIOPT_ARG, R_NODES),
    OPT("nodelist", 'w', CLIOPT_ARG, "HOSTLIST",
	"run only on these nodes (a host list, or a file with a /)", 0),
    IGN("ntasks-per-core", K_OTHER + 28, CLIOPT_ARG, R_LAYOUT),
    IGN("ntasks-per-gpu", K_OTHER + 29, CLIOPT_ARG, R_LAYOUT),
    IGN("ntasks-per-socket", K_OTHER + 30, CLIOPT_ARG, R_LAYOUT),
    IGN("overcommit", 'O', CLIOPT_NOARG, R_SHARE),
    IGN("oversubscribe", 's', CLIOPT_NOARG, R_SHARE),
    IGN("power", K_OTHER + 32, CLIOPT_ARG, R_NODES),
    IGN("prefer", K_OTHER + 33, CLIOPT_ARG, R_NODES),
    {"priority", K_PRIORITY, CLIOPT_ARG, "CLASS",
	"priority class: train, build-preemptible, build, inference",
	"a number is for an administrator to set; give a class name", 0},
    IGN("profile", K_OTHER + 35, CLIOPT_ARG, R_NOTYET),
    IGN("propagate", K_OTHER + 36, CLIOPT_OPTARG, R_NOTYET),
    IGN("reboot", K_OTHER + 38, CLIOPT_NOARG, R_NODES),
    IGN("reservation", K_OTHER + 40, CLIOPT_ARG,
	"kaibatch has no reservations"),
    IGN("sockets-per-node", K_OTHER + 42, CLIOPT_ARG, R_LAYOUT),
    IGN("spread-job", K_OTHER + 43, CLIOPT_NOARG, R_NODES),
    IGN("switches", K_OTHER + 44, CLIOPT_ARG, R_NODES),
    IGN("thread-spec", K_OTHER + 45, CLIOPT_ARG, R_LAYOUT),
    IGN("threads-per-core", K_OTHER + 46, CLIOPT_ARG, R_LAYOUT),
    IGN("time-min", K_OTHER + 47, CLIOPT_ARG, R_NOTYET),
    IGN("tmp", K_OTHER + 48, CLIOPT_ARG, R_NOTYET),
    IGN("use-min-nodes", K_OTHER + 49, CLIOPT_NOARG, R_NODES),
    IGN("wait-all-nodes", K_OTHER + 50, CLIOPT_ARG, R_NODES),
    IGN("wckey", K_OTHER + 51, CLIOPT_ARG, R_NOTYET),

    REF("batch", K_OTHER + 60, CLIOPT_ARG, "kaibatch has no node features"),
    REF("export-file", K_OTHER + 61, CLIOPT_ARG,
	"kaibatch reads no environment files"),
    REF("gid", K_OTHER + 62, CLIOPT_ARG, "MUNGE decides the group"),
    REF("gpus-per-socket", K_OTHER + 63, CLIOPT_ARG,
	"kaibatch counts GPUs per task"),
    REF("test-only", K_OTHER + 64, CLIOPT_NOARG, "use --parse-only"),
    REF("uid", K_OTHER + 65, CLIOPT_ARG, "MUNGE decides the user"),

    /* kaibatch's own (#KSUB and the command line) */
    OPT("image", K_IMAGE, CLIOPT_ARG, "IMAGE",
	"container image of the job's pods (default: kaid's)", KAI),
    OPT("gpu-fraction", K_GPU_FRACTION, CLIOPT_ARG, "F",
	"a part of one GPU for each task, 0 < F < 1", KAI),
    OPT("gpu-memory", K_GPU_MEMORY, CLIOPT_ARG, "SIZE",
	"a part of one GPU for each task, by memory", KAI),
    OPT("gpu-devices", K_GPU_DEVICES, CLIOPT_ARG, "N",
	"that part on each of N devices of one node", KAI),
    OPT("min-tasks", K_MIN_TASKS, CLIOPT_ARG, "N",
	"start once N tasks fit; the rest are elastic", KAI),
    OPT("topology", K_TOPOLOGY, CLIOPT_ARG, "[NAME:]LEVEL",
	"place all tasks in one LEVEL domain (a node label key)", KAI),
    OPT("topology-preferred", K_TOPOLOGY_PREFERRED, CLIOPT_ARG, "[NAME:]LEVEL",
	"prefer one LEVEL domain (a node label key)", KAI),
    OPT("priority-class", K_PRIORITY_CLASS, CLIOPT_ARG, "NAME",
	"the same as --priority", KAI),
    OPT("preemptible", K_PREEMPTIBLE, CLIOPT_NOARG, NULL,
	"the job may be preempted (default below priority 100)", KAI),
    OPT("no-preemptible", K_NO_PREEMPTIBLE, CLIOPT_NOARG, NULL,
	"the job may not be preempted: it runs within quota only", KAI),

    /* the command line's own */
    OPT("parse-only", K_PARSE_ONLY, CLIOPT_NOARG, NULL,
	"print the job request instead of submitting it", SOPT_CLI),
    OPT("json", K_JSON, CLIOPT_NOARG, NULL,
	"with --parse-only: one line of JSON", SOPT_CLI),
};
const size_t submit_table_len = KAI_NELEM(submit_table);
/*
 * The first KAI entry ends the sbatch part, the first CLI one the script's:
 * the counts are those of the two tail sections above (10 kaibatch
 * options, 2 command-line ones); clients-directives checks they agree
 * with the flags.
 */
const size_t submit_table_sbatch_len = KAI_NELEM(submit_table) - 12;
const size_t submit_table_script_len = KAI_NELEM(submit_table) - 2;
