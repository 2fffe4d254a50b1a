#include "session-service/tasks/task_grpc_service.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "common/call_finish.h"
#include "common/grpc_status.h"

namespace labgate::session {
namespace {

using nlohmann::json;

constexpr int kDefaultListLimit = 1000;
constexpr size_t kMaxStatusMessageBytes = 512;

std::string Dump(const json& value) {
  return value.dump(-1, ' ', false, json::error_handler_t::replace);
}

// A JSON object from `text`, or INVALID_ARGUMENT naming `field`.
absl::StatusOr<json> ParseObject(const std::string& text, const char* field) {
  json parsed = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!parsed.is_object()) {
    return absl::InvalidArgumentError(absl::StrCat(field, " must be a JSON object"));
  }
  return parsed;
}

absl::Status OnlyLabgate(const CallContext* call, const char* what) {
  if (call->speaks_for_principals()) return absl::OkStatus();
  return absl::PermissionDeniedError(
      absl::StrCat("caller ", call->principal(), " may not ", what,
                   ": only labgate's own processes may (a trusted gateway certificate or the "
                   "gateway token)"));
}

// Finishes `call` with the task, or with the desk's refusal.
TaskDesk::Done Answer(CallContext* call, bool for_worker, tasks_v1::TaskState* response) {
  return [call, for_worker, response](absl::StatusOr<Task> task) {
    if (task.ok()) TaskToProto(*task, for_worker, response);
    call->Finish(task.status());
  };
}

}  // namespace

void TaskToProto(const Task& task, bool for_worker, tasks_v1::TaskState* out) {
  out->set_task_json(Dump(TaskToJson(task)));
  out->set_owner(task.owner);
  out->set_worker(task.worker);
  out->set_description(task.description);
  out->set_revision(task.revision);
  if (for_worker) out->set_responses_json(Dump(task.responses));
}

TaskGrpcService::TaskGrpcService(std::unique_ptr<TaskDesk> desk, CallerAuthOptions auth)
    : desk_(std::move(desk)), auth_(std::move(auth)) {}

void TaskGrpcService::ServeCreate(CallContext* call, const tasks_v1::CreateTaskRequest* request,
                                  tasks_v1::TaskState* response) {
  if (absl::Status allowed = OnlyLabgate(call, "create tasks"); !allowed.ok()) {
    return FinishNow(call, allowed);
  }
  if (call->principal().empty()) {
    return FinishNow(call, absl::InvalidArgumentError("a task needs an owner (labgate-owner)"));
  }
  if ((request->has_ttl_ms() && request->ttl_ms() <= 0) ||
      (request->has_poll_interval_ms() && request->poll_interval_ms() <= 0)) {
    return FinishNow(
        call, absl::InvalidArgumentError("ttl_ms and poll_interval_ms, when given, are positive"));
  }
  NewTask task;
  task.owner = call->principal();
  if (request->has_ttl_ms()) task.ttl = std::chrono::milliseconds(request->ttl_ms());
  if (request->has_poll_interval_ms()) {
    task.poll_interval = std::chrono::milliseconds(request->poll_interval_ms());
  }
  task.worker = request->worker();
  task.description = request->description();
  desk_->Create(std::move(task), Answer(call, /*for_worker=*/false, response));
}

void TaskGrpcService::ServeGet(CallContext* call, const tasks_v1::GetTaskRequest* request,
                               tasks_v1::TaskState* response) {
  absl::StatusOr<Task> task = desk_->Get(request->id(), call->principal());
  // A gateway (the task's worker among them) sees the answers too.
  if (task.ok()) TaskToProto(*task, call->speaks_for_principals(), response);
  FinishNow(call, task.status());
}

void TaskGrpcService::ServeUpdate(CallContext* call, const tasks_v1::UpdateTaskRequest* request,
                                  tasks_v1::UpdateTaskResponse* response) {
  absl::StatusOr<json> responses =
      ParseObject(request->input_responses_json(), "input_responses_json");
  if (!responses.ok()) return FinishNow(call, responses.status());
  desk_->Answer(request->id(), call->principal(), *responses,
                [call, response](absl::StatusOr<TaskDesk::Answered> answered) {
                  if (answered.ok()) {
                    response->set_taken_json(Dump(answered->taken));
                    TaskToProto(answered->task, call->speaks_for_principals(),
                                response->mutable_task());
                  }
                  call->Finish(answered.status());
                });
}

void TaskGrpcService::ServeCancel(CallContext* call, const tasks_v1::CancelTaskRequest* request,
                                  tasks_v1::TaskState* response) {
  desk_->Cancel(request->id(), call->principal(), Answer(call, /*for_worker=*/false, response));
}

void TaskGrpcService::ServeAskForInput(CallContext* call,
                                       const tasks_v1::AskForInputRequest* request,
                                       tasks_v1::TaskState* response) {
  if (absl::Status allowed = OnlyLabgate(call, "ask for a task's input"); !allowed.ok()) {
    return FinishNow(call, allowed);
  }
  absl::StatusOr<json> requests =
      ParseObject(request->input_requests_json(), "input_requests_json");
  if (!requests.ok()) return FinishNow(call, requests.status());
  desk_->AskForInput(request->id(), *requests, Answer(call, /*for_worker=*/true, response));
}

