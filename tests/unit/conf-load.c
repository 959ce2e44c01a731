/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * conf-load: kaid.yaml and kai.yaml as an administrator meets them.
 *
 * Every case writes a real file into a private directory and loads it,
 * so the messages checked here, path and line:col included, are the ones
 * `kaid -n` prints.  The shipped etc/kaid.yaml.example and
 * etc/kai.yaml.example are loaded too: an example that does not load is
 * a bug.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/err.h"
#include "base/xmalloc.h"
#include "conf/conf.h"
#include "conf/conf_int.h"
#include "model/job.h"
#include "sys/log.h"
#include "tap.h"

static char dir[64];
static char path[128];

static void
write_file(const char *p, const char *text, size_t len)
{
	FILE *f = fopen(p, "w");

	if (f == NULL || fwrite(text, 1, len, f) != len || fclose(f) != 0) {
		perror(p);
		exit(1);
	}
}

static void
write_text(const char *p, const char *text)
{
	write_file(p, text, strlen(text));
}

/* Loads text as kaid.yaml; NULL and err set when it fails. */
static struct kai_conf *
load(const char *text, struct kai_err *err)
{
	struct kai_conf *conf = NULL;

	write_text(path, text);
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

/*
 * Checks that text fails with "<path><want>": want starts with ":line:col:"
 * or ": " for file-wide errors.
 */
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
}

#define DB "database: dbname=kaibatch\n"

static void
test_defaults(void)
{
	const struct kai_conf_partition *p;
	struct kai_conf *c = load_ok(DB, "a file with only database");

	if (c == NULL)
		return;
	is_str(c->path, path, "path recorded");
	is_str(c->listen, "127.0.0.1:6820", "default listen");
	is_str(c->http_listen, "127.0.0.1:6821", "default http_listen");
	is_str(c->database, "dbname=kaibatch", "database as given");
	is_int(c->db_timeout_ms, 30000, "default database_timeout 30 s");
	ok(c->munge_socket == NULL && c->kubeconfig == NULL &&
	    c->kube_context == NULL, "optional paths unset by default");
	is_int(c->log_level, KAI_LOG_INFO, "default log_level is info");
	is_int(c->queues_source, KAI_CONF_QUEUES_DATABASE,
	    "default queues_source is database (kctl queue)");
	ok(c->namespace == NULL, "namespace unset: kaid asks the cluster config");
	is_str(c->default_image, "debian:bookworm-slim", "default image");
	is_str(c->cluster_domain, "cluster.local", "default cluster domain");
	is_int(c->kube_timeout_ms, 10000, "default timeout 10 s");
	is_int(c->sched_interval_ms, 1000, "default interval 1 s");
	is_int(c->default_mem_mb, 1024, "default_mem 1024 MiB");
	ok(!c->allow_root_jobs, "root jobs refused by default");
	is_int(c->max_script_bytes, 102400, "max_script_size 100 KiB");
	is_int((int64_t)c->noperators, 0, "no operators by default");
	ok(kai_conf_is_operator(c, 0) && !kai_conf_is_operator(c, 1000),
	    "root is always an operator, others are not");
	is_int((int64_t)c->npartitions, 1, "one partition by default");
	p = kai_conf_partition(c, NULL);
	ok(p != NULL && strcmp(p->name, "batch") == 0 && p->is_default &&
	    p->max_time_s == KAI_TIME_UNLIMITED &&
	    p->default_time_s == KAI_TIME_UNLIMITED,
	    "default partition \"batch\", unlimited");
	kai_conf_free(c);
}

static const char full_yaml[] =
    "# every key\n"
    "listen: \"[::1]:7000\"\n"
    "http_listen: 0.0.0.0:9100\n"
    "database: 'host=db dbname=kai user=kaid password=s3cret'\n"
    "munge_socket: /run/munge/alt.socket\n"
    "log_level: debug\n"
    "queues_source: kubernetes\n"
    "kubernetes:\n"
    "  kubeconfig: /etc/kaibatch/kubeconfig\n"
    "  context: lab\n"
    "  namespace: kai-jobs\n"
    "  image: registry.local/hpc:1.2\n"
    "  timeout: 2500\n"
    "scheduler:\n"
    "  interval: 500ms\n"
    "  default_mem: 2G\n"
    "jobs:\n"
    "  allow_root: true\n"
    "  max_script_size: 64KiB\n"
    "operators: [root, 1234]\n"
    "partitions:\n"
    "  - name: cpu\n"
    "    max_time: 1-00:00:00\n"
    "    default_time: 60\n"
    "  - name: gpu_a100\n"
    "    default: true\n"
    "    max_time: \"4:00:00\"\n";

