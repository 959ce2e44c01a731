#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# t6450-submit-host: SLURM_SUBMIT_HOST in the job's environment, the name
# of the host ksubmit ran on, as sbatch sets it (issue 12 item 9), with
# --export=NONE too, and replacing one the submitter's shell had.  kaid
# passes it on and trusts it for nothing.

. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/stack.sh"
stack_require

T=$(mktemp -d /tmp/kai-t6450.XXXXXX)
trap 'stack_stop "$T"; rm -rf "$T"' EXIT
stack_start "$T" || bail_out "could not start the stack"
A=$STACK_ALICE
mkdir -p "$T/work" && chown "$A:" "$T/work"

run()
{
	local id
	id=$(cd "$T/work" && as_user "$A" env SLURM_SUBMIT_HOST=elsewhere \
	    ksubmit --parsable "$@" -o "$T/work/%j.out" \
	    --wrap 'echo "host=$SLURM_SUBMIT_HOST"')
	wait_state "$id" COMPLETED >/dev/null
	cat "$T/work/$id.out" 2>/dev/null
}

h=$(hostname)
is "SLURM_SUBMIT_HOST is the submitting host" "$(run)" "host=$h"
is "also with --export=NONE" "$(run --export=NONE)" "host=$h"

done_testing
