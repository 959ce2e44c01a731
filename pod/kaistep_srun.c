/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * kaistep_srun.c: srun inside a batch script (kaistep srun; ksubmit(1)).
 *
 * Slurm's srun in an allocation starts a job step: CMD on the job's
 * tasks.  Here kaid places the tasks on the job's pods and the step
 * agent of each pod (kaistep_agent.c) runs its share; this program only
 * asks for the step and waits for its end (daemons/kaid/steps.c: a
 * deferred answer, asked again every KAI_STEP_POLL_S while the step
 * runs), then exits as srun does: 0 when every task exited 0, else the
 * largest exit code, 128 + N for a task killed by signal N.
 *
 * The tasks' output goes where srun's goes when that is a file (the
 * job's output file, or `srun CMD >file`): the pods share the
 * filesystem.  A pipe or a terminal cannot be shared between pods: the
 * tasks then write to a spool file that srun copies to it as the step
 * runs (srun_relay.c), so `srun CMD | tee` and srun in an interactive
 * session show the tasks' output as Slurm's do.
 */
#include "config.h"

#include <sys/stat.h>
#include <sys/wait.h>

#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client.h"
#include "kaid_away.h"
#include "kaistep.h"
#include "proto/proto_step.h"
#include "srun_relay.h"
#include "base/strconv.h"

static const char *const prog = "srun";

extern char **environ;

/* Options srun takes a value for and kaibatch leaves to the job. */
static const char *const skip_value[] = {
	"-A", "-C", "-D", "-G", "-J", "-T", "-c", "-d", "-e", "-i", "-m",
	"-o", "-p", "-q", "-t", "-w", "-x", "--account", "--chdir",
	"--constraint", "--cpu-bind", "--cpus-per-gpu", "--cpus-per-task",
	"--dependency", "--distribution", "--error", "--exclude", "--export",
	"--gpus", "--gpus-per-node", "--gpus-per-task", "--gres", "--input",
	"--job-name", "--mem", "--mem-per-cpu", "--mem-per-gpu", "--mpi",
	"--nodelist", "--output", "--partition", "--qos", "--time",
};

static bool
takes_value(const char *opt)
{
	size_t i;

	for (i = 0; i < sizeof(skip_value) / sizeof(skip_value[0]); i++)
		if (strcmp(opt, skip_value[i]) == 0)
			return true;
	return false;
}

static int
count_arg(const char *name, const char *v, uint32_t *out)
{
	uint64_t n;

	if (kai_strtou64(v, KAI_STEP_TASKS_MAX, &n, name, NULL) != 0 ||
	    n == 0) {
		client_error(prog, NULL, "invalid %s \"%s\": expected a number "
		    "from 1 to %d", name, v, KAI_STEP_TASKS_MAX);
		return -1;
	}
	*out = (uint32_t)n;
	return 0;
}

/* The option's value: "--opt=v", "-nV", or the next word. */
static const char *
value_of(int argc, char **argv, int *i, const char *a, size_t optlen)
{
	if (a[optlen] == '=')
		return a + optlen + 1;
	if (a[optlen] != '\0')
		return a + optlen;
	if (*i + 1 >= argc) {
		client_error(prog, NULL, "option %s needs a value", a);
		return NULL;
	}
	return argv[++*i];
}

/* The options; returns the index of CMD, or -1 (said why). */
static int
parse(int argc, char **argv, struct kai_step_req *r)
{
	int i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v;

		if (strcmp(a, "--") == 0)
			return i + 1;
		if (a[0] != '-' || a[1] == '\0')
			return i;
		if (strncmp(a, "--ntasks-per-node", 17) == 0 &&
		    (a[17] == '=' || a[17] == '\0')) {
			if ((v = value_of(argc, argv, &i, a, 17)) == NULL ||
			    count_arg("--ntasks-per-node", v,
				&r->ntasks_per_node) != 0)
				return -1;
		} else if ((strncmp(a, "--ntasks", 8) == 0 &&
			       (a[8] == '=' || a[8] == '\0')) ||
		    strncmp(a, "-n", 2) == 0) {
			if ((v = value_of(argc, argv, &i, a,
				 a[1] == 'n' ? 2 : 8)) == NULL ||
			    count_arg("number of tasks", v, &r->ntasks) != 0)
				return -1;
		} else if ((strncmp(a, "--nodes", 7) == 0 &&
			       (a[7] == '=' || a[7] == '\0')) ||
		    strncmp(a, "-N", 2) == 0) {
			if ((v = value_of(argc, argv, &i, a,
				 a[1] == 'N' ? 2 : 7)) == NULL ||
			    count_arg("number of nodes", v, &r->nnodes) != 0)
				return -1;
		} else if (strcmp(a, "-l") == 0 || strcmp(a, "--label") == 0) {
			r->label = true;
		} else if (strcmp(a, "-K") == 0 ||
		    strcmp(a, "--kill-on-bad-exit") == 0 ||
		    strcmp(a, "-K1") == 0 ||
		    strcmp(a, "--kill-on-bad-exit=1") == 0) {
			r->kill_on_bad_exit = true;
		} else if (strcmp(a, "-K0") == 0 ||
		    strcmp(a, "--kill-on-bad-exit=0") == 0) {
			r->kill_on_bad_exit = false;
		} else if (takes_value(a)) {
			if (i + 1 >= argc) {
				client_error(prog, NULL,
				    "option %s needs a value", a);
				return -1;
			}
			i++;
		}
		/* Any other option (--exclusive, -u, --overlap, --mpi=x)
		 * concerns placement kaid does not offer: ignored, as the
		 * job's resources are already given. */
	}
	return i;
}

