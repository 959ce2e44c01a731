# sql: the numbered, forward-only schema migrations.  They are compiled
# into sql/migrations.c (in the build tree) and linked into libkaidb.a, so
# kaid never reads them from disk.  List new files here, in order.
SQL_MIGRATIONS = \
	sql/001-initial.sql \
	sql/002-queues.sql \
	sql/003-job-scheduling.sql \
	sql/004-usage.sql \
	sql/005-arrays.sql \
	sql/006-signal.sql \
	sql/007-usage-gpu-share.sql \
	sql/008-why.sql \
	sql/009-exit-reason.sql \
	sql/010-umask.sql \
	sql/011-leader.sql \
	sql/012-workload.sql \
	sql/013-leader-address.sql \
	sql/014-qos.sql \
	sql/015-queue-gpu-types.sql \
	sql/016-ntasks-per-node.sql \
	sql/017-job-steps.sql \
	sql/019-gpus-per-node.sql \
	sql/021-job-mail.sql \
	sql/022-job-constraint.sql \
	sql/023-gpu-devices.sql

EXTRA_DIST += $(SQL_MIGRATIONS) build-aux/sql2c.sh
CLEANFILES += sql/migrations.c

sql/migrations.c: $(SQL_MIGRATIONS) $(top_srcdir)/build-aux/sql2c.sh
	$(AM_V_GEN)$(MKDIR_P) sql && \
	$(SHELL) $(top_srcdir)/build-aux/sql2c.sh $(srcdir) $@ \
	    $(SQL_MIGRATIONS)
# End of sql/local.mk
