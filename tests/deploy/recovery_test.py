"""Recovery of a split deployment, with real processes: the gateway starts before its
backends; then each backend is killed with SIGKILL under load for 4 s, and all three
for 30 s. While one is down its calls fail with "UNAVAILABLE: <service> at ADDR is not
reachable" (action tools stay listed); once it is back the gateway uses it within 2 s;
every append the session service acknowledged is still there afterwards."""
import os
import random
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(__file__))
from mcp_stdio import StdioGateway  # noqa: E402

BIN = os.environ["LABGATE_BIN_DIR"]
BACK_WITHIN_S = 2.0  # the requirement
SLACK_S = 0.5        # process start and scheduling on a loaded 2-core machine


def free_port():
    """A port that is free now, below the kernel's ephemeral range, so that no other test's
    port-0 listener or outgoing connection can take it while a service here is down (each is
    restarted on its own port, which the gateway was given)."""
    with open("/proc/sys/net/ipv4/ip_local_port_range") as ranges:
        ephemeral_low = int(ranges.read().split()[0])
    chooser = random.SystemRandom()
    for _ in range(200):
        port = chooser.randrange(10000, max(10001, ephemeral_low))
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError("no free port below the ephemeral range")


CREDENTIAL_FLAGS = ("--gateway-token-file", "--client-token-file", "--trusted-gateway")


def gateway_token_args(work):
    """Flags for the token of the deployment in `work`: every labgate-serial started here trusts
    it, and a gateway given them may name the principals it acts for."""
    path = os.path.join(work, "gateway.token")
    if not os.path.exists(path):
        with open(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "w") as out:
            out.write(secrets.token_hex(24) + "\n")
    return ["--gateway-token-file", path]


class Service:
    def __init__(self, name, binary, work, extra=()):
        self.name, self.binary, self.work, self.extra = name, binary, work, list(extra)
        if binary == "labgate-serial" and not any(flag in self.extra for flag in CREDENTIAL_FLAGS):
            self.extra += gateway_token_args(work)
        self.port = free_port()
        self.process = None

    @property
    def address(self):
        return f"127.0.0.1:{self.port}"

    def start(self):
        """Starts it and returns the time it reported serving (its port file appeared)."""
        port_file = os.path.join(self.work, self.name + ".port")
        if os.path.exists(port_file):
            os.remove(port_file)
        log_path = os.path.join(self.work, self.name + ".log")
        if log_path not in LOGS:
            LOGS.append(log_path)
        log = open(log_path, "ab")
        self.process = subprocess.Popen(
            [os.path.join(BIN, self.binary), "--listen", self.address, "--port-file", port_file]
            + self.extra, stderr=log)
        deadline = time.monotonic() + 20
        while not os.path.exists(port_file):
            if self.process.poll() is not None or time.monotonic() > deadline:
                print_log_tails()
                raise RuntimeError(f"{self.name} did not start on {self.address}")
            time.sleep(0.01)
        return time.monotonic()

    def kill9(self):
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(15)


class Load:
    """Calls one tool every 50 ms from its own thread, recording (sent, done, ok, value)."""

    def __init__(self, gateway, tool, arguments_fn):
        self.gateway, self.tool, self.arguments_fn = gateway, tool, arguments_fn
        self.results = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self):
        while not self._stop.is_set():
            sent = time.monotonic()
            ok, value = self.gateway.call_tool(self.tool, self.arguments_fn(), timeout=30)
            self.results.append((sent, time.monotonic(), ok, value))
            time.sleep(0.05)

    def stop(self):
        self._stop.set()
        self._thread.join(40)


LOGS = []  # the files whose tails a failure prints


def print_log_tails():
    for path in LOGS:
        try:
            with open(path, encoding="utf-8", errors="replace") as log:
                tail = log.readlines()[-20:]
        except OSError:
            continue
        print(f"--- last lines of {path}:\n" + "".join(tail), flush=True)


def check(condition, message):
    if not condition:
        print("FAIL:", message, flush=True)
        print_log_tails()
        sys.exit(1)
    print("ok:", message, flush=True)


def first_success_after(results, since):
    for sent, _, ok, _ in results:
        if sent >= since and ok:
            return sent
    return None


