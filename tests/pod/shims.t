#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# shims: the shell kaid puts in job pods (pod/*.sh), run alone, as
# compiled into kaid (tests/tools/kai-podtext prints it): the scontrol
# and srun shims, and the wrapper with its output files, exit status,
# working directory and --signal timer.  The integration tests
# (t6200-podenv, t6300-signal, t3200-outcomes) run the same text in pods.

. "$top_srcdir/tests/lib/tap.sh"
tool=$top_builddir/tests/tools/kai-podtext
[ -x "$tool" ] || skip_all "tests/tools/kai-podtext not built"

W=$(mktemp -d "${TMPDIR:-/tmp}/kai-shims.XXXXXX") || bail_out "mktemp"
trap 'rm -rf "$W"' EXIT
mkdir "$W/bin" "$W/tmp" "$W/work"

# text NAME: the compiled text, trailing newlines included.
text()
{
	local t
	t=$("$tool" "$1"; printf x)
	printf '%s' "${t%x}"
}
for s in scontrol srun; do
	text $s >"$W/bin/$s" && chmod 755 "$W/bin/$s"
done

# --- what pod2c.sh compiles in
is "the wrapper is compiled without its comment lines" \
    "$(text wrapper)" "$(grep -v '^[[:space:]]*#' "$top_srcdir/pod/wrapper.sh")"
is "the timer is compiled without its comment lines" \
    "$(text signal)" "$(grep -v '^[[:space:]]*#' "$top_srcdir/pod/signal.sh")"
is "scontrol keeps its shebang and its name line" \
    "$(head -n 2 "$W/bin/scontrol")" \
    "$(printf '#!/bin/sh\n# scontrol as kaibatch provides it inside a job (see ksubmit(1)).')"
is "scontrol's other comment lines are left out" \
    "$(tail -n +3 "$W/bin/scontrol" | grep -c '^[[:space:]]*#')" 0
is "srun keeps its shebang" "$(head -n 1 "$W/bin/srun")" "#!/bin/sh"

# --- scontrol
sc()
{
	env -i PATH="$W/bin:/usr/bin:/bin" SLURM_JOB_NODELIST='kai-7-[0-1]' \
	    SLURM_JOB_ID=7 SLURM_JOB_NAME=envjob SLURM_JOB_USER=ann \
	    SLURM_JOB_UID=1000 SLURM_JOB_GID=100 SLURM_JOB_PARTITION=gpu \
	    SLURM_JOB_NUM_NODES=2 SLURM_NTASKS=2 SLURM_CPUS_PER_TASK=4 \
	    SLURM_SUBMIT_DIR=/home/ann scontrol "$@" 2>&1
	echo "rc=$?"
}
is "scontrol show hostnames expands ranges, padding and two brackets" \
    "$(sc show hostnames 'n[08-10],login,r[1-2]-g[1-2]' | tr '\n' ' ')" \
    "n08 n09 n10 login r1-g1 r1-g2 r2-g1 r2-g2 rc=0 "
is "scontrol show hostnames defaults to SLURM_JOB_NODELIST" \
    "$(sc show hostnames | tr '\n' ' ')" "kai-7-0 kai-7-1 rc=0 "
is "scontrol show hostname is the same command" \
    "$(sc show hostname 'a,b' | tr '\n' ' ')" "a b rc=0 "