static void
test_full(void)
{
	const struct kai_conf_partition *p;
	struct kai_conf *c = load_ok(full_yaml, "a file with every key");

	if (c == NULL)
		return;
	is_str(c->listen, "[::1]:7000", "IPv6 listen address");
	is_str(c->http_listen, "0.0.0.0:9100", "http_listen address");
	is_str(c->munge_socket, "/run/munge/alt.socket", "munge_socket");
	is_int(c->log_level, KAI_LOG_DEBUG, "log_level debug");
	is_int(c->queues_source, KAI_CONF_QUEUES_KUBERNETES,
	    "queues_source kubernetes (KAI Queue objects)");
	ok(strcmp(c->kubeconfig, "/etc/kaibatch/kubeconfig") == 0 &&
	    strcmp(c->kube_context, "lab") == 0 &&
	    strcmp(c->namespace, "kai-jobs") == 0 &&
	    strcmp(c->default_image, "registry.local/hpc:1.2") == 0,
	    "kubernetes strings");
	is_int(c->kube_timeout_ms, 2500, "bare duration is milliseconds");
	is_int(c->sched_interval_ms, 500, "500ms");
	is_int(c->default_mem_mb, 2048, "2G of a MiB key is 2048");
	ok(c->allow_root_jobs, "allow_root true");
	is_int(c->max_script_bytes, 65536, "64KiB of a byte key");
	ok(c->noperators == 2 && c->operators[0] == 0 &&
	    c->operators[1] == 1234, "operators by name (root) and by uid");
	ok(kai_conf_is_operator(c, 1234) && !kai_conf_is_operator(c, 1235),
	    "listed uid is an operator");
	p = kai_conf_partition(c, NULL);
	ok(p != NULL && strcmp(p->name, "gpu_a100") == 0 &&
	    p->max_time_s == 14400 && p->default_time_s == 14400,
	    "marked default; default_time unset takes max_time");
	p = kai_conf_partition(c, "cpu");
	ok(p != NULL && !p->is_default && p->max_time_s == 86400 &&
	    p->default_time_s == 3600, "Slurm time syntaxes");
	ok(kai_conf_partition(c, "nope") == NULL, "no such partition");
	kai_conf_free(c);
}

/* Units, rounding, nulls and quoting of single values. */
static void
test_values(void)
{
	struct kai_conf *c;
	char *d;

	c = load_ok("database: password = 'a b\\' c' dbname=x\n"
	    "munge_socket: ~\nscheduler:\n  default_mem: 1536K\n"
	    "  interval: 2m\nkubernetes:\n  timeout: 1m\n"
	    "jobs:\n  max_script_size: 2000\n", "units and nulls");
	if (c == NULL)
		return;
	ok(c->munge_socket == NULL, "~ unsets a key without default");
	is_int(c->default_mem_mb, 2, "1536K of a MiB key rounds up to 2");
	is_int(c->sched_interval_ms, 120000, "2m is 120000 ms");
	is_int(c->max_script_bytes, 2000, "bare size of a byte key");
	d = kai_conf_dump(c);
	ok(strstr(d, "database: \"password = *** dbname=x\"\n") != NULL &&
	    strstr(d, "timeout: 1m\n") != NULL &&
	    strstr(d, "max_script_size: 2000\n") != NULL,
	    "quoted password masked whole; exact units in the dump");
	free(d);
	kai_conf_free(c);
	c = load_ok(DB "http_listen: off\n", "http_listen: off");
	if (c != NULL) {
		is_str(c->http_listen, "off", "off turns the endpoint off");
		d = kai_conf_dump(c);
		ok(strstr(d, "http_listen: \"off\"\n") != NULL, "and dumps as off");
		free(d);
		kai_conf_free(c);
	}
	load_bad(DB "kubernetes:\n  timeout: 1h\n",
	    ":3:12: invalid value \"1h\" for \"kubernetes.timeout\": "
	    "must be between 100ms and 10m", "timeout bounds");
}

