# SPDX-License-Identifier: GPL-3.0-or-later
# shellcheck shell=bash
#
# stack.sh: the whole kaibatch stack on this machine, for the integration
# tests and the quickstart: a private PostgreSQL, a private munged,
# kubesim with simulated GPU nodes, and kaid, all in one directory, all
# stopped by the pid files they wrote.
#
#	. tests/lib/stack.sh
#	stack_start DIR [NODES.yaml]     # exports KAI_CONTROLLER, KAI_MUNGE_SOCKET,
#	                                 # KAID_HTTP (kaid's health/metrics URL)
#	as_user alice ksubmit job.sh
#	stack_stop DIR
#
# Needs: STACK_SRC (the source tree) and STACK_BIN (the build tree); they
# default to $top_srcdir and $top_builddir, which make check exports.

STACK_SRC=${STACK_SRC:-${top_srcdir:-.}}
STACK_BIN=${STACK_BIN:-${top_builddir:-.}}

# shellcheck source=tests/lib/pg.sh
. "$STACK_SRC/tests/lib/pg.sh"
# shellcheck source=tests/lib/munge.sh
. "$STACK_SRC/tests/lib/munge.sh"
# shellcheck source=contrib/k8s/realapi.sh
. "$STACK_SRC/contrib/k8s/realapi.sh"
# shellcheck source=contrib/k8s/nodetier.sh
. "$STACK_SRC/contrib/k8s/nodetier.sh"

# KAI_STACK_API=real: a real kube-apiserver with kubesim's kubelets
# (contrib/k8s/realapi.sh) instead of kubesim's API server, kaid with
# the RBAC-limited user "kaid".  The /kubesim/ control endpoints and
# kubesim.record exist only with kubesim (see stack_require_kubesim).
# KAI_STACK_API=node: the real API server with real nodes: containerd,
# kubelets and kube-controller-manager (contrib/k8s/nodetier.sh); jobs
# run in real containers of the job image, one node by default
# (contrib/k8s/nodes-node.yaml).  Tests say which tiers they can run on
# (stack_tiers).
STACK_API=${KAI_STACK_API:-kubesim}

# KAI_KAID_WRAPPER: a command line kaid is started under, as words, such
# as "valgrind -q --error-exitcode=99 --log-file=DIR/kaid.%p.log"
# (contrib/run-tests.sh's valgrind tier).  The wrapper must exec kaid in
# its own process (valgrind does), so kaid.pid stays kaid's pid.  Startup
# is then given a minute instead of ten seconds.
KAID_WRAPPER=${KAI_KAID_WRAPPER:-}

stack_free_port()
{
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# stack_missing: prints what this machine lacks to run the stack, if anything.
stack_missing()
{
	pg_find_bindir || { echo "initdb not found"; return; }
	command -v munged >/dev/null 2>&1 || [ -x /usr/sbin/munged ] ||
	    { echo "munged not found"; return; }
	python3 -c 'import yaml' 2>/dev/null || { echo "python3-yaml not found"; return; }
	command -v openssl >/dev/null 2>&1 || { echo "openssl not found"; return; }
	[ -x "$STACK_BIN/daemons/kaid/kaid" ] || { echo "kaid not built"; return; }
	case $STACK_API in
	kubesim) ;;
	real) realapi_missing ;;
	node) realapi_missing; nodetier_missing ;;
	*) echo "KAI_STACK_API=$STACK_API: expected kubesim, real or node" ;;
	esac
}

# stack_users: when root, make sure the test users exist.  Prints nothing
# and returns 1 when not root (the caller skips what needs them).
STACK_ALICE=kaitest-alice
STACK_BOB=kaitest-bob
stack_users()
{
	[ "$(id -u)" -eq 0 ] || return 1
	for u in "$STACK_ALICE" "$STACK_BOB"; do
		id "$u" >/dev/null 2>&1 ||
		    useradd --create-home --shell /bin/sh "$u" || return 1
		stack_user_entry "$u"
	done
}

