// What every MCP connection shares: server identity, the tool catalog and the
// invoker that reaches the gRPC backends.
#pragma once

#include <chrono>
#include <string>

#include "gateway/actions/action_tools.h"
#include "gateway/backends/owner_lease.h"
#include "gateway/backends/tool_invoker.h"
#include "gateway/catalog/tool_catalog.h"

namespace labgate::gateway {

struct ServerConfig {
  std::string version = "0.1.0";
  std::string instructions;
  size_t tools_page_size = 100;
  std::chrono::milliseconds call_deadline{30000};
};

struct McpServer {
  ServerConfig config;
  const ToolCatalog* catalog = nullptr;
  ToolInvoker* invoker = nullptr;
  ActionTools* actions = nullptr;       // null when no actions service is configured
  const OwnerLeases* leases = nullptr;  // serial port ownership, per connection
};

// A fresh owner id for one connection, e.g. "stdio-3f9c2a1b7d4e8f60".
std::string NewOwnerId(const std::string& transport);

// The default `instructions` text returned by initialize.
std::string DefaultInstructions();

}  // namespace labgate::gateway
