#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
# build-apiserver.sh: builds a real kube-apiserver, kubelet and
# kube-controller-manager (v1.20.2) from Debian bookworm's "kubernetes"
# source package, once, into a cache directory outside the checkout, for
# kaibatch's "real API" and "node" test tiers.  Debian only packages
# kubectl from that source, but the tree (vendor/ included) builds the
# three commands offline.  The tree's pause.c (the pod sandbox's process)
# is kept beside them: the node tier compiles it into its pause image.  See
# ../../../shared/reference/k8s-apiserver-notes.md for why each step is
# here; in short:
#   - the source comes from apt through a private, temporary apt
#     configuration (a deb-src list, its own lists directory), so nothing
#     under /etc/apt or /var/lib/apt/lists is changed, and it is all
#     removed on exit, failed or not;
#   - Kubernetes 1.20 builds in GOPATH mode (GO111MODULE=off), with the
#     repo's own "make WHAT=cmd/kube-apiserver" (it generates the openapi
#     code a plain "go build" lacks);
#   - the vendored github.com/modern-go/reflect2 1.0.1 crashes under
#     Go >= 1.18 on the first JSON write, so it is replaced by Debian's
#     1.0.2 (golang-github-modern-go-reflect2-dev) before the build.
# The build tree (~3.5 GB with the Go cache) is deleted afterwards; only
# the binaries, pause.c and a VERSION file stay in the cache.  When they
# are already there the script exits 0 at once.  Two runs at once (two
# engineers, two CI jobs) take turns on a lock in the cache directory:
# the second finds the first one's binaries.
#
# Environment:
#   KAI_K8S_CACHE       cache directory (default
#                       /var/cache/kaibatch/kube-apiserver-1.20.2)
#   KAI_K8S_BUILD_DIR   where to build (default: a new directory under
#                       /var/tmp), removed at the end
#   KAI_K8S_KEEP_BUILD  1 keeps the build directory (for debugging)
#
# Exit status: 0 when the binary is in the cache, 1 on any failure (one
# line on stderr says which step and why).

set -u

K8S_UPSTREAM=1.20.2
K8S_DEBVER_GLOB='1.20.5+really1.20.2-*'
CACHE=${KAI_K8S_CACHE:-/var/cache/kaibatch/kube-apiserver-$K8S_UPSTREAM}
BIN=$CACHE/kube-apiserver
CMDS="kube-apiserver kubelet kube-controller-manager"
PROG=build-apiserver.sh

say() { echo "$PROG: $*"; }
die() { echo "$PROG: error: $*" >&2; exit 1; }

cached() {
	for c in $CMDS; do
		[ -x "$CACHE/$c" ] && "$CACHE/$c" --version >/dev/null 2>&1 || return 1
	done
	[ -f "$CACHE/pause.c" ]
}
if cached; then
	say "cached: $CACHE ($("$BIN" --version 2>/dev/null))"
	exit 0
fi

[ "$(id -u)" -eq 0 ] || die "must run as root (it installs Debian packages with apt-get)"
command -v apt-get >/dev/null 2>&1 || die "apt-get not found: this script needs Debian (bookworm)"

# Fail now, not after the build, if the cache cannot be made.
mkdir -p "$CACHE" 2>/dev/null && [ -w "$CACHE" ] ||
    die "cannot write to cache directory \"$CACHE\" (set KAI_K8S_CACHE)"
# One build at a time; whoever waited finds the binaries cached.
if command -v flock >/dev/null 2>&1 && [ "${KAI_K8S_LOCKED:-}" != 1 ]; then
	KAI_K8S_LOCKED=1 exec flock "$CACHE/.build.lock" "$0" "$@"
fi
if cached; then
	say "cached (built by a concurrent run): $CACHE"
	exit 0
fi
START=$(date +%s)
if [ -n "${KAI_K8S_BUILD_DIR:-}" ]; then
	WORK=$KAI_K8S_BUILD_DIR
	mkdir -p "$WORK" || die "cannot create build directory \"$WORK\""
