# SPDX-License-Identifier: GPL-3.0-or-later
# shellcheck shell=sh
#
# signal.sh: the --signal timer's functions, compiled into kaid as
# podshim_signal and eval'ed by the wrapper's kai_run (pod/wrapper.sh)
# in the pods of --signal jobs only.
#
# kai_timer SHELLPID sleeps KAI_SIGNAL_AFTER seconds and then signals
# the batch shell alone (KAI_SIGNAL_BATCH, sbatch's "B:") or every
# process the script started and not the shell itself (sbatch's default
# signals the job steps, not the batch shell; here srun runs its command
# as a child of the script).
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
    # One pid a line: the list is split on purpose.
    # shellcheck disable=SC2086
    [ -z "$p" ] || kill -"$KAI_SIGNAL" $p
  fi
}
