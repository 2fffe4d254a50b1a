#include "gateway/tools/catalog_tools.h"

#include "common/status_map.h"
#include "gateway/tools/uncertain_outcome.h"
#include "gateway/tools/write_confirmation.h"

namespace labgate::gateway {

using nlohmann::json;

json ToolResultJson(const absl::StatusOr<json>& outcome) {
  if (!outcome.ok()) {
    return {
        {"content", json::array({{{"type", "text"}, {"text", ToolErrorText(outcome.status())}}})},
        {"isError", true}};
  }
  return {
      {"content",
       json::array({{{"type", "text"},
                     {"text", outcome->dump(-1, ' ', false, json::error_handler_t::replace)}}})},
      {"structuredContent", *outcome},
      {"isError", false}};
}

std::vector<json> CatalogTools::ListTools() const {
  std::vector<json> tools;
  for (const ToolBinding& tool : catalog_->tools()) tools.push_back(tool.ToJson());
  return tools;
}

bool CatalogTools::HasTool(const std::string& name) const {
  return catalog_->Find(name) != nullptr;
}

void CatalogTools::CallTool(const std::string& name, const json& arguments,
                            std::shared_ptr<RequestContext> context, JsonDone done) {
  const ToolBinding* tool = catalog_->Find(name);
  if (leases_ != nullptr && leases_->Covers(tool->service_name)) {
    // The lease lives as long as the principal's ownership; its end closes its ports.
    const std::string owner = context->owner();
    context->HoldForPrincipal("serial-lease", [this, owner] { return leases_->Acquire(owner); });
  }
  ToolInvoker::Options options;
  options.deadline = deadline_;
  options.owner = context->owner();
  context->Progress(0, 1, "calling " + name);
  // Writes may come back asking for a person's approval (write_confirmation.h).
  const bool confirmable = tool->method->input_type()->FindFieldByName("data") != nullptr &&
                           leases_ != nullptr && leases_->Covers(tool->service_name);
  auto call = invoker_->Call(
      *tool, arguments, options,
      [this, tool, options, context, confirmable, kept = confirmable ? arguments : json(),
       advice = UncertainOutcomeAdvice(*tool->method, arguments),
       done = std::move(done)](absl::StatusOr<json> outcome) mutable {
        if (confirmable && !outcome.ok() && NeedsConfirmation(outcome.status())) {
          ConfirmAndRetry(outcome.status(), *tool, kept, invoker_, options, context,
                          [context, done = std::move(done)](absl::StatusOr<json> retried) {
                            context->Progress(1, 1, "done");
                            done(ToolResultJson(retried));
                          });
          return;
        }
        context->Progress(1, 1, "done");
        if (!outcome.ok()) outcome = ExplainUncertainOutcome(advice, outcome.status());
        done(ToolResultJson(outcome));
      });
  if (call) context->OnCancel([call] { call->Cancel(); });
}

}  // namespace labgate::gateway
