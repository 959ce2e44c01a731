/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * conf-pools: kaid.yaml's shared filesystems and node pools (filesystems:,
 * jobs.shm_percent, and a partition's image, nodeSelector, tolerations,
 * imagePullSecrets and filesystems), as an administrator writes them.
 * Every bad value is refused with one line that names the key.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/err.h"
#include "conf/conf.h"
#include "tap.h"

static char dir[64];
static char path[128];

static struct kai_conf *
load(const char *text, struct kai_err *err)
{
	struct kai_conf *conf = NULL;
	FILE *f = fopen(path, "w");

	if (f == NULL || fputs(text, f) == EOF || fclose(f) != 0) {
		perror(path);
		exit(1);
	}
	kai_err_clear(err);
	if (kai_conf_load(path, &conf, err) != 0)
		return NULL;
	return conf;
}

static struct kai_conf *
load_ok(const char *text, const char *what)
{
	struct kai_err err;
	struct kai_conf *conf = load(text, &err);

	if (!ok(conf != NULL, "%s loads", what))
		diag("error: %s", kai_err_msg(&err));
	return conf;
}

static void
load_bad(const char *text, const char *want, const char *what)
{
	struct kai_conf *conf;
	struct kai_err err;
	char full[512];

	(void)snprintf(full, sizeof(full), "%s%s", path, want);
	conf = load(text, &err);
	if (conf != NULL) {
		ok(0, "%s is refused", what);
		kai_conf_free(conf);
		return;
	}
	is_str(err.msg, full, "%s is refused", what);
	ok(strchr(err.msg, '\n') == NULL, "%s: one line", what);
}

#define DB "database: dbname=kaibatch\n"

static void
test_filesystems(void)
{
	const struct kai_conf_fs *fs;
	struct kai_conf *c;
	size_t n;

	c = load_ok(DB, "no filesystems");
	if (c != NULL) {
		fs = kai_conf_filesystems(c, NULL, &n);
		ok(fs == NULL && n == 0, "unset: no shared filesystems");
		is_int(c->shm_percent, 50, "shm_percent defaults to 50");
		is_int(c->kill_wait_ms, 30000, "kill_wait defaults to 30 s");
		is_str(c->cluster_name, "kaibatch",
		    "cluster_name defaults to kaibatch");
		kai_conf_free(c);
	}
	c = load_ok(DB "filesystems:\n"
	    "  - path: /home\n    hostPath: /home\n"
	    "  - path: /scratch/\n    pvc: scratch-claim\n    readOnly: true\n"
	    "  - path: /data\n    nfs: {server: nfs1.example, path: /export}\n"
	    "cluster_name: gpu-west\n"
	    "jobs:\n  shm_percent: 25\n  kill_wait: 2m\n", "three filesystems");
	if (c != NULL) {
		fs = kai_conf_filesystems(c, "batch", &n);
		is_int((long long)n, 3, "three of them");
		if (n == 3) {
			is_str(fs[0].path, "/home", "path");
			is_str(fs[0].host_path, "/home", "hostPath");
			ok(!fs[0].read_only, "readOnly defaults to false");
			is_str(fs[1].path, "/scratch",
			    "a trailing slash is dropped");
			is_str(fs[1].pvc, "scratch-claim", "pvc");
			ok(fs[1].read_only, "readOnly: true");
			is_str(fs[2].nfs_server, "nfs1.example", "nfs.server");
			is_str(fs[2].nfs_path, "/export", "nfs.path");
		}
		is_int(c->shm_percent, 25, "shm_percent");
		is_int(c->kill_wait_ms, 120000, "kill_wait");
		is_str(c->cluster_name, "gpu-west", "cluster_name");
		kai_conf_free(c);
	}
	load_bad(DB "filesystems:\n  - hostPath: /home\n",
	    ":3:5: missing required key \"filesystems[0].path\"",
	    "a filesystem without path");
	load_bad(DB "filesystems:\n  - path: /home\n",
	    ":3:5: \"filesystems[0]\" (/home) needs exactly one of hostPath, "
	    "pvc and nfs", "a filesystem without source");
	load_bad(DB "filesystems:\n  - path: /home\n    hostPath: /home\n"
	    "    pvc: home\n",
	    ":3:5: \"filesystems[0]\" (/home) needs exactly one of hostPath, "
	    "pvc and nfs", "a filesystem with two sources");
	load_bad(DB "filesystems:\n  - path: /home\n    nfs: {server: a}\n",
	    ":3:5: \"filesystems[0].nfs\" needs both server and path",
	    "nfs without path");
	load_bad(DB "filesystems:\n  - path: home\n    hostPath: /home\n",
	    ":3:11: invalid value \"home\" for \"filesystems[0].path\": "
	    "expected an absolute path", "a relative path");
	load_bad(DB "filesystems:\n  - path: /\n    hostPath: /\n",
	    ":3:5: invalid value \"/\" for \"filesystems[0].path\": must not "
	    "be \"/\"", "the root as a filesystem");
	load_bad(DB "filesystems:\n  - path: /home/../etc\n    hostPath: /h\n",
	    ":3:5: invalid value \"/home/../etc\" for \"filesystems[0].path\": "
	    "must not hold \"..\" components", "a path with ..");
	load_bad(DB "filesystems:\n  - path: /home\n    hostPath: /a\n"
	    "  - path: /home/\n    hostPath: /b\n",
	    ":5:5: \"filesystems[1]\": path \"/home\" is listed twice",
	    "a path twice");
	load_bad(DB "filesystems:\n  - path: /home\n    hostpath: /home\n",
	    ":4:5: unrecognized key \"filesystems[0].hostpath\"",
	    "a misspelt key");
	load_bad(DB "filesystems:\n  - path: /home\n    pvc: Home_Claim\n",
	    ":4:10: invalid value \"Home_Claim\" for \"filesystems[0].pvc\": "
	    "expected a DNS domain: labels of lower-case letters, digits and "
	    "'-' joined by '.'", "a claim name Kubernetes refuses");
	load_bad(DB "filesystems: /home\n",
	    ":2:14: invalid value \"/home\" for \"filesystems\": expected a "
	    "list of filesystems", "a filesystem that is no list");
	load_bad(DB "jobs:\n  shm_percent: 150\n",
	    ":3:16: invalid value \"150\" for \"jobs.shm_percent\": expected a "
	    "whole number between 0 and 100", "shm_percent over 100");
	load_bad(DB "jobs:\n  kill_wait: 0s\n",
	    ":3:14: invalid value \"0s\" for \"jobs.kill_wait\": must be "
	    "between 1s and 1h", "kill_wait of 0");
}

