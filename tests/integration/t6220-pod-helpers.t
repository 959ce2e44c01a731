#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# t6220-pod-helpers: kubernetes.pod_helpers configmap ships the job
# wrapper and the shims once: kaid creates one ConfigMap named after its
# content, holding exactly the files compiled into it, and every pod
# mounts it read-only at /kaibatch and runs /bin/sh /kaibatch/wrapper.sh,
# carrying no KAI_SHIM_* variable.  Prints (as diagnostics, not checked)
# the bytes kaid POSTs per pod, inline and with the ConfigMap, for a job
# submitted with --export=NONE and one from a typical login environment.
# (kubesim runs a pod's command on this host and mounts no volume, so the
# jobs of the ConfigMap mode fail here; the node tier runs them.)

. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/stack.sh"
stack_require
stack_require_kubesim

T=$(mktemp -d /tmp/kai-t6220.XXXXXX)
trap 'stack_stop "$T"; rm -rf "$T"' EXIT
KAID_POD_HELPERS=configmap
export KAID_POD_HELPERS
stack_start "$T" || bail_out "could not start the stack"
A=$STACK_ALICE
W=$T/work
mkdir -p "$W" && chown "$A:" "$W"
tool=$STACK_BIN/tests/tools/kai-podtext

py()	# EXPR over the JSON on stdin as p
{
	python3 -c "import json, sys; p = json.load(sys.stdin); print($1)"
}

cms=
for _ in $(seq 1 50); do
	cms=$(kubesim_ctl "/api/v1/namespaces/default/configmaps" |
	    py "' '.join(i['metadata']['name'] for i in p['items'])")
	[ -n "$cms" ] && break
	sleep 0.1
done
like "kaid creates one ConfigMap, named after its content" "$cms" \
    '^kaibatch-pod-[0-9a-f]{10}$'
CM=$(kubesim_ctl "/api/v1/namespaces/default/configmaps/$cms")
for f in wrapper signal scontrol srun; do
	key=$f
	case $f in wrapper|signal) key=$f.sh ;; esac
	is "it holds $key as compiled into kaid" \
	    "$(printf '%s' "$CM" | py "p['data']['$key']")" "$("$tool" "$f")"
done

# A typical login environment: what a login shell on a Debian login
# node exports (LS_COLORS from dircolors), plus a few site modules.
AU=$(id -u "$A")
LOGIN=(HOME="/home/$A" USER="$A" LOGNAME="$A" SHELL=/bin/bash
    PATH=/usr/local/bin:/usr/bin:/bin:/usr/local/games:/usr/games
    LANG=en_US.UTF-8 TERM=xterm-256color PWD="$W" SHLVL=1
    MAIL="/var/mail/$A" SSH_CLIENT="10.1.2.3 51234 22"
    SSH_CONNECTION="10.1.2.3 51234 10.1.0.10 22" SSH_TTY=/dev/pts/3
    XDG_SESSION_ID=4711 XDG_RUNTIME_DIR="/run/user/$AU"
    XDG_SESSION_TYPE=tty XDG_SESSION_CLASS=user
    DBUS_SESSION_BUS_ADDRESS="unix:path=/run/user/$AU/bus"
    MODULEPATH=/etc/environment-modules/modules:/usr/share/modules/modulefiles
    LOADEDMODULES=cuda/12.2:nccl/2.18:python/3.11
    CUDA_HOME=/opt/cuda/12.2 LD_LIBRARY_PATH=/opt/cuda/12.2/lib64:/opt/nccl/lib
    OLDPWD="/home/$A" _=/usr/bin/ksubmit
    LS_COLORS="$(dircolors -b | sed -n "s/^LS_COLORS='\\(.*\\)';\$/\\1/p")"
    KAI_CONTROLLER="$KAI_CONTROLLER" KAI_MUNGE_SOCKET="$KAI_MUNGE_SOCKET")

