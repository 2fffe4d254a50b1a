#include "gateway/tasks/task_client.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/call_context.h"
#include "common/caller_metadata.h"
#include "common/grpc_callback.h"
#include "common/grpc_status.h"
#include "common/local_call.h"

namespace labgate::gateway {

TaskClient::TaskClient(const BackendChannels* channels, std::chrono::milliseconds deadline)
    : local_(channels->LocalFor(tasks_v1::TaskService::service_full_name())),
      channel_(channels->For(tasks_v1::TaskService::service_full_name())),
      stub_(channel_ ? tasks_v1::TaskService::NewStub(channel_) : nullptr),
      deadline_(deadline) {}

template <typename Request, typename Response>
void TaskClient::Call(const char* method, const std::string& owner, const Request& request,
                      RemoteStart<Request, Response> remote, Done<Response> done) {
  if (local_ != nullptr) {
    const LocalMethods::Method* served = local_->methods().Find(
        LocalMethods::Path(tasks_v1::TaskService::service_full_name(), method));
    if (served == nullptr) {
      return done(absl::UnimplementedError(absl::StrCat("TaskService.", method, " is not served")));
    }
    LocalCallOptions options;
    options.principal = owner.empty() ? std::string(kAnonymousPrincipal) : owner;
    options.deadline = absl::Now() + absl::FromChrono(deadline_);
    local_->Start(
        *served, std::move(options), std::make_unique<Request>(request),
        [done = std::move(done)](const absl::Status& status,
                                 const std::shared_ptr<const google::protobuf::Message>& response) {
          if (!status.ok()) return done(status);
          done(*static_cast<const Response*>(response.get()));
        });
    return;
  }
  if (stub_ == nullptr) {
    return done(absl::UnavailableError("no task service: labgate-session is not configured"));
  }
  struct Pending {
    grpc::ClientContext context;
    Request request;
    Response response;
  };
  auto pending = std::make_shared<Pending>();
  pending->request = request;
  pending->context.set_deadline(std::chrono::system_clock::now() + deadline_);
  if (!owner.empty()) pending->context.AddMetadata(kOwnerMetadataKey, owner);
  remote(stub_.get(), &pending->context, &pending->request, &pending->response,
         OncePointerCallback([pending, done = std::move(done)](const grpc::Status& status) {
           if (!status.ok()) return done(FromGrpcStatus(status));
           done(std::move(pending->response));
         }));
}

void TaskClient::Create(const std::string& owner, const tasks_v1::CreateTaskRequest& request,
                        Done<tasks_v1::TaskState> done) {
  Call<tasks_v1::CreateTaskRequest, tasks_v1::TaskState>(
      "Create", owner, request,
      [](Stub* stub, grpc::ClientContext* context, const tasks_v1::CreateTaskRequest* in,
         tasks_v1::TaskState* out, std::function<void(grpc::Status)> then) {
        stub->async()->Create(context, in, out, std::move(then));
      },
      std::move(done));
}

void TaskClient::Get(const std::string& owner, const std::string& id,
                     Done<tasks_v1::TaskState> done) {
  tasks_v1::GetTaskRequest request;
  request.set_id(id);
  Call<tasks_v1::GetTaskRequest, tasks_v1::TaskState>(
      "Get", owner, request,
      [](Stub* stub, grpc::ClientContext* context, const tasks_v1::GetTaskRequest* in,
         tasks_v1::TaskState* out, std::function<void(grpc::Status)> then) {
        stub->async()->Get(context, in, out, std::move(then));
      },
      std::move(done));
}

void TaskClient::Update(const std::string& owner, const std::string& id,
                        const std::string& responses_json,
                        Done<tasks_v1::UpdateTaskResponse> done) {
  tasks_v1::UpdateTaskRequest request;
  request.set_id(id);
  request.set_input_responses_json(responses_json);
  Call<tasks_v1::UpdateTaskRequest, tasks_v1::UpdateTaskResponse>(
      "Update", owner, request,
      [](Stub* stub, grpc::ClientContext* context, const tasks_v1::UpdateTaskRequest* in,
         tasks_v1::UpdateTaskResponse* out, std::function<void(grpc::Status)> then) {
        stub->async()->Update(context, in, out, std::move(then));
      },
      std::move(done));
}

void TaskClient::Cancel(const std::string& owner, const std::string& id,
                        Done<tasks_v1::TaskState> done) {
  tasks_v1::CancelTaskRequest request;
  request.set_id(id);
  Call<tasks_v1::CancelTaskRequest, tasks_v1::TaskState>(
      "Cancel", owner, request,
      [](Stub* stub, grpc::ClientContext* context, const tasks_v1::CancelTaskRequest* in,
         tasks_v1::TaskState* out, std::function<void(grpc::Status)> then) {
        stub->async()->Cancel(context, in, out, std::move(then));
      },
      std::move(done));
}

void TaskClient::AskForInput(const std::string& id, const std::string& requests_json,
                             Done<tasks_v1::TaskState> done) {
  tasks_v1::AskForInputRequest request;
  request.set_id(id);
  request.set_input_requests_json(requests_json);
  Call<tasks_v1::AskForInputRequest, tasks_v1::TaskState>(
      "AskForInput", "", request,
      [](Stub* stub, grpc::ClientContext* context, const tasks_v1::AskForInputRequest* in,
         tasks_v1::TaskState* out, std::function<void(grpc::Status)> then) {
        stub->async()->AskForInput(context, in, out, std::move(then));
      },
      std::move(done));
}

void TaskClient::Report(const std::string& id, const std::string& status_message,
                        Done<tasks_v1::TaskState> done) {
  tasks_v1::ReportTaskRequest request;
  request.set_id(id);
  request.set_status_message(status_message);
  Call<tasks_v1::ReportTaskRequest, tasks_v1::TaskState>(
      "Report", "", request,
      [](Stub* stub, grpc::ClientContext* context, const tasks_v1::ReportTaskRequest* in,
         tasks_v1::TaskState* out, std::function<void(grpc::Status)> then) {
        stub->async()->Report(context, in, out, std::move(then));
      },
      std::move(done));
}

void TaskClient::Finish(const tasks_v1::FinishTaskRequest& request,
                        Done<tasks_v1::TaskState> done) {
  Call<tasks_v1::FinishTaskRequest, tasks_v1::TaskState>(
      "Finish", "", request,
      [](Stub* stub, grpc::ClientContext* context, const tasks_v1::FinishTaskRequest* in,
         tasks_v1::TaskState* out, std::function<void(grpc::Status)> then) {
        stub->async()->Finish(context, in, out, std::move(then));
      },
      std::move(done));
}

void TaskClient::Heartbeat(const std::string& worker, Done<tasks_v1::HeartbeatResponse> done) {
  tasks_v1::HeartbeatRequest request;
  request.set_worker(worker);
  Call<tasks_v1::HeartbeatRequest, tasks_v1::HeartbeatResponse>(
      "Heartbeat", "", request,
      [](Stub* stub, grpc::ClientContext* context, const tasks_v1::HeartbeatRequest* in,
         tasks_v1::HeartbeatResponse* out, std::function<void(grpc::Status)> then) {
        stub->async()->Heartbeat(context, in, out, std::move(then));
      },
      std::move(done));
}

void TaskClient::List(int limit, Done<tasks_v1::ListTasksResponse> done) {
  tasks_v1::ListTasksRequest request;
  request.set_limit(limit);
  Call<tasks_v1::ListTasksRequest, tasks_v1::ListTasksResponse>(
      "List", "", request,
      [](Stub* stub, grpc::ClientContext* context, const tasks_v1::ListTasksRequest* in,
         tasks_v1::ListTasksResponse* out, std::function<void(grpc::Status)> then) {
        stub->async()->List(context, in, out, std::move(then));
      },
      std::move(done));
}

}  // namespace labgate::gateway