static void
test_pools(void)
{
	const struct kai_conf_partition *p;
	const struct kai_conf_fs *fs;
	struct kai_conf *c;
	size_t n;

	c = load_ok(DB "filesystems:\n  - path: /home\n    hostPath: /home\n"
	    "partitions:\n"
	    "  - name: gpu\n    default: true\n"
	    "    image: registry.example/cuda:12\n"
	    "    nodeSelector: {pool: gpu, nvidia.com/gpu.product: A100}\n"
	    "    tolerations:\n"
	    "      - {key: dedicated, value: gpu, effect: NoSchedule}\n"
	    "      - {key: nvidia.com/gpu, operator: Exists}\n"
	    "    imagePullSecrets: [regcred]\n"
	    "    filesystems:\n"
	    "      - path: /lustre\n        hostPath: /mnt/lustre\n"
	    "  - name: cpu\n    filesystems: []\n"
	    "  - name: plain\n", "a node pool");
	if (c == NULL)
		return;
	p = kai_conf_partition(c, "gpu");
	is_str(p->image, "registry.example/cuda:12", "image");
	is_int((long long)p->nnode_selector, 2, "two selector labels");
	if (p->nnode_selector == 2) {
		is_str(p->node_selector[0], "pool", "selector key");
		is_str(p->node_selector[1], "gpu", "selector value");
		is_str(p->node_selector[2], "nvidia.com/gpu.product",
		    "a prefixed selector key");
	}
	is_int((long long)p->ntolerations, 2, "two tolerations");
	if (p->ntolerations == 2) {
		is_str(p->tolerations[0].op, "Equal",
		    "operator defaults to Equal");
		is_str(p->tolerations[0].effect, "NoSchedule", "effect");
		is_str(p->tolerations[1].op, "Exists", "operator Exists");
		is_str(p->tolerations[1].effect, "", "no effect: every one");
	}
	is_int((long long)p->npull_secrets, 1, "one pull secret");
	fs = kai_conf_filesystems(c, "gpu", &n);
	ok(n == 1 && strcmp(fs[0].path, "/lustre") == 0,
	    "a partition's own filesystems replace the top-level list");
	fs = kai_conf_filesystems(c, "cpu", &n);
	ok(fs != NULL && n == 0, "an empty list in a partition: none");
	fs = kai_conf_filesystems(c, "plain", &n);
	ok(n == 1 && strcmp(fs[0].path, "/home") == 0,
	    "a partition without its own gets the top-level list");
	fs = kai_conf_filesystems(c, "made-with-kctl", &n);
	ok(n == 1 && strcmp(fs[0].path, "/home") == 0,
	    "a queue no partition names gets the top-level list");
	p = kai_conf_partition(c, "plain");
	ok(p->image == NULL && p->nnode_selector == 0 &&
		p->ntolerations == 0 && p->npull_secrets == 0,
	    "a partition without a pool has none of it");
	kai_conf_free(c);

	load_bad(DB "partitions:\n  - name: a\n    tolerations:\n"
	    "      - {key: x, operator: Exists, value: y}\n",
	    ":5:9: invalid value for \"partitions[0].tolerations[0]\": "
	    "operator Exists takes no value", "Exists with a value");
	load_bad(DB "partitions:\n  - name: a\n    tolerations:\n"
	    "      - {effect: NoSchedule}\n",
	    ":5:9: invalid value for \"partitions[0].tolerations[0]\": a "
	    "toleration without a key needs operator Exists",
	    "a keyless Equal toleration");
	load_bad(DB "partitions:\n  - name: a\n    tolerations:\n"
	    "      - {key: x, effect: Never}\n",
	    ":5:9: invalid value for \"partitions[0].tolerations[0]\": effect "
	    "must be NoSchedule, PreferNoSchedule or NoExecute",
	    "an unknown effect");
	load_bad(DB "partitions:\n  - name: a\n    tolerations:\n"
	    "      - {key: x, seconds: 3}\n",
	    ":5:18: unrecognized key \"partitions[0].tolerations[0].seconds\"",
	    "an unknown toleration key");
	load_bad(DB "partitions:\n  - name: a\n    nodeSelector: {pool: a b}\n",
	    ":4:26: invalid value \"a b\" for \"partitions[0].nodeSelector.pool\""
	    ": expected a label value: at most 63 letters, digits, '-', '_' "
	    "and '.'", "a label value with a space");
	load_bad(DB "partitions:\n  - name: a\n"
	    "    nodeSelector: {pool: a, pool: b}\n",
	    ":4:29: duplicate key \"partitions[0].nodeSelector.pool\"",
	    "a selector key twice");
	load_bad(DB "partitions:\n  - name: a\n    imagePullSecrets: [Reg]\n",
	    ":4:24: invalid value \"Reg\" for \"partitions[0].imagePullSecrets\""
	    ": expected a Kubernetes object name: lower-case letters, digits, "
	    "'-' and '.'", "a secret name Kubernetes refuses");
	load_bad(DB "partitions:\n  - name: a\n    filesystems:\n"
	    "      - path: /x\n",
	    ":5:9: \"partitions[0].filesystems[0]\" (/x) needs exactly one of "
	    "hostPath, pvc and nfs", "a partition's filesystem without source");
}

