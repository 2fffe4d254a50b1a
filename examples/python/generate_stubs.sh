#!/usr/bin/env bash
# Generates Python stubs for labgate's protos with Debian's protoc (3.21, which knows
# proto3 `optional`) and grpc_python_plugin (package protobuf-compiler-grpc).
# Usage: generate_stubs.sh OUT_DIR
set -euo pipefail
out="${1:?usage: generate_stubs.sh OUT_DIR}"
proto="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../proto" && pwd)"
mkdir -p "$out"
# -I /usr/include finds google/protobuf/descriptor.proto, which the annotations import.
protoc -I "$proto" -I /usr/include --python_out="$out" --grpc_python_out="$out" \
  --plugin=protoc-gen-grpc_python="$(command -v grpc_python_plugin)" \
  $(cd "$proto" && find labgate -name '*.proto' | sort)
