"""A small MCP client over a stdio gateway, for the deployment tests: newline JSON-RPC,
requests answered out of order, each reply delivered to its caller."""
import json
import subprocess
import threading


class StdioGateway:
    def __init__(self, command, log_path):
        self._log = open(log_path, "ab")
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=self._log)
        self._lock = threading.Lock()
        self._next_id = 0
        self._waiting = {}
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                    "clientInfo": {"name": "labgate-deploy-test", "version": "1"}})
        self._send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def _send(self, message):
        line = (json.dumps(message) + "\n").encode()
        with self._lock:
            self.process.stdin.write(line)
            self.process.stdin.flush()

    def _read(self):
        for line in self.process.stdout:
            message = json.loads(line)
            if "id" not in message or "method" in message:
                continue
            with self._lock:
                slot = self._waiting.pop(message["id"], None)
            if slot is not None:
                slot["reply"] = message
                slot["done"].set()

    def request(self, method, params, timeout=30):
        slot = {"done": threading.Event()}
        with self._lock:
            self._next_id += 1
            request_id = self._next_id
            self._waiting[request_id] = slot
        self._send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
        if not slot["done"].wait(timeout):
            raise TimeoutError(f"no reply to {method} within {timeout} s")
        return slot["reply"]

    def call_tool(self, name, arguments, timeout=30):
        """(ok, structured-or-text) of a tools/call."""
        reply = self.request("tools/call", {"name": name, "arguments": arguments}, timeout)
        if "error" in reply:
            return False, f"{reply['error']['code']} {reply['error']['message']}"
        result = reply["result"]
        if result.get("isError"):
            return False, result["content"][0]["text"]
        return True, result.get("structuredContent", result["content"][0]["text"])

    def close(self):
        self.process.stdin.close()
        try:
            self.process.wait(15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self._log.close()
