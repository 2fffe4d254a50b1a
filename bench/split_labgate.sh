#!/usr/bin/env bash
# labgate as a split deployment, for the stdio benchmarks: starts labgate-session, labgate-serial
# and labgate-actions on 127.0.0.1 port 0 with a fresh gateway token, then becomes the gateway
# (exec, so the benchmark's pid, stdin and stdout are the gateway's). The services stop when the
# gateway ends. Arguments go to the gateway.
#   bench/run-stdio-compare.sh build 3 3 --labgate-before bench/split_labgate.sh \
#     --labgate-before-name labgate-split
set -euo pipefail
bin="$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)/${LABGATE_BUILD:-build}"
work="$(mktemp -d)"
head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$work/gateway.token"
pids=()
start() {  # start NAME BINARY ARGS...
  local name="$1" binary="$2"
  shift 2
  "$binary" --listen 127.0.0.1:0 --port-file "$work/$name.port" --log-level warning "$@" \
    </dev/null >/dev/null 2>"$work/$name.log" &
  pids+=($!)
  for _ in $(seq 1 200); do [[ -s "$work/$name.port" ]] && return; sleep 0.05; done
  echo "split_labgate: $name did not start: $(cat "$work/$name.log")" >&2
  exit 1
}
start session "$bin/session-service/labgate-session" --data-dir "$work"
start serial "$bin/serial-service/labgate-serial" --gateway-token-file "$work/gateway.token"
start actions "$bin/actions-service/labgate-actions"
gateway=$$
(
  while kill -0 "$gateway" 2>/dev/null; do sleep 0.5; done
  kill "${pids[@]}" 2>/dev/null
  wait
  rm -rf "$work"
) </dev/null >/dev/null 2>&1 &
exec "$bin/gateway/labgate" --session-addr "127.0.0.1:$(cat "$work/session.port")" \
  --serial-addr "127.0.0.1:$(cat "$work/serial.port")" \
  --actions-addr "127.0.0.1:$(cat "$work/actions.port")" \
  --gateway-token-file "$work/gateway.token" "$@"
