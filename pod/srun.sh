#!/bin/sh
# srun as kaibatch provides it inside a job (see ksubmit(1)).
# SPDX-License-Identifier: GPL-3.0-or-later
#
# srun.sh: compiled into kaid as podshim_srun (build-aux/pod2c.sh keeps
# the two lines above and drops the other comment lines).  It runs the
# command as this pod's task.  Options are read only for -n/--ntasks
# (tasks SLURM_PROCID >= N do not run it, so `srun -n 1` runs once per
# job); the others that take a value are skipped with it.
n=
while [ $# -gt 0 ]; do
	case "$1" in
	--) shift; break ;;
	-n|--ntasks) n=$2; shift 2 ;;
	--ntasks=*) n=${1#--ntasks=}; shift ;;
	-n*) n=${1#-n}; shift ;;
	-[ACDGJNTcdeimopqtwx]|--account|--chdir|--cpu-bind|--cpus-per-gpu|--cpus-per-task|--dependency|--distribution|--error|--exclude|--export|--gpus|--gpus-per-node|--gpus-per-task|--gres|--input|--job-name|--mem|--mem-per-cpu|--mem-per-gpu|--mpi|--nodelist|--nodes|--ntasks-per-node|--output|--partition|--qos|--time)
		[ $# -ge 2 ] || { echo "srun: option $1 needs a value" >&2; exit 1; }
		shift 2 ;;
	-*) shift ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || { echo "srun: fatal: no command to execute" >&2; exit 1; }
case "$n" in
'') ;;
*[!0-9]*) echo "srun: invalid number of tasks \"$n\"" >&2; exit 1 ;;
*) [ "${SLURM_PROCID:-0}" -lt "$n" ] || exit 0 ;;
esac
exec "$@"
