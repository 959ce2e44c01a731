#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# run-tests.sh: the whole test suite, as CI runs it, on a fresh Debian
# machine: install what is missing, then
#  - a -Werror build (gcc) and its unit tier (`make check-unit`:
#    tests/unit, tests/sched, tests/pod, the fuzz corpora);
#  - a second -Werror build with clang and its unit tier;
#  - an ASan/UBSan build and everything once more in it: the unit tier
#    and the kubesim tier (the integration tests against a real
#    PostgreSQL, munged and kubesim); the few that need the static
#    in-pod programs, which a sanitized build has not, run in the gcc
#    build;
#  - the client-port tests with kaid under valgrind;
#  - the real-API tier: a real kube-apiserver and the integration tests
#    that declare it (stack_tiers), in the gcc build;
#  - the node tier: the same API server with real nodes (containerd,
#    kubelet, controller-manager) and the integration tests that
#    declare it;
#  - every libFuzzer harness for 15 s (FUZZ_SECONDS), two at a time, in
#    a clang --enable-fuzzing build; `make distcheck`.
# The API server, kubelet and controller-manager (built from Debian's
# source package) and the node tier's images are cached outside the
# tree; a fresh machine builds them in the background, at the lowest
# priority, while the first tiers run.  Ends with the line "N passed, N
# failed", which counts the tests of every tier.  The machine has two
# cores, and the tests are bound by them (process starts above all), so
# each tier runs once.
#
#   contrib/run-tests.sh            everything
#   contrib/run-tests.sh --quick    the -Werror builds only (gcc: unit
#                                   and kubesim tiers; clang: unit tier)

set -u
top=$(cd "$(dirname "$0")/.." && pwd)
quick=no
[ "${1:-}" = "--quick" ] && quick=yes
jobs=$(nproc 2>/dev/null || echo 2)

"$top/contrib/deps.sh" || exit 1
cd "$top" || exit 1
# The tests' python3 is Debian's, with the python3-yaml deps.sh installs.
# One earlier in PATH (pyenv's shim, say) may lack the module, and a shim
# costs a shell and a few more processes at each of the thousands of
# starts (kubesim, kapply and the tests' own JSON checks).
if [ -x /usr/bin/python3 ]; then
	mkdir -p "$top/build/bin" &&
	    ln -sf /usr/bin/python3 "$top/build/bin/python3" &&
	    PATH=$top/build/bin:$PATH
fi
./bootstrap >/dev/null 2>&1 || { echo "run-tests: error: bootstrap failed" >&2; exit 1; }

passed=0
failed=0

# count_results DIR: adds the totals of DIR's test-suite.log.
count_results()
{
	local log=$1/test-suite.log p f e
	[ -f "$log" ] || { failed=$((failed + 1)); return; }
	p=$(sed -n 's/^# PASS: *//p' "$log" | head -n 1)
	f=$(sed -n 's/^# FAIL: *//p' "$log" | head -n 1)
	e=$(sed -n 's/^# ERROR: *//p' "$log" | head -n 1)
	passed=$((passed + ${p:-0}))
	failed=$((failed + ${f:-0} + ${e:-0}))
}

# report OUT: the summary of the `make check` output OUT (of the build
# directory we are in) and the tail of each failed test's log.
report()
{
	local t
	grep -E '^SKIP:' "$1" | grep -v '^SKIP:.*# SKIP' | head -n 60
	grep -E '^(FAIL|ERROR):|^# (TOTAL|PASS|SKIP|FAIL|ERROR):' "$1"
	for t in $(sed -n 's/^\(FAIL\|ERROR\): \([^ ]*\).*/\2/p' "$1" | sort -u); do
		echo "--- $t.log (tail)"
		tail -n 40 "$t.log" 2>/dev/null
	done
}

# check_tests OUT TESTS: `make check` of TESTS (all when empty) in the
# build directory we are in, its output in OUT; reported and counted.
check_tests()
{
	if [ -n "$2" ]; then
		make -j"$jobs" check TESTS="$2" >"$1" 2>&1
	else
		make -j"$jobs" "${check_target:-check}" >"$1" 2>&1
	fi
	report "$1"
	count_results .
}