# as_user USER CMD...: runs CMD as USER with this environment (the
# controller address, the munge socket, PATH) and USER's groups.  Every
# client call of a test goes through it, so USER's gid and home are
# looked up once (stack_user_entry) and kept in STACK_USER_ENTRY.
STACK_SELF=$(id -un)
declare -A STACK_USER_ENTRY=()
as_user()
{
	local u=$1 gid home
	shift
	if [ "$STACK_SELF" = "$u" ]; then
		"$@"
		return
	fi
	[ -n "${STACK_USER_ENTRY[$u]:-}" ] || stack_user_entry "$u"
	IFS=: read -r gid home <<<"${STACK_USER_ENTRY[$u]:-}"
	setpriv --reuid="$u" --regid="$gid" --init-groups \
	    env HOME="$home" USER="$u" LOGNAME="$u" "$@"
}

# stack_user_entry USER: keeps USER's "gid:home" in STACK_USER_ENTRY
# (nothing for an unknown user: setpriv then says what is wrong).
stack_user_entry()
{
	local ent gid home _x
	ent=$(getent passwd "$1") || return 0
	IFS=: read -r _x _x _x gid _x home _x <<<"$ent"
	STACK_USER_ENTRY[$1]=$gid:$home
}

stack_wait_file()
{
	local i
	for i in $(seq 1 "${2:-100}"); do
		[ -s "$1" ] && return 0
		sleep 0.1
	done
	return 1
}

# stack_wait_nodes: until kaid has listed its nodes (30 s), before a
# test that expects a submission refused for them: before that, kaid
# knows nothing impossible and takes the job.
stack_wait_nodes()
{
	local i
	for i in $(seq 1 300); do
		grep -q "node list synced" "$STACK_DIR/kaid.log" 2>/dev/null &&
		    return 0
		sleep 0.1
	done
	return 1
}

kubesim_start()
{
	local d=$1 nodes=$2 schema=${KAI_K8S_SCHEMA:-$STACK_SRC/../shared/k8s-openapi/swagger.json}
	local args=()

	[ -f "$schema" ] && args+=(--schema "$schema")
	# KUBESIM_VOLUMES=1: pods get their ConfigMap and Secret volumes.
	[ -n "${KUBESIM_VOLUMES:-}" ] && args+=(--volumes)
	mkdir -p "$d/kubesim"
	KUBESIM_TOKEN=$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')
	# The token never goes on a command line, where every local user
	# sees it (ps): kubesim reads it from a 0600 file, and curl its
	# header from another.
	(umask 077 &&
	    printf '%s\n' "$KUBESIM_TOKEN" >"$d/kubesim.token" &&
	    printf 'Authorization: Bearer %s\n' "$KUBESIM_TOKEN" \
	    >"$d/kubesim.auth") || return 1
	KUBESIM_AUTH=$d/kubesim.auth
	"$STACK_SRC/contrib/kubesim/kubesim" --listen 127.0.0.1:0 \
	    --port-file "$d/kubesim.port" --tls-dir "$d/kubesim" \
	    --token-file "$d/kubesim.token" --nodes "$nodes" \
	    --kubeconfig-out "$d/kubeconfig" --record "$d/kubesim.record" \
	    --pid-file "$d/kubesim.pid" --log-dir "$d/kubesim" "${args[@]}" \
	    >"$d/kubesim.log" 2>&1 &
	# 60 s: it makes its TLS keys first, which a loaded CI machine can
	# take many seconds over (10 s was not always enough)
	stack_wait_file "$d/kubesim.port" 600 || {
		echo "kubesim did not start:" >&2
		tail -n 20 "$d/kubesim.log" >&2
		return 1
	}
	KUBESIM_URL="https://127.0.0.1:$(cat "$d/kubesim.port")"
	export KUBESIM_TOKEN KUBESIM_URL KUBESIM_AUTH
}