static void
test_dump(void)
{
	struct kai_conf *c = load_ok(full_yaml, "dump source");
	struct kai_conf *c2;
	char *d, *d2;

	if (c == NULL)
		return;
	d = kai_conf_dump(c);
	ok(strstr(d, "database: \"host=db dbname=kai user=kaid "
	    "password=***\"\n") != NULL && strstr(d, "s3cret") == NULL,
	    "dump masks the password");
	ok(strstr(d, "scheduler:\n  interval: 500ms\n  default_mem: 2G\n")
	    != NULL, "dump writes sections and units");
	ok(strstr(d, "partitions:\n  - name: \"cpu\"\n    default: false\n"
	    "    max_time: \"1-00:00:00\"\n    default_time: \"1:00:00\"\n")
	    != NULL, "dump writes partitions as a block list");
	c2 = load_ok(d, "the dump itself");
	d2 = c2 != NULL ? kai_conf_dump(c2) : kai_xstrdup("");
	is_str(d2, d, "dump of the reloaded dump is the same");
	if (strcmp(d, d2) != 0)
		diag("dump:\n%s", d);
	free(d);
	free(d2);
	kai_conf_free(c2);
	kai_conf_free(c);

	c = load_ok("database: "
	    "postgresql://kaid:pw@db:5432/kai?sslmode=require&password=pw2\n",
	    "URI conninfo");
	d = c != NULL ? kai_conf_dump(c) : kai_xstrdup("");
	ok(strstr(d, "\"postgresql://kaid:***@db:5432/kai?sslmode=require&"
	    "password=***\"") != NULL, "dump masks both URI passwords");
	free(d);
	kai_conf_free(c);
}

/* Errors in one key or value: the message gives place, key and reason. */
static void
test_errors_values(void)
{
	char big[600];

	load_bad(DB "schedular:\n  interval: 1s\n",
	    ":2:1: unrecognized key \"schedular\"", "unknown top-level key");
	load_bad(DB "scheduler:\n  intervall: 1s\n",
	    ":3:3: unrecognized key \"scheduler.intervall\"",
	    "unknown nested key");
	load_bad(DB "\"sched\\nuler\": 1\n",
	    ":2:1: unrecognized key \"sched?uler\"",
	    "control characters in a key are not echoed");
	load_bad(DB "scheduler.interval: 1s\n",
	    ":2:1: unrecognized key \"scheduler.interval\"", "dotted key");
	load_bad(DB "scheduler:\n  interval: abc\n",
	    ":3:13: invalid value \"abc\" for \"scheduler.interval\": "
	    "expected a duration", "a duration that is not one");
	load_bad(DB "scheduler:\n  interval: 50ms\n",
	    ":3:13: invalid value \"50ms\" for \"scheduler.interval\": "
	    "must be between 100ms and 1h", "a duration out of bounds");
	load_bad(DB "jobs:\n  max_script_size: 1M\n",
	    ":3:20: invalid value \"1M\" for \"jobs.max_script_size\": "
	    "must be between 1K and 100K", "a size out of bounds");
	load_bad(DB "jobs:\n  allow_root: yes\n",
	    ":3:15: invalid value \"yes\" for \"jobs.allow_root\": "
	    "expected true or false", "YAML 1.1 yes is no boolean");
	load_bad(DB "log_level: verbose\n",
	    ":2:12: invalid value \"verbose\" for \"log_level\": "
	    "expected one of err, warn, info, debug", "an enum out of its set");
	load_bad(DB "queues_source: etcd\n",
	    ":2:16: invalid value \"etcd\" for \"queues_source\": "
	    "expected one of database, kubernetes", "a queue source unknown");
	load_bad(DB "listen: localhost\n",
	    ":2:9: invalid value \"localhost\" for \"listen\": "
	    "expected host:port with a port between 1 and 65535",
	    "listen without a port");
	load_bad(DB "listen: \"off\"\n",
	    ":2:9: invalid value \"off\" for \"listen\": "
	    "expected host:port with a port between 1 and 65535",
	    "only http_listen may be off");
	load_bad(DB "http_listen: 6821\n",
	    ":2:14: invalid value \"6821\" for \"http_listen\": "
	    "expected host:port with a port between 1 and 65535",
	    "http_listen without a host");
	load_bad(DB "munge_socket: munge.sock\n",
	    ":2:15: invalid value \"munge.sock\" for \"munge_socket\": "
	    "expected an absolute path", "a relative path");
	load_bad(DB "listen: {host: a}\n",
	    ":2:9: invalid value for \"listen\": expected a string, "
	    "found a mapping", "a mapping where a scalar goes");
	load_bad(DB "kubernetes:\n  cluster_domain: Cluster..local\n",
	    ":3:19: invalid value \"Cluster..local\" for "
	    "\"kubernetes.cluster_domain\": expected a DNS domain: labels of "
	    "lower-case letters, digits and '-' joined by '.'",
	    "a cluster domain with an empty label");
	load_bad(DB "kubernetes: 5\n",
	    ":2:13: invalid value \"5\" for \"kubernetes\": expected a mapping",
	    "a scalar where a section goes");
	(void)snprintf(big, sizeof(big), DB "kubernetes:\n  namespace: %.*s\n",
	    100, "Bad_Name_That_Goes_On_And_On_And_On_And_On_And_On_And_On_"
	    "And_On_And_On_And_On_And_On_And_On_And_On_And_On");
	load_bad(big, ":3:14: invalid value \"Bad_Name_That_Goes_On_And_On_And_"
	    "On_And_On_And_O...\" for \"kubernetes.namespace\": expected a "
	    "Kubernetes name: at most 63 lower-case letters, digits and '-', "
	    "starting and ending with a letter or digit",
	    "long values are cut in messages");
}