submit_none()
{
	(cd "$W" && as_user "$A" ksubmit --parsable --export=NONE --wrap "echo hi")
}
submit_login()
{
	(cd "$W" && as_user "$A" env -i "${LOGIN[@]}" \
	    "$STACK_BIN/clients/ksubmit" --parsable --wrap "echo hi")
}
# bytes ID: the body kaid POSTed for the job's pod, compact JSON.
bytes()
{
	local i
	for i in $(seq 1 100); do
		grep '"path": *"/api/v1/namespaces/default/pods"' "$T/kubesim.record" |
		    grep "\"kai-$1-0\"" | head -n 1 |
		    python3 -c 'import json, sys
for l in sys.stdin:
    b = json.loads(l)["body"]
    print(len(json.dumps(b, separators=(",", ":"), ensure_ascii=False).encode()))' |
		    grep . && return 0
		sleep 0.1
	done
	return 1
}

n1=$(submit_none)
l1=$(submit_login)
ok "both jobs are placed" wait_state "$l1" FAILED
P=$(kubesim_ctl "/api/v1/namespaces/default/pods?labelSelector=kaibatch.io/job-id%3D$n1" |
    py "json.dumps(p['items'][0] if p['items'] else {})")
if [ "$P" = "{}" ]; then
	# Finished pods are deleted: read what kaid sent instead.
	P=$(grep '"path": *"/api/v1/namespaces/default/pods"' "$T/kubesim.record" |
	    grep "\"kai-$n1-0\"" | head -n 1 | py "json.dumps(p['body'])")
fi
is "the pod runs the mounted wrapper" \
    "$(printf '%s' "$P" | py "p['spec']['containers'][0]['command']")" \
    "['/bin/sh', '/kaibatch/wrapper.sh']"
is "it mounts the ConfigMap read-only at /kaibatch" \
    "$(printf '%s' "$P" | py "[m for m in p['spec']['containers'][0]['volumeMounts'] if m['mountPath'] == '/kaibatch']")" \
    "[{'name': 'kai-helpers', 'mountPath': '/kaibatch', 'readOnly': True}]"
# The in-pod clients travel with them when kaid was built with them
# (configure: static libraries, no sanitizers).
kaistep_item=
[ -x "$STACK_BIN/pod/kaistep" ] &&
    kaistep_item=", {'key': 'kaistep.gz', 'path': 'kaistep.gz'}"
is "the files are executable, the shims in bin/" \
    "$(printf '%s' "$P" | py "[v['configMap'] for v in p['spec']['volumes'] if v['name'] == 'kai-helpers'][0]")" \
    "{'name': '$cms', 'defaultMode': 365, 'items': [{'key': 'wrapper.sh', 'path': 'wrapper.sh'}, {'key': 'signal.sh', 'path': 'signal.sh'}, {'key': 'scontrol', 'path': 'bin/scontrol'}, {'key': 'srun', 'path': 'bin/srun'}$kaistep_item]}"
is "no KAI_SHIM_* variable, KAI_HELPERS names the directory" \
    "$(printf '%s' "$P" | py "sorted(e['name'] + '=' + e.get('value', '') for e in p['spec']['containers'][0]['env'] if e['name'].startswith(('KAI_SHIM', 'KAI_HELPERS')))")" \
    "['KAI_HELPERS=/kaibatch']"
cm_none=$(bytes "$n1")
cm_login=$(bytes "$l1")

# The same two jobs with the helpers inline, as before.
kaid_stop
sed -i 's/^  pod_helpers: configmap$/  pod_helpers: inline/' "$T/kaid.yaml"
kaid_start || bail_out "kaid did not restart"
n2=$(submit_none)
l2=$(submit_login)
ok "inline, the jobs run" wait_state "$l2" COMPLETED
in_none=$(bytes "$n2")
in_login=$(bytes "$l2")
ok "the ConfigMap makes every pod smaller" \
    test "$cm_none" -lt "$in_none" -a "$cm_login" -lt "$in_login"
diag "bytes per pod POSTed, --export=NONE: inline $in_none, configmap $cm_none"
diag "bytes per pod POSTed, login environment: inline $in_login, configmap $cm_login"

done_testing
