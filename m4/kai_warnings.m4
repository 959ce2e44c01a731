# SPDX-License-Identifier: GPL-3.0-or-later
#
# The warning set of STYLE.md b12, always on; --enable-werror turns it into
# errors (CI), --enable-sanitizers adds ASan and UBSan.
AC_DEFUN([KAI_WARNINGS], [
	KAI_CFLAGS="-std=c11 -Wall -Wextra -Wformat=2 -Wshadow -Wstrict-prototypes"
	KAI_CFLAGS="$KAI_CFLAGS -Wmissing-prototypes -Wold-style-definition -Wpointer-arith"
	KAI_CFLAGS="$KAI_CFLAGS -Wvla -Wundef -Wimplicit-fallthrough -Wwrite-strings"
	AC_SUBST([KAI_CFLAGS])
])

AC_DEFUN([KAI_ENABLE_WERROR], [
	AC_ARG_ENABLE([werror],
	    [AS_HELP_STRING([--enable-werror], [treat compiler warnings as errors])],
	    [], [enable_werror=no])
	AS_IF([test "x$enable_werror" = xyes], [KAI_CFLAGS="$KAI_CFLAGS -Werror"])
])

AC_DEFUN([KAI_ENABLE_SANITIZERS], [
	AC_ARG_ENABLE([sanitizers],
	    [AS_HELP_STRING([--enable-sanitizers], [build with AddressSanitizer and UBSan])],
	    [], [enable_sanitizers=no])
	AS_IF([test "x$enable_sanitizers" = xyes], [
		KAI_CFLAGS="$KAI_CFLAGS -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all"
		KAI_LDFLAGS="-fsanitize=address,undefined"
	])
	AC_SUBST([KAI_LDFLAGS])
	AM_CONDITIONAL([KAI_SANITIZERS], [test "x$enable_sanitizers" = xyes])
])