static void
test_paths(void)
{
	struct kai_conf_fs fs[2];
	char *names;

	memset(fs, 0, sizeof(fs));
	fs[0].path = (char *)"/home";
	fs[1].path = (char *)"/scratch/shared";
	ok(kai_conf_fs_find(fs, 2, "/home") == &fs[0], "the mount point");
	ok(kai_conf_fs_find(fs, 2, "/home/alice/run") == &fs[0], "below it");
	ok(kai_conf_fs_find(fs, 2, "/homer") == NULL,
	    "a name that only starts the same is not below it");
	ok(kai_conf_fs_find(fs, 2, "/home/../etc") == NULL,
	    ".. out of it is out");
	ok(kai_conf_fs_find(fs, 2, "/tmp/../home/./a//b/") == &fs[0],
	    ".. and . are resolved by name");
	ok(kai_conf_fs_find(fs, 2, "/scratch") == NULL,
	    "above a mount point is out");
	ok(kai_conf_fs_find(fs, 2, "relative") == NULL,
	    "a relative path is out");
	ok(kai_conf_fs_find(fs, 0, "/home") == NULL, "no filesystems: none");
	ok(kai_conf_fs_find_pattern(fs, 2, "/home/alice", "slurm-%j.out") ==
		&fs[0], "a relative pattern is in the working directory");
	ok(kai_conf_fs_find_pattern(fs, 2, "/home/alice",
		"/scratch/shared/%u/out-%j") == &fs[1],
	    "an absolute pattern by its fixed directory");
	ok(kai_conf_fs_find_pattern(fs, 2, "/home/alice", "/tmp/o-%j") ==
		NULL, "a pattern in /tmp is out");
	ok(kai_conf_fs_find_pattern(fs, 2, "/home/alice", "../../o") ==
		NULL, "a relative pattern that climbs out is out");
	ok(kai_conf_fs_find_pattern(fs, 2, "/home/alice", "/home%u/x") ==
		NULL, "a pattern whose directory is unknown is out");
	names = kai_conf_fs_names(fs, 2);
	is_str(names, "/home, /scratch/shared", "the names for messages");
	free(names);
}

static void
test_dump(void)
{
	struct kai_conf *c;
	char *d;

	c = load_ok(DB "filesystems:\n  - path: /home\n    hostPath: /h\n"
	    "partitions:\n  - name: a\n    nodeSelector: {pool: a}\n"
	    "    tolerations: [{key: k, operator: Exists}]\n",
	    "a pool to dump");
	if (c == NULL)
		return;
	d = kai_conf_dump(c);
	ok(strstr(d, "filesystems: [{path: \"/home\", hostPath: \"/h\", "
		     "readOnly: false}]") != NULL,
	    "kaid -n -v shows the filesystems");
	ok(strstr(d, "nodeSelector: {\"pool\": \"a\"}") != NULL &&
		strstr(d, "tolerations: [{key: \"k\", operator: \"Exists\", "
			  "value: \"\", effect: \"\"}]") != NULL,
	    "and the pool");
	free(d);
	kai_conf_free(c);
}

int
main(void)
{
	(void)snprintf(dir, sizeof(dir), "/tmp/kai-conf-pools.XXXXXX");
	if (mkdtemp(dir) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	(void)snprintf(path, sizeof(path), "%s/kaid.yaml", dir);
	test_filesystems();
	test_pools();
	test_paths();
	test_dump();
	(void)unlink(path);
	(void)rmdir(dir);
	return done_testing();
}