def main():
    work = tempfile.mkdtemp(prefix="labgate-recovery-")
    services = {
        "session": Service("session", "labgate-session", work, ["--data-dir", work]),
        "serial": Service("serial", "labgate-serial", work),
        "actions": Service("actions", "labgate-actions", work),
    }
    tool_for = {
        "serial": ("list_ports", lambda: {}),
        "actions": ("deescalation_plan", lambda: {"situation": "Two colleagues argue loudly"}),
    }
    LOGS.append(os.path.join(work, "gateway.log"))
    gateway = StdioGateway(
        [os.path.join(BIN, "labgate"), "--call-timeout-ms", "3000", *gateway_token_args(work),
         "--session-addr", services["session"].address,
         "--serial-addr", services["serial"].address,
         "--actions-addr", services["actions"].address],
        os.path.join(work, "gateway.log"))
    try:
        ok, text = gateway.call_tool("list_sessions", {})
        check(not ok and text == f"UNAVAILABLE: session service at "
              f"{services['session'].address} is not reachable",
              f"gateway started before its backends answers clearly: {text}")

        # Backends come up after the gateway: each is in use within 2 s of serving.
        loads = {"session": Load(gateway, "list_sessions", lambda: {})}
        loads.update({name: Load(gateway, *tool_for[name]) for name in tool_for})
        for name, service in services.items():
            up = service.start()
            deadline = up + 10
            while first_success_after(loads[name].results, up) is None and time.monotonic() < deadline:
                time.sleep(0.02)
            served = first_success_after(loads[name].results, up)
            check(served is not None and served - up <= BACK_WITHIN_S + SLACK_S,
                  f"{name} started after the gateway is used "
                  f"{(served - up) if served else float('inf'):.2f} s after it serves")
        for load in loads.values():
            load.stop()

        ok, created = gateway.call_tool("create_session", {"device_id": "recovery-bench"})
        check(ok, "a session is created")
        session_id = created["session"]["id"]
        acknowledged = []
        counter = [0]

        def append_args():
            counter[0] += 1
            return {"session_id": session_id, "content": f"reading {counter[0]}"}

        def outage(names, seconds):
            tool_loads = {}
            for name in names:
                if name == "session":
                    tool_loads[name] = Load(gateway, "append_message", append_args)
                else:
                    tool_loads[name] = Load(gateway, *tool_for[name])
            time.sleep(0.5)
            killed_at = time.monotonic()
            for name in names:
                services[name].kill9()
            if "actions" in names:
                time.sleep(1.0)
                reply = gateway.request("tools/list", {})
                listed = [tool["name"] for tool in reply["result"]["tools"]]
                check("deescalation_plan" in listed, "action tools stay listed while actions is down")
            time.sleep(seconds)
            ups = {name: services[name].start() for name in names}
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline and any(
                    first_success_after(tool_loads[n].results, ups[n]) is None for n in names):
                time.sleep(0.02)
            for load in tool_loads.values():
                load.stop()
            for name in names:
                results = tool_loads[name].results
                address = services[name].address
                want = f"UNAVAILABLE: {name} service at {address} is not reachable"
                # Calls sent while it was down (after it had certainly gone) fail with the text.
                during = [r for r in results if killed_at + 0.3 <= r[0] and r[1] <= ups[name]]
                # An append also says that its outcome is unknown and how to retry safely.
                advice = "; the outcome is unknown" if name == "session" else ""
                check(during and all(not ok and value.startswith(want + advice)
                                     for _, _, ok, value in during),
                      f"{name} down {seconds} s: {len(during)} calls failed with '{want}{advice}'")
                served = first_success_after(results, ups[name])
                delay = (served - ups[name]) if served else float("inf")
                check(delay <= BACK_WITHIN_S + SLACK_S,
                      f"{name} back after {seconds} s: served again {delay:.2f} s after it serves")
                if name == "session":
                    acknowledged.extend(value for _, _, ok, value in results if ok)

        for name in services:
            outage([name], 4)
        outage(list(services), 30)

        ok, listed = gateway.call_tool("list_messages", {"session_id": session_id, "limit": 1000})
        check(ok, "messages are listed after the outages")
        stored = {m["message_id"] for m in listed["messages"]}
        acked_ids = {a["message_id"] for a in acknowledged}
        check(acked_ids and acked_ids <= stored,
              f"all {len(acked_ids)} acknowledged appends survived SIGKILL ({len(stored)} stored)")
        # The log says when each backend went away and when it came back.
        with open(os.path.join(work, "gateway.log"), encoding="utf-8", errors="replace") as log:
            text = log.read()
        for name, service in services.items():
            backend = f"{name} service at {service.address}"
            check(f"{backend} is not reachable" in text and f"{backend} is reachable again" in text,
                  f"the gateway's log names {name} going away and coming back")
    finally:
        gateway.close()
        for service in services.values():
            service.stop()
    print("all passed")


if __name__ == "__main__":
    main()
