#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# t1220-filesystems: with kaid.yaml's filesystems: a job runs only where
# its pods can see its files.  A job whose working directory or output
# files are not on a shared filesystem is refused at submit with one line
# naming the path and the filesystems, and nothing is written; a
# partition's own list replaces the top-level one, and kctl update job
# may not move a job to a partition whose filesystems miss its files.

. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/stack.sh"
stack_tiers kubesim real node
stack_require

T=$(mktemp -d /tmp/kai-t1220.XXXXXX)
trap 'stack_stop "$T"; rm -rf "$T"' EXIT
S=$T/shared
G=$T/gpufs
KAID_CONF_EXTRA="filesystems:
  - path: $S
    hostPath: $S"
export KAID_CONF_EXTRA
stack_start "$T" || bail_out "could not start the stack"
A=$STACK_ALICE
mkdir -p "$S/alice" "$T/elsewhere" "$G/alice"
chown "$A:" "$S/alice" "$T/elsewhere" "$G/alice"
chmod 755 "$T" "$S" "$G"
printf '#!/bin/sh\necho "hello from $SLURM_JOB_ID"\n' >"$T/job.sh"
chmod 644 "$T/job.sh"

jobs()
{
	stack_psql "select count(*) from jobs"
}

# refused TITLE DIR REGEX KSUBMIT-ARGS...: one line, exit 1, no job row.
refused()
{
	local title=$1 dir=$2 re=$3 out rc before
	shift 3
	before=$(jobs)
	out=$(cd "$dir" && as_user "$A" ksubmit "$@" "$T/job.sh" 2>&1 >/dev/null)
	rc=$?
	is "$title: exit status 1" "$rc" 1
	like "$title: one line naming the path" "$out" "^ksubmit: error: $re\$"
	is "$title: one line" "$(printf '%s\n' "$out" | wc -l)" 1
	is "$title: nothing written" "$(jobs)" "$before"
}

out=$(cd "$S/alice" && as_user "$A" ksubmit "$T/job.sh" 2>&1)
like "a job in a shared directory is accepted" "$out" \
    '^Submitted batch job [0-9]+$'
id=${out##* }
ok "it completes" wait_state "$id" COMPLETED
f=$S/alice/slurm-$id.out
is "its output is in the user's directory" "$(cat "$f" 2>/dev/null)" \
    "hello from $id"
is "owned by the user" "$(stat -c %U "$f" 2>/dev/null)" "$A"

refused "a working directory outside" "$T/elsewhere" \
    "working directory \"$T/elsewhere\" is not on a shared filesystem \\($S\\)"
refused "-D outside" "$S/alice" \
    "working directory \"/var/tmp\" is not on a shared filesystem \\($S\\)" \
    -D /var/tmp
refused "-o outside" "$S/alice" \
    "output file \"/tmp/out-%j.txt\" is not on a shared filesystem \\($S\\)" \
    -o /tmp/out-%j.txt
refused "-e climbing out" "$S/alice" \
    "error file \"../../elsewhere/e\" is not on a shared filesystem \\($S\\)" \
    -e ../../elsewhere/e
out=$(cd "$S/alice" && as_user "$A" ksubmit -o "$S/alice/o-%j" -e "e-%j" \
    "$T/job.sh" 2>&1)
like "-o and -e on the filesystem are accepted" "$out" \
    '^Submitted batch job [0-9]+$'

# A partition's own list replaces the top-level one.
kaid_stop
python3 - "$T/kaid.yaml" "$G" <<'EOP'
import sys
p, g = sys.argv[1], sys.argv[2]
s = open(p).read()
s = s.replace("  - name: gpu\n", "  - name: gpu\n    filesystems:\n"
              "      - path: %s\n        hostPath: %s\n" % (g, g), 1)
open(p, "w").write(s)
EOP
kaid_start || bail_out "kaid did not restart"
refused "the top-level filesystem in a partition with its own" "$S/alice" \
    "working directory \"$S/alice\" is not on a shared filesystem \\($G\\)" \
    -p gpu
out=$(cd "$G/alice" && as_user "$A" ksubmit -p gpu "$T/job.sh" 2>&1)
like "the partition's own filesystem is accepted" "$out" \
    '^Submitted batch job [0-9]+$'
out=$(cd "$S/alice" && as_user "$A" ksubmit -p batch "$T/job.sh" 2>&1)
like "other partitions keep the top-level list" "$out" \
    '^Submitted batch job [0-9]+$'

# Moving a pending job to a partition whose filesystems miss its files.
id=$(cd "$S/alice" && as_user "$A" ksubmit --parsable -H -t 60 "$T/job.sh")
err=$(as_user "$A" kctl update job "$id" Partition=gpu 2>&1)
is "kctl update job to a partition without its directory is refused" \
    "$?:$err" \
    "1:kctl: error: working directory \"$S/alice\" is not on a shared filesystem ($G)"
is "and changes nothing" \
    "$(stack_psql "select queue from jobs where id = $id")" batch

done_testing