struct answer {
	struct kai_step_result res;
	bool got;
};

static int
on_reply(uint16_t type, const void *body, size_t len, void *ctx)
{
	struct answer *a = ctx;
	struct kai_err err;

	(void)type;
	kai_step_result_fini(&a->res);
	if (kai_msg_step_result_decode(body, len, &a->res, &err) != 0) {
		client_error(prog, NULL, "invalid reply from kaid: %s",
		    err.msg);
		return CLIENT_EXIT_CONNECT;
	}
	a->got = true;
	return CLIENT_EXIT_OK;
}

/* srun's exit status from the tasks', and Slurm's line for each failure. */
static int
worst(const struct kai_step_result *res)
{
	int rc = 0, c;
	size_t t;

	for (t = 0; t < res->ntasks; t++) {
		int st = (int)res->status[t];

		if (WIFSIGNALED(st)) {
			c = 128 + WTERMSIG(st);
			(void)fprintf(stderr, "srun: error: task %zu: %s\n", t,
			    strsignal(WTERMSIG(st)));
		} else if ((c = WEXITSTATUS(st)) != 0) {
			(void)fprintf(stderr, "srun: error: task %zu: Exited "
			    "with exit code %d\n", t, c);
		}
		if (c > rc)
			rc = c;
	}
	return rc;
}

static void
nothing(int sig)
{
	(void)sig;
}

/*
 * The tasks get the signals themselves (the wrapper's TERM to the pod,
 * --signal's timer, kcancel --signal through the agents); srun outlives
 * them to report the step's status, as Slurm's forwards and waits.
 * SA_RESTART: its wait on kaid goes on.
 */
static void
outlive_signals(void)
{
	static const int sigs[] = {SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1,
	    SIGUSR2, SIGALRM, SIGCONT, SIGURG, SIGXCPU, SIGVTALRM, SIGPROF};
	struct sigaction sa;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = nothing;
	sa.sa_flags = SA_RESTART;
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		(void)sigaction(sigs[i], &sa, NULL);
}

int
kaistep_srun(int argc, char **argv)
{
	struct srun_relay rout, rerr;
	struct kai_step_req r;
	struct answer a;
	struct kai_buf b;
	char cwd[PATH_MAX];
	int cmd, rc;

	memset(&r, 0, sizeof(r));
	memset(&a, 0, sizeof(a));
	if ((cmd = parse(argc, argv, &r)) < 0)
		return 1;
	if (cmd >= argc) {
		client_error(prog, NULL, "fatal: no command to execute");
		return 1;
	}
	if (getcwd(cwd, sizeof(cwd)) == NULL) {
		client_error(prog, NULL, "could not read the current "
		    "directory");
		return 1;
	}
	r.cwd = cwd;
	r.argv = argv + cmd;
	r.argc = (size_t)(argc - cmd);
	for (r.nenv = 0; environ[r.nenv] != NULL; r.nenv++)
		;
	r.env = environ;
	outlive_signals();
	r.out = srun_relay_target(1, &rout);
	r.err = srun_relay_target(2, &rerr);
	kai_buf_init(&b, 4096);
	b.max = KAI_PROTO_BODY_MAX;
	rc = kai_msg_step_req_encode(&b, &r);
	free(r.out);
	free(r.err);
	if (rc != 0) {
		kai_buf_fini(&b);
		srun_relay_end(&rout);
		srun_relay_end(&rerr);
		client_error(prog, NULL, "the command and its environment are "
		    "too large for one request (%d variables)", (int)r.nenv);
		return 1;
	}
	rc = client_request(prog, KAI_MSG_STEP_RUN, b.data, b.len, on_reply,
	    &a);
	kai_buf_fini(&b);
	/* The step runs: ask again with its id until it is done. */
	while (rc == CLIENT_EXIT_OK && a.got && !a.res.done) {
		struct kai_step_req again;

		memset(&again, 0, sizeof(again));
		again.step = a.res.step + 1;
		kai_buf_init(&b, 64);
		if (kai_msg_step_req_encode(&b, &again) != 0) {
			kai_buf_fini(&b);
			rc = 1;
			break;
		}
		a.got = false;
		/* Asking again is harmless: a kaid that restarted has read
		 * the step back (steps_recover()). */
		rc = kaid_away_request(prog, KAI_MSG_STEP_RUN, b.data, b.len,
		    on_reply, &a);
		kai_buf_fini(&b);
	}
	/* The tasks have ended: the rest of their output, then srun's. */
	srun_relay_end(&rout);
	srun_relay_end(&rerr);
	if (rc == CLIENT_EXIT_OK && a.got)
		rc = worst(&a.res);
	else if (rc == CLIENT_EXIT_OK)
		rc = 1;
	kai_step_result_fini(&a.res);
	return rc;
}
