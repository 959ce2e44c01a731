#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
# build-images.sh: the two container images of the node test tier, made
# once on this machine (no registry, no Docker) and cached outside the
# checkout:
#
#   bookworm.oci.tar  localhost/kaitest/bookworm:minbase, the job image:
#                     `debootstrap --variant=minbase bookworm` from the
#                     mirror this machine already uses (sh, coreutils,
#                     mawk: what kaid's pod wrapper needs)
#   pause.oci.tar     localhost/kaitest/pause:1, the pod sandbox image:
#                     Kubernetes' own build/pause/linux/pause.c (kept by
#                     build-apiserver.sh in its cache), compiled static
#
# Both are OCI archives (contrib/k8s/oci-image.py) that each test's
# containerd loads with `ctr -n k8s.io images import`; pods name them
# with imagePullPolicy IfNotPresent.  When both are cached the script
# exits 0 at once.
#
# Environment:
#   KAI_IMAGE_CACHE  cache directory (default /var/cache/kaibatch/images-1)
#   KAI_K8S_CACHE    where build-apiserver.sh put pause.c (default
#                    /var/cache/kaibatch/kube-apiserver-1.20.2)
#
# Exit status: 0 when both archives are in the cache, 1 on any failure
# (one line on stderr says which step and why).

set -u
PROG=build-images.sh
CACHE=${KAI_IMAGE_CACHE:-/var/cache/kaibatch/images-1}
K8S=${KAI_K8S_CACHE:-/var/cache/kaibatch/kube-apiserver-1.20.2}
HERE=$(cd "$(dirname "$0")" && pwd)
JOB_IMAGE=localhost/kaitest/bookworm:minbase
PAUSE_IMAGE=localhost/kaitest/pause:1

say() { echo "$PROG: $*"; }
die() { echo "$PROG: error: $*" >&2; exit 1; }

if [ -s "$CACHE/bookworm.oci.tar" ] && [ -s "$CACHE/pause.oci.tar" ]; then
	say "cached: $CACHE"
	exit 0
fi
[ "$(id -u)" -eq 0 ] || die "must run as root (debootstrap makes device nodes and owners)"
command -v debootstrap >/dev/null 2>&1 || die "debootstrap not found (apt-get install debootstrap)"
command -v cc >/dev/null 2>&1 || die "no C compiler (cc) for pause.c"
[ -f "$K8S/pause.c" ] || die "no \"$K8S/pause.c\" (run contrib/k8s/build-apiserver.sh first)"
mkdir -p "$CACHE" 2>/dev/null && [ -w "$CACHE" ] ||
    die "cannot write to cache directory \"$CACHE\" (set KAI_IMAGE_CACHE)"
if command -v flock >/dev/null 2>&1 && [ "${KAI_IMAGES_LOCKED:-}" != 1 ]; then
	KAI_IMAGES_LOCKED=1 exec flock "$CACHE/.build.lock" "$0" "$@"
fi
if [ -s "$CACHE/bookworm.oci.tar" ] && [ -s "$CACHE/pause.oci.tar" ]; then
	say "cached (made by a concurrent run): $CACHE"
	exit 0
fi
WORK=$(mktemp -d /var/tmp/kaibatch-images.XXXXXX) || die "cannot create a work directory"
trap 'rm -rf "$WORK"' EXIT
trap 'exit 1' HUP INT TERM

# --- pause --------------------------------------------------------------------
if [ ! -s "$CACHE/pause.oci.tar" ]; then
	mkdir -p "$WORK/pause" || die "cannot create \"$WORK/pause\""
	cc -Os -static -Wall -DVERSION=kaitest -o "$WORK/pause/pause" "$K8S/pause.c" \
	    >"$WORK/cc.log" 2>&1 ||
	    die "cannot compile pause.c static: $(tail -n 1 "$WORK/cc.log")"
	strip "$WORK/pause/pause" 2>/dev/null
	"$HERE/oci-image.py" "$WORK/pause" "$PAUSE_IMAGE" "$CACHE/pause.oci.tar" /pause ||
	    die "cannot pack the pause image"
	say "made $CACHE/pause.oci.tar ($PAUSE_IMAGE)"
fi

# --- job image ----------------------------------------------------------------
if [ ! -s "$CACHE/bookworm.oci.tar" ]; then
	MIRROR=$(sed -n 's/^URIs:[[:space:]]*//p' /etc/apt/sources.list.d/*.sources \
	    2>/dev/null | grep -v security | head -n 1)
	if [ -z "$MIRROR" ]; then
		MIRROR=$(sed -n 's/^deb[[:space:]]\{1,\}\(\[[^]]*\][[:space:]]*\)\{0,1\}\([^[:space:]]*\)[[:space:]].*/\2/p' \
		    /etc/apt/sources.list 2>/dev/null | grep -v security | head -n 1)
	fi
	MIRROR=${MIRROR:-http://deb.debian.org/debian}
	say "debootstrap --variant=minbase bookworm from $MIRROR (2-4 min)"
	debootstrap --variant=minbase bookworm "$WORK/rootfs" "$MIRROR" \
	    >"$WORK/debootstrap.log" 2>&1 || {
		tail -n 5 "$WORK/debootstrap.log" >&2
		die "debootstrap failed (last lines above)"
	}
	# What an image needs not: package caches and lists.
	rm -rf "$WORK/rootfs/var/cache/apt/"*.bin "$WORK/rootfs/var/lib/apt/lists/"* \
	    "$WORK/rootfs/var/cache/apt/archives/"*.deb
	"$HERE/oci-image.py" "$WORK/rootfs" "$JOB_IMAGE" "$CACHE/bookworm.oci.tar" ||
	    die "cannot pack the job image"
	say "made $CACHE/bookworm.oci.tar ($JOB_IMAGE, $(du -h "$CACHE/bookworm.oci.tar" | cut -f1))"
fi
{
	echo "job image: $JOB_IMAGE (debootstrap --variant=minbase bookworm)"
	echo "pause image: $PAUSE_IMAGE (pause.c from $K8S)"
	echo "made: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
} >"$CACHE/VERSION"
exit 0