/* Errors in the shape of the file rather than in one value. */
static void
test_errors_structure(void)
{
	load_bad(DB "listen: 1.2.3.4:1\nlisten: 1.2.3.4:2\n",
	    ":3:1: duplicate key \"listen\"", "duplicate key");
	load_bad(DB "jobs: {}\njobs: {}\n", ":3:1: duplicate key \"jobs\"",
	    "duplicate section");
	load_bad(DB "listen: &a 1.2.3.4:5\n",
	    ":2:9: YAML anchors and aliases are not allowed", "an anchor");
	load_bad(DB "operators: [*x]\n",
	    ":2:13: YAML anchors and aliases are not allowed", "an alias");
	load_bad(DB "listen: !!str 1.2.3.4:5\n",
	    ":2:9: YAML tags are not allowed", "a tag");
	load_bad("listen: 1.2.3.4:5\n", ": missing required key \"database\"",
	    "database missing");
	load_bad("# nothing\n", ": missing required key \"database\"",
	    "a file of comments only");
	load_bad(DB "  bad: y\n",
	    ":2:6: mapping values are not allowed in this context",
	    "YAML syntax error");
	load_bad(DB "listen: \"a:1\n",
	    ":3:1: found unexpected end of stream (while scanning a quoted "
	    "scalar at line 2 column 9)", "YAML syntax error with context");
	load_bad(DB "listen: \xff\n",
	    ": invalid leading UTF-8 octet at byte 34", "invalid UTF-8");
	load_bad("- database\n", ":1:1: the top level must be a mapping",
	    "a list at the top");
	load_bad(DB "---\n" DB, ":2:1: more than one YAML document",
	    "two documents");
	load_bad("database: \"a\\x01b\"\n",
	    ":1:11: invalid value for \"database\": control characters are "
	    "not allowed", "a control character; the secret is not echoed");
}

static void
test_files(void)
{
	struct kai_conf *c = NULL;
	struct kai_err err;
	char other[160], want[256];
	size_t n = 1024 * 1024 + 1;
	char *huge;
	int r;

	(void)snprintf(other, sizeof(other), "%s/none.yaml", dir);
	r = kai_conf_load(other, &c, &err);
	is_int(r, KAI_ECONFIG, "missing kaid.yaml is KAI_ECONFIG");
	(void)snprintf(want, sizeof(want), "could not open config file \"%s\": "
	    "No such file or directory", other);
	is_str(err.msg, want, "missing kaid.yaml names the file and reason");
	ok(c == NULL, "no conf on failure");

	huge = kai_xmalloc(n);
	memset(huge, '#', n);
	write_file(path, huge, n);
	free(huge);
	r = kai_conf_load(path, &c, &err);
	(void)snprintf(want, sizeof(want), "config file \"%s\" is larger than "
	    "1048576 bytes", path);
	ok(r == KAI_ECONFIG && strcmp(err.msg, want) == 0,
	    "a file over 1 MiB is refused (%s)", err.msg);
}

