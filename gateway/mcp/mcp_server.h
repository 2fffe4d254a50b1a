// What every MCP connection shares: server identity, the tool catalog and the
// invoker that reaches the gRPC backends.
#pragma once

#include <chrono>
#include <string>

#include "gateway/actions/action_tools.h"
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
  ActionTools* actions = nullptr;  // null when no actions service is configured
};

// The default `instructions` text returned by initialize.
std::string DefaultInstructions();

}  // namespace labgate::gateway
