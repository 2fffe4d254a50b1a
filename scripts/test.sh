#!/usr/bin/env bash
# Test: installs what is missing (Debian packages and the pinned npm packages), builds
# everything with warnings as errors under AddressSanitizer and UndefinedBehaviorSanitizer
# (the asan preset: clang 16, -O0) and runs every test through CTest on that build, so a
# memory error, leak or undefined behaviour fails the test that caused it; then builds the
# fuzz preset (only the fuzz targets) and runs each fuzzer for 10 s. Arguments go to the main
# CTest run; LABGATE_SKIP_FUZZ=1 leaves the fuzzers out. The last line counts both runs,
# "N passed, M failed"; the exit status is non-zero if anything failed.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/setup.sh" --test
cd "$root"
cmake --preset asan >&2
cmake --build --preset asan >&2

log="$(mktemp)"
trap 'rm -f "$log"' EXIT
source "$root/scripts/lib/tally.sh"

status=0
ctest --preset test "$@" 2>&1 | tee "$log" || status=1
tally_log "$log"

if [[ ${LABGATE_SKIP_FUZZ:-0} != 1 ]]; then
  if cmake --preset fuzz >&2 && cmake --build --preset fuzz >&2; then
    ctest --preset fuzz 2>&1 | tee "$log" || status=1
    tally_log "$log"
  else
    tally_failure "test: the fuzz preset did not build"
  fi
fi

((tally_failed == 0)) || status=1
tally_line
exit "$status"
