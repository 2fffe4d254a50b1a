#!/usr/bin/env bash
# labgate-probe against real services: SERVING exits 0; a service the server does not
# know, a closed port and a failing URL exit 1 with the reason.
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
echo "all passed"
