#!/bin/bash
#SBATCH --job-name=hello-gpu
#SBATCH --partition=gpu
#SBATCH --time=00:05:00
#SBATCH --ntasks=1
#SBATCH --cpus-per-task=2
#SBATCH --mem=4G
#SBATCH --gres=gpu:1
#SBATCH --output=hello-gpu-%j.out

# An ordinary sbatch script: kaibatch reads the same #SBATCH lines.
echo "Hello from job $SLURM_JOB_ID ($SLURM_JOB_NAME) on partition $SLURM_JOB_PARTITION"
echo "running as $(id -un) (uid $(id -u), gid $(id -g)) in $(pwd)"
echo "tasks: $SLURM_NTASKS, cpus per task: $SLURM_CPUS_PER_TASK, GPUs: $SLURM_GPUS_ON_NODE"
for step in 1 2 3; do
	echo "step $step of 3"
	sleep 1
done
echo "done"
