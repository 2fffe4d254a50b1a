// The proto-derived tools (session and serial services) as an MCP tool provider.
#pragma once

#include <functional>

#include "gateway/backends/owner_lease.h"
#include "gateway/backends/tool_invoker.h"
#include "gateway/catalog/tool_catalog.h"
#include "gateway/mcp/providers.h"
#include "gateway/tools/call_notices.h"
#include "gateway/tools/port_event_log.h"

namespace labgate::gateway {

// The MCP CallToolResult for a finished backend call: structuredContent plus the same
// JSON as text, or isError with "CODE: message". (A success is sent serialized once, by
// StructuredResult, as this object.)
nlohmann::json ToolResultJson(const absl::StatusOr<nlohmann::json>& outcome);

class CatalogTools final : public ToolProvider {
 public:
  // `leases` may be null (no serial service).
  CatalogTools(const ToolCatalog* catalog, ToolInvoker* invoker, const OwnerLeases* leases,
               std::chrono::milliseconds deadline)
      : catalog_(catalog), invoker_(invoker), leases_(leases), deadline_(deadline) {}

  std::vector<nlohmann::json> ListTools() const override;
  bool HasTool(const std::string& name) const override;
  void CallTool(const std::string& name, const nlohmann::json& arguments,
                std::shared_ptr<RequestContext> context, ToolDone done) override;

  // Set before serving: `ports_changed` when a call opened or closed a port (resource
  // list_changed), `port_touched` with the port every successful serial call acted on.
  void OnPortsChanged(std::function<void()> ports_changed) {
    ports_changed_ = std::move(ports_changed);
  }
  void OnPortTouched(std::function<void(const std::string&)> port_touched) {
    port_touched_ = std::move(port_touched);
  }
  // Follows each port a stateful-era call opens, to log what happens to it later.
  void SetPortEventLog(PortEventLog* port_events) { port_events_ = port_events; }

 private:
  // The backend call's deadline, owner and reachability reports, for a call or its retry.
  ToolInvoker::Options CallOptions(const std::shared_ptr<RequestContext>& context);
  // Logs, notices and the result of a finished call.
  void Finish(const ToolBinding& tool, const nlohmann::json& arguments,
              std::chrono::steady_clock::time_point started,
              const std::shared_ptr<RequestContext>& context,
              absl::StatusOr<nlohmann::json> outcome, const ToolDone& done);

  const ToolCatalog* catalog_;
  ToolInvoker* invoker_;
  const OwnerLeases* leases_;
  std::chrono::milliseconds deadline_;
  BackendHealth health_;
  std::function<void()> ports_changed_;
  std::function<void(const std::string&)> port_touched_;
  PortEventLog* port_events_ = nullptr;
};

}  // namespace labgate::gateway
