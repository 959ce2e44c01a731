/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * podshim.c: the shell text kaid puts in every job pod: the wrapper that
 * runs the batch script, and the `scontrol` and `srun` that Slurm scripts
 * call inside a job.
 *
 * Nothing here may need a special image: the wrapper and the shims are
 * POSIX sh (the shims also use awk), which every image with a shell has.
 * The wrapper is the container's command; the shims travel as data in the
 * KAI_SHIM_* variables (like the script in KAI_SCRIPT) and the wrapper
 * writes them into a private bin directory at the front of PATH.
 *
 * Model: every pod of a job runs the batch script once, as task
 * SLURM_PROCID of SLURM_NTASKS (the SPMD model of Kubeflow and kjob), so
 * `srun CMD` runs CMD once in each pod, as that pod's task.  ksubmit(1)
 * says where this differs from Slurm.
 */
#include "config.h"

#include "kaid.h"

/*
 * The wrapper: $1.. are the script's arguments.  Output files are opened
 * the way sbatch opens them (truncate; one file for both streams unless
 * -e was given), or appended to with --open-mode=append (KAI_APPEND);
 * the tasks of a multi-task job always append: each pod runs the script,
 * and a task that truncated the file would erase what the others had
 * written.  The exit status is the script's.  A `tail -f` copies the
 * output file to the container's own output, which is what the pod log
 * (klog) shows; the script still writes to the file itself, so the file
 * stays the record and a process the script leaves behind cannot keep
 * the pod alive.  An appending task's copy starts at the size the file
 * had before its script ran (not at the end whenever tail gets there,
 * which would lose the first lines).
 *
 * --signal (KAI_SIGNAL, sent KAI_SIGNAL_AFTER seconds after the script
 * starts): the script runs in a subshell that learns its own pid (the
 * parent of a `sh -c` it starts), starts the timer and then execs the
 * script, so the script keeps that pid and runs in the foreground with
 * the signal dispositions it would have had (a background job would
 * start with SIGINT ignored, and could not trap it).  The timer is a
 * background function that sleeps and then signals the batch shell alone
 * (KAI_SIGNAL_BATCH, sbatch's "B:") or every process the script started
 * and not the shell itself (sbatch's default signals the job steps, not
 * the batch shell; here srun runs its command as a child of the script),
 * found from the parent pids in /proc.  The wrapper stops the timer when
 * the script ends; its TERM trap takes the sleep with it.  The timer's
 * functions (podshim_signal) travel in KAI_SHIM_SIGNAL, in the pods of
 * --signal jobs only: every byte of a pod is stored in etcd and sent to
 * every watcher, and the API server's rate falls with the pod's size.
 */
const char podshim_wrapper[] =
    "umask 077\n"
    "d=$(mktemp -d \"${TMPDIR:-/tmp}/kai-job.XXXXXX\") || exit 1\n"
    "mkdir \"$d/bin\" || exit 1\n"
    "printf '%s' \"$KAI_SCRIPT\" >\"$d/script\" && chmod 700 \"$d/script\" || exit 1\n"
    "printf '%s' \"$KAI_SHIM_SCONTROL\" >\"$d/bin/scontrol\" || exit 1\n"
    "printf '%s' \"$KAI_SHIM_SRUN\" >\"$d/bin/srun\" || exit 1\n"
    "chmod 700 \"$d/bin/scontrol\" \"$d/bin/srun\" || exit 1\n"
    "unset KAI_SCRIPT KAI_SHIM_SCONTROL KAI_SHIM_SRUN\n"
    "PATH=\"$d/bin:$PATH\"; export PATH\n"
    "umask 022\n"
    "cd \"$KAI_WORKDIR\" || { echo \"kaibatch: cannot chdir to $KAI_WORKDIR\" >&2; exit 1; }\n"
    "kai_run() {\n"
    "  if [ -n \"$KAI_SIGNAL\" ]; then\n"
    "    eval \"$KAI_SHIM_SIGNAL\"; unset KAI_SHIM_SIGNAL\n"
    "    s=$(exec sh -c 'echo $PPID')\n"
    "    kai_timer \"$s\" </dev/null >/dev/null 2>&1 &\n"
    "    echo $! >\"$d/timer\"\n"
    "  fi\n"
    "  exec \"$d/script\" \"$@\"\n"
    "}\n"
    "t=\n"
    "if [ -z \"$KAI_APPEND\" ]; then\n"
    "  if (: >\"$KAI_STDOUT\") 2>/dev/null; then\n"
    "    tail -n +1 -f \"$KAI_STDOUT\" 2>/dev/null & t=$!\n"
    "  fi\n"
    "elif (: >>\"$KAI_STDOUT\") 2>/dev/null; then\n"
    "  o=$(wc -c <\"$KAI_STDOUT\")\n"
    "  tail -c +$((o + 1)) -f \"$KAI_STDOUT\" 2>/dev/null & t=$!\n"
    "fi\n"
    "if [ -z \"$KAI_APPEND\" ] && [ \"$KAI_STDOUT\" = \"$KAI_STDERR\" ]; then\n"
    "  (kai_run \"$@\") >\"$KAI_STDOUT\" 2>&1\n"
    "elif [ -z \"$KAI_APPEND\" ]; then\n"
    "  (kai_run \"$@\") >\"$KAI_STDOUT\" 2>\"$KAI_STDERR\"\n"
    "elif [ \"$KAI_STDOUT\" = \"$KAI_STDERR\" ]; then\n"
    "  (kai_run \"$@\") >>\"$KAI_STDOUT\" 2>&1\n"
    "else\n"
    "  (kai_run \"$@\") >>\"$KAI_STDOUT\" 2>>\"$KAI_STDERR\"\n"
    "fi\n"
    "rc=$?\n"
    "if [ -s \"$d/timer\" ] && read -r w <\"$d/timer\"; then kill \"$w\" 2>/dev/null; fi\n"
    "if [ -n \"$t\" ]; then sleep 0.2 2>/dev/null || sleep 1; kill \"$t\" 2>/dev/null; fi\n"
    "rm -rf \"$d\"\n"
    "exit $rc\n";

