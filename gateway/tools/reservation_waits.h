// The reserve tool as assistants use it (issue 32). The reservation service answers at once:
// granted, waiting or not granted. Around that answer:
//   - a granted or waiting reservation's result links its resource, labgate://reservations/{id},
//     whose updates a client can subscribe to (resources/subscribe, or subscriptions/listen in
//     the 2026 era, where reserve always returns at once);
//   - in the 2025 era, a reserve with wait_s that must wait waits inside the call: progress
//     notifications carry its place in the queue, the grant is the result, and a cancelled call
//     leaves the queue (its reservation is released).
// The other reservation tools are the catalog's as they are.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "gateway/backends/reservation_watch.h"
#include "gateway/backends/tool_invoker.h"
#include "gateway/catalog/tool_catalog.h"
#include "gateway/mcp/providers.h"

namespace labgate::gateway {

inline constexpr char kReservationUriPrefix[] = "labgate://reservations/";

class ReservationWaits final : public ToolProvider {
 public:
  // `tools` answers the reserve call itself (and is where the tool is listed); `invoker` and
  // `catalog` release a reservation whose caller stopped waiting.
  ReservationWaits(ToolProvider* tools, const ToolCatalog* catalog, ToolInvoker* invoker,
                   ReservationWatch* watch, std::chrono::milliseconds deadline)
      : tools_(tools), catalog_(catalog), invoker_(invoker), watch_(watch), deadline_(deadline) {}

  std::vector<nlohmann::json> ListTools() const override { return {}; }
  bool HasTool(const std::string& name) const override { return name == "reserve"; }
  // As the tool's annotation says: a reserve that may wait becomes a task.
  TaskSupport TaskSupportOf(const std::string& name) const override {
    return tools_->TaskSupportOf(name);
  }
  bool RunsLong(const std::string& name, const nlohmann::json& arguments) const override {
    return tools_->RunsLong(name, arguments);
  }
  void CallTool(const std::string& name, const nlohmann::json& arguments,
                std::shared_ptr<RequestContext> context, ToolDone done) override;

 private:
  struct Wait;
  void StartWaiting(const nlohmann::json& reservation,
                    const std::shared_ptr<RequestContext>& context, ToolDone done);
  // Ends `wait` with `result` unless it has ended; true when this call ended it.
  static bool Finish(const std::shared_ptr<Wait>& wait, absl::StatusOr<ToolResult> result);
  void Release(const std::string& id, const std::string& owner);

  ToolProvider* const tools_;
  const ToolCatalog* const catalog_;
  ToolInvoker* const invoker_;
  ReservationWatch* const watch_;
  const std::chrono::milliseconds deadline_;
};

// A reserve's result with its reservation's resource linked.
nlohmann::json WithReservationLink(nlohmann::json result, const std::string& id);
// What a waiting reserve's progress says: "waiting: 2nd in the queue for psu-1".
std::string QueueMessage(const ReservationWatch::Reservation& reservation);

}  // namespace labgate::gateway
