#!/usr/bin/env bash
# Runs clang-tidy-16 (the checks in .clang-tidy) on the C++ files changed against a base ref,
# working tree included, with the clang-tsa build's compile_commands.json. A changed header
# is checked through the source file of the same name; findings in headers are reported only
# for changed headers. Exits non-zero on any finding.
#   scripts/tidy-changed.sh [BASE_REF]      (default: main)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
base="${1:-main}"
build="$root/build-clang-tsa"
cd "$root"

[[ -f $build/compile_commands.json ]] || cmake --preset clang-tsa >&2
# The sources include generated protobuf and gRPC headers: make those (only those).
mapfile -t generated < <(ninja -C "$build" -t targets all | sed -n 's/^\(.*\.pb\.h\): .*/\1/p')
((${#generated[@]} == 0)) || ninja -C "$build" "${generated[@]}" >&2

changed="$(git diff --name-only --diff-filter=ACMR "$(git merge-base "$base" HEAD)" -- \
  '*.cc' '*.h')"
files=()
headers='^$'  # diagnostics in headers only for the headers that changed
for path in $changed; do
  [[ $path == *.h ]] && headers+="|/${path//./\\.}\$"
  source="${path%.h}"
  source="${source%.cc}.cc"
  [[ -f $source ]] || continue
  # Only files some target compiles (the compile database has their flags).
  grep -q "\"file\": \"$root/$source\"" "$build/compile_commands.json" || continue
  [[ " ${files[*]-} " == *" $source "* ]] || files+=("$source")
done
if ((${#files[@]} == 0)); then
  echo "tidy: no changed C++ sources against $base"
  exit 0
fi
echo "tidy: ${#files[@]} file(s) changed against $base" >&2
printf '%s\n' "${files[@]}" |
  xargs -P "${LABGATE_JOBS:-2}" -n 1 clang-tidy-16 -p "$build" --quiet --header-filter="$headers"
echo "tidy: ${#files[@]} file(s) clean"
