// Reads a recorded session back from the session service, for replay://SESSION_ID. Blocking:
// called on the replaying port's worker while it opens.
#pragma once

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "labgate/session/v1/session.grpc.pb.h"

namespace labgate::serial {

class SessionReader {
 public:
  void SetChannel(std::shared_ptr<grpc::Channel> channel) ABSL_LOCKS_EXCLUDED(mu_);
  bool enabled() const ABSL_LOCKS_EXCLUDED(mu_);

  // Every message of the session, in order, page by page within `timeout` overall. NOT_FOUND
  // naming the session when there is none; RESOURCE_EXHAUSTED past `max_messages`.
  absl::StatusOr<std::vector<session::v1::Message>> ReadAll(const std::string& session_id,
                                                            std::chrono::milliseconds timeout,
                                                            int64_t max_messages) const
      ABSL_LOCKS_EXCLUDED(mu_);

 private:
  mutable absl::Mutex mu_;
  std::shared_ptr<session::v1::SessionService::Stub> stub_ ABSL_GUARDED_BY(mu_);
};

}  // namespace labgate::serial
