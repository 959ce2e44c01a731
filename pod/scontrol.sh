#!/bin/sh
# scontrol as kaibatch provides it inside a job (see ksubmit(1)).
# SPDX-License-Identifier: GPL-3.0-or-later
#
# scontrol.sh: compiled into kaid as podshim_scontrol (build-aux/pod2c.sh
# keeps the two lines above and drops the other comment lines).
#
# `show hostnames [LIST]` expands a Slurm host list (default
# $SLURM_JOB_NODELIST) one name a line, as 41% of multi-node scripts use
# it to find MASTER_ADDR; `show job [ID]` prints this job's record from
# its environment.  Everything else is kctl's, on a login node.
usage() {
	echo "scontrol: inside a kaibatch job only 'show hostnames [LIST]' and 'show job [ID]' are available; use kctl on a login node" >&2
	exit 1
}
# hostnames LIST: the names of a Slurm host list, one a line, all or
# none.  The grammar is src/model/hostlist.c's (kai_hostlist_expand),
# and tests/lib/hostlist-cases.txt holds both to the same cases: names
# split at commas outside brackets; each bracket holds ranges N or N-M
# of at most 9 digits (a leading zero keeps the width), and a name's
# brackets multiply in order; an empty name, a stray "]", an unclosed
# "[", a bad range or more than 100000 names refuse the whole list.
hostnames() {
	awk -v list="$1" '
	function bad() {
		if (!failed)
			print "scontrol: invalid host list \"" list "\"" > "/dev/stderr"
		failed = 1
	}
	function out(item,    b, rest, e, body, suf, pre, n, parts, i, r, d, lo, hi, w, k) {
		if (failed) return
		if (item == "") { bad(); return }
		b = index(item, "[")
		if (index(b ? substr(item, 1, b - 1) : item, "]")) { bad(); return }
		if (b == 0) {
			if (++count > 100000) { bad(); return }
			names[count] = item
			return
		}
		pre = substr(item, 1, b - 1); rest = substr(item, b + 1)
		e = index(rest, "]")
		if (e == 0) { bad(); return }
		body = substr(rest, 1, e - 1); suf = substr(rest, e + 1)
		n = split(body, parts, ",")
		if (n == 0) { bad(); return }
		for (i = 1; i <= n; i++) {
			r = parts[i]; d = index(r, "-")
			if (d) { lo = substr(r, 1, d - 1); hi = substr(r, d + 1) }
			else { lo = r; hi = r }
			if (lo !~ /^[0-9]+$/ || hi !~ /^[0-9]+$/ || length(lo) > 9 ||
			    length(hi) > 9 || hi + 0 < lo + 0) { bad(); return }
			w = length(lo)
			for (k = lo + 0; k <= hi + 0; k++)
				out(pre sprintf("%0" w "d", k) suf)
		}
	}
	BEGIN {
		depth = 0; item = ""; count = 0
		for (c = 1; c <= length(list); c++) {
			ch = substr(list, c, 1)
			if (ch == "[") depth++
			else if (ch == "]") depth--
			if (ch == "," && depth == 0) { out(item); item = "" }
			else item = item ch
		}
		out(item)
		if (!failed)
			for (i = 1; i <= count; i++) print names[i]
		exit failed
	}'
}
show_job() {
	if [ -n "$1" ] && [ "$1" != "$SLURM_JOB_ID" ]; then
		echo "scontrol: inside job $SLURM_JOB_ID only this job can be shown; run 'kctl show job $1' on a login node" >&2
		exit 1
	fi
	printf 'JobId=%s JobName=%s\n' "$SLURM_JOB_ID" "$SLURM_JOB_NAME"
	printf '   UserId=%s(%s) GroupId=%s\n' "$SLURM_JOB_USER" "$SLURM_JOB_UID" "$SLURM_JOB_GID"
	printf '   JobState=RUNNING Partition=%s\n' "$SLURM_JOB_PARTITION"
	printf '   NumNodes=%s NumTasks=%s CPUs/Task=%s\n' "$SLURM_JOB_NUM_NODES" "$SLURM_NTASKS" "$SLURM_CPUS_PER_TASK"
	printf '   NodeList=%s\n' "$SLURM_JOB_NODELIST"
	printf '   WorkDir=%s\n' "$SLURM_SUBMIT_DIR"
}
# With the in-pod clients (kctl, unpacked by the wrapper when kaid gave
# the job a key) everything but hostnames is kctl's, which talks to kaid
# with the job's credential.
if [ -n "$KAI_JOB_KEY" ] && [ "$1 $2" != "show hostnames" ] &&
    [ "$1 $2" != "show hostname" ] && command -v kctl >/dev/null 2>&1; then
  exec kctl "$@"
fi
[ "$1" = show ] || usage
case "$2" in
hostnames|hostname) hostnames "${3-$SLURM_JOB_NODELIST}" ;;
job) show_job "$3" ;;
*) usage ;;
esac
