#include "gateway/console/approval_views.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/log.h"
#include "gateway/console/console_replies.h"

namespace labgate::gateway::console {

using nlohmann::json;

namespace {

constexpr absl::Duration kLongPoll = absl::Seconds(25);

absl::Status MayAnswer(const access::AccessControl* access, const std::string& principal,
                       const std::string& rule) {
  if (access == nullptr) return absl::OkStatus();
  if (absl::Status acts = access->MayAct(principal); !acts.ok()) return acts;
  return access->MayApprove(principal, rule);
}

}  // namespace

json ApprovalsJson(const ApprovalBoard* board, const access::AccessControl* access,
                   const std::string& principal) {
  json list = json::array();
  if (board == nullptr) return {{"enabled", false}, {"version", 0}, {"approvals", list}};
  const uint64_t version = board->version();
  const absl::Time now = absl::Now();
  for (const ApprovalBoard::Waiting& waiting : board->List()) {
    const HeldWrite& write = waiting.write;
    json entry = {
        {"id", waiting.id},
        {"principal", write.principal},
        {"owner", write.owner},
        {"tool", write.tool},
        {"port", write.port},
        {"shown", write.shown},
        {"rule", write.rule},
        {"limit", write.limit},
        {"held_at", absl::FormatTime(absl::RFC3339_full, waiting.held_at, absl::UTCTimeZone())},
        {"expires_in_ms", absl::ToInt64Milliseconds(waiting.expires_at - now)}};
    if (!write.quantity.empty()) entry["quantity"] = write.quantity;
    const absl::Status may = MayAnswer(access, principal, write.rule);
    entry["may_answer"] = may.ok();
    if (!may.ok()) entry["why_not"] = std::string(may.message());
    list.push_back(std::move(entry));
  }
  return {{"enabled", true}, {"version", version}, {"approvals", std::move(list)}};
}

void ApprovalViews::List(const std::shared_ptr<http::HttpConnection>& connection,
                         const std::string& principal,
                         const std::map<std::string, std::string>& query) const {
  uint64_t seen = 0;
  auto after = query.find("after");
  if (board_ != nullptr && after != query.end() && absl::SimpleAtoi(after->second, &seen)) {
    // Answers when the list changes (or at once if it has since `seen`).
    board_->OnChange(seen, absl::Now() + kLongPoll,
                     [connection, board = board_, access = access_, principal] {
                       RespondJson(connection, 200, ApprovalsJson(board, access.get(), principal));
                     });
    return;
  }
  RespondJson(connection, 200, ApprovalsJson(board_, access_.get(), principal));
}

void ApprovalViews::Answer(const std::shared_ptr<http::HttpConnection>& connection,
                           const std::string& actor, const std::string& id,
                           const std::string& decision) const {
  if (board_ == nullptr) {
    return RespondError(connection, 503, "approvals are not taken in this console");
  }
  if (access_ != nullptr) {
    if (absl::Status acts = access_->MayAct(actor); !acts.ok()) {
      return RespondError(connection, 403, std::string(acts.message()));
    }
  }
  std::optional<ApprovalBoard::Waiting> held;
  for (ApprovalBoard::Waiting& waiting : board_->List()) {
    if (waiting.id == id) held = std::move(waiting);
  }
  if (held.has_value() && access_ != nullptr) {
    if (absl::Status may = access_->MayApprove(actor, held->write.rule); !may.ok()) {
      return RespondError(connection, 403, std::string(may.message()));
    }
  }
  const std::string approver = absl::StrCat(actor, " in the labgate console");
  const absl::Status answered = board_->Answer(id, {decision, approver, true});
  if (absl::IsAlreadyExists(answered))
    return RespondError(connection, 409, std::string(answered.message()));
  if (!answered.ok()) return RespondError(connection, 404, std::string(answered.message()));
  if (held.has_value()) {
    LG_LOG(kInfo) << "console: " << actor << " " << AnswerWord(decision) << " hold " << id << " ("
                  << held->write.tool << " on " << held->write.port << " by "
                  << held->write.principal << ", rule " << held->write.rule << ")";
  }
  RespondJson(connection, 200, {{"id", id}, {"decision", decision}, {"approver", approver}});
}

}  // namespace labgate::gateway::console