# kubesim_ctl PATH [METHOD]: calls a kubesim control or API endpoint.
kubesim_ctl()
{
	curl -sS --cacert "$STACK_DIR/kubesim/ca.crt" \
	    -H "@$KUBESIM_AUTH" -X "${2:-GET}" \
	    "$KUBESIM_URL$1"
}

stack_write_conf()
{
	local d=$1 image='' fs='' helpers=inline pc='' listen=127.0.0.1 a b
	# KAID_POD_CONTROLLER=listen: the pods reach kaid where clients do
	# (kubesim's pods run on this host); on the node tier at the first
	# node's bridge address, so kaid listens on every address.
	case ${KAID_POD_CONTROLLER:-} in
	'') ;;
	listen)
		if [ "$STACK_API" = node ] && read -r a b <"$d/node-0/net"; then
			listen=0.0.0.0
			pc="
  pod_controller: 10.$a.$b.1:$KAID_PORT"
		else
			pc="
  pod_controller: 127.0.0.1:$KAID_PORT"
		fi ;;
	*) pc="
  pod_controller: $KAID_POD_CONTROLLER" ;;
	esac
	# kubesim's kubelets run a pod's command on this host and mount no
	# volume: they get the wrapper and shims inline; real kubelets (the
	# node tier) mount kaid's ConfigMap, kaid's default.
	[ "$STACK_API" = node ] && helpers=configmap
	# The node tier: jobs run in the job image, and /tmp, where the
	# tests keep their users' directories, is the filesystem the host
	# and the pods share (unless the test names its own).
	if [ "$STACK_API" = node ]; then
		image="
  image: $NODETIER_IMAGE"
		case ${KAID_CONF_EXTRA:-} in
		*filesystems:*) ;;
		*) fs="
filesystems:
  - path: /tmp
    hostPath: /tmp" ;;
		esac
	fi
	cat >"$d/kaid.yaml" <<EOC
# Written by tests/lib/stack.sh for a private stack in $d.
listen: $listen:$KAID_PORT
http_listen: 127.0.0.1:$KAID_HTTP_PORT
database: "host=$d/pg dbname=kaibatch user=kaibatch"
munge_socket: $KAI_MUNGE_SOCKET
log_level: ${KAID_LOG_LEVEL:-info}
kubernetes:
  kubeconfig: $d/kubeconfig
  namespace: default$image
  pod_helpers: ${KAID_POD_HELPERS:-$helpers}$pc
scheduler:
  interval: ${KAID_INTERVAL:-200ms}
partitions:
  - name: batch
    default: true
  - name: gpu
    max_time: 1-00:00:00
  - name: short
    max_time: "10"$fs
${KAID_CONF_EXTRA:-}
EOC
}

kaid_start()
{
	local d=$STACK_DIR
	local i tries=100
	rm -f "$d/kaid.pid"
	[ -z "$KAID_WRAPPER" ] || tries=600
	# shellcheck disable=SC2086 # the wrapper is a list of words
	$KAID_WRAPPER "$STACK_BIN/daemons/kaid/kaid" -F -f "$d/kaid.yaml" \
	    >>"$d/kaid.log" 2>&1 &
	echo $! >"$d/kaid.pid"
	# Ready when a client is answered.
	for i in $(seq 1 "$tries"); do
		"$STACK_BIN/clients/kqueue" --help >/dev/null 2>&1 || break
		if "$STACK_BIN/clients/kqueue" --noheader >/dev/null 2>&1; then
			return 0
		fi
		kill -0 "$(cat "$d/kaid.pid")" 2>/dev/null || break
		sleep 0.1
	done
	echo "kaid did not start:" >&2
	tail -n 20 "$d/kaid.log" >&2
	return 1
}

kaid_stop()
{
	local pid
	pid=$(cat "$STACK_DIR/kaid.pid" 2>/dev/null) || return 0
	kill "$pid" 2>/dev/null
	for _ in $(seq 1 50); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	kill -9 "$pid" 2>/dev/null
	rm -f "$STACK_DIR/kaid.pid"
}

