// The tasks Watch stream: every stored change of a task, in order, to one of labgate's own
// processes (a BoundedStream).
#pragma once

#include <grpcpp/grpcpp.h>

#include <cstddef>
#include <cstdint>

#include "labgate/tasks/v1/tasks.pb.h"
#include "session-service/bounded_stream.h"
#include "session-service/tasks/task_desk.h"

namespace labgate::session {

using TaskWatchRegistry = BoundedStream<::labgate::tasks::v1::TaskState>::Registry;

class TaskWatchReactor final : public BoundedStream<::labgate::tasks::v1::TaskState> {
 public:
  static constexpr size_t kMaxQueuedChanges = 4096;

  // Starts watching `desk` at once, or ends the stream with `refusal` when it is not OK;
  // deletes itself when the stream is done.
  TaskWatchReactor(TaskDesk* desk, TaskWatchRegistry* registry,
                   const grpc::Status& refusal = grpc::Status::OK);

 private:
  void OnStreamDone() override;

  TaskDesk* const desk_;
  uint64_t watch_ = 0;  // set by the constructor, read by OnStreamDone
};

}  // namespace labgate::session
