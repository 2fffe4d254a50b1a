#!/usr/bin/env bash
# Every binary: --help prints a usage line and hyphenated flags; --check-config accepts
# a good command line (exit 0, printing what it would serve) and names what is wrong
# with a bad one (exit 2).
source "$(dirname "$0")/lib.sh"

for binary in labgate labgate-session labgate-serial labgate-actions labgate-probe labgate-reserve; do
  help="$("$(bin "$binary")" --help)" || fail "$binary --help exited non-zero"
  grep -q "^usage: $binary" <<<"$help" || fail "$binary --help has no usage line"
  grep -q -- "--check-config" <<<"$help" || fail "$binary --help lists no --check-config"
  if grep -E -- "--[a-z0-9]+_[a-z0-9_]*" <<<"$help"; then fail "$binary --help shows underscores"; fi
  if grep -E -- "--(flagfile|helpfull|undefok)" <<<"$help"; then fail "$binary --help lists absl flags"; fi
  pass "$binary --help"
done
"$(bin labgate)" --help | grep -q -- "--session-addr" || fail "labgate --help lacks --session-addr"
"$(bin labgate-session)" --help | grep -q -- "--tls-client-ca" || fail "session lacks --tls-client-ca"
"$(bin labgate)" --help | grep -q -- "--tls-ca" || fail "labgate lacks --tls-ca"
if "$(bin labgate)" --help | grep -q -- "--tls-client-ca"; then fail "labgate lists --tls-client-ca"; fi

expect_ok() {  # expect_ok WANTED_TEXT BINARY ARGS...
  local want="$1"; shift
  local out
  out="$("$(bin "$1")" "${@:2}" --check-config 2>&1)" || fail "$* --check-config failed: $out"
  grep -q "configuration OK" <<<"$out" || fail "$*: no 'configuration OK' in: $out"
  grep -q -- "$want" <<<"$out" || fail "$*: '$want' not in: $out"
  pass "$* --check-config"
}
expect_bad() {  # expect_bad WANTED_TEXT BINARY ARGS...
  local want="$1"; shift
  local out status=0
  out="$("$(bin "$1")" "${@:2}" --check-config 2>&1)" || status=$?
  [[ $status == 2 ]] || fail "$* --check-config exited $status, want 2: $out"
  grep -q -- "$want" <<<"$out" || fail "$*: '$want' not in: $out"
  pass "$* --check-config refused ($want)"
}

expect_ok "gRPC on 0.0.0.0:50052, plaintext" labgate-session --listen 0.0.0.0:50052 --data-dir "$work"
expect_ok "sessions.db in $work" labgate-session --data-dir "$work"
expect_ok "gRPC on 0.0.0.0:50051" labgate-serial --listen 0.0.0.0:50051
expect_ok "callers: all anonymous; no gateway may name an owner" labgate-serial
expect_ok "warning: neither a gateway token nor a client certificate" labgate \
  --serial-addr serial:50051
expect_ok "action contracts from the built-in set" labgate-actions --listen 0.0.0.0:50053
expect_ok "session service at session:50052" labgate --session-addr session:50052 \
  --serial-addr serial:50051 --actions-addr actions:50053
expect_ok "bench bench2: serial service at lab2:50051" labgate --serial-addr bench1=lab1:50051 \
  --serial-addr=bench2=lab2:50051
expect_ok "bench (unnamed): serial service at lab0:50051" labgate --serial-addr lab0:50051 \
  --serial-addr bench1=lab1:50051
expect_ok "MCP over HTTP on 0.0.0.0:8080" labgate --http 0.0.0.0:8080 --data-dir "$work"
expect_ok "would check grpc session:50052" labgate-probe grpc session:50052
expect_ok "would check http http://127.0.0.1:8080/readyz" labgate-probe http http://127.0.0.1:8080/readyz
expect_ok "would make a token in /secrets/gateway.token" labgate-probe token /secrets/gateway.token

expect_bad "--listen: bad HOST:PORT 'nowhere:70000'" labgate-session --listen nowhere:70000
expect_bad "--listen: want HOST:PORT" labgate-serial --listen 50051
expect_bad "--log-level must be" labgate-actions --log-level loud
expect_bad "--query-spin-us must not be negative" labgate-serial --query-spin-us -1
expect_bad "--query-spin-us must not be negative" labgate --query-spin-us -1
expect_bad "--io-threads must be between 1 and 64" labgate --io-threads 0
expect_bad "--io-threads must be between 1 and 64" labgate --io-threads 65
expect_ok "MCP over HTTP on 127.0.0.1:8081" labgate --http 127.0.0.1:8081 --io-threads 4 --data-dir "$work"
expect_bad "--io-spin-us must not be negative" labgate --io-spin-us -1
expect_ok "MCP over HTTP on 127.0.0.1:8082" labgate --http 127.0.0.1:8082 --io-spin-us 0 --data-dir "$work"
"$(bin labgate)" --help | grep -q -- "--io-spin-us" || fail "labgate --help lacks --io-spin-us"
expect_bad "contracts directory '$work/missing' is not a readable directory" labgate-actions --contracts-dir "$work/missing"
touch "$work/file"
expect_bad "--data-dir: '$work/file' is not a directory" labgate-session --data-dir "$work/file"
expect_bad "--tls-cert: cannot read '$work/none.pem'" labgate-session --tls-cert "$work/none.pem" --tls-key "$work/none.pem"
echo "not a pem" >"$work/bad.pem"
expect_bad "holds no PEM CERTIFICATE" labgate-serial --tls-cert "$work/bad.pem" --tls-key "$work/bad.pem"
expect_bad "--tls-cert and --tls-key go together" labgate-serial --tls-cert "$work/bad.pem"
expect_bad "--tls-client-ca needs --tls-cert" labgate-session --tls-client-ca "$work/bad.pem"
expect_bad "--serial-addr: bad HOST:PORT" labgate --serial-addr serial:notaport
expect_bad "--tls-ca: cannot read" labgate --serial-addr serial:50051 --tls-ca "$work/none.pem"
expect_bad "--http: bad port" labgate --http 127.0.0.1:http
expect_bad "bench 'b1' given twice" labgate --serial-addr b1=x:1 --serial-addr b1=y:1
expect_bad "only one bench may be unnamed" labgate --serial-addr x:1 --serial-addr y:1
expect_bad "a bench name is letters" labgate --serial-addr "b/1=x:1" --serial-addr b2=y:1
expect_bad "--serial-addr: bad HOST:PORT 'y:0'" labgate --serial-addr b1=x:1 --serial-addr b2=y:0
expect_bad "cannot read token file $work/no-tokens" labgate --http 127.0.0.1:8080 --auth-token-file "$work/no-tokens"
printf 'lab-token\n' >"$work/tokens"
expect_ok "MCP over HTTP on 127.0.0.1:8080 with bearer tokens" labgate --http 127.0.0.1:8080 \
  --auth-token-file "$work/tokens" --data-dir "$work"
expect_bad "unexpected argument 'extra'" labgate-session extra
expect_bad "unknown check 'tcp'" labgate-probe tcp x:1
expect_bad "want: grpc HOST:PORT" labgate-probe grpc
echo "all passed"
