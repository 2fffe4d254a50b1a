// labgate.actions.v1.ActionsService over gRPC, for the standalone labgate-actions binary
// and for the gateway, which links this library and hosts the service in-process.
#pragma once

#include <atomic>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "actions-service/action_registry.h"
#include "common/caller_auth.h"
#include "common/grpc_unary_call.h"
#include "common/local_methods.h"
#include "labgate/actions/v1/actions.grpc.pb.h"

namespace labgate::actions {

struct ActionsServiceOptions {
  // Directory of contract *.json files to use instead of the embedded ones; empty = embedded.
  std::string contracts_dir;
};

// The gRPC adapter over an ActionRegistry. Handlers are CPU-only, deterministic and take
// microseconds, so each call runs inline on the gRPC callback thread and Finishes at once
// (no executor hop is worth its cost here).
class ActionsGrpcService final : public labgate::actions::v1::ActionsService::CallbackService {
 public:
  explicit ActionsGrpcService(std::shared_ptr<const ActionRegistry> registry);

  // The registry behind the service, for in-process callers (e.g. the legacy envelope).
  const ActionRegistry& registry() const { return *registry_; }
  std::shared_ptr<const ActionRegistry> shared_registry() const { return registry_; }

  // After this, new calls fail with UNAVAILABLE; calls already running complete.
  void Shutdown();

  grpc::ServerUnaryReactor* ListActions(grpc::CallbackServerContext* context,
                                        const v1::ListActionsRequest* request,
                                        v1::ListActionsResponse* response) override {
    return ServeCallback(this, &ActionsGrpcService::ServeListActions, auth_, context, request,
                         response);
  }
  grpc::ServerUnaryReactor* GetAction(grpc::CallbackServerContext* context,
                                      const v1::GetActionRequest* request,
                                      v1::ActionContract* response) override {
    return ServeCallback(this, &ActionsGrpcService::ServeGetAction, auth_, context, request,
                         response);
  }
  grpc::ServerUnaryReactor* InvokeAction(grpc::CallbackServerContext* context,
                                         const v1::InvokeActionRequest* request,
                                         v1::InvokeActionResponse* response) override {
    return ServeCallback(this, &ActionsGrpcService::ServeInvokeAction, auth_, context, request,
                         response);
  }

  // The methods' one implementation each, served by the callback API above and by the
  // in-process calls (common/local_call.h).
  void ServeListActions(CallContext* call, const v1::ListActionsRequest* request,
                        v1::ListActionsResponse* response);
  void ServeGetAction(CallContext* call, const v1::GetActionRequest* request,
                      v1::ActionContract* response);
  void ServeInvokeAction(CallContext* call, const v1::InvokeActionRequest* request,
                         v1::InvokeActionResponse* response);
  // Registers every unary method for in-process calls.
  void AddLocalMethods(LocalMethods* methods);

 private:
  std::shared_ptr<const ActionRegistry> registry_;
  // The service keeps nothing per principal, so the owner a caller names is not used.
  const CallerAuth auth_{CallerAuthOptions::TrustEveryCaller()};
  std::atomic<bool> shut_down_{false};
};

// Builds the registry (embedded contracts, or options.contracts_dir, with the built-in
// handlers) and the service over it. Fails when contracts and handlers do not match.
absl::StatusOr<std::unique_ptr<ActionsGrpcService>> CreateActionsService(
    const ActionsServiceOptions& options);

// Proto forms of the plain C++ types.
void ContractToProto(const ActionContract& contract, v1::ActionContract* out);
void ResultToProto(const ActionResult& result, v1::InvokeActionResponse* out);

}  // namespace labgate::actions
