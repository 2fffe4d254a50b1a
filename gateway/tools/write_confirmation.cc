#include "gateway/tools/write_confirmation.h"

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace labgate::gateway {
namespace {

using nlohmann::json;

constexpr char kRuleKey[] = "labgate-confirm-rule";
constexpr char kIdKey[] = "labgate-confirm-id";
// Set for control lines and named sequences: what the service will do, which the call's
// arguments do not show.
constexpr char kWhatKey[] = "labgate-confirm-what";
// "limit": an instrument's limit asks, not the policy.
constexpr char kSourceKey[] = "labgate-confirm-source";
// What a write to an instrument sets, as its profile reads it.
constexpr char kQuantityKey[] = "labgate-confirm-quantity";

std::string Payload(const absl::Status& status, const char* key) {
  auto value = status.GetPayload(key);
  return value.has_value() ? std::string(*value) : std::string();
}

std::string StringArgument(const json& arguments, const char* key, const char* fallback) {
  auto it = arguments.find(key);
  return it != arguments.end() && it->is_string() ? it->get<std::string>() : fallback;
}

// What the call would send: its data, or for a send_expect script every step in order, so the
// person sees the whole script the approval lets run.
std::string ShownData(const json& arguments) {
  auto steps = arguments.find("steps");
  if (steps == arguments.end() || !steps->is_array()) return StringArgument(arguments, "data", "");
  std::string shown;
  for (const json& step : *steps) {
    if (!step.is_object()) continue;
    if (!shown.empty()) shown += "\n    ";
    if (step.contains("send")) {
      absl::StrAppend(&shown, "send ", StringArgument(step, "send", ""));
    } else if (step.contains("expect")) {
      absl::StrAppend(&shown, "expect ", step["expect"].dump());
    } else if (step.contains("delay_ms")) {
      absl::StrAppend(&shown, "wait ", step["delay_ms"].dump(), " ms");
    } else if (step.contains("signal")) {
      absl::StrAppend(&shown, "set ", StringArgument(step, "signal", "a line"), " ",
                      step.value("level", false) ? "high" : "low",
                      step.contains("ms") ? absl::StrCat(" for ", step["ms"].dump(), " ms") : "");
    }
  }
  return shown;
}

json ElicitationParams(const std::string& tool, const std::string& rule, const std::string& what,
                       bool limit, const json& arguments) {
  const std::string port = StringArgument(arguments, "port_name", "the open port");
  const std::string encoding = StringArgument(arguments, "encoding", "text");
  std::string data = what.empty() ? ShownData(arguments) : what;
  if (data.size() > 500) data = data.substr(0, 500) + "...";
  const std::string message =
      what.empty()
          ? absl::StrCat("labgate's safety policy (rule '", rule,
                         "') asks a person to approve this ", tool, " to ", port, ":\n\n    ", data,
                         encoding == "text" ? "" : absl::StrCat("  (", encoding, ")"),
                         "\n\nSend it to the instrument?")
          : absl::StrCat(limit ? "The instrument's limit '" : "labgate's safety policy (rule '",
                         rule, limit ? "' asks" : "') asks", " a person to approve this ", tool,
                         " on ", port, ":\n\n    ", data, "\n\nDo it on the instrument?");
  return {{"message", message},
          {"requestedSchema",
           {{"type", "object"},
            {"properties",
             {{"approve",
               {{"type", "boolean"},
                {"title", "Send this to the instrument"},
                {"description", "Approve only if you expect this command on this instrument."},
                {"default", false}}}}},
            {"required", json::array({"approve"})}}}};
}

// The person's answer as labgate-serial reads it: "accept" or why not.
std::string Decision(const absl::StatusOr<json>& answer) {
  if (!answer.ok()) return "unavailable";
  if (!answer->is_object()) return "cancel";
  auto action = answer->find("action");
  if (action == answer->end() || !action->is_string()) return "cancel";
  if (*action != "accept") return *action == "decline" ? "decline" : "cancel";
  auto content = answer->find("content");
  if (content == answer->end() || !content->is_object()) return "decline";
  auto approve = content->find("approve");
  return approve != content->end() && approve->is_boolean() && approve->get<bool>() ? "accept"
                                                                                    : "decline";
}

// What the refused call was held for, from the service's trailers.
struct HeldFor {
  std::string rule;
  std::string id;
  std::string what;      // control lines, a named sequence, or the limit's reason
  std::string quantity;  // what the write sets on an instrument, if it sets anything
  bool limit = false;
  bool lines = false;  // the call drives control lines rather than sending bytes
};

// Why a person's approval did not come. `client`: what asking the client gave, when it failed.
std::string WhyNot(const ApprovalAnswer& answer, const absl::Status& client, bool limit,
                   bool console, absl::Duration lifetime) {
  const bool client_unasked = absl::IsFailedPrecondition(client);
  if (answer.decision == "expired") {
    return absl::StrCat("nobody approved it within ", absl::FormatDuration(lifetime),
                        client_unasked ? " in the labgate console (this MCP client does not "
                                         "support elicitation)"
                                       : ", through the MCP client or in the labgate console");
  }
  if (answer.from_console) {
    return absl::StrCat(answer.approver,
                        answer.decision == "decline" ? " declined it" : " dismissed it");
  }
  if (answer.decision == "decline") return "the person declined it";
  if (answer.decision == "cancel") {
    return answer.approver.empty() ? "the call ended before anyone answered"
                                   : "the person dismissed the request";
  }
  if (client_unasked) {
    if (console)
      return "nobody may approve it for this port in the labgate console under the access file";
    return limit ? "this MCP client does not support elicitation, so labgate cannot ask a "
                   "person; use a client that does, or approve it in the labgate console "
                   "(--metrics-listen or --http serves one)"
                 : "this MCP client does not support elicitation, so labgate cannot ask a "
                   "person; use a client that does, approve it in the labgate console "
                   "(--metrics-listen or --http serves one), or ask the operator to exempt this "
                   "owner (confirm_exempt)";
  }
  if (absl::IsDeadlineExceeded(client)) {
    return absl::StrCat("no answer came within ", kConfirmationTimeout.count(), " s");
  }
  return absl::StrCat("the person could not be asked (", client.message(), ")");
}

absl::Status NotApproved(const HeldFor& held, const std::string& why) {
  return absl::FailedPreconditionError(
      absl::StrCat(held.lines ? "not done" : "not sent",
                   held.limit ? ": the instrument's limit '" : ": the safety policy's rule '",
                   held.rule, "' needs a person's approval, and ", why));
}

HeldWrite Described(const ToolBinding& tool, const json& arguments, const HeldFor& held,
                    const RequestContext& context) {
  HeldWrite write;
  write.principal = context.principal_name();
  write.owner = context.owner();
  write.tool = tool.name;
  write.port = StringArgument(arguments, "port_name", "");
  write.shown = held.lines ? held.what : ShownData(arguments);
  const std::string encoding = StringArgument(arguments, "encoding", "text");
  if (!held.lines && encoding != "text") absl::StrAppend(&write.shown, "  (", encoding, ")");
  write.rule = held.rule;
  write.limit = held.limit;
  write.quantity = held.limit ? held.what : held.quantity;
  return write;
}

// The one who answered through the client, for the port's record.
std::string ClientApprover(const RequestContext& context) {
  return absl::StrCat("the person at ", context.principal_name(), "'s MCP client");
}

// One held call, shared by whoever may answer it.
class HeldCall {
 public:
  HeldCall(const ToolBinding* tool, json arguments, ToolInvoker* invoker,
           ToolInvoker::Options options, std::shared_ptr<RequestContext> context, HeldFor held,
           bool console, absl::Duration lifetime, ToolInvoker::Done done)
      : tool_(tool),
        arguments_(std::move(arguments)),
        invoker_(invoker),
        options_(std::move(options)),
        context_(std::move(context)),
        held_(std::move(held)),
        console_(console),
        lifetime_(lifetime),
        done_(std::move(done)) {}

  const std::shared_ptr<RequestContext>& context() const { return context_; }

  // What asking the client gave, when it failed (for the refusal's wording).
  void SetClientStatus(const absl::Status& status) {
    absl::MutexLock lock(&mutex_);
    client_status_ = status;
  }

  // The request ends without a decision (the 2026 era asks the client first).
  void EndUndecided(const absl::Status& status) { done_(status); }

  // Runs the call with the deciding answer: the write after an approval; otherwise the call
  // is sent anyway so that the service records the refusal, and nothing is written.
  void Conclude(const ApprovalAnswer& answer) {
    if (answer.from_console) {
      context_->WithdrawQuestions(
          absl::StrCat("answered in the labgate console: ", AnswerWord(answer.decision), " by ",
                       answer.approver));
    }
    ToolInvoker::Options options = options_;
    options.confirmation = ConfirmationAnswer{held_.id, answer.decision, answer.approver};
    if (answer.decision == "accept") {
      auto call = invoker_->Call(*tool_, arguments_, options, std::move(done_));
      if (call) context_->OnCancel([call] { call->Cancel(); });
      return;
    }
    absl::Status client_status;
    {
      absl::MutexLock lock(&mutex_);
      client_status = client_status_;
    }
    absl::Status not_approved =
        NotApproved(held_, WhyNot(answer, client_status, held_.limit, console_, lifetime_));
    invoker_->Call(*tool_, arguments_, options,
                   [not_approved, done = std::move(done_)](const absl::StatusOr<BackendReply>&) {
                     done(not_approved);
                   });
  }

 private:
  const ToolBinding* const tool_;
  const json arguments_;
  ToolInvoker* const invoker_;
  const ToolInvoker::Options options_;
  const std::shared_ptr<RequestContext> context_;
  const HeldFor held_;
  const bool console_;
  const absl::Duration lifetime_;
  ToolInvoker::Done done_;
  absl::Mutex mutex_;
  absl::Status client_status_ ABSL_GUARDED_BY(mutex_);
};

bool CanElicit(const RequestContext& context) {
  const json& capabilities = context.client_capabilities();
  return capabilities.is_object() && capabilities.contains("elicitation");
}

// The client cannot be asked (`why`): the console alone can answer, until the hold expires.
void WaitForConsole(HeldCall& call, const ApprovalBoard::Hold& hold, const absl::Status& why) {
  call.SetClientStatus(why);
  call.context()->Log(McpLogLevel::kWarning, "labgate.approvals",
                      {{"message", "waiting for a person's approval in the labgate console"},
                       {"approval_id", hold.id()},
                       {"why", std::string(why.message())}});
  call.context()->Progress(0, 1, "waiting for approval in the labgate console");
}

// Whether anyone may answer a hold of `rule` on `port` in the console: as the console checks
// each answer, one who may approve the rule and change that port on its bench.
bool SomeoneMayAnswer(const ApprovalDesk& desk, const std::string& rule, const std::string& port) {
  if (desk.access == nullptr) return true;
  std::string bench;
  std::string local_port = port;
  if (desk.benches != nullptr && !port.empty()) {
    if (absl::StatusOr<SerialBenches::Route> route = desk.benches->Resolve(port); route.ok()) {
      if (route->bench != nullptr) bench = route->bench->name;
      local_port = route->local_port;
    }
  }
  return desk.access->SomeoneMayApprove(rule, bench, local_port);
}

}  // namespace

bool NeedsConfirmation(const absl::Status& status) {
  return absl::IsFailedPrecondition(status) && status.GetPayload(kRuleKey).has_value() &&
         status.GetPayload(kIdKey).has_value();
}

void ConfirmAndRetry(const absl::Status& refusal, const ToolBinding& tool, const json& arguments,
                     ToolInvoker* invoker, ToolInvoker::Options options,
                     const std::shared_ptr<RequestContext>& context, const ApprovalDesk& desk,
                     ToolInvoker::Done done) {
  HeldFor held;
  held.rule = Payload(refusal, kRuleKey);
  held.id = Payload(refusal, kIdKey);
  held.what = Payload(refusal, kWhatKey);
  held.limit = Payload(refusal, kSourceKey) == "limit";
  held.lines = !held.what.empty() && !held.limit;
  held.quantity = Payload(refusal, kQuantityKey);
  const json question = ElicitationParams(tool.name, held.rule, held.what, held.limit, arguments);
  const HeldWrite described = Described(tool, arguments, held, *context);
  // The console takes part where one is served and someone there may answer for this port.
  ApprovalBoard* board = desk.board;
  if (board != nullptr && !SomeoneMayAnswer(desk, held.rule, described.port)) board = nullptr;
  auto call = std::make_shared<HeldCall>(&tool, arguments, invoker, std::move(options), context,
                                         std::move(held), desk.board != nullptr,
                                         board != nullptr ? board->lifetime() : absl::Duration(),
                                         std::move(done));

  if (board == nullptr) {
    // Only the client can be asked: its answer, or why it could not be had, decides.
    context->AskClient(
        "confirm_write", "elicitation/create", question, kConfirmationTimeout,
        [call](const absl::StatusOr<json>& answer) {
          // Not asked yet (2026 era): nothing is decided, sent or recorded.
          if (IsInputRequired(answer.status())) {
            return call->EndUndecided(answer.status());
          }
          call->SetClientStatus(answer.status());
          call->Conclude(
              {Decision(answer), answer.ok() ? ClientApprover(*call->context()) : "", false});
        });
    return;
  }

  // The 2026 era brings the client's answer with a retry of the whole call, which finds the
  // same hold (and the console's answer, if it came in between).
  const bool retry = context->stateless();
  std::shared_ptr<ApprovalBoard::Hold> hold = board->Put(described, retry);
  auto conclude = [call](const ApprovalAnswer& answer) { call->Conclude(answer); };
  if (!retry) hold->Await(conclude);
  // A caller that gives up withdraws its write.
  context->OnCancel([hold] { hold->Answer({"cancel", "", false}); });
  if (!CanElicit(*context)) {
    // Not asked at all (the 2026 era would end the request with -32021): the console decides.
    WaitForConsole(*call, *hold,
                   absl::FailedPreconditionError("the client did not declare elicitation"));
    if (retry) hold->Await(conclude);
    return;
  }
  const auto timeout = std::chrono::milliseconds(absl::ToInt64Milliseconds(board->lifetime()));
  context->AskClient("confirm_write", "elicitation/create", question, timeout,
                     [call, hold, retry, conclude](const absl::StatusOr<json>& answer) {
                       if (IsInputRequired(answer.status()))
                         return call->EndUndecided(answer.status());
                       if (answer.ok()) {
                         // Loses quietly if the console answered first; the result says who
                         // decided.
                         hold->Answer({Decision(answer), ClientApprover(*call->context()), false});
                       } else if (absl::IsCancelled(answer.status())) {
                         // The client went away, or the console answered and its question was
                         // withdrawn.
                         hold->Answer({"cancel", "", false});
                       } else if (!absl::IsDeadlineExceeded(answer.status())) {
                         WaitForConsole(*call, *hold, answer.status());
                       }
                       if (retry) hold->Await(conclude);
                     });
}

}  // namespace labgate::gateway
