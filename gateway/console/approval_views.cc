#include "gateway/console/approval_views.h"

#include <optional>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "common/log.h"
#include "gateway/console/console_replies.h"

namespace labgate::gateway::console {

using nlohmann::json;

namespace {

constexpr absl::Duration kLongPoll = absl::Seconds(25);

// An approver approves a write to the port: it must be one who may change that port (its
// bench, its ports, not read-only) as well as one whose may_approve names the rule.
absl::Status MayAnswer(const access::AccessControl* access, const std::string& principal,
                       const HeldWrite& write, const PortCheck& may_change_port) {
  if (access == nullptr) return absl::OkStatus();
  if (absl::Status acts = access->MayAct(principal); !acts.ok()) return acts;
  if (absl::Status may = access->MayApprove(principal, write.rule); !may.ok()) return may;
  if (!may_change_port || write.port.empty()) return absl::OkStatus();
  return may_change_port(principal, write.port);
}

// Raises `shown` to hold `id`'s number.
void NoteShown(std::atomic<uint64_t>* shown, const std::string& id) {
  uint64_t key = 0;
  if (shown == nullptr || !absl::SimpleAtoi(id, &key)) return;
  uint64_t seen = shown->load(std::memory_order_acquire);
  while (seen < key && !shown->compare_exchange_weak(seen, key, std::memory_order_acq_rel)) {
  }
}

ApprovalViews::Reply Refusal(int status, absl::string_view message) {
  return {status, {{"error", std::string(message)}}};
}

}  // namespace

json ApprovalsJson(const ApprovalBoard* board, const access::AccessControl* access,
                   const std::string& principal, std::atomic<uint64_t>* shown,
                   const PortCheck& may_change_port) {
  json list = json::array();
  if (board == nullptr) return {{"enabled", false}, {"version", 0}, {"approvals", list}};
  const uint64_t version = board->version();
  const absl::Time now = absl::Now();
  for (const ApprovalBoard::Waiting& waiting : board->List()) {
    NoteShown(shown, waiting.id);
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
    const absl::Status may = MayAnswer(access, principal, write, may_change_port);
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
                     [connection, board = board_, access = access_, shown = shown_, principal,
                      check = may_change_port_] {
                       RespondJson(
                           connection, 200,
                           ApprovalsJson(board, access.get(), principal, shown.get(), check));
                     });
    return;
  }
  RespondJson(connection, 200,
              ApprovalsJson(board_, access_.get(), principal, shown_.get(), may_change_port_));
}

void ApprovalViews::Answer(const std::shared_ptr<http::HttpConnection>& connection,
                           const std::string& actor, const std::string& id,
                           const std::string& decision) const {
  const Reply reply = Answered(actor, id, decision);
  RespondJson(connection, reply.status, reply.body);
}

ApprovalViews::Reply ApprovalViews::Answered(const std::string& actor, const std::string& id,
                                             const std::string& decision) const {
  if (board_ == nullptr) return Refusal(503, "approvals are not taken in this console");
  if (access_ != nullptr) {
    if (absl::Status acts = access_->MayAct(actor); !acts.ok()) {
      return Refusal(403, acts.message());
    }
  }
  std::optional<ApprovalBoard::Waiting> held;
  for (ApprovalBoard::Waiting& waiting : board_->List()) {
    NoteShown(shown_.get(), waiting.id);
    if (waiting.id == id) held = std::move(waiting);
  }
  if (held.has_value()) {
    if (access_ != nullptr) {
      if (absl::Status may = MayAnswer(access_.get(), actor, held->write, may_change_port_);
          !may.ok()) {
        return Refusal(403, may.message());
      }
    }
  } else {
    // Not waiting. Asking the board about an id it has not shown yet could decide a hold made
    // since List(), whose rule was never checked (ids are sequential, so easy to guess).
    uint64_t key = 0;
    if (!absl::SimpleAtoi(id, &key) || key > shown_->load(std::memory_order_acquire)) {
      return Refusal(404, absl::StrCat("no write is waiting for approval as ", id));
    }
  }
  const std::string approver = absl::StrCat(actor, " in the labgate console");
  const absl::Status answered = board_->Answer(id, {decision, approver, true});
  if (absl::IsAlreadyExists(answered)) return Refusal(409, answered.message());
  if (!answered.ok()) return Refusal(404, answered.message());
  if (held.has_value()) {
    LG_LOG(kInfo) << "console: " << actor << " " << AnswerWord(decision) << " hold " << id << " ("
                  << held->write.tool << " on " << held->write.port << " by "
                  << held->write.principal << ", rule " << held->write.rule << ")";
  }
  return {200, {{"id", id}, {"decision", decision}, {"approver", approver}}};
}

}  // namespace labgate::gateway::console
