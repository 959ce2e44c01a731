/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * kaid.c: the controller daemon's main(): a straight list of set-up steps
 * (config, logging, database, cluster, listener, signals, tick), the loop,
 * and the teardown in reverse.
 */
#include "config.h"

#include <getopt.h>
#include <inttypes.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/xmalloc.h"
#include "deps.h"
#include "dispatch.h"
#include "kaid.h"
#include "mail.h"
#include "queues.h"
#include "share.h"
#include "sys/log.h"
#include "tick.h"
#include "usage.h"

#define KAID_SA_DIR "/var/run/secrets/kubernetes.io/serviceaccount"

static const struct option long_opts[] = {
	{"config", required_argument, NULL, 'f'},
	{"foreground", no_argument, NULL, 'F'},
	{"check", no_argument, NULL, 'n'},
	{"verbose", no_argument, NULL, 'v'},
	{"help", no_argument, NULL, 'h'},
	{"version", no_argument, NULL, 'V'},
	{NULL, 0, NULL, 0},
};

static void
usage(FILE *fp)
{
	(void)fprintf(fp,
	    "usage: kaid [-FnvhV] [-f file]\n"
	    "  -f, --config FILE  configuration file (default %s/kaid.yaml)\n"
	    "  -F, --foreground   stay in the foreground, log to stderr\n"
	    "  -n, --check        check the configuration and exit\n"
	    "  -v, --verbose      with -n, print the effective configuration;\n"
	    "                     otherwise log at debug level\n"
	    "  -h, --help         show this help\n"
	    "  -V, --version      show the version\n", KAI_CONFIG_DIR);
}

int64_t
kaid_now(void)
{
	return (int64_t)time(NULL);
}

static int seed_queues(struct kaid *k, struct kai_err *err);

static void
on_signal(struct kai_loop *loop, int signo, void *ctx)
{
	struct kaid *k = ctx;
	struct kai_conf *nc;
	struct kai_err err;

	if (signo != SIGHUP) {
		kai_log_info("received signal %d, shutting down", signo);
		kai_loop_stop(loop);
		return;
	}
	/* Reload: swap in the new config only if it loads cleanly. */
	if (kai_conf_load(k->conf_path, &nc, &err) != 0) {
		kai_log_err("reload refused: %s", err.msg);
		return;
	}
	kai_log_info("configuration reloaded from \"%s\"", k->conf_path);
	kai_conf_free(k->conf);
	k->conf = nc;
	kai_log_set_level((enum kai_log_level)nc->log_level);
	webhook_reload(k);
	if (leader_leading(k) && seed_queues(k, &err) != 0)
		kai_log_err("could not create the queues of new partitions: "
		    "%s", err.msg);
}

static void
before_sleep(struct kai_loop *loop, void *ctx)
{
	(void)loop;
	submit_commit(ctx);
	native_burst_commit(ctx);
}

/*
 * Every partition of kaid.yaml becomes a queue if it is not one, then the
 * queue cache is loaded: at start, and after a reload, so a partition
 * added to kaid.yaml takes jobs from the SIGHUP on.
 */
static int
seed_queues(struct kaid *k, struct kai_err *err)
{
	const char **names;
	size_t i;
	int r;

	names = kai_xcalloc(k->conf->npartitions, sizeof(*names));
	for (i = 0; i < k->conf->npartitions; i++)
		names[i] = k->conf->partitions[i].name;
	r = kai_db_queues_sync(k->db, names, k->conf->npartitions, err);
	free(names);
	if (r == 0)
		r = queues_reload(k, err);
	return r;
}

/* The database, its schema brought up to date; leader or not. */
static int
open_store(struct kaid *k, struct kai_err *err)
{
	if (kai_db_open(k->conf->database, &k->db, err) != 0 ||
	    kai_db_migrate(k->db, &k->schema_version, err) != 0)
		return err->code;
	return 0;
}

