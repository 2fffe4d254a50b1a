"""The deployment files as an operator uses them: every command line in
docker-compose.yml and deploy/kubernetes/ (services, healthchecks, probes) passes the
binaries' own --check-config, and the compose file keeps its contract (healthchecks,
start order, devices from the environment, a stdio profile, a locked-down container, a
gateway token that labgate-serial and the gateways share), validated by docker-compose
itself when it is installed."""
import glob
import os
import shutil
import subprocess
import sys
import tempfile

import yaml

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BIN = os.environ["LABGATE_BIN_DIR"]
BINARIES = {"labgate", "labgate-session", "labgate-serial", "labgate-actions", "labgate-probe"}
# The gateway token's path in the containers; --check-config reads a real one made here.
TOKEN_PATH = "/secrets/gateway.token"
LOCAL_TOKEN = os.path.join(tempfile.mkdtemp(prefix="labgate-deploy-files-"), "gateway.token")
subprocess.run([os.path.join(BIN, "labgate-probe"), "token", LOCAL_TOKEN], check=True,
               capture_output=True)


def check(condition, message):
    if not condition:
        print("FAIL:", message, flush=True)
        sys.exit(1)
    print("ok:", message, flush=True)


def check_config(where, argv):
    check(argv and argv[0] in BINARIES, f"{where}: runs a labgate binary: {argv}")
    if argv[:2] == ["labgate-probe", "token"]:
        return  # it makes the file the others read; running it here is the probe test's job
    argv = [LOCAL_TOKEN if arg == TOKEN_PATH else arg for arg in argv]
    run = subprocess.run([os.path.join(BIN, argv[0])] + argv[1:] + ["--check-config"],
                         capture_output=True, text=True, timeout=30)
    check(run.returncode == 0 and "configuration OK" in run.stdout,
          f"{where}: {' '.join(argv)} --check-config: {run.stdout.strip() or run.stderr.strip()}")


