#!/usr/bin/env bash
# Run: installs what is missing, builds, and starts labgate in embedded mode on stdio.
# Everything but MCP messages goes to stderr, so an MCP client can launch this directly.
# Extra arguments go to labgate, e.g. scripts/run.sh --data-dir /srv/labgate.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/setup.sh"
LABGATE_TARGETS="labgate" "$root/scripts/build.sh"
echo "labgate: ready; speak MCP on stdin/stdout (Ctrl-D or SIGTERM to stop)" >&2
exec "${LABGATE_BUILD_DIR:-$root/build}/gateway/labgate" "$@"