static void
test_partitions(void)
{
	struct kai_conf *c;

	load_bad(DB "partitions: []\n",
	    ":2:13: at least one partition is required", "no partitions");
	load_bad(DB "partitions:\n  - name: a\n  - name: b\n",
	    ":3:3: no partition is marked default: "
	    "set \"default: true\" on one",
	    "several partitions, no default");
	load_bad(DB "partitions:\n  - {name: a, default: true}\n"
	    "  - {name: b, default: true}\n",
	    ":4:5: partitions \"a\" and \"b\" are both marked default",
	    "two defaults");
	load_bad(DB "partitions:\n  - {name: a, default: true}\n"
	    "  - {name: a}\n", ":4:5: duplicate partition \"a\"",
	    "duplicate partition names");
	load_bad(DB "partitions:\n  - {name: a, default: true}\n"
	    "  - {max_time: 10}\n",
	    ":4:5: missing required key \"partitions[1].name\"",
	    "partition without a name");
	load_bad(DB "partitions:\n  - name: GPU\n",
	    ":3:11: invalid value \"GPU\" for \"partitions[0].name\": expected "
	    "a partition name: 1 to 63 lower-case letters, digits, '_' and '-'",
	    "upper-case partition name");
	load_bad(DB "partitions:\n  - name: a\n    maxtime: 10\n",
	    ":4:5: unrecognized key \"partitions[0].maxtime\"",
	    "unknown partition key");
	load_bad(DB "partitions:\n  - name: a\n    max_time: 3x\n",
	    ":4:15: invalid value \"3x\" for \"partitions[0].max_time\": "
	    "expected a time limit ([days-]hours:minutes:seconds, minutes or "
	    "UNLIMITED)", "bad time limit");
	load_bad(DB "partitions:\n  - name: a\n    max_time: 60\n"
	    "    default_time: 2:00:00\n",
	    ":3:5: partition \"a\": default_time 2:00:00 exceeds max_time "
	    "1:00:00", "default_time over max_time");
	load_bad(DB "partitions: [batch]\n",
	    ":2:14: invalid value \"batch\" for \"partitions[0]\": expected a "
	    "mapping", "a partition that is not a mapping");

	c = load_ok(DB "partitions:\n  - {name: only, default: false}\n",
	    "a single partition");
	ok(c != NULL && c->partitions[0].is_default,
	    "a single partition is the default");
	kai_conf_free(c);
}

static void
test_operators(void)
{
	load_bad(DB "operators: [no-such-user-kai]\n",
	    ":2:13: invalid value \"no-such-user-kai\" for \"operators\": "
	    "no such user", "an operator who does not exist");
	load_bad(DB "operators: [4294967295]\n",
	    ":2:13: invalid value \"4294967295\" for \"operators\": a uid must "
	    "be between 0 and 4294967294", "uid -1");
	load_bad(DB "operators: root\n",
	    ":2:12: invalid value \"root\" for \"operators\": expected a list "
	    "of user names or uids", "operators not a list");
}

/* The shipped examples, from the source tree. */
static void
test_examples(void)
{
	struct kai_client_conf cc;
	struct kai_conf *c = NULL;
	struct kai_err err;
	const char *top = getenv("top_srcdir");
	char p[4096];

	if (top == NULL)
		top = TOP_SRCDIR;
	(void)snprintf(p, sizeof(p), "%s/etc/kaid.yaml.example", top);
	if (!is_int(kai_conf_load(p, &c, &err), 0, "etc/kaid.yaml.example "
	    "loads"))
		diag("error: %s", kai_err_msg(&err));
	ok(c != NULL && c->npartitions == 1 && c->partitions[0].is_default,
	    "example has the default partition");
	kai_conf_free(c);
	(void)snprintf(p, sizeof(p), "%s/etc/kai.yaml.example", top);
	if (!is_int(kai_client_conf_load(p, &cc, &err), 0,
	    "etc/kai.yaml.example loads"))
		diag("error: %s", kai_err_msg(&err));
	ok(cc.controller != NULL && strcmp(cc.controller, "127.0.0.1:6820") ==
	    0 && cc.munge_socket == NULL, "example client values");
	kai_client_conf_fini(&cc);
}

