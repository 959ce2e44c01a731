#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# clients-cli.t: the client programs given bad input.  Each mistake must
# give exactly one "prog: error: ..." line that names the option or file
# and the reason, nothing on stdout, and exit 2 -- without trying to reach
# kaid (KAI_CONTROLLER points at a closed port, so an attempt would show
# up as exit 3).  Also: -h/--help and -V, and exit 3 with a clear line
# when kaid cannot be reached.

top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=${top_builddir:-.}
. "$top_srcdir/tests/lib/tap.sh"

bin=$top_builddir/clients
for p in ksubmit kqueue kcancel kacct; do
	[ -x "$bin/$p" ] || skip_all "$bin/$p not built"
done

dir=$(mktemp -d "${TMPDIR:-/tmp}/kai-clients-cli.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
trap 'exit 1' INT TERM HUP
cd "$dir" || exit 1

export KAI_CONTROLLER=127.0.0.1:1
export KAI_CONF=$dir/no-such-kai.yaml
unset KAI_MUNGE_SOCKET

# run PROG ARGS...: sets $out, $err, $rc
run()
{
	local prog=$1
	shift
	"$bin/$prog" "$@" >"$dir/out" 2>"$dir/err" </dev/null
	rc=$?
	out=$(cat "$dir/out")
	err=$(cat "$dir/err")
}

# refuses TITLE WANT-STDERR PROG ARGS...: one exact line, exit 2
refuses()
{
	local title=$1 want=$2
	shift 2
	run "$@"
	is "$title: exit 2" "$rc" 2
	is "$title: the one error line" "$err" "$want"
	is "$title: nothing on stdout" "$out" ""
}

printf '#!/bin/sh\n#SBATCH -J hello\necho hello\n' >job.sh
printf '#!/bin/sh\n#SBATCH -J a\n#SBATCH --time=1-2-3\necho\n' >badtime.sh
printf '#!/bin/sh\n\n#SBATCH --cpus=2\n' >ambig.sh
printf '#!/bin/sh\n#SBATCH -n 4 (for 4 tasks)\n' >stray.sh
printf 'echo no shebang\n' >noshebang.sh
printf '#!/bin/sh\r\necho dos\r\n' >dos.sh
head -c 102401 /dev/zero | tr '\0' x >big.sh

# ksubmit: options
refuses "unknown option" 'ksubmit: error: unrecognized option "--foo"' \
	ksubmit --foo job.sh
refuses "unknown short option" 'ksubmit: error: unrecognized option "-y"' \
	ksubmit -y job.sh
refuses "missing argument" 'ksubmit: error: option "--time" requires an argument' \
	ksubmit --time
refuses "missing short argument" 'ksubmit: error: option "-t" requires an argument' \
	ksubmit -t
refuses "bad time" 'ksubmit: error: invalid time limit "abc"' \
	ksubmit -t abc job.sh
refuses "four time fields" 'ksubmit: error: invalid time limit "1:2:3:4"' \
	ksubmit --time=1:2:3:4 job.sh
refuses "bad memory" 'ksubmit: error: invalid memory size "1.5G"' \
	ksubmit --mem=1.5G job.sh
refuses "bad ntasks" 'ksubmit: error: invalid ntasks "x": not a number' \
	ksubmit -n x job.sh
refuses "ambiguous prefix" \
	'ksubmit: error: option "--cpus" is ambiguous (could be --cpus-per-task, --cpus-per-gpu)' \
	ksubmit --cpus=2 job.sh
refuses "flag with a value" \
	'ksubmit: error: option "--hold" does not take an argument' \
	ksubmit --hold=yes job.sh
refuses "sbatch option kaid cannot honour yet" \
	'ksubmit: error: --begin is not supported by kaid yet' \
	ksubmit --begin=now+1hour job.sh
refuses "wrap with a script" \
	'ksubmit: error: script arguments are not allowed with --wrap' \
	ksubmit --wrap true job.sh

# ksubmit: the script
refuses "missing script" \
	'ksubmit: error: could not open script "missing.sh": No such file or directory' \
	ksubmit missing.sh
refuses "script too large" \
	'ksubmit: error: script "big.sh" is too large: 102401 bytes (limit 102400)' \
	ksubmit big.sh
"$bin/ksubmit" <big.sh >"$dir/out" 2>"$dir/err"
is "script too large on stdin: exit 2" "$?" 2
is "script too large on stdin: the error" "$(cat "$dir/err")" \
	'ksubmit: error: script "stdin" is too large: 102401 bytes (limit 102400)'
refuses "empty script on stdin" 'ksubmit: error: script "stdin" is empty' \
	ksubmit
refuses "directive with a bad time names the line" \
	'ksubmit: error: badtime.sh:3: invalid time limit "1-2-3"' \
	ksubmit badtime.sh
refuses "ambiguous prefix in a directive" \
	'ksubmit: error: ambig.sh:3: option "--cpus" is ambiguous (could be --cpus-per-task, --cpus-per-gpu)' \
	ksubmit ambig.sh
refuses "stray word in a directive" \
	'ksubmit: error: stray.sh:2: invalid directive "(for": not an option' \
	ksubmit stray.sh
run ksubmit noshebang.sh
is "no shebang: exit 2" "$rc" 2
like "no shebang: the error" "$err" \
	'^ksubmit: error: script "noshebang.sh" does not start with "#!"'
run ksubmit dos.sh
is "DOS line breaks: exit 2" "$rc" 2
like "DOS line breaks: the error" "$err" \
	'^ksubmit: error: script "dos.sh" has DOS line breaks'
run ksubmit -t 5 badtime.sh
is "command line does not rescue a bad directive" "$rc" 2

# ksubmit: help, version, unreachable controller
run ksubmit -h
is "ksubmit -h: exit 0" "$rc" 0
like "ksubmit -h: usage" "$out" '^usage: ksubmit \[options\] script \[args\.\.\.\]'
like "ksubmit -h: lists --time" "$out" '-t, --time=TIME'
run ksubmit --help
is "ksubmit --help: exit 0" "$rc" 0
run ksubmit -V
is "ksubmit -V: exit 0" "$rc" 0
like "ksubmit -V: version line" "$out" '^ksubmit \(kaibatch\) [0-9]+\.[0-9]+'
run ksubmit -Q job.sh
is "unreachable controller: exit 3" "$rc" 3
like "unreachable controller: a clear line" "$err" \
	'^ksubmit: error: cannot connect to kaid at "127\.0\.0\.1:1": '
is "unreachable controller: nothing on stdout" "$out" ""
run ksubmit --wrap "echo hi"
is "--wrap reaches for kaid too" "$rc" 3

# kqueue
refuses "kqueue unknown option" 'kqueue: error: unrecognized option "--bogus"' \
	kqueue --bogus
refuses "kqueue bad state" 'kqueue: error: invalid job state "XX"' \
	kqueue -t PD,XX
refuses "kqueue bad job id" 'kqueue: error: invalid job id "12x"' \
	kqueue -j 12x
refuses "kqueue bad format" \
	'kqueue: error: invalid format "%.5i %@": unrecognized field "%@"' \
	kqueue -o '%.5i %@'
refuses "kqueue bad Format field" \
	'kqueue: error: invalid --Format field "Bogus"' kqueue -O JobID,Bogus
refuses "kqueue unknown user" \
	'kqueue: error: invalid user "no-such-user-kai": no such user' \
	kqueue -u no-such-user-kai
refuses "kqueue operand" 'kqueue: error: unexpected argument "42"' kqueue 42
run kqueue --help
is "kqueue --help: exit 0" "$rc" 0
like "kqueue --help: usage" "$out" '^usage: kqueue \[options\]'
run kqueue -V
like "kqueue -V" "$out" '^kqueue \(kaibatch\) '
run kqueue
is "kqueue, unreachable controller: exit 3" "$rc" 3

# kcancel
refuses "kcancel with nothing to cancel" \
	'kcancel: error: no job id and no filter given: nothing to cancel' \
	kcancel
refuses "kcancel bad job id" 'kcancel: error: invalid job id "4x2"' \
	kcancel 4x2
refuses "kcancel finished state" \
	'kcancel: error: invalid job state list "CD": only pending, configuring and running jobs can be cancelled' \
	kcancel -t CD
refuses "kcancel unknown option" 'kcancel: error: unrecognized option "-z"' \
	kcancel -z 1
run kcancel -h
is "kcancel -h: exit 0" "$rc" 0
like "kcancel -h: usage" "$out" '^usage: kcancel \[options\] \[JOBID\.\.\.\]'
run kcancel 42
is "kcancel, unreachable controller: exit 3" "$rc" 3

# kacct
refuses "kacct bad field" 'kacct: error: invalid field "Foo"
hint: "kacct -e" lists the fields.' kacct -o JobID,Foo
refuses "kacct bad width" 'kacct: error: invalid width in "JobName%x"' \
	kacct -o JobName%x
refuses "kacct bad start time" \
	'kacct: error: option "--starttime": invalid time "yesterdayish": unexpected "yesterdayish"' \
	kacct -S yesterdayish
refuses "kacct bad state" 'kacct: error: invalid job state "done"' \
	kacct -s "done"
refuses "kacct window backwards" \
	'kacct: error: start time 2024-01-02T00:00:00 is after end time 2024-01-01T00:00:00' \
	kacct -S 2024-01-02 -E 2024-01-01
run kacct -h
is "kacct -h: exit 0" "$rc" 0
like "kacct -h: usage" "$out" '^usage: kacct \[options\]'
run kacct -e
like "kacct -e lists fields" "$out" 'ElapsedRaw'
run kacct -j 1
is "kacct, unreachable controller: exit 3" "$rc" 3

done_testing
