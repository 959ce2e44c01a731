# clients: ksubmit, kqueue, kcancel, kacct and their shared code.

# Command-line helpers shared by the client programs: option tables,
# output formatting, and ksubmit's pure option/directive parsing (a library
# so that the unit tests link exactly what the programs run).
noinst_LIBRARIES += clients/libkaicmd.a
clients_libkaicmd_a_CPPFLAGS = $(AM_CPPFLAGS) $(JSONC_CFLAGS)
clients_libkaicmd_a_SOURCES = \
	clients/client_main.c \
	clients/client_main.h \
	clients/cliopt.c \
	clients/cliopt.h \
	clients/directives.c \
	clients/directives.h \
	clients/filters.c \
	clients/filters.h \
	clients/jobfields.c \
	clients/jobfields.h \
	clients/jobquery.c \
	clients/jobquery.h \
	clients/jobsort.c \
	clients/jobsort.h \
	clients/nodequery.c \
	clients/nodequery.h \
	clients/output.c \
	clients/output.h \
	clients/slurmjson.c \
	clients/slurmjson.h \
	clients/slurmtime.c \
	clients/slurmtime.h \
	clients/submit_env.c \
	clients/submit_env.h \
	clients/submit_opts.c \
	clients/submit_opts.h

check_PROGRAMS += tests/unit/clients-directives
tests_unit_clients_directives_SOURCES = tests/unit/clients-directives.c
tests_unit_clients_directives_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/clients
tests_unit_clients_directives_LDADD = tests/lib/libtap.a clients/libkaicmd.a \
	src/model/libkaimodel.a src/base/libkaibase.a $(JSONC_LIBS)
TESTS += tests/unit/clients-directives

# The request path every client program shares (client.c): connect,
# credential, frame, replies.  Links: proto, auth (libmunge), conf
# (libyaml), model, base.
noinst_LIBRARIES += clients/libkaiclient.a
clients_libkaiclient_a_SOURCES = clients/client.c clients/client.h \
	clients/client_pty.c clients/client_pty.h
clients_libkaiclient_a_CFLAGS = $(AM_CFLAGS) $(YAML_CFLAGS)

# The auth backend, chosen at link time (client.h client_cred_new()):
# MUNGE for the clients, job credentials for the in-pod pod/kaistep.
noinst_LIBRARIES += clients/libkaiclientmunge.a clients/libkaiclientjob.a
clients_libkaiclientmunge_a_SOURCES = clients/client_munge.c
clients_libkaiclientmunge_a_CFLAGS = $(AM_CFLAGS) $(MUNGE_CFLAGS)
clients_libkaiclientjob_a_SOURCES = clients/client_jobcred.c

# client_request() and kai-rawreq against a scripted peer and a private
# munged (clients-request.t starts it).
check_PROGRAMS += tests/unit/clients-request
tests_unit_clients_request_SOURCES = tests/unit/clients-request.c
tests_unit_clients_request_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/clients
tests_unit_clients_request_LDADD = tests/lib/libtap.a clients/libkaiclient.a \
	clients/libkaiclientmunge.a src/conf/libkaiconf.a src/auth/libkaiauth.a src/proto/libkaiproto.a \
	src/model/libkaimodel.a src/base/libkaibase.a $(MUNGE_LIBS) $(YAML_LIBS)
TESTS += tests/unit/clients-request.t
dist_check_SCRIPTS += tests/unit/clients-request.t
# The programs.  Link order: dependents first, base last.
CLIENT_LIBS = clients/libkaicmd.a clients/libkaiclient.a \
	clients/libkaiclientmunge.a src/proto/libkaiproto.a src/auth/libkaiauth.a src/conf/libkaiconf.a \
	src/model/libkaimodel.a src/sys/libkaisys.a src/base/libkaibase.a \
	$(CLIENT_EXT_LIBS)
CLIENT_CPPFLAGS = $(AM_CPPFLAGS) $(JSONC_CFLAGS)

bin_PROGRAMS += clients/ksubmit clients/kqueue clients/kcancel clients/kacct
bin_PROGRAMS += clients/kinfo clients/klog
# Interactive sessions (ksrun(1)): ksrun and ksalloc are one program
# under two names, ksattach joins a running one.
bin_PROGRAMS += clients/ksrun clients/ksalloc clients/ksattach
KSRUN_SOURCES = clients/ksrun.c clients/pty_term.c clients/pty_term.h
clients_ksrun_SOURCES = $(KSRUN_SOURCES)
clients_ksrun_CPPFLAGS = $(CLIENT_CPPFLAGS)
clients_ksrun_LDADD = $(CLIENT_LIBS)
clients_ksalloc_SOURCES = $(KSRUN_SOURCES)
clients_ksalloc_CPPFLAGS = $(CLIENT_CPPFLAGS)
clients_ksalloc_LDADD = $(CLIENT_LIBS)
clients_ksattach_SOURCES = clients/ksattach.c clients/pty_term.c \
	clients/pty_term.h