static void
test_client(void)
{
	struct kai_client_conf cc;
	struct kai_err err;
	char p[160], want[256];

	(void)snprintf(p, sizeof(p), "%s/kai.yaml", dir);
	is_int(kai_client_conf_load(p, &cc, &err), 0,
	    "missing kai.yaml is no error");
	ok(strcmp(cc.controller, "127.0.0.1:6820") == 0 &&
	    cc.munge_socket == NULL, "client defaults");
	kai_client_conf_fini(&cc);

	write_text(p, "controller: kaid.example.org:6821\n"
	    "munge_socket: /run/munge/m.sock\n");
	is_int(kai_client_conf_load(p, &cc, &err), 0, "kai.yaml loads");
	ok(strcmp(cc.controller, "kaid.example.org:6821") == 0 &&
	    strcmp(cc.munge_socket, "/run/munge/m.sock") == 0,
	    "client values from the file");
	kai_client_conf_fini(&cc);

	write_text(p, "controller: kaid-a:6820,[::1]:6820,kaid-b:6821\n");
	is_int(kai_client_conf_load(p, &cc, &err), 0,
	    "a list of controllers loads");
	is_str(cc.controller, "kaid-a:6820,[::1]:6820,kaid-b:6821",
	    "as it is written (the clients try each in turn)");
	kai_client_conf_fini(&cc);

	write_text(p, "controller: kaid-a:6820,,kaid-b:6820\n");
	is_int(kai_client_conf_load(p, &cc, &err), KAI_ECONFIG,
	    "an empty entry in the list is an error");
	ok(strstr(err.msg, "\"controller\": expected "
	    "host:port[,host:port...]") != NULL, "saying what a list is: %s",
	    err.msg);
	kai_client_conf_fini(&cc);

	write_text(p, "controler: a:1\n");
	is_int(kai_client_conf_load(p, &cc, &err), KAI_ECONFIG,
	    "kai.yaml typo is an error");
	(void)snprintf(want, sizeof(want), "%s:1:1: unrecognized key "
	    "\"controler\"", p);
	is_str(err.msg, want, "kai.yaml error names place and key");
	ok(cc.controller == NULL, "nothing is left set on failure");
	(void)unlink(p);
}

static void
test_help(void)
{
	char *h = kai_conf_help();
	const char *s;
	int lines = 0;

	for (s = h; *s != '\0'; s++)
		lines += *s == '\n';
	/* one line per key of the table, whatever keys it gains */
	is_int(lines, (int64_t)kai_conf_daemon_table.n,
	    "help has a line per key");
	ok(lines > 40, "and the table has its keys (%d)", lines);
	ok(strstr(h, "scheduler.interval         duration(ms)    1s"
	    "                   time between") != NULL &&
	    strstr(h, "partitions[].max_time") != NULL &&
	    strstr(h, "database                   string          (required)"
	    "           libpq") != NULL, "help lists key, type and default");
	free(h);
}

