# src/sched: the pure scheduler core.  Uses base only; no I/O, no clock.
noinst_LIBRARIES += src/sched/libkaisched.a
src_sched_libkaisched_a_SOURCES = \
	src/sched/acctshare.c \
	src/sched/admission.c \
	src/sched/allocate.c \
	src/sched/backfill.c \
	src/sched/closed.c \
	src/sched/consolidate.c \
	src/sched/ctx.c \
	src/sched/decay.c \
	src/sched/decay.h \
	src/sched/estimate.c \
	src/sched/exclusive.c \
	src/sched/cycle.c \
	src/sched/fairshare.c \
	src/sched/frag.c \
	src/sched/fraggroup.c \
	src/sched/fraggroup.h \
	src/sched/gang.c \
	src/sched/nodegroup.c \
	src/sched/gputype.c \
	src/sched/heap.c \
	src/sched/incr.c \
	src/sched/incr.h \
	src/sched/incr_record.c \
	src/sched/incr_world.c \
	src/sched/leafmerge.c \
	src/sched/memo.c \
	src/sched/nodeidx.c \
	src/sched/nodereq.c \
	src/sched/order.c \
	src/sched/place.c \
	src/sched/pools.c \
	src/sched/preempt.c \
	src/sched/qoslimit.c \
	src/sched/reasons.c \
	src/sched/reclaim.c \
	src/sched/sched_int.h \
	src/sched/sched_model.h \
	src/sched/sess_jobs.c \
	src/sched/session.c \
	src/sched/stalegang.c \
	src/sched/stmt.c \
	src/sched/subgroup.c \
	src/sched/subgroup_check.c \
	src/sched/topology.c \
	src/sched/validate.c \
	src/sched/victims.c

# The core's own properties: index vs scan, rollback, determinism.
check_PROGRAMS += tests/unit/sched-core
tests_unit_sched_core_SOURCES = tests/unit/sched-core.c
tests_unit_sched_core_LDADD = tests/lib/libtap.a src/sched/libkaisched.a \
	src/base/libkaibase.a
TESTS += tests/unit/sched-core

# The snapshot's narrow fields: taken up to their bounds, refused by name
# above them (kai_sched_task_request(), validate.c).
check_PROGRAMS += tests/unit/sched-bounds
tests_unit_sched_bounds_SOURCES = tests/unit/sched-bounds.c
tests_unit_sched_bounds_LDADD = tests/lib/libtap.a src/sched/libkaisched.a \
	src/base/libkaibase.a
TESTS += tests/unit/sched-bounds

# Node groups (nodegroup.c) hold through every phase in random worlds.
check_PROGRAMS += tests/unit/sched-nodegroup
tests_unit_sched_nodegroup_SOURCES = tests/unit/sched-nodegroup.c
tests_unit_sched_nodegroup_LDADD = tests/lib/libtap.a \
	src/sched/libkaisched.a src/base/libkaibase.a
TESTS += tests/unit/sched-nodegroup

# Subgroup trees (subgroup.c) hold through every phase in random worlds.
check_PROGRAMS += tests/unit/sched-subgroup
tests_unit_sched_subgroup_SOURCES = tests/unit/sched-subgroup.c
tests_unit_sched_subgroup_LDADD = tests/lib/libtap.a \
	src/sched/libkaisched.a src/base/libkaibase.a
TESTS += tests/unit/sched-subgroup

# Closed leaf queues (closed.c): the verdict is sound, and the others'
# decisions do not depend on a closed leaf's jobs.
check_PROGRAMS += tests/unit/sched-closed
tests_unit_sched_closed_SOURCES = tests/unit/sched-closed.c
tests_unit_sched_closed_LDADD = tests/lib/libtap.a src/sched/libkaisched.a \
	src/base/libkaibase.a
TESTS += tests/unit/sched-closed

