# tests: the TAP harness, unit tests per module, integration tests.
noinst_LIBRARIES += tests/lib/libtap.a
tests_lib_libtap_a_SOURCES = tests/lib/tap.c tests/lib/tap.h tests/lib/rnd.h

UNIT_LIBS_BASE = tests/lib/libtap.a src/base/libkaibase.a

check_PROGRAMS += tests/unit/base-buf
tests_unit_base_buf_SOURCES = tests/unit/base-buf.c
tests_unit_base_buf_LDADD = $(UNIT_LIBS_BASE)
TESTS += tests/unit/base-buf

# Integration tests: the real stack (tests/lib/stack.sh).
INTEGRATION_TESTS = \
	tests/integration/t0000-kaid.t \
	tests/integration/t1000-submit.t \
	tests/integration/t1100-auth.t \
	tests/integration/t1200-bad-input.t \
	tests/integration/t1220-filesystems.t \
	tests/integration/t1230-long-paths.t \
	tests/integration/t1240-protocol.t \
	tests/integration/t1210-submit-isolation.t \
	tests/integration/t1250-client-limits.t \
	tests/integration/t1251-http-limits.t \
	tests/integration/t1260-log-injection.t \
	tests/integration/t1270-stack-secrets.t \
	tests/integration/t1280-impossible.t \
	tests/integration/t1290-qos.t \
	tests/integration/t1500-events.t \
	tests/integration/t9000-native-pods.t \
	tests/integration/t9005-native-burst.t \
	tests/integration/t9010-native-evict.t \
	tests/integration/t9050-native-share.t \
	tests/integration/t9060-native-reclaim-node.t \
	tests/integration/t9100-gpushare.t \
	tests/integration/t9110-gpushare-node.t \
	tests/integration/t9120-gpushare-devices.t \
	tests/integration/t9130-gpushare-devices-node.t \
	tests/integration/t9020-native-gangs.t \
	tests/integration/t9025-native-subgroups.t \
	tests/integration/t9026-native-subgroup-topology.t \
	tests/integration/t9030-native-gangs-node.t \
	tests/integration/t9040-kai-queues.t \
	tests/integration/t9140-kai-quickstart-node.t \
	tests/integration/t9150-native-share-node.t \
	tests/integration/t9160-native-queue-later.t \
	tests/integration/t9165-native-member-sizes.t \
	tests/integration/t1510-incluster.t \
	tests/integration/t2000-cancel.t \
	tests/integration/t2010-cancel-others.t \
	tests/integration/t3000-crash.t \
	tests/integration/t3100-watch-expiry.t \
	tests/integration/t3110-pod-refused.t \
	tests/integration/t3200-outcomes.t \
	tests/integration/t3220-jobend.t \
	tests/integration/t3230-request-bounds.t \
	tests/integration/t3210-exit-reason.t \
	tests/integration/t3300-db-outage.t \
	tests/integration/t3400-ha.t \
	tests/integration/t4000-queues.t \
	tests/integration/t4100-preempt.t \
	tests/integration/t4100-share.t \
	tests/integration/t4120-kacct-gpu.t \
	tests/integration/t4110-preempt-crash.t \
	tests/integration/t4130-gpu-types.t \
	tests/integration/t4200-start.t \
	tests/integration/t4300-query-scope.t \
	tests/integration/t4310-slow-read.t \
	tests/integration/t4400-qos-gpus.t \
	tests/integration/t4500-incremental.t \
	tests/integration/t4120-elastic.t \
	tests/integration/t4121-elastic-crash.t \
	tests/integration/t4122-elastic-shrink.t \
	tests/integration/t4126-gpu-devices.t \
	tests/integration/t5000-http.t \
	tests/integration/t5100-kinfo.t \
	tests/integration/t5110-pools.t \
	tests/integration/t5200-kctl-job.t \
	tests/integration/t5300-klog.t \
	tests/integration/t1300-kqueue.t \
	tests/integration/t1310-slurm-json.t \
	tests/integration/t6000-arrays.t \
	tests/integration/t6100-deps.t \
	tests/integration/t6200-podenv.t \
	tests/integration/t6210-podspec.t \
	tests/integration/t6220-pod-helpers.t \
	tests/integration/t6300-signal.t \
	tests/integration/t7000-node-job.t \
	tests/integration/t7010-node-two.t \
	tests/integration/t7100-node-pods.t \
	tests/integration/t6400-umask.t \
	tests/integration/t6800-mail.t \
	tests/integration/t6410-pernode.t \
	tests/integration/t6420-gres-pernode.t \
	tests/integration/t6430-exclusive.t \
	tests/integration/t6440-kacct-duplicates.t \
	tests/integration/t6450-submit-host.t \
	tests/integration/t6460-account-fairshare.t \
	tests/integration/t6500-jobcred.t \
	tests/integration/t6510-node-jobcred.t \
	tests/integration/t6600-steps.t \
	tests/integration/t6610-node-steps.t \
	tests/integration/t6700-ksrun.t \
	tests/integration/t6710-node-ksrun.t \
	tests/integration/t6900-constraint.t
TESTS += $(INTEGRATION_TESTS)
EXTRA_DIST += $(INTEGRATION_TESTS) \
	tests/lib/hostlist-cases.txt \
	tests/lib/native.sh \
	tests/lib/stack.sh \
	tests/tools/kai-attack.py \
	tests/tools/pty-drive.py \
	tests/lib/tap.sh \
	tests/lib/webhook.sh

# The benchmarks that drive the whole stack (not run by make check).
EXTRA_DIST += tests/bench/bench-kaid.sh tests/bench/bench-tools.sh \
	tests/bench/bench-soak.sh tests/bench/bench-soak.py \
	tests/bench/bench-dispatch.sh tests/bench/bench-native.sh \
	tests/bench/bench-node.sh tests/bench/benchlib.sh \
	tests/bench/bench-node.py tests/bench/bench-webhook.sh \
	tests/bench/bench-steps.sh \
	tests/bench/bench-pty.sh

# `make check-unit`: the tests that need no stack (unit, scheduler and
# pod tests and the fuzz corpora: tests/unit, tests/sched, tests/pod,
# tests/fuzz), as the clang tier of
# contrib/run-tests.sh runs them.  Some start a private PostgreSQL.
check-unit:
	@t=; for x in $(TESTS); do \
	    case $$x in tests/unit/*|tests/sched/*|tests/pod/*|tests/fuzz/*) t="$$t $$x" ;; esac; \
	done; \
	$(MAKE) $(AM_MAKEFLAGS) check TESTS="$$t"
.PHONY: check-unit

# The PostgreSQL data directories tests/lib/pg.sh keeps to copy.
clean-local:
	-rm -rf tests/pg-template-*

# End of tests/local.mk
