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

# A slow link: every byte from the service arrives 400 ms late, so the TLS handshake alone
# takes longer than that. The gateway must give a connection attempt the time it needs.
python3 "$(dirname "$0")/slow_link.py" "$session_port" 0.4 "$work/slow.port" 2>"$work/slow_link.log" &
pids+=($!)
for _ in $(seq 1 100); do [[ -s "$work/slow.port" ]] && break; sleep 0.1; done
[[ -s "$work/slow.port" ]] || fail "the slow link never wrote its port"
reply="$(mcp_round_trip --session-addr "127.0.0.1:$(cat "$work/slow.port")" \
  --tls-ca ca.pem --tls-cert gateway.pem --tls-key gateway.key)"
grep -q '"result"' <<<"$reply" && ! grep -q '"isError":true' <<<"$reply" ||
  fail "gateway over a slow link: $reply"
pass "gateway over a slow link (400 ms each way back) lists sessions"

reply="$(mcp_round_trip --session-addr "$addr" --tls-ca ca.pem)"
grep -q '"isError":true' <<<"$reply" || fail "gateway without client certificate: $reply"
pass "gateway without a client certificate: refused ($reply)"

reply="$(mcp_round_trip --session-addr "$addr")"
grep -q '"isError":true' <<<"$reply" || fail "plaintext gateway: $reply"
pass "plaintext gateway: refused"

# labgate-serial is a TLS client too: it records a bound port's I/O into the mTLS session
# service with its own certificate (--tls-ca, --tls-cert, --tls-key), and serves TLS itself.
make_cert serial
start_service serial labgate-serial --session-addr "$addr" --tls-ca ca.pem \
  --tls-cert serial.pem --tls-key serial.key --tls-client-ca ca.pem --trusted-gateway gateway
LABGATE_TLS_SESSION="$addr" LABGATE_TLS_SERIAL="127.0.0.1:$serial_port" LABGATE_TLS_DIR="$work" \
  LABGATE_DEPLOY_DIR="$(dirname "$0")" python3 - <<'PY' || fail "serial records over mutual TLS"
import os, sys, time
sys.path.insert(0, os.environ["LABGATE_DEPLOY_DIR"])
from mcp_stdio import StdioGateway
tls = os.environ["LABGATE_TLS_DIR"]
gateway = StdioGateway(
    [os.path.join(os.environ["LABGATE_BIN_DIR"], "labgate"), "--call-timeout-ms", "3000",
     "--session-addr", os.environ["LABGATE_TLS_SESSION"],
     "--serial-addr", os.environ["LABGATE_TLS_SERIAL"],
     "--tls-ca", f"{tls}/ca.pem", "--tls-cert", f"{tls}/gateway.pem", "--tls-key", f"{tls}/gateway.key"],
    os.path.join(tls, "recording-gateway.log"))
try:
    ok, created = gateway.call_tool("create_session", {"device_id": "tls-psu"})
    assert ok, created
    session_id = created["session"]["id"]
    ok, opened = gateway.call_tool("open_port", {"port_name": "loop://tls", "baud_rate": 9600,
                                                 "session_id": session_id})
    assert ok, opened
    ok, wrote = gateway.call_tool("write", {"port_name": "loop://tls", "data": "VOLT 5"})
    assert ok, wrote
    deadline = time.monotonic() + 10
    contents = []
    while time.monotonic() < deadline and "VOLT 5" not in contents:
        ok, listed = gateway.call_tool("list_messages", {"session_id": session_id})
        assert ok, listed
        contents = [m["content"] for m in listed["messages"]]
        time.sleep(0.1)
    assert "VOLT 5" in contents, f"recorded over TLS: {contents}"
finally:
    gateway.close()
PY
pass "labgate-serial records into the mutual-TLS session service with its client certificate"
echo "all passed"