kaid_kill9()
{
	local pid
	pid=$(cat "$STACK_DIR/kaid.pid" 2>/dev/null) || return 0
	kill -9 "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	rm -f "$STACK_DIR/kaid.pid"
}

# stack_start DIR [NODES]: everything, ready for clients.
stack_start()
{
	STACK_DIR=$1
	local nodes=${2:-$STACK_SRC/contrib/kubesim/nodes.example.yaml}
	# A test that does not declare its tiers runs on kubesim only;
	# KAI_TIER_ALL=1 runs it on the others anyway (to see which would hold).
	if [ "$STACK_API" != kubesim ] && [ -z "$STACK_TIERS_DECLARED" ] &&
	    [ -z "${KAI_TIER_ALL:-}" ]; then
		skip_all "not declared for the $STACK_API tier (stack_tiers): it runs on kubesim"
	fi
	[ "$STACK_API" = node ] && [ -z "${2:-}" ] &&
	    nodes=$STACK_SRC/contrib/k8s/nodes-node.yaml
	export STACK_DIR
	mkdir -p "$STACK_DIR" && chmod 755 "$STACK_DIR" || return 1
	pg_start "$STACK_DIR/pg" || return 1
	munge_start "$STACK_DIR/munge" || return 1
	KAI_MUNGE_SOCKET=$MUNGE_SOCKET
	if [ "$STACK_API" = real ]; then
		realapi_start "$STACK_DIR" "$nodes" || return 1
	elif [ "$STACK_API" = node ]; then
		nodetier_start "$STACK_DIR" "$nodes" || return 1
	else
		kubesim_start "$STACK_DIR" "$nodes" || return 1
	fi
	KAID_PORT=$(stack_free_port)
	KAID_HTTP_PORT=$(stack_free_port)
	while [ "$KAID_HTTP_PORT" = "$KAID_PORT" ]; do
		KAID_HTTP_PORT=$(stack_free_port)
	done
	KAI_CONTROLLER=127.0.0.1:$KAID_PORT
	KAID_HTTP=http://127.0.0.1:$KAID_HTTP_PORT
	export KAI_CONTROLLER KAI_MUNGE_SOCKET KAID_PORT KAID_HTTP_PORT KAID_HTTP
	stack_write_conf "$STACK_DIR"
	kaid_start
}

stack_stop()
{
	local d=${1:-$STACK_DIR} pid
	STACK_DIR=$d
	kaid_stop
	pid=$(cat "$d/kubesim.pid" 2>/dev/null) && kill "$pid" 2>/dev/null
	if [ "$STACK_API" = node ]; then
		nodetier_stop "$d"
	else
		realapi_stop "$d"
	fi
	munge_stop "$d/munge"
	pg_stop "$d/pg"
}