clients_ksattach_CPPFLAGS = $(CLIENT_CPPFLAGS)
clients_ksattach_LDADD = $(CLIENT_LIBS)
dist_man_MANS += doc/man/ksrun.1 doc/man/ksalloc.1 doc/man/ksattach.1
clients_klog_SOURCES = clients/klog.c
clients_klog_CPPFLAGS = $(CLIENT_CPPFLAGS)
clients_klog_LDADD = $(CLIENT_LIBS)
clients_kinfo_SOURCES = clients/kinfo.c clients/kinfo_layout.c \
	clients/kinfo_layout.h
clients_kinfo_CPPFLAGS = $(CLIENT_CPPFLAGS)
clients_kinfo_LDADD = $(CLIENT_LIBS)
# The clients' own files, one list each: pod/local.mk builds the in-pod
# kaistep from the same lists.
KSUBMIT_SOURCES = clients/ksubmit.c clients/submit_wait.c \
	clients/submit_wait.h
clients_ksubmit_SOURCES = $(KSUBMIT_SOURCES)
clients_ksubmit_CPPFLAGS = $(CLIENT_CPPFLAGS)
clients_ksubmit_LDADD = $(CLIENT_LIBS)
KQUEUE_SOURCES = clients/kqueue.c clients/kqueue_layout.c \
	clients/kqueue_layout.h clients/jobarray.c clients/jobarray.h
clients_kqueue_SOURCES = $(KQUEUE_SOURCES)
clients_kqueue_CPPFLAGS = $(CLIENT_CPPFLAGS)
clients_kqueue_LDADD = $(CLIENT_LIBS)
KCANCEL_SOURCES = clients/kcancel.c
clients_kcancel_SOURCES = $(KCANCEL_SOURCES)
clients_kcancel_CPPFLAGS = $(CLIENT_CPPFLAGS)
clients_kcancel_LDADD = $(CLIENT_LIBS)
clients_kacct_SOURCES = clients/kacct.c clients/kacct_fields.c \
	clients/kacct_fields.h clients/kacct_report.c \
	clients/kacct_report.h clients/kacct_steps.c clients/kacct_steps.h \
	clients/kacct_stepjson.c
clients_kacct_CPPFLAGS = $(CLIENT_CPPFLAGS)
clients_kacct_LDADD = $(CLIENT_LIBS)
# kseff: seff's efficiency report, from kacct's records of steps.
bin_PROGRAMS += clients/kseff
clients_kseff_SOURCES = clients/kseff.c clients/kacct_steps.c \
	clients/kacct_steps.h
clients_kseff_CPPFLAGS = $(CLIENT_CPPFLAGS)
clients_kseff_LDADD = $(CLIENT_LIBS)
dist_man_MANS += doc/man/kseff.1

dist_man_MANS += doc/man/ksubmit.1 doc/man/kqueue.1 doc/man/kcancel.1 \
	doc/man/kacct.1 doc/man/kinfo.1 doc/man/klog.1

# Host lists, node states and GPU amounts of kinfo and kctl show.
check_PROGRAMS += tests/unit/clients-nodequery
tests_unit_clients_nodequery_SOURCES = tests/unit/clients-nodequery.c
tests_unit_clients_nodequery_CPPFLAGS = $(CLIENT_CPPFLAGS) \
	-I$(top_srcdir)/clients
tests_unit_clients_nodequery_LDADD = tests/lib/libtap.a $(CLIENT_LIBS)
TESTS += tests/unit/clients-nodequery

# client_main(), the main() of the client programs.
check_PROGRAMS += tests/unit/clients-main
tests_unit_clients_main_SOURCES = tests/unit/clients-main.c
tests_unit_clients_main_CPPFLAGS = $(CLIENT_CPPFLAGS) -I$(top_srcdir)/clients
tests_unit_clients_main_LDADD = tests/lib/libtap.a $(CLIENT_LIBS)
TESTS += tests/unit/clients-main

# Output, times and selection parsing shared by kqueue and kacct.
check_PROGRAMS += tests/unit/clients-output
tests_unit_clients_output_SOURCES = tests/unit/clients-output.c
tests_unit_clients_output_CPPFLAGS = $(CLIENT_CPPFLAGS) -I$(top_srcdir)/clients
tests_unit_clients_output_LDADD = tests/lib/libtap.a $(CLIENT_LIBS)
TESTS += tests/unit/clients-output

