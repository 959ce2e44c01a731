# doc: design notes (man pages are listed by the module that owns the program).
EXTRA_DIST += doc/architecture.md doc/metrics.md doc/k8s-native.md
# The frag replay's curve, its plot and the script that drew it.
EXTRA_DIST += doc/sched-frag-plot.py doc/sched-frag-replay.csv \
	doc/sched-frag-replay.png
# End of doc/local.mk
