# Sourced by scripts/test.sh and scripts/checks.sh: adds up CTest runs into one
# "N passed, M failed" line. A run that printed no summary (it did not build, or it
# crashed) counts as one failure.
tally_passed=0
tally_failed=0
tally_failed_names=()

# tally_log LOG: adds the counts of the CTest summary in LOG.
tally_log() {
  local line
  line="$(grep -E '^[0-9]+% tests passed, [0-9]+ tests? failed out of [0-9]+' "$1" | tail -1)"
  if [[ $line =~ ([0-9]+)\ tests?\ failed\ out\ of\ ([0-9]+) ]]; then
    tally_failed=$((tally_failed + BASH_REMATCH[1]))
    tally_passed=$((tally_passed + BASH_REMATCH[2] - BASH_REMATCH[1]))
  else
    tally_failed=$((tally_failed + 1))
  fi
  # CTest lists failures as "  12 - name (Failed)" after this heading.
  local name
  while IFS= read -r name; do
    tally_failed_names+=("$name")
  done < <(sed -n '/^The following tests FAILED:/,/^[^[:space:]]/{s/^[[:space:]]\+[0-9]\+ - \(.*\)$/\1/p}' "$1")
}

# tally_failure WHAT: one failure that is not a test (a build that did not finish).
tally_failure() {
  echo "$1" >&2
  tally_failed=$((tally_failed + 1))
  tally_failed_names+=("$1")
}

# tally_line: the failures by name (CI shows only the tail of the log), then the counts.
tally_line() {
  local name
  for name in "${tally_failed_names[@]}"; do
    echo "failed: $name"
  done
  echo "$tally_passed passed, $tally_failed failed"
}
