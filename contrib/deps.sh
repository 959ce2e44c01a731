#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
# deps.sh: installs the Debian packages kaibatch needs to build, test and
# run its quickstart, when any is missing.  Root runs apt-get itself; other
# users go through sudo.  containerd, runc, the CNI plugins, debootstrap,
# iproute2, etcd and python3-grpcio (the fake GPU device plugin) are for
# the real-API and node test tiers (contrib/k8s/: a real API server,
# kubelets and containers).

PKGS="build-essential autoconf automake pkg-config libpq-dev
libcurl4-openssl-dev libjson-c-dev libyaml-dev libmunge-dev libssl-dev munge
postgresql python3 python3-yaml openssl curl util-linux passwd procps
clang libclang-rt-14-dev shellcheck valgrind
containerd runc containernetworking-plugins debootstrap iproute2 etcd-server
python3-grpcio"

missing=
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
	    grep -q 'install ok installed' || missing="$missing $p"
done
[ -z "$missing" ] && exit 0

echo "deps.sh: installing:$missing"
if [ "$(id -u)" -eq 0 ]; then
	SUDO=
elif command -v sudo >/dev/null 2>&1; then
	SUDO=sudo
else
	echo "deps.sh: error: missing packages:$missing (run as root or install sudo)" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
# shellcheck disable=SC2086
$SUDO apt-get update -qq &&
    $SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null ||
    { echo "deps.sh: error: apt-get could not install:$missing" >&2; exit 1; }
# The munge package starts a system munged we do not use; the tests and the
# quickstart run their own.
exit 0