# stack_pod_calls [NS/]NAME: the calls that created, marked or deleted pod
# NAME of namespace NS (default: default), in order, one a line: "create
# 201", "bind 201", "patch/status 200
# DisruptionTarget:PreemptionByScheduler" (the conditions the patch sets,
# as type:reason), "delete 200 grace=5" (the
# gracePeriodSeconds asked for, "-" for none: the pod's own); from
# kubesim's record or the real API server's audit log.
stack_pod_calls()
{
	python3 - "$STACK_API" "$STACK_DIR" "$1" <<'EOP'
import json, sys, urllib.parse
api, d, name = sys.argv[1], sys.argv[2], sys.argv[3]
ns, _, name = name.rpartition("/")
ns = ns or "default"
base = "/api/v1/namespaces/%s/pods" % ns
def grace(query):
    q = urllib.parse.parse_qs(query or "")
    return "grace=" + q.get("gracePeriodSeconds", ["-"])[0]
def conds(body):
    c = ((body or {}).get("status") or {}).get("conditions") or []
    return " ".join("%s:%s" % (x.get("type"), x.get("reason")) for x in c)
if api == "kubesim":
    for line in open(d + "/kubesim.record"):
        r = json.loads(line)
        m, p, body = r.get("method"), r.get("path"), r.get("body")
        if m == "POST" and p == base and \
                ((body or {}).get("metadata") or {}).get("name") == name:
            print("create", r.get("status"))
        elif m == "POST" and p == "%s/%s/binding" % (base, name):
            print("bind", r.get("status"))
        elif m == "PATCH" and p == "%s/%s/status" % (base, name):
            print("patch/status", r.get("status"), conds(body))
        elif m == "DELETE" and p == "%s/%s" % (base, name):
            q = r.get("query")
            if isinstance(q, dict):
                q = urllib.parse.urlencode(q, doseq=True)
            print("delete", r.get("status"), grace(q))
else:
    for line in open(d + "/k8s/audit.log"):
        e = json.loads(line)
        ref = e.get("objectRef", {})
        if ref.get("namespace") != ns or ref.get("resource") != "pods":
            continue
        n = ref.get("name") or \
            ((e.get("requestObject") or {}).get("metadata") or {}).get("name")
        if n != name or e.get("stage") != "ResponseComplete":
            continue
        code = e.get("responseStatus", {}).get("code")
        sub = ref.get("subresource")
        if e.get("verb") == "create" and not sub:
            print("create", code)
        elif e.get("verb") == "create" and sub == "binding":
            print("bind", code)
        elif e.get("verb") == "patch" and sub == "status":
            print("patch/status", code, conds(e.get("requestObject")))
        elif e.get("verb") == "delete" and not sub:
            print("delete", code,
                  grace(urllib.parse.urlsplit(e.get("requestURI", "")).query))
EOP
}

# stack_pods_created: "TWICE TOTAL": how many pods of namespace default
# were created (201) more than once, and how many were created, from
# kubesim's record or the real API server's audit log (start-apiserver.sh).
stack_pods_created()
{
	python3 - "$STACK_API" "$STACK_DIR" <<'EOP'
import collections, json, sys
api, d = sys.argv[1], sys.argv[2]
made = collections.Counter()
if api == "kubesim":
    for line in open(d + "/kubesim.record"):
        r = json.loads(line)
        if (r.get("method") == "POST" and
                r.get("path") == "/api/v1/namespaces/default/pods" and
                r.get("status") == 201):
            made[r["body"]["metadata"]["name"]] += 1
else:
    for line in open(d + "/k8s/audit.log"):
        e = json.loads(line)
        ref = e.get("objectRef", {})
        if (e.get("verb") == "create" and e.get("stage") == "ResponseComplete"
                and ref.get("resource") == "pods"
                and ref.get("namespace") == "default"
                and not ref.get("subresource")
                and e.get("responseStatus", {}).get("code") == 201):
            name = ref.get("name") or \
                e.get("requestObject", {}).get("metadata", {}).get("name")
            made[name] += 1
print(sum(1 for n in made.values() if n > 1), len(made))
EOP
}

# stack_psql SQL: a query against the stack's database, unaligned output.
stack_psql()
{
	"$PG_BINDIR/psql" -X -q -A -t -h "$STACK_DIR/pg" -U kaibatch \
	    -d kaibatch -c "$1"
}

