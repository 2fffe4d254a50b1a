#!/bin/sh
# Run by labgate-pty-run: the devices it names answer *IDN? with the instrument's id.
set -eu
[ -n "${LABGATE_PTY_DEVICES:-}" ] || { echo "LABGATE_PTY_DEVICES is not set" >&2; exit 1; }
for device in $(echo "$LABGATE_PTY_DEVICES" | tr ',' ' '); do
  exec 3<>"$device"
  stty -F "$device" raw -echo
  printf '*IDN?\n' >&3
  answer=$(timeout 5 head -n 1 <&3)
  exec 3<&-
  case "$answer" in
    LABGATE,SIM-PTY,*) echo "$device: $answer" ;;
    *) echo "$device answered '$answer'" >&2; exit 1 ;;
  esac
done