def compose_contract():
    with open(os.path.join(ROOT, "docker-compose.yml")) as f:
        compose = yaml.safe_load(f)
    services = compose["services"]
    for name, service in services.items():
        check_config(f"compose {name}", service["command"])
        check(service.get("read_only") is True and service.get("cap_drop") == ["ALL"] and
              service.get("init") is True, f"compose {name}: init, read-only root, no capabilities")
        check("build" in service, f"compose {name}: has build: (any service may be built first)")
        if "healthcheck" in service:
            test = service["healthcheck"]["test"]
            check(test[0] == "CMD" and test[1] == "labgate-probe", f"compose {name}: probe healthcheck")
            check_config(f"compose {name} healthcheck", test[1:])
    for name in ("session", "serial", "actions", "gateway-http"):
        check("healthcheck" in services[name], f"compose {name} has a healthcheck")
    for name in ("gateway-http", "gateway"):
        depends = services[name]["depends_on"]
        check(all(depends[s]["condition"] == "service_healthy"
                  for s in ("session", "serial", "actions")),
              f"compose {name} waits for healthy services")
    check(services["gateway"].get("profiles") == ["stdio"] and services["gateway"]["stdin_open"],
          "the stdio gateway sits in a profile and keeps stdin open")
    check(all("LABGATE_SERIAL_DEVICE" in d for d in services["serial"]["devices"]),
          "serial devices come from the environment")
    check(services["session"]["volumes"] == ["labgate-data:/data", "labgate-secrets:/secrets:ro"],
          "/data is the writable volume; the gateway token is read only")
    check("--gateway-token-file" in services["session"]["command"],
          "labgate-session trusts the gateway token, so gateways may reserve for their principals")
    check(all(flag in services["serial"]["command"]
              for flag in ("--session-addr", "--publish-inventory")),
          "labgate-serial records to labgate-session and enforces its reservations")
    token_maker = services["gateway-token"]
    check(token_maker["command"] == ["labgate-probe", "token", TOKEN_PATH] and
          token_maker["volumes"] == ["labgate-secrets:/secrets"] and
          token_maker["restart"] == "no", "gateway-token makes the token once, in its volume")
    check(services["serial"]["depends_on"]["gateway-token"]["condition"] ==
          "service_completed_successfully", "serial starts once the token is made")
    for name in ("serial", "gateway-http", "gateway"):
        command = services[name]["command"]
        check(command[command.index("--gateway-token-file") + 1] == TOKEN_PATH and
              services[name]["volumes"] == ["labgate-secrets:/secrets:ro"],
              f"compose {name} reads the gateway token, read-only")
    with open(os.path.join(ROOT, "docker", "Dockerfile")) as f:
        dockerfile = f.read()
    for line in ("EXPOSE 50051 50052 50053 8080", 'ENTRYPOINT ["labgate-entrypoint"]',
                 "labgate-probe"):
        check(line in dockerfile, f"Dockerfile has {line}")
    with open(os.path.join(ROOT, ".env.example")) as f:
        check("LABGATE_SERIAL_DEVICE=" in f.read(), ".env.example sets LABGATE_SERIAL_DEVICE")

    # The entrypoint: a labgate binary runs as named; anything else is gateway flags.
    entry = os.path.join(ROOT, "docker", "entrypoint.sh")
    env = dict(os.environ, PATH=BIN + os.pathsep + os.environ.get("PATH", ""))
    for argv, want in ((["labgate-probe", "--help"], "usage: labgate-probe"),
                       (["--help"], "usage: labgate ")):
        run = subprocess.run(["sh", entry] + argv, capture_output=True, text=True, env=env)
        check(run.returncode == 0 and run.stdout.startswith(want), f"entrypoint {argv}: {want}")

    compose_bin = shutil.which("docker-compose")
    if compose_bin:
        for device in (None, "/dev/ttyUSB0"):
            env = {k: v for k, v in os.environ.items() if not k.startswith("LABGATE_SERIAL")}
            if device:
                env["LABGATE_SERIAL_DEVICE"] = device
            run = subprocess.run([compose_bin, "--project-directory", ROOT, "-f",
                                  os.path.join(ROOT, "docker-compose.yml"), "config"],
                                 capture_output=True, text=True, env=env, cwd=ROOT)
            check(run.returncode == 0, f"docker-compose config (device {device}): {run.stderr[-300:]}")
            if device:
                check(f"{device}:{device}" in run.stdout, "a set device is passed through")
    else:
        print("note: docker-compose not installed; its own validation skipped", flush=True)


def kubernetes_contract():
    files = sorted(glob.glob(os.path.join(ROOT, "deploy", "kubernetes", "*.yaml")))
    check(files, "deploy/kubernetes has manifests")
    kinds = {}
    for path in files:
        with open(path) as f:
            for doc in yaml.safe_load_all(f):
                kinds.setdefault(doc["kind"], []).append(doc["metadata"]["name"])
                if doc["kind"] not in ("DaemonSet", "StatefulSet", "Deployment"):
                    continue
                for container in doc["spec"]["template"]["spec"]["containers"]:
                    where = f"{os.path.basename(path)} {container['name']}"
                    check_config(where, container["command"] + container.get("args", []))
                    probes = [container[p] for p in ("readinessProbe", "livenessProbe")
                              if p in container]
                    check(probes, f"{where} has probes")
                    for probe in probes:
                        check_config(f"{where} probe", probe["exec"]["command"])
    check("labgate-serial" in kinds.get("DaemonSet", []), "labgate-serial is a DaemonSet")
    check("labgate-session" in kinds.get("StatefulSet", []), "labgate-session is a StatefulSet")
    check("labgate-gateway" in kinds.get("Deployment", []) and
          "labgate-gateway" in kinds.get("Service", []), "gateways are a Deployment behind a Service")


compose_contract()
kubernetes_contract()
print("all passed")
