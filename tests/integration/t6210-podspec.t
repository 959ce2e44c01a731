#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# t6210-podspec: the pod kaid makes for a job, as the API server stores
# it: the shared filesystems mounted at their paths, /dev/shm from
# memory and sized from --mem, the user's passwd and group files, HOME,
# USER and LOGNAME (with --export=NONE too), every rule of the
# "restricted" Pod Security Standard, and the failed container's log as
# its termination message.

. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/stack.sh"
stack_require
stack_require_kubesim

T=$(mktemp -d /tmp/kai-t6210.XXXXXX)
trap 'stack_stop "$T"; rm -rf "$T"' EXIT
S=$T/shared
KAID_CONF_EXTRA="jobs:
  shm_percent: 25
filesystems:
  - path: $S
    hostPath: $S
  - path: $T/ro
    pvc: datasets
    readOnly: true"
export KAID_CONF_EXTRA
stack_start "$T" || bail_out "could not start the stack"
A=$STACK_ALICE
AU=$(id -u "$A")
AG=$(id -g "$A")
AH=$(getent passwd "$A" | cut -d: -f6)
W=$S/alice
mkdir -p "$W" && chown "$A:" "$W" && chmod 755 "$T" "$S"
cat >"$W/ident.sh" <<'EOS'
#!/bin/sh
echo "HOME=$HOME USER=$USER LOGNAME=$LOGNAME"
sleep 30
EOS
chown "$A:" "$W/ident.sh"

# pod_json NAME: the pod as kubesim stores it.
pod_json()
{
	kubesim_ctl "/api/v1/namespaces/default/pods/$1"
}

# jq_py EXPR: EXPR evaluated over the JSON on stdin as p (python).
jq_py()
{
	python3 -c "import json, sys; p = json.load(sys.stdin); print($1)"
}

out=$(cd "$W" && as_user "$A" ksubmit --export=NONE --mem=1G -t 5 ident.sh 2>&1)
like "a job with --export=NONE is accepted" "$out" '^Submitted batch job [0-9]+$'
id=${out##* }
ok "it runs" wait_state "$id" RUNNING
P=$(pod_json "kai-$id-0")

vol()   # NAME FIELD: the volume's field as JSON
{
	printf '%s' "$P" | jq_py "json.dumps([v for v in p['spec']['volumes'] if v['name'] == '$1'][0].get('$2'), sort_keys=True)"
}
mnt()   # PATH: the container's mount at PATH as JSON
{
	printf '%s' "$P" | jq_py "json.dumps([m for m in p['spec']['containers'][0]['volumeMounts'] if m['mountPath'] == '$1'][0], sort_keys=True)"
}
is "the shared filesystem is a hostPath volume" "$(vol kai-fs-0 hostPath)" \
    "{\"path\": \"$S\", \"type\": \"Directory\"}"
is "mounted at the path users know" "$(mnt "$S")" \
    "{\"mountPath\": \"$S\", \"name\": \"kai-fs-0\"}"
is "a read-only claim" "$(vol kai-fs-1 persistentVolumeClaim)" \
    '{"claimName": "datasets", "readOnly": true}'
is "mounted read-only" "$(mnt "$T/ro")" \
    "{\"mountPath\": \"$T/ro\", \"name\": \"kai-fs-1\", \"readOnly\": true}"
is "/dev/shm is memory, 25% of --mem=1G" "$(vol kai-shm emptyDir)" \
    '{"medium": "Memory", "sizeLimit": "256Mi"}'
is "mounted at /dev/shm" "$(mnt /dev/shm)" \
    '{"mountPath": "/dev/shm", "name": "kai-shm"}'
is "/etc/passwd is one read-only file of the identity volume" \
    "$(mnt /etc/passwd)" \
    '{"mountPath": "/etc/passwd", "name": "kai-identity", "readOnly": true, "subPath": "passwd"}'
is "so is /etc/group" "$(mnt /etc/group)" \
    '{"mountPath": "/etc/group", "name": "kai-identity", "readOnly": true, "subPath": "group"}'
passwd=$(printf '%s' "$P" | jq_py "p['metadata']['annotations']['kaibatch.io/passwd']")
like "the passwd names the job's user with its home" "$passwd" \
    "^$A:x:$AU:$AG::$AH:/bin/sh\$"
like "and root" "$passwd" '^root:x:0:0:root:/root:/bin/sh$'
group=$(printf '%s' "$P" | jq_py "p['metadata']['annotations']['kaibatch.io/group']")
like "the group file names the user's group" "$group" \
    "^$(getent group "$AG" | cut -d: -f1):x:$AG:\$"
is "the files come from the pod's annotations" "$(vol kai-identity downwardAPI)" \
    '{"items": [{"fieldRef": {"fieldPath": "metadata.annotations['"'"'kaibatch.io/passwd'"'"']"}, "path": "passwd"}, {"fieldRef": {"fieldPath": "metadata.annotations['"'"'kaibatch.io/group'"'"']"}, "path": "group"}]}'

sc=$(printf '%s' "$P" | jq_py "json.dumps(p['spec']['securityContext'], sort_keys=True)")
csc=$(printf '%s' "$P" | jq_py "json.dumps(p['spec']['containers'][0]['securityContext'], sort_keys=True)")
like "restricted: runAsNonRoot" "$sc" '"runAsNonRoot": true'
like "restricted: seccompProfile RuntimeDefault" "$sc" \
    '"seccompProfile": \{"type": "RuntimeDefault"\}'
like "restricted: allowPrivilegeEscalation false" "$csc" \
    '"allowPrivilegeEscalation": false'
like "restricted: capabilities drop ALL" "$csc" \
    '"capabilities": \{"drop": \["ALL"\]\}'
is "the failed container's log is its termination message" \
    "$(printf '%s' "$P" | jq_py "p['spec']['containers'][0]['terminationMessagePolicy']")" \
    FallbackToLogsOnError
for _ in $(seq 1 50); do
	[ -s "$W/slurm-$id.out" ] && break
	sleep 0.1
done
is "HOME, USER and LOGNAME with --export=NONE" "$(head -n 1 "$W/slurm-$id.out")" \
    "HOME=$AH USER=$A LOGNAME=$A"
as_user "$A" kcancel "$id"

out=$(cd "$W" && as_user "$A" env HOME=/elsewhere ksubmit --export=ALL ident.sh 2>&1)
id=${out##* }
ok "a job exporting HOME runs" wait_state "$id" RUNNING
for _ in $(seq 1 50); do
	[ -s "$W/slurm-$id.out" ] && break
	sleep 0.1
done
is "keeps the HOME it exported" "$(head -n 1 "$W/slurm-$id.out")" \
    "HOME=/elsewhere USER=$A LOGNAME=$A"
as_user "$A" kcancel "$id"

done_testing
