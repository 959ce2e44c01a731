#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# t3110-pod-refused: the API server refuses a job's pod.  A refusal of the
# pod itself (413 too large, 422 invalid, 403 from Pod Security admission)
# fails the job with the server's message as its reason, after one try;
# it used to be created again four times a second for ever, the job
# CONFIGURING with no reason.  A refusal of the moment (503, a 403 for an
# exhausted quota) is tried again after delays that double, and the job
# runs once the server takes the pod.

. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/stack.sh"
stack_require
stack_require_kubesim

T=$(mktemp -d /tmp/kai-t3110.XXXXXX)
trap 'stack_stop "$T"; rm -rf "$T"' EXIT
stack_start "$T" || bail_out "could not start the stack"
A=$STACK_ALICE
chmod 755 "$T"
mkdir -p "$T/$A" && chown "$A:" "$T/$A"
printf '#!/bin/sh\nsleep 1\n' >"$T/$A/job.sh"
chown "$A:" "$T/$A/job.sh"

submit()
{
	(cd "$T/$A" && as_user "$A" ksubmit --parsable job.sh)
}
injected()
{
	kubesim_ctl /kubesim/stats |
	    python3 -c 'import json,sys; print(json.load(sys.stdin)["injected_failures"])'
}
# refuse CODE MESSAGE: every pod create is answered CODE with MESSAGE.
refuse()
{
	kubesim_ctl "/kubesim/fail?verb=create&resource=pods&code=$1&message=$(
	    python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1]))' "$2")" \
	    POST >/dev/null
}
reason()
{
	stack_psql "select reason from jobs where id = $1"
}

# 413: the pod is too large; it will be as large next time.
refuse 413 'the request is too large: limit is 3145728 bytes'
n0=$(injected)
id=$(submit)
ok "413: the job fails" wait_state "$id" FAILED 100
like "413: its reason is the API server's answer" "$(reason "$id")" \
    "kai-$id-0.*HTTP 413: the request is too large: limit is 3145728 bytes"
sleep 2
is "413: the pod was asked for once" "$(($(injected) - n0))" 1
like "413: kctl show job shows the reason" \
    "$(as_user "$A" kctl show job "$id")" 'JobState=FAILED Reason=.*HTTP 413'
kubesim_ctl /kubesim/fail DELETE >/dev/null

# 403 from Pod Security admission: the pod violates the namespace's level.
refuse 403 "pods \"x\" is forbidden: violates PodSecurity \"restricted:latest\": allowPrivilegeEscalation != false"
id=$(submit)
ok "403 (Pod Security): the job fails" wait_state "$id" FAILED 100
like "403 (Pod Security): with the admission's words" "$(reason "$id")" \
    'HTTP 403: .*violates PodSecurity "restricted:latest"'
kubesim_ctl /kubesim/fail DELETE >/dev/null

# 422: invalid.
refuse 422 'Pod "x" is invalid: spec.containers[0].image: Required value'
id=$(submit)
ok "422: the job fails" wait_state "$id" FAILED 100
like "422: with the reason" "$(reason "$id")" 'HTTP 422: .*is invalid'
kubesim_ctl /kubesim/fail DELETE >/dev/null

# A 403 for an exhausted quota passes: tried again, less and less often.
refuse 403 'pods "x" is forbidden: exceeded quota: compute, requested: cpu=1, used: cpu=8, limited: cpu=8'
n0=$(injected)
id=$(submit)
sleep 7
tries=$(($(injected) - n0))
diag "pod creates in 7 s of refusals: $tries (the tick runs every 200 ms)"
ok "quota: tried again, with growing delays (2 to 5 tries in 7 s)" \
    test "$tries" -ge 2 -a "$tries" -le 5
is "quota: the job waits, CONFIGURING" "$(stack_psql "select state from jobs where id = $id")" CONFIGURING
like "quota: kaid says when it tries next" "$(cat "$T/kaid.log")" \
    "job $id: could not create pod \"kai-$id-0\" \\(refusal [0-9]+, next try in [0-9]+ ms\\)"
kubesim_ctl /kubesim/fail DELETE >/dev/null
ok "quota: once the server takes the pod, the job runs" wait_state "$id" RUNNING 400

# Two 503s, then the server recovers.
kubesim_ctl "/kubesim/fail?verb=create&resource=pods&code=503&count=2" POST >/dev/null
id=$(submit)
ok "503: the job runs after the server recovers" wait_state "$id" RUNNING 200
ok "503: and completes" wait_state "$id" COMPLETED 200

done_testing
