/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * fuzz.h: what every harness in tests/fuzz shares.
 *
 * A harness is one file that defines LLVMFuzzerTestOneInput() and feeds
 * the bytes to one parser.  It is linked two ways: with libFuzzer's main()
 * (configure CC=clang --enable-fuzzing) to search for crashes, and with
 * driver.c in every other build, where `make check` (corpus.t) replays the
 * seeds and the crashes found so far from tests/fuzz/corpus/<harness>/.
 *
 * A harness crashes (abort) on any broken invariant it can check, such as
 * a decoded message that encodes to different bytes the second time: a
 * sanitizer is not needed to see those, so the plain gcc build catches
 * them too.
 */
#ifndef KAI_TESTS_FUZZ_FUZZ_H
#define KAI_TESTS_FUZZ_FUZZ_H

#include <stddef.h>
#include <stdint.h>

#include "base/compiler.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * The input as a NUL-terminated string (malloc'ed; caller frees).  Text
 * parsers take C strings, so an embedded NUL simply ends the text.
 */
char *fuzz_strdup(const uint8_t *data, size_t size);

/*
 * Writes the input to this process's scratch file and returns its path,
 * for the loaders that take a path (kaid.yaml, queue files, scenarios).
 * The file is a memfd (its /proc/self/fd path), else a temporary file in
 * $TMPDIR (or /tmp) removed at exit.  Aborts if it cannot be written: a harness that tests nothing
 * must not pass.
 */
const char *fuzz_file(const uint8_t *data, size_t size);

/* Aborts with a message naming the harness's broken invariant. */
void fuzz_fail(const char *what) KAI_NORETURN;

#endif /* KAI_TESTS_FUZZ_FUZZ_H */
