#!/usr/bin/env bash
# Test: installs what is missing (Debian packages and the pinned npm packages), builds
# everything, and runs every test through CTest, ending with its summary.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/setup.sh" --test
"$root/scripts/build.sh" -DLABGATE_WERROR=ON
cd "${LABGATE_BUILD_DIR:-$root/build}"
ctest --output-on-failure -j2 --timeout 600 "$@"
