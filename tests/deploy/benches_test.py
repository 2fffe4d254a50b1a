"""Two benches behind one gateway: two real labgate-serial processes named with
--serial-addr NAME=HOST:PORT. Calls route by the bench prefix of their port, list_ports
merges both, an unknown bench is named in the error, and a bench killed with SIGKILL
is listed as unreachable while the other keeps working."""
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(__file__))
from mcp_stdio import StdioGateway  # noqa: E402
from recovery_test import BIN, Service, check, gateway_token_args  # noqa: E402


def readyz(port):
    """(status, detail) of GET /readyz."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=10) as reply:
            return reply.status, json.loads(reply.read())["detail"]
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())["detail"]


def start_http_gateway(work, benches):
    port_file = os.path.join(work, "http.port")
    args = [os.path.join(BIN, "labgate"), *gateway_token_args(work), "--http", "127.0.0.1:0",
            "--http-port-file", port_file, "--data-dir", os.path.join(work, "http-data")]
    for name, service in benches:
        args += ["--serial-addr", f"{name}={service.address}"]
    process = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                               stderr=open(os.path.join(work, "http.log"), "ab"))
    for _ in range(200):
        if os.path.exists(port_file) and open(port_file).read().strip():
            return process, int(open(port_file).read().strip())
        time.sleep(0.05)
    process.kill()
    raise RuntimeError("the HTTP gateway did not report its port")


def main():
    work = tempfile.mkdtemp(prefix="labgate-benches-")
    bench1 = Service("bench1", "labgate-serial", work)
    bench2 = Service("bench2", "labgate-serial", work)
    bench1.start()
    bench2.start()
    gateway = StdioGateway(
        [os.path.join(BIN, "labgate"), *gateway_token_args(work), "--data-dir", work,
         "--call-timeout-ms", "3000",
         "--serial-addr", f"bench1={bench1.address}", f"--serial-addr=bench2={bench2.address}"],
        os.path.join(work, "gateway.log"))
    try:
        for bench in ("bench1", "bench2"):
            ok, opened = gateway.call_tool("open_port", {"port_name": f"{bench}:loop://probe",
                                                         "baud_rate": 9600})
            check(ok and opened["port_name"] == f"{bench}:loop://probe",
                  f"open_port on {bench} answers with the bench's name: {opened}")
        for bench, text in (("bench1", "one"), ("bench2", "two")):
            ok, wrote = gateway.call_tool("write", {"port_name": f"{bench}:loop://probe",
                                                    "data": text})
            check(ok and wrote["port_name"] == f"{bench}:loop://probe", f"write to {bench}")
        for bench, text in (("bench1", "one"), ("bench2", "two")):
            ok, read = gateway.call_tool("read", {"port_name": f"{bench}:loop://probe",
                                                  "timeout_ms": 500})
            check(ok and read["data"] == text, f"read on {bench} gets its own loop back: {read}")

        ok, listed = gateway.call_tool("list_ports", {})
        names = [port["port_name"] for port in listed.get("ports", [])] if ok else []
        check(ok and "unreachable_benches" not in listed and names and
              all(n.startswith(("bench1:", "bench2:")) for n in names),
              f"list_ports merges both benches, each port named with its bench: {names}")
        check(any(n.startswith("bench1:") for n in names) and
              any(n.startswith("bench2:") for n in names), "both benches contribute ports")

        read = gateway.request("resources/read", {"uri": "labgate://ports"})
        listed_ports = json.loads(read["result"]["contents"][0]["text"])
        resource_names = [p["port_name"] for p in listed_ports["ports"]]
        check(any(n.startswith("bench1:") for n in resource_names) and
              any(n.startswith("bench2:") for n in resource_names) and
              all(n.startswith(("bench1:", "bench2:")) for n in resource_names),
              f"labgate://ports lists every bench's ports by bench: {resource_names}")

        ok, status = gateway.call_tool("status", {"port_name": "bench2:loop://probe"})
        check(ok and status["open_ports"] == ["bench2:loop://probe"],
              f"status lists the bench's open ports with its name: {status}")

        # Ownership stays per bench: another gateway (another owner) may not use the port
        # this one opened on bench1, yet opens its own on bench2.
        other = StdioGateway(
            [os.path.join(BIN, "labgate"), *gateway_token_args(work), "--data-dir", work,
             "--call-timeout-ms", "3000",
             "--serial-addr", f"bench1={bench1.address}", "--serial-addr", f"bench2={bench2.address}"],
            os.path.join(work, "gateway2.log"))
        try:
            ok, text = other.call_tool("write", {"port_name": "bench1:loop://probe", "data": "x"})
            check(not ok and "port bench1:loop://probe is in use by another client" in text,
                  f"another owner may not write to bench1's port, named with its bench: {text}")
            ok, opened = other.call_tool("open_port", {"port_name": "bench2:loop://other",
                                                       "baud_rate": 9600})
            check(ok, "another owner opens its own port on bench2")
        finally:
            other.close()

        ok, text = gateway.call_tool("write", {"port_name": "bench3:loop://probe", "data": "x"})
        check(not ok and "unknown bench 'bench3'" in text and "bench1, bench2" in text,
              f"an unknown bench is named: {text}")
        ok, text = gateway.call_tool("write", {"port_name": "loop://probe", "data": "x"})
        check(not ok and "names no bench" in text, f"a port without a bench is refused: {text}")

        http, http_port = start_http_gateway(work, [("bench1", bench1), ("bench2", bench2)])
        try:
            status, detail = readyz(http_port)
            check(status == 200 and "bench bench1" in detail and "bench bench2" in detail,
                  f"/readyz reports each bench: {status} {detail}")
            bench2.kill9()
            status, detail = readyz(http_port)
            check(status == 503 and f"bench bench2: serial service at {bench2.address}" in detail,
                  f"/readyz names the bench that is down: {status} {detail}")
        finally:
            http.terminate()
            http.wait(timeout=20)
        ok, listed = gateway.call_tool("list_ports", {})
        unreachable = listed.get("unreachable_benches", []) if ok else []
        check(ok and [u["bench"] for u in unreachable] == ["bench2"] and
              bench2.address in unreachable[0]["address"] and
              all(p["port_name"].startswith("bench1:") for p in listed["ports"]),
              f"with bench2 down, list_ports lists it as unreachable: {unreachable}")
        read = gateway.request("resources/read", {"uri": "labgate://ports"})
        listed_ports = json.loads(read["result"]["contents"][0]["text"])
        check([u["bench"] for u in listed_ports.get("unreachable_benches", [])] == ["bench2"],
              "labgate://ports lists the dead bench as unreachable")
        ok, text = gateway.call_tool("write", {"port_name": "bench2:loop://probe", "data": "x"})
        check(not ok and text == f"UNAVAILABLE: serial service at {bench2.address} is not reachable",
              f"a call to the dead bench fails clearly: {text}")
        ok, _ = gateway.call_tool("write", {"port_name": "bench1:loop://probe", "data": "still"})
        ok2, read = gateway.call_tool("read", {"port_name": "bench1:loop://probe",
                                               "timeout_ms": 500})
        check(ok and ok2 and read["data"] == "still", "bench1 keeps working while bench2 is down")
    finally:
        gateway.close()
        bench1.stop()
        bench2.stop()
    print("all passed")


def policy_and_recording_per_bench():
    """Each bench's serial service keeps its own policy and records into the session
    service it was given; the gateway routes, and neither leaks into the other bench."""
    work = tempfile.mkdtemp(prefix="labgate-benches-policy-")
    policy = os.path.join(work, "bench1-policy.json")
    with open(policy, "w") as out:
        json.dump({"ports": [{"match": "loop://*", "deny": [{"name": "no-reset",
                                                           "pattern": "^\\*RST"}]}]}, out)
    session = Service("session", "labgate-session", work, ["--data-dir", work])
    session.start()
    bench1 = Service("bench1", "labgate-serial", work,
                     ["--policy", policy, "--session-addr", session.address])
    bench2 = Service("bench2", "labgate-serial", work, ["--session-addr", session.address])
    bench1.start()
    bench2.start()
    gateway = StdioGateway(
        [os.path.join(BIN, "labgate"), *gateway_token_args(work), "--call-timeout-ms", "3000",
         "--session-addr", session.address,
         "--serial-addr", f"bench1={bench1.address}", "--serial-addr", f"bench2={bench2.address}"],
        os.path.join(work, "gateway.log"))
    try:
        ok, created = gateway.call_tool("create_session", {"device_id": "two-benches"})
        check(ok, "a session on the central session service")
        session_id = created["session"]["id"]
        for bench in ("bench1", "bench2"):
            ok, opened = gateway.call_tool("open_port", {"port_name": f"{bench}:loop://psu",
                                                         "baud_rate": 9600,
                                                         "session_id": session_id})
            check(ok, f"{bench}: a port bound to the session opens: {opened}")
        ok, text = gateway.call_tool("write", {"port_name": "bench1:loop://psu", "data": "*RST"})
        check(not ok and "no-reset" in text, f"bench1's policy refuses *RST: {text}")
        ok, _ = gateway.call_tool("write", {"port_name": "bench2:loop://psu", "data": "*RST"})
        check(ok, "bench2 has no such policy: *RST is written")
        ok, _ = gateway.call_tool("write", {"port_name": "bench1:loop://psu", "data": "VOLT 1"})
        check(ok, "bench1 writes what its policy allows")
        deadline = time.monotonic() + 10
        contents = []
        while time.monotonic() < deadline and not {"*RST", "VOLT 1"} <= set(contents):
            ok, listed = gateway.call_tool("list_messages", {"session_id": session_id})
            contents = [m["content"] for m in listed["messages"]] if ok else []
            time.sleep(0.1)
        check({"*RST", "VOLT 1"} <= set(contents),
              f"each bench records its own port's I/O into the session: {contents}")
    finally:
        gateway.close()
        bench1.stop()
        bench2.stop()
        session.stop()


if __name__ == "__main__":
    main()
    policy_and_recording_per_bench()
    print("policy and recording per bench: all passed")
