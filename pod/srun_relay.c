/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * srun_relay.c: srun's output where it is no file (kaistep_srun.c).
 *
 * The tasks of a step run on every pod of the job and can write only to
 * what every pod sees: a file on the shared filesystem.  When srun's
 * output is a terminal (srun in an interactive session, ksrun(1)) or a
 * pipe (`srun CMD | tee log`), the tasks append to a spool file in the
 * job's directory (SLURM_SUBMIT_DIR, shared by construction: the job's
 * own output files go there), and a child of srun copies what the file
 * gains to srun's descriptor while the step runs; when the step ends the
 * child copies the rest and the file is removed.  /dev/null is passed as
 * it is: every container has it.
 */
#include "config.h"

#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "srun_relay.h"

#define RELAY_POLL_NS 20000000L /* how often the copier looks: 20 ms */

static volatile sig_atomic_t relay_done;

static void
on_term(int sig)
{
	(void)sig;
	relay_done = 1;
}

/* Writes all of b to fd; false when fd is gone. */
static bool
write_all(int fd, const char *b, size_t n)
{
	ssize_t w;

	while (n > 0) {
		if ((w = write(fd, b, n)) < 0) {
			if (errno == EINTR)
				continue;
			return false;
		}
		b += w;
		n -= (size_t)w;
	}
	return true;
}

/* The copier: path's bytes to fd until told to stop, then the rest. */
static void
copy_loop(const char *path, int fd)
{
	struct timespec ts = {0, RELAY_POLL_NS};
	struct sigaction sa;
	char b[65536];
	ssize_t n;
	int in;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_term;
	(void)sigaction(SIGTERM, &sa, NULL);
	if ((in = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		_exit(1);
	for (;;) {
		bool last = relay_done != 0;

		/* At the end the file is opened again: a network filesystem
		 * shows another client's writes at open (close-to-open), not
		 * always to a descriptor held meanwhile. */
		if (last) {
			off_t at = lseek(in, 0, SEEK_CUR);

			(void)close(in);
			if ((in = open(path, O_RDONLY | O_CLOEXEC)) < 0 ||
			    lseek(in, at, SEEK_SET) < 0)
				_exit(1);
		}
		while ((n = read(in, b, sizeof(b))) > 0)
			if (!write_all(fd, b, (size_t)n))
				_exit(0);
		if (last)
			_exit(0);
		(void)nanosleep(&ts, NULL);
	}
}

/* The file behind fd when it is a regular file or /dev/null; else NULL. */
static char *
file_of(int fd)
{
	char link[64], path[PATH_MAX];
	struct stat st;
	ssize_t n;

	if (fstat(fd, &st) != 0)
		return NULL;
	(void)snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	if ((n = readlink(link, path, sizeof(path) - 1)) <= 0)
		return NULL;
	path[n] = '\0';
	if (path[0] != '/')
		return NULL;
	if (S_ISREG(st.st_mode) ||
	    (S_ISCHR(st.st_mode) && strcmp(path, "/dev/null") == 0))
		return strdup(path);
	return NULL;
}

char *
srun_relay_target(int fd, struct srun_relay *rl)
{
	const char *dir = getenv("SLURM_SUBMIT_DIR");
	char *path = file_of(fd);
	int sfd;

	rl->path = NULL;
	rl->pid = -1;
	if (path != NULL)
		return path;
	/* No shared directory known: the tasks write to the job's files. */
	if (dir == NULL || *dir != '/' ||
	    asprintf(&rl->path, "%s/.kaistep-srun.XXXXXX", dir) < 0) {
		rl->path = NULL;
		return NULL;
	}
	if ((sfd = mkstemp(rl->path)) < 0) {
		free(rl->path);
		rl->path = NULL;
		return NULL;
	}
	(void)close(sfd);
	(void)fflush(NULL);
	if ((rl->pid = fork()) == 0)
		copy_loop(rl->path, fd);
	if (rl->pid < 0) {
		(void)unlink(rl->path);
		free(rl->path);
		rl->path = NULL;
		return NULL;
	}
	return strdup(rl->path);
}

void
srun_relay_end(struct srun_relay *rl)
{
	if (rl->pid > 0) {
		(void)kill(rl->pid, SIGTERM);
		while (waitpid(rl->pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	if (rl->path != NULL) {
		(void)unlink(rl->path);
		free(rl->path);
	}
	rl->path = NULL;
	rl->pid = -1;
}
