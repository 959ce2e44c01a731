# SPDX-License-Identifier: GPL-3.0-or-later
# shellcheck shell=bash
#
# tap.sh: TAP output for the shell integration tests (a small sharness).
#
#	. "$top_srcdir/tests/lib/tap.sh"
#	ok "title" test "$x" = y
#	is "title" "$got" "$want"
#	like "title" "$got" 'regex'
#	done_testing
#
# A failing check prints both sides as TAP diagnostics.  done_testing
# prints the plan and exits non-zero when anything failed.

TAP_RUN=0
TAP_FAILED=0

tap_result()
{
	TAP_RUN=$((TAP_RUN + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $TAP_RUN - $2"
	else
		TAP_FAILED=$((TAP_FAILED + 1))
		echo "not ok $TAP_RUN - $2"
	fi
}

# ok TITLE COMMAND...: passes when COMMAND succeeds.
ok()
{
	local title=$1
	shift
	"$@" >/dev/null 2>&1
	tap_result $? "$title"
}

# is TITLE GOT WANT
is()
{
	if [ "$2" = "$3" ]; then
		tap_result 0 "$1"
	else
		tap_result 1 "$1"
		printf '#          got: "%s"\n#     expected: "%s"\n' "$2" "$3"
	fi
}

# like TITLE GOT EXTENDED-REGEX
like()
{
	if printf '%s' "$2" | grep -Eq -- "$3"; then
		tap_result 0 "$1"
	else
		tap_result 1 "$1"
		printf '#          got: "%s"\n#  should match: "%s"\n' "$2" "$3"
	fi
}

# unlike TITLE GOT EXTENDED-REGEX
unlike()
{
	if printf '%s' "$2" | grep -Eq -- "$3"; then
		tap_result 1 "$1"
		printf '#          got: "%s"\n#  should not match: "%s"\n' "$2" "$3"
	else
		tap_result 0 "$1"
	fi
}

diag()
{
	printf '# %s\n' "$*"
}

skip_all()
{
	echo "1..0 # SKIP $*"
	exit 0
}

bail_out()
{
	echo "Bail out! $*"
	exit 1
}

done_testing()
{
	echo "1..$TAP_RUN"
	[ "$TAP_FAILED" -eq 0 ]
	exit $?
}
