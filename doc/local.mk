# doc: design notes (man pages are listed by the module that owns the program).
EXTRA_DIST += doc/architecture.md doc/metrics.md
# End of doc/local.mk
