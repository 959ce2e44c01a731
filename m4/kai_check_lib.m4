# SPDX-License-Identifier: GPL-3.0-or-later
#
# KAI_CHECK_LIB(VAR, pkg-config-name, debian-package)
#
# Finds a required library with pkg-config and stops configure with a message
# naming the Debian package to install when it is missing, so that a user on
# a fresh machine knows the exact fix.
AC_DEFUN([KAI_CHECK_LIB], [
	PKG_CHECK_MODULES([$1], [$2], [],
	    [AC_MSG_ERROR([$2 not found: install the Debian package "$3" (apt-get install $3)])])
])
