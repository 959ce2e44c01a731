#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# t1270-stack-secrets: the test stack and the quickstart (tests/lib/stack.sh)
# do not hand other local users kubesim's bearer token or the jobs'
# output: the token is not on any command line (ps shows every one to
# every user), its files are 0600, and kubesim's request record and pod
# logs are 0600 in a 0700 directory.

. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/stack.sh"

stack_require
[ "$STACK_API" = kubesim ] || skip_all "checks kubesim's own files"

T=$(mktemp -d /tmp/kai-t1270.XXXXXX)
trap 'stack_stop "$T"; rm -rf "$T"' EXIT
stack_start "$T" || bail_out "could not start the stack"
A=$STACK_ALICE
W=$T/work
mkdir -p "$W" && chown "$A:" "$W"
printf '#!/bin/sh\necho secret output\n' >"$W/j.sh"
chown "$A:" "$W/j.sh"

mode()
{
	stat -c %a "$1"
}

is "no command line holds kubesim's token" \
    "$(ps -eo args | grep -cF -f "$T/kubesim.token")" 0
is "the token file is 0600" "$(mode "$T/kubesim.token")" 600
is "curl's header file is 0600" "$(mode "$T/kubesim.auth")" 600
is "kubesim's request record is 0600" "$(mode "$T/kubesim.record")" 600
is "its pod log directory is 0700" "$(mode "$T/kubesim")" 700

out=$(cd "$W" && as_user "$A" ksubmit j.sh 2>&1)
like "a job is submitted" "$out" '^Submitted batch job [0-9]+$'
id=${out##* }
ok "it completes" wait_state "$id" COMPLETED
logs=$(find "$T/kubesim" -name "*kai-$id-*.log")
is "its pod log is 0600" "$(mode "$logs")" 600
is "  and other users cannot read it" \
    "$(as_user "$STACK_BOB" cat "$logs" 2>/dev/null)" ""

done_testing