/* scheduling: the core's defaults, every key set, and each kind of fault. */
static void
test_scheduling(void)
{
	struct kai_conf *c = load_ok(DB, "scheduling defaults");
	char *d;

	if (c != NULL) {
		ok(c->sched_placement == 2 && c->sched_gpu_placement == 0,
		    "frag and pack by default");
		is_int((int64_t)c->sched_nphases, 0,
		    "phases unset: kaid's own list");
		ok(c->sched_k_value == 1.0, "k_value 1.0 by default");
		is_int(c->sched_stale_grace_ms, 60000, "grace 60 s");
		is_int(c->sched_max_moves, 16, "16 consolidation moves");
		is_int(c->usage_half_life_ms, 86400000, "half-life 1 day");
		is_int(c->usage_window_ms, 7 * 86400000LL, "window 7 days");
		is_int(c->usage_refresh_ms, 60000, "refresh 1 min");
		kai_conf_free(c);
	}
	c = load_ok(DB "scheduling:\n  placement: spread\n"
	    "  gpu_placement: spread\n  phases: [reclaim, allocate]\n"
	    "  k_value: 2.5\n  stale_gang_grace: never\n"
	    "  max_consolidation_moves: 0\n  usage_half_life: 0\n"
	    "  usage_window: 36h\n  usage_refresh: 5s\n",
	    "every scheduling key");
	if (c == NULL)
		return;
	ok(c->sched_placement == 1 && c->sched_gpu_placement == 1,
	    "spread and spread");
	ok(c->sched_nphases == 2 && c->sched_phases[0] == 2 &&
	    c->sched_phases[1] == 0, "phases in the order given");
	ok(c->sched_k_value == 2.5, "k_value 2.5");
	is_int(c->sched_stale_grace_ms, -1, "never is -1");
	is_int(c->sched_max_moves, 0, "0 moves");
	is_int(c->usage_half_life_ms, 0, "no decay");
	is_int(c->usage_window_ms, 36 * 3600000LL, "window 36 h");
	d = kai_conf_dump(c);
	ok(strstr(d, "scheduling:\n  placement: spread\n") != NULL &&
	    strstr(d, "  phases: [reclaim, allocate]\n") != NULL &&
	    strstr(d, "  stale_gang_grace: never\n") != NULL &&
	    strstr(d, "  usage_window: 36h\n") != NULL,
	    "the dump gives the values back");
	free(d);
	kai_conf_free(c);
	load_bad(DB "scheduling:\n  placement: tight\n",
	    ":3:14: invalid value \"tight\" for \"scheduling.placement\": "
	    "expected one of binpack, spread, frag", "an unknown placement");
	load_bad(DB "scheduling:\n  phases: [allocate, allocate]\n",
	    ":3:22: invalid value \"allocate\" for \"scheduling.phases\": "
	    "phase listed twice", "a phase listed twice");
	load_bad(DB "scheduling:\n  phases: [allocate, evict]\n",
	    ":3:22: invalid value \"evict\" for \"scheduling.phases\": "
	    "expected allocate, consolidation, reclaim, preempt or "
	    "stalegangeviction", "an unknown phase");
	load_bad(DB "scheduling:\n  phases: []\n",
	    ":3:12: invalid value for \"scheduling.phases\": expected at "
	    "least one phase", "no phase at all");
	load_bad(DB "scheduling:\n  k_value: -1\n",
	    ":3:12: invalid value \"-1\" for \"scheduling.k_value\": "
	    "expected a number between 0 and 1000", "a negative k");
	load_bad(DB "scheduling:\n  max_consolidation_moves: 2.5\n",
	    ":3:28: invalid value \"2.5\" for "
	    "\"scheduling.max_consolidation_moves\": expected a whole number "
	    "between 0 and 4096", "a fractional count");
	load_bad(DB "scheduling:\n  stale_gang_grace: soon\n",
	    ":3:21: invalid value \"soon\" for "
	    "\"scheduling.stale_gang_grace\": expected a duration",
	    "a grace that is no duration");
	load_bad(DB "scheduling:\n  usage_window: 10s\n",
	    ":3:17: invalid value \"10s\" for \"scheduling.usage_window\": "
	    "must be between 1m and 365d", "a window too short");
	load_bad(DB "scheduling:\n  half_life: 1d\n",
	    ":3:3: unrecognized key \"scheduling.half_life\"",
	    "an unknown scheduling key");
}

int
main(void)
{
	(void)snprintf(dir, sizeof(dir), "/tmp/kai-conf-load.XXXXXX");
	if (mkdtemp(dir) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	(void)snprintf(path, sizeof(path), "%s/kaid.yaml", dir);
	test_defaults();
	test_full();
	test_values();
	test_dump();
	test_errors_values();
	test_errors_structure();
	test_files();
	test_partitions();
	test_operators();
	test_examples();
	test_client();
	test_help();
	test_scheduling();
	(void)unlink(path);
	(void)rmdir(dir);
	return done_testing();
}
