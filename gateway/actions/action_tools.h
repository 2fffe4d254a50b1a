// Each action contract of the actions service, offered as an MCP tool named after the
// action with the contract's own schemas. The set is fetched from ListActions at
// startup and again whenever the channel to the service becomes ready after a break.
#pragma once

#include <grpcpp/channel.h>

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "common/local_call.h"
#include "gateway/mcp/providers.h"
#include "labgate/actions/v1/actions.grpc.pb.h"

namespace labgate::gateway {

// The action response as MCP structuredContent and legacy `data`:
// {action, boundaryNotice, uncertainty, assumptions, output}.
nlohmann::json ActionResponseJson(const labgate::actions::v1::InvokeActionResponse& response);

// The MCP CallToolResult of an action: a failure's text is the actions service's own
// message (the seed's exact validation and unknown-action texts).
nlohmann::json ActionResultJson(const absl::StatusOr<nlohmann::json>& outcome);

class ActionTools final : public ToolProvider {
 public:
  explicit ActionTools(std::shared_ptr<grpc::Channel> channel,
                       std::chrono::milliseconds call_deadline = std::chrono::seconds(30));
  ~ActionTools();

  // Fetches the contracts once (blocking, for startup) and, for a remote service, starts
  // watching the channel (in-process channels have no connectivity to watch).
  void Start(bool watch_connectivity);
  void Stop();

  // ToolProvider: tools in tools/list form, sorted by name.
  std::vector<nlohmann::json> ListTools() const override;
  bool HasTool(const std::string& name) const override;
  void CallTool(const std::string& name, const nlohmann::json& arguments,
                std::shared_ptr<RequestContext> context, ToolDone done) override;

  // Calls InvokeAction; `done` runs once with the structured result, or the service's status
  // (its message is the seed's exact error text). Returns what cancels the call, or an empty
  // function when `done` has already run.
  using Done = std::function<void(absl::StatusOr<nlohmann::json>)>;
  std::function<void()> Invoke(const std::string& action, const nlohmann::json& input, Done done);
  // ListActions, asynchronously, for the legacy envelope.
  void List(std::function<void(absl::StatusOr<labgate::actions::v1::ListActionsResponse>)> done);

  // `output` with object keys in the order of the action's output schema (the order the
  // handlers write them in), for replies that must match the legacy server byte for byte.
  nlohmann::ordered_json OrderedOutput(const std::string& action,
                                       const nlohmann::json& output) const;

  // A remote service's HOST:PORT: a call made while it is down then fails with
  // "actions service at HOST:PORT is not reachable". Call before Start.
  void SetServiceAddress(const std::string& address) { address_ = address; }
  // An embedded service: InvokeAction is called in process (common/local_call.h), and `done`
  // may then run before Invoke returns.
  void SetLocal(LocalCalls* calls) { local_calls_ = calls; }

  // Called (from the watcher thread) after a refresh changed the set of tools.
  void OnChanged(std::function<void()> listener);

  // Refetches now; returns whether the set changed. Blocking; not for Asio/gRPC threads.
  absl::StatusOr<bool> Refresh();

 private:
  void Watch();

  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<labgate::actions::v1::ActionsService::Stub> stub_;
  std::chrono::milliseconds call_deadline_;
  std::string address_;
  LocalCalls* local_calls_ = nullptr;

  mutable absl::Mutex mutex_;
  std::map<std::string, nlohmann::json> tools_ ABSL_GUARDED_BY(mutex_);  // by name
  std::map<std::string, nlohmann::ordered_json> output_schemas_ ABSL_GUARDED_BY(mutex_);
  std::vector<std::function<void()>> listeners_ ABSL_GUARDED_BY(mutex_);

  std::atomic<bool> stopping_{false};
  std::thread watcher_;
};

}  // namespace labgate::gateway
