#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# kaistep: the in-pod clients (pod/kaistep) alone: a static program,
# which runs the client its name (a link, as the wrapper makes them) or
# its first argument names, says what it can be called otherwise (exit
# 2), and without a job key refuses to make a request, naming what is
# missing (exit 3), before it connects anywhere.

. "$top_srcdir/tests/lib/tap.sh"
step=$top_builddir/pod/kaistep
[ -x "$step" ] || skip_all "pod/kaistep not built (configure: no static libraries)"

W=$(mktemp -d "${TMPDIR:-/tmp}/kai-kaistep.XXXXXX") || bail_out "mktemp"
trap 'rm -rf "$W"' EXIT

like "it is a static program (no loader, no shared libraries)" \
    "$(ldd "$step" 2>&1)" "not a dynamic executable|statically linked"
for pair in ksubmit:ksubmit sbatch:ksubmit kqueue:kqueue squeue:kqueue \
    kcancel:kcancel scancel:kcancel kctl:kctl; do
	name=${pair%%:*} prog=${pair#*:}
	ln -s "$step" "$W/$name"
	like "called $name, it is $prog" "$("$W/$name" --help 2>&1 | head -n 1)" \
	    "^usage: $prog "
done
like "kaistep NAME ARGS runs NAME" "$("$step" squeue --help 2>&1 | head -n 1)" \
    "^usage: kqueue "
out=$("$step" ls 2>&1)
is "another name: exit 2" "$?" 2
like "... with the names it answers to" "$out" \
    "^kaistep: error: call it as one of ksubmit sbatch kqueue squeue kcancel scancel kctl"
out=$(env -u KAI_JOB_KEY -u KAI_JOB_ID KAI_CONTROLLER=127.0.0.1:1 \
    "$W/squeue" 2>&1)
is "no job key: exit 3" "$?" 3
like "... naming what is missing" "$out" \
    "^kqueue: error: .*no job credential here: KAI_JOB_KEY and KAI_JOB_ID"
echo 0123 >"$W/bad.key"
out=$(KAI_JOB_KEY=$W/bad.key KAI_JOB_ID=7 KAI_CONTROLLER=127.0.0.1:1 \
    "$W/squeue" 2>&1)
like "a malformed key is refused" "$out" "job key \"$W/bad.key\" is not 64 hex digits"
out=$(KAI_JOB_KEY=$W/bad.key KAI_JOB_ID=x7 KAI_CONTROLLER=127.0.0.1:1 \
    "$W/squeue" 2>&1)
like "a bad KAI_JOB_ID is refused" "$out" "KAI_JOB_ID"
done_testing
