#!/usr/bin/env bash
# labgate-probe against real services: SERVING exits 0; a service the server does not
# know, a closed port and a failing URL exit 1 with the reason. `token FILE` makes a gateway
# token once and keeps it after that.
source "$(dirname "$0")/lib.sh"
probe() { "$(bin labgate-probe)" --timeout-ms 2000 "$@"; }

start_service session labgate-session --data-dir "$work"
probe grpc "127.0.0.1:$session_port" || fail "probe of a serving session service"
probe grpc "127.0.0.1:$session_port" labgate.session.v1.SessionService || fail "named service"
pass "grpc SERVING exits 0"

status=0; out="$(probe grpc "127.0.0.1:$session_port" no.such.Service 2>&1)" || status=$?
[[ $status == 1 ]] && grep -q "not healthy" <<<"$out" || fail "unknown service: $status $out"
pass "unknown service exits 1 ($out)"

kill "$session_pid"; wait "$session_pid" || true
status=0; out="$(probe grpc "127.0.0.1:$session_port" 2>&1)" || status=$?
[[ $status == 1 ]] && grep -q "127.0.0.1:$session_port" <<<"$out" || fail "closed port: $status $out"
pass "closed port exits 1 ($out)"

"$(bin labgate)" --http 127.0.0.1:0 --http-port-file "$work/http.port" --data-dir "$work" \
  2>"$work/gateway-http.log" &
pids+=($!)
for _ in $(seq 1 100); do [[ -s "$work/http.port" ]] && break; sleep 0.1; done
http_port="$(cat "$work/http.port")"
probe http "http://127.0.0.1:$http_port/healthz" || fail "probe of /healthz"
probe http "http://127.0.0.1:$http_port/readyz" || fail "probe of /readyz"
pass "http 2xx exits 0"
status=0; out="$(probe http "http://127.0.0.1:$http_port/no-such-path" 2>&1)" || status=$?
[[ $status == 1 ]] && grep -q "HTTP 404" <<<"$out" || fail "404: $status $out"
pass "http 404 exits 1"

probe token "$work/gateway.token" 2>/dev/null || fail "token: first run"
first="$(cat "$work/gateway.token")"
[[ $first =~ ^[0-9a-f]{64}$ ]] || fail "token: 32 random bytes in hex, got '$first'"
[[ "$(stat -c %a "$work/gateway.token")" == 600 ]] || fail "token: mode 0600"
out="$(probe token "$work/gateway.token" 2>&1)" || fail "token: second run: $out"
[[ "$(cat "$work/gateway.token")" == "$first" ]] && grep -q "kept" <<<"$out" ||
  fail "token: a second run keeps the token ($out)"
probe token "$work/other.token" 2>/dev/null && [[ "$(cat "$work/other.token")" != "$first" ]] ||
  fail "token: another file gets another token"
: >"$work/empty.token"
status=0; out="$(probe token "$work/empty.token" 2>&1)" || status=$?
[[ $status == 1 ]] && grep -q "first line is empty" <<<"$out" || fail "empty token: $status $out"
status=0; out="$(probe token "$work/no-such-dir/gateway.token" 2>&1)" || status=$?
[[ $status == 1 ]] && grep -q "cannot create" <<<"$out" || fail "no directory: $status $out"
"$(bin labgate-serial)" --gateway-token-file "$work/gateway.token" --check-config >/dev/null ||
  fail "labgate-serial reads the token labgate-probe made"
pass "token: made once (64 hex digits, mode 0600), kept after, errors named"
echo "all passed"