/* The leader's state from the database: queues, active jobs. */
static int
open_db(struct kaid *k, struct kai_err *err)
{
	struct kai_job *jobs = NULL;
	size_t i, n = 0;
	int version = k->schema_version;

	if (seed_queues(k, err) != 0 ||
	    kai_db_jobs_load_active(k->db, &jobs, &n, err) != 0 ||
	    kai_db_jobs_load_ext(k->db, jobs, n, err) != 0) {
		for (i = 0; i < n; i++)
			kai_job_fini(&jobs[i]);
		free(jobs);
		return err->code;
	}
	for (i = 0; i < n; i++) {
		struct kai_job *j = kai_xcalloc(1, sizeof(*j));

		*j = jobs[i];
		if (j->reason == NULL)
			j->reason = kai_xstrdup("");
		if (j->why == NULL)
			j->why = kai_xstrdup("");
		state_job_add(k, j);
	}
	free(jobs);
	kai_log_info("database schema version %d, %zu queues, %zu active jobs",
	    version, queues_count(k), n);
	/* After the migrations, which may take longer. */
	if (kai_db_set_statement_timeout(k->db, k->conf->db_timeout_ms,
	    err) != 0 || reads_open(k, err) != 0)
		return err->code;
	return 0;
}

static int
open_kube(struct kaid *k, struct kai_err *err)
{
	struct kai_kube_config kc;
	int r;

	memset(&kc, 0, sizeof(kc));
	if (k->conf->kubeconfig != NULL)
		r = kai_kube_config_load(k->conf->kubeconfig,
		    k->conf->kube_context, &kc, err);
	else
		/*
		 * The one place kaid reads the environment: in a pod,
		 * Kubernetes names its API server only there.
		 */
		r = kai_kube_config_incluster(KAID_SA_DIR,
		    getenv("KUBERNETES_SERVICE_HOST"),
		    getenv("KUBERNETES_SERVICE_PORT"), &kc, err);
	if (r == 0)
		r = kai_kube_new(k->loop, &kc, k->conf->namespace,
		    k->conf->kube_timeout_ms, &k->kube, err);
	kai_kube_config_fini(&kc);
	if (r != 0)
		return r;
	kai_kube_set_user_label(k->kube, k->conf->native_user_label);
	kai_kube_watch_nodes(k->kube, state_on_node, k);
	kai_kube_watch_pods(k->kube, state_on_pod, k);
	native_watch_podgroups(k);
	kaiqueues_start(k);
	return 0;
}

static void
kaid_init(struct kaid *k)
{
	memset(k, 0, sizeof(*k));
	metrics_init(&k->metrics, kaid_now());
	kai_map_init(&k->nodes, node_free);
	kai_map_init(&k->pods, pod_rec_free);
	kai_map_init(&k->pgstatus, free);
	kai_map_init(&k->qstatus, free);
	dispatch_init(k);
	podfail_init(k);
	deps_init(k);
	server_init(k);
	state_init(k);
	reads_init(k);
}

static void
kaid_fini(struct kaid *k)
{
	httpd_close(k);
	webhook_close(k);
	server_free(k);
	ptyrelay_free(k);
	kai_kube_free(k->kube);
	kaiqueues_free(k);
	native_owner_fini(k);	/* after the reads it waited for went */
	native_burst_free(k);	/* its pods are jobs at the next start */
	native_qwait_free(k);
	reads_close(k);
	kai_db_close(k->db);
	state_free(k);
	submit_free(k);
	tick_free(k);
	mail_free(k);
	usage_free(k);
	writeq_free(k);
	share_free(k);
	queues_free(k);
	kai_map_fini(&k->nodes);
	kai_map_fini(&k->pods);
	kai_map_fini(&k->pgstatus);
	kai_map_fini(&k->qstatus);
	dispatch_free(k);
	podfail_free(k);
	metrics_fini(&k->metrics);
	deps_free(k);
	helpers_free(k);
	jobauth_free(k);
	steps_free(k);
	leader_free(k);
	relay_stop(k);
	kai_loop_free(k->loop);
	kai_conf_free(k->conf);
}

