# SPDX-License-Identifier: GPL-3.0-or-later
# shellcheck shell=sh
#
# wrapper.sh: the command of every job pod; $1.. are the batch script's
# arguments.  build-aux/pod2c.sh compiles it into kaid as podshim_wrapper,
# without its comment lines: every byte of a pod is stored in etcd and
# sent to every watcher.  With kubernetes.pod_helpers configmap (the
# default) kaid puts it and the shims once into a ConfigMap mounted in
# every pod at KAI_HELPERS (`/bin/sh $KAI_HELPERS/wrapper.sh ARGS...`,
# the shims in $KAI_HELPERS/bin, the timer in $KAI_HELPERS/signal.sh);
# with inline, each pod carries them (`/bin/sh -c TEXT kai-job ARGS...`).
#
# Nothing here may need a special image: the wrapper and the shims are
# POSIX sh (the shims also use awk), which every image with a shell has.
# Inline, the shims travel as data in the KAI_SHIM_* variables (like the
# script in KAI_SCRIPT) and the wrapper writes them into a private bin
# directory at the front of PATH.
#
# Model: with kaistep (the job has a key, KAI_JOB_KEY, and the helpers
# carry it), Slurm's: the batch script runs once, in task 0's pod, beside
# a step agent (`kaistep step-agent`, pod/kaistep_agent.c); every other
# pod runs only the agent, which starts that pod's tasks of each step
# that `srun` (kaistep's) asks kaid for.  When the script ends, task 0's
# wrapper says so (`kaistep step-end`), kaid tells the agents, and the
# other pods end.  Without kaistep (inline helpers, no job_key_file, a
# kaid built without static libraries) every pod runs the batch script,
# as task SLURM_PROCID of SLURM_NTASKS (SPMD), and the shim `srun CMD`
# runs CMD once in each pod, as that pod's task.  ksubmit(1) says so.
#
# Output files are opened the way sbatch opens them (truncate; one file
# for both streams unless -e was given), or appended to with
# --open-mode=append (KAI_APPEND); the tasks of a multi-task job always
# append: each pod runs the script, and a task that truncated the file
# would erase what the others had written.  The exit status is the
# script's.  A `tail -f` copies the output file to the container's own
# output, which is what the pod log (klog) shows; the script still writes
# to the file itself, so the file stays the record and a process the
# script leaves behind cannot keep the pod alive.  An appending task's
# copy starts at the size the file had before its script ran (not at the
# end whenever tail gets there, which would lose the first lines).
#
# Stopping: the kubelet sends SIGTERM to the container's first process
# alone, the wrapper, and SIGKILL to all after the grace period (kcancel,
# preemption).  A shell runs no trap while a foreground command runs, so
# the script runs in the background and the wrapper waits for it; its
# TERM trap (pod/signal.sh's kai_end) writes Slurm's "*** JOB N ON host
# CANCELLED AT time ***" line to the error file and passes SIGCONT and
# SIGTERM on to every process of the pod (its process group), so that a
# script can trap it and save its work, as with scancel; SIGKILL follows
# KAI_KILL_WAIT seconds later (KillWait, also the pod's grace period).
# The time limit is the wrapper's own alarm (KAI_TIME_LIMIT seconds after
# the script starts, before the pod's activeDeadlineSeconds, which kills
# without a grace): the same, the line ending "DUE TO TIME LIMIT", and
# the wrapper then exits 124, which kaid reads as TIMEOUT (reconcile.c).
# The files are truncated first and then opened to append, so that the
# wrapper's line lands after what the script wrote, not over it.  A background command starts with SIGINT and SIGQUIT ignored,
# which a script cannot undo; so a job whose --signal is INT or QUIT runs
# in the foreground instead, and gets SIGKILL alone when stopped (and its
# time limit is the pod's deadline).
#
# --signal (KAI_SIGNAL, sent KAI_SIGNAL_AFTER seconds after the script
# starts): the script runs in a subshell that learns its own pid (the
# parent of a `sh -c` it starts), starts the timer and then execs the
# script, so the script keeps that pid and runs in the foreground with
# the signal dispositions it would have had (a background job would start
# with SIGINT ignored, and could not trap it).  The timer (pod/signal.sh)
# is read from KAI_HELPERS, or eval'ed from KAI_SHIM_SIGNAL (with the end
# of a job, kai_end).  The wrapper stops the timer when the script ends;
# the timer's TERM trap takes its sleep with it.
umask 077
d=$(mktemp -d "${TMPDIR:-/tmp}/kai-job.XXXXXX") || exit 1
mkdir "$d/bin" || exit 1
printf '%s' "$KAI_SCRIPT" >"$d/script" && chmod 700 "$d/script" || exit 1
if [ -n "$KAI_HELPERS" ]; then
  PATH="$KAI_HELPERS/bin:$PATH"
  # The clients (pod/kaistep, gzip'd in the ConfigMap) when kaid gave the
  # job a key: unpacked into the private bin, once under each name.
  if [ -n "$KAI_JOB_KEY" ] && [ -r "$KAI_HELPERS/kaistep.gz" ] &&
      gzip -dc <"$KAI_HELPERS/kaistep.gz" >"$d/bin/kaistep" 2>/dev/null &&
      chmod 700 "$d/bin/kaistep"; then
    for n in ksubmit sbatch kqueue squeue kcancel scancel kctl srun; do
      ln -s kaistep "$d/bin/$n" || exit 1
    done
    PATH="$d/bin:$PATH"
    KAI_BIN="$d/bin"
    export KAI_BIN
  fi
