#!/usr/bin/env bash
# The machine checks, each a preset of CMakePresets.json. .ci/run adds tidy, tsan and
# fuzz-long after the test command, whose own run is the asan one:
#   tidy       clang-tidy on the files the last commit changed (the clang-tsa preset's compile
#              database; configuring it is enough, no build)
#   asan       the whole suite under AddressSanitizer and UndefinedBehaviorSanitizer; being a
#              clang build with warnings as errors, it is also the thread-safety analysis
#   tsan       the common, gateway and serial suites under ThreadSanitizer
#   fuzz-long  each fuzzer for 60 s more, on the fuzz build and corpus the test command left
# Usage: scripts/checks.sh [CHECK...]   (default: all four, in that order)
# Every check runs even if one before it failed; each says how long it took (stderr). The
# last line counts every CTest run, "N passed, M failed"; the exit status is non-zero if
# anything failed.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
source "$root/scripts/lib/tally.sh"
"$root/scripts/setup.sh" --test || tally_failure "checks: setup failed"

log="$(mktemp)"
trap 'rm -f "$log"' EXIT

# run_ctest ARGS...: one CTest run, tallied.
run_ctest() {
  ctest "$@" 2>&1 | tee "$log"
  tally_log "$log"
}

# build PRESET: configures and builds it; false (and one failure) if either step fails.
build() {
  if cmake --preset "$1" >&2 && cmake --build --preset "$1" >&2; then
    return 0
  fi
  tally_failure "checks: the $1 preset did not build"
  return 1
}

check_tidy() {
  # On a fresh clone there is no branch to compare with: the last commit is the change.
  if git rev-parse -q --verify HEAD^ >/dev/null; then
    "$root/scripts/tidy-changed.sh" HEAD^ || tally_failure "checks: clang-tidy found problems"
  fi
}

check_asan() { build asan && run_ctest --preset asan; }
check_tsan() { build tsan && run_ctest --preset tsan; }

check_fuzz_long() {
  # The test command builds the fuzz preset; build it here too when run on its own.
  build fuzz && run_ctest --preset fuzz-long
}

checks=("$@")
((${#checks[@]})) || checks=(tidy asan tsan fuzz-long)
for check in "${checks[@]}"; do
  started=$SECONDS
  echo "checks: $check" >&2
  case $check in
    tidy) check_tidy ;;
    asan) check_asan ;;
    tsan) check_tsan ;;
    fuzz-long) check_fuzz_long ;;
    *) tally_failure "checks: unknown check '$check' (tidy, asan, tsan, fuzz-long)" ;;
  esac
  echo "checks: $check took $(((SECONDS - started) / 60)) min $(((SECONDS - started) % 60)) s" >&2
done

tally_line
((tally_failed == 0))
