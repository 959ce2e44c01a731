#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# t1230-long-paths: output files whose expanded path would pass 4096
# bytes are refused at submission with one line; and a job stored with
# such a path before that check (its job-info record far larger than a
# 64 KiB reply frame) no longer breaks kqueue, kacct and kctl show job
# for everyone: its record travels alone in a frame of up to 1 MiB.

. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/stack.sh"
stack_require

T=$(mktemp -d /tmp/kai-t1230.XXXXXX)
trap 'stack_stop "$T"; rm -rf "$T"' EXIT
stack_start "$T" || bail_out "could not start the stack"
A=$STACK_ALICE
B=$STACK_BOB
W=$T/work
mkdir -p "$W" && chown "$A:" "$W"
printf '#!/bin/sh\necho hi\n' >"$W/s.sh"
chown "$A:" "$W/s.sh"

jobs()
{
	stack_psql "select count(*) from jobs"
}

name=$(printf 'n%.0s' $(seq 255))
xs=$(printf '%%x%.0s' $(seq 20))
out=$(cd "$W" && as_user "$A" ksubmit -J "$name" -o "$xs" s.sh 2>&1)
is "an --output expanding past 4096 bytes is refused, one line, exit 1" \
    "$?:$out" \
    "1:ksubmit: error: invalid --output: the path it names may be $((20 * 255 + ${#W} + 1)) bytes long, over the limit of 4096"
out=$(cd "$W" && as_user "$A" ksubmit -J "$name" -e "$xs" s.sh 2>&1)
like "so is such an --error" "$?:$out" '^1:ksubmit: error: invalid --error: '
is "nothing submitted" "$(jobs)" 0

# A job stored before the check: its output path expands to ~200 KB.
out=$(cd "$W" && as_user "$A" ksubmit -H -J small s.sh)
id=${out##* }
out=$(cd "$W" && as_user "$A" ksubmit -H -J other s.sh)
id2=${out##* }
stack_psql "update jobs set name = '$name',
    stdout_pattern = repeat('%x', 800) where id = $id" >/dev/null
is "the stored pattern expands to 204000 bytes" \
    "$(stack_psql "select length(stdout_pattern) from jobs where id = $id")" 1600

out=$(as_user "$B" kqueue -t all -h -o '%i' 2>&1)
is "kqueue -t all (from the database) still answers bob" "$?:$(echo $out)" \
    "0:$id $id2"
out=$(kacct -a -n -X -o JobID 2>&1)
is "kacct -a as root still answers" "$?:$(echo $out)" "0:$id $id2"
n=$(as_user "$B" kctl show job "$id" | grep -c '^   StdOut=/.*nnnn')
is "kctl show job shows the long path" "$n" 1
len=$(as_user "$B" kctl show job "$id" | sed -n 's/^   StdOut=//p' | tr -d '\n' | wc -c)
is "all of it" "$len" $((800 * 255 + ${#W} + 1))

done_testing
