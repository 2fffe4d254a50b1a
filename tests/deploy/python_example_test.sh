#!/usr/bin/env bash
# examples/python against standalone services: stubs from Debian's protoc and
# grpc_python_plugin, a Lease held by the principal its client token names, a query on
# loop://, a session that records it, and a watcher that sees every append.
source "$(dirname "$0")/lib.sh"
example="$(cd "$(dirname "$0")/../../examples/python" && pwd)"
"$example/generate_stubs.sh" "$work/stubs" || fail "stub generation"
start_service session labgate-session --data-dir "$work"
token="$(openssl rand -hex 24)"
echo "python-lab-script $token" >"$work/clients"
echo "$token" >"$work/lab-script.token"
start_service serial labgate-serial --client-token-file "$work/clients"
out="$(PYTHONPATH="$work/stubs" /usr/bin/python3 "$example/lab_script.py" \
  --serial "127.0.0.1:$serial_port" --session "127.0.0.1:$session_port" \
  --token-file "$work/lab-script.token" 2>&1)" ||
  fail "lab_script.py failed: $out"
echo "$out"
grep -q "^lease held by python-lab-script$" <<<"$out" || fail "no lease"
grep -q "^query 3: sent 'MEAS:VOLT? 3', got 'MEAS:VOLT? 3'$" <<<"$out" || fail "loop:// echo"
grep -q "^watched 6 messages$" <<<"$out" || fail "watcher"
grep -q "^session holds 6 messages$" <<<"$out" || fail "session"
echo "all passed"
