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
                            std::shared_ptr<RequestContext> context, ToolDone done) {
  const ToolBinding* tool = catalog_->Find(name);
  const bool serial = leases_ != nullptr && leases_->Covers(tool->service_name);
  std::shared_ptr<void> lease;
  if (serial) {
    // The lease lives as long as the principal's ownership; its end closes its ports.
    const std::string& owner = context->owner();
    lease = context->HoldForPrincipal("serial-lease",
                                      [this, &owner] { return leases_->Acquire(owner); });
  }
  context->Progress(0, 1, "calling " + name);
  // A serial call may come back asking for a person's approval (write_confirmation.h): a
  // write, a script, a line change or a sequence, as the service's policy decides.
  const bool confirmable = serial;
  const auto started = std::chrono::steady_clock::now();
  // One copy of the arguments, shared by the completion (notices, a retry, the advice).
  auto kept = std::make_shared<const json>(arguments);
  if (lease == nullptr) {
    return Invoke(tool, kept, confirmable, started, context, std::move(done));
  }
  // A first call waits for its Lease to reach the service: otherwise an open could finish
  // for an owner the service cannot see go, and its port would stay held by nobody.
  OwnerLeases::WhenFirstAnswered(lease, [this, tool, kept = std::move(kept), confirmable, started,
                                         context, done = std::move(done)]() mutable {
    Invoke(tool, kept, confirmable, started, context, std::move(done));
  });
}

void CatalogTools::Invoke(const ToolBinding* tool, const std::shared_ptr<const json>& kept,
                          bool confirmable, std::chrono::steady_clock::time_point started,
                          const std::shared_ptr<RequestContext>& context, ToolDone done) {
  const ToolInvoker::Options options = CallOptions(*tool, *kept, context);
  auto call = invoker_->Call(
      *tool, *kept, options,
      [this, tool, confirmable, kept, started, context,
       done = std::move(done)](absl::StatusOr<BackendReply> outcome) mutable {
        if (confirmable && !outcome.ok() && NeedsConfirmation(outcome.status())) {
          if (HoldsAsTask(*tool, *context)) {
            return HoldAsTask(outcome.status(), tool, kept, started, context, std::move(done));
          }
          ConfirmAndRetry(outcome.status(), *tool, *kept, invoker_,
                          CallOptions(*tool, *kept, context), context, approvals_,
                          [this, tool, kept, started, context,
                           done = std::move(done)](absl::StatusOr<BackendReply> retried) {
                            Finish(*tool, *kept, started, context, std::move(retried), done);
                          });
          return;
        }
        if (!outcome.ok()) {
          outcome = ExplainUncertainOutcome(UncertainOutcomeAdvice(*tool->method, *kept),
                                            outcome.status());
        }
        Finish(*tool, *kept, started, context, std::move(outcome), done);
      });
  if (call) context->OnCancel([call] { call->Cancel(); });
}

bool CatalogTools::HoldsAsTask(const ToolBinding& tool, const RequestContext& context) const {
  return tasks_ != nullptr && !tool.task_support.empty() &&
         DeclaresTasks(context.client_capabilities()) && !context.in_task();
}

void CatalogTools::HoldAsTask(const absl::Status& refusal, const ToolBinding* tool,
                              const std::shared_ptr<const json>& arguments,
                              std::chrono::steady_clock::time_point started,
                              const std::shared_ptr<RequestContext>& context, ToolDone done) {
  TaskHost::Work work = [this, refusal, tool, arguments, started](
                            const std::shared_ptr<RequestContext>& task_context,
                            ToolDone task_done) {
    ConfirmAndRetry(refusal, *tool, *arguments, invoker_,
                    CallOptions(*tool, *arguments, task_context), task_context, approvals_,
                    [this, tool, arguments, started, task_context,
                     task_done = std::move(task_done)](absl::StatusOr<BackendReply> retried) {
                      Finish(*tool, *arguments, started, task_context, std::move(retried),
                             task_done);
                    });
  };
  tasks_->Start(context, "tools/call " + tool->name, std::move(work),
                [this, context, done = std::move(done)](absl::StatusOr<json> created) {
                  if (!created.ok()) return done(created.status());
                  FollowTask(tasks_, *context, created->value("taskId", ""));
                  done(ToolResult(*std::move(created)));
                });
}

TaskSupport CatalogTools::TaskSupportOf(const std::string& name) const {
  const ToolBinding* tool = catalog_->Find(name);
  if (tool == nullptr) return TaskSupport::kForbidden;
  if (tool->task_support == "required") return TaskSupport::kRequired;
  return tool->task_support == "optional" ? TaskSupport::kOptional : TaskSupport::kForbidden;
}

bool CatalogTools::RunsLong(const std::string& name, const json& arguments) const {
  const ToolBinding* tool = catalog_->Find(name);
  return tool != nullptr && tool->ExpectedDurationMs(arguments) >= task_threshold_.count();
}

ToolInvoker::Options CatalogTools::CallOptions(const ToolBinding& tool, const json& arguments,
                                               const std::shared_ptr<RequestContext>& context) {
  ToolInvoker::Options options;
  options.deadline = deadline_ + std::chrono::milliseconds(tool.ExpectedDurationMs(arguments));
  options.owner = context->owner();
  // Each backend asked (each bench, for a listing over several) says whether it is
  // reachable; a retry after a person's confirmation asks again.
  options.on_answer = [this, context](const ToolInvoker::Answer& answer) {
    if (auto health = health_.Observe(answer.service_name, answer.bench, answer.status)) {
      context->Log(health->level, health->logger, health->data);
    }
  };
  return options;
}

void CatalogTools::Finish(const ToolBinding& tool, const json& arguments,
                          std::chrono::steady_clock::time_point started,
                          const std::shared_ptr<RequestContext>& context,
                          absl::StatusOr<BackendReply> outcome, const ToolDone& done) {
  context->Progress(1, 1, "done");
  const CallNotices notices = NoticesForCall(tool.name, tool.service_name, arguments,
                                             outcome.status(), outcome.ok() ? &*outcome : nullptr,
                                             std::chrono::duration_cast<std::chrono::microseconds>(
                                                 std::chrono::steady_clock::now() - started),
                                             context->WouldLog(McpLogLevel::kDebug));
  for (const LogNotice& log : notices.logs) context->Log(log.level, log.logger, log.data);
  if (notices.ports_changed && port_events_ != nullptr) {
    if (tool.name == "open_port") {
      port_events_->Follow(context->owner(), notices.port, context->LaterLog());
    } else {
      port_events_->Unfollow(context->owner(), notices.port);
    }
  }
  // Notices go out before the result, so a client that saw the result has seen them.
  if (outcome.ok() && !notices.port.empty() && port_touched_) port_touched_(notices.port);
  if (notices.ports_changed && ports_changed_) ports_changed_();
  done(outcome.ok() ? StructuredResultText(outcome->Text())
                    : ToolResult(ToolResultJson(outcome.status())));
}

}  // namespace labgate::gateway
