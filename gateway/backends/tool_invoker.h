// Calls the gRPC method behind a tool: JSON arguments in, the reply out (backend_reply.h),
// with no per-tool code. Calls are asynchronous; nothing blocks the caller's thread.
#pragma once

#include <google/protobuf/message.h>
#include <grpcpp/client_context.h>

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "common/access/access_control.h"
#include "common/call_context.h"
#include "common/local_call.h"
#include "gateway/backends/backend_channels.h"
#include "gateway/backends/backend_reply.h"
#include "gateway/catalog/tool_catalog.h"

namespace labgate::gateway {

// A call in flight; Cancel() abandons it (the callback still runs, with CANCELLED). A remote
// call holds its context and messages until gRPC is done with them; an in-process one, its
// LocalCall.
class PendingCall {
 public:
  void Cancel() {
    if (local_ != nullptr) {
      local_->Cancel();
    } else if (context_ != nullptr) {
      context_->TryCancel();
    }
  }

 private:
  friend class ToolInvoker;
  std::unique_ptr<grpc::ClientContext> context_;  // a remote call's
  std::unique_ptr<google::protobuf::Message> request_;
  std::unique_ptr<google::protobuf::Message> response_;
  std::shared_ptr<LocalCall> local_;
};

class ToolInvoker {
 public:
  explicit ToolInvoker(const BackendChannels* channels) : channels_(channels) {}
  // The access file's benches: a call on another bench's port is refused, and listings leave
  // out the benches its principal may not use. Call before the first call.
  void SetAccess(std::shared_ptr<const access::AccessControl> access) {
    access_ = std::move(access);
  }

  // How one backend fared with one gRPC call of a tool call.
  struct Answer {
    std::string service_name;
    std::string bench;  // the bench's name, or "" (no benches, or the unnamed bench)
    absl::Status status;
  };
  struct Options {
    std::chrono::milliseconds deadline{30000};
    std::string owner;
    // A person's answer to the confirmation request the call's earlier attempt was refused with.
    std::optional<ConfirmationAnswer> confirmation;
    // Runs (on a gRPC thread, before `done`) for each backend call made: one per tool
    // call, or one per bench for a listing over several benches. May be empty.
    std::function<void(const Answer&)> on_answer;
  };
  using Done = std::function<void(absl::StatusOr<BackendReply>)>;

  // `done` runs exactly once: on a gRPC thread; or, for an embedded service, on the thread
  // that answered, which may be the caller's before Call returns (or the deadline's); or
  // inline for argument errors. nullptr is returned when `done` has run by then (nothing is left to
  // cancel). A failure carries the call's trailing metadata whose key starts with "labgate-" as
  // status payloads under the same key.
  std::shared_ptr<PendingCall> Call(const ToolBinding& tool, const nlohmann::json& arguments,
                                    const Options& options, Done done);

 private:
  // Serial calls when several benches are configured: a port's bench prefix picks the
  // bench; listings (no port argument) ask every bench and merge.
  std::shared_ptr<PendingCall> CallOnBenches(const SerialBenches& benches, const ToolBinding& tool,
                                             const nlohmann::json& arguments,
                                             const Options& options, Done done);
  std::shared_ptr<PendingCall> CallChannel(const std::shared_ptr<grpc::Channel>& channel,
                                           const std::string& address, const std::string& bench,
                                           const ToolBinding& tool, const nlohmann::json& arguments,
                                           const Options& options, Done done);
  // An embedded service's call, in process (common/local_call.h).
  std::shared_ptr<PendingCall> CallLocal(LocalCalls* calls, const ToolBinding& tool,
                                         const nlohmann::json& arguments, const Options& options,
                                         Done done);
  // Prepares the call's messages and context; a failure is the arguments' fault.
  static absl::StatusOr<std::shared_ptr<PendingCall>> Prepare(const ToolBinding& tool,
                                                              const nlohmann::json& arguments,
                                                              const Options& options);
  // What a finished call answers: its reply, or its failure with the labgate-* trailers as
  // payloads. Reports to options.on_answer first.
  static absl::StatusOr<BackendReply> Outcome(const grpc::Status& status, PendingCall& call,
                                              grpc::Channel* channel,
                                              const std::string& service_name,
                                              const std::string& address, const std::string& bench,
                                              const std::function<void(const Answer&)>& on_answer);
  const BackendChannels* channels_;
  std::shared_ptr<const access::AccessControl> access_;  // null: every bench for everyone
};

}  // namespace labgate::gateway