# Once nothing can be placed, the allocate phase goes leaf by leaf
# (allocate.c, leafmerge.c) and decides as the tree's order does.
check_PROGRAMS += tests/unit/sched-filled
tests_unit_sched_filled_SOURCES = tests/unit/sched-filled.c
tests_unit_sched_filled_LDADD = tests/lib/libtap.a src/sched/libkaisched.a \
	src/base/libkaibase.a
TESTS += tests/unit/sched-filled

# Cycles fed by a kept state (incr.c): every result the full cycle's,
# over random worlds and random deltas.
check_PROGRAMS += tests/unit/sched-incr
tests_unit_sched_incr_SOURCES = tests/unit/sched-incr.c
tests_unit_sched_incr_LDADD = tests/lib/libtap.a src/sched/libkaisched.a \
	src/base/libkaibase.a
TESTS += tests/unit/sched-incr

# Start estimates: small clusters worked out on paper (estimate.c).
check_PROGRAMS += tests/unit/sched-estimate
tests_unit_sched_estimate_SOURCES = tests/unit/sched-estimate.c
tests_unit_sched_estimate_LDADD = tests/lib/libtap.a src/sched/libkaisched.a \
	src/base/libkaibase.a
TESTS += tests/unit/sched-estimate

# Start estimates of random worlds against a replay written in the test:
# an allocate-only cycle at now and at every end.
check_PROGRAMS += tests/unit/sched-estdiff
tests_unit_sched_estdiff_SOURCES = tests/unit/sched-estdiff.c
tests_unit_sched_estdiff_LDADD = tests/lib/libtap.a src/sched/libkaisched.a \
	src/base/libkaibase.a
TESTS += tests/unit/sched-estdiff

# Decayed usage: the closed form against a numeric sum, the window, the
# carrying forward between recomputations.
check_PROGRAMS += tests/unit/sched-decay
tests_unit_sched_decay_SOURCES = tests/unit/sched-decay.c
tests_unit_sched_decay_LDADD = tests/lib/libtap.a src/sched/libkaisched.a \
	src/base/libkaibase.a -lm
TESTS += tests/unit/sched-decay

