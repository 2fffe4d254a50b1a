#!/usr/bin/env bash
# Mutual TLS between labgate's processes, with certificates openssl makes now: a client
# with a certificate the service's client CA signed is served; one without a client
# certificate, and a plaintext one, are refused.
source "$(dirname "$0")/lib.sh"
cd "$work"
openssl_quiet() { openssl "$@" 2>/dev/null; }
openssl_quiet req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=labgate-test-ca \
  -keyout ca.key -out ca.pem
make_cert() {  # make_cert NAME: a certificate for 127.0.0.1/localhost, signed by ca.pem
  openssl_quiet req -newkey rsa:2048 -nodes -subj "/CN=$1" -keyout "$1.key" -out "$1.csr"
  printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth,clientAuth\n' >"$1.ext"
  openssl_quiet x509 -req -in "$1.csr" -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 \
    -extfile "$1.ext" -out "$1.pem"
}
make_cert session
make_cert gateway
[[ -s session.pem && -s gateway.pem ]] || fail "openssl made no certificates"

start_service session labgate-session --data-dir "$work" --tls-cert session.pem \
  --tls-key session.key --tls-client-ca ca.pem
addr="127.0.0.1:$session_port"
probe() { "$(bin labgate-probe)" --timeout-ms 2000 grpc "$addr" "$@"; }

probe --tls-ca ca.pem --tls-cert gateway.pem --tls-key gateway.key || fail "probe with client cert"
pass "probe with a client certificate: SERVING"
if probe --tls-ca ca.pem 2>/dev/null; then fail "probe without client cert was served"; fi
pass "probe without a client certificate: refused"
if probe 2>/dev/null; then fail "plaintext probe was served"; fi
pass "plaintext probe: refused"

reply="$(mcp_round_trip --session-addr "$addr" --tls-ca ca.pem --tls-cert gateway.pem --tls-key gateway.key)"
grep -q '"result"' <<<"$reply" && ! grep -q '"isError":true' <<<"$reply" ||
  fail "gateway with client certificate: $reply"
pass "gateway with a client certificate lists sessions"

reply="$(mcp_round_trip --session-addr "$addr" --tls-ca ca.pem)"
grep -q '"isError":true' <<<"$reply" || fail "gateway without client certificate: $reply"
pass "gateway without a client certificate: refused ($reply)"

reply="$(mcp_round_trip --session-addr "$addr")"
grep -q '"isError":true' <<<"$reply" || fail "plaintext gateway: $reply"
pass "plaintext gateway: refused"
echo "all passed"
