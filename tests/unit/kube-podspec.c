/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * kube-podspec: the parts of kaid's Pod object that make a job work on a
 * real node: volumes and mounts (shared filesystems, /dev/shm, the passwd
 * and group files), the partition's node pool, the termination message
 * policy, and every rule of the "restricted" Pod Security Standard, each
 * checked on its own.
 */
#include "config.h"

#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#include "kube/kube.h"
#include "kube/kube_int.h"
#include "tap.h"

/* o at the dotted path ("spec.securityContext"); arrays by "[i]". */
static struct json_object *
at(struct json_object *o, const char *path)
{
	char buf[256], *p, *save = NULL;

	(void)snprintf(buf, sizeof(buf), "%s", path);
	for (p = strtok_r(buf, ".", &save); o != NULL && p != NULL;
	     p = strtok_r(NULL, ".", &save)) {
		char *br = strchr(p, '[');
		struct json_object *v = NULL;

		if (br != NULL)
			*br = '\0';
		if (!json_object_object_get_ex(o, p, &v))
			return NULL;
		o = v;
		if (br != NULL) {
			if (!json_object_is_type(o, json_type_array))
				return NULL;
			o = json_object_array_get_idx(o,
			    (size_t)strtoul(br + 1, NULL, 10));
		}
	}
	return o;
}

static const char *
str_at(struct json_object *o, const char *path)
{
	struct json_object *v = at(o, path);

	return v != NULL && json_object_is_type(v, json_type_string) ?
	    json_object_get_string(v) : "(none)";
}

static bool
true_at(struct json_object *o, const char *path)
{
	struct json_object *v = at(o, path);

	return v != NULL && json_object_is_type(v, json_type_boolean) &&
	    json_object_get_boolean(v);
}

static bool
false_at(struct json_object *o, const char *path)
{
	struct json_object *v = at(o, path);

	return v != NULL && json_object_is_type(v, json_type_boolean) &&
	    !json_object_get_boolean(v);
}

/* The volume or mount whose key equals name, or NULL. */
static struct json_object *
find(struct json_object *o, const char *list, const char *key,
    const char *name)
{
	struct json_object *a = at(o, list), *e;
	size_t i;

	for (i = 0; a != NULL && i < json_object_array_length(a); i++) {
		e = json_object_array_get_idx(a, i);
		if (strcmp(str_at(e, key), name) == 0)
			return e;
	}
	return NULL;
}

static const char *const ident_items[] = {"passwd", "kaibatch.io/passwd",
    "group", "kaibatch.io/group"};
static const char *const annots[] = {"kaibatch.io/passwd",
    "root:x:0:0:root:/root:/bin/sh\n", "kaibatch.io/group", "root:x:0:\n"};
static const char *const selector[] = {"pool", "gpu"};
static const char *const secrets[] = {"regcred"};

static struct json_object *
build(bool pool)
{
	static const struct kai_pod_volume vols[] = {
	    {.name = "kai-fs-0", .kind = KAI_VOL_HOSTPATH, .path = "/srv/home"},
	    {.name = "kai-fs-1", .kind = KAI_VOL_PVC, .source = "scratch",
		.read_only = true},
	    {.name = "kai-fs-2", .kind = KAI_VOL_NFS, .server = "nfs1",
		.path = "/export"},
	    {.name = "kai-shm", .kind = KAI_VOL_MEMORY, .size_mb = 2048},
	    {.name = "kai-identity", .kind = KAI_VOL_ANNOTATIONS,
		.items = ident_items, .nitems = 2},
	    {.name = "kai-shims", .kind = KAI_VOL_CONFIGMAP,
		.source = "kaibatch-shims", .mode = 0555},
	};
	static const struct kai_pod_mount mnts[] = {
	    {"kai-fs-0", "/home", NULL, false},
	    {"kai-fs-1", "/scratch", NULL, true},
	    {"kai-shm", "/dev/shm", NULL, false},
	    {"kai-identity", "/etc/passwd", "passwd", true},
	};
	static const struct kai_pod_toleration tols[] = {
	    {"dedicated", "Equal", "gpu", "NoSchedule"},
	    {"", "Exists", "", ""},
	};
	struct kai_pod_spec s = {
	    .name = "kai-7-0", .image = "img", .run_as_uid = 1001,
	    .run_as_gid = 1001, .run_as_non_root = true, .mem_mb = 4096,
	    .annot_kv = annots, .nannots = 2,
	    .volumes = vols, .nvolumes = KAI_NELEM(vols),
	    .mounts = mnts, .nmounts = KAI_NELEM(mnts),
	};
	struct json_object *o;
	char *text;

	if (pool) {
		s.selector_kv = selector;
		s.nselector = 1;
		s.tolerations = tols;
		s.ntolerations = KAI_NELEM(tols);
		s.pull_secrets = secrets;
		s.npull_secrets = 1;
	}
	text = kai_kube_pod_json(&s, "ns");
	o = json_tokener_parse(text);
	free(text);
	return o;
}

/*
 * The restricted profile (Kubernetes' Pod Security Standards), each rule
 * as the admission plugin checks it, on the pod's one container.
 */
