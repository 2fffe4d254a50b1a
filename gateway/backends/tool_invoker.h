// Calls the gRPC method behind a tool: JSON arguments in, JSON result out, with no
// per-tool code. Calls are asynchronous; nothing blocks the caller's thread.
#pragma once

#include <google/protobuf/message.h>
#include <grpcpp/client_context.h>
#include <grpcpp/impl/rpc_method.h>

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "common/inline_unary.h"
#include "gateway/backends/backend_channels.h"
#include "gateway/catalog/tool_catalog.h"

namespace labgate::gateway {

// Metadata key that names the client owning serial ports (one per MCP connection).
inline constexpr char kOwnerMetadataKey[] = "labgate-owner";

// A call in flight; Cancel() asks gRPC to abandon it (the callback still runs, with
// CANCELLED). It holds the call's context and messages until gRPC is done with them.
class PendingCall {
 public:
  void Cancel() {
    context_.TryCancel();
    // The inline transport has no thread of its own to see the cancellation.
    if (inline_server_ != nullptr) inline_server_->Pump();
  }

 private:
  friend class ToolInvoker;
  grpc::ClientContext context_;
  InlineUnaryServer* inline_server_ = nullptr;
  std::unique_ptr<google::protobuf::Message> request_;
  std::unique_ptr<google::protobuf::Message> response_;
};

class ToolInvoker {
 public:
  explicit ToolInvoker(const BackendChannels* channels) : channels_(channels) {}

  // How one backend fared with one gRPC call of a tool call.
  struct Answer {
    std::string service_name;
    std::string bench;  // the bench's name, or "" (no benches, or the unnamed bench)
    absl::Status status;
  };
  struct Options {
    std::chrono::milliseconds deadline{30000};
    std::string owner;
    // Further request metadata, e.g. a person's answer to a confirmation request.
    std::vector<std::pair<std::string, std::string>> metadata;
    // Runs (on a gRPC thread, before `done`) for each backend call made: one per tool
    // call, or one per bench for a listing over several benches. May be empty.
    std::function<void(const Answer&)> on_answer;
  };
  using Done = std::function<void(absl::StatusOr<nlohmann::json>)>;

  // `done` runs exactly once: on a gRPC thread; or, for an embedded service, on the thread
  // that answered, which may be the caller's before Call returns; or inline for argument
  // errors. nullptr is returned when `done` has run by then (nothing is left to cancel). A failure
  // carries the call's trailing metadata whose key starts with "labgate-" as status payloads under
  // the same key.
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
  // An embedded service's call over the inline transport (common/inline_unary.h).
  std::shared_ptr<PendingCall> CallInline(InlineUnaryServer* server, const ToolBinding& tool,
                                          const nlohmann::json& arguments, const Options& options,
                                          Done done);
  // Prepares the call's messages and context; a failure is the arguments' fault.
  static absl::StatusOr<std::shared_ptr<PendingCall>> Prepare(const ToolBinding& tool,
                                                              const nlohmann::json& arguments,
                                                              const Options& options);
  // What a finished call answers: its reply as JSON, or its failure with the labgate-*
  // trailers as payloads. Reports to options.on_answer first.
  static absl::StatusOr<nlohmann::json> Outcome(
      const grpc::Status& status, PendingCall& call, grpc::Channel* channel,
      const std::string& service_name, const std::string& address, const std::string& bench,
      const std::function<void(const Answer&)>& on_answer);
  // The tool's method registered on `channel`, once: a registered call spares gRPC the
  // per-call work of a method named by a string.
  const grpc::internal::RpcMethod& MethodOn(const std::shared_ptr<grpc::Channel>& channel,
                                            const ToolBinding& tool);

  const BackendChannels* channels_;
  absl::Mutex methods_mutex_;
  std::map<std::pair<const grpc::Channel*, const ToolBinding*>,
           std::unique_ptr<grpc::internal::RpcMethod>>
      methods_ ABSL_GUARDED_BY(methods_mutex_);
};

}  // namespace labgate::gateway