# run_build NAME CONFIGURE-FLAGS...: configure, build and check in build/NAME.
# With check_target=check-unit set, only the tests that need no stack run.
run_build()
{
	local name=$1 dir=$top/build/$1
	shift
	echo "=== $name: configure $* (at ${SECONDS} s)"
	rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
	if ! "$top/configure" -q "$@" >configure.out 2>&1; then
		cat configure.out
		failed=$((failed + 1))
		return
	fi
	if ! make -j"$jobs" >make.out 2>&1; then
		grep -E 'error|warning' make.out | head -n 40
		failed=$((failed + 1))
		return
	fi
	echo "=== $name: make ${check_target:-check} (at ${SECONDS} s)"
	check_tests check.out ""
	cd "$top" || exit 1
}

# tests_in DIR...: the tests (*.t) of DIRs, as TESTS.
tests_in()
{
	(cd "$top" && for d in "$@"; do ls "$d"/*.t; done | tr '\n' ' ')
}

# k8s_build_start: builds the real kube-apiserver, kubelet and
# controller-manager, then the node tier's images (each found in its
# cache when it is there), in the background at the lowest priority: on
# a fresh machine they take ten minutes of both cores, which the tiers
# before the real-API one leave partly idle.  k8s_build_wait then tells
# what came of it: 0 built, 1 the API server failed, 2 the images.
k8s_build_start()
{
	mkdir -p "$top/build" || exit 1
	(
		nice -n 19 "$top/contrib/k8s/build-apiserver.sh" \
		    >"$top/build/apiserver-build.out" 2>&1 || exit 1
		nice -n 19 "$top/contrib/k8s/build-images.sh" \
		    >"$top/build/images-build.out" 2>&1 || exit 2
	) &
	k8s_build_pid=$!
}

k8s_build_wait()
{
	[ -n "${k8s_build_rc:-}" ] && return "$k8s_build_rc"
	wait "$k8s_build_pid"
	k8s_build_rc=$?
	return "$k8s_build_rc"
}

# real_api_tier: the integration tests against a real kube-apiserver
# (tests/lib/stack.sh with KAI_STACK_API=real) and the API server's own
# tests (tests/realapi), in the werror build.
real_api_tier()
{
	echo "=== real kube-apiserver: build (cached) and integration tests (at ${SECONDS} s)"
	if ! k8s_build_wait && [ "$k8s_build_rc" = 1 ]; then
		tail -n 30 "$top/build/apiserver-build.out"
		failed=$((failed + 1))
		return
	fi
	cd "$top/build/werror" || exit 1
	KAI_STACK_API=real check_tests check-realapi.out \
	    "$(tests_in tests/integration tests/realapi)"
	cd "$top" || exit 1
}

# node_tier: the integration tests on real nodes (tests/lib/stack.sh with
# KAI_STACK_API=node), in the werror build.  Every test runs; those that
# do not declare the node tier (stack_tiers) skip at once.
node_tier()
{
	echo "=== node tier: images (cached) and integration tests on real nodes (at ${SECONDS} s)"
	if ! k8s_build_wait; then
		# The API server's failure was counted by the real-API tier.
		[ "$k8s_build_rc" = 2 ] || return
		tail -n 30 "$top/build/images-build.out"
		failed=$((failed + 1))
		return
	fi
	cd "$top/build/werror" || exit 1
	KAI_STACK_API=node check_tests check-node.out "$(tests_in tests/integration)"
	cd "$top" || exit 1
}

# static_tier: the kubesim-tier tests the sanitizer build skipped for
# want of the in-pod programs (pod/kaistep: static, so never sanitized),
# run in the werror build, which has them.
static_tier()
{
	local tests
	tests=$(sed -n 's/^SKIP: \(tests\/integration\/[^ ]*\.t\) - pod\/kaistep not built.*/\1/p' \
	    "$top/build/sanitizers/check.out" | tr '\n' ' ')
	[ -n "$tests" ] || return 0
	echo "=== kubesim tier, the tests that need the in-pod programs (at ${SECONDS} s)"
	cd "$top/build/werror" || exit 1
	check_tests check-static.out "$tests"
	cd "$top" || exit 1
}

# fuzz_tier: the libFuzzer harnesses of tests/fuzz, built by clang with
# --enable-fuzzing in build/fuzz, each run for FUZZ_SECONDS (15) by
# tests/fuzz/run.sh.  Each harness counts once: a crash, a leak, a
# timeout or an out-of-memory fails it (the input is kept in
# build/fuzz/tests/fuzz/artifacts/).
fuzz_tier()
{
	local dir=$top/build/fuzz p f
	echo "=== fuzz: configure CC=clang --enable-fuzzing (at ${SECONDS} s)"
	rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
	if ! "$top/configure" -q CC=clang --enable-fuzzing \
	    >configure.out 2>&1 ||
	    ! make -j"$jobs" fuzz-harnesses >make.out 2>&1; then
		tail -n 30 configure.out make.out 2>/dev/null
		failed=$((failed + 1))
		cd "$top" || exit 1
		return
	fi
	echo "=== fuzz: each harness for ${FUZZ_SECONDS:-15} s (at ${SECONDS} s)"
	"$top/tests/fuzz/run.sh" -t "${FUZZ_SECONDS:-15}" -j "$jobs" "$dir" >fuzz.out 2>&1
	cat fuzz.out
	p=$(grep -c '^PASS:' fuzz.out)
	f=$(grep -c '^FAIL:' fuzz.out)
	passed=$((passed + p))
	failed=$((failed + f))
	# run.sh failing with nothing reported is a failure too.
	[ "$p" -gt 0 ] || [ "$f" -gt 0 ] || failed=$((failed + 1))
	cd "$top" || exit 1
}

# valgrind_tier: the tests that talk to kaid's client and HTTP ports,
# once more in the werror build with kaid under valgrind (memcheck sees
# what ASan misses, such as a write through explicit_bzero).  The tests
# count as usual; each kaid that valgrind reported an error in counts as
# one more failure.  t1250-client-limits.t is left out: its timeouts are
# measured against a kaid ten times slower under valgrind.
valgrind_tier()
{
	local dir=$top/build/werror vg=$top/build/valgrind log n=0 tests
	tests="tests/integration/t0000-kaid.t tests/integration/t1000-submit.t"
	tests="$tests tests/integration/t1100-auth.t"
	tests="$tests tests/integration/t1200-bad-input.t"
	tests="$tests tests/integration/t1240-protocol.t"
	tests="$tests tests/integration/t1251-http-limits.t"
	tests="$tests tests/integration/t2000-cancel.t"
	tests="$tests tests/integration/t5000-http.t"
	echo "=== valgrind: client-port tests with kaid under valgrind (at ${SECONDS} s)"
	rm -rf "$vg" && mkdir -p "$vg" && cd "$dir" || exit 1
	KAI_KAID_WRAPPER="valgrind -q --error-exitcode=99 --log-file=$vg/kaid.%p.log" \
	    check_tests check-valgrind.out "$tests"
	for log in "$vg"/kaid.*.log; do
		[ -e "$log" ] || continue
		n=$((n + 1))
		if [ -s "$log" ]; then
			echo "--- valgrind: errors in $log"
			head -n 40 "$log"
			failed=$((failed + 1))
		fi
	done
	echo "valgrind: $n kaid processes checked"
	# No log at all: kaid never ran under valgrind, nothing was checked.
	[ "$n" -gt 0 ] || failed=$((failed + 1))
	cd "$top" || exit 1
}

[ "$quick" = no ] && k8s_build_start
# The kubesim tier (the integration tests against kubesim) runs once,
# under the sanitizers below; the werror build runs the unit tier, then
# the real-API and node tiers.  --quick runs the kubesim tier here.
if [ "$quick" = yes ]; then
	run_build werror --enable-werror
else
	check_target=check-unit run_build werror --enable-werror
fi
# The second compiler: clang's warnings differ from gcc's (it ignores
# FALLTHROUGH comments, for one), so the -Werror build is repeated with
# it, and the unit tier runs on what it compiled.
check_target=check-unit run_build clang CC=clang --enable-werror
if [ "$quick" = no ]; then
	# The sanitizer build runs the unit tier again and the kubesim tier.
	# The real-API tests of tests/realapi need an API server only the
	# real-API tier waits for, and exercise no more C code: they run
	# there.
	KAI_SKIP_REALAPI=1 \
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	    run_build sanitizers --enable-werror --enable-sanitizers
	static_tier
	valgrind_tier
	real_api_tier
	node_tier
	fuzz_tier
	echo "=== distcheck (at ${SECONDS} s)"
	cd "$top/build/werror" || exit 1
	# The tarball is checked with the unit tests; the integration tiers
	# ran above.
	if KAI_SKIP_INTEGRATION=1 KAI_SKIP_REALAPI=1 \
	    make -j"$jobs" distcheck >distcheck.out 2>&1; then
		passed=$((passed + 1))
		echo "distcheck: ok"
	else
		failed=$((failed + 1))
		tail -n 40 distcheck.out
	fi
fi
echo "=== done (at ${SECONDS} s)"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
