"""Prometheus scrapes of a split deployment, read by the Prometheus project's own Python
parser (Debian's python3-prometheus-client): the three services and a stdio gateway, each
with --metrics-listen on port 0. Every family parses with help and a type, names start with
labgate_; the gateway's backend gauge drops when labgate-session is killed and comes back
with one reconnect counted when it is restarted on the same port."""
import os
import sys
import tempfile
import time
import urllib.request

from prometheus_client.parser import text_string_to_metric_families

sys.path.insert(0, os.path.dirname(__file__))
from mcp_stdio import StdioGateway  # noqa: E402
from recovery_test import BIN, Service, check, gateway_token_args  # noqa: E402


def wait_for_port_file(path, deadline_s=20):
    deadline = time.monotonic() + deadline_s
    while not (os.path.exists(path) and open(path).read().strip()):
        if time.monotonic() > deadline:
            raise RuntimeError(f"{path} never appeared")
        time.sleep(0.02)
    return int(open(path).read().strip())


def scrape(port):
    """{(name, frozenset(labels)): value} and {family: (type, help)}, through the real parser."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as response:
        if response.headers["Content-Type"] != "text/plain; version=0.0.4; charset=utf-8":
            check(False, f"port {port} answers in the text exposition format")
        text = response.read().decode()
    samples, families = {}, {}
    for family in text_string_to_metric_families(text):
        families[family.name] = (family.type, family.documentation)
        for sample in family.samples:
            samples[(sample.name, frozenset(sample.labels.items()))] = sample.value
    return samples, families


def value(samples, name, **labels):
    return samples.get((name, frozenset(labels.items())))


def scrape_until(port, predicate, what, deadline_s=30):
    deadline = time.monotonic() + deadline_s
    while True:
        samples, _ = scrape(port)
        if predicate(samples):
            check(True, what)
            return samples
        if time.monotonic() > deadline:
            check(False, what)
        time.sleep(0.2)


def check_families(program, families, expected):
    check(len(families) > 0, f"{program}: the exposition parses")
    for name, (kind, help_text) in families.items():
        if not name.startswith("labgate_") or kind not in ("counter", "gauge", "histogram") \
                or not help_text:
            check(False, f"{program}: {name} is a labgate_ family with a type and help")
    check(all(name in families for name in expected),
          f"{program} lists {', '.join(expected)}")


def main():
    work = tempfile.mkdtemp(prefix="labgate-metrics-")
    ports = {name: os.path.join(work, name + ".metrics-port")
             for name in ("session", "serial", "actions", "gateway")}

    def metrics_flags(name):
        return ["--metrics-listen", "127.0.0.1:0", "--metrics-port-file", ports[name]]

    services = {
        "session": Service("session", "labgate-session", work,
                           ["--data-dir", work] + metrics_flags("session")),
        "serial": Service("serial", "labgate-serial", work, metrics_flags("serial")),
        "actions": Service("actions", "labgate-actions", work, metrics_flags("actions")),
    }
    for service in services.values():
        service.start()
    gateway = StdioGateway(
        [os.path.join(BIN, "labgate"), *gateway_token_args(work),
         "--session-addr", services["session"].address,
         "--serial-addr", services["serial"].address,
         "--actions-addr", services["actions"].address] + metrics_flags("gateway"),
        os.path.join(work, "gateway.log"))
    try:
        port = {name: wait_for_port_file(path) for name, path in ports.items()}
        ok, created = gateway.call_tool("create_session", {"device_id": "prometheus"})
        check(ok, "create_session through the gateway")
        ok, _ = gateway.call_tool("append_message",
                                  {"session_id": created["session"]["id"], "content": "scraped"})
        check(ok, "append_message through the gateway")

        samples, families = scrape(port["session"])
        check_families("labgate-session", families,
                       ["labgate_session_appends", "labgate_session_commit_batch_size",
                        "labgate_session_fsync_duration_seconds", "labgate_session_database_bytes"])
        check(value(samples, "labgate_session_appends_total") == 1.0,
              "labgate-session counted the append")
        _, families = scrape(port["serial"])
        check_families("labgate-serial", families,
                       ["labgate_serial_open_ports", "labgate_serial_bytes",
                        "labgate_serial_recording_queue_depth"])
        _, families = scrape(port["actions"])
        check_families("labgate-actions", families, ["labgate_action_invocations"])
        samples, families = scrape(port["gateway"])
        check_families("labgate", families,
                       ["labgate_requests", "labgate_request_duration_seconds",
                        "labgate_tool_calls", "labgate_backend_up", "labgate_backend_reconnects"])
        check(value(samples, "labgate_tool_calls_total", tool="append_message", outcome="ok") == 1.0,
              "the gateway counted the tool call")

        up = {"service": "session", "bench": ""}
        scrape_until(port["gateway"], lambda s: value(s, "labgate_backend_up", **up) == 1.0,
                     "the gateway sees labgate-session up")
        services["session"].kill9()
        scrape_until(port["gateway"], lambda s: value(s, "labgate_backend_up", **up) == 0.0,
                     "labgate_backend_up drops when labgate-session is killed")
        services["session"].start()  # the same port
        samples = scrape_until(port["gateway"],
                               lambda s: value(s, "labgate_backend_up", **up) == 1.0,
                               "and comes back when it is restarted")
        check(value(samples, "labgate_backend_reconnects_total", **up) == 1.0,
              "one reconnect is counted")
        check(value(samples, "labgate_backend_reconnects_total", service="actions", bench="") == 0.0,
              "no reconnect of a backend that never went away")
    finally:
        gateway.close()
        for service in services.values():
            service.stop()
    print("metrics: all checks passed")


if __name__ == "__main__":
    main()
