#include "gateway/core/gateway_metrics.h"

namespace labgate::gateway {

GatewayMetrics& GatewayMetrics::Get() {
  static GatewayMetrics* families = [] {
    metrics::Registry& registry = metrics::Default();
    return new GatewayMetrics{
        registry.Counter("labgate_requests_total",
                         "Requests answered, by dialect, transport, method and outcome.",
                         {"dialect", "transport", "method", "outcome"}),
        registry.Histogram("labgate_request_duration_seconds",
                           "Time from taking a request to answering it.", {"dialect", "method"},
                           metrics::LatencyBuckets()),
        registry.Gauge("labgate_requests_in_flight", "Requests taken and not yet answered.",
                       {"dialect"}),
        registry.Counter("labgate_tool_calls_total", "MCP tool calls, by tool and outcome.",
                         {"tool", "outcome"}),
        registry.Histogram("labgate_tool_call_duration_seconds",
                           "Time a tool call took, from the call to its result.", {"tool"},
                           metrics::LatencyBuckets()),
        registry.Gauge("labgate_principals",
                       "Principals known to the gateway: each stdio connection, and each HTTP "
                       "token name (or local) that has made a request.",
                       {"transport"}),
        registry.Gauge("labgate_mcp_sessions", "Initialized stateful MCP sessions.", {"transport"}),
        registry.Gauge("labgate_http_connections", "HTTP connections open."),
        registry.Counter("labgate_http_connections_closed_total",
                         "HTTP connections the server closed or turned away to protect the "
                         "others: header_timeout (no complete request header in time), "
                         "idle_evicted (idle longest at the connection cap), refused (over a "
                         "cap with none idle).",
                         {"reason"}),
        registry.Gauge("labgate_backend_up",
                       "1 when the backend answers its gRPC health check, else 0.",
                       {"service", "bench"}),
        registry.Counter("labgate_backend_reconnects_total",
                         "Times a backend answered again after being seen down.",
                         {"service", "bench"}),
    };
  }();
  return *families;
}

}  // namespace labgate::gateway