is "an unclosed bracket is refused" "$(sc show hostnames 'x[3-')" \
    "$(printf 'scontrol: invalid host list "x[3-"\nrc=1')"
is "a descending range is refused" "$(sc show hostnames 'n[3-1]')" \
    "$(printf 'scontrol: invalid host list "n[3-1]"\nrc=1')"
is "a range that is not numeric is refused" "$(sc show hostnames 'n[a-b]')" \
    "$(printf 'scontrol: invalid host list "n[a-b]"\nrc=1')"
# The cases kai_hostlist_expand() is held to (tests/unit/model-hostlist).
while IFS= read -r case; do
	case $case in '#'* | '') continue ;; esac
	list=${case%% => *}
	want=${case#* => }
	got=$(sc show hostnames "$list")
	if [ "$want" = "!" ]; then
		is "hostnames \"$list\" is refused, with nothing on stdout" \
		    "$got" "scontrol: invalid host list \"$list\"
rc=1"
	else
		is "hostnames \"$list\"" "$got" "$(printf '%s\n' $want rc=0)"
	fi
done <"$top_srcdir/tests/lib/hostlist-cases.txt"
is "an empty list is refused" "$(sc show hostnames '')" \
    "$(printf 'scontrol: invalid host list ""\nrc=1')"
is "100000 names are allowed" "$(sc show hostnames 'n[0-99999]' | sed -n '$p;100000p' | tr '\n' ' ')" \
    "n99999 rc=0 "

is "scontrol show job prints this job from its environment" "$(sc show job)" \
    "$(printf '%s\n' 'JobId=7 JobName=envjob' '   UserId=ann(1000) GroupId=100' \
	'   JobState=RUNNING Partition=gpu' '   NumNodes=2 NumTasks=2 CPUs/Task=4' \
	'   NodeList=kai-7-[0-1]' '   WorkDir=/home/ann' 'rc=0')"
is "scontrol show job ID of this job is the same" "$(sc show job 7 | head -n 1)" \
    "JobId=7 JobName=envjob"
is "scontrol show job of another job is refused" "$(sc show job 8)" \
    "$(printf '%s\n' "scontrol: inside job 7 only this job can be shown; run 'kctl show job 8' on a login node" rc=1)"
like "other scontrol commands are refused" "$(sc show partition)" \
    "^scontrol: inside a kaibatch job only 'show hostnames \[LIST\]' and 'show job \[ID\]' are available; use kctl on a login node
rc=1$"
like "scontrol with no arguments is refused" "$(sc)" "use kctl on a login node
rc=1$"

# --- srun
sr()
{
	env -i PATH="$W/bin:/usr/bin:/bin" SLURM_PROCID="$1" srun "${@:2}" 2>&1
	echo "rc=$?"
}
is "srun runs the command" "$(sr 0 echo hi | tr '\n' ' ')" "hi rc=0 "
is "srun -n 1 runs on task 0" "$(sr 0 -n 1 echo x | tr '\n' ' ')" "x rc=0 "
is "srun -n 1 does not run on task 1" "$(sr 1 -n 1 echo x | tr '\n' ' ')" "rc=0 "
is "srun -n1 is read" "$(sr 1 -n1 echo x | tr '\n' ' ')" "rc=0 "
is "srun --ntasks=2 runs on task 1" "$(sr 1 --ntasks=2 echo x | tr '\n' ' ')" \
    "x rc=0 "
is "srun skips the values of other options" \
    "$(sr 0 --mem 4G -l -N 2 --ntasks-per-node 1 echo x | tr '\n' ' ')" "x rc=0 "
is "srun -- ends the options" "$(sr 0 -- echo -l | tr '\n' ' ')" "-l rc=0 "
is "srun returns the command's status" "$(sr 0 sh -c 'exit 3')" "rc=3"
is "srun with no command fails" "$(sr 0 -l | tr '\n' ' ')" \
    "srun: fatal: no command to execute rc=1 "
is "an option without its value fails" "$(sr 0 --mem | tr '\n' ' ')" \
    "srun: option --mem needs a value rc=1 "
is "srun -n with a non-number fails" "$(sr 0 -n x echo | tr '\n' ' ')" \
    'srun: invalid number of tasks "x" rc=1 '

# --- the wrapper
# wrap SCRIPT VAR=VALUE...: runs the wrapper as a pod does (sh -c TEXT
# kai-job a b) with SCRIPT as KAI_SCRIPT, output to $W/out unless a
# VAR says otherwise; prints the wrapper's own output and its status.
wrap()
{
	local script=$1
	shift
	(cd / && env -i PATH=/usr/bin:/bin TMPDIR="$W/tmp" \
	    KAI_SCRIPT="$script" KAI_SHIM_SCONTROL="$(text scontrol)" \
	    KAI_SHIM_SRUN="$(text srun)" KAI_WORKDIR="$W/work" \
	    KAI_STDOUT="$W/out" KAI_STDERR="$W/out" SLURM_PROCID=0 "$@" \
	    sh -c "$(text wrapper)" kai-job a b 2>&1)
	echo "rc=$?"
}
script='#!/bin/sh
echo "args: $*"
echo "to stderr" >&2
echo "hosts: $(scontrol show hostnames "n[1-2]" | tr "\n" " ")"
srun -n 1 echo "srun ran"
echo "pwd: $(pwd)"
exit 3'
echo old >"$W/out"
log=$(wrap "$script")
want="args: a b
to stderr
hosts: n1 n2 
srun ran
pwd: $W/work"
is "the script's output and errors go to one file, truncated" "$(cat "$W/out")" "$want"
is "the wrapper copies the file to its own output and exits as the script did" \
    "$log" "$want
rc=3"
is "the wrapper removes its private directory" "$(ls -A "$W/tmp")" ""

rm -f "$W/out" "$W/err"
wrap "$script" KAI_STDERR="$W/err" >/dev/null
is "with -e, errors go to their own file" "$(cat "$W/err")" "to stderr"
unlike "and not to the output file" "$(cat "$W/out")" "to stderr"

echo old >"$W/out"
log=$(wrap "$script" KAI_APPEND=1)
is "--open-mode=append keeps what the file held" "$(cat "$W/out")" "old
$want"
is "an appending wrapper copies only what this run wrote" "$log" "$want
rc=3"

echo old >"$W/out"
echo olderr >"$W/err"
wrap "$script" KAI_APPEND=1 KAI_STDERR="$W/err" >/dev/null
is "appending with -e keeps both files" "$(cat "$W/err")" "olderr
to stderr"

# (sh says why cd failed on the line before.)
like "a working directory that does not exist fails the job" \
    "$(wrap "$script" KAI_WORKDIR="$W/none")" \
    "kaibatch: cannot chdir to $W/none
rc=1$"
rm -rf "${W:?}"/tmp/*

# --signal: B: signals the batch shell; without it, what the script
# started and not the shell.
wait_loop='i=0; while [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done'
log=$(wrap "#!/bin/sh
trap 'echo shell got USR1; exit 0' USR1
$wait_loop
echo no signal" KAI_SIGNAL=USR1 KAI_SIGNAL_AFTER=1 KAI_SIGNAL_BATCH=1 \
    KAI_SHIM_SIGNAL="$(text signal)")
is "--signal=B:USR1 reaches the batch shell" "$log" "shell got USR1
rc=0"
log=$(wrap "#!/bin/sh
trap 'echo shell got USR1' USR1
sh -c 'trap \"echo child got USR1; exit 0\" USR1; $wait_loop; echo no signal'
echo script done" KAI_SIGNAL=USR1 KAI_SIGNAL_AFTER=1 \
    KAI_SHIM_SIGNAL="$(text signal)")
# (sh reports the sleep the signal killed.)
like "--signal=USR1 reaches the script's children" "$log" "child got USR1
script done
rc=0$"
unlike "and not the batch shell" "$log" "shell got"
is "the wrapper of a --signal job removes its directory" "$(ls -A "$W/tmp")" ""

# Stopping, as the kubelet does it: SIGTERM to the wrapper alone (the
# container's first process; here in a session of its own, as a pod's
# processes are), which passes it on to the script and what it started.
rm -f "$W/out"
(cd / && exec env -i PATH=/usr/bin:/bin TMPDIR="$W/tmp" \
    KAI_SCRIPT="#!/bin/sh
trap 'echo script got TERM; exit 7' TERM
echo started
$wait_loop
echo no TERM" KAI_SHIM_SCONTROL="$(text scontrol)" KAI_SHIM_SRUN="$(text srun)" \
    KAI_SHIM_SIGNAL="$(text signal)" SLURM_JOB_ID=41 SLURMD_NODENAME=kai-41-0 \
    KAI_WORKDIR="$W/work" KAI_STDOUT="$W/out" KAI_STDERR="$W/out" \
    setsid sh -c "$(text wrapper)" kai-job >/dev/null 2>&1) &
p=$!
for _ in $(seq 1 50); do
	grep -q started "$W/out" 2>/dev/null && break
	sleep 0.1
done
kill -TERM "$p"
wait "$p"
rc=$?
# (The script's sleep gets it too, and sh may say so: "Terminated".)
is "SIGTERM to the wrapper reaches the script, which may trap it" \
    "$(grep -v '^Terminated$' "$W/out" | grep -v '^slurmstepd:')" "started
script got TERM"
is "and the wrapper exits as the script did" "$rc" 7

# --- kubernetes.pod_helpers configmap: the files come from a directory
# laid out as kaid's ConfigMap volume (helpers.c: wrapper.sh, signal.sh,
# bin/scontrol, bin/srun, mode 0555), the pod runs /bin/sh DIR/wrapper.sh
# and carries no KAI_SHIM_* variable.
H=$W/helpers
mkdir -p "$H/bin"
text wrapper >"$H/wrapper.sh"
text signal >"$H/signal.sh"
text scontrol >"$H/bin/scontrol"
text srun >"$H/bin/srun"
chmod 0555 "$H/wrapper.sh" "$H/signal.sh" "$H/bin/scontrol" "$H/bin/srun"
mounted()
{
	local script=$1
	shift
	(cd / && env -i PATH=/usr/bin:/bin TMPDIR="$W/tmp" KAI_HELPERS="$H" \
	    KAI_SCRIPT="$script" KAI_WORKDIR="$W/work" KAI_STDOUT="$W/out" \
	    KAI_STDERR="$W/out" SLURM_PROCID=0 "$@" \
	    sh "$H/wrapper.sh" a b 2>&1)
	echo "rc=$?"
}
echo old >"$W/out"
is "from the helpers directory: the same run, shims on PATH" \
    "$(mounted "$script")" "$want
rc=3"
is "and the same file" "$(cat "$W/out")" "$want"
log=$(mounted "#!/bin/sh
trap 'echo shell got USR1; exit 0' USR1
$wait_loop
echo no signal" KAI_SIGNAL=USR1 KAI_SIGNAL_AFTER=1 KAI_SIGNAL_BATCH=1)
is "--signal's timer is read from the helpers directory" "$log" \
    "shell got USR1
rc=0"
is "nothing is left behind" "$(ls -A "$W/tmp")" ""
# The end of a job: SIGTERM to the wrapper (a deleted pod: kcancel) or
# its alarm at KAI_TIME_LIMIT write Slurm's line, send SIGTERM to the
# script and its processes, and SIGKILL KAI_KILL_WAIT seconds later.
# wrap_bg: the wrapper in the background, its pid in $wp.
wrap_bg()
{
	(cd / && exec env -i PATH=/usr/bin:/bin TMPDIR="$W/tmp" \
	    KAI_SCRIPT="$1" KAI_SHIM_SCONTROL="$(text scontrol)" \
	    KAI_SHIM_SRUN="$(text srun)" KAI_SHIM_SIGNAL="$(text signal)" \
	    KAI_WORKDIR="$W/work" KAI_STDOUT="$W/out" KAI_STDERR="$W/out" \
	    SLURM_PROCID=0 SLURM_JOB_ID=42 SLURMD_NODENAME=kai-42-0 \
	    KAI_KILL_WAIT=2 "${@:2}" setsid sh -c "$(text wrapper)" kai-job \
	    >"$W/log" 2>&1) &
	wp=$!
}
# until_file FILE: waits (up to 10 s) for FILE to exist.
until_file()
{
	local i=0
	while [ ! -e "$1" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
}
cat >"$W/child.sh" <<EOF
trap 'echo child got TERM; exit 0' TERM
touch "$W/ready"
$wait_loop
EOF
ckpt="#!/bin/sh
trap 'echo checkpoint on TERM; exit 7' TERM
sh $W/child.sh &
wait \$!
wait \$!
echo no TERM"
rm -f "$W/ready"
wrap_bg "$ckpt"
until_file "$W/ready"
kill -TERM "$wp"
wait "$wp"
rc=$?
like "SIGTERM to the wrapper: Slurm's CANCELLED line in the error file" \
    "$(cat "$W/out")" '^slurmstepd: error: \*\*\* JOB 42 ON kai-42-0 CANCELLED AT [0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8} \*\*\*$'
like "the script's TERM trap runs (checkpoint on TERM)" "$(cat "$W/out")" \
    "checkpoint on TERM"
like "its child gets SIGTERM too" "$(cat "$W/out")" "child got TERM"
is "the wrapper exits as the script did" "$rc" 7
unlike "not as a time limit" "$(cat "$W/out")" "TIME LIMIT"

rm -f "$W/ready"
wrap_bg "$ckpt" KAI_TIME_LIMIT=1
wait "$wp"
rc=$?
like "at KAI_TIME_LIMIT: the line says DUE TO TIME LIMIT" "$(cat "$W/out")" \
    '^slurmstepd: error: \*\*\* JOB 42 ON kai-42-0 CANCELLED AT [0-9T:-]{19} DUE TO TIME LIMIT \*\*\*$'
like "and the TERM trap runs" "$(cat "$W/out")" "checkpoint on TERM"
is "a wrapper whose alarm ended the job exits 124 (kaid: TIMEOUT)" "$rc" 124

# A script that ignores SIGTERM is killed KAI_KILL_WAIT seconds later.
wrap_bg '#!/bin/sh
trap "echo ignoring TERM" TERM
i=0; while [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
echo outlived the kill' KAI_TIME_LIMIT=1
start=$(date +%s)
wait "$wp"
rc=$?
took=$(($(date +%s) - start))
like "a script that ignores SIGTERM is told" "$(cat "$W/out")" "ignoring TERM"
unlike "and killed before it ends" "$(cat "$W/out")" "outlived the kill"
ok "after KAI_KILL_WAIT, not at once nor at its own end ($took s)" \
    test "$took" -ge 2 -a "$took" -lt 25
is "a killed script at its time limit is still a timeout" "$rc" 124
is "the ended wrappers remove their directories" "$(ls -A "$W/tmp")" ""
done_testing
