# Owners that cannot be forged, between real processes: labgate-serial started with a gateway
# token lets a labgate that presents it (--gateway-token-file) name the principal of each call;
# a labgate without it is refused with a message that says why; a bad token file stops
# --check-config.
source "$(dirname "$0")/lib.sh"
cd "$work"
echo "gw-$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')" >gateway.token
printf '# direct clients\nalice alice-token-1\n' >clients

start_service serial labgate-serial --gateway-token-file gateway.token \
  --client-token-file clients

LABGATE_SERIAL="127.0.0.1:$serial_port" LABGATE_WORK="$work" \
  LABGATE_DEPLOY_DIR="$(dirname "$0")" python3 - <<'PY' || fail "gateway token"
import os, sys
sys.path.insert(0, os.environ["LABGATE_DEPLOY_DIR"])
from mcp_stdio import StdioGateway
work = os.environ["LABGATE_WORK"]
labgate = os.path.join(os.environ["LABGATE_BIN_DIR"], "labgate")

# A data directory of the test's own: never the user's ~/.local/share/labgate.
trusted = StdioGateway([labgate, "--call-timeout-ms", "3000", "--data-dir", f"{work}/data-trusted",
                        "--serial-addr", os.environ["LABGATE_SERIAL"],
                        "--gateway-token-file", f"{work}/gateway.token"],
                       os.path.join(work, "trusted-gateway.log"))
try:
    ok, opened = trusted.call_tool("open_port", {"port_name": "loop://tok", "baud_rate": 9600})
    assert ok, opened
    ok, status = trusted.call_tool("status", {"port_name": "loop://tok"})
    assert ok, status
    assert status["owned_by_caller"] is True, status
    assert status["owner"] not in ("", "anonymous"), status
    print("ok: a gateway with the token opens a port as its own principal,", status["owner"])
finally:
    trusted.close()

untrusted = StdioGateway([labgate, "--call-timeout-ms", "3000", "--data-dir", f"{work}/data-untrusted",
                          "--serial-addr", os.environ["LABGATE_SERIAL"]],
                         os.path.join(work, "untrusted-gateway.log"))
try:
    ok, refused = untrusted.call_tool("open_port", {"port_name": "loop://other", "baud_rate": 9600})
    assert not ok, refused
    assert "may not act for owner" in refused, refused
    print("ok: a gateway without the token is refused:", refused)
finally:
    untrusted.close()
PY
pass "the gateway token decides who may name an owner"

if "$(bin labgate-serial)" --gateway-token-file "$work/missing" --check-config \
  >"$work/check.out" 2>&1; then
  fail "--check-config accepted a missing token file"
fi
grep -q -- "--gateway-token-file $work/missing: cannot be read" "$work/check.out" ||
  fail "the error does not name the file: $(cat "$work/check.out")"
printf 'alice one\nbob one\n' >"$work/dup"
if "$(bin labgate-serial)" --client-token-file "$work/dup" --check-config \
  >"$work/check.out" 2>&1; then
  fail "--check-config accepted one token for two clients"
fi
grep -q "line 2" "$work/check.out" || fail "the error does not name the line: $(cat "$work/check.out")"
pass "bad token files stop --check-config with the file and the line"
