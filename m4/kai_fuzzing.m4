# SPDX-License-Identifier: GPL-3.0-or-later
#
# --enable-fuzzing: build the tests/fuzz harnesses as libFuzzer programs.
# Everything is compiled with -fsanitize=fuzzer-no-link (coverage for the
# fuzzer) plus ASan and UBSan, and only the harnesses link libFuzzer's
# main().  Needs clang (Debian's clang ships libFuzzer); without the option
# the same harnesses are linked with tests/fuzz/driver.c and replay their
# corpora in `make check`.
AC_DEFUN([KAI_ENABLE_FUZZING], [
	AC_ARG_ENABLE([fuzzing],
	    [AS_HELP_STRING([--enable-fuzzing],
	        [build libFuzzer harnesses with ASan and UBSan (needs clang)])],
	    [], [enable_fuzzing=no])
	AS_IF([test "x$enable_fuzzing" = xyes], [
		AC_MSG_CHECKING([whether $CC links libFuzzer programs])
		kai_fuzz_save_CFLAGS=$CFLAGS
		CFLAGS="$CFLAGS -fsanitize=fuzzer,address,undefined"
		AC_LINK_IFELSE([AC_LANG_SOURCE([[
#include <stddef.h>
#include <stdint.h>
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return data != NULL && size > 0 ? 0 : 0;
}
]])], [AC_MSG_RESULT([yes])], [
			AC_MSG_RESULT([no])
			AC_MSG_ERROR([--enable-fuzzing needs a compiler with libFuzzer: configure CC=clang --enable-fuzzing])
		])
		CFLAGS=$kai_fuzz_save_CFLAGS
		KAI_CFLAGS="$KAI_CFLAGS -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all"
		KAI_LDFLAGS="$KAI_LDFLAGS -fsanitize=address,undefined"
		KAI_FUZZ_LDFLAGS="-fsanitize=fuzzer"
	])
	AC_SUBST([KAI_FUZZ_LDFLAGS])
	AM_CONDITIONAL([KAI_FUZZING], [test "x$enable_fuzzing" = xyes])
])
