# Helpers for the deployment tests: start labgate processes on port 0, wait for them,
# and stop them when the test exits. Binaries come from LABGATE_BIN_DIR.
set -euo pipefail
work="$(mktemp -d)"
pids=()
cleanup() {
  for pid in ${pids[@]+"${pids[@]}"}; do kill "$pid" 2>/dev/null || true; done
  for pid in ${pids[@]+"${pids[@]}"}; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
fail() {
  echo "FAIL: $*" >&2
  for log in "$work"/*.log; do  # what the processes said explains most failures
    [[ -s "$log" ]] && { echo "--- $(basename "$log") (last 30 lines)" >&2; tail -30 "$log" >&2; }
  done
  exit 1
}
pass() { echo "ok: $*"; }
bin() { echo "$LABGATE_BIN_DIR/$1"; }

# start_service NAME BINARY ARGS...: runs it on 127.0.0.1:0 and sets ${NAME}_port/_pid.
start_service() {
  local name="$1" binary="$2"
  shift 2
  rm -f "$work/$name.port"
  "$(bin "$binary")" --listen 127.0.0.1:0 --port-file "$work/$name.port" "$@" \
    2>"$work/$name.log" &
  local pid=$!
  pids+=("$pid")
  for _ in $(seq 1 100); do
    [[ -s "$work/$name.port" ]] && break
    kill -0 "$pid" 2>/dev/null || { cat "$work/$name.log" >&2; fail "$name exited"; }
    sleep 0.1
  done
  [[ -s "$work/$name.port" ]] || fail "$name never wrote its port"
  printf -v "${name}_port" '%s' "$(cat "$work/$name.port")"
  printf -v "${name}_pid" '%s' "$pid"
}

# mcp_round_trip ARGS...: runs a stdio gateway with ARGS, initializes and calls
# list_sessions; prints the tools/call response line.
mcp_round_trip() {
  {
    echo '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"deploy-test","version":"1"}}}'
    echo '{"jsonrpc":"2.0","method":"notifications/initialized"}'
    echo '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_sessions","arguments":{}}}'
  } | timeout 30 "$(bin labgate)" --call-timeout-ms 3000 "$@" 2>>"$work/gateway.log" |
    grep '"id":2' || true
}
