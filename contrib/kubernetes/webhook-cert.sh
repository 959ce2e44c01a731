#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
# webhook-cert.sh DIR [SAN...]: a private CA and a server certificate for
# kaid's admission webhook, with the openssl command-line tool.
#
# Writes DIR/ca.crt, DIR/ca.key (keep it offline: it can sign anything
# the apiserver will then trust for this webhook), DIR/webhook.crt and
# DIR/webhook.key (kaid.yaml: native.webhook_cert and native.webhook_key),
# and prints the caBundle line of contrib/kubernetes/webhook.yaml.  The
# certificate names each SAN given ("DNS:name" or "IP:address"); by
# default the Service of webhook.yaml, DNS:kaid-webhook.kaibatch.svc, the
# name the apiserver checks.  Keys are ECDSA P-256; the certificate is
# valid for 825 days.  Then, in the cluster:
#
#   kubectl -n kaibatch create secret tls kaid-webhook-tls \
#       --cert=DIR/webhook.crt --key=DIR/webhook.key
#
# Refuses to overwrite an existing DIR/ca.key.
set -eu

usage() {
	echo "usage: webhook-cert.sh DIR [DNS:name|IP:address ...]" >&2
	exit 2
}
[ $# -ge 1 ] || usage
dir=$1
shift
[ $# -gt 0 ] || set -- DNS:kaid-webhook.kaibatch.svc
for san in "$@"; do
	case $san in
	DNS:?*|IP:?*) ;;
	*) echo "webhook-cert.sh: error: invalid SAN \"$san\": expected DNS:name or IP:address" >&2
	   exit 2 ;;
	esac
done
command -v openssl >/dev/null 2>&1 || {
	echo "webhook-cert.sh: error: openssl not found" >&2
	exit 1
}
mkdir -p "$dir"
[ ! -e "$dir/ca.key" ] || {
	echo "webhook-cert.sh: error: $dir/ca.key exists: not overwritten" >&2
	exit 1
}
sans=$(printf '%s,' "$@")
sans=${sans%,}
umask 077
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
    -days 3650 -subj "/CN=kaibatch webhook CA" \
    -keyout "$dir/ca.key" -out "$dir/ca.crt" 2>/dev/null
openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
    -subj "/CN=kaid-webhook" \
    -keyout "$dir/webhook.key" -out "$dir/webhook.csr" 2>/dev/null
printf 'subjectAltName=%s\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n' \
    "$sans" >"$dir/webhook.ext"
openssl x509 -req -in "$dir/webhook.csr" -CA "$dir/ca.crt" -CAkey "$dir/ca.key" \
    -CAcreateserial -days 825 -extfile "$dir/webhook.ext" \
    -out "$dir/webhook.crt" 2>/dev/null
rm -f "$dir/webhook.csr" "$dir/webhook.ext" "$dir/ca.srl"
chmod 644 "$dir/ca.crt" "$dir/webhook.crt"
printf '      caBundle: %s\n' "$(base64 -w0 <"$dir/ca.crt")"