else
  printf '%s' "$KAI_SHIM_SCONTROL" >"$d/bin/scontrol" || exit 1
  printf '%s' "$KAI_SHIM_SRUN" >"$d/bin/srun" || exit 1
  chmod 700 "$d/bin/scontrol" "$d/bin/srun" || exit 1
  PATH="$d/bin:$PATH"
fi
unset KAI_SCRIPT KAI_SHIM_SCONTROL KAI_SHIM_SRUN
export PATH
# The submitter's umask, as slurmstepd applies it (022 when it is not known,
# an older client's job): output files are not world-readable because the
# pod's default says so.
umask "${KAI_UMASK:-022}"
cd "$KAI_WORKDIR" || { echo "kaibatch: cannot chdir to $KAI_WORKDIR" >&2; exit 1; }
# shellcheck source=/dev/null
if [ -n "$KAI_HELPERS" ]; then . "$KAI_HELPERS/signal.sh"; else eval "$KAI_SHIM_SIGNAL"; fi
unset KAI_SHIM_SIGNAL
kai_run() {
  if [ -n "$KAI_SIGNAL" ]; then
    s=$(exec sh -c 'echo $PPID')
    kai_timer "$s" </dev/null >/dev/null 2>&1 &
    echo $! >"$d/timer"
  fi
  [ -z "$agent" ] || exec kaistep step-agent
  exec "$d/script" "$@"
}
t=
# a: the step agent's pid in task 0's pod; agent: this pod runs the
# agent instead of the script.
a='' agent=''
if [ -n "$KAI_BIN" ]; then
  [ "$KAI_APPEND" != tasks ] || KAI_APPEND=''
  [ "${SLURM_PROCID:-0}" -eq 0 ] || agent=1
fi
if [ -z "$KAI_APPEND" ] && [ -z "$agent" ]; then
  if (: >"$KAI_STDOUT") 2>/dev/null; then
    tail -n +1 -f "$KAI_STDOUT" 2>/dev/null & t=$!
  fi
elif (: >>"$KAI_STDOUT") 2>/dev/null; then
  o=$(wc -c <"$KAI_STDOUT")
  tail -c +$((o + 1)) -f "$KAI_STDOUT" 2>/dev/null & t=$!
fi
if [ -n "$agent" ]; then KAI_APPEND=1; fi
# The ends of this pod's step tasks, kept for a kaid that restarts
# (pod/kaid_away.c): in this run's own directory, never one a pod of an
# earlier run or of another job left behind.
if [ -n "$KAI_BIN" ]; then
  KAI_STEP_ENDS=$d/step-ends
  export KAI_STEP_ENDS
fi
if [ -z "$KAI_APPEND" ]; then : >"$KAI_STDOUT" || exit 1; fi
exec 3>>"$KAI_STDOUT" || exit 1
if [ "$KAI_STDOUT" = "$KAI_STDERR" ]; then exec 4>&3
elif [ -z "$KAI_APPEND" ]; then : >"$KAI_STDERR" && exec 4>>"$KAI_STDERR"
else exec 4>>"$KAI_STDERR"
fi || exit 1
if [ -n "$KAI_BIN" ] && [ -z "$agent" ]; then
  KAI_BATCH_PID_FILE=$d/batch.pid
  export KAI_BATCH_PID_FILE
  kaistep step-agent </dev/null >&4 2>&4 3>&- 4>&- & a=$!
  KAI_AGENT_PID=$a
  export KAI_AGENT_PID
fi
case $KAI_SIGNAL in
2|3|INT|QUIT)
  (kai_run "$@") >&3 2>&4 3>&- 4>&-; rc=$?
  exec 3>&- 4>&- ;;
*)
  (kai_run "$@") >&3 2>&4 3>&- 4>&- &
  c=$!
  # kcancel --signal -b: the agent signals the script, which keeps this
  # pid (kai_run execs it).
  [ -z "$a" ] || echo "$c" >"$d/batch.pid"
  exec 3>&- 4>&-
  g='' x='' k='' l=''
  trap 'g=1; kai_end "" TERM' TERM
  trap 'g=1; kai_end " DUE TO TIME LIMIT" ALRM' ALRM
  if [ "${KAI_TIME_LIMIT:-0}" -gt 0 ]; then
    kai_alarm "$$" </dev/null >/dev/null 2>&1 & l=$!
  fi
  wait "$c"; rc=$?
  # A wait a trap cut short says 128 + N: wait again for the status.
  while [ -n "$g" ]; do g=''; wait "$c"; rc=$?; done
  trap - TERM ALRM
  [ -z "$k" ] || kill "$k" 2>/dev/null
  [ -z "$l" ] || kill "$l" 2>/dev/null ;;
esac
if [ -s "$d/timer" ] && read -r w <"$d/timer"; then kill "$w" 2>/dev/null; fi
# The script ended: kaid tells every pod's agent, this one's included.
if [ -n "$a" ]; then
  kaistep step-end "$rc" </dev/null >/dev/null 2>>"$KAI_STDERR" ||
    kill "$a" 2>/dev/null
  wait "$a"
fi
if [ -n "$t" ]; then sleep 0.2 2>/dev/null || sleep 1; kill "$t" 2>/dev/null; fi
rm -rf "$d"
[ "$x" != ALRM ] || exit 124
exit $rc
