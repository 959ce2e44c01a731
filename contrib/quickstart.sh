#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# quickstart.sh: the whole kaibatch stack on this machine, with a job that
# really runs.
#
#   contrib/quickstart.sh          install what is missing, build, start a
#                                  private PostgreSQL, munged, kubesim (a
#                                  stand-in Kubernetes API with simulated
#                                  GPU nodes) and kaid, then submit and
#                                  follow an example batch script
#   contrib/quickstart.sh stop     stop that stack
#
# Everything lives in $KAI_QUICKSTART_DIR (default /tmp/kaibatch-quickstart).

set -u
top=$(cd "$(dirname "$0")/.." && pwd)
dir=${KAI_QUICKSTART_DIR:-/tmp/kaibatch-quickstart}
build=$top/build/quickstart
STACK_SRC=$top
STACK_BIN=$build
export STACK_SRC STACK_BIN

say()
{
	printf '\n\033[1m==> %s\033[0m\n' "$*"
}

# shellcheck source=tests/lib/stack.sh
. "$top/tests/lib/stack.sh"

if [ "${1:-}" = stop ]; then
	[ -d "$dir" ] || { echo "quickstart: nothing running in $dir"; exit 0; }
	stack_stop "$dir"
	echo "quickstart: stopped the stack in $dir"
	exit 0
fi

say "installing missing Debian packages"
"$top/contrib/deps.sh" || exit 1

say "building kaibatch in $build"
(cd "$top" && ./bootstrap >/dev/null 2>&1) || { echo "quickstart: bootstrap failed" >&2; exit 1; }
mkdir -p "$build" && cd "$build" || exit 1
if [ ! -f Makefile ]; then
	"$top/configure" -q || exit 1
fi
make -j"$(nproc)" >make.log 2>&1 || { tail -n 30 make.log; exit 1; }

if [ -f "$dir/kaid.pid" ]; then
	say "stopping the previous quickstart stack"
	stack_stop "$dir"
fi
rm -rf "$dir"

say "starting PostgreSQL, munged, kubesim and kaid in $dir"
stack_start "$dir" "$top/contrib/kubesim/nodes.example.yaml" || exit 1
echo "kaid listens on $KAI_CONTROLLER; kubesim serves $KUBESIM_URL"

# The job runs as an ordinary user: the caller, or a demo user when root.
user=$(id -un)
if [ "$(id -u)" -eq 0 ]; then
	user=kaidemo
	id "$user" >/dev/null 2>&1 || useradd --create-home --shell /bin/bash "$user"
fi
work=$dir/work-$user
mkdir -p "$work" && cp "$top/contrib/examples/hello-gpu.sh" "$work/"
chown -R "$user:" "$work"
PATH=$build/clients:$PATH

say "submitting contrib/examples/hello-gpu.sh as $user"
sed -n '1,10p' "$work/hello-gpu.sh"
out=$(cd "$work" && as_user "$user" ksubmit hello-gpu.sh) || { echo "$out"; exit 1; }
echo "$out"
id=${out##* }

say "kqueue"
as_user "$user" kqueue
for _ in $(seq 1 100); do
	as_user "$user" kqueue -j "$id" --noheader | grep -q ' R ' && break
	sleep 0.2
done
say "kqueue (running)"
as_user "$user" kqueue

say "waiting for job $id to finish"
for _ in $(seq 1 300); do
	[ -z "$(as_user "$user" kqueue -j "$id" --noheader)" ] && break
	sleep 0.2
done
say "the job's output: $work/hello-gpu-$id.out"
cat "$work/hello-gpu-$id.out"

say "kacct"
as_user "$user" kacct -j "$id" --format=JobID,JobName,Partition,User,AllocCPUS,State,ExitCode,Elapsed,NodeList

cat <<EOT

The stack is still running.  To use it by hand:

  export PATH=$build/clients:\$PATH
  export KAI_CONTROLLER=$KAI_CONTROLLER
  export KAI_MUNGE_SOCKET=$KAI_MUNGE_SOCKET
  ksubmit --wrap "hostname; sleep 30"
  kqueue
  kcancel <jobid>
  kacct

kaid's log: $dir/kaid.log     (config: $dir/kaid.yaml)
To stop everything:  $top/contrib/quickstart.sh stop
EOT
