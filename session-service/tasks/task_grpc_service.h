// labgate.tasks.v1.TaskService over a TaskDesk, on the gRPC callback API and for in-process
// calls (common/local_call.h). A task's owner is always the caller's principal, as the service's
// CallerAuth establishes it; the worker's methods and Watch are labgate's own processes' alone.
#pragma once

#include <memory>

#include "common/caller_auth.h"
#include "common/grpc_unary_call.h"
#include "common/local_methods.h"
#include "labgate/tasks/v1/tasks.grpc.pb.h"
#include "session-service/tasks/task_desk.h"
#include "session-service/tasks/task_watch.h"

namespace labgate::session {

namespace tasks_v1 = ::labgate::tasks::v1;

// The name grpc.health.v1 reports the service under.
inline constexpr char kTaskServiceName[] = "labgate.tasks.v1.TaskService";

class TaskGrpcService : public tasks_v1::TaskService::CallbackService {
 public:
  TaskGrpcService(std::unique_ptr<TaskDesk> desk, CallerAuthOptions auth);

#define LABGATE_TASK_UNARY(Method, Request, Response)                                              \
  grpc::ServerUnaryReactor* Method(grpc::CallbackServerContext* context,                           \
                                   const tasks_v1::Request* request, tasks_v1::Response* response) \
      override {                                                                                   \
    return ServeCallback(this, &TaskGrpcService::Serve##Method, auth_, context, request,           \
                         response);                                                                \
  }                                                                                                \
  void Serve##Method(CallContext* call, const tasks_v1::Request* request,                          \
                     tasks_v1::Response* response);
  LABGATE_TASK_UNARY(Create, CreateTaskRequest, TaskState)
  LABGATE_TASK_UNARY(Get, GetTaskRequest, TaskState)
  LABGATE_TASK_UNARY(Update, UpdateTaskRequest, UpdateTaskResponse)
  LABGATE_TASK_UNARY(Cancel, CancelTaskRequest, TaskState)
  LABGATE_TASK_UNARY(AskForInput, AskForInputRequest, TaskState)
  LABGATE_TASK_UNARY(Report, ReportTaskRequest, TaskState)
  LABGATE_TASK_UNARY(Finish, FinishTaskRequest, TaskState)
  LABGATE_TASK_UNARY(Heartbeat, HeartbeatRequest, HeartbeatResponse)
  LABGATE_TASK_UNARY(List, ListTasksRequest, ListTasksResponse)
#undef LABGATE_TASK_UNARY

  grpc::ServerWriteReactor<tasks_v1::TaskState>* Watch(
      grpc::CallbackServerContext* context, const tasks_v1::WatchTasksRequest* request) override;

  // Ends every Watch stream (UNAVAILABLE) and refuses new ones: before the server shuts down.
  void FinishWatchStreams();
  // Registers every unary method for in-process calls.
  void AddLocalMethods(LocalMethods* methods);

  TaskDesk& desk() { return *desk_; }

 private:
  const std::unique_ptr<TaskDesk> desk_;
  const CallerAuth auth_;
  TaskWatchRegistry watches_;
};

// A task as the API shows it; `for_worker` adds its answers.
void TaskToProto(const Task& task, bool for_worker, tasks_v1::TaskState* out);

}  // namespace labgate::session
