#!/usr/bin/env bash
# Proves labgate's image on a machine with no Docker engine. podman builds the runtime
# stage of docker/Dockerfile (--isolation=chroot) from a debootstrapped bookworm (the
# tarball is cached) and adds this build's binaries; then each binary runs as the
# image's user, in a chroot of the image's root file system, on 127.0.0.1:
#   each service starts, its compose healthcheck passes, and the gateway (through the
#   image's entrypoint) answers an MCP round trip against them.
# Usage: LABGATE_BIN_DIR=build/tests/deploy/bin scripts/image_check.sh
# Exits 77 (skipped) without root, podman or debootstrap.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin_dir="${LABGATE_BIN_DIR:?set LABGATE_BIN_DIR to the folder of the built binaries}"
cache="${LABGATE_IMAGE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/labgate}"
started=$(date +%s)
log() { echo "image_check: $*" >&2; }
fail() { log "FAIL: $*"; exit 1; }

[[ $(id -u) == 0 ]] || { log "skipped: needs root (debootstrap, chroot)"; exit 77; }
for tool in podman debootstrap; do
  command -v "$tool" >/dev/null || { log "skipped: $tool is not installed (scripts/setup.sh)"; exit 77; }
done

# 1. A bookworm base from Debian's archive, cached as a tarball between runs.
mkdir -p "$cache"
base_tar="$cache/bookworm-minbase.tar"
if [[ ! -s $base_tar ]]; then
  log "debootstrap bookworm (once; cached in $base_tar)"
  rm -rf "$cache/rootfs.tmp"
  debootstrap --variant=minbase bookworm "$cache/rootfs.tmp" http://deb.debian.org/debian >&2
  tar -C "$cache/rootfs.tmp" -cf "$base_tar.tmp" .
  mv "$base_tar.tmp" "$base_tar"
  rm -rf "$cache/rootfs.tmp"
fi
if ! podman image exists localhost/labgate-bookworm:base; then
  podman import "$base_tar" localhost/labgate-bookworm:base >/dev/null
fi

# 2. The image: docker/Dockerfile's runtime stage, plus the binaries of this build.
podman build --isolation=chroot --target runtime \
  --build-arg RUNTIME_BASE=localhost/labgate-bookworm:base \
  -t localhost/labgate-runtime:check -f "$root/docker/Dockerfile" "$root" >&2
context="$(mktemp -d)"
container=""
mnt=""
pids=()
cleanup() {
  for pid in ${pids[@]+"${pids[@]}"}; do kill "$pid" 2>/dev/null || true; done
  for pid in ${pids[@]+"${pids[@]}"}; do wait "$pid" 2>/dev/null || true; done
  if [[ -n $mnt ]]; then
    umount "$mnt/proc" 2>/dev/null || true
    umount "$mnt/dev" 2>/dev/null || true
    umount "$mnt/sys" 2>/dev/null || true
  fi
  [[ -n $container ]] && { podman umount "$container" >/dev/null 2>&1 || true; podman rm "$container" >/dev/null 2>&1 || true; }
  rm -rf "$context"
}
trap cleanup EXIT
mkdir "$context/bin"
for binary in labgate labgate-session labgate-serial labgate-actions labgate-probe; do
  cp -L "$bin_dir/$binary" "$context/bin/"
done
printf 'FROM localhost/labgate-runtime:check\nCOPY bin/ /usr/local/bin/\n' >"$context/Containerfile"
podman build --isolation=chroot -t localhost/labgate:check -f "$context/Containerfile" "$context" >&2

# 3. The image's root file system, with /proc, /dev and /sys as a container has them
# (libserialport enumerates ports from /sys), run as its user.
container="$(podman create localhost/labgate:check)"
mnt="$(podman mount "$container")"
mount -t proc proc "$mnt/proc"
mount --bind /dev "$mnt/dev"
mount --bind /sys "$mnt/sys"
user="$(podman image inspect --format '{{.Config.User}}' localhost/labgate:check)"
[[ $user == labgate ]] || fail "image user is '$user', want labgate"
as_image_user=(chroot --userspec="$user:$user" "$mnt" env HOME=/home/labgate LABGATE_DATA_DIR=/data)
in_image() { "${as_image_user[@]}" "$@"; }

start() {  # start NAME ARGS...: runs it in the image and sets ${NAME}_port
  local name="$1"; shift
  # Started directly (not through a function), so $! is the service itself (chroot and
  # env exec into it) and cleanup's kill reaches it; stdout is not the caller's.
  "${as_image_user[@]}" "$@" --port-file "/tmp/$name.port" >"$context/$name.out" \
    2>"$context/$name.log" &
  pids+=($!)
  for _ in $(seq 1 100); do [[ -s "$mnt/tmp/$name.port" ]] && break; sleep 0.1; done
  [[ -s "$mnt/tmp/$name.port" ]] || { cat "$context/$name.log" >&2; fail "$name did not start"; }
  printf -v "${name}_port" '%s' "$(cat "$mnt/tmp/$name.port")"
  log "$name started as $user on 127.0.0.1:$(cat "$mnt/tmp/$name.port")"
}
start session labgate-session --listen 127.0.0.1:0 --data-dir /data
# The gateway token, made as compose's gateway-token service makes it, in the image's /secrets.
in_image labgate-probe token /secrets/gateway.token 2>/dev/null || fail "labgate-probe token"
token=(--gateway-token-file /secrets/gateway.token)
start serial labgate-serial --listen 127.0.0.1:0 "${token[@]}"
start actions labgate-actions --listen 127.0.0.1:0
for name in session serial actions; do
  port_var="${name}_port"
  in_image labgate-probe grpc "127.0.0.1:${!port_var}" || fail "$name healthcheck"
  log "$name healthcheck passes"
done
backends=(--session-addr "127.0.0.1:$session_port" --serial-addr "127.0.0.1:$serial_port"
  --actions-addr "127.0.0.1:$actions_port" "${token[@]}")
"${as_image_user[@]}" labgate --http 127.0.0.1:0 --http-port-file /tmp/http.port \
  "${backends[@]}" >"$context/gateway-http.out" 2>"$context/gateway-http.log" &
pids+=($!)
for _ in $(seq 1 100); do [[ -s "$mnt/tmp/http.port" ]] && break; sleep 0.1; done
http_port="$(cat "$mnt/tmp/http.port" 2>/dev/null)" || fail "gateway-http did not start"
ready=0
for _ in $(seq 1 20); do
  in_image labgate-probe http "http://127.0.0.1:$http_port/readyz" 2>/dev/null && { ready=1; break; }
  sleep 0.25
done
[[ $ready == 1 ]] || fail "gateway-http healthcheck"
log "gateway-http healthcheck passes"

# The stdio gateway through the image's entrypoint, as `docker compose run --rm -i gateway`.
reply="$({
  echo '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"image-check","version":"1"}}}'
  echo '{"jsonrpc":"2.0","method":"notifications/initialized"}'
  echo '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_ports","arguments":{}}}'
} | timeout 30 chroot --userspec="$user:$user" "$mnt" labgate-entrypoint "${backends[@]}" 2>"$context/gateway.log" | grep '"id":2')" ||
  { cat "$context/gateway.log" >&2; fail "no MCP reply from the gateway"; }
grep -q '"isError":false' <<<"$reply" || fail "MCP round trip: $reply"
log "the gateway answers an MCP round trip: ${reply:0:120}"
log "passed in $(($(date +%s) - started)) s"
