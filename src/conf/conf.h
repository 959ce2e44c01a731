/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * conf.h: kaid.yaml (the daemon) and kai.yaml (the clients).
 *
 * One table (conf_table.c) names every kaid.yaml key with its type,
 * default, bounds and help; the loader walks libyaml events against it.
 * An unknown key, a wrong type or a value out of bounds is an error that
 * names the place: `kaid.yaml:12:3: unrecognized key "schedular"`.  The
 * result is an immutable struct kai_conf; a reload builds a new one and
 * swaps it in only when it loaded cleanly.
 */
#ifndef KAI_CONF_CONF_H
#define KAI_CONF_CONF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/compiler.h"
#include "base/err.h"

/* Most phases in scheduling.phases (the core's KAI_SCHED_MAX_PHASES). */
#define KAI_CONF_PHASES_MAX 8

/* A partition (queue) as kaid.yaml declares it. */
struct kai_conf_partition {
	char *name;
	bool is_default;	/* the partition of jobs that name none */
	int64_t max_time_s;	/* 0 = no limit; a longer job is refused */
	int64_t default_time_s; /* time limit of a job that gives none; 0 = none */
};

struct kai_conf {
	char *path;			/* the file read, for messages */
	char *listen;			/* "host:port" for clients; 127.0.0.1:6820 */
	char *http_listen;		/* health and metrics; "off"; 127.0.0.1:6821 */
	char *database;			/* libpq conninfo; required */
	int64_t db_timeout_ms;		/* statement_timeout; 0 = none; 30 s */
	char *munge_socket;		/* NULL = munged's default */
	int log_level;			/* enum kai_log_level; "info" */
	/* kubernetes: */
	char *kubeconfig;		/* NULL = in-cluster service account */
	char *kube_context;		/* NULL = current-context */
	char *namespace;		/* "default" */
	char *default_image;		/* "debian:bookworm-slim" */
	char *cluster_domain;		/* "cluster.local" */
	int64_t kube_timeout_ms;	/* per API call; 10000 */
	/* scheduler: */
	int64_t sched_interval_ms;	/* tick; 1000 */
	int64_t default_mem_mb;		/* per task when --mem is not given; 1024 */
	/* scheduling: the core's struct kai_sched_config, and usage */
	int sched_placement;		/* enum kai_sched_placement; binpack */
	int sched_gpu_placement;	/* the same; pack */
	int sched_phases[KAI_CONF_PHASES_MAX]; /* enum kai_sched_action */
	size_t sched_nphases;		/* 0 = kaid's own list (unset) */
	double sched_k_value;		/* time-based fair share; 1.0 */
	int64_t sched_stale_grace_ms;	/* -1 = never; 60 s */
	int64_t sched_max_moves;	/* consolidation; 16 */
	int64_t usage_half_life_ms;	/* 0 = no decay; 1 day */
	int64_t usage_window_ms;	/* 7 days */
	int64_t usage_refresh_ms;	/* re-read finished jobs; 1 min */
	/* jobs: */
	bool allow_root_jobs;		/* false: pods get runAsNonRoot */
	int64_t max_script_bytes;	/* <= KAI_JOB_SCRIPT_MAX; 102400 */
	uint32_t *operators;		/* uids that may act on any job (0 always may) */
	size_t noperators;
	struct kai_conf_partition *partitions; /* at least one */
	size_t npartitions;
};

/*
 * Loads and validates path.  Caller owns *conf (kai_conf_free()).  On
 * error returns KAI_ECONFIG with err->msg "path:line:col: reason".
 */
int kai_conf_load(const char *path, struct kai_conf **conf,
    struct kai_err *err) KAI_MUST_CHECK;
void kai_conf_free(struct kai_conf *conf);

/* The partition named name, or the default one when name is NULL. */
const struct kai_conf_partition *kai_conf_partition(
    const struct kai_conf *conf, const char *name);

/* Whether uid is 0 or listed under operators. */
bool kai_conf_is_operator(const struct kai_conf *conf, uint32_t uid);

/*
 * Writes the effective configuration as YAML (kaid -n -v) to a buffer the
 * caller owns, with secrets (passwords in the conninfo) masked.
 */
char *kai_conf_dump(const struct kai_conf *conf);

/*
 * The clients' file, kai.yaml: `controller: host:port` and optionally
 * `munge_socket: path`.  Missing file is not an error (defaults stay).
 * Overwrites *cc; caller owns the strings it sets (kai_client_conf_fini()).
 * On error returns KAI_ECONFIG, as kai_conf_load() does, and leaves *cc
 * zeroed.
 */
struct kai_client_conf {
	char *controller;	/* "127.0.0.1:6820" */
	char *munge_socket;	/* NULL = default */
};
int kai_client_conf_load(const char *path, struct kai_client_conf *cc,
    struct kai_err *err) KAI_MUST_CHECK;
void kai_client_conf_fini(struct kai_client_conf *cc);

/*
 * Help for every kaid.yaml key, in table order, for `kaid --help-config`
 * and the man page: each line "key  type  default  help".
 */
char *kai_conf_help(void);

#endif /* KAI_CONF_CONF_H */
