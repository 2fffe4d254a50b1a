// Settings of the Streamable HTTP transport (flags in main.cc map onto these).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace labgate::gateway::http {

struct HttpOptions {
  std::string host = "127.0.0.1";
  uint16_t port = 0;
  // Serve only the operator routes (health, readiness, metrics), not MCP: the gateway's
  // --metrics-listen listener.
  bool operator_only = false;
  // Host names (any port) or host:port pairs accepted in the Host header; "*" = any.
  std::vector<std::string> allowed_hosts = {"localhost", "127.0.0.1", "[::1]"};
  // Serve HTTP/1.0 requests without a Host header (RFC 9112 lets 1.0 clients omit it); an
  // HTTP/1.1 request without one, or any empty Host, is always 400.
  bool allow_no_host = false;
  // Origins accepted in the Origin header: a host name (any scheme and port) or a full
  // origin such as "https://app.example.com"; "*" = any.
  std::vector<std::string> allowed_origins = {"localhost", "127.0.0.1", "[::1]"};
  // Named bearer tokens; each name is a principal. Empty = no authentication: every
  // loopback client is the one principal `local`. When set, /metrics needs one of them too.
  struct NamedToken {
    std::string name;
    std::string token;
  };
  std::vector<NamedToken> auth_tokens;
  // A principal that makes no request for this long releases its serial ports.
  std::chrono::milliseconds port_idle_release{10 * 60 * 1000};

  size_t max_body_bytes = 4 * 1024 * 1024;
  size_t max_header_bytes = 16 * 1024;
  size_t max_connections = 4096;
  // Connections open at once from one IP address; 0 = no cap (the default: a lab's
  // clients usually share a host, often this one).
  size_t max_connections_per_ip = 0;
  // Requests of one session in flight at once; more get 429.
  size_t max_requests_per_session = 128;
  size_t max_sessions = 10000;
  // A request's header must be complete within this time, counted from the accept for a
  // new connection (which is closed if it sends nothing) and from the request's first byte
  // on a kept-alive one (slowloris).
  std::chrono::milliseconds header_timeout{5000};
  // A request's body must arrive within this time after its header.
  std::chrono::milliseconds read_timeout{10000};
  // A keep-alive connection with no request in progress is closed after this.
  std::chrono::milliseconds keepalive_timeout{120000};
  // Output handed to the socket must be written within this time; a client that stopped
  // reading is disconnected (its SSE events stay in the replay buffer).
  std::chrono::milliseconds write_timeout{60000};
  std::chrono::milliseconds session_idle_timeout{30 * 60 * 1000};
  // The clock idle expiry reads (a session's or principal's last activity, the sweep's
  // cutoffs).
  // Tests move a clock of their own instead of waiting.
  std::function<std::chrono::steady_clock::time_point()> clock = [] {
    return std::chrono::steady_clock::now();
  };
  // A comment line keeps idle SSE streams (and the proxies on the way) alive.
  std::chrono::milliseconds sse_keepalive{25000};
  // Sent as the SSE `retry:` field.
  std::chrono::milliseconds sse_retry{2000};
  // Per-stream replay buffer for Last-Event-ID resumption.
  size_t replay_max_events = 256;
  size_t replay_max_bytes = 1024 * 1024;
  // A stream whose client reads slower than this much queued output is dropped (it can resume).
  size_t max_queued_bytes = 4 * 1024 * 1024;
};

}  // namespace labgate::gateway::http
