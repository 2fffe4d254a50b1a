// The proto-derived tools (session and serial services) as an MCP tool provider.
#pragma once

#include <functional>

#include "gateway/backends/owner_lease.h"
#include "gateway/backends/tool_invoker.h"
#include "gateway/catalog/tool_catalog.h"
#include "gateway/mcp/providers.h"
#include "gateway/mcp/task_host.h"
#include "gateway/tools/call_notices.h"
#include "gateway/tools/port_event_log.h"
#include "gateway/tools/write_confirmation.h"

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
  TaskSupport TaskSupportOf(const std::string& name) const override;
  // Whether the call is expected to take at least the task threshold (its annotation's
  // duration_fields).
  bool RunsLong(const std::string& name, const nlohmann::json& arguments) const override;
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
  // Calls expected to take this long or longer become tasks, when their tool allows and their
  // client declares the tasks extension (--task-threshold-ms).
  void SetTaskThreshold(std::chrono::milliseconds threshold) { task_threshold_ = threshold; }
  // Where a held write may be approved besides the client (the console's board).
  void SetApprovalDesk(ApprovalDesk desk) { approvals_ = std::move(desk); }
  // Where a call held for a person's approval becomes a task, for a client that declares the
  // tasks extension (null: it waits in its request).
  void SetTaskHost(TaskHost* tasks) { tasks_ = tasks; }
  // Follows each port a stateful-era call opens, to log what happens to it later.
  void SetPortEventLog(PortEventLog* port_events) { port_events_ = port_events; }

 private:
  // The backend call's deadline (the call's own expected duration more than the usual one),
  // owner and reachability reports, for a call or its retry.
  ToolInvoker::Options CallOptions(const ToolBinding& tool, const nlohmann::json& arguments,
                                   const std::shared_ptr<RequestContext>& context);
  // Whether a call of `tool` held for approval becomes a task: its tool may be one, the client
  // declares the extension, and the call is not already a task's work.
  bool HoldsAsTask(const ToolBinding& tool, const RequestContext& context) const;
  // The held call as a task: the request answers with the task at once, and the approval (from
  // the task's input requests or the console) and the retry run as the task's work.
  void HoldAsTask(const absl::Status& refusal, const ToolBinding* tool,
                  const std::shared_ptr<const nlohmann::json>& arguments,
                  std::chrono::steady_clock::time_point started,
                  const std::shared_ptr<RequestContext>& context, ToolDone done);
  // The call to the backend, once the principal's serial Lease (if any) has had its answer.
  void Invoke(const ToolBinding* tool, const std::shared_ptr<const nlohmann::json>& kept,
              bool confirmable, std::chrono::steady_clock::time_point started,
              const std::shared_ptr<RequestContext>& context, ToolDone done);
  // Logs, notices and the result of a finished call.
  void Finish(const ToolBinding& tool, const nlohmann::json& arguments,
              std::chrono::steady_clock::time_point started,
              const std::shared_ptr<RequestContext>& context, absl::StatusOr<BackendReply> outcome,
              const ToolDone& done);

  const ToolCatalog* catalog_;
  ToolInvoker* invoker_;
  const OwnerLeases* leases_;
  std::chrono::milliseconds deadline_;
  BackendHealth health_;
  std::function<void()> ports_changed_;
  std::function<void(const std::string&)> port_touched_;
  PortEventLog* port_events_ = nullptr;
  ApprovalDesk approvals_;
  TaskHost* tasks_ = nullptr;
  std::chrono::milliseconds task_threshold_{5000};
};

}  // namespace labgate::gateway
