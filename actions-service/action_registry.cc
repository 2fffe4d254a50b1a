#include "actions-service/action_registry.h"

#include <algorithm>
#include <exception>
#include <set>
#include <utility>

#include "absl/strings/str_join.h"
#include "actions-service/contract_sources.h"
#include "actions-service/schema_validator.h"

namespace labgate::actions {

nlohmann::json ActionResult::ToJson() const {
  return {{"action", action},
          {"boundaryNotice", boundary_notice},
          {"uncertainty", uncertainty},
          {"assumptions", assumptions},
          {"output", output}};
}

absl::Status UnknownActionError(std::string_view action) {
  return absl::NotFoundError("Unknown action: '" + std::string(action) +
                             "'. Call list_actions to see available actions.");
}

absl::StatusOr<std::unique_ptr<ActionRegistry>> ActionRegistry::Create(
    const std::vector<ContractSource>& contracts, HandlerTable handlers) {
  std::unique_ptr<ActionRegistry> registry(new ActionRegistry());
  std::vector<std::string> problems;
  std::map<std::string, std::string> file_of_action;

  for (const ContractSource& source : contracts) {
    absl::StatusOr<ActionContract> contract = ParseContract(source);
    if (!contract.ok()) {
      problems.emplace_back(contract.status().message());
      continue;
    }
    auto [it, inserted] = file_of_action.emplace(contract->action, source.name);
    if (!inserted) {
      problems.push_back("Action '" + contract->action + "' is defined twice (" + it->second +
                         " and " + source.name + ")");
      continue;
    }
    registry->contracts_.push_back(*std::move(contract));
  }
  std::sort(registry->contracts_.begin(), registry->contracts_.end(),
            [](const ActionContract& a, const ActionContract& b) { return a.action < b.action; });

  // contracts_ no longer changes, so entries may point into it.
  for (const ActionContract& contract : registry->contracts_) {
    const std::string& file = file_of_action[contract.action];
    auto handler = handlers.find(contract.action);
    if (handler == handlers.end()) {
      problems.push_back("Contract '" + contract.action + "' (" + file + ") has no handler");
      continue;
    }
    auto input_validator = SchemaValidator::Create(contract.input_schema);
    auto output_validator = SchemaValidator::Create(contract.output_schema);
    if (!input_validator.ok() || !output_validator.ok()) {
      const absl::Status& bad =
          input_validator.ok() ? output_validator.status() : input_validator.status();
      problems.push_back("Contract file '" + file + "' is invalid: " + std::string(bad.message()));
      continue;
    }
    registry->entries_.emplace(
        contract.action, Entry{&contract, *std::move(input_validator), *std::move(output_validator),
                               std::move(handler->second)});
  }
  for (const auto& [action, handler] : handlers) {
    if (file_of_action.count(action) == 0) {
      problems.push_back("Handler '" + action + "' has no contract");
    }
  }
  if (!problems.empty()) {
    return absl::FailedPreconditionError("Action registry cannot start: " +
                                         absl::StrJoin(problems, "; "));
  }
  return registry;
}

absl::StatusOr<std::unique_ptr<ActionRegistry>> ActionRegistry::CreateBuiltin(
    const std::string& contracts_dir) {
  if (contracts_dir.empty()) return Create(EmbeddedContracts(), BuiltinHandlers());
  absl::StatusOr<std::vector<ContractSource>> sources = ReadContractsDir(contracts_dir);
  if (!sources.ok()) return sources.status();
  return Create(*sources, BuiltinHandlers());
}

ActionRegistry::~ActionRegistry() = default;

absl::StatusOr<const ActionContract*> ActionRegistry::Get(std::string_view action) const {
  auto it = entries_.find(action);
  if (it == entries_.end()) return UnknownActionError(action);
  return it->second.contract;
}

absl::StatusOr<ActionResult> ActionRegistry::Invoke(std::string_view action,
                                                    const nlohmann::json& input) const {
  auto it = entries_.find(action);
  if (it == entries_.end()) return UnknownActionError(action);
  const Entry& entry = it->second;

  std::vector<std::string> errors = entry.input_validator->Validate(input);
  if (!errors.empty()) {
    return absl::InvalidArgumentError("Input validation failed for action '" + std::string(action) +
                                      "': " + absl::StrJoin(errors, "; "));
  }
  nlohmann::json prepared = input;
  entry.input_validator->ApplyDefaults(prepared);

  HandlerResult handled;
  try {
    handled = entry.handler(prepared);
  } catch (const std::exception& error) {
    return absl::InternalError("Action '" + std::string(action) + "' failed: " + error.what());
  }
  errors = entry.output_validator->Validate(handled.output);
  if (!errors.empty()) {
    return absl::InternalError(
        "Action '" + std::string(action) +
        "' produced output that does not match its output schema: " + absl::StrJoin(errors, "; "));
  }
  ActionResult result;
  result.action = entry.contract->action;
  result.boundary_notice = entry.contract->boundary_notice;
  result.uncertainty = entry.contract->uncertainty;
  result.assumptions = std::move(handled.assumptions);
  result.output = std::move(handled.output);
  return result;
}

}  // namespace labgate::actions
