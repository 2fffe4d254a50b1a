#include "gateway/tools/write_confirmation.h"

#include "absl/strings/str_cat.h"

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

// `lines`: the call drives control lines rather than sending bytes; `limit`: an instrument's
// limit asked, which no exemption lifts.
absl::Status NotApproved(const std::string& decision, const std::string& rule, bool lines,
                         bool limit, const absl::StatusOr<json>& answer) {
  std::string why;
  if (decision == "decline") {
    why = "the person declined it";
  } else if (decision == "cancel") {
    why = "the person dismissed the request";
  } else if (absl::IsFailedPrecondition(answer.status())) {
    why = limit ? "this MCP client does not support elicitation, so labgate cannot ask a "
                  "person; use a client that does"
                : "this MCP client does not support elicitation, so labgate cannot ask a "
                  "person; use a client that does, or ask the operator to exempt this owner "
                  "(confirm_exempt)";
  } else if (absl::IsDeadlineExceeded(answer.status())) {
    why = absl::StrCat("no answer came within ", kConfirmationTimeout.count(), " s");
  } else {
    why = absl::StrCat("the person could not be asked (", answer.status().message(), ")");
  }
  return absl::FailedPreconditionError(
      absl::StrCat(lines ? "not done" : "not sent",
                   limit ? ": the instrument's limit '" : ": the safety policy's rule '", rule,
                   "' needs a person's approval, and ", why));
}

}  // namespace

bool NeedsConfirmation(const absl::Status& status) {
  return absl::IsFailedPrecondition(status) && status.GetPayload(kRuleKey).has_value() &&
         status.GetPayload(kIdKey).has_value();
}

void ConfirmAndRetry(const absl::Status& refusal, const ToolBinding& tool, const json& arguments,
                     ToolInvoker* invoker, ToolInvoker::Options options,
                     const std::shared_ptr<RequestContext>& context,
                     std::function<void(absl::StatusOr<json>)> done) {
  const std::string rule = Payload(refusal, kRuleKey);
  const std::string id = Payload(refusal, kIdKey);
  const std::string what = Payload(refusal, kWhatKey);
  const bool limit = Payload(refusal, kSourceKey) == "limit";
  // In the 2026 era the question goes back as input_required under this key, and the
  // client's retry of the whole call brings the answer.
  context->AskClient(
      "confirm_write", "elicitation/create",
      ElicitationParams(tool.name, rule, what, limit, arguments), kConfirmationTimeout,
      [tool = &tool, arguments, invoker, options, context, rule, id,
       lines = !what.empty() && !limit, limit,
       done = std::move(done)](const absl::StatusOr<json>& answer) mutable {
        // Not asked yet: nothing is decided, so nothing is sent or recorded.
        if (IsInputRequired(answer.status())) return done(answer.status());
        const std::string decision = Decision(answer);
        options.confirmation = ConfirmationAnswer{id, decision};
        if (decision == "accept") {
          auto call = invoker->Call(*tool, arguments, options, std::move(done));
          if (call) context->OnCancel([call] { call->Cancel(); });
          return;
        }
        // Sent anyway so that the service records the refusal in the port's session;
        // nothing is written.
        absl::Status not_approved = NotApproved(decision, rule, lines, limit, answer);
        invoker->Call(*tool, arguments, options,
                      [not_approved, done = std::move(done)](const absl::StatusOr<json>&) {
                        done(not_approved);
                      });
      });
}

}  // namespace labgate::gateway
