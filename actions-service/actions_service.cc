#include "actions-service/actions_service.h"

#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "actions-service/struct_json.h"
#include "common/call_finish.h"
#include "common/metrics/metrics.h"
#include "common/status_map.h"

namespace labgate::actions {
namespace {

absl::Status ShuttingDown() { return absl::UnavailableError("labgate-actions is shutting down"); }

// labgate-actions' one family (docs/OPERATIONS.md).
metrics::CounterFamily& Invocations() {
  static metrics::CounterFamily& family = metrics::Default().Counter(
      "labgate_action_invocations_total",
      "InvokeAction calls, by action (\"unknown\" for a name no contract has) and outcome (ok, "
      "or the failure's status code in lower case).",
      {"action", "outcome"});
  return family;
}

void CountInvocation(const ActionRegistry& registry, const std::string& action,
                     const absl::Status& status) {
  std::string outcome = "ok";
  if (!status.ok()) {
    const std::string_view code = StatusCodeName(status.code());
    outcome = absl::AsciiStrToLower(absl::string_view(code.data(), code.size()));
  }
  Invocations().With({registry.Get(action).ok() ? action : "unknown", outcome}).Increment();
}

}  // namespace

void ContractToProto(const ActionContract& contract, v1::ActionContract* out) {
  out->set_skill(contract.skill);
  out->set_action(contract.action);
  out->set_title(contract.title);
  out->set_category(contract.category);
  out->set_description(contract.description);
  out->set_boundary_notice(contract.boundary_notice);
  out->set_uncertainty(contract.uncertainty);
  out->set_input_schema_json(contract.input_schema_json);
  out->set_output_schema_json(contract.output_schema_json);
}

void ResultToProto(const ActionResult& result, v1::InvokeActionResponse* out) {
  out->set_action(result.action);
  out->set_boundary_notice(result.boundary_notice);
  out->set_uncertainty(result.uncertainty);
  for (const std::string& assumption : result.assumptions) out->add_assumptions(assumption);
  absl::StatusOr<google::protobuf::Struct> output = JsonToStruct(result.output);
  if (output.ok()) *out->mutable_output() = *std::move(output);
}

ActionsGrpcService::ActionsGrpcService(std::shared_ptr<const ActionRegistry> registry)
    : registry_(std::move(registry)) {}

void ActionsGrpcService::Shutdown() { shut_down_.store(true); }

void ActionsGrpcService::ServeListActions(CallContext* call, const v1::ListActionsRequest*,
                                          v1::ListActionsResponse* response) {
  if (shut_down_.load()) return FinishNow(call, ShuttingDown());
  for (const ActionContract& contract : registry_->List()) {
    ContractToProto(contract, response->add_actions());
  }
  return FinishNow(call, absl::OkStatus());
}

void ActionsGrpcService::ServeGetAction(CallContext* call, const v1::GetActionRequest* request,
                                        v1::ActionContract* response) {
  if (shut_down_.load()) return FinishNow(call, ShuttingDown());
  absl::StatusOr<const ActionContract*> contract = registry_->Get(request->action());
  if (!contract.ok()) return FinishNow(call, contract.status());
  ContractToProto(**contract, response);
  return FinishNow(call, absl::OkStatus());
}

void ActionsGrpcService::ServeInvokeAction(CallContext* call,
                                           const v1::InvokeActionRequest* request,
                                           v1::InvokeActionResponse* response) {
  if (shut_down_.load()) return FinishNow(call, ShuttingDown());
  // Runs inline: the handler is deterministic CPU work measured in microseconds.
  absl::StatusOr<ActionResult> result =
      registry_->Invoke(request->action(), StructToJson(request->input()));
  CountInvocation(*registry_, request->action(), result.status());
  if (!result.ok()) return FinishNow(call, result.status());
  ResultToProto(*result, response);
  return FinishNow(call, absl::OkStatus());
}

void ActionsGrpcService::AddLocalMethods(LocalMethods* methods) {
  const std::string service = v1::ActionsService::service_full_name();
  methods->Add(service, "ListActions", this, &ActionsGrpcService::ServeListActions);
  methods->Add(service, "GetAction", this, &ActionsGrpcService::ServeGetAction);
  methods->Add(service, "InvokeAction", this, &ActionsGrpcService::ServeInvokeAction);
}

absl::StatusOr<std::unique_ptr<ActionsGrpcService>> CreateActionsService(
    const ActionsServiceOptions& options) {
  absl::StatusOr<std::unique_ptr<ActionRegistry>> registry =
      ActionRegistry::CreateBuiltin(options.contracts_dir);
  if (!registry.ok()) return registry.status();
  Invocations();  // listed from the first scrape on
  return std::make_unique<ActionsGrpcService>(
      std::shared_ptr<const ActionRegistry>(*std::move(registry)));
}

}  // namespace labgate::actions
