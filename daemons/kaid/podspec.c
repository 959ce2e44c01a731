/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * podspec.c: what a job's pod needs on a real node besides its command
 * and environment -- the shared filesystems, a memory-backed /dev/shm,
 * a name for the job's uid, and its partition's node pool.
 *
 * Filesystems (kaid.yaml filesystems:, or the partition's) are mounted at
 * the path users know them by, so the working directory and the output
 * files a job was submitted with exist in its pod (rpc_submit.c refuses
 * a job whose paths are elsewhere).
 *
 * /dev/shm: a container runtime gives 64 MiB, in which PyTorch's
 * DataLoader workers die with "bus error"; the pod gets an emptyDir of
 * medium Memory sized jobs.shm_percent of the task's memory (its pages
 * count against the pod's memory limit, as they would on a Slurm node).
 *
 * Identity: images know no user of the job's uid, so `id -un` and
 * `whoami` fail and some programs (ssh, getpass, Python's getpass.getuser
 * without USER) refuse to run.  The pod carries a passwd and a group file
 * made for its user (root, nobody and the user; the user's groups) as
 * two annotations, and a downwardAPI volume turns them into files
 * mounted read-only over /etc/passwd and /etc/group.  No extra object
 * per job (a ConfigMap would cost two more API calls per job) and no
 * special image; the price is about 300 bytes a pod.  Names come from
 * kaid's host, as the uid and groups already do.
 *
 * Helpers: with kubernetes.pod_helpers configmap the wrapper and shims
 * come from helpers.c's ConfigMap, mounted read-only at HELPERS_DIR.
 */
#include "config.h"

#include <grp.h>
#include <inttypes.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/xmalloc.h"
#include "dispatch.h"
#include "kaid.h"

#define NOBODY 65534
#define ANNOT_PASSWD "kaibatch.io/passwd"
#define ANNOT_GROUP  "kaibatch.io/group"
#define VOL_IDENTITY "kai-identity"
#define VOL_SHM	     "kai-shm"
#define VOL_HELPERS  "kai-helpers"
#define VOL_JOBKEY   "kai-jobkey"

/* A name fit for a passwd or group line: no ':', no control character. */
static bool
name_ok(const char *s)
{
	if (*s == '\0')
		return false;
	for (; *s != '\0'; s++)
		if (*s == ':' || (unsigned char)*s < 0x20 || *s == 0x7f)
			return false;
	return true;
}

char *
podspec_home(uint32_t uid)
{
	struct passwd pw, *res = NULL;
	char buf[4096];

	if (getpwuid_r(uid, &pw, buf, sizeof(buf), &res) == 0 && res != NULL &&
	    pw.pw_dir[0] == '/' && name_ok(pw.pw_dir))
		return kai_xstrdup(pw.pw_dir);
	return kai_xstrdup("/");
}

static char *
passwd_text(const struct kai_job *j)
{
	char *home = podspec_home(j->uid), *s;
	const char *user = name_ok(j->user) ? j->user : "kaiuser";

	s = kai_xasprintf("%s%s:x:%" PRIu32 ":%" PRIu32 "::%s:/bin/sh\n"
	    "nobody:x:%d:%d:nobody:/nonexistent:/usr/sbin/nologin\n",
	    j->uid != 0 ? "root:x:0:0:root:/root:/bin/sh\n" : "", user,
	    j->uid, j->gid, j->uid == 0 ? "/root" : home, NOBODY, NOBODY);
	free(home);
	return s;
}

/* Appends "name:x:gid:members" for gid when the host knows its name. */
static void
group_line(struct kai_buf *b, uint32_t gid, const char *members)
{
	struct group gr, *res = NULL;
	char buf[16384];

	if (gid == 0 || gid == NOBODY ||
	    getgrgid_r(gid, &gr, buf, sizeof(buf), &res) != 0 || res == NULL ||
	    !name_ok(gr.gr_name))
		return;
	/* 64 KiB holds the 256 groups getgrouplist() gives, many times. */
	KAI_ASSERT(kai_buf_addf(b, "%s:x:%" PRIu32 ":%s\n", gr.gr_name, gid,
	    members) == 0);
}

static char *
group_text(const struct kai_job *j, const uint32_t *groups, size_t ngroups)
{
	const char *user = name_ok(j->user) ? j->user : "kaiuser";
	struct kai_buf b;
	size_t i;

	kai_buf_init(&b, (size_t)64 * 1024);
	KAI_ASSERT(kai_buf_adds(&b, "root:x:0:\n") == 0);
	group_line(&b, j->gid, "");
	for (i = 0; i < ngroups; i++)
		if (groups[i] != j->gid)
			group_line(&b, groups[i], user);
	KAI_ASSERT(kai_buf_addf(&b, "nogroup:x:%d:\n", NOBODY) == 0);
	return kai_buf_detach(&b, NULL);
}

static struct kai_pod_volume *
add_vol(struct podextra *x, const char *name, enum kai_pod_vol_kind kind)
{
	struct kai_pod_volume *v = &x->vol[x->nvol++];

	memset(v, 0, sizeof(*v));
	v->name = name;
	v->kind = kind;
	return v;
}

static void
add_mount(struct podextra *x, const char *vol, const char *path,
    const char *sub, bool ro)
{
	struct kai_pod_mount *m = &x->mnt[x->nmnt++];

	m->volume = vol;
	m->mount_path = path;
	m->sub_path = sub;
	m->read_only = ro;
}

static void
add_filesystems(const struct kaid *k, const char *part, struct podextra *x)
{
	const struct kai_conf_fs *fs;
	struct kai_pod_volume *v;
	size_t i, n;

	fs = kai_conf_filesystems(k->conf, part, &n);
	x->fsnames = kai_xcalloc(n + 1, sizeof(*x->fsnames));
	for (i = 0; i < n; i++) {
		x->fsnames[i] = kai_xasprintf("kai-fs-%zu", i);
		if (fs[i].host_path != NULL) {
			v = add_vol(x, x->fsnames[i], KAI_VOL_HOSTPATH);
			v->path = fs[i].host_path;
		} else if (fs[i].pvc != NULL) {
			v = add_vol(x, x->fsnames[i], KAI_VOL_PVC);
			v->source = fs[i].pvc;
		} else {
			v = add_vol(x, x->fsnames[i], KAI_VOL_NFS);
			v->server = fs[i].nfs_server;
			v->path = fs[i].nfs_path;
		}
		v->read_only = fs[i].read_only;
		add_mount(x, x->fsnames[i], fs[i].path, NULL, fs[i].read_only);
	}
	x->nfs = n;
}

static void
add_pool(const struct kai_conf_partition *p, struct kai_pod_spec *ps,
    struct podextra *x)
{
	size_t i;

	if (p == NULL)
		return;
	ps->selector_kv = (const char *const *)p->node_selector;
	ps->nselector = p->nnode_selector;
	ps->pull_secrets = (const char *const *)p->pull_secrets;
	ps->npull_secrets = p->npull_secrets;
	x->tol = kai_xcalloc(p->ntolerations + 1, sizeof(*x->tol));
	for (i = 0; i < p->ntolerations; i++) {
		x->tol[i].key = p->tolerations[i].key;
		x->tol[i].op = p->tolerations[i].op;
		x->tol[i].value = p->tolerations[i].value;
		x->tol[i].effect = p->tolerations[i].effect;
	}
	ps->tolerations = x->tol;
	ps->ntolerations = p->ntolerations;
}

void
podspec_build(const struct kaid *k, const struct kai_job *j,
    const struct kai_jobspec *js, const uint32_t *groups, size_t ngroups,
    struct kai_pod_spec *ps, struct podextra *x)
{
	const struct kai_conf_partition *p = pools_partition(k, j->queue);
	const char *part = p != NULL ? p->name : j->queue;
	struct kai_pod_volume *v;
	size_t nfs;

	memset(x, 0, sizeof(*x));
	(void)kai_conf_filesystems(k->conf, part, &nfs);
	x->vol = kai_xcalloc(nfs + PODSPEC_VOLS_MORE, sizeof(*x->vol));
	x->mnt = kai_xcalloc(nfs + PODSPEC_VOLS_MORE + 1, sizeof(*x->mnt));
	add_filesystems(k, part, x);

	if (k->conf->shm_percent > 0 && j->mem_mb > 0) {
		v = add_vol(x, VOL_SHM, KAI_VOL_MEMORY);
		v->size_mb = j->mem_mb * (uint64_t)k->conf->shm_percent / 100;
		if (v->size_mb == 0)
			v->size_mb = 1;
		add_mount(x, VOL_SHM, "/dev/shm", NULL, false);
	}

	x->passwd = passwd_text(j);
	x->group = group_text(j, groups, ngroups);
	x->annot[0] = ANNOT_PASSWD;
	x->annot[1] = x->passwd;
	x->annot[2] = ANNOT_GROUP;
	x->annot[3] = x->group;
	x->items[0] = "passwd";
	x->items[1] = ANNOT_PASSWD;
	x->items[2] = "group";
	x->items[3] = ANNOT_GROUP;
	v = add_vol(x, VOL_IDENTITY, KAI_VOL_ANNOTATIONS);
	v->items = x->items;
	v->nitems = 2;
	add_mount(x, VOL_IDENTITY, "/etc/passwd", "passwd", true);
	add_mount(x, VOL_IDENTITY, "/etc/group", "group", true);

	if (k->conf->pod_helpers == KAI_CONF_HELPERS_CONFIGMAP) {
		v = add_vol(x, VOL_HELPERS, KAI_VOL_CONFIGMAP);
		v->source = helpers_configmap(k);
		v->mode = 0555;
		v->items = helpers_items(&v->nitems);
		add_mount(x, VOL_HELPERS, HELPERS_DIR, NULL, true);
	}

	/* The job key, readable by the job's group only: fsGroup makes
	 * the Secret's files root:gid, mode 0440 (doc/design/PROTOCOL.md). */
	if (jobauth_enabled(k)) {
		x->secret = jobauth_secret_name(j->id);
		v = add_vol(x, VOL_JOBKEY, KAI_VOL_SECRET);
		v->source = x->secret;
		v->mode = 0440;
		add_mount(x, VOL_JOBKEY, JOBAUTH_DIR, NULL, true);
		ps->fs_group = true;
	}

	ps->annot_kv = x->annot;
	ps->nannots = 2;
	ps->volumes = x->vol;
	ps->nvolumes = x->nvol;
	ps->mounts = x->mnt;
	ps->nmounts = x->nmnt;
	add_pool(p, ps, x);
	if (js->image == NULL && p != NULL && p->image != NULL)
		ps->image = p->image;
}

void
podspec_fini(struct podextra *x)
{
	size_t i;

	for (i = 0; i < x->nfs; i++)
		free(x->fsnames[i]);
	free(x->fsnames);
	free(x->vol);
	free(x->mnt);
	free(x->tol);
	free(x->passwd);
	free(x->group);
	free(x->secret);
	memset(x, 0, sizeof(*x));
}
