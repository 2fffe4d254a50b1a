// The proto-derived tools (session and serial services) as an MCP tool provider.
#pragma once

#include "gateway/backends/owner_lease.h"
#include "gateway/backends/tool_invoker.h"
#include "gateway/catalog/tool_catalog.h"
#include "gateway/mcp/providers.h"

namespace labgate::gateway {

// The MCP CallToolResult for a finished backend call: structuredContent plus the same
// JSON as text, or isError with "CODE: message".
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
                std::shared_ptr<RequestContext> context, JsonDone done) override;

 private:
  const ToolCatalog* catalog_;
  ToolInvoker* invoker_;
  const OwnerLeases* leases_;
  std::chrono::milliseconds deadline_;
};

}  // namespace labgate::gateway
