# src/sched: see the module's header.
# End of src/sched/local.mk
