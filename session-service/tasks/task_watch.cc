#include "session-service/tasks/task_watch.h"

#include <memory>

#include "session-service/tasks/task_grpc_service.h"

namespace labgate::session {

TaskWatchReactor::TaskWatchReactor(TaskDesk* desk, TaskWatchRegistry* registry,
                                   const grpc::Status& refusal)
    : BoundedStream(registry, kMaxQueuedChanges, "task changes"), desk_(desk) {
  if (!refusal.ok()) {
    handle()->Close(refusal);
    return;
  }
  if (!Register("tasks are shutting down")) return;
  std::shared_ptr<Handle> watching = handle();
  watch_ = desk_->Watch([watching](const Task& changed) {
    ::labgate::tasks::v1::TaskState state;
    TaskToProto(changed, /*for_worker=*/true, &state);
    watching->Send(std::move(state));
  });
  watching->Ready();
}

void TaskWatchReactor::OnStreamDone() {
  if (watch_ != 0) desk_->Unwatch(watch_);
}

}  // namespace labgate::session
