# SPDX-License-Identifier: GPL-3.0-or-later
# shellcheck shell=sh
#
# signal.sh: the --signal timer and the end of a job, compiled into kaid as
# podshim_signal and eval'ed by the wrapper (pod/wrapper.sh)
# in every pod.
#
# kai_timer SHELLPID sleeps KAI_SIGNAL_AFTER seconds and then signals
# the batch shell alone (KAI_SIGNAL_BATCH, sbatch's "B:") or every
# process the script started and not the shell itself (sbatch's default
# signals the job steps, not the batch shell; without the step agent
# srun runs its command as a child of the script), and in task 0's pod
# with steps also the step agent's processes (KAI_AGENT_PID: its tasks;
# kaistep's srun and runners outlive the signal).  In the other pods the
# script is the agent itself.
#
# kai_kids ROOT SKIP prints the descendants of ROOT, found from the
# parent pids in /proc (no ps in a minimal image), leaving out SKIP (the
# timer itself) and its own descendants.
kai_kids() {
  for f in /proc/[0-9]*/stat; do read -r l <"$f" && printf '%s\n' "$l"; done 2>/dev/null |
  awk -v root="$1" -v skip="$2" '{ p = $0; sub(/.*\) /, "", p); split(p, f, " "); par[$1] = f[2] }
    END { q[1] = root; n = 1
      for (i = 1; i <= n; i++) for (c in par) if (par[c] == q[i] && c != skip) { q[++n] = c; print c } }'
}
kai_timer() {
  trap 'kill $! 2>/dev/null; exit 0' TERM
  sleep "$KAI_SIGNAL_AFTER" &
  wait $! || exit 0
  if [ -n "$KAI_SIGNAL_BATCH" ]; then
    kill -"$KAI_SIGNAL" "$1"
  else
    me=$(exec sh -c 'echo $PPID')
    p=$(kai_kids "$1" "$me")
    # Task 0's pod with steps: this pod's tasks are the step agent's.
    [ -z "$KAI_AGENT_PID" ] || p="$p
$(kai_kids "$KAI_AGENT_PID" "$me")"
    # One pid a line: the list is split on purpose.
    # shellcheck disable=SC2086
    [ -z "$p" ] || kill -"$KAI_SIGNAL" $p
  fi
}
#
# kai_alarm WRAPPERPID: sends the wrapper SIGALRM at the job's time limit
# (KAI_TIME_LIMIT seconds after the script starts); the wrapper stops it
# when the script ends.
kai_alarm() {
  trap 'kill $! 2>/dev/null; exit 0' TERM
  sleep "$KAI_TIME_LIMIT" &
  wait $! || exit 0
  kill -ALRM "$1"
}
# kai_end WHY SIG: the end of the job (the wrapper's TERM and ALRM traps,
# once): Slurm's line in the error file, SIGCONT and SIGTERM to the pod's
# processes (the wrapper's process group: the wrapper's own trap comes
# back here and returns), and SIGKILL KAI_KILL_WAIT seconds later to
# every process under the wrapper but the killer.  x says which signal
# ended the job; k is the killer's pid.
kai_end() {
  [ -z "$x" ] || return 0
  x=$2
  printf 'slurmstepd: error: *** JOB %s ON %s CANCELLED AT %s%s ***\n' \
    "$SLURM_JOB_ID" "${SLURMD_NODENAME:-$(uname -n)}" \
    "$(date +%Y-%m-%dT%H:%M:%S)" "$1" >>"$KAI_STDERR"
  kill -CONT 0 2>/dev/null
  kill -TERM 0 2>/dev/null
  w=$$
  (trap 'kill $! 2>/dev/null; exit 0' TERM
   sleep "${KAI_KILL_WAIT:-30}" &
   wait $! || exit 0
   me=$(exec sh -c 'echo $PPID')
   p=$(kai_kids "$w" "$me")
   # One pid a line: the list is split on purpose.
   # shellcheck disable=SC2086
   [ -z "$p" ] || kill -KILL $p) </dev/null >/dev/null 2>&1 &
  # The wrapper stops the killer when the script has ended.
  # shellcheck disable=SC2034
  k=$!
}
