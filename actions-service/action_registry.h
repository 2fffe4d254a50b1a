// The plain C++ API of the actions service, usable without gRPC: the contracts, their
// validators and their handlers, matched one to one at startup.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "actions-service/action_contract.h"
#include "actions-service/action_handler.h"
#include "nlohmann/json.hpp"

namespace labgate::actions {

class SchemaValidator;

struct ActionResult {
  std::string action;
  std::string boundary_notice;
  std::string uncertainty;
  std::vector<std::string> assumptions;
  nlohmann::json output;

  // The legacy envelope's data object: {action, boundaryNotice, uncertainty, assumptions,
  // output}.
  nlohmann::json ToJson() const;
};

// Immutable after Create(); safe to use from many threads at once.
class ActionRegistry {
 public:
  // Parses every contract and pairs it with its handler. Errors (FailedPrecondition or
  // InvalidArgument) name what is wrong: a malformed contract file, a duplicate action,
  // "Contract 'x' (x.json) has no handler", "Handler 'y' has no contract". Every problem
  // found is listed, joined with "; ".
  static absl::StatusOr<std::unique_ptr<ActionRegistry>> Create(
      const std::vector<ContractSource>& contracts, HandlerTable handlers);

  // The embedded contracts (or those in `contracts_dir` when it is not empty) with the
  // built-in handlers.
  static absl::StatusOr<std::unique_ptr<ActionRegistry>> CreateBuiltin(
      const std::string& contracts_dir = "");

  ~ActionRegistry();

  // Sorted by action name.
  const std::vector<ActionContract>& List() const { return contracts_; }

  // NotFound: "Unknown action: '<a>'. Call list_actions to see available actions."
  absl::StatusOr<const ActionContract*> Get(std::string_view action) const;

  // Validates `input`, applies schema defaults, runs the handler and checks its output.
  //   NotFound         unknown action (text as for Get)
  //   InvalidArgument  "Input validation failed for action '<a>': <e1>; <e2>"
  //                    (error texts: see schema_validator.h)
  //   Internal         the handler failed or its output broke the output schema
  absl::StatusOr<ActionResult> Invoke(std::string_view action, const nlohmann::json& input) const;

 private:
  struct Entry {
    const ActionContract* contract;
    std::unique_ptr<SchemaValidator> input_validator;
    std::unique_ptr<SchemaValidator> output_validator;
    ActionHandler handler;
  };

  ActionRegistry() = default;

  std::vector<ActionContract> contracts_;
  std::map<std::string, Entry, std::less<>> entries_;
};

// The NotFound status for an unknown action, shared with callers that check names early.
absl::Status UnknownActionError(std::string_view action);

}  // namespace labgate::actions