/*
 * What the leader adds to a kaid that has its database: the state, the
 * cluster, the client port, the ticks (leader.c calls it, at once or
 * when the lead comes to this kaid).
 */
int
kaid_lead(struct kaid *k, struct kai_err *err)
{
	if (open_db(k, err) != 0 || open_kube(k, err) != 0 ||
	    server_listen(k, err) != 0)
		return err->code;
	tick_start(k);
	kai_log_info("kaid %s listening on %s", PACKAGE_VERSION,
	    k->conf->listen);
	return 0;
}

static int
run(struct kaid *k)
{
	struct kai_err err;

	if ((k->loop = kai_loop_new(&err)) == NULL ||
	    open_store(k, &err) != 0 || httpd_listen(k, &err) != 0 ||
	    webhook_listen(k, &err) != 0 ||
	    kai_loop_signal_add(k->loop, SIGTERM, on_signal, k) != 0 ||
	    kai_loop_signal_add(k->loop, SIGINT, on_signal, k) != 0 ||
	    kai_loop_signal_add(k->loop, SIGHUP, on_signal, k) != 0) {
		kai_log_err("%s", kai_err_msg(&err));
		return 1;
	}
	(void)signal(SIGPIPE, SIG_IGN);
	kai_loop_before_sleep(k->loop, before_sleep, k);
	if (leader_start(k, &err) != 0) {
		kai_log_err("%s", kai_err_msg(&err));
		return 1;
	}
	if (kai_loop_run(k->loop) != 0) {
		kai_log_err("event loop failed");
		return 1;
	}
	return k->exit_code;
}

int
main(int argc, char **argv)
{
	const char *path = KAI_CONFIG_DIR "/kaid.yaml";
	bool check = false, verbose = false, fg = false;
	struct kaid k;
	struct kai_err err;
	char *dump;
	int c, rc;

	/*
	 * Every tick allocates and frees the snapshot and the scheduler's
	 * result, megabytes at 10,000 pending jobs.  glibc raises its mmap
	 * threshold after the first such free, so later snapshots come from
	 * the heap and stay in kaid's resident memory between ticks; a fixed
	 * threshold keeps big arrays in mappings returned when freed.
	 */
	(void)mallopt(M_MMAP_THRESHOLD, 128 * 1024);
	while ((c = getopt_long(argc, argv, "f:FnvhV", long_opts, NULL)) != -1) {
		switch (c) {
		case 'f': path = optarg; break;
		case 'F': fg = true; break;
		case 'n': check = true; break;
		case 'v': verbose = true; break;
		case 'h': usage(stdout); return 0;
		case 'V': printf("kaid (kaibatch) %s\n", PACKAGE_VERSION); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind != argc) {
		(void)fprintf(stderr, "kaid: error: unexpected argument \"%s\"\n",
		    argv[optind]);
		usage(stderr);
		return 2;
	}
	kaid_init(&k);
	k.conf_path = path;
	k.foreground = fg || check;
	if (kai_conf_load(path, &k.conf, &err) != 0) {
		(void)fprintf(stderr, "kaid: error: %s\n", err.msg);
		kaid_fini(&k);
		return 1;
	}
	helpers_init(&k);
	if (jobauth_init(&k, &err) != 0) {
		(void)fprintf(stderr, "kaid: error: %s\n", err.msg);
		kaid_fini(&k);
		return 1;
	}
	if (check) {
		if (verbose) {
			dump = kai_conf_dump(k.conf);
			fputs(dump, stdout);
			free(dump);
		}
		printf("configuration OK\n");
		kaid_fini(&k);
		return 0;
	}
	if (!fg && daemon(0, 0) != 0) {
		(void)fprintf(stderr, "kaid: error: could not daemonize\n");
		kaid_fini(&k);
		return 1;
	}
	kai_log_init("kaid", fg ? KAI_LOG_STDERR : KAI_LOG_SYSLOG,
	    verbose ? KAI_LOG_DEBUG : (enum kai_log_level)k.conf->log_level);
	rc = run(&k);
	kaid_fini(&k);
	return rc;
}
