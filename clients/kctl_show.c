/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * kctl_show.c: kctl show job|node|partition|qos [NAME], in scontrol's
 * Key=Value layout: the first line names the thing, the rest are
 * indented by three spaces, and several things are separated by an empty
 * line.  Anyone may look at any job, node or partition (scontrol's
 * default, like kqueue's).
 *
 * A job is read from PostgreSQL through the ordinary query (any state,
 * so a finished job is shown too, with its output paths); nodes and
 * partitions come from kaid's memory (the node list kinfo uses).
 * Command= is (null): kaibatch keeps the script, not the path it was
 * read from (scontrol prints the same for a script read from stdin).
 */
#include "config.h"

#include <grp.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/xmalloc.h"
#include "model/jobfields.h"
#include "model/nodelists.h"
#include "client.h"
#include "filters.h"
#include "jobquery.h"
#include "kctl.h"
#include "nodequery.h"
#include "output.h"
#include "submit_values.h"

static const char *
group_name(uint32_t gid, char *buf, size_t size)
{
	struct group gr, *res = NULL;
	char tmp[4096];

	if (getgrgid_r(gid, &gr, tmp, sizeof(tmp), &res) == 0 && res != NULL)
		(void)snprintf(buf, size, "%s", gr.gr_name);
	else
		(void)snprintf(buf, size, "%" PRIu32, gid);
	return buf;
}

/* "B:USR1@58" as sbatch's --signal spells it; "(null)" for none. */
static const char *
signal_text(const struct kai_jobinfo *j, char *buf, size_t size)
{
	const char *name = submit_signal_name((int)j->signal_number);

	if (j->signal_number == 0)
		return "(null)";
	if (name != NULL)
		(void)snprintf(buf, size, "%s%s@%" PRIu32,
		    j->signal_batch ? "B:" : "", name, j->signal_secs);
	else
		(void)snprintf(buf, size, "%s%" PRIu32 "@%" PRIu32,
		    j->signal_batch ? "B:" : "", j->signal_number,
		    j->signal_secs);
	return buf;
}

/*
 * The lines of the model/jobfields.def rows with a label, after the
 * hand-written ones: "   Key=value".  A KAI_JF_MODE value of 0 is "not
 * known" (an older client, a job answered from kaid's memory): no line.
 */
static void
show_fields(const struct kai_jobinfo *j)
{
	const enum kai_jf_rec rec = KAI_JF_REC_INFO;
	size_t i;

	for (i = 0; i < kai_njobfields; i++) {
		const struct kai_jobfield *f = &kai_jobfields[i];
		const char *s;
		int64_t v;

		if (f->label == NULL || !kai_jf_in(f, rec))
			continue;
		if (f->type == KAI_JF_T_STR) {
			s = kai_jf_cstr(f, rec, j);
			(void)printf("   %s=%s\n", f->label,
			    s != NULL && *s ? s : "(null)");
			continue;
		}
		v = kai_jf_get_int(f, rec, j);
		if ((f->flags & KAI_JF_MODE) && v != 0)
			(void)printf("   %s=%04" PRIo64 "\n", f->label,
			    (uint64_t)v & 0777);
		else if (!(f->flags & KAI_JF_MODE))
			(void)printf("   %s=%" PRId64 "\n", f->label, v);
	}
}

/* -w and -x as scontrol shows them: "(null)" when not given. */
static void
show_nodereq(const struct kai_jobinfo *j)
{
	char w[KAI_JOB_NODE_REQ_MAX + 1], x[KAI_JOB_NODE_REQ_MAX + 1];

	(void)kai_node_req_text(j->node_req, KAI_NODE_REQ_ONLY, w, sizeof(w));
	(void)kai_node_req_text(j->node_req, KAI_NODE_REQ_NEVER, x, sizeof(x));
	(void)printf("   ReqNodeList=%s ExcNodeList=%s\n",
	    *w != '\0' ? w : "(null)", *x != '\0' ? x : "(null)");
}

static void
show_job(const struct kai_jobinfo *j, int64_t now)
{
	char t1[OUT_TIME_LEN], t2[OUT_TIME_LEN], t3[OUT_TIME_LEN], g[256];
	uint32_t ntasks = j->ntasks > 0 ? j->ntasks : 1;
	int64_t run = jobquery_elapsed(j, now), end = j->end_time;

	(void)printf("JobId=%" PRIu64 " JobName=%s\n", j->id, j->name);
	(void)printf("   UserId=%s(%" PRIu32 ") GroupId=%s(%" PRIu32 ")\n",
	    j->user, j->uid, group_name(j->gid, g, sizeof(g)), j->gid);
	(void)printf("   Priority=%" PRIu32 " Account=%s QOS=%s\n",
	    j->priority,
	    j->account != NULL && *j->account ? j->account : "(null)",
	    j->qos != NULL && *j->qos ? j->qos : "(null)");
	(void)printf("   JobState=%s Reason=%s\n", kai_jobstate_name(j->state),
	    j->reason != NULL && *j->reason ? j->reason : "None");
	(void)printf("   ExitCode=%d:%d\n", j->exit_code, j->exit_signal);
	(void)printf("   RunTime=%s TimeLimit=%s\n", out_elapsed_sacct(run, t1),
	    out_limit(j->time_limit_s, true, t2));
	(void)printf("   SubmitTime=%s\n", out_timestamp(j->submit_time, t1));
	/* A running job's end is its expected one, as scontrol says: what
	 * a script reads to learn the time it has left. */
	if (end <= 0 && j->start_time > 0 && j->time_limit_s > 0 &&
	    (j->state == KAI_JOB_RUNNING || j->state == KAI_JOB_CONFIGURING))
		end = j->start_time + j->time_limit_s;
	(void)printf("   StartTime=%s EndTime=%s\n",
	    out_timestamp(j->start_time, t2), out_timestamp(end, t3));
	(void)printf("   Partition=%s\n", j->queue);
	show_nodereq(j);
	(void)printf("   NodeList=%s\n",
	    j->nodelist != NULL && *j->nodelist ? j->nodelist : "(null)");
	(void)printf("   NumNodes=%" PRIu32 " NumCPUs=%" PRIu64
		     " NumTasks=%" PRIu32 " CPUs/Task=%" PRIu32 "\n",
	    jobquery_nodes(j), jobquery_cpus(j), ntasks,
	    j->cpus_per_task ? j->cpus_per_task : 1);
	(void)printf("   TRES=cpu=%" PRIu64 ",mem=%" PRIu64 "M,node=%" PRIu32,
	    jobquery_cpus(j), (uint64_t)ntasks * j->mem_mb, jobquery_nodes(j));
	if (jobquery_gpus(j) > 0)
		(void)printf(",gres/gpu=%" PRIu64, jobquery_gpus(j));
	(void)printf("\n   MinMemoryNode=%" PRIu64 "M\n", j->mem_mb);
	(void)printf("   Command=(null)\n");
	(void)printf("   WorkDir=%s\n", j->workdir);
	(void)printf("   StdErr=%s\n", j->stderr_path ? j->stderr_path : "");
	(void)printf("   StdIn=/dev/null\n");
	(void)printf("   StdOut=%s\n", j->stdout_path ? j->stdout_path : "");
	(void)printf("   Signal=%s OpenMode=%s\n", signal_text(j, g, sizeof(g)),
	    j->open_mode == KAI_OPEN_APPEND ? "append" : "truncate");
	show_fields(j);
}

static int
show_jobs(const char *prog, const char *name)
{
	struct kai_query q;
	struct kai_jobinfo *jobs = NULL;
	struct kai_err err;
	size_t n = 0, i;
	int rc;

	memset(&q, 0, sizeof(q));
	q.flags = KAI_QUERY_ALL_USERS;
	if (name != NULL) {
		if (filter_parse_ids(name, &q.ids, &q.nids, &err) != 0 ||
		    q.nids != 1) {
			client_error(prog, NULL, "invalid job id \"%s\"", name);
			kai_query_fini(&q);
			return CLIENT_EXIT_USAGE;
		}
		q.state_mask = KAI_JOB_STATES_ALL; /* a finished one too */
	}
	rc = jobquery_run(prog, &q, &jobs, &n);
	kai_query_fini(&q);
	if (rc != CLIENT_EXIT_OK)
		return rc;
	if (name != NULL && n == 0) {
		client_error(prog, NULL, "Invalid job id specified");
		rc = CLIENT_EXIT_REFUSED;
	} else if (n == 0) {
		(void)printf("No jobs in the system\n");
	}
	for (i = 0; i < n; i++) {
		if (i > 0)
			(void)fputc('\n', stdout);
		show_job(&jobs[i], (int64_t)time(NULL));
	}
	jobquery_free(jobs, n);
	return rc;
}

/* scontrol's upper-case state, drained ones with "+DRAIN". */
static const char *
node_state(const char *s)
{
	static const char *const map[][2] = {{"idle", "IDLE"}, {"mix", "MIXED"},
	    {"alloc", "ALLOCATED"}, {"down", "DOWN"}, {"drain", "IDLE+DRAIN"},
	    {"drng", "MIXED+DRAIN"}};
	size_t i;

	for (i = 0; i < KAI_NELEM(map); i++)
		if (strcmp(map[i][0], s) == 0)
			return map[i][1];
	return s;
}

static void
show_node(const struct nodequery *q, const struct kai_nodeinfo *n)
{
	char a[32], t[32];
	size_t i, k;

	(void)printf("NodeName=%s\n", n->name);
	(void)printf("   CPUAlloc=%" PRId64 " CPUTot=%" PRId64 "\n",
	    n->cpu_alloc_milli / 1000, n->cpu_milli / 1000);
	nodequery_gpus(n->gpus, t, sizeof(t));
	nodequery_gpus(n->gpus_alloc, a, sizeof(a));
	if (n->gpus > 0)
		(void)printf("   Gres=gpu:%s%s%s GresUsed=gpu:%s\n",
		    n->gpu_product, *n->gpu_product ? ":" : "", t, a);
	else
		(void)printf("   Gres=(null)\n");
	if (n->gpus > 0)
		(void)printf("   GpuType=%s GpuMemory=%" PRIu64 "M\n",
		    *n->gpu_product ? n->gpu_product : "(null)", n->gpu_mem_mb);
	(void)printf("   RealMemory=%" PRIu64 " AllocMem=%" PRIu64 "\n",
	    n->mem_mb, n->mem_alloc_mb);
	(void)printf("   State=%s Jobs=%" PRIu32 "\n", node_state(n->state),
	    n->jobs);
	(void)printf("   Partitions=");
	for (i = 0, k = 0; i < q->nparts; i++)
		if (kai_nodeinfo_serves(n, q->parts[i].name))
			(void)printf("%s%s", k++ > 0 ? "," : "",
			    q->parts[i].name);
	if (k == 0)
		(void)printf("(null)");
	(void)printf("\n   AvailableFeatures=%s ActiveFeatures=%s",
	    n->features != NULL && *n->features ? n->features : "(null)",
	    n->features != NULL && *n->features ? n->features : "(null)");
	(void)printf("\n   CfgTRES=cpu=%" PRId64 ",mem=%" PRIu64 "M%s%s\n",
	    n->cpu_milli / 1000, n->mem_mb, n->gpus > 0 ? ",gres/gpu=" : "",
	    n->gpus > 0 ? t : "");
	(void)printf("   AllocTRES=cpu=%" PRId64 ",mem=%" PRIu64 "M%s%s\n",
	    n->cpu_alloc_milli / 1000, n->mem_alloc_mb,
	    n->gpus_alloc > 0 ? ",gres/gpu=" : "", n->gpus_alloc > 0 ? a : "");
	if (*n->reason)
		(void)printf("   Reason=%s\n", n->reason);
}

static void
show_part(const struct nodequery *q, const struct kai_partinfo *p)
{
	char t1[OUT_TIME_LEN], t2[OUT_TIME_LEN], gp[32], list[4096];
	char **names = kai_xcalloc(q->nnodes + 1, sizeof(*names));
	int64_t cpus = 0, gpus = 0;
	size_t i, nn = 0;

	for (i = 0; i < q->nnodes; i++) {
		if (!kai_nodeinfo_serves(&q->nodes[i], p->name))
			continue;
		names[nn++] = q->nodes[i].name;
		cpus += q->nodes[i].cpu_milli / 1000;
		gpus += q->nodes[i].gpus;
	}
	nodequery_hostlist(names, nn, list, sizeof(list));
	free(names);
	(void)printf("PartitionName=%s\n", p->name);
	(void)printf("   Default=%s DefaultTime=%s MaxTime=%s\n",
	    p->is_default ? "YES" : "NO",
	    p->default_time_s > 0 ? out_limit(p->default_time_s, true, t1)
				  : "NONE",
	    out_limit(p->max_time_s, true, t2));
	(void)printf("   Nodes=%s\n", nn > 0 ? list : "(null)");
	(void)printf("   State=UP TotalCPUs=%" PRId64 " TotalNodes=%zu "
		     "TotalGPUs=%s\n",
	    cpus, nn, nodequery_gpus(gpus, gp, 32));
	(void)printf("   PendingJobs=%" PRIu32 " RunningJobs=%" PRIu32 "\n",
	    p->pending_jobs, p->running_jobs);
}

static int
show_nodes(const char *prog, const char *what, const char *name)
{
	struct nodequery q;
	bool node = strcmp(what, "node") == 0;
	size_t i, shown = 0, n;
	int rc;

	if ((rc = nodequery_run(prog, &q)) != CLIENT_EXIT_OK)
		return rc;
	n = node ? q.nnodes : q.nparts;
	for (i = 0; i < n; i++) {
		const char *nm = node ? q.nodes[i].name : q.parts[i].name;

		if (name != NULL && strcmp(name, nm) != 0)
			continue;
		if (shown++ > 0)
			(void)fputc('\n', stdout);
		if (node)
			show_node(&q, &q.nodes[i]);
		else
			show_part(&q, &q.parts[i]);
	}
	if (shown == 0 && name != NULL) {
		client_error(prog, NULL, "%s %s not found",
		    node ? "Node" : "Partition", name);
		rc = CLIENT_EXIT_REFUSED;
	}
	nodequery_fini(&q);
	return rc;
}

int
kctl_show(const char *prog, int argc, char **argv)
{
	const char *what, *name;

	if (argc < 2) {
		client_error(prog, NULL,
		    "missing entity: expected job, "
		    "node, partition or qos");
		return CLIENT_EXIT_USAGE;
	}
	if (argc > 3) {
		client_error(prog, NULL, "unexpected argument \"%s\"", argv[3]);
		return CLIENT_EXIT_USAGE;
	}
	what = argv[1];
	name = argc == 3 ? argv[2] : NULL;
	if (strcmp(what, "job") == 0 || strcmp(what, "jobs") == 0)
		return show_jobs(prog, name);
	if (strcmp(what, "node") == 0 || strcmp(what, "nodes") == 0)
		return show_nodes(prog, "node", name);
	if (strcmp(what, "partition") == 0 || strcmp(what, "partitions") == 0)
		return show_nodes(prog, "partition", name);
	if (strcmp(what, "qos") == 0)
		return kctl_show_qos(prog, name);
	client_error(prog, NULL,
	    "unrecognized entity \"%s\": expected "
	    "job, node, partition or qos",
	    what);
	return CLIENT_EXIT_USAGE;
}