static void
test_restricted(struct json_object *p)
{
	const char *c = "spec.containers[0].securityContext";
	struct json_object *drop, *v;
	char path[128];

	(void)snprintf(path, sizeof(path), "%s.allowPrivilegeEscalation", c);
	ok(false_at(p, path), "restricted: allowPrivilegeEscalation false");
	(void)snprintf(path, sizeof(path), "%s.capabilities.drop", c);
	drop = at(p, path);
	ok(drop != NULL && json_object_array_length(drop) == 1 &&
		strcmp(json_object_get_string(json_object_array_get_idx(drop,
		    0)), "ALL") == 0,
	    "restricted: capabilities drop ALL");
	(void)snprintf(path, sizeof(path), "%s.capabilities.add", c);
	ok(at(p, path) == NULL, "restricted: no capability added");
	is_str(str_at(p, "spec.securityContext.seccompProfile.type"),
	    "RuntimeDefault", "restricted: seccompProfile RuntimeDefault");
	ok(true_at(p, "spec.securityContext.runAsNonRoot"),
	    "restricted: runAsNonRoot true");
	v = at(p, "spec.securityContext.runAsUser");
	ok(v != NULL && json_object_get_int64(v) != 0,
	    "restricted: runAsUser is not 0");
	(void)snprintf(path, sizeof(path), "%s.privileged", c);
	ok(at(p, path) == NULL && at(p, "spec.hostNetwork") == NULL &&
		at(p, "spec.hostPID") == NULL && at(p, "spec.hostIPC") == NULL,
	    "baseline: not privileged, no host namespaces");
}

static void
test_volumes(struct json_object *p)
{
	struct json_object *v, *m;

	v = find(p, "spec.volumes", "name", "kai-fs-0");
	is_str(str_at(v, "hostPath.path"), "/srv/home", "hostPath volume");
	is_str(str_at(v, "hostPath.type"), "Directory",
	    "a hostPath must be a directory that exists");
	v = find(p, "spec.volumes", "name", "kai-fs-1");
	is_str(str_at(v, "persistentVolumeClaim.claimName"), "scratch",
	    "pvc volume");
	ok(true_at(v, "persistentVolumeClaim.readOnly"), "read-only claim");
	v = find(p, "spec.volumes", "name", "kai-fs-2");
	ok(strcmp(str_at(v, "nfs.server"), "nfs1") == 0 &&
		strcmp(str_at(v, "nfs.path"), "/export") == 0, "nfs volume");
	v = find(p, "spec.volumes", "name", "kai-shm");
	ok(strcmp(str_at(v, "emptyDir.medium"), "Memory") == 0 &&
		strcmp(str_at(v, "emptyDir.sizeLimit"), "2048Mi") == 0,
	    "/dev/shm: memory-backed, sized");
	v = find(p, "spec.volumes", "name", "kai-identity");
	is_str(str_at(v, "downwardAPI.items[0].fieldRef.fieldPath"),
	    "metadata.annotations['kaibatch.io/passwd']",
	    "passwd from the pod's annotation");
	is_str(str_at(v, "downwardAPI.items[1].path"), "group", "and group");
	v = find(p, "spec.volumes", "name", "kai-shims");
	ok(strcmp(str_at(v, "configMap.name"), "kaibatch-shims") == 0 &&
		json_object_get_int(at(v, "configMap.defaultMode")) == 0555,
	    "a ConfigMap volume, executable");
	m = find(p, "spec.containers[0].volumeMounts", "mountPath", "/home");
	ok(m != NULL && strcmp(str_at(m, "name"), "kai-fs-0") == 0 &&
		at(m, "readOnly") == NULL, "a filesystem at its path");
	m = find(p, "spec.containers[0].volumeMounts", "mountPath",
	    "/scratch");
	ok(true_at(m, "readOnly"), "a read-only one read-only");
	m = find(p, "spec.containers[0].volumeMounts", "mountPath",
	    "/etc/passwd");
	ok(strcmp(str_at(m, "subPath"), "passwd") == 0 &&
		true_at(m, "readOnly"), "/etc/passwd: one file, read-only");
	v = at(p, "metadata.annotations");
	ok(v != NULL && json_object_object_get_ex(v, "kaibatch.io/passwd",
	    NULL), "the passwd text is an annotation");
}

static void
test_pool(void)
{
	struct json_object *p = build(true), *t;

	is_str(str_at(p, "spec.nodeSelector.pool"), "gpu", "nodeSelector");
	t = at(p, "spec.tolerations");
	ok(t != NULL && json_object_array_length(t) == 2, "two tolerations");
	ok(strcmp(str_at(p, "spec.tolerations[0].key"), "dedicated") == 0 &&
		strcmp(str_at(p, "spec.tolerations[0].operator"), "Equal") ==
		0 &&
		strcmp(str_at(p, "spec.tolerations[0].value"), "gpu") == 0 &&
		strcmp(str_at(p, "spec.tolerations[0].effect"), "NoSchedule") ==
		0, "a toleration as written");
	ok(at(p, "spec.tolerations[1].key") == NULL &&
		at(p, "spec.tolerations[1].effect") == NULL &&
		strcmp(str_at(p, "spec.tolerations[1].operator"), "Exists") ==
		0, "unset fields are left out (Exists: every taint)");
	is_str(str_at(p, "spec.imagePullSecrets[0].name"), "regcred",
	    "imagePullSecrets");
	json_object_put(p);
	p = build(false);
	ok(at(p, "spec.nodeSelector") == NULL &&
		at(p, "spec.tolerations") == NULL &&
		at(p, "spec.imagePullSecrets") == NULL,
	    "no pool: no selector, tolerations or secrets");
	json_object_put(p);
}

int
main(void)
{
	struct json_object *p = build(false);

	ok(p != NULL, "the pod JSON parses");
	is_str(str_at(p, "spec.containers[0].terminationMessagePolicy"),
	    "FallbackToLogsOnError",
	    "a failed container's log becomes its termination message");
	test_restricted(p);
	test_volumes(p);
	json_object_put(p);
	test_pool();
	return done_testing();
}