else
	mkdir -p /var/tmp || die "cannot create /var/tmp"
	WORK=$(mktemp -d /var/tmp/kaibatch-k8s-build.XXXXXX) ||
	    die "cannot create a build directory under /var/tmp"
fi
APTDIR=$WORK/apt

cleanup() {
	rc=$?
	rm -rf "$APTDIR"
	if [ "${KAI_K8S_KEEP_BUILD:-0}" = 1 ]; then
		say "build directory kept: $WORK"
	else
		# Go's module cache files are read-only; make them removable.
		chmod -R u+w "$WORK" 2>/dev/null
		rm -rf "$WORK"
	fi
	exit $rc
}
trap cleanup EXIT
trap 'exit 1' HUP INT TERM

# --- 1. build dependencies from Debian --------------------------------------
PKGS="golang-1.19-go golang-github-modern-go-reflect2-dev etcd-server
etcd-client make rsync dpkg-dev ca-certificates openssl curl"
missing=
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
	    grep -q 'install ok installed' || missing="$missing $p"
done
export DEBIAN_FRONTEND=noninteractive
if [ -n "$missing" ]; then
	say "installing:$missing"
	apt-get update -qq >/dev/null 2>"$WORK/apt.log" ||
	    die "apt-get update failed: $(tail -n 1 "$WORK/apt.log")"
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $missing \
	    >"$WORK/apt.log" 2>&1 ||
	    die "apt-get could not install:$missing: $(tail -n 1 "$WORK/apt.log")"
fi
GO=/usr/lib/go-1.19/bin/go
[ -x "$GO" ] || die "\"$GO\" not found after installing golang-1.19-go"
REFLECT2=/usr/share/gocode/src/github.com/modern-go/reflect2
[ -f "$REFLECT2/reflect2.go" ] ||
    die "\"$REFLECT2\" not found after installing golang-github-modern-go-reflect2-dev"

# --- 2. the source, through a private apt configuration ----------------------
# The mirror is the one this machine already uses for bookworm.
MIRROR=$(sed -n 's/^URIs:[[:space:]]*//p' /etc/apt/sources.list.d/*.sources \
    2>/dev/null | grep -v security | head -n 1)
if [ -z "$MIRROR" ]; then
	MIRROR=$(sed -n 's/^deb[[:space:]]\{1,\}\(\[[^]]*\][[:space:]]*\)\{0,1\}\([^[:space:]]*\)[[:space:]].*/\2/p' \
	    /etc/apt/sources.list 2>/dev/null | grep -v security | head -n 1)
fi
MIRROR=${MIRROR:-http://deb.debian.org/debian}
mkdir -p "$APTDIR/lists/partial" "$APTDIR/cache/archives/partial" "$WORK/src" ||
    die "cannot create \"$APTDIR\""
echo "deb-src $MIRROR bookworm main" >"$APTDIR/sources.list"
set -- -o Dir::Etc::SourceList="$APTDIR/sources.list" \
    -o Dir::Etc::SourceParts=/nonexistent \
    -o Dir::State::Lists="$APTDIR/lists" \
    -o Dir::Cache="$APTDIR/cache" \
    -o APT::Sandbox::User=root \
    -o Debug::NoLocking=1
say "fetching the source index (deb-src $MIRROR bookworm, private apt lists)"
apt-get "$@" update -qq >"$WORK/apt.log" 2>&1 ||
    die "apt-get update for deb-src failed: $(tail -n 1 "$WORK/apt.log")"
DEBVER=$(apt-cache "$@" showsrc kubernetes 2>/dev/null |
    sed -n 's/^Version: //p' | sort -V | tail -n 1)
[ -n "$DEBVER" ] || die "no source package \"kubernetes\" in bookworm at $MIRROR"
# shellcheck disable=SC2254
case $DEBVER in
$K8S_DEBVER_GLOB) ;;
*) die "source package kubernetes is $DEBVER, expected upstream $K8S_UPSTREAM ($K8S_DEBVER_GLOB)" ;;
esac
say "downloading kubernetes $DEBVER source (34 MB)"
(cd "$WORK/src" && apt-get "$@" source -qq "kubernetes=$DEBVER") \
    >"$WORK/apt.log" 2>&1 ||
    die "apt-get source kubernetes=$DEBVER failed: $(tail -n 1 "$WORK/apt.log")"
