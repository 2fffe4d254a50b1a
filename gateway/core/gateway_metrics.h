// The gateway's metric families, all in one place (docs/OPERATIONS.md lists them). The
// embedded services register their own (serial-service, session-service, actions-service),
// in the same process-wide registry, so the gateway's /metrics covers them too.
#pragma once

#include "common/metrics/metrics.h"

namespace labgate::gateway {

struct GatewayMetrics {
  // Requests (gateway/core/request_trace.cc).
  metrics::CounterFamily& requests;           // dialect, transport, method, outcome
  metrics::HistogramFamily& request_seconds;  // dialect, method
  metrics::GaugeFamily& requests_in_flight;   // dialect
  // Tool calls (gateway/mcp/mcp_engine.cc).
  metrics::CounterFamily& tool_calls;           // tool, outcome
  metrics::HistogramFamily& tool_call_seconds;  // tool
  // Who is connected.
  metrics::GaugeFamily& principals;                 // transport
  metrics::GaugeFamily& mcp_sessions;               // transport
  metrics::GaugeFamily& http_connections;           // (none)
  metrics::CounterFamily& http_connections_closed;  // reason
  // Backends (gateway/app/backend_watch.cc).
  metrics::GaugeFamily& backend_up;            // service, bench
  metrics::CounterFamily& backend_reconnects;  // service, bench

  // Registers every family on first use.
  static GatewayMetrics& Get();
};

}  // namespace labgate::gateway