/* The --signal timer's functions, eval'ed by the wrapper's kai_run. */
const char podshim_signal[] =
    "kai_kids() {\n"
    "  for f in /proc/[0-9]*/stat; do read -r l <\"$f\" && printf '%s\\n' \"$l\"; done 2>/dev/null |\n"
    "  awk -v root=\"$1\" -v skip=\"$2\" '{ p = $0; sub(/.*\\) /, \"\", p); split(p, f, \" \"); par[$1] = f[2] }\n"
    "    END { q[1] = root; n = 1\n"
    "      for (i = 1; i <= n; i++) for (c in par) if (par[c] == q[i] && c != skip) { q[++n] = c; print c } }'\n"
    "}\n"
    "kai_timer() {\n"
    "  trap 'kill $! 2>/dev/null; exit 0' TERM\n"
    "  sleep \"$KAI_SIGNAL_AFTER\" &\n"
    "  wait $! || exit 0\n"
    "  if [ -n \"$KAI_SIGNAL_BATCH\" ]; then\n"
    "    kill -\"$KAI_SIGNAL\" \"$1\"\n"
    "  else\n"
    "    me=$(exec sh -c 'echo $PPID')\n"
    "    p=$(kai_kids \"$1\" \"$me\")\n"
    "    [ -z \"$p\" ] || kill -\"$KAI_SIGNAL\" $p\n"
    "  fi\n"
    "}\n";

/*
 * scontrol: `show hostnames [LIST]` expands a Slurm host list (default
 * $SLURM_JOB_NODELIST) one name a line, as 41% of multi-node scripts use
 * it to find MASTER_ADDR; `show job [ID]` prints this job's record from
 * its environment.  Everything else is kctl's, on a login node.
 */