rm -rf "$APTDIR"
TREE=$(find "$WORK/src" -mindepth 1 -maxdepth 1 -type d -name 'kubernetes-*' | head -n 1)
[ -n "$TREE" ] && [ -d "$TREE/cmd/kube-apiserver" ] ||
    die "unpacked source has no cmd/kube-apiserver (under \"$WORK/src\")"

# --- 3. GOPATH layout and the reflect2 swap ----------------------------------
GOPATH=$WORK/gopath
mkdir -p "$GOPATH/src/k8s.io" || die "cannot create \"$GOPATH\""
mv "$TREE" "$GOPATH/src/k8s.io/kubernetes" || die "cannot move the tree into GOPATH"
K=$GOPATH/src/k8s.io/kubernetes
V=$K/vendor/github.com/modern-go/reflect2
[ -d "$V" ] || die "\"$V\" missing from the source tree"
rsync -a --delete --exclude '*_test.go' "$REFLECT2/" "$V/" ||
    die "could not replace vendored reflect2 with Debian's 1.0.2"
say "vendored modern-go/reflect2 replaced by Debian's 1.0.2"

# --- 4. build ---------------------------------------------------------------
export GOPATH GO111MODULE=off GOFLAGS='' GOPROXY=off GOTOOLCHAIN=local
export GOCACHE=$WORK/gocache CGO_ENABLED=0
export PATH=/usr/lib/go-1.19/bin:$PATH
# No .git in a source package: stamp the version the way a release does.
export KUBE_GIT_VERSION=v$K8S_UPSTREAM KUBE_GIT_TREE_STATE=clean
export KUBE_GIT_COMMIT=faecb196815e248d3ecfb03c680a4507229c2a56
export KUBE_GIT_MAJOR=1 KUBE_GIT_MINOR=20
WHAT=
for c in $CMDS; do WHAT="$WHAT cmd/$c"; done
WHAT=${WHAT# }
say "building $WHAT with $($GO version | cut -d' ' -f3) (about 6-12 min on 2 cores)"
(cd "$K" && make WHAT="$WHAT" \
    >"$WORK/make.log" 2>&1) || {
	tail -n 20 "$WORK/make.log" >&2
	die "make WHAT=\"$WHAT\" failed (last lines above)"
}

# --- 5. install into the cache ----------------------------------------------
mkdir -p "$CACHE" || die "cannot create cache directory \"$CACHE\""
for c in $CMDS; do
	OUT=$(find "$K/_output" -type f -name "$c" -perm -u+x | head -n 1)
	[ -n "$OUT" ] || die "make succeeded but no $c binary under _output"
	"$OUT" --version >/dev/null 2>&1 || die "the built $c does not run"
	cp "$OUT" "$CACHE/$c.tmp" && mv "$CACHE/$c.tmp" "$CACHE/$c" ||
	    die "cannot install $c into \"$CACHE\""
done
cp "$K/build/pause/linux/pause.c" "$CACHE/pause.c.tmp" &&
    mv "$CACHE/pause.c.tmp" "$CACHE/pause.c" ||
    die "cannot copy build/pause/linux/pause.c into \"$CACHE\""
{
	echo "kube-apiserver $("$BIN" --version | cut -d' ' -f2)"
	echo "commands: $CMDS"
	echo "source: Debian kubernetes $DEBVER"
	echo "go: $($GO version | cut -d' ' -f3)"
	echo "built: $(date -u +%Y-%m-%dT%H:%M:%SZ) in $(( $(date +%s) - START )) s"
} >"$CACHE/VERSION"
say "built $CMDS in $CACHE ($(du -sh "$CACHE" | cut -f1)) in $(( $(date +%s) - START )) s"
exit 0
