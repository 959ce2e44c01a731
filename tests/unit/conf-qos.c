/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * conf-qos: kaid.yaml's qualities of service (qos:) and accounts
 * (accounts:), and the look-ups kaid makes in them at submission, as an
 * administrator writes them.
 * Every bad value is refused with one line that names the key.
 */
#include "config.h"

#include <stdbool.h>
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
test_qos(void)
{
	const struct kai_conf_qos *q;
	struct kai_conf *c = load_ok(DB, "a file without qos");

	if (c != NULL) {
		q = kai_conf_qos(c, NULL);
		ok(c->nqos == 1 && q != NULL && strcmp(q->name, "normal") == 0 &&
			q->priority == -1 &&
			q->preemptible == KAI_CONF_PREEMPT_AUTO &&
			q->max_wall_s == 0 && q->max_gpus_user == -1,
		    "without qos: one QoS, normal, the default, limiting "
		    "nothing");
		kai_conf_free(c);
	}
	c = load_ok(DB "qos:\n"
		       "  - name: normal\n"
		       "  - name: qos_gpu-t3\n"
		       "    priority: 125\n"
		       "    preemptible: \"false\"\n"
		       "    max_wall: \"20:00:00\"\n"
		       "    max_gpus_per_user: 8\n"
		       "  - name: scav.enger@x\n"
		       "    preemptible: \"true\"\n",
	    "three QoS");
	if (c != NULL) {
		ok(strcmp(kai_conf_qos(c, NULL)->name, "normal") == 0,
		    "none marked: the one named normal is the default");
		q = kai_conf_qos(c, "qos_gpu-t3");
		ok(q != NULL && !q->is_default && q->priority == 125 &&
			q->preemptible == KAI_CONF_PREEMPT_NO &&
			q->max_wall_s == 72000 && q->max_gpus_user == 8,
		    "every setting of a QoS");
		q = kai_conf_qos(c, "scav.enger@x");
		ok(q != NULL && q->preemptible == KAI_CONF_PREEMPT_YES,
		    "names with . and @; preemptible true");
		ok(kai_conf_qos(c, "high") == NULL, "an unlisted QoS is none");
		kai_conf_free(c);
	}
	c = load_ok(DB "qos:\n  - name: low\n  - name: high\n"
		       "    default: true\n",
	    "a QoS marked default");
	if (c != NULL) {
		is_str(kai_conf_qos(c, NULL)->name, "high", "the marked one");
		kai_conf_free(c);
	}
	c = load_ok(DB "qos:\n  - name: only\n", "a single QoS");
	if (c != NULL) {
		is_str(kai_conf_qos(c, NULL)->name, "only",
		    "a single QoS is the default");
		kai_conf_free(c);
	}
	load_bad(DB "qos:\n  - name: a\n  - name: b\n",
	    ":2:1: no QoS is marked default and none is named \"normal\": "
	    "set \"default: true\" on one",
	    "several QoS, no default");
	load_bad(DB "qos:\n  - {name: a, default: true}\n"
		    "  - {name: b, default: true}\n",
	    ":2:1: more than one QoS is marked default", "two defaults");
	load_bad(DB "qos: []\n", ":2:1: at least one QoS is required",
	    "an empty list");
	load_bad(DB "qos:\n  - name: normal\n  - name: normal\n",
	    ":4:5: duplicate QoS \"normal\"", "a name twice");
	load_bad(DB "qos:\n  - name: \"a b\"\n",
	    ":3:5: invalid QoS name \"a b\": use letters, digits and "
	    "\"_.@-\"",
	    "a space in a name");
	load_bad(DB "qos:\n  - max_wall: 10\n",
	    ":3:5: missing required key \"qos[0].name\"", "no name");
	load_bad(DB "qos:\n  - name: a\n    max_gpus_per_user: -2\n",
	    ":4:24: invalid value \"-2\" for \"qos[0].max_gpus_per_user\": "
	    "expected a whole number between -1 and 1000000",
	    "a GPU limit below -1");
	load_bad(DB "qos:\n  - name: a\n    preemptible: maybe\n",
	    ":4:18: invalid value \"maybe\" for \"qos[0].preemptible\": "
	    "expected one of auto, true, false",
	    "preemptible maybe");
	load_bad(DB "qos:\n  - name: a\n    maxwall: 10\n",
	    ":4:5: unrecognized key \"qos[0].maxwall\"", "a misspelt key");
}

static void
test_accounts(void)
{
	struct kai_conf *c = load_ok(DB, "a file without accounts");
	bool refused;

	if (c != NULL) {
		is_str(kai_conf_account(c, "anything", 1000, &refused),
		    "anything", "no accounts: any account is accepted");
		ok(!refused && kai_conf_account(c, NULL, 1000, &refused) ==
			NULL && !refused,
		    "no accounts: none is needed");
		kai_conf_free(c);
	}
	c = load_ok(DB "accounts:\n"
		       "  - name: six@a100\n"
		       "    users: [0, 1000]\n"
		       "  - name: open\n",
	    "two accounts");
	if (c != NULL) {
		is_str(kai_conf_account(c, "six@a100", 1000, &refused),
		    "six@a100", "a listed user may charge it");
		ok(!refused, "... and is not refused");
		ok(kai_conf_account(c, "six@a100", 1001, &refused) == NULL &&
			refused,
		    "an unlisted user may not");
		is_str(kai_conf_account(c, "open", 1001, &refused), "open",
		    "an account without users is anyone's");
		ok(kai_conf_account(c, "physics", 0, &refused) == NULL &&
			refused,
		    "an account not listed is refused");
		is_str(kai_conf_account(c, NULL, 1000, &refused), "six@a100",
		    "no -A: the first account the user may charge");
		is_str(kai_conf_account(c, NULL, 1001, &refused), "open",
		    "... which may be a later one");
		kai_conf_free(c);
	}
	c = load_ok(DB "accounts:\n  - name: a\n    users: [1000]\n",
	    "an account of one user");
	if (c != NULL) {
		ok(kai_conf_account(c, NULL, 1001, &refused) == NULL &&
			refused,
		    "a user who may charge no account cannot submit");
		kai_conf_free(c);
	}
	load_bad(DB "accounts:\n  - name: a\n  - name: a\n",
	    ":4:5: duplicate account \"a\"", "an account twice");
	load_bad(DB "accounts:\n  - name: a\n    users: [no-such-user-kai]\n",
	    ":4:13: invalid value \"no-such-user-kai\" for "
	    "\"accounts[0].users\": no such user",
	    "a user who does not exist");
}

int
main(void)
{
	(void)snprintf(dir, sizeof(dir), "/tmp/kai-conf-qos.XXXXXX");
	if (mkdtemp(dir) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	(void)snprintf(path, sizeof(path), "%s/kaid.yaml", dir);
	test_qos();
	test_accounts();
	(void)unlink(path);
	(void)rmdir(dir);
	return done_testing();
}