void TaskGrpcService::ServeReport(CallContext* call, const tasks_v1::ReportTaskRequest* request,
                                  tasks_v1::TaskState* response) {
  if (absl::Status allowed = OnlyLabgate(call, "report a task's progress"); !allowed.ok()) {
    return FinishNow(call, allowed);
  }
  if (request->status_message().size() > kMaxStatusMessageBytes) {
    return FinishNow(call, absl::InvalidArgumentError(
                               absl::StrCat("status_message is ", request->status_message().size(),
                                            " bytes; at most ", kMaxStatusMessageBytes)));
  }
  desk_->Report(request->id(), request->status_message(),
                Answer(call, /*for_worker=*/true, response));
}

void TaskGrpcService::ServeFinish(CallContext* call, const tasks_v1::FinishTaskRequest* request,
                                  tasks_v1::TaskState* response) {
  if (absl::Status allowed = OnlyLabgate(call, "finish a task"); !allowed.ok()) {
    return FinishNow(call, allowed);
  }
  if (request->has_result_json()) {
    absl::StatusOr<json> result = ParseObject(request->result_json(), "result_json");
    if (!result.ok()) return FinishNow(call, result.status());
    return desk_->Complete(request->id(), *std::move(result),
                           Answer(call, /*for_worker=*/true, response));
  }
  if (request->has_error_json()) {
    absl::StatusOr<json> error = ParseObject(request->error_json(), "error_json");
    if (!error.ok()) return FinishNow(call, error.status());
    if (!error->contains("code") || !(*error)["code"].is_number_integer() ||
        !error->contains("message") || !(*error)["message"].is_string()) {
      return FinishNow(call, absl::InvalidArgumentError(
                                 "error_json is a JSON-RPC error: an integer code and a message"));
    }
    const std::string why = request->status_message().empty()
                                ? (*error)["message"].get<std::string>()
                                : request->status_message();
    return desk_->Fail(request->id(), *std::move(error), why,
                       Answer(call, /*for_worker=*/true, response));
  }
  FinishNow(call, absl::InvalidArgumentError("a task finishes with result_json or error_json"));
}

void TaskGrpcService::ServeHeartbeat(CallContext* call, const tasks_v1::HeartbeatRequest* request,
                                     tasks_v1::HeartbeatResponse* response) {
  if (absl::Status allowed = OnlyLabgate(call, "report as a task worker"); !allowed.ok()) {
    return FinishNow(call, allowed);
  }
  response->set_tasks(desk_->Heartbeat(request->worker()));
  FinishNow(call, absl::OkStatus());
}

void TaskGrpcService::ServeList(CallContext* call, const tasks_v1::ListTasksRequest* request,
                                tasks_v1::ListTasksResponse* response) {
  const size_t limit = request->limit() > 0 ? request->limit() : kDefaultListLimit;
  // A gateway speaking for no one lists everyone's (its console); anyone else its own.
  const bool everyone = call->speaks_for_principals() && call->principal() == kAnonymousPrincipal;
  const std::string owner = everyone ? std::string() : call->principal();
  for (const Task& task : desk_->List(owner, limit)) {
    TaskToProto(task, /*for_worker=*/false, response->add_tasks());
  }
  FinishNow(call, absl::OkStatus());
}

grpc::ServerWriteReactor<tasks_v1::TaskState>* TaskGrpcService::Watch(
    grpc::CallbackServerContext* context, const tasks_v1::WatchTasksRequest* /*request*/) {
  absl::StatusOr<Caller> caller = auth_.Identify(*context);
  grpc::Status refusal = grpc::Status::OK;
  if (!caller.ok()) {
    refusal = ToGrpcStatus(caller.status());
  } else if (!caller->speaks_for_principals) {
    refusal = grpc::Status(grpc::StatusCode::PERMISSION_DENIED,
                           "only labgate's own processes may watch every task");
  }
  return new TaskWatchReactor(desk_.get(), &watches_, refusal);
}

void TaskGrpcService::FinishWatchStreams() {
  watches_.CloseAll(grpc::Status(grpc::StatusCode::UNAVAILABLE, "tasks are shutting down"));
}

void TaskGrpcService::AddLocalMethods(LocalMethods* methods) {
  const std::string service = tasks_v1::TaskService::service_full_name();
  methods->Add(service, "Create", this, &TaskGrpcService::ServeCreate);
  methods->Add(service, "Get", this, &TaskGrpcService::ServeGet);
  methods->Add(service, "Update", this, &TaskGrpcService::ServeUpdate);
  methods->Add(service, "Cancel", this, &TaskGrpcService::ServeCancel);
  methods->Add(service, "AskForInput", this, &TaskGrpcService::ServeAskForInput);
  methods->Add(service, "Report", this, &TaskGrpcService::ServeReport);
  methods->Add(service, "Finish", this, &TaskGrpcService::ServeFinish);
  methods->Add(service, "Heartbeat", this, &TaskGrpcService::ServeHeartbeat);
  methods->Add(service, "List", this, &TaskGrpcService::ServeList);
}

}  // namespace labgate::session
