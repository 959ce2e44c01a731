/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * bench-podrate: the raw capacity of an API server for what kaid does to
 * start a job: POST a pod, then POST its binding.  A plain libcurl client
 * with the transport settings kaid's client uses (src/kube/kube_http.c):
 * one multi handle, keep-alive, HTTP/2 over TLS when offered, PIPEWAIT,
 * no cap on connections, and, like kaid's dispatch, every create started
 * at once and each bind started as its create returns.  -c caps the
 * requests in flight instead, to see how the server scales.
 *
 *	bench-podrate [-c CONC] [-n PODS] [-p PREFIX] [-t POD.json]
 *	    [-m both|create|bind] [-N NAMESPACE] KUBECONFIG NODE...
 *
 * With -t, every pod is the Pod in POD.json (the body kaid itself sent
 * for a job, as bench-dispatch.sh captures it) under a new name: the
 * server does the same work for the raw client as for kaid, byte for
 * byte.  Without it, a pod built by kai_kube_pod_json with the labels
 * and a script of a one-task job but none of kaid's environment and
 * shims (a fifth of the size).  The pods are bound to the NODEs in turn.
 * -m create only creates the pods, -m bind only binds pods of those
 * names that exist (bench-native.sh: pods a controller made, then bound
 * by kaid or by this client); -N: their namespace (else the
 * kubeconfig's, else default).
 * Prints one line:
 *
 *	pods=N seconds=S pods_per_s=R requests_per_s=Q failed=F
 *
 * The seconds are from the first request sent to the last bind answered.
 * Exit status: 0, 1 when a request failed, 2 usage.  Used by
 * bench-dispatch.sh; not a test.
 */
#include "config.h"

#include <curl/curl.h>
#include <getopt.h>
#include <json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/xmalloc.h"
#include "kube/kube.h"

struct pod {
	char name[64];
	const char *node;
	char *body;
	int step;	/* 0 create, 1 bind, 2 done */
	struct curl_slist *hdrs;
};

static struct kai_kube_config cfg;
static const char *ns = "default";
static CURLM *multi;
static long nfailed;
static size_t inflight;
static struct json_object *tmpl;	/* -t, or NULL */
static int last_step = 1;		/* -m create: 0 */

static double
now_s(void)
{
	struct timespec ts;

	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static size_t
sink(char *p, size_t sz, size_t n, void *ctx)
{
	(void)p;
	(void)ctx;
	return sz * n;
}

/* The template under another name. */
static char *
pod_from_template(const char *name)
{
	struct json_object *meta = NULL;

	if (!json_object_object_get_ex(tmpl, "metadata", &meta))
		meta = NULL;
	if (meta != NULL)
		json_object_object_add(meta, "name",
		    json_object_new_string(name));
	return kai_xstrdup(json_object_to_json_string_ext(tmpl,
	    JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
}

/* A one-task job's pod, with a script of kaid's size. */
static char *
pod_body(const char *name)
{
	static const char *const labels[] = {
		"app.kubernetes.io/managed-by", "bench", "kaibatch.io/job-id",
		"1", "kaibatch.io/queue", "batch", "kaibatch.io/user", "alice",
		"kaibatch.io/task-index", "0"};
	static const char *const env[] = {
		"KAI_SCRIPT", "#!/bin/sh\ntrue\n", "KAI_WORKDIR", "/tmp",
		"KAI_STDOUT", "/tmp/slurm-1.out", "KAI_STDERR",
		"/tmp/slurm-1.out", "SLURM_JOB_ID", "1", "SLURM_JOBID", "1",
		"SLURM_JOB_NAME", "job.sh", "SLURM_JOB_USER", "alice",
		"SLURM_JOB_PARTITION", "batch", "SLURM_SUBMIT_DIR", "/tmp",
		"SLURM_NTASKS", "1", "SLURM_JOB_NUM_NODES", "1",
		"SLURM_PROCID", "0", "SLURM_NODEID", "0", "SLURM_LOCALID", "0",
		"SLURM_CPUS_PER_TASK", "1", "SLURM_GPUS_ON_NODE", "0"};
	char wrapper[700];
	const char *command[] = {"/bin/sh", "-c", wrapper, "kai-job"};
	struct kai_pod_spec ps;

	if (tmpl != NULL)
		return pod_from_template(name);
	memset(wrapper, '#', sizeof(wrapper) - 1); /* kaid's is ~600 bytes */
	wrapper[sizeof(wrapper) - 1] = '\0';
	memset(&ps, 0, sizeof(ps));
	ps.name = name;
	ps.label_kv = labels;
	ps.nlabels = KAI_NELEM(labels) / 2;
	ps.image = "debian:bookworm-slim";
	ps.command = command;
	ps.ncommand = KAI_NELEM(command);
	ps.env_kv = env;
	ps.nenv = KAI_NELEM(env) / 2;
	ps.run_as_uid = 1000;
	ps.run_as_gid = 1000;
	ps.run_as_non_root = true;
	ps.cpu_milli = 1000;
	ps.mem_mb = 1024;
	return kai_kube_pod_json(&ps, ns);
}

static void
start(struct pod *p)
{
	CURL *e = curl_easy_init();
	char url[512], auth[4096];
	struct curl_blob ca;

	free(p->body);
	if (p->step == 0) {
		(void)snprintf(url, sizeof(url), "%s/api/v1/namespaces/%s/pods",
		    cfg.server, ns);
		p->body = pod_body(p->name);
	} else {
		(void)snprintf(url, sizeof(url),
		    "%s/api/v1/namespaces/%s/pods/%s/binding", cfg.server, ns,
		    p->name);
		p->body = kai_xasprintf("{\"apiVersion\":\"v1\",\"kind\":"
		    "\"Binding\",\"metadata\":{\"name\":\"%s\"},\"target\":"
		    "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"name\":\"%s\"}}",
		    p->name, p->node);
	}
	if (p->hdrs == NULL) {
		(void)snprintf(auth, sizeof(auth), "Authorization: Bearer %s",
		    cfg.token != NULL ? cfg.token : "");
		p->hdrs = curl_slist_append(NULL, "Accept: application/json");
		p->hdrs = curl_slist_append(p->hdrs,
		    "Content-Type: application/json");
		p->hdrs = curl_slist_append(p->hdrs, auth);
	}
	(void)curl_easy_setopt(e, CURLOPT_URL, url);
	(void)curl_easy_setopt(e, CURLOPT_PRIVATE, (char *)p);
	(void)curl_easy_setopt(e, CURLOPT_HTTPHEADER, p->hdrs);
	(void)curl_easy_setopt(e, CURLOPT_POSTFIELDS, p->body);
	(void)curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, sink);
	(void)curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
	(void)curl_easy_setopt(e, CURLOPT_TCP_KEEPALIVE, 1L);
	(void)curl_easy_setopt(e, CURLOPT_PIPEWAIT, 1L);
	(void)curl_easy_setopt(e, CURLOPT_ACCEPT_ENCODING, "");
	(void)curl_easy_setopt(e, CURLOPT_HTTP_VERSION,
	    (long)CURL_HTTP_VERSION_2TLS);
	if (cfg.ca_pem != NULL) {
		ca.data = cfg.ca_pem;
		ca.len = strlen(cfg.ca_pem);
		ca.flags = CURL_BLOB_COPY;
		(void)curl_easy_setopt(e, CURLOPT_CAINFO_BLOB, &ca);
	}
	(void)curl_multi_add_handle(multi, e);
	inflight++;
}

static void
finish(CURL *e, CURLcode rc, struct pod **next, struct pod *end)
{
	struct pod *p = NULL;
	long status = 0;

	(void)curl_easy_getinfo(e, CURLINFO_PRIVATE, (char **)&p);
	(void)curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &status);
	(void)curl_multi_remove_handle(multi, e);
	curl_easy_cleanup(e);
	inflight--;
	if (rc != CURLE_OK || status != 201) {
		if (nfailed++ < 5)
			fprintf(stderr, "bench-podrate: %s %s: %s, HTTP %ld\n",
			    p->step == 0 ? "create" : "bind", p->name,
			    curl_easy_strerror(rc), status);
		p->step = 2;
	} else if (++p->step <= last_step) {
		start(p);
	} else {
		p->step = 2;
	}
	/* With a cap, a finished pod lets the next one start. */
	if (p->step == 2 && *next < end)
		start((*next)++);
}

int
main(int argc, char **argv)
{
	const char *prefix = "bench", *mode = "both", *nsopt = NULL,
	    *usage = "usage: bench-podrate [-c CONC] [-n PODS] [-p PREFIX] "
	    "[-t POD.json] [-m both|create|bind] [-N NAMESPACE] KUBECONFIG "
	    "NODE...\n";
	int first_step = 0;
	struct kai_err err;
	struct pod *pods, *next, *end;
	long npods = 1000, conc = 0;
	double t0, t1;
	CURLMsg *m;
	int c, left, running;
	long i;

	while ((c = getopt(argc, argv, "c:m:n:N:p:t:")) != -1) {
		switch (c) {
		case 'c': conc = strtol(optarg, NULL, 10); break;
		case 'm': mode = optarg; break;
		case 'N': nsopt = optarg; break;
		case 'n': npods = strtol(optarg, NULL, 10); break;
		case 'p': prefix = optarg; break;
		case 't':
			if ((tmpl = json_object_from_file(optarg)) == NULL ||
			    !json_object_is_type(tmpl, json_type_object)) {
				fprintf(stderr, "bench-podrate: %s: not a JSON "
				    "object\n", optarg);
				return 2;
			}
			break;
		default: fputs(usage, stderr); return 2;
		}
	}
	if (strcmp(mode, "create") == 0)
		last_step = 0;
	else if (strcmp(mode, "bind") == 0)
		first_step = 1;
	else if (strcmp(mode, "both") != 0)
		npods = 0;	/* usage */
	if (argc - optind < 2 || npods <= 0 || conc < 0) {
		fputs(usage, stderr);
		return 2;
	}
	if (kai_kube_config_load(argv[optind], NULL, &cfg, &err) != 0) {
		fprintf(stderr, "bench-podrate: %s\n", kai_err_msg(&err));
		return 2;
	}
	if (cfg.namespace != NULL)
		ns = cfg.namespace;
	if (nsopt != NULL)
		ns = nsopt;
	curl_global_init(CURL_GLOBAL_DEFAULT);
	multi = curl_multi_init();
	pods = kai_xcalloc((size_t)npods, sizeof(*pods));
	for (i = 0; i < npods; i++) {
		(void)snprintf(pods[i].name, sizeof(pods[i].name), "%s-%ld",
		    prefix, i);
		pods[i].node = argv[optind + 1 + i % (argc - optind - 1)];
		pods[i].step = first_step;
	}
	next = pods;
	end = pods + npods;
	t0 = now_s();
	while (next < end && (conc == 0 || (long)inflight < conc))
		start(next++);
	do {
		(void)curl_multi_perform(multi, &running);
		while ((m = curl_multi_info_read(multi, &left)) != NULL)
			if (m->msg == CURLMSG_DONE)
				finish(m->easy_handle, m->data.result, &next,
				    end);
		if (inflight > 0)
			(void)curl_multi_poll(multi, NULL, 0, 100, NULL);
	} while (inflight > 0);
	t1 = now_s();
	printf("pods=%ld seconds=%.3f pods_per_s=%.1f requests_per_s=%.1f "
	    "failed=%ld\n", npods, t1 - t0, (double)npods / (t1 - t0),
	    2.0 * (double)npods / (t1 - t0), nfailed);
	for (i = 0; i < npods; i++) {
		free(pods[i].body);
		curl_slist_free_all(pods[i].hdrs);
	}
	free(pods);
	json_object_put(tmpl);
	curl_multi_cleanup(multi);
	kai_kube_config_fini(&cfg);
	curl_global_cleanup();
	return nfailed > 0 ? 1 : 0;
}