# wait_state JOBID STATE [TENTHS]: polls the job's state every tenth of
# a second until it is STATE, for up to TENTHS tenths (200).  On the node
# tier a pod takes a real container's start and stop (a second or more
# each on a loaded machine): three times as long.  The loop runs in the
# server, on one connection: a psql and a new backend every tenth of a
# second cost more CPU than most tests themselves.
wait_state()
{
	local n=${3:-200} out
	[ "$STACK_API" = node ] && n=$((n * 3))
	case $1 in
	'' | *[!0-9]*)
		echo "# wait_state: \"$1\" is not a job id" >&2
		return 1
		;;
	esac
	out=$(stack_psql "do \$\$
declare s text;
begin
	for i in 1..$n loop
		select state into s from jobs where id = $1;
		if s = '$2' then
			return;
		end if;
		perform pg_sleep(0.1);
	end loop;
	raise exception 'job $1 is %, not $2', coalesce(s, 'not in the database');
end \$\$" 2>&1) && return 0
	echo "# ${out#*ERROR:  }" | head -n 1 >&2
	return 1
}

# wait_for SECONDS CMD...: runs CMD every 0.1 s until it succeeds (0) or
# SECONDS have gone by (1).
wait_for()
{
	local n=$(($1 * 10))

	shift
	while [ "$n" -gt 0 ]; do
		"$@" && return 0
		sleep 0.1
		n=$((n - 1))
	done
	return 1
}

# stack_require: the preamble of every integration test; skips the whole
# test (TAP "1..0 # SKIP") when this machine cannot run the stack.
stack_require()
{
	local why
	[ -n "${KAI_SKIP_INTEGRATION:-}" ] &&
	    skip_all "integration tests disabled (KAI_SKIP_INTEGRATION)"
	why=$(stack_missing)
	[ -n "$why" ] && skip_all "$why"
	stack_users || skip_all "needs root to create the test users"
	PATH=$STACK_BIN/clients:$STACK_BIN/tests/tools:$PATH
	export PATH
}

# stack_require_kubesim: skips the whole test when it needs kubesim's
# own endpoints (/kubesim/fail, /kubesim/expire-watches, /kubesim/stats,
# kubesim.record), which the real API and node tiers do not have.
stack_require_kubesim()
{
	[ "$STACK_API" != kubesim ] &&
	    skip_all "needs kubesim's control endpoints (KAI_STACK_API=$STACK_API)"
	return 0
}

# stack_tiers TIER... [-- REASON]: the tiers (kubesim, real, node) this
# test runs on; on any other, the whole test is skipped with REASON.  A
# test that does not call it runs on kubesim only (stack_start skips it
# on the others).  A test names real when its subject is kaid's side of
# the API server (pods' specs, binding, deletion, status, events, logs,
# nodes, in-cluster credentials, owners): what the real server validates
# and answers.  A test whose subject is the clients, the protocol or the
# scheduler's decisions gains nothing from it but a minute of CPU.  The
# node tier runs jobs in containers, with the node's own cpu and memory
# and without the host's filesystem, so a test says when it holds there.
STACK_TIERS_DECLARED=
stack_tiers()
{
	local t why=
	for t in "$@"; do
		[ "$t" = -- ] && { why=1; continue; }
		[ -n "$why" ] && { why=$t; break; }
		if [ "$t" = "$STACK_API" ]; then
			STACK_TIERS_DECLARED=1
			return 0
		fi
	done
	[ "$why" = 1 ] && why=
	skip_all "not a ${STACK_API} tier test${why:+: $why}"
}

# kaid_stop_clean: stops kaid with SIGTERM and succeeds only if it exits
# 0 within 5 s with no sanitizer report in its log (the ASan/UBSan CI
# build makes this a leak and undefined-behaviour check of the daemon).
kaid_stop_clean()
{
	local pid rc
	pid=$(cat "$STACK_DIR/kaid.pid" 2>/dev/null) || return 1
	kill "$pid" 2>/dev/null || return 1
	for _ in $(seq 1 50); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	wait "$pid" 2>/dev/null
	rc=$?
	rm -f "$STACK_DIR/kaid.pid"
	if grep -qE 'Sanitizer|runtime error:' "$STACK_DIR/kaid.log"; then
		grep -E -A20 'Sanitizer|runtime error:' "$STACK_DIR/kaid.log" |
		    sed 's/^/# /'
		return 1
	fi
	[ "$rc" -eq 0 ]
}
