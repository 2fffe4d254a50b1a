// The gateway's calls on labgate.tasks.v1.TaskService: in process when labgate-session is
// embedded (common/local_call.h), over gRPC otherwise; `owner` is the principal a call acts for
// ("" for the gateway itself, as a task's worker).
#pragma once

#include <grpcpp/channel.h>

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "gateway/backends/backend_channels.h"
#include "labgate/tasks/v1/tasks.grpc.pb.h"

namespace labgate::gateway {

namespace tasks_v1 = ::labgate::tasks::v1;

class TaskClient {
 public:
  // `channels` must outlive this.
  explicit TaskClient(const BackendChannels* channels,
                      std::chrono::milliseconds deadline = std::chrono::seconds(10));

  template <typename Response>
  using Done = std::function<void(absl::StatusOr<Response>)>;

  void Create(const std::string& owner, const tasks_v1::CreateTaskRequest& request,
              Done<tasks_v1::TaskState> done);
  void Get(const std::string& owner, const std::string& id, Done<tasks_v1::TaskState> done);
  void Update(const std::string& owner, const std::string& id, const std::string& responses_json,
              Done<tasks_v1::UpdateTaskResponse> done);
  void Cancel(const std::string& owner, const std::string& id, Done<tasks_v1::TaskState> done);
  void AskForInput(const std::string& id, const std::string& requests_json,
                   Done<tasks_v1::TaskState> done);
  void Report(const std::string& id, const std::string& status_message,
              Done<tasks_v1::TaskState> done);
  void Finish(const tasks_v1::FinishTaskRequest& request, Done<tasks_v1::TaskState> done);
  void Heartbeat(const std::string& worker, Done<tasks_v1::HeartbeatResponse> done);
  void List(int limit, Done<tasks_v1::ListTasksResponse> done);

  // For the Watch stream (always gRPC; in process when embedded). Null without a backend.
  std::shared_ptr<grpc::Channel> channel() const { return channel_; }
  tasks_v1::TaskService::Stub* stub() const { return stub_.get(); }

 private:
  using Stub = tasks_v1::TaskService::Stub;
  template <typename Request, typename Response>
  using RemoteStart = std::function<void(Stub*, grpc::ClientContext*, const Request*, Response*,
                                         std::function<void(grpc::Status)>)>;
  template <typename Request, typename Response>
  void Call(const char* method, const std::string& owner, const Request& request,
            RemoteStart<Request, Response> remote, Done<Response> done);

  LocalCalls* const local_;
  const std::shared_ptr<grpc::Channel> channel_;
  const std::unique_ptr<Stub> stub_;
  const std::chrono::milliseconds deadline_;
};

}  // namespace labgate::gateway
