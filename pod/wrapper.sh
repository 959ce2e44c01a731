# SPDX-License-Identifier: GPL-3.0-or-later
# shellcheck shell=sh
#
# wrapper.sh: the command of every job pod (`/bin/sh -c TEXT kai-job
# ARGS...`); $1.. are the batch script's arguments.  build-aux/pod2c.sh
# compiles it into kaid as podshim_wrapper, without its comment lines:
# every byte of a pod is stored in etcd and sent to every watcher.
#
# Nothing here may need a special image: the wrapper and the shims are
# POSIX sh (the shims also use awk), which every image with a shell has.
# The shims travel as data in the KAI_SHIM_* variables (like the script
# in KAI_SCRIPT) and the wrapper writes them into a private bin directory
# at the front of PATH.
#
# Model: every pod of a job runs the batch script once, as task
# SLURM_PROCID of SLURM_NTASKS (the SPMD model of Kubeflow and kjob), so
# `srun CMD` runs CMD once in each pod, as that pod's task.  ksubmit(1)
# says where this differs from Slurm.
#
# Output files are opened the way sbatch opens them (truncated; one file
# for both streams unless -e was given; then opened to append, so that
# the wrapper's own line at the end of a job lands after what the script
# wrote, not over it), or appended to with
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
# --signal (KAI_SIGNAL, sent KAI_SIGNAL_AFTER seconds after the script
# starts): the script runs in a subshell that learns its own pid (the
# parent of a `sh -c` it starts), starts the timer and then execs the
# script, so the script keeps that pid (see below for why it runs in the
# background).  The timer (pod/signal.sh)
# is eval'ed from KAI_SHIM_SIGNAL.  The wrapper stops the timer when the
# script ends; the timer's TERM trap takes its sleep with it.
#
# The end of a job, as Slurm ends it (pod/signal.sh's kai_end): at the
# time limit (KAI_TIME_LIMIT seconds after the script starts, the
# wrapper's own alarm, well before the pod's activeDeadlineSeconds, which
# kills without a grace) or when the pod is deleted (kcancel: the kubelet
# sends SIGTERM to the wrapper, pid 1), the wrapper writes Slurm's
# "*** JOB N ON host CANCELLED AT time ... ***" line to the error file,
# sends SIGTERM to the script and every process under it, and SIGKILL
# KAI_KILL_WAIT seconds later (KillWait) to those still there.  So the
# script runs in the background and the wrapper waits for it: a shell
# runs a trap only between commands, and `wait` is one it can interrupt.
# (A background job starts with SIGINT and SIGQUIT ignored, which its
# script cannot undo: --signal=INT does not reach a script that has not
# re-enabled it.)  A wrapper whose alarm ended the job exits 124, which
# kaid reads as TIMEOUT when the job has used its time (reconcile.c).
umask 077
d=$(mktemp -d "${TMPDIR:-/tmp}/kai-job.XXXXXX") || exit 1
mkdir "$d/bin" || exit 1
printf '%s' "$KAI_SCRIPT" >"$d/script" && chmod 700 "$d/script" || exit 1
printf '%s' "$KAI_SHIM_SCONTROL" >"$d/bin/scontrol" || exit 1
printf '%s' "$KAI_SHIM_SRUN" >"$d/bin/srun" || exit 1
chmod 700 "$d/bin/scontrol" "$d/bin/srun" || exit 1
unset KAI_SCRIPT KAI_SHIM_SCONTROL KAI_SHIM_SRUN
PATH="$d/bin:$PATH"; export PATH
umask 022
cd "$KAI_WORKDIR" || { echo "kaibatch: cannot chdir to $KAI_WORKDIR" >&2; exit 1; }
eval "$KAI_SHIM_SIGNAL"; unset KAI_SHIM_SIGNAL
kai_run() {
  if [ -n "$KAI_SIGNAL" ]; then
    s=$(exec sh -c 'echo $PPID')
    kai_timer "$s" </dev/null >/dev/null 2>&1 &
    echo $! >"$d/timer"
  fi
  exec "$d/script" "$@"
}
t=
if [ -z "$KAI_APPEND" ]; then
  if (: >"$KAI_STDOUT") 2>/dev/null; then
    tail -n +1 -f "$KAI_STDOUT" 2>/dev/null & t=$!
  fi
elif (: >>"$KAI_STDOUT") 2>/dev/null; then
  o=$(wc -c <"$KAI_STDOUT")
  tail -c +$((o + 1)) -f "$KAI_STDOUT" 2>/dev/null & t=$!
fi
if [ -z "$KAI_APPEND" ]; then
  : >"$KAI_STDOUT"; : >"$KAI_STDERR"
fi 2>/dev/null
if [ "$KAI_STDOUT" = "$KAI_STDERR" ]; then
  (kai_run "$@") >>"$KAI_STDOUT" 2>&1 &
else
  (kai_run "$@") >>"$KAI_STDOUT" 2>>"$KAI_STDERR" &
fi
j=$! x='' k='' l='' n=''
trap 'n=1; kai_end "" TERM "$j"' TERM
trap 'n=1; kai_end " DUE TO TIME LIMIT" ALRM "$j"' ALRM
if [ "${KAI_TIME_LIMIT:-0}" -gt 0 ]; then
  kai_alarm "$$" </dev/null >/dev/null 2>&1 & l=$!
fi
while :; do
  n=''
  wait "$j"; rc=$?
  if [ -z "$n" ] || [ "$rc" -le 128 ]; then break; fi
done
[ -z "$k" ] || kill "$k" 2>/dev/null
[ -z "$l" ] || kill "$l" 2>/dev/null
if [ -s "$d/timer" ] && read -r w <"$d/timer"; then kill "$w" 2>/dev/null; fi
if [ -n "$t" ]; then sleep 0.2 2>/dev/null || sleep 1; kill "$t" 2>/dev/null; fi
rm -rf "$d"
[ "$x" != ALRM ] || exit 124
exit "$rc"
