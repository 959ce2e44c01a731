/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * driver.c: main() for a harness built without libFuzzer.  Runs
 * LLVMFuzzerTestOneInput() once on each file named on the command line,
 * as libFuzzer does when given files, so corpus.t can replay a corpus in
 * a gcc `make check` build (and under ASan with --enable-sanitizers).
 *
 * Each input is copied into a buffer of exactly its size, so a harness
 * that reads one byte too far is caught by ASan here as under libFuzzer.
 * A crash ends the program (that is the failure corpus.t reports); an
 * unreadable file exits 2.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

static int
run_file(const char *path)
{
	unsigned char *data = NULL, *p;
	size_t len = 0, cap = 0, n;
	FILE *f;

	if ((f = fopen(path, "rb")) == NULL) {
		fprintf(stderr, "fuzz: cannot open \"%s\": %s\n", path,
		    strerror(errno));
		return -1;
	}
	for (;;) {
		if (len == cap) {
			cap = cap == 0 ? 4096 : cap * 2;
			if ((p = realloc(data, cap)) == NULL)
				fuzz_fail("out of memory");
			data = p;
		}
		n = fread(data + len, 1, cap - len, f);
		len += n;
		if (n == 0)
			break;
	}
	if (ferror(f)) {
		fprintf(stderr, "fuzz: cannot read \"%s\"\n", path);
		fclose(f);
		free(data);
		return -1;
	}
	fclose(f);
	/* Exactly len bytes, so that reading past the input is an error. */
	p = malloc(len > 0 ? len : 1);
	if (p == NULL)
		fuzz_fail("out of memory");
	if (len > 0)
		memcpy(p, data, len);
	free(data);
	(void)LLVMFuzzerTestOneInput(p, len);
	free(p);
	return 0;
}

int
main(int argc, char **argv)
{
	int i;

	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE...\n", argv[0]);
		return 2;
	}
	for (i = 1; i < argc; i++)
		if (run_file(argv[i]) != 0)
			return 2;
	printf("%d inputs\n", argc - 1);
	return 0;
}
