#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# t5000-http: kaid's HTTP endpoint (http_listen).  /healthz and /readyz
# answer the probes; /metrics is Prometheus text whose counters and
# gauges move when a job runs; bad, oversized, slow and surplus
# requests get their error status (or are closed) while kaid keeps
# serving its clients.

. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/stack.sh"

stack_require
command -v curl >/dev/null 2>&1 || skip_all "curl not found"

T=$(mktemp -d /tmp/kai-t5000.XXXXXX)
trap 'stack_stop "$T"; rm -rf "$T"' EXIT
stack_start "$T" || bail_out "could not start the stack"

# get PATH [CURL ARGS]: the body, a newline, the status code.
get()
{
	local p=$1
	shift
	curl -sS -m 10 -w '\n%{http_code}' "$@" "$KAID_HTTP$p"
}

# code PATH [CURL ARGS]: the status code alone.
code()
{
	local p=$1
	shift
	curl -sS -m 10 -o /dev/null -w '%{http_code}' "$@" "$KAID_HTTP$p"
}

# metric 'NAME{LABELS}': that sample's value, from a fresh scrape.
metric()
{
	curl -sS -m 10 "$KAID_HTTP/metrics" | awk -v k="$1" '$1 == k { print $2 }'
}

# wait_metric 'NAME{LABELS}' VALUE: polls until the sample has VALUE.
wait_metric()
{
	local i v
	for i in $(seq 1 100); do
		v=$(metric "$1")
		[ "$v" = "$2" ] && return 0
		sleep 0.1
	done
	echo "# $1 is \"$v\", not $2" >&2
	return 1
}

is "GET /healthz: 200 ok" "$(get /healthz)" $'ok\n\n200'
ok "GET /readyz: 200 once the cluster is synced" \
    wait_metric kaibatch_ready 1
is "GET /readyz says ok" "$(get /readyz)" $'ok\n\n200'
h=$(curl -sS -m 10 -I "$KAID_HTTP/healthz" | tr -d '\r')
is "HEAD /healthz: 200" "$(echo "$h" | head -n 1)" "HTTP/1.1 200 OK"
like "  with the length of the GET body" "$h" '^Content-Length: 3$'
like "every answer says Connection: close" "$h" '^Connection: close$'
is "an unknown path: 404" "$(code /nope)" 404
is "HTTP/1.0 is answered too" "$(code /healthz -0)" 200

# The exposition format: HELP and TYPE for every family, then samples.
page=$(curl -sS -m 10 -D "$T/mhdr" "$KAID_HTTP/metrics")
like "/metrics is text format 0.0.4" "$(tr -d '\r' <"$T/mhdr")" \
    '^[Cc]ontent-[Tt]ype: text/plain; version=0.0.4; charset=utf-8$'
bad=$(printf '%s\n' "$page" | grep -Ev '^# (HELP|TYPE) [a-z_]+ .+$' |
    grep -Ev '^[a-zA-Z_:][a-zA-Z0-9_:]*(\{([a-zA-Z_][a-zA-Z0-9_]*="([^"\\]|\\.)*",?)*\})? [-+0-9.eE]+$|^[^ ]+ (NaN|[-+]Inf)$')
is "every line is a comment or a sample" "$bad" ""
for m in kaibatch_build_info kaibatch_start_time_seconds kaibatch_jobs \
    kaibatch_jobs_finished_total kaibatch_submissions_total \
    kaibatch_sched_ticks_total kaibatch_sched_cycle_seconds \
    kaibatch_pods_created_total kaibatch_pods_bound_total \
    kaibatch_pods_failed_total kaibatch_kube_api_errors_total \
    kaibatch_queue_fair_share kaibatch_queue_allocated; do
	miss="$miss$(printf '%s\n' "$page" | grep -q "^# TYPE $m " || echo " $m")"
done
is "every documented family is there" "${miss:-}" ""
like "the cycle time is a histogram with a +Inf bucket" "$page" \
    'kaibatch_sched_cycle_seconds_bucket\{le="\+Inf"\} [1-9]'
like "fair share of the batch queue, in GPUs" "$page" \
    'kaibatch_queue_fair_share\{queue="batch",resource="gpu"\} [0-9]'
like "the version is in build_info" "$page" \
    'kaibatch_build_info\{version="[^"]+"\} 1'

