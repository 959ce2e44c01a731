#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# clients-parse-only.t: "ksubmit --parse-only --json" on scripts written
# from the survey of 23,000 real sbatch scripts
# (../shared/reference/sbatch-usage.md): every spelling and value of its
# syntax tables, its layout traps, the SBATCH_* variables, #KSUB, and
# every bad value -- one clear error line, exit 2, {"valid": false} with
# the same message, and nothing sent.  KAI_CONTROLLER points at a closed
# port: an attempt to reach kaid would show as exit 3.

# Single quotes keep $VARS literal on purpose: they are the values tested.
# shellcheck disable=SC2016
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=${top_builddir:-.}
. "$top_srcdir/tests/lib/tap.sh"

ksubmit=$(cd "$top_builddir" && pwd)/clients/ksubmit
[ -x "$ksubmit" ] || skip_all "$ksubmit not built"
command -v python3 >/dev/null 2>&1 || skip_all "python3 not found"

dir=$(mktemp -d "${TMPDIR:-/tmp}/kai-parse-only.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
trap 'exit 1' INT TERM HUP
cd "$dir" || exit 1

export KAI_CONTROLLER=127.0.0.1:1
export KAI_CONF=$dir/no-such-kai.yaml
export KAI_MUNGE_SOCKET=$dir/no-such-socket
for v in $(env | sed -n 's/^\(SBATCH_[A-Z0-9_]*\)=.*/\1/p'); do
	unset "$v"
done

# script NAME LINE...: a script with a shebang and the given lines
script()
{
	local name=$1
	shift
	{
		echo '#!/bin/bash'
		printf '%s\n' "$@"
		echo 'echo body'
	} >"$name"
}

# po ARGS...: ksubmit --parse-only --json ARGS; sets $out, $err, $rc
po()
{
	"$ksubmit" --parse-only --json "$@" >"$dir/out" 2>"$dir/err" </dev/null
	rc=$?
	out=$(cat "$dir/out")
	err=$(cat "$dir/err")
}

# get EXPR: EXPR over the JSON object d of $out, printed as JSON
get()
{
	printf '%s' "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(json.dumps(eval(sys.argv[1]), sort_keys=True, separators=(",", ":")))
' "$1" 2>&1
}

# Most checks are kept and judged together by one python3 at the end
# (check_all), because starting python3 for each of hundreds of checks
# would make the test slow.  A record is five NUL-terminated fields:
# title, JSON file, expression over d (and m), wanted JSON, m.
nres=0
: >"$dir/checks"

# defer TITLE EXPR WANT [M]: EXPR over the last $out must print WANT
defer()
{
	nres=$((nres + 1))
	printf '%s' "$out" >"$dir/res.$nres"
	printf '%s\0%s\0%s\0%s\0%s\0' "$1" "$dir/res.$nres" "$2" "$3" "${4-}" \
		>>"$dir/checks"
}

check_all()
{
	local status title got want
	python3 -c '
import json, sys
f = open(sys.argv[1], "rb").read().decode().split("\0")[:-1]
for i in range(0, len(f), 5):
    title, path, expr, want, m = f[i:i + 5]
    try:
        d = json.load(open(path))
        got = json.dumps(eval(expr, {"d": d, "m": m}), sort_keys=True,
                         separators=(",", ":"))
    except Exception as e:
        got = "exception: %r" % (e,)
    print("\t".join([str(int(got != want)), title, got, want]))
' "$dir/checks" >"$dir/judged"
	while IFS=$'\t' read -r status title got want; do
		tap_result "$status" "$title"
		if [ "$status" -ne 0 ]; then
			printf '#          got: "%s"\n#     expected: "%s"\n' "$got" "$want"
		fi
	done <"$dir/judged"
}

# val TITLE EXPR WANT ARGS...: po ARGS, then EXPR must print WANT
val()
{
	local title=$1 expr=$2 want=$3
	shift 3
	po "$@"
	if [ "$rc" -ne 0 ]; then
		is "$title: exit 0" "$rc" 0
		diag "stderr: $err"
		return
	fi
	defer "$title" "$expr" "$want"
}

# line TITLE EXPR WANT LINE...: val on a script made of LINE...
line()
{
	local title=$1 expr=$2 want=$3
	shift 3
	script job.sh "$@"
	val "$title" "$expr" "$want" job.sh
}

# bad TITLE MESSAGE ARGS...: exit 2, the one line (and perhaps a hint),
# and the JSON says so
bad()
{
	local title=$1 msg=$2
	shift 2
	po "$@"
	is "$title: exit 2" "$rc" 2
	is "$title: one error line" "$(printf '%s\n' "$err" | grep -v '^hint: ')" \
		"ksubmit: error: $msg"
	defer "$title: invalid JSON report" '[d["valid"], d["error"] == m, len(d)]' \
		'[false,true,2]' "$msg"
	"$ksubmit" "$@" >"$dir/out" 2>"$dir/err" </dev/null
	is "$title: a submission stops before sending (exit 2, same line)" \
		"$? $(grep -v '^hint: ' "$dir/err")" "2 ksubmit: error: $msg"
}

# badline TITLE MESSAGE LINE...: bad on a script made of LINE...
badline()
{
	local title=$1 msg=$2
	shift 2
	script job.sh "$@"
	bad "$title" "$msg" job.sh
}

# ---------------------------------------------------------------------
# The report itself
script plain.sh '#SBATCH -J hello'
po plain.sh
is "a plain script: exit 0" "$rc" 0
is "a plain script: nothing on stderr" "$err" ""
is "one line of JSON" "$(printf '%s\n' "$out" | wc -l)" 1
is "every key is there" "$(get 'sorted(d)')" \
	'["account","array","begin","chdir","cpus_per_gpu","cpus_per_task","dependency","error","export","gpu_devices","gpu_fraction","gpu_memory_mib","gpus","hold","image","job_name","mail_type","mail_user","memory","min_tasks","nodes","ntasks","ntasks_per_node","open_mode","partition","preemptible","priority_class","qos","refused","requeue","sched","signal","spec","stderr_pattern","stdin_pattern","stdout_pattern","time_limit_s","topology","valid","wait","warnings"]'
is "defaults" "$(get '[d["valid"], d["error"], d["job_name"], d["partition"], d["time_limit_s"], d["nodes"], d["ntasks"], d["memory"], d["gpus"], d["array"], d["requeue"], d["open_mode"], d["warnings"], d["refused"]]')" \
	'[true,null,"hello",null,null,null,null,null,[],null,null,null,[],[]]'
is "Slurm's output defaults" "$(get '[d["stdout_pattern"], d["stderr_pattern"], d["chdir"]]')" \
	"[\"slurm-%j.out\",\"slurm-%j.out\",\"$dir\"]"
is "export defaults to ALL" "$(get 'd["export"]')" '{"mode":"ALL","pass":[],"set":{}}'
is "the per-task request" "$(get 'd["spec"]')" \
	'{"cpus_per_task":0,"exclusive":false,"gpus_per_node":0,"gpus_per_task":0,"mem_mib_per_task":0,"mem_whole_node":false,"ntasks":1,"ntasks_per_node":0}'
"$ksubmit" --parse-only plain.sh >"$dir/pretty" 2>&1
is "--parse-only alone prints it pretty: exit 0" "$?" 0
ok "--parse-only alone prints it pretty: several lines" \
	test "$(wc -l <"$dir/pretty")" -gt 20
"$ksubmit" --json plain.sh >"$dir/out" 2>"$dir/err"
is "--json alone: exit 2" "$?" 2
is "--json alone: the error" "$(cat "$dir/err")" \
	'ksubmit: error: option "--json" needs "--parse-only"'
"$ksubmit" --parse-only --json <plain.sh >"$dir/out" 2>"$dir/err"
out=$(cat "$dir/out")
is "a script on stdin" "$(get 'd["job_name"]')" '"hello"'
"$ksubmit" --parse-only --json --wrap "hostname" >"$dir/out" 2>"$dir/err"
out=$(cat "$dir/out")
is "--wrap" "$(get '[d["valid"], d["job_name"]]')" '[true,"wrap"]'
script nodir.sh
val "the job name defaults to the script's base name" 'd["job_name"]' '"nodir.sh"' \
	"$dir/nodir.sh"

# ---------------------------------------------------------------------
# Section 3: how directives are spelled
line "--opt=value" 'd["time_limit_s"]' 3600 '#SBATCH --time=1:00:00'
line "-x value" 'd["time_limit_s"]' 3600 '#SBATCH -t 60'
line "--opt value" 'd["time_limit_s"]' 3600 '#SBATCH --time 60'
line "--flag" 'd["hold"]' true '#SBATCH --hold'
line "-xVALUE: -N1 -n4 -c8 -G1 -t120" \
	'[d["nodes"], d["ntasks"], d["cpus_per_task"], d["gpus"], d["time_limit_s"]]' \
	'[{"max":1,"min":1},4,8,[{"count":1,"per":"job","type":null}],7200]' \
	'#SBATCH -N1 -n4 -c8 -G1 -t120'
line "several options on one line: -N 1 -n 4" '[d["nodes"]["min"], d["ntasks"]]' '[1,4]' \
	'#SBATCH -N 1 -n 4'
line "several options: -N1 --ntasks-per-node=32 --gres=gpu:1" \
	'[d["nodes"]["min"], d["ntasks_per_node"], d["gpus"][0]["count"]]' '[1,32,1]' \
	'#SBATCH -N1 --ntasks-per-node=32 --gres=gpu:1'
line "several options: -A proj -p alvis" '[d["account"], d["partition"]]' \
	'["proj","alvis"]' '#SBATCH -A proj -p alvis'
line "several options: --gpus=1 -C \"thin\"" \
	'[d["gpus"][0]["count"], d["warnings"], d["sched"]["features"]]' \
	'[1,[],"thin"]' '#SBATCH --gpus=1 -C "thin"'
line "several options: -e x.err -o x.out" '[d["stderr_pattern"], d["stdout_pattern"]]' \
	'["x.err","x.out"]' '#SBATCH -e x.err -o x.out'
line "several options: --mail-user=a@b --mail-type=FAIL" \
	'[d["mail_user"], d["mail_type"], d["warnings"]]' \
	'["a@b","FAIL",[]]' '#SBATCH --mail-user=a@b --mail-type=FAIL'
line "a trailing comment" 'd["memory"]' '{"mib":32768,"per":"node"}' \
	'#SBATCH --mem=32G   # per node'
line "an unquoted # ends the value" 'd["job_name"]' '"exp"' '#SBATCH --job-name=exp#2'
line "a quoted # is kept" 'd["stdout_pattern"]' '"logs/####_%j.out"' \
	"#SBATCH --output='logs/####_%j.out'"
line "--job-name=\"sum_omp\"" 'd["job_name"]' '"sum_omp"' '#SBATCH --job-name="sum_omp"'
line "-J 'bseds_np'" 'd["job_name"]' '"bseds_np"' "#SBATCH -J 'bseds_np'"
line "--job-name \"my job\"" 'd["job_name"]' '"my job"' '#SBATCH --job-name "my job"'
line "--export=KEY=\"<value>\"" 'd["export"]' \
	'{"mode":"LIST","pass":[],"set":{"KEY":"<value>"}}' '#SBATCH --export=KEY="<value>"'
line "a backslash escapes" 'd["image"]' '"ghcr.io#org/img"' '#KSUB --image=ghcr.io\#org/img'
line "blank lines, headings and banners among directives" \
	'[d["job_name"], d["time_limit_s"], d["ntasks"]]' '["a",600,2]' \
	'##########' '# licence header' '' '#SBATCH -J a' '' '## Nodes' \
	'#SBATCH -t 10' '#' '   ' '#SBATCH -n 2'
line "--tasks is --tasks-per-node, not --ntasks" '[d["ntasks"], d["ntasks_per_node"]]' \
	'[null,4]' '#SBATCH --tasks=4'
line "--out= --err= --constrain=" \
	'[d["stdout_pattern"], d["stderr_pattern"], d["sched"]["features"]]' \
	'["o.txt","e.txt","x"]' '#SBATCH --out=o.txt --err=e.txt --constrain=x'
badline "--cpus= is ambiguous" \
	'job.sh:2: option "--cpus" is ambiguous (could be --cpus-per-task, --cpus-per-gpu)' \
	'#SBATCH --cpus=4'
badline "--mail= is ambiguous" \
	'job.sh:2: option "--mail" is ambiguous (could be --mail-type, --mail-user)' \
	'#SBATCH --mail=a@b'
line "repeated --time: the last wins" 'd["time_limit_s"]' 1200 '#SBATCH -t 10' '#SBATCH -t 20'
line "repeated --gres: the last wins" 'd["gpus"]' '[{"count":4,"per":"node","type":null}]' \
	'#SBATCH --gres=gpu:2' '#SBATCH --gres=gpu:4'
line "repeated --signal: the last wins" 'd["signal"]["name"]' '"USR2"' \
	'#SBATCH --signal=USR1@60' '#SBATCH --signal=USR2@60'
line "--requeue then --no-requeue" 'd["requeue"]' false '#SBATCH --requeue' '#SBATCH --no-requeue'
line "--no-requeue then --requeue" 'd["requeue"]' true '#SBATCH --no-requeue' '#SBATCH --requeue'
line "--mail-type twice: the last wins" 'd["mail_type"]' '"FAIL"' \
	'#SBATCH --mail-type=END' '#SBATCH --mail-type=FAIL'
line "-J \$1 stays \$1" 'd["job_name"]' '"$1"' '#SBATCH -J $1'
line "\${HOME} is not expanded" 'd["stdout_pattern"]' '"${HOME}/logs/%j.out"' \
	'#SBATCH --output=${HOME}/logs/%j.out'
line "\$USER is not expanded" 'd["stdout_pattern"]' '"log_$USER_%Y-%m-%d.out"' \
	'#SBATCH --output=log_$USER_%Y-%m-%d.out'
line "--mail-type=all in lower case" 'd["mail_type"]' \
	'"INVALID_DEPEND,BEGIN,END,FAIL,REQUEUE,STAGE_OUT"' '#SBATCH --mail-type=all'
line "--mail-type: an unknown type next to known ones is dropped, as sbatch does" \
	'[d["mail_type"], d["warnings"]]' '["END,TIME_LIMIT_80",[]]' \
	'#SBATCH --mail-type=time_limit_80,END,SOMETIMES'
line "--mail-type=NONE" 'd["mail_type"]' '"NONE"' '#SBATCH --mail-type=NONE'
badline "--mail-type=BOGUS is refused" \
	'job.sh:2: Invalid --mail-type specification "BOGUS": expected NONE, BEGIN, END, FAIL, REQUEUE, ALL, INVALID_DEPEND, STAGE_OUT, TIME_LIMIT, TIME_LIMIT_90, TIME_LIMIT_80, TIME_LIMIT_50 or ARRAY_TASKS' \
	'#SBATCH --mail-type=BOGUS'
badline "--mail-user=-x is refused" \
	"job.sh:2: invalid --mail-user \"-x\": may not begin with '-'" \
	'#SBATCH --mail-user=-x'
line "--export=all" 'd["export"]["mode"]' '"ALL"' '#SBATCH --export=all'
line "--export=none" 'd["export"]["mode"]' '"NONE"' '#SBATCH --export=none'
for m in 64gb 64Gb 64GB 64G 64g; do
	line "--mem=$m" 'd["memory"]["mib"]' 65536 "#SBATCH --mem=$m"
done

# ---------------------------------------------------------------------
# Section 4: time limits, every format and value of the table
while read -r t want; do
	line "--time=$t" 'd["time_limit_s"]' "$want" "#SBATCH --time=$t"
done <<'EOF'
24:00:00 86400
00:30:00 1800
48:00:00 172800
1:00:00 3600
72:00:00 259200
23:59:59 86400
100:00:00 360000
960:00:00 3456000
1:0:0 3600
24:0:00 86400
00:1:00 60
00:00:30 60
00:05:30 360
7-00:00:00 604800
3-00:00:00 259200
1-00:00:00 86400
0-01:00:00 3600
4-23:00:00 428400
00-05:00:00 18000
0-08:00 28800
2-00:00 172800
0-1:00 3600
3-6:30 282600
30 1800
90 5400
240 14400
960 57600
1440 86400
20000 1200000
30:00 1800
20:00 1200
1:30 120
2-12 216000
1-10 122400
5-0 432000
2- 172800
0 0
UNLIMITED 0
INFINITE 0
EOF
for t in TIME __walltime__ 28:00:00:00 1-2-3; do
	badline "--time=$t" "job.sh:2: invalid time limit \"$t\"" "#SBATCH --time=$t"
done

# Memory, every suffix of the tables
while read -r opt m per mib; do
	line "--$opt=$m" 'd["memory"]' "{\"mib\":$mib,\"per\":\"$per\"}" "#SBATCH --$opt=$m"
done <<'EOF'
mem 32G node 32768
mem 93G node 95232
mem 64GB node 65536
mem 20000 node 20000
mem 32000 node 32000
mem 8000 node 8000
mem 64gb node 65536
mem 32000M node 32000
mem 16384M node 16384
mem 64g node 65536
mem 64Gb node 65536
mem 500MB node 500
mem 500mb node 500
mem 1T node 1048576
mem 1tb node 1048576
mem-per-cpu 2000 cpu 2000
mem-per-cpu 4096 cpu 4096
mem-per-cpu 8048 cpu 8048
mem-per-cpu 4G cpu 4096
mem-per-cpu 3900M cpu 3900
mem-per-cpu 7000M cpu 7000
mem-per-cpu 64000M cpu 64000
mem-per-cpu 2000mb cpu 2000
mem-per-cpu 4GB cpu 4096
mem-per-cpu 4gb cpu 4096
mem-per-cpu 4g cpu 4096
mem-per-cpu 2000MB cpu 2000
mem-per-cpu 2000Mb cpu 2000
EOF
for m in 32G:32768 40G:40960 142G:145408; do
	line "--mem-per-gpu=${m%%:*}" 'd["memory"]' "{\"mib\":${m#*:},\"per\":\"gpu\"}" \
		"#SBATCH --gpus-per-task=1 --mem-per-gpu=${m%%:*}"
done
line "--mem=0 is the whole node" '[d["memory"], d["warnings"], d["spec"]["mem_whole_node"]]' \
	'[{"all":true,"per":"node"},[],true]' '#SBATCH --mem=0'
line "--exclusive --mem=0" '[d["warnings"], d["spec"]["exclusive"], d["spec"]["mem_whole_node"]]' '[[],true,true]' \
	'#SBATCH --exclusive --mem=0'
badline "--exclusive=user" 'job.sh:2: invalid exclusive "user": only whole nodes (--exclusive without a value) are supported' \
	'#SBATCH --exclusive=user'
badline "--mem=1.5G" 'job.sh:2: invalid memory size "1.5G"' '#SBATCH --mem=1.5G'
badline "--mem=MEM" 'job.sh:2: invalid memory size "MEM"' '#SBATCH --mem=MEM'
badline "--mem and --mem-per-cpu" \
	'job.sh:3: options "--mem", "--mem-per-cpu" and "--mem-per-gpu" are mutually exclusive' \
	'#SBATCH --mem=4G' '#SBATCH --mem-per-cpu=1G'
script mem.sh '#SBATCH --mem=4G'
bad "--mem in the script, --mem-per-gpu on the command line" \
	'options "--mem", "--mem-per-cpu" and "--mem-per-gpu" are mutually exclusive' \
	--mem-per-gpu=8G mem.sh
val "--mem on both: the command line wins" 'd["memory"]["mib"]' 8192 --mem=8G mem.sh

# GPUs
while read -r g count type; do
	line "--gres=$g" 'd["gpus"]' "[{\"count\":$count,\"per\":\"node\",\"type\":$type}]" \
		"#SBATCH --gres=$g"
done <<'EOF'
gpu:1 1 null
gpu:4 4 null
gpu:a100:4 4 "a100"
gpu 1 null
gpu:v100 1 "v100"
gpu:A100:2 2 "A100"
gpu:volta:1 1 "volta"
gpu:p100:1 1 "p100"
gpu:k80:2 2 "k80"
gpu:rtx8000:1 1 "rtx8000"
gpu:a40:1 1 "a40"
gpu:a5000:1 1 "a5000"
gpu:l40s:1 1 "l40s"
gpu:h100:8 8 "h100"
gpu:H200:8 8 "H200"
gpu:a800:1 1 "a800"
gpu:A30:1 1 "A30"
gpu:T4:1 1 "T4"
gpu:tesla:1 1 "tesla"
gpu:tesla-smx2:1 1 "tesla-smx2"
gpu:v100l:1 1 "v100l"
gpu:v100-32gb:1 1 "v100-32gb"
gpu:a100-40:1 1 "a100-40"
gpu:A100.80gb:1 1 "A100.80gb"
gpu:nvidia_a30:1 1 "nvidia_a30"
gpu:rtx_4090:1 1 "rtx_4090"
gpu:mig:1 1 "mig"
gpu:1g.10gb:1 1 "1g.10gb"
EOF
line "a GPU type is kaid's to match: no warning" 'd["sched"]["gpu_type"], d["warnings"]' '["a100",[]]' '#SBATCH --gres=gpu:a100:1'
line "--gres=none" 'd["gpus"]' '[]' '#SBATCH --gres=gpu:2' '#SBATCH --gres=none'
for g in dcu:4 gpumem:20g nvme:1 lscratch:10 shard:2 tmpspace; do
	badline "--gres=$g" "job.sh:2: invalid gres \"$g\": kaibatch knows only gpu, not \"${g%%:*}\"" \
		"#SBATCH --gres=$g"
done
badline "--gres=gpu:a100:4,nvme:1" \
	'job.sh:2: invalid gres "gpu:a100:4,nvme:1": kaibatch knows only gpu, not "nvme"' \
	'#SBATCH --gres=gpu:a100:4,nvme:1'
line "--gpus=8" 'd["gpus"]' '[{"count":8,"per":"job","type":null}]' '#SBATCH --gpus=8'
line "-G a100:2" 'd["gpus"]' '[{"count":2,"per":"job","type":"a100"}]' '#SBATCH -G a100:2'
line "--gpus-per-node=8" 'd["gpus"]' '[{"count":8,"per":"node","type":null}]' \
	'#SBATCH --gpus-per-node=8'
line "--gpus-per-node=l4-24g:1" 'd["gpus"]' '[{"count":1,"per":"node","type":"l4-24g"}]' \
	'#SBATCH --gpus-per-node=l4-24g:1'
line "--gpus-per-task=1" 'd["gpus"]' '[{"count":1,"per":"task","type":null}]' \
	'#SBATCH --gpus-per-task=1'
line "--gpus and --gpus-per-task together" 'd["gpus"]' \
	'[{"count":8,"per":"job","type":null},{"count":2,"per":"task","type":null}]' \
	'#SBATCH --gpus=8 --gpus-per-task=2'
line "--cpus-per-gpu" '[d["cpus_per_gpu"], d["spec"]["cpus_per_task"]]' '[6,12]' \
	'#SBATCH --gpus-per-task=2 --cpus-per-gpu=6'
badline "--gpus=a:b:1" 'job.sh:2: invalid GPU count "a:b:1"' '#SBATCH --gpus=a:b:1'
badline "--cpus-per-gpu without GPUs" 'option "--cpus-per-gpu" needs a GPU request' \
	'#SBATCH --cpus-per-gpu=4'
badline "--mem-per-gpu without GPUs" 'option "--mem-per-gpu" needs a GPU request' \
	'#SBATCH --mem-per-gpu=4G'

# Nodes, tasks, CPUs
line "-N 1" 'd["nodes"]' '{"max":1,"min":1}' '#SBATCH -N 1'
line "-N 2-4" 'd["nodes"]' '{"max":4,"min":2}' '#SBATCH --nodes=2-4'
line "-N 1-1" 'd["nodes"]' '{"max":1,"min":1}' '#SBATCH -N 1-1'
line "--tasks-per-node" 'd["ntasks_per_node"]' 8 '#SBATCH --tasks-per-node=8'
line "one rank per GPU" 'd["spec"]' \
	'{"cpus_per_task":8,"exclusive":false,"gpus_per_node":4,"gpus_per_task":0,"mem_mib_per_task":16384,"mem_whole_node":false,"ntasks":8,"ntasks_per_node":4}' \
	'#SBATCH -N 2 --ntasks-per-node=4 --gres=gpu:4 --mem=64G -c 8'
line "one launcher per node" 'd["spec"]' \
	'{"cpus_per_task":0,"exclusive":false,"gpus_per_node":8,"gpus_per_task":0,"mem_mib_per_task":0,"mem_whole_node":false,"ntasks":2,"ntasks_per_node":1}' \
	'#SBATCH -N 2 --ntasks-per-node=1 --gpus-per-node=8'
# The tasks of a node share it: kaid places each node's tasks together.
line "8 tasks of one node together" 'd["spec"]' \
	'{"cpus_per_task":0,"exclusive":false,"gpus_per_node":8,"gpus_per_task":0,"mem_mib_per_task":0,"mem_whole_node":false,"ntasks":8,"ntasks_per_node":8}' \
	'#SBATCH -N 1 --ntasks-per-node=8 --gres=gpu:8'
# Slurm: --gres is per node; -n 2 --gres=gpu:1 is one node, one GPU.
line "-n 2 --gres=gpu:1: one node with one GPU" 'd["spec"]' \
	'{"cpus_per_task":0,"exclusive":false,"gpus_per_node":1,"gpus_per_task":0,"mem_mib_per_task":0,"mem_whole_node":false,"ntasks":2,"ntasks_per_node":2}' \
	'#SBATCH -n 2 --gres=gpu:1'
line "-N 2 -n 4: two on each node" 'd["spec"]["ntasks_per_node"]' 2 \
	'#SBATCH -N 2 -n 4'
line "-n 2 without -N: anywhere" 'd["spec"]["ntasks_per_node"]' 0 \
	'#SBATCH -n 2'
line "-N 2 -n 3, uneven: anywhere" 'd["spec"]["ntasks_per_node"]' 0 \
	'#SBATCH -N 2 -n 3'
badline "--min-tasks with --ntasks-per-node" \
	'options "--min-tasks" and "--nodes" or "--ntasks-per-node" are mutually exclusive' \
	'#SBATCH -N 2 --ntasks-per-node=2' '#KSUB --min-tasks=2'
badline "-N 4-2" 'job.sh:2: invalid node count "4-2": maximum below minimum' '#SBATCH -N 4-2'
badline "-N 0" 'job.sh:2: invalid node count "0"' '#SBATCH -N 0'
badline "-n 0" 'job.sh:2: invalid ntasks "0": must be between 1 and 2147483647' '#SBATCH -n 0'
badline "-c x" 'job.sh:2: invalid cpus-per-task "x": not a number' '#SBATCH -c x'

# Arrays
while read -r a idx throttle; do
	line "--array=$a" '[d["array"]["indices"], d["array"]["throttle"]]' "[$idx,$throttle]" \
		"#SBATCH --array=$a"
done <<'EOF'
1-10 [1,2,3,4,5,6,7,8,9,10] null
1-10%10 [1,2,3,4,5,6,7,8,9,10] 10
1-5%1 [1,2,3,4,5] 1
0 [0] null
1 [1] null
1,3,5,7 [1,3,5,7] null
28,30,31,32,34,36 [28,30,31,32,34,36] null
0-15:4 [0,4,8,12] null
1-10:3 [1,4,7,10] null
1,3,5-7 [1,3,5,6,7] null
EOF
line "--array=0-99" 'len(d["array"]["indices"])' 100 '#SBATCH --array=0-99'
line "--array=1-1000" '[len(d["array"]["indices"]), d["array"]["indices"][-1]]' '[1000,1000]' \
	'#SBATCH --array=1-1000'
line "--array=0-112%113" '[len(d["array"]["indices"]), d["array"]["throttle"]]' '[113,113]' \
	'#SBATCH --array=0-112%113'
line "--array=1-100:2" '[len(d["array"]["indices"]), d["array"]["indices"][-1]]' '[50,99]' \
	'#SBATCH --array=1-100:2'
line "--array=1-100:2%10" '[len(d["array"]["indices"]), d["array"]["indices"][-1], d["array"]["throttle"]]' \
	'[50,99,10]' '#SBATCH --array=1-100:2%10'
line "an array's default output" '[d["stdout_pattern"], d["stderr_pattern"]]' \
	'["slurm-%A_%a.out","slurm-%A_%a.out"]' '#SBATCH -a 1-3'
line "an array with -o" '[d["stdout_pattern"], d["stderr_pattern"]]' \
	'["logs/%A_%a.out","logs/%A_%a.out"]' '#SBATCH -a 1-3 -o logs/%A_%a.out'
badline "--array of names" 'job.sh:2: invalid array "SRR8652107,SRR8652108"' \
	'#SBATCH --array=SRR8652107,SRR8652108'
badline "--array=001, 002, 003" 'job.sh:2: invalid array "001,"' '#SBATCH --array=001, 002, 003'
line "--array=%0 is no limit, shown as given" 'd["array"]["throttle"]' 0 \
	'#SBATCH --array=1-3%0'
line "--array in any order, with overlaps" 'd["array"]["indices"]' \
	'[1,3,4,5]' '#SBATCH --array=5,1,3-4,1'
badline "--array over MaxArraySize" \
	'job.sh:2: invalid array "12100-104499": index 104499 is over the maximum 99999' \
	'#SBATCH --array=12100-104499'

# Output and error patterns
line "-o %x-%j, -e unset" '[d["stdout_pattern"], d["stderr_pattern"]]' \
	'["logs/%x-%j.out","logs/%x-%j.out"]' '#SBATCH -o logs/%x-%j.out'
line "-e equal to -o" '[d["stdout_pattern"], d["stderr_pattern"]]' '["%j.log","%j.log"]' \
	'#SBATCH -o %j.log -e %j.log'
line "zero-padding and %N are kept" 'd["stdout_pattern"]' '"job%4j-%3a-%N.out"' \
	'#SBATCH -o job%4j-%3a-%N.out'
line "-D relative to the submit directory" '[d["chdir"], d["stdout_pattern"]]' \
	"[\"$dir/runs/melt\",\"lmp.%j.out\"]" '#SBATCH -D runs/melt -o lmp.%j.out'
line "-D absolute" 'd["chdir"]' '"/scratch/run1"' '#SBATCH -D /scratch/run1'

# Dependencies
line "singleton" 'd["dependency"]' \
	'{"combine":"all","items":[{"jobs":[],"type":"singleton"}],"kill_on_invalid":false,"spec":"singleton"}' \
	'#SBATCH --dependency=singleton'
line "--kill-on-invalid-dep=yes" 'd["dependency"]["kill_on_invalid"]' true \
	'#SBATCH -d afterok:12 --kill-on-invalid-dep=YES'
badline "--kill-on-invalid-dep=maybe" \
	'job.sh:2: invalid kill-on-invalid-dep "maybe": must be yes or no' \
	'#SBATCH --kill-on-invalid-dep=maybe'
line "afterany" 'd["dependency"]["items"]' '[{"jobs":["12"],"type":"afterany"}]' \
	'#SBATCH -d afterany:12'
line "afterok:176233:176234:176235" 'd["dependency"]["items"]' \
	'[{"jobs":["176233","176234","176235"],"type":"afterok"}]' \
	'#SBATCH -d afterok:176233:176234:176235'
line "after with a delay" 'd["dependency"]["items"]' \
	'[{"delay_min":30,"jobs":["5"],"type":"after"}]' '#SBATCH -d after:5+30'
line "a bare job id is afterany" 'd["dependency"]["items"]' \
	'[{"jobs":["42"],"type":"afterany"}]' '#SBATCH -d 42'
line "\",\": all" '[d["dependency"]["combine"], len(d["dependency"]["items"])]' '["all",2]' \
	'#SBATCH -d afterok:20:21,afterany:23'
line "\"?\": any" '[d["dependency"]["combine"], len(d["dependency"]["items"])]' '["any",2]' \
	'#SBATCH -d afterok:20:21?afterany:23'
line "afternotok and afterburstbuffer (afterany)" \
	'[i["type"] for i in d["dependency"]["items"]]' \
	'["afternotok","afterany"]' '#SBATCH -d afternotok:3,afterburstbuffer:4'
line "one item per group as written, split where after's delay changes" \
	'd["dependency"]["items"]' \
	'[{"delay_min":5,"jobs":["1","2_3"],"type":"after"},{"delay_min":0,"jobs":["4"],"type":"after"},{"jobs":["6"],"type":"afterok"},{"jobs":["7"],"type":"afterok"}]' \
	'#SBATCH -d after:1+5:2_3+5:4,afterok:6,afterok:7'
badline "aftercorr is refused as kaid refuses it" \
	'job.sh:2: invalid dependency "afternotok:3,aftercorr:4": aftercorr is not supported' \
	'#SBATCH -d afternotok:3,aftercorr:4'
badline "a type with no job" \
	'job.sh:2: invalid dependency "afterok": afterok needs a job id' '#SBATCH -d afterok'
badline "\",\" and \"?\" mixed" \
	'job.sh:2: invalid dependency "afterok:1,afterany:2?after:3": both "," and "?" are used' \
	'#SBATCH -d afterok:1,afterany:2?after:3'
badline "afterok:\$upstreamJobId is literal" \
	'job.sh:2: invalid dependency "afterok:$upstreamJobId"' '#SBATCH -d afterok:$upstreamJobId'
badline "+time on afterok" 'job.sh:2: invalid dependency "afterok:1+5"' '#SBATCH -d afterok:1+5'

# Export
line "ALL,NCCL_SOCKET_IFNAME=eth0" 'd["export"]' \
	'{"mode":"ALL","pass":[],"set":{"NCCL_SOCKET_IFNAME":"eth0"}}' \
	'#SBATCH --export=ALL,NCCL_SOCKET_IFNAME=eth0'
line "ALL,HYDRA_FULL_ERROR=1" 'd["export"]["set"]' '{"HYDRA_FULL_ERROR":"1"}' \
	'#SBATCH --export=ALL,HYDRA_FULL_ERROR=1'
line "a list of names" 'd["export"]' '{"mode":"LIST","pass":["A","B"],"set":{"C":"3"}}' \
	'#SBATCH --export=A,B,C=3'
line "NONE" 'd["export"]' '{"mode":"NONE","pass":[],"set":{}}' '#SBATCH --export=NONE'
badline "NONE with a list" 'job.sh:2: invalid --export "NONE,A": NONE takes no list' \
	'#SBATCH --export=NONE,A'
badline "an empty name" 'job.sh:2: invalid --export "A,,B": "" is not a variable name' \
	'#SBATCH --export=A,,B'

# Signals, requeue, open mode, hold, wait
while read -r s num name secs batch; do
	line "--signal=$s" \
		'[d["signal"]["number"], d["signal"]["name"], d["signal"]["seconds_before_end"], d["signal"]["batch_only"]]' \
		"[$num,$name,$secs,$batch]" "#SBATCH --signal=$s"
done <<'EOF'
SIGUSR1@90 10 "USR1" 90 false
USR1@600 10 "USR1" 600 false
USR1@300 10 "USR1" 300 false
2@60 2 "INT" 60 false
B:USR1@300 10 "USR1" 300 true
B:TERM@120 15 "TERM" 120 true
USR2 12 "USR2" 60 false
SIGTERM@30 15 "TERM" 30 false
EOF
badline "--signal=FOO" 'job.sh:2: invalid signal "FOO": unrecognized signal' \
	'#SBATCH --signal=FOO'
badline "--signal=USR1@x" \
	'job.sh:2: invalid signal "USR1@x": the time after "@" must be 0 to 65535 seconds' \
	'#SBATCH --signal=USR1@x'
line "--open-mode=append" 'd["open_mode"]' '"append"' '#SBATCH --open-mode=append'
line "--open-mode=truncate" '[d["open_mode"], d["refused"]]' '["truncate",[]]' \
	'#SBATCH --open-mode=truncate'
badline "--open-mode=x" 'job.sh:2: invalid open mode "x": must be append or truncate' \
	'#SBATCH --open-mode=x'
line "--input=/dev/null is what every job reads" '[d["stdin_pattern"], d["refused"]]' \
	'["/dev/null",[]]' '#SBATCH -i /dev/null'
line "-H and -W" '[d["hold"], d["wait"]]' '[true,true]' '#SBATCH -H -W'
line "--begin" '[d["begin"]["spec"], type(d["begin"]["epoch"]).__name__]' \
	'["now+1hour","int"]' '#SBATCH --begin=now+1hour'
badline "--begin=whenever" 'job.sh:2: option "--begin": invalid time "whenever": unexpected "whenever"' \
	'#SBATCH --begin=whenever'

# -C, -w and -x as real scripts write them: sent as written (the host
# lists without spaces), no warning
while IFS=';' read -r opt feat req; do
	line "$opt" '[d["warnings"], d["sched"]["features"], d["sched"]["node_req"]]' \
		"[[],$feat,$req]" "#SBATCH $opt"
done <<'EOF'
--constraint=amd&rome;"amd&rome";null
--constraint="[a100|h200|h100]";"[a100|h200|h100]";null
-C gpu&hbm80g;"gpu&hbm80g";null
-C knl,quad,cache;"knl,quad,cache";null
--constraint="";null;null
--nodelist=g[3107,3115,3109];null;"g[3107,3115,3109];"
-w gnode[01-03];null;"gnode[01-03];"
--exclude=e0[1-2];null;";e0[1-2]"
-w a[1-2] -x a2;null;"a[1-2];a2"
EOF
line "-w alone: a node per name, a task on each, as sbatch" \
	'[d["nodes"], d["spec"]["ntasks"], d["spec"]["ntasks_per_node"]]' \
	'[{"max":3,"min":3},3,1]' '#SBATCH -w a[1-3]'
line "-w with -n keeps -n" '[d["nodes"], d["spec"]["ntasks"]]' '[null,1]' \
	'#SBATCH -w a[1-3] -n 1'
badline "-C with a count" \
	'job.sh:2: invalid constraint "a100*2": feature counts (NAME*N) are not supported' \
	'#SBATCH -C a100*2'
badline "-C unbalanced" 'job.sh:2: invalid constraint "[a|b": a "[" is not closed' \
	'#SBATCH -C [a|b'
badline "-w a bad host list" 'job.sh:2: invalid host list "n[1-": unclosed "["' \
	'#SBATCH -w n[1-'
script plain-c.sh '#SBATCH -J c'
bad "-C longer than kaid takes" 'invalid constraint: longer than 1024 bytes' \
	-C "$(printf 'a100|%.0s' $(seq 1 300))a100" plain-c.sh
bad "-w and -x longer than kaid takes" \
	'invalid node lists: --nodelist and --exclude together are longer than 8192 bytes' \
	-n 1 -w "$(printf 'n%d,' $(seq 1 2000))n" plain-c.sh

# Everything else seen: accepted, one warning each, dropped
while IFS=';' read -r opt label; do
	line "$opt" 'd["warnings"]' "[\"$label\"]" "#SBATCH $opt"
done <<'EOF'
--hint=nomultithread;--hint
--reservation=course;--reservation
--licenses=matlab:1;--licenses
-L gurobi@slurmdb:8;--licenses
--get-user-env;--get-user-env
--get-user-env=L;--get-user-env
--wait-all-nodes=1;--wait-all-nodes
--comment=Key=Monitoring,Value=ON;--comment
--distribution=block:block;--distribution
-M snowy;--clusters
--nice;--nice
--priority=10;--priority
--tmp=100G;--tmp
--switches=1;--switches
--network=job_vni;--network
--gpu-bind=closest;--gpu-bind
--ntasks-per-socket=2;--ntasks-per-socket
--ntasks-per-core=1;--ntasks-per-core
--threads-per-core=1;--threads-per-core
--overcommit;--overcommit
EOF
line "-q is --qos, never the partition" '[d["qos"], d["partition"], d["warnings"]]' '["high",null,[]]' \
	'#SBATCH -q high'
line "--qos is kept, with no warning" '[d["qos"], d["partition"], d["warnings"]]' '["qos_gpu-t3",null,[]]' \
	'#SBATCH --qos=qos_gpu-t3'
line "-q after -p leaves the partition alone" '[d["qos"], d["partition"]]' '["debug","batch"]' \
	'#SBATCH -p batch' '#SBATCH -q debug'
line "--queue is still the partition" '[d["qos"], d["partition"]]' '[null,"gpu"]' \
	'#SBATCH --queue=gpu'
line "a partition list" 'd["partition"]' '"gpu,gpu-preempt"' '#SBATCH -p gpu,gpu-preempt'
line "an account with @" 'd["account"]' '"six@a100"' '#SBATCH -A six@a100'

# ---------------------------------------------------------------------
# Section 5: which lines are directives
line "#SBATCH in column 1 only" '[d["job_name"], d["time_limit_s"]]' '["job.sh",300]' \
	'##SBATCH -J off' '# #SBATCH -J off' '# SBATCH -J off' '#sbatch -J off' \
	'  #SBATCH -J off' '#SBACTH -J off' '#SBSTCH -J off' '#CBATCH -J off' '#SBATCH -t 5'
line "a bare #SBATCH line" 'd["ntasks"]' 3 '#SBATCH' '#SBATCH -n 3'
line "the first command ends the block" 'd["job_name"]' '"a"' \
	'#SBATCH -J a' 'module load x' '#SBATCH -J late'
line "set -euo pipefail above the block disables it" '[d["job_name"], d["time_limit_s"]]' \
	'["job.sh",null]' 'set -euo pipefail' '#SBATCH -J a' '#SBATCH -t 5'
line "a here-document is text" 'd["job_name"]' '"job.sh"' \
	'cat <<EOF >sub.sh' '#SBATCH -J inner' 'EOF'
line "#SLURM is read" 'd["job_name"]' '"old"' '#SLURM -J old'
printf '#!/bin/bash\n#SLURM -J old\n' >slurm.sh
"$ksubmit" -Q --parse-only slurm.sh >/dev/null 2>"$dir/err"
is "#SLURM: no warning line with --parse-only" "$(cat "$dir/err")" ""
badline "a ; comment" 'job.sh:2: invalid directive ";": not an option' \
	'#SBATCH -N 1 ; one node'
badline "text in brackets" 'job.sh:2: invalid directive "(for": not an option' \
	'#SBATCH --gres=gpu:1 (for 1 GPU)'
badline "an unfilled template token" 'job.sh:2: invalid directive "<account>": not an option' \
	'#SBATCH -A proj <account>'
badline "--export=all module load" 'job.sh:2: invalid directive "module": not an option' \
	'#SBATCH --export=all module load x'
badline "hetjob" 'job.sh:3: invalid directive "hetjob": heterogeneous jobs are not supported' \
	'#SBATCH -n 1' '#SBATCH hetjob'
printf 'echo no shebang\n' >noshebang.sh
bad "no shebang" 'script "noshebang.sh" does not start with "#!"' noshebang.sh
printf '#!/bin/sh\r\necho dos\r\n' >dos.sh
bad "DOS line breaks" 'script "dos.sh" has DOS line breaks (\r\n)' dos.sh
bad "a missing script" 'could not open script "missing.sh": No such file or directory' missing.sh

# Options sbatch itself rejects
badline "--workdir" 'job.sh:2: unrecognized option "--workdir"' '#SBATCH --workdir=/tmp'
badline "pyxis --container-image" 'job.sh:2: unrecognized option "--container-image"' \
	'#SBATCH --container-image=nvcr.io/nvidia/pytorch:24.01'
badline "--image in an #SBATCH line" \
	'job.sh:2: option "--image" is not an sbatch option: write it in a "#KSUB" line' \
	'#SBATCH --image=x'
badline "--wrap in a script" 'job.sh:2: option "--wrap" is not allowed in a script' \
	'#SBATCH --wrap=true'
badline "--uid" 'job.sh:2: option "--uid" is not supported: MUNGE decides the user' \
	'#SBATCH --uid=0'
badline "--test-only" 'job.sh:2: option "--test-only" is not supported: use --parse-only' \
	'#SBATCH --test-only'
bad "a bad command-line option" 'unrecognized option "--frobnicate"' --frobnicate plain.sh

# ---------------------------------------------------------------------
# #KSUB: kaibatch's own options
line "#KSUB options" \
	'[d["image"], d["gpu_fraction"], d["min_tasks"], d["priority_class"], d["preemptible"]]' \
	'["pytorch:24.01",0.5,2,"train",false]' '#SBATCH -n 4' \
	'#KSUB --image=pytorch:24.01 --gpu-fraction=0.5 --min-tasks=2' \
	'#KSUB --priority-class=train --preemptible --no-preemptible'
line "--gpu-memory" 'd["gpu_memory_mib"]' 5120 '#KSUB --gpu-memory=5G'
line "--gpu-devices" '[d["gpu_devices"], d["sched"]["gpu_devices"], d["sched"]["gpu_fraction"]]' \
	'[3,3,500000]' '#KSUB --gpu-fraction=0.5 --gpu-devices=3'
line "--gpu-devices=1 is the default, one device" '[d["gpu_devices"], d["sched"]["gpu_devices"]]' \
	'[1,0]' '#KSUB --gpu-memory=1G --gpu-devices=1'
line "--topology and --topology-preferred" '[d["topology"], d["sched"]["topology"], d["sched"]["topology_preferred"]]' \
	'[{"name":null,"preferred":"k8s.io/spine","required":"k8s.io/rack"},"k8s.io/rack","k8s.io/spine"]' \
	'#KSUB --topology=k8s.io/rack --topology-preferred=k8s.io/spine'
badline "a named topology" \
	'invalid topology "cluster-topology": kaid has no named topologies; give a node label key as the level' \
	'#KSUB --topology=cluster-topology:k8s.io/rack'
line "sbatch options in #KSUB lines" 'd["time_limit_s"]' 300 '#KSUB -t 5'
line "what kaid cannot honour yet is listed" 'd["refused"]' \
	'["--begin","--input"]' \
	'#SBATCH -a 1-2 -b now+1hour -d singleton -i in.txt --open-mode=a --requeue --signal=USR1 -W' \
	'#KSUB --gpu-fraction=0.5 --min-tasks=1 --topology=r --topology-preferred=s --priority-class=build --preemptible'
line "the scheduling options in the request" \
	'[d["sched"][k] for k in ["priority_class","preempt","requeue","min_tasks","gpu_fraction","gpu_memory_mb"]]' \
	'["inference",2,2,2,250000,0]' '#SBATCH -n 3 --no-requeue' \
	'#KSUB --priority=inference --no-preemptible --min-tasks=2 --gpu-fraction=0.25'
line "--priority=N is sbatch's: dropped with a warning" \
	'[d["sched"]["priority_class"], d["warnings"]]' \
	'[null,["--priority"]]' \
	'#SBATCH --priority=10'
badline "an unknown priority class" \
	'job.sh:2: invalid priority class "gold": must be one of train, build-preemptible, build, inference' \
	'#KSUB --priority=gold'
badline "--gpu-devices without a share" \
	'option "--gpu-devices" needs "--gpu-fraction" or "--gpu-memory"' \
	'#KSUB --gpu-devices=2'
badline "--gpu-devices=65" 'job.sh:2: invalid gpu-devices "65": must be between 1 and 64' \
	'#KSUB --gpu-fraction=0.5 --gpu-devices=65'
badline "--gpu-memory=0" 'job.sh:2: invalid GPU memory "0": must be above 0' \
	'#KSUB --gpu-memory=0'
badline "--gpu-fraction with --gpu-memory" \
	'options "--gpu-fraction" and "--gpu-memory" are mutually exclusive' \
	'#KSUB --gpu-fraction=0.5 --gpu-memory=1G'
badline "--topology that is no label key" \
	'invalid topology level "-rack" of option "--topology": must be a node label key' \
	'#KSUB --topology=-rack'
badline "--gpu-fraction=1.5" \
	'job.sh:2: invalid GPU fraction "1.5": must be a decimal above 0 and below 1' \
	'#KSUB --gpu-fraction=1.5'
badline "--gpu-fraction with --gres" \
	'option "--gpu-fraction" asks for a part of one GPU: it excludes whole GPUs (--gres, --gpus, --gpus-per-node, --gpus-per-task)' \
	'#SBATCH --gres=gpu:1' '#KSUB --gpu-fraction=0.5'
badline "--min-tasks above the tasks" 'invalid min-tasks 3: the job has 2 tasks' \
	'#SBATCH -n 2' '#KSUB --min-tasks=3'
badline "--topology=a:b:c" \
	'job.sh:2: invalid topology "a:b:c": expected [NAME:]LEVEL, as in "k8s.io/rack"' \
	'#KSUB --topology=a:b:c'
val "kaibatch options on the command line" 'd["image"]' '"x"' --image=x plain.sh

# ---------------------------------------------------------------------
# SBATCH_* variables: command line > environment > directives
script env.sh '#SBATCH -p script -t 10 -J script -A acct'
out=$(SBATCH_PARTITION=envp SBATCH_TIMELIMIT=30 "$ksubmit" --parse-only --json -p cli env.sh 2>&1)
is "command line > SBATCH_* > directives" \
	"$(get '[d["partition"], d["time_limit_s"], d["job_name"], d["account"]]')" \
	'["cli",1800,"script","acct"]'
out=$(SBATCH_JOB_NAME=envname SBATCH_ACCOUNT=ea SBATCH_QOS=eq SBATCH_GRES=gpu:2 \
	SBATCH_GPUS_PER_TASK=1 SBATCH_MEM_PER_CPU=1G SBATCH_EXPORT=NONE \
	SBATCH_SIGNAL=USR1@30 SBATCH_OPEN_MODE=append SBATCH_REQUEUE=1 \
	SBATCH_ARRAY_INX=1-2 SBATCH_WAIT=yes \
	"$ksubmit" --parse-only --json plain.sh 2>&1)
is "the SBATCH_* variables ksubmit reads" \
	"$(get '[d["job_name"], d["account"], d["qos"], len(d["gpus"]), d["memory"]["per"], d["export"]["mode"], d["signal"]["seconds_before_end"], d["open_mode"], d["requeue"], d["array"]["indices"], d["wait"]]')" \
	'["envname","ea","eq",2,"cpu","NONE",30,"append",true,[1,2],true]'
out=$(SBATCH_TIMELIMIT=abc "$ksubmit" --parse-only --json plain.sh 2>/dev/null)
is "a bad variable names itself" "$(get 'd["error"]')" \
	'"SBATCH_TIMELIMIT: invalid time limit \"abc\""'
out=$(SBATCH_HINT=nomultithread "$ksubmit" --parse-only --json plain.sh 2>&1)
is "variables of dropped options are not read" "$(get 'd["warnings"]')" '[]'
out=$(SBATCH_CONSTRAINT='[a100|h100]' "$ksubmit" --parse-only --json plain.sh 2>&1)
is "SBATCH_CONSTRAINT is -C" "$(get '[d["warnings"], d["sched"]["features"]]')" \
	'[[],"[a100|h100]"]'

# ---------------------------------------------------------------------
# A real submission refuses what kaid cannot honour yet, before sending
# refuse TITLE OPTION-LABEL ARGS...
refuse()
{
	local title=$1 label=$2
	shift 2
	"$ksubmit" "$@" >"$dir/out" 2>"$dir/err" </dev/null
	rc=$?
	is "$title: exit 2, nothing sent" "$rc" 2
	is "$title: the one line" "$(cat "$dir/err")" \
		"ksubmit: error: $label is not supported by kaid yet"
	is "$title: nothing on stdout" "$(cat "$dir/out")" ""
}
# Arrays, dependencies, --signal, --open-mode and --wait are kaid's now:
# they are sent (and the closed port refuses the connection).
"$ksubmit" --array=1-3 -d afterok:1 plain.sh >"$dir/out" 2>"$dir/err" </dev/null
is "--array and --dependency are sent to kaid" "$?" 3
"$ksubmit" --signal=USR1@60 --open-mode=append -W \
	--kill-on-invalid-dep=yes -d afterok:1 plain.sh >"$dir/out" \
	2>"$dir/err" </dev/null
is "--signal, --open-mode, --wait and --kill-on-invalid-dep are sent" "$?" 3
refuse "--begin" --begin --begin=now+1hour plain.sh
refuse "--input" --input -i in.txt plain.sh

# ... and only then warns, and tries kaid (exit 3 here: nothing listens)
script warn.sh '#SBATCH --licenses=matlab:1 --hint=nomultithread --gres=gpu:v100:1 --no-requeue'
"$ksubmit" warn.sh >"$dir/out" 2>"$dir/err" </dev/null
is "dropped options: submission goes on" "$?" 3
is "dropped options: one warning each (a GPU type is kaid's to match)" \
	"$(head -n 2 "$dir/err")" \
	'ksubmit: warning: option "--hint" is ignored: Kubernetes lays out tasks inside a node
ksubmit: warning: option "--licenses" is ignored: kaibatch has no licenses'
"$ksubmit" -Q warn.sh >"$dir/out" 2>"$dir/err" </dev/null
like "-Q: no warnings" "$(cat "$dir/err")" '^ksubmit: error: cannot connect to kaid'

check_all
done_testing