# The scheduler scenarios (FORMAT.md): every tests/sched/*.yaml through
# "ksim --check", one TAP line each; and ksim's own command line.
SCHED_SCENARIOS = \
	tests/sched/acct-fairshare-weights.yaml \
	tests/sched/alloc-node-binpack.yaml \
	tests/sched/alloc-queue-fair-share-order.yaml \
	tests/sched/backfill-ends-before-reservation.yaml \
	tests/sched/backfill-gang-reserved.yaml \
	tests/sched/backfill-max-job-test-reaches.yaml \
	tests/sched/backfill-max-job-test-stops.yaml \
	tests/sched/backfill-no-limit-waits.yaml \
	tests/sched/backfill-off-starves.yaml \
	tests/sched/consolidate-across-nodes.yaml \
	tests/sched/consolidate-fractions-onto-one-gpu.yaml \
	tests/sched/consolidate-keeps-topology.yaml \
	tests/sched/consolidate-makes-room-for-node-group.yaml \
	tests/sched/consolidate-keeps-gpu-memory-charge.yaml \
	tests/sched/consolidate-moves-lowest-newest.yaml \
	tests/sched/consolidate-moves-newest-of-equals.yaml \
	tests/sched/consolidate-moves-node-group-whole.yaml \
	tests/sched/consolidate-never-splits-node-group.yaml \
	tests/sched/consolidate-off-with-spread.yaml \
	tests/sched/consolidate-only-if-all-replaced.yaml \
	tests/sched/consolidate-required-domain.yaml \
	tests/sched/constraint-backfill-reserves-usable-nodes.yaml \
	tests/sched/constraint-consolidate-keeps-features.yaml \
	tests/sched/constraint-features.yaml \
	tests/sched/constraint-matching-or-grows.yaml \
	tests/sched/constraint-matching-or.yaml \
	tests/sched/constraint-preempt-only-usable-nodes.yaml \
	tests/sched/constraint-reclaim-only-usable-nodes.yaml \
	tests/sched/cycle-all-phases.yaml \
	tests/sched/excl-avoids-shared-node.yaml \
	tests/sched/excl-keeps-others-off.yaml \
	tests/sched/excl-own-tasks-share.yaml \
	tests/sched/excl-preempts-whole-node.yaml \
	tests/sched/excl-waits-for-empty-node.yaml \
	tests/sched/fairshare-hierarchy-depth3.yaml \
	tests/sched/fairshare-limit-and-request-cap.yaml \
	tests/sched/fairshare-priority-levels.yaml \
	tests/sched/fairshare-remainder-largest.yaml \
	tests/sched/fairshare-remainder-tie-older.yaml \
	tests/sched/fairshare-time-based-k-zero.yaml \
	tests/sched/fairshare-time-based-usage.yaml \
	tests/sched/fairshare-weights-proportional.yaml \
	tests/sched/frac-and-whole-never-share.yaml \
	tests/sched/frag-binpack-strands-gpus.yaml \
	tests/sched/frag-cpu-job-spares-gpus.yaml \
	tests/sched/frag-gang-spares-gpus.yaml \
	tests/sched/frag-horizon-keeps-room.yaml \
	tests/sched/frag-topo-required-rack.yaml \
	tests/sched/frac-by-gpu-memory.yaml \
	tests/sched/frac-memory-too-big-for-node.yaml \
	tests/sched/frac-multi-device-consolidate.yaml \
	tests/sched/frac-multi-device-evicted-whole.yaml \
	tests/sched/frac-multi-device-fits.yaml \
	tests/sched/frac-multi-device-no-room.yaml \
	tests/sched/frac-multi-device-pack.yaml \
	tests/sched/frac-multi-device-pipelined.yaml \
	tests/sched/frac-multi-device-preempted.yaml \
	tests/sched/frac-multi-device-spread.yaml \
	tests/sched/frac-never-spans-gpus.yaml \
	tests/sched/frac-share-same-gpu.yaml \
	tests/sched/gang-all-or-nothing.yaml \
	tests/sched/gang-elastic-extra-tasks.yaml \
	tests/sched/gang-elastic-running-grows.yaml \
	tests/sched/gang-min-unreachable.yaml \
	tests/sched/gang-pernode-backfill-reserves-one-node.yaml \
	tests/sched/gang-pernode-cpu-groups-short.yaml \
	tests/sched/gang-pernode-group-one-node.yaml \
	tests/sched/gang-pernode-groups-distinct-nodes.yaml \
	tests/sched/gang-pernode-no-node-holds-group.yaml \
	tests/sched/gang-pernode-preempt-frees-one-node.yaml \
	tests/sched/gang-spans-nodes.yaml \
	tests/sched/gputype-fair-share-hierarchy.yaml \
	tests/sched/gputype-fair-share-per-type.yaml \
	tests/sched/gputype-limit-other-type-free.yaml \
	tests/sched/gputype-reclaim-per-type.yaml \
	tests/sched/gputype-total-quota-holds.yaml \
	tests/sched/gputype-untyped-uses-any.yaml \
	tests/sched/limit-blocks-queue.yaml \
	tests/sched/limit-parent-blocks-child.yaml \
	tests/sched/minruntime-preempt-protects.yaml \
	tests/sched/minruntime-reclaim-elapsed.yaml \
	tests/sched/minruntime-reclaim-lca.yaml \
	tests/sched/nodelist-exclude.yaml \
	tests/sched/order-closed-queue-takes-no-part.yaml \
	tests/sched/order-drf-cpu-vs-gpu.yaml \
	tests/sched/order-elastic-growth-after-minimums.yaml \
	tests/sched/order-job-priority-then-age.yaml \
	tests/sched/order-over-fair-share-last.yaml \
	tests/sched/order-per-user-usage.yaml \
	tests/sched/order-queue-priority.yaml \
	tests/sched/order-under-quota-first.yaml \
	tests/sched/pipeline-after-eviction.yaml \
	tests/sched/pipeline-onto-releasing.yaml \
	tests/sched/pipeline-whole-job.yaml \
	tests/sched/place-cpu-memory-fit.yaml \
	tests/sched/place-cpu-only-prefers-cpu-node.yaml \
	tests/sched/place-gpu-device-spread.yaml \
	tests/sched/place-spread-gang-tie-by-name.yaml \
	tests/sched/place-spread-vs-binpack.yaml \
	tests/sched/place-unschedulable-node.yaml \
	tests/sched/preempt-build-evicts-train.yaml \
	tests/sched/preempt-for-elastic-growth.yaml \
	tests/sched/preempt-elastic-tasks-first.yaml \
	tests/sched/preempt-gang-victim-whole.yaml \
	tests/sched/preempt-lowest-newest-smallest-set.yaml \
	tests/sched/preempt-same-queue-only.yaml \
	tests/sched/preempt-skips-non-preemptible.yaml \
	tests/sched/preempt-strictly-lower-priority.yaml \
	tests/sched/pool-preempt-only-usable-nodes.yaml \
	tests/sched/pool-selector-and-no-node.yaml \
	tests/sched/pool-taints-keep-tasks-off.yaml \
	tests/sched/qos-gpu-cap-per-user.yaml \
	tests/sched/quota-blocks-nonpreemptible-only.yaml \
	tests/sched/quota-parent-nonpreemptible.yaml \
	tests/sched/reasons-held-nodes-never-fits.yaml \
	tests/sched/reasons-higher-priority-holders.yaml \
	tests/sched/reasons-no-schedulable-node.yaml \
	tests/sched/reasons-priority-behind-blocked.yaml \
	tests/sched/reasons-requests-at-bounds.yaml \
	tests/sched/reclaim-down-to-quota.yaml \
	tests/sched/reclaim-fair-share-lowest-priority-victims.yaml \
	tests/sched/reclaim-gang-victim-whole.yaml \
	tests/sched/reclaim-reclaimer-within-fair-share.yaml \
	tests/sched/reclaim-victim-at-share-kept.yaml \
	tests/sched/stale-gang-evicted-after-grace.yaml \
	tests/sched/stale-gang-within-grace.yaml \
	tests/sched/subgroup-grows-whole.yaml \
	tests/sched/subgroup-jobset-tree.yaml \
	tests/sched/subgroup-leaf-minimums.yaml \
	tests/sched/subgroup-leaf-reason.yaml \
	tests/sched/subgroup-min-subgroup-one-of-two.yaml \
	tests/sched/subgroup-preempt-spare-task.yaml \
	tests/sched/subgroup-short-failed-pod.yaml \
	tests/sched/subgroup-stale-tree.yaml \
	tests/sched/subgroup-topology-required-rack.yaml \
	tests/sched/subgroup-topology-within-job.yaml \
	tests/sched/topo-preferred-falls-back.yaml \
	tests/sched/topo-preferred-packs-domain.yaml \
	tests/sched/topo-preferred-packs-top-down.yaml \
	tests/sched/topo-required-keeps-running-domain.yaml \
	tests/sched/topo-required-rack.yaml \
	tests/sched/topo-required-unsatisfiable.yaml
TESTS += tests/sched/run.t tests/sched/ksim-cli.t
dist_check_SCRIPTS += tests/sched/run.t tests/sched/ksim-cli.t
EXTRA_DIST += $(SCHED_SCENARIOS) doc/scheduler.md

# The benchmark: not run by make check (tests/bench/sched-bench -h).
noinst_PROGRAMS += tests/bench/sched-bench
tests_bench_sched_bench_SOURCES = tests/bench/sched-bench.c \
	tests/bench/sched-bench-trace.c tests/bench/sched-bench-starve.c \
	tests/bench/sched-bench-time.c tests/bench/sched-bench-steady.c \
	tests/bench/sched-bench.h
tests_bench_sched_bench_LDADD = src/sched/libkaisched.a src/base/libkaibase.a
# End of src/sched/local.mk
