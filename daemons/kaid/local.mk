# daemons/kaid: the controller daemon.  It may use every module in src/.
sbin_PROGRAMS += daemons/kaid/kaid
daemons_kaid_kaid_SOURCES = \
	daemons/kaid/arrays.c \
	daemons/kaid/arrays.h \
	daemons/kaid/deps.c \
	daemons/kaid/deps.h \
	daemons/kaid/dispatch.c \
	daemons/kaid/dispatch.h \
	daemons/kaid/native.c \
	daemons/kaid/native.h \
	daemons/kaid/native_burst.c \
	daemons/kaid/native_gang.c \
	daemons/kaid/native_sgtree.c \
	daemons/kaid/native_owner.c \
	daemons/kaid/native_pgstatus.c \
	daemons/kaid/native_qwait.c \
	daemons/kaid/events.c \
	daemons/kaid/evict.c \
	daemons/kaid/helpers.c \
	daemons/kaid/httpd.c \
	daemons/kaid/jobauth.c \
	daemons/kaid/kaiqueues.c \
	daemons/kaid/kaiqueue_status.c \
	daemons/kaid/kaid.c \
	daemons/kaid/kaid.h \
	daemons/kaid/leader.c \
	daemons/kaid/listener.c \
	daemons/kaid/listener.h \
	daemons/kaid/relay.c \
	daemons/kaid/metrics.c \
	daemons/kaid/metrics.h \
	daemons/kaid/podenv.c \
	daemons/kaid/podfail.c \
	daemons/kaid/podshare.c \
	daemons/kaid/podshare.h \
	daemons/kaid/policy.c \
	daemons/kaid/policy.h \
	daemons/kaid/podspec.c \
	daemons/kaid/nodefeat.c \
	daemons/kaid/pools.c \
	daemons/kaid/ptyrelay.c \
	daemons/kaid/queues.c \
	daemons/kaid/queues.h \
	daemons/kaid/reads.c \
	daemons/kaid/reconcile.c \
	daemons/kaid/rpc.c \
	daemons/kaid/rpc_array.c \
	daemons/kaid/rpc_cancel.c \
	daemons/kaid/rpc_jobctl.c \
	daemons/kaid/rpc_log.c \
	daemons/kaid/rpc_nodes.c \
	daemons/kaid/rpc_qos.c \
	daemons/kaid/rpc_query.c \
	daemons/kaid/rpc_queue.c \
	daemons/kaid/rpc_report.c \
	daemons/kaid/rpc_share.c \
	daemons/kaid/rpc_submit.c \
	daemons/kaid/server.c \
	daemons/kaid/steps.c \
	daemons/kaid/steps_acct.c \
	daemons/kaid/steps_int.h \
	daemons/kaid/server_int.h \
	daemons/kaid/server_limits.c \
	daemons/kaid/share.c \
	daemons/kaid/share.h \
	daemons/kaid/snapshot.c \
	daemons/kaid/snapshot.h \
	daemons/kaid/snapgen.c \
	daemons/kaid/snap_tree.c \
	daemons/kaid/state.c \
	daemons/kaid/mail.c \
	daemons/kaid/mail.h \
	daemons/kaid/tick.c \
	daemons/kaid/wholenode.c \
	daemons/kaid/wholenode.h \
	daemons/kaid/tick.h \
	daemons/kaid/usage.c \
	daemons/kaid/usage.h \
	daemons/kaid/webhook.c \
	daemons/kaid/writeq.c
nodist_daemons_kaid_kaid_SOURCES = pod/podshim.c
daemons_kaid_kaid_LDADD = \
	pod/libkaistepbin.a \
	src/sched/libkaisched.a \
	src/db/libkaidb.a \
	src/kube/libkaikube.a \
	src/auth/libkaiauth.a \
	src/auth/libkaijobcred.a \
	src/conf/libkaiconf.a \
	src/proto/libkaiproto.a \
	src/model/libkaimodel.a \
	src/sys/libkaisys.a \
	src/base/libkaibase.a \
	$(PQ_LIBS) $(CURL_LIBS) $(JSONC_LIBS) $(YAML_LIBS) $(MUNGE_LIBS) \
	$(SSL_LIBS) -lm
daemons_kaid_kaid_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/pod
daemons_kaid_kaid_CFLAGS = $(AM_CFLAGS) $(PQ_CFLAGS) $(CURL_CFLAGS) \
	$(JSONC_CFLAGS) $(YAML_CFLAGS) $(MUNGE_CFLAGS) $(SSL_CFLAGS)
dist_man_MANS += doc/man/kaid.8
# End of daemons/kaid/local.mk
