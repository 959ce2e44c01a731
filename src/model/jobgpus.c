/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * jobgpus.c: the whole GPUs of a job's tasks.  See job.h.
 *
 * Slurm's --gres=gpu:N and --gpus-per-node=N ask for N GPUs on each node
 * the job gets, whatever the number of its tasks there.  kaibatch runs
 * one pod per task and Kubernetes gives a whole GPU to one container, so
 * the N GPUs of a node group (the K tasks kai_jobspec.ntasks_per_node
 * places on one node) are spread over its pods: each gets N / K, and the
 * first N % K of the group one more.  -n 2 --gres=gpu:1 on one node is
 * then one GPU, in task 0's pod, as Slurm gives it one GPU on one node.
 * Every count of a job's GPUs (the scheduler's tasks, the pods, the
 * usage, SLURM_GPUS_ON_NODE) comes from here, so none can disagree; and
 * so does what a task's share over several devices counts.
 */
#include "config.h"

#include "model/job.h"

uint32_t
kai_job_task_gpus(uint32_t per_task, uint32_t per_node, uint32_t k,
    uint32_t task)
{
	if (per_node == 0 || k == 0)
		return per_task;
	return per_node / k + (task % k < per_node % k ? 1 : 0);
}

uint64_t
kai_job_gpus(uint32_t per_task, uint32_t per_node, uint32_t k,
    uint32_t ntasks)
{
	if (ntasks == 0)
		ntasks = 1;
	if (per_node == 0 || k == 0)
		return (uint64_t)per_task * ntasks;
	return (uint64_t)per_node * (ntasks / k);
}

uint64_t
kai_alloc_gpu_micro(const struct kai_alloc *a)
{
	uint64_t ndev = (uint64_t)__builtin_popcountll(a->gpu_mask);

	return (uint64_t)a->gpus * KAI_GPU_MICRO +
	    (uint64_t)a->gpu_fraction * (ndev > 0 ? ndev : 1);
}

uint64_t
kai_job_share_micro(uint32_t gpu_fraction, uint32_t gpu_devices)
{
	return (uint64_t)gpu_fraction * (gpu_devices > 1 ? gpu_devices : 1);
}

uint32_t
kai_job_node_gpus(uint32_t per_task, uint32_t per_node, uint32_t k)
{
	if (per_node > 0 && k > 0)
		return per_node;
	return per_task * (k > 0 ? k : 1);
}
