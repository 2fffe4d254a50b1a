#!/bin/sh
# Runs the labgate binary named first (labgate-session, labgate-probe, ...); anything
# else is flags for the gateway, so `docker compose run --rm -i gateway` and
# `docker run -i IMAGE --session-addr ...` both start an MCP gateway on stdio.
case "${1:-}" in
  labgate | labgate-*) exec "$@" ;;
esac
exec labgate "$@"
