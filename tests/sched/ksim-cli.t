#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# ksim-cli.t: ksim as a user meets it -- help and version, bad options,
# bad scenario files (one "ksim: error: FILE:LINE:COL: reason" line and
# exit 2), a failed check (one line per mismatch, exit 1), and the JSON
# it prints.

top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=${top_builddir:-.}
. "$top_srcdir/tests/lib/tap.sh"

ksim=$(cd "$top_builddir" && pwd)/clients/ksim
[ -x "$ksim" ] || skip_all "$ksim not built"

dir=$(mktemp -d "${TMPDIR:-/tmp}/kai-ksim-cli.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
trap 'exit 1' INT TERM HUP
cd "$dir" || exit 1

# run ARGS...: sets $out, $err, $rc
run()
{
	"$ksim" "$@" >"$dir/out" 2>"$dir/err" </dev/null
	rc=$?
	out=$(cat "$dir/out")
	err=$(cat "$dir/err")
}

# refuses TITLE FILE-CONTENT WANT-STDERR: exit 2 with exactly that line
refuses()
{
	printf '%s\n' "$2" >"$dir/bad.yaml"
	run bad.yaml
	is "$1: exit status" "$rc" 2
	is "$1: message" "$err" "$3"
	is "$1: nothing on stdout" "$out" ""
}

run -h
is "-h exits 0" "$rc" 0
like "-h prints the usage" "$out" '^usage: ksim \[options\] FILE'
run -V
is "-V exits 0" "$rc" 0
like "-V prints the version" "$out" '^ksim \(kaibatch\) '
run --bogus x.yaml
is "unknown option: exit 2" "$rc" 2
like "unknown option: named" "$err" 'ksim: error: unrecognized option "--bogus"'
run
is "no file: exit 2" "$rc" 2
run a.yaml b.yaml
is "two files without --check: exit 2" "$rc" 2
run missing.yaml
is "missing file: exit 2" "$rc" 2
like "missing file: named" "$err" '^ksim: error: missing.yaml: could not open: '

refuses "unknown key" "name: x
nodes:
  - {name: n0, gpuz: 2}" \
    'ksim: error: bad.yaml:3:16: unrecognized key "gpuz" in a node'
refuses "wrong type" "name: x
nodes:
  - {name: n0, gpus: two}" \
    'ksim: error: bad.yaml:3:22: invalid value "two": not a number'
refuses "unknown queue" "name: x
queues: []
jobs:
  - {name: j, queue: nope, tasks: [{gpus: 1}]}" \
    'ksim: error: bad.yaml:4:22: no queue "nope"'
refuses "running task without a node" "name: x
queues: [{name: q}]
jobs:
  - {name: j, queue: q, state: running, tasks: [{gpus: 1}]}" \
    'ksim: error: bad.yaml:4:49: a running or releasing task needs a node'
refuses "memory above the core's bound" "name: x
queues: [{name: q}]
jobs:
  - {name: j, queue: q, tasks: [{gpus: 1, memory_mib: 2147483648}]}" \
    "ksim: error: bad.yaml:4:33: memory_mib 2147483648 is above the scheduler's limit of 2147483647"
refuses "GPUs above the core's bound" "name: x
queues: [{name: q}]
jobs:
  - {name: j, queue: q, tasks: [{gpus: 256}]}" \
    "ksim: error: bad.yaml:4:33: gpus 256 is above the scheduler's limit of 255"
refuses "priority above 32 bits" "name: x
queues: [{name: q}]
jobs:
  - {name: j, queue: q, priority: 2147483648, tasks: [{gpus: 1}]}" \
    'ksim: error: bad.yaml:4:35: invalid value "2147483648": must be between -2147483648 and 2147483647'
refuses "anchors" "name: &a x" \
    'ksim: error: bad.yaml:1:7: YAML anchors are not allowed'
refuses "depth limit" "name: x
description: $(printf '[%.0s' $(seq 40))$(printf ']%.0s' $(seq 40))" \
    'ksim: error: bad.yaml:2:45: nested deeper than 32 levels'
refuses "syntax" "name: [x" \
    'ksim: error: bad.yaml:2:1: did not find expected '"','"' or '"']'"''
refuses "over-full node" "name: x
nodes: [{name: n0, gpus: 1}]
queues: [{name: q}]
jobs:
  - {name: j, queue: q, state: running, tasks: [{gpus: 1, node: n0}, {gpus: 1, node: n0}]}" \
    'ksim: error: bad.yaml: job "j": task 1: node "n0" has no free GPU for it'

cat >"$dir/ok.yaml" <<'YAML'
name: half "and" half
nodes: [{name: n0, gpus: 2}]
queues: [{name: q, gpu: {quota: 1}}]
jobs:
  - {name: a, queue: q, tasks: [{gpu_fraction: 0.5}]}
  - {name: b, queue: q, tasks: [{gpus: 3}]}
expect:
  running: {a: [n0]}
  pending: [b]
YAML
run --check ok.yaml
is "a passing check exits 0" "$rc" 0
is "a passing check says ok" "$out" "ok ok.yaml"
run ok.yaml
is "JSON: exit 0" "$rc" 0
like "JSON: the name is escaped" "$out" '"name": "half \\"and\\" half"'
like "JSON: a fraction prints as 0.5" "$out" '"gpu_index": \[0\], "gpu_fraction": 0.5\}'
like "JSON: fair shares, untracked CPU as -1" "$out" '"q": \{"gpu": 1, "cpu": -1, "memory": -1\}'
like "JSON: a pending job has its reason" "$out" '"reason": "a task needs 3 GPUs but no node has more than 2"'
if command -v python3 >/dev/null 2>&1; then
	printf '%s\n' "$out" | python3 -c 'import json,sys; json.load(sys.stdin)' 2>/dev/null
	is "JSON: parses" "$?" 0
fi

cat >"$dir/fail.yaml" <<'YAML'
name: fails
nodes: [{name: n0, gpus: 1}]
queues: [{name: q}]
jobs:
  - {name: j0, queue: q, tasks: [{gpus: 2}]}
expect:
  running: {j0: [n0, n0]}
  fair_share: {q: {gpu: 5}}
YAML
run --check fail.yaml ok.yaml
is "a failing check exits 1" "$rc" 1
is "one line per mismatch, then the passing file" "$out" \
    'fail.yaml: job "j0": expected running on [n0, n0], got pending (a task needs 2 GPUs but no node has more than 1)
fail.yaml: queue "q": expected a GPU fair share of 5, got 1
ok ok.yaml'
printf 'name: x\n' >"$dir/noexpect.yaml"
run --check noexpect.yaml
is "--check without expect: exit 2" "$rc" 2
done_testing
