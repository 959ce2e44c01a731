# SPDX-License-Identifier: GPL-3.0-or-later
#
# pod/kaistep, the clients inside job pods, must run in any image: it is
# linked fully static (glibc's libc.a, and the libyaml and json-c
# archives of Debian's -dev packages).  When that cannot link (no
# archives, or sanitizer flags, which do not link static) kaistep is not
# built and kaid ships pods without it: inside a job only the shell shims
# work then, as before.  --disable-kaistep skips it on purpose.
AC_DEFUN([KAI_KAISTEP], [
	AC_ARG_ENABLE([kaistep],
	    [AS_HELP_STRING([--disable-kaistep],
	        [do not build the static in-pod clients (pod/kaistep) @<:@default: when it links@:>@])],
	    [], [enable_kaistep=auto])
	kai_kaistep_ok=no
	AS_IF([test "x$enable_kaistep" != xno], [
		AC_MSG_CHECKING([whether a static program with libyaml and json-c links])
		kai_save_LIBS=$LIBS
		kai_save_LDFLAGS=$LDFLAGS
		kai_save_CFLAGS=$CFLAGS
		CFLAGS="$CFLAGS $KAI_CFLAGS"
		LDFLAGS="$LDFLAGS $KAI_LDFLAGS -static"
		LIBS="-lyaml -ljson-c $LIBS"
		AC_LINK_IFELSE([AC_LANG_PROGRAM(
		    [[#include <sys/random.h>
		      #include <yaml.h>
		      #include <json-c/json.h>]],
		    [[yaml_parser_t p;
		      unsigned char b[1];
		      (void)getrandom(b, 1, 0);
		      (void)yaml_parser_initialize(&p);
		      (void)json_object_new_object();]])],
		    [kai_kaistep_ok=yes])
		LIBS=$kai_save_LIBS
		LDFLAGS=$kai_save_LDFLAGS
		CFLAGS=$kai_save_CFLAGS
		AC_MSG_RESULT([$kai_kaistep_ok])
		AS_IF([test "x$kai_kaistep_ok" != xyes && test "x$enable_kaistep" = xyes],
		    [AC_MSG_ERROR([--enable-kaistep: a static program with libyaml and json-c does not link])])
	])
	AM_CONDITIONAL([KAISTEP], [test "x$kai_kaistep_ok" = xyes])
	AS_IF([test "x$kai_kaistep_ok" = xyes],
	    [AC_DEFINE([KAI_HAVE_KAISTEP], [1], [Define when pod/kaistep is built and kaid ships it])])
])