const char podshim_scontrol[] =
    "#!/bin/sh\n"
    "# scontrol as kaibatch provides it inside a job (see ksubmit(1)).\n"
    "usage() {\n"
    "\techo \"scontrol: inside a kaibatch job only 'show hostnames [LIST]'"
    " and 'show job [ID]' are available; use kctl on a login node\" >&2\n"
    "\texit 1\n"
    "}\n"
    "hostnames() {\n"
    "\tawk -v list=\"$1\" '\n"
    "\tfunction bad() {\n"
    "\t\tprint \"scontrol: invalid host list \\\"\" list \"\\\"\" > \"/dev/stderr\"\n"
    "\t\tfailed = 1\n"
    "\t}\n"
    "\tfunction out(item,    b, rest, e, body, suf, pre, n, parts, i, r, d, lo, hi, w, k) {\n"
    "\t\tif (item == \"\" || failed) return\n"
    "\t\tb = index(item, \"[\")\n"
    "\t\tif (b == 0) { print item; return }\n"
    "\t\tpre = substr(item, 1, b - 1); rest = substr(item, b + 1)\n"
    "\t\te = index(rest, \"]\")\n"
    "\t\tif (e == 0) { bad(); return }\n"
    "\t\tbody = substr(rest, 1, e - 1); suf = substr(rest, e + 1)\n"
    "\t\tn = split(body, parts, \",\")\n"
    "\t\tfor (i = 1; i <= n; i++) {\n"
    "\t\t\tr = parts[i]; d = index(r, \"-\")\n"
    "\t\t\tif (d) { lo = substr(r, 1, d - 1); hi = substr(r, d + 1) }\n"
    "\t\t\telse { lo = r; hi = r }\n"
    "\t\t\tif (lo !~ /^[0-9]+$/ || hi !~ /^[0-9]+$/ || hi + 0 < lo + 0) { bad(); return }\n"
    "\t\t\tw = length(lo)\n"
    "\t\t\tfor (k = lo + 0; k <= hi + 0; k++)\n"
    "\t\t\t\tout(pre sprintf(\"%0\" w \"d\", k) suf)\n"
    "\t\t}\n"
    "\t}\n"
    "\tBEGIN {\n"
    "\t\tdepth = 0; item = \"\"\n"
    "\t\tfor (c = 1; c <= length(list); c++) {\n"
    "\t\t\tch = substr(list, c, 1)\n"
    "\t\t\tif (ch == \"[\") depth++\n"
    "\t\t\telse if (ch == \"]\") depth--\n"
    "\t\t\tif (ch == \",\" && depth == 0) { out(item); item = \"\" }\n"
    "\t\t\telse item = item ch\n"
    "\t\t}\n"
    "\t\tout(item)\n"
    "\t\texit failed\n"
    "\t}'\n"
    "}\n"
    "show_job() {\n"
    "\tif [ -n \"$1\" ] && [ \"$1\" != \"$SLURM_JOB_ID\" ]; then\n"
    "\t\techo \"scontrol: inside job $SLURM_JOB_ID only this job can be"
    " shown; run 'kctl show job $1' on a login node\" >&2\n"
    "\t\texit 1\n"
    "\tfi\n"
    "\tprintf 'JobId=%s JobName=%s\\n' \"$SLURM_JOB_ID\" \"$SLURM_JOB_NAME\"\n"
    "\tprintf '   UserId=%s(%s) GroupId=%s\\n' \"$SLURM_JOB_USER\""
    " \"$SLURM_JOB_UID\" \"$SLURM_JOB_GID\"\n"
    "\tprintf '   JobState=RUNNING Partition=%s\\n' \"$SLURM_JOB_PARTITION\"\n"
    "\tprintf '   NumNodes=%s NumTasks=%s CPUs/Task=%s\\n'"
    " \"$SLURM_JOB_NUM_NODES\" \"$SLURM_NTASKS\" \"$SLURM_CPUS_PER_TASK\"\n"
    "\tprintf '   NodeList=%s\\n' \"$SLURM_JOB_NODELIST\"\n"
    "\tprintf '   WorkDir=%s\\n' \"$SLURM_SUBMIT_DIR\"\n"
    "}\n"
    "[ \"$1\" = show ] || usage\n"
    "case \"$2\" in\n"
    "hostnames|hostname) hostnames \"${3-$SLURM_JOB_NODELIST}\" ;;\n"
    "job) show_job \"$3\" ;;\n"
    "*) usage ;;\n"
    "esac\n";

/*
 * srun: runs the command as this pod's task.  Options are read only for
 * -n/--ntasks (tasks SLURM_PROCID >= N do not run it, so `srun -n 1`
 * runs once per job); the others that take a value are skipped with it.
 */
const char podshim_srun[] =
    "#!/bin/sh\n"
    "# srun as kaibatch provides it inside a job (see ksubmit(1)).\n"
    "n=\n"
    "while [ $# -gt 0 ]; do\n"
    "\tcase \"$1\" in\n"
    "\t--) shift; break ;;\n"
    "\t-n|--ntasks) n=$2; shift 2 ;;\n"
    "\t--ntasks=*) n=${1#--ntasks=}; shift ;;\n"
    "\t-n*) n=${1#-n}; shift ;;\n"
    "\t-[ACDGJNTcdeimopqtwx]|--account|--chdir|--cpu-bind|--cpus-per-gpu|"
    "--cpus-per-task|--dependency|--distribution|--error|--exclude|--export|"
    "--gpus|--gpus-per-node|--gpus-per-task|--gres|--input|--job-name|--mem|"
    "--mem-per-cpu|--mem-per-gpu|--mpi|--nodelist|--nodes|--ntasks-per-node|"
    "--output|--partition|--qos|--time)\n"
    "\t\t[ $# -ge 2 ] || { echo \"srun: option $1 needs a value\" >&2; exit 1; }\n"
    "\t\tshift 2 ;;\n"
    "\t-*) shift ;;\n"
    "\t*) break ;;\n"
    "\tesac\n"
    "done\n"
    "[ $# -gt 0 ] || { echo \"srun: fatal: no command to execute\" >&2; exit 1; }\n"
    "case \"$n\" in\n"
    "'') ;;\n"
    "*[!0-9]*) echo \"srun: invalid number of tasks \\\"$n\\\"\" >&2; exit 1 ;;\n"
    "*) [ \"${SLURM_PROCID:-0}\" -lt \"$n\" ] || exit 0 ;;\n"
    "esac\n"
    "exec \"$@\"\n";
