// The console's view of MCP tasks (issue 34): every live task with its state, owner, what it
// does and its age (the task service's List, as the gateway may see everyone's), as JSON for
// the page.
#pragma once

#include <grpcpp/channel.h>

#include <chrono>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>

#include "absl/status/statusor.h"
#include "labgate/tasks/v1/tasks.grpc.pb.h"

namespace labgate::gateway::console {

class TaskViews {
 public:
  using JsonDone = std::function<void(absl::StatusOr<nlohmann::json>)>;

  // `channel` null: no task service, and List answers none.
  TaskViews(const std::shared_ptr<grpc::Channel>& channel, std::chrono::milliseconds deadline);

  // {"tasks": [newest first: {taskId, status, statusMessage?, owner, worker, description,
  // createdAt, lastUpdatedAt, age_s}]}, at most 200.
  void List(JsonDone done) const;

 private:
  const std::shared_ptr<labgate::tasks::v1::TaskService::Stub> stub_;
  const std::chrono::milliseconds deadline_;
};

}  // namespace labgate::gateway::console
