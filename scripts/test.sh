#!/usr/bin/env bash
# Test: installs what is missing (Debian packages and the pinned npm packages), builds
# everything with warnings as errors and runs every test through CTest; then builds the fuzz
# preset (only the fuzz targets) and runs each fuzzer for 10 s. Arguments go to the main
# CTest run; LABGATE_SKIP_FUZZ=1 leaves the fuzzers out. The last line counts both runs,
# "N passed, M failed"; the exit status is non-zero if anything failed.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/setup.sh" --test
"$root/scripts/build.sh" -DLABGATE_WERROR=ON

log="$(mktemp)"
trap 'rm -f "$log"' EXIT
passed=0
failed=0
# Adds the counts of the CTest run logged in $log; a run without a summary is a failure.
count() {
  local line
  line="$(grep -E '^[0-9]+% tests passed, [0-9]+ tests? failed out of [0-9]+' "$log" | tail -1)"
  if [[ $line =~ ([0-9]+)\ tests?\ failed\ out\ of\ ([0-9]+) ]]; then
    failed=$((failed + BASH_REMATCH[1]))
    passed=$((passed + BASH_REMATCH[2] - BASH_REMATCH[1]))
  else
    failed=$((failed + 1))
  fi
}

status=0
(cd "${LABGATE_BUILD_DIR:-$root/build}" && ctest --output-on-failure -j2 --timeout 600 "$@") \
  2>&1 | tee "$log" || status=1
count

if [[ ${LABGATE_SKIP_FUZZ:-0} != 1 ]]; then
  cd "$root"
  if cmake --preset fuzz >&2 && cmake --build --preset fuzz >&2; then
    ctest --preset fuzz 2>&1 | tee "$log" || status=1
    count
  else
    echo "test: the fuzz preset did not build" >&2
    status=1
    failed=$((failed + 1))
  fi
fi

((failed == 0)) || status=1
echo "$passed passed, $failed failed"
exit "$status"