# The programs with bad input: one clear line and exit 2, nothing sent.
TESTS += tests/unit/clients-cli.t
dist_check_SCRIPTS += tests/unit/clients-cli.t
# End of clients/local.mk

# ksubmit reads real sbatch scripts: the value syntaxes, the option table
# in three parts, the checks and per-task translation, the --parse-only
# report.
clients_libkaicmd_a_SOURCES += \
	clients/submit_json.c \
	clients/submit_json.h \
	clients/submit_spec.c \
	clients/submit_table.c \
	clients/submit_values.c \
	clients/submit_values.h

# The value syntaxes, row by row from the survey of real scripts.
check_PROGRAMS += tests/unit/clients-values
tests_unit_clients_values_SOURCES = tests/unit/clients-values.c
tests_unit_clients_values_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/clients
tests_unit_clients_values_LDADD = tests/lib/libtap.a clients/libkaicmd.a \
	src/model/libkaimodel.a src/base/libkaibase.a
TESTS += tests/unit/clients-values

# ksubmit --parse-only --json against scripts written from the survey of
# real sbatch scripts (../shared/reference/sbatch-usage.md).
TESTS += tests/unit/clients-parse-only.t
dist_check_SCRIPTS += tests/unit/clients-parse-only.t
# End of the ksubmit parse-only block

# ksim: the scheduler simulator -- one cycle of the core on a scenario
# file, printed as JSON or checked against the file's expect: block.  It
# links only the core, the model, base and libyaml (STYLE b11), so the
# scenario tests exercise exactly the scheduler kaid runs.
bin_PROGRAMS += clients/ksim
# Everything of ksim but its main(): the scenario fuzzer links it too.
KSIM_CORE_SOURCES = \
	clients/ksim.h \
	clients/ksim_check.c \
	clients/ksim_json.c \
	clients/scenario.c \
	clients/scenario.h \
	clients/scenario_caps.c \
	clients/scenario_accts.c \
	clients/scenario_expect.c \
	clients/scenario_jobs.c \
	clients/scenario_nodereq.c \
	clients/scenario_pools.c \
	clients/scenario_subgroups.c \
	clients/scenario_types.c \
	clients/ytree.c \
	clients/ytree.h
clients_ksim_SOURCES = clients/ksim.c $(KSIM_CORE_SOURCES)
clients_ksim_CPPFLAGS = $(AM_CPPFLAGS) $(YAML_CFLAGS)
clients_ksim_LDADD = src/sched/libkaisched.a src/model/libkaimodel.a \
	src/base/libkaibase.a $(YAML_LIBS)
dist_man_MANS += doc/man/ksim.1
# End of the ksim block

# kctl: the operator's tool (queues) and scontrol's job verbs (show,
# hold, release, update).  It reads queue files with ytree.c, the same
# YAML reader as ksim.
bin_PROGRAMS += clients/kctl
KCTL_SOURCES = clients/kctl.c clients/kctl.h clients/kctl_apply.c \
	clients/kctl_job.c clients/kctl_qos.c clients/kctl_show.c \
	clients/ytree.c clients/ytree.h
clients_kctl_SOURCES = $(KCTL_SOURCES)
clients_kctl_CPPFLAGS = $(CLIENT_CPPFLAGS) $(YAML_CFLAGS)
clients_kctl_LDADD = $(CLIENT_LIBS)
dist_man_MANS += doc/man/kctl.1

# Queue files: the scenario format's defaults, and errors at FILE:LINE:COL.
check_PROGRAMS += tests/unit/clients-kctl
tests_unit_clients_kctl_SOURCES = tests/unit/clients-kctl.c \
	clients/kctl_apply.c clients/ytree.c
tests_unit_clients_kctl_CPPFLAGS = $(CLIENT_CPPFLAGS) $(YAML_CFLAGS) \
	-I$(top_srcdir)/clients
tests_unit_clients_kctl_LDADD = tests/lib/libtap.a $(CLIENT_LIBS)
TESTS += tests/unit/clients-kctl
# End of the kctl block

# kshare: fair share from kaid's last pass, like sshare.
bin_PROGRAMS += clients/kshare
clients_kshare_SOURCES = clients/kshare.c
clients_kshare_CPPFLAGS = $(CLIENT_CPPFLAGS)
clients_kshare_LDADD = $(CLIENT_LIBS)
dist_man_MANS += doc/man/kshare.1
# End of the kshare block
