#!/bin/sh
# One libFuzzer run under CTest: LABGATE_FUZZ_SECONDS (default 10) of fuzzing, starting from
# the checked-in seeds and what earlier runs in this build tree found. A crash, a broken
# invariant, a sanitizer report, a leak or an input slower than 30 s fails the test, and the
# input is kept in WORK/artifacts/NAME/.
#   run_fuzzer.sh FUZZER SEED_DIR WORK_DIR
set -u
fuzzer=$1
seeds=$2
work=$3
name=$(basename "$fuzzer")
seconds=${LABGATE_FUZZ_SECONDS:-10}
corpus="$work/corpus/$name"
artifacts="$work/artifacts/$name"
mkdir -p "$corpus" "$artifacts"
# Readable stack traces: Debian's llvm-16 names its symbolizer with the version.
if [ -z "${ASAN_SYMBOLIZER_PATH:-}" ] && [ -x /usr/lib/llvm-16/bin/llvm-symbolizer ]; then
  export ASAN_SYMBOLIZER_PATH=/usr/lib/llvm-16/bin/llvm-symbolizer
fi
# New inputs go to the working corpus (first directory); the seeds are only read.
"$fuzzer" -max_total_time="$seconds" -timeout=30 -rss_limit_mb=2048 -print_final_stats=1 \
  -artifact_prefix="$artifacts/" "$corpus" "$seeds"
status=$?
if [ "$status" -ne 0 ]; then
  echo "$name failed (exit $status). The input is kept in $artifacts/:" >&2
  ls -l "$artifacts" >&2
  echo "Reproduce with: $fuzzer <that file>; keep it as a regression seed in $seeds." >&2
fi
exit "$status"
