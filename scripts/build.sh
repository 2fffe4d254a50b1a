#!/usr/bin/env bash
# Configures and builds labgate into build/ (Ninja, two jobs). Prints to stderr only.
set -euo pipefail
exec 1>&2
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${LABGATE_BUILD_DIR:-$root/build}"
# Line tables (-g1) serve backtraces and perf; full debug information costs a quarter of the
# build's time.
cmake -S "$root" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" \
  "$@" >/dev/null
ninja -C "$build_dir" -j "${LABGATE_JOBS:-2}" ${LABGATE_TARGETS:-}
