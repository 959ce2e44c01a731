/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * fuzz_util.c: the helpers of fuzz.h, linked into every harness in both
 * builds (libFuzzer and the corpus replay driver).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"

static char scratch[4096];

static void
scratch_remove(void)
{
	if (scratch[0] != '\0')
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

const char *
fuzz_file(const uint8_t *data, size_t size)
{
	const char *dir;
	FILE *f;
	int fd;

	if (scratch[0] == '\0') {
		dir = getenv("TMPDIR");
		if (dir == NULL || *dir == '\0')
			dir = "/tmp";
		if ((size_t)snprintf(scratch, sizeof(scratch),
		    "%s/kai-fuzz.XXXXXX", dir) >= sizeof(scratch))
			fuzz_fail("TMPDIR is too long");
		if ((fd = mkstemp(scratch)) < 0)
			fuzz_fail("cannot create the scratch file");
		(void)close(fd);
		(void)atexit(scratch_remove);
	}
	if ((f = fopen(scratch, "w")) == NULL)
		fuzz_fail("cannot open the scratch file");
	if (size > 0 && fwrite(data, 1, size, f) != size)
		fuzz_fail("cannot write the scratch file");
	if (fclose(f) != 0)
		fuzz_fail("cannot write the scratch file");
	return scratch;
}

void
fuzz_fail(const char *what)
{
	fprintf(stderr, "fuzz: invariant broken: %s\n", what);
	abort();
}
