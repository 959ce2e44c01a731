# SPDX-License-Identifier: GPL-3.0-or-later
#
# The clients are short-lived: a ksubmit in a loop pays the dynamic
# loader for every library on every run, and with libmunge, libyaml and
# json-c that was a third of its start-up (0.25 ms of 0.8 ms on a 2-core
# VM).  Linking those three from their static archives (Debian's -dev
# packages ship them) removes it; libc stays shared, kaid stays fully
# dynamic.  --disable-static-client-libs links them as shared libraries,
# for packagers whose policy wants that.
AC_DEFUN([KAI_STATIC_CLIENT_LIBS], [
	AC_ARG_ENABLE([static-client-libs],
	    [AS_HELP_STRING([--disable-static-client-libs],
	        [link libmunge, libyaml and json-c into the clients as shared libraries @<:@default: static when the archives are installed@:>@])],
	    [], [enable_static_client_libs=auto])
	CLIENT_EXT_LIBS="$MUNGE_LIBS $YAML_LIBS $JSONC_LIBS"
	AS_IF([test "x$enable_static_client_libs" != xno], [
		kai_static_libs="-Wl,-Bstatic -lmunge -lyaml -ljson-c -Wl,-Bdynamic"
		AC_MSG_CHECKING([whether the clients can link libmunge, libyaml and json-c statically])
		kai_save_LIBS=$LIBS
		LIBS="$kai_static_libs $LIBS"
		AC_LINK_IFELSE([AC_LANG_PROGRAM(
		    [[#include <munge.h>
		      #include <yaml.h>
		      #include <json-c/json.h>]],
		    [[yaml_parser_t p;
		      (void)munge_strerror(EMUNGE_SUCCESS);
		      (void)yaml_parser_initialize(&p);
		      (void)json_object_new_object();]])],
		    [kai_static_ok=yes], [kai_static_ok=no])
		LIBS=$kai_save_LIBS
		AC_MSG_RESULT([$kai_static_ok])
		AS_IF([test "x$kai_static_ok" = xyes],
		    [CLIENT_EXT_LIBS=$kai_static_libs; enable_static_client_libs=yes],
		    [test "x$enable_static_client_libs" = xyes],
		    [AC_MSG_ERROR([--enable-static-client-libs: the static archives of libmunge, libyaml or json-c are missing])],
		    [enable_static_client_libs=no])
	])
	AC_SUBST([CLIENT_EXT_LIBS])
])
