#include "gateway/console/task_views.h"

#include <string>
#include <utility>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/grpc_status.h"

namespace labgate::gateway::console {

namespace tasks_v1 = labgate::tasks::v1;
using json = nlohmann::json;

namespace {

constexpr int kShown = 200;

// One task as the page shows it: its state without its result or input requests.
json Row(const tasks_v1::TaskState& state, absl::Time now) {
  const json task = json::parse(state.task_json(), nullptr, /*allow_exceptions=*/false);
  json row = {{"taskId", task.value("taskId", "")},
              {"status", task.value("status", "")},
              {"owner", state.owner()},
              {"worker", state.worker()},
              {"description", state.description()},
              {"createdAt", task.value("createdAt", "")},
              {"lastUpdatedAt", task.value("lastUpdatedAt", "")}};
  if (task.contains("statusMessage")) row["statusMessage"] = task["statusMessage"];
  absl::Time created;
  std::string error;
  if (absl::ParseTime(absl::RFC3339_full, row["createdAt"].get<std::string>(), &created, &error)) {
    row["age_s"] = absl::ToInt64Seconds(now - created);
  }
  return row;
}

}  // namespace

TaskViews::TaskViews(const std::shared_ptr<grpc::Channel>& channel,
                     std::chrono::milliseconds deadline)
    : stub_(channel ? tasks_v1::TaskService::NewStub(channel) : nullptr), deadline_(deadline) {}

void TaskViews::List(JsonDone done) const {
  if (stub_ == nullptr) return done(json{{"tasks", json::array()}});
  struct Call {
    grpc::ClientContext context;
    tasks_v1::ListTasksRequest request;
    tasks_v1::ListTasksResponse response;
  };
  auto call = std::make_shared<Call>();
  call->request.set_limit(kShown);
  call->context.set_deadline(std::chrono::system_clock::now() + deadline_);
  stub_->async()->List(&call->context, &call->request, &call->response,
                       [call, done = std::move(done)](const grpc::Status& status) {
                         if (!status.ok()) return done(FromGrpcStatus(status));
                         const absl::Time now = absl::Now();
                         json tasks = json::array();
                         for (const tasks_v1::TaskState& state : call->response.tasks()) {
                           tasks.push_back(Row(state, now));
                         }
                         done(json{{"tasks", std::move(tasks)}});
                       });
}

}  // namespace labgate::gateway::console
