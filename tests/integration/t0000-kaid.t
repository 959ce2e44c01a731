#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# t0000-kaid: kaid's command line and configuration checking, before any
# stack is needed: -n says "configuration OK" or names the fault with
# file:line:column, usage errors exit 2.

. "$top_srcdir/tests/lib/tap.sh"
KAID=$top_builddir/daemons/kaid/kaid
[ -x "$KAID" ] || skip_all "kaid not built"
T=$(mktemp -d /tmp/kai-t0000.XXXXXX)
trap 'rm -rf "$T"' EXIT

cat >"$T/good.yaml" <<'EOC'
listen: 127.0.0.1:6820
database: "host=/tmp dbname=kaibatch password=sekrit"
kubernetes:
  kubeconfig: /etc/kaibatch/kubeconfig
partitions:
  - name: gpu
    default: true
    max_time: 2-00:00:00
EOC
out=$("$KAID" -n -f "$T/good.yaml" 2>&1)
is "a good file: configuration OK, exit 0" "$?:$out" "0:configuration OK"
out=$("$KAID" -n -v -f "$T/good.yaml" 2>&1)
like "-n -v prints the effective configuration" "$out" 'sched|interval'
unlike "with the password masked" "$out" 'sekrit'

printf 'database: "dbname=x"\nschedular:\n  interval: 1s\n' >"$T/typo.yaml"
out=$("$KAID" -n -f "$T/typo.yaml" 2>&1)
is "an unknown key: exit 1" "$?" 1
like "names file, line, column and key" "$out" \
    "^kaid: error: $T/typo.yaml:2:1: unrecognized key \"schedular\"$"

printf 'database: "dbname=x"\nscheduler:\n  interval: soon\n' >"$T/bad.yaml"
out=$("$KAID" -n -f "$T/bad.yaml" 2>&1)
is "a bad value: exit 1" "$?" 1
like "names the value and the key" "$out" "$T/bad.yaml:3:13: .*\"soon\".*scheduler.interval"

out=$("$KAID" -n -f "$T/missing.yaml" 2>&1)
is "a missing file: exit 1" "$?" 1
like "says which file" "$out" "missing.yaml"

out=$("$KAID" --frobnicate 2>&1)
is "an unknown option: exit 2" "$?" 2
out=$("$KAID" -V)
like "-V prints the version" "$out" '^kaid \(kaibatch\) [0-9]'
out=$("$KAID" -h)
like "-h prints the usage" "$out" '^usage: kaid'

# The example shipped in etc/ must pass its own check.
sed -e "s|^database:.*|database: \"dbname=kaibatch\"|" \
    "$top_srcdir/etc/kaid.yaml.example" >"$T/example.yaml"
out=$("$KAID" -n -f "$T/example.yaml" 2>&1)
is "etc/kaid.yaml.example passes kaid -n" "$out" "configuration OK"

done_testing