# A job moves the counters and the gauges.
created=$(metric kaibatch_pods_created_total)
bound=$(metric kaibatch_pods_bound_total)
A=$STACK_ALICE
W=$T/work-alice
mkdir -p "$W" && chown "$A:" "$W"
printf '#!/bin/sh\n#SBATCH -J m\nsleep 3\n' >"$W/m.sh"
chown "$A:" "$W/m.sh"
out=$(cd "$W" && as_user "$A" ksubmit m.sh 2>&1)
like "a job is submitted" "$out" '^Submitted batch job [0-9]+$'
id=${out##* }
is "submissions accepted: 1" \
    "$(metric 'kaibatch_submissions_total{result="accepted"}')" 1
ok "job starts running" wait_state "$id" RUNNING
ok "jobs{batch,RUNNING} becomes 1" \
    wait_metric 'kaibatch_jobs{queue="batch",state="RUNNING"}' 1
is "jobs{batch,PENDING} is 0" \
    "$(metric 'kaibatch_jobs{queue="batch",state="PENDING"}')" 0
is "pods created: one more" "$(metric kaibatch_pods_created_total)" \
    $((created + 1))
is "pods bound: one more" "$(metric kaibatch_pods_bound_total)" \
    $((bound + 1))
ok "job completes" wait_state "$id" COMPLETED
ok "jobs{batch,RUNNING} back to 0" \
    wait_metric 'kaibatch_jobs{queue="batch",state="RUNNING"}' 0
is "jobs finished COMPLETED: 1" \
    "$(metric 'kaibatch_jobs_finished_total{state="COMPLETED"}')" 1
is "no pod failed" "$(metric kaibatch_pods_failed_total)" 0
out=$(cd "$W" && as_user "$A" ksubmit -p nosuch m.sh 2>&1)
is "a refused submission is counted" \
    "$(metric 'kaibatch_submissions_total{result="refused"}')" 1

# Bad requests: their status, and kaid unharmed.
g=$(get /metrics -X POST -d x)
is "POST: 405" "${g##*$'\n'}" 405
like "  naming the method" "$g" 'method "POST" not allowed'
like "  with Allow: GET, HEAD" "$(curl -sS -m 10 -i -X DELETE \
    "$KAID_HTTP/healthz" | tr -d '\r')" '^Allow: GET, HEAD$'
is "a garbage method: 400" "$(code /healthz -X 'G@RB/AGE')" 400
is "a request line of four words: 400" "$(code /healthz \
    --request-target '/healthz HTTP/2.0')" 400
big=$(head -c 9000 /dev/zero | tr '\0' a)
is "a header past 8 KiB: 431" "$(code /healthz -H "X-Big: $big")" 431
is "a target past 1 KiB: 414" "$(code "/${big:0:2000}")" 414
is "a large body after a GET is not read, the answer stands" \
    "$(code /healthz -X GET --data-binary "@$top_srcdir/doc/man/kaid.8")" 200

# A slow client: a partial head, then nothing; kaid answers 408 after
# its read timeout and serves clients meanwhile.
exec 3<>"/dev/tcp/127.0.0.1/$KAID_HTTP_PORT"
printf 'GET /healthz HTTP/1.1\r\nHost: x\r\n' >&3
q=$(as_user "$A" kqueue --noheader 2>&1)
is "kqueue answers while a slow head is open" "$?:$q" "0:"
slow=$(timeout 10 head -n 1 <&3 | tr -d '\r')
exec 3<&-
is "the slow request gets 408" "$slow" "HTTP/1.1 408 Request Timeout"

# 16 idle connections from one address, twice its limit: the oldest are
# displaced, and a probe still gets through (t1251 does more).
fds=()
for i in $(seq 1 16); do
	exec {fd}<>"/dev/tcp/127.0.0.1/$KAID_HTTP_PORT"
	fds+=("$fd")
done
sleep 0.3
is "a 17th connection is answered: it displaces an idle one" \
    "$(code /healthz 2>/dev/null)" 200
out=$(cd "$W" && as_user "$A" ksubmit m.sh 2>&1)
like "ksubmit works meanwhile" "$out" '^Submitted batch job [0-9]+$'
for fd in "${fds[@]}"; do exec {fd}<&-; done
sleep 0.3
is "closed: /healthz answers" "$(code /healthz)" 200
like "the displacements are counted" \
    "$(metric kaibatch_http_connections_refused_total)" '^[1-9]'
is "405s are counted" "$(metric 'kaibatch_http_requests_total{code="405"}')" 2

# PostgreSQL stops: a submission fails, kaid is not ready and says why;
# PostgreSQL is back: /readyz makes the connection again by itself.
pg_stop "$T/pg"
out=$(cd "$W" && as_user "$A" ksubmit m.sh 2>&1)
like "PostgreSQL down: ksubmit is refused" "$out" 'could not store the job'
is "  counted as a failed submission" \
    "$(metric 'kaibatch_submissions_total{result="failed"}')" 1
is "  /readyz 503: no database connection" "$(get /readyz)" \
    $'no database connection\n\n503'
is "  /healthz still 200" "$(code /healthz)" 200
pg_as_owner "$PG_BINDIR/pg_ctl" -D "$T/pg/pgdata" -l "$T/pg/pg.log" \
    -o "-k $T/pg -c listen_addresses='' -c fsync=on" -w -t 60 start \
    >/dev/null 2>&1 || bail_out "could not restart PostgreSQL"
for i in $(seq 1 100); do
	[ "$(code /readyz)" = 200 ] && break
	sleep 0.2
done
is "PostgreSQL back: /readyz 200 again" "$(get /readyz)" $'ok\n\n200'
out=$(cd "$W" && as_user "$A" ksubmit m.sh 2>&1)
like "  and ksubmit works" "$out" '^Submitted batch job [0-9]+$'

# With kubesim's injected failures: a failed pod create is counted, and
# a kaid that cannot list pods is alive but not ready, and says why.
if [ "$STACK_API" = kubesim ]; then
	kubesim_ctl "/kubesim/fail?verb=create&resource=pods&code=503&count=1" \
	    POST >/dev/null
	out=$(cd "$W" && as_user "$A" ksubmit m.sh 2>&1)
	ok "a pod create answered 503 is counted as failed" \
	    wait_metric kaibatch_pods_failed_total 1
	is "  and as an API error of verb create" \
	    "$(metric 'kaibatch_kube_api_errors_total{verb="create"}')" 1
	kaid_stop
	kubesim_ctl "/kubesim/fail?verb=list&resource=pods&code=503" POST \
	    >/dev/null
	kaid_start
	is "kaid without its pod list: /healthz 200" "$(code /healthz)" 200
	is "  /readyz 503 with the reason" "$(get /readyz)" \
	    $'pod list not loaded yet\n\n503'
	ok "  the failed lists are API errors of verb watch" \
	    test "$(metric 'kaibatch_kube_api_errors_total{verb="watch"}')" -ge 1
	kubesim_ctl /kubesim/fail DELETE >/dev/null
	ok "the list works again: /readyz 200" wait_metric kaibatch_ready 1
fi

ok "kaid stops cleanly on SIGTERM" kaid_stop_clean

done_testing
