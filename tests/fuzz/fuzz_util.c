/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * fuzz_util.c: the helpers of fuzz.h, linked into every harness in both
 * builds (libFuzzer and the corpus replay driver).
 */
#include "config.h"

#include <sys/mman.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"

static char scratch[4096];
static int scratch_fd = -1;
static int scratch_is_temp;

static void
scratch_remove(void)
{
	if (scratch_is_temp)
		(void)unlink(scratch);
}

char *
fuzz_strdup(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (s == NULL)
		fuzz_fail("out of memory");
	if (size > 0)
		memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/*
 * A memfd named through /proc, so that the loaders' fopen() reads memory:
 * a file on disk costs milliseconds per input on a busy machine (a
 * hundred times the parse).  A temporary file where there is no memfd.
 */
static void
scratch_open(void)
{
	const char *dir;

	scratch_fd = memfd_create("kai-fuzz", 0);
	if (scratch_fd >= 0) {
		(void)snprintf(scratch, sizeof(scratch), "/proc/self/fd/%d",
		    scratch_fd);
		if (access(scratch, R_OK) == 0)
			return;
		(void)close(scratch_fd);
	}
	dir = getenv("TMPDIR");
	if (dir == NULL || *dir == '\0')
		dir = "/tmp";
	if ((size_t)snprintf(scratch, sizeof(scratch), "%s/kai-fuzz.XXXXXX",
	    dir) >= sizeof(scratch))
		fuzz_fail("TMPDIR is too long");
	if ((scratch_fd = mkstemp(scratch)) < 0)
		fuzz_fail("cannot create the scratch file");
	scratch_is_temp = 1;
	(void)atexit(scratch_remove);
}

const char *
fuzz_file(const uint8_t *data, size_t size)
{
	size_t off = 0;
	ssize_t n;

	if (scratch_fd < 0)
		scratch_open();
	if (ftruncate(scratch_fd, 0) != 0)
		fuzz_fail("cannot truncate the scratch file");
	while (off < size) {
		n = pwrite(scratch_fd, data + off, size - off, (off_t)off);
		if (n <= 0)
			fuzz_fail("cannot write the scratch file");
		off += (size_t)n;
	}
	return scratch;
}

void
fuzz_fail(const char *what)
{
	fprintf(stderr, "fuzz: invariant broken: %s\n", what);
	abort();
}
