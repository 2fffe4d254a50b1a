#include "serial-service/policy/policy_engine.h"

#include <random>

#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"

namespace labgate::serial {
namespace {

constexpr auto kApprovalLifetime = std::chrono::minutes(10);
constexpr size_t kMaxPendingApprovals = 1024;

std::string NewApprovalId() {
  ABSL_CONST_INIT static absl::Mutex mu(absl::kConstInit);
  static std::mt19937_64 random{std::random_device{}()};
  absl::MutexLock lock(&mu);
  return absl::StrCat(absl::Hex(random(), absl::kZeroPad16), absl::Hex(random(), absl::kZeroPad16));
}

std::string NoRule(const Policy& policy, const std::string& port_name) {
  return absl::StrCat("port ", port_name, " is not allowed by the policy (", policy.source,
                      "): no rule matches it");
}

}  // namespace

void PolicyEngine::Replace(std::shared_ptr<const Policy> policy) {
  absl::MutexLock lock(&mu_);
  policy_ = std::move(policy);
  writes_.clear();
  approvals_.clear();
}

std::shared_ptr<const Policy> PolicyEngine::current() const {
  absl::MutexLock lock(&mu_);
  return policy_;
}

absl::Status PolicyEngine::CheckOpen(const std::string& port_name, int64_t baud_rate) const {
  std::shared_ptr<const Policy> policy = current();
  if (policy == nullptr) return absl::OkStatus();
  const PortRule* rule = policy->RuleFor(port_name);
  if (rule == nullptr) return absl::PermissionDeniedError(NoRule(*policy, port_name));
  if (!rule->allow) {
    return absl::PermissionDeniedError(absl::StrCat("port ", port_name,
                                                    " is not allowed by the policy (rule '",
                                                    rule->match, "' in ", policy->source, ")"));
  }
  if (rule->max_baud.has_value() && baud_rate > *rule->max_baud) {
    return absl::PermissionDeniedError(absl::StrCat("baud_rate ", baud_rate, " exceeds max_baud ",
                                                    *rule->max_baud, " of the policy for ",
                                                    port_name, " (rule '", rule->match, "')"));
  }
  return absl::OkStatus();
}

absl::Status PolicyEngine::CheckSignals(const std::string& owner, const std::string& port_name,
                                        const std::string& action, const std::string& approval,
                                        const LineSequence* sequence) {
  absl::MutexLock lock(&mu_);
  if (policy_ == nullptr) return absl::OkStatus();
  const Policy& policy = *policy_;
  const PortRule* rule = policy.RuleFor(port_name);
  if (rule == nullptr) return absl::PermissionDeniedError(NoRule(policy, port_name));
  if (rule->read_only) {
    return absl::PermissionDeniedError(
        absl::StrCat("port ", port_name, " is read-only by the policy (rule '", rule->match,
                     "'); its control lines are not driven either"));
  }
  const bool own_rule = sequence != nullptr && sequence->signals.has_value();
  const SignalsRule signals = own_rule ? *sequence->signals : rule->signals;
  const std::string whose = own_rule ? absl::StrCat("sequence '", sequence->name, "'")
                                     : absl::StrCat("rule '", rule->match, "'");
  if (signals == SignalsRule::kDeny) {
    return absl::PermissionDeniedError(
        absl::StrCat("the policy does not let callers drive the control lines of ", port_name, " (",
                     whose, " says \"signals\": \"deny\")"));
  }
  if (signals == SignalsRule::kAllow || policy.confirm_exempt.contains(owner)) {
    return absl::OkStatus();
  }
  if (!approval.empty() && TakeApproval(approval, owner, port_name, action)) {
    return absl::OkStatus();
  }
  const std::string rule_name =
      sequence != nullptr ? absl::StrCat("sequence ", sequence->name) : "signals";
  if (approvals_.size() >= kMaxPendingApprovals) approvals_.erase(approvals_.begin());
  const std::string id = NewApprovalId();
  approvals_[id] = {owner, port_name, action, rule_name,
                    std::chrono::steady_clock::now() + kApprovalLifetime};
  absl::Status status = absl::FailedPreconditionError(absl::StrCat(
      "confirmation required: ", whose, " says \"signals\": \"confirm\", so ", action, " on ",
      port_name,
      " needs a person's approval through an MCP client that supports elicitation, or the "
      "policy must list owner '",
      owner, "' in confirm_exempt"));
  status.SetPayload(kConfirmRulePayload, absl::Cord(rule_name));
  status.SetPayload(kConfirmIdPayload, absl::Cord(id));
  status.SetPayload(kConfirmWhatPayload, absl::Cord(action));
  return status;
}

bool PolicyEngine::SignalsNeedApproval(const std::string& owner, const std::string& port_name,
                                       const LineSequence* sequence) const {
  absl::MutexLock lock(&mu_);
  if (policy_ == nullptr || policy_->confirm_exempt.contains(owner)) return false;
  const PortRule* rule = policy_->RuleFor(port_name);
  if (rule == nullptr || rule->read_only) return false;
  const bool own_rule = sequence != nullptr && sequence->signals.has_value();
  return (own_rule ? *sequence->signals : rule->signals) == SignalsRule::kConfirm;
}

absl::StatusOr<LineSequence> PolicyEngine::SequenceFor(const std::string& port_name,
                                                       const std::string& name) const {
  std::shared_ptr<const Policy> policy = current();
  if (policy == nullptr) {
    return absl::NotFoundError(
        absl::StrCat("no sequence '", name,
                     "': sequences come from the policy (labgate-serial runs without one) "
                     "and from open_port's sequences"));
  }
  const PortRule* rule = policy->RuleFor(port_name);
  if (rule != nullptr) {
    if (const LineSequence* sequence = rule->SequenceNamed(name)) return *sequence;
  }
  std::vector<std::string> names;
  if (rule != nullptr) {
    for (const LineSequence& sequence : rule->sequences) names.push_back(sequence.name);
  }
  return absl::NotFoundError(absl::StrCat(
      "no sequence '", name, "' for ", port_name, " in the policy (", policy->source, "); ",
      names.empty() ? std::string("it has none for this port")
                    : absl::StrCat("it has: ", absl::StrJoin(names, ", "))));
}

bool PolicyEngine::Listed(const std::string& port_name) const {
  std::shared_ptr<const Policy> policy = current();
  if (policy == nullptr || policy->show_denied) return true;
  const PortRule* rule = policy->RuleFor(port_name);
  return rule != nullptr && rule->allow;
}

bool PolicyEngine::TakeApproval(const std::string& id, const std::string& owner,
                                const std::string& port_name, const std::string& bytes) {
  auto it = approvals_.find(id);
  if (it == approvals_.end()) return false;
  const PendingApproval& pending = it->second;
  const bool valid = pending.owner == owner && pending.port_name == port_name &&
                     pending.bytes == bytes && pending.expires > std::chrono::steady_clock::now();
  approvals_.erase(it);
  return valid;
}

void PolicyEngine::Withdraw(const std::string& approval) {
  absl::MutexLock lock(&mu_);
  approvals_.erase(approval);
}

std::optional<std::string> PolicyEngine::ConfirmRuleFor(const std::string& owner,
                                                        const std::string& port_name,
                                                        const std::string& bytes) const {
  absl::MutexLock lock(&mu_);
  if (policy_ == nullptr || policy_->confirm_exempt.contains(owner)) return std::nullopt;
  const PortRule* rule = policy_->RuleFor(port_name);
  if (rule == nullptr) return std::nullopt;
  for (const DataRule& confirm : rule->confirm) {
    if (PatternFound(*confirm.compiled, bytes)) return confirm.name;
  }
  return std::nullopt;
}

absl::Status PolicyEngine::CheckJoinedLine(const std::string& owner, const std::string& port_name,
                                           absl::string_view earlier,
                                           absl::string_view head) const {
  absl::MutexLock lock(&mu_);
  if (policy_ == nullptr) return absl::OkStatus();
  const PortRule* rule = policy_->RuleFor(port_name);
  if (rule == nullptr) return absl::OkStatus();
  const std::string joined = absl::StrCat(earlier, head);
  for (const DataRule& deny : rule->deny) {
    if (PatternFound(*deny.compiled, joined)) {
      return absl::PermissionDeniedError(
          absl::StrCat("write to ", port_name, " refused by the policy's deny rule '", deny.name,
                       "' (/", deny.pattern, "/): it completes a line begun in an earlier write"));
    }
  }
  if (policy_->confirm_exempt.contains(owner)) return absl::OkStatus();
  for (const DataRule& confirm : rule->confirm) {
    if (PatternFound(*confirm.compiled, joined) && !PatternFound(*confirm.compiled, earlier) &&
        !PatternFound(*confirm.compiled, head)) {
      return absl::PermissionDeniedError(absl::StrCat(
          "write to ", port_name, " refused: it completes a line begun in an earlier write, and ",
          "the whole line matches the confirm rule '", confirm.name,
          "'; send the line in one write so that a person can be asked"));
    }
  }
  return absl::OkStatus();
}

absl::Status PolicyEngine::CheckWrite(const std::string& owner, const std::string& port_name,
                                      const std::string& bytes, const std::string& approval,
                                      const LimitQuestion* limit) {
  absl::MutexLock lock(&mu_);
  if (policy_ == nullptr && limit == nullptr) return absl::OkStatus();
  const Policy* policy = policy_.get();
  const PortRule* rule = nullptr;
  if (policy != nullptr) {
    rule = policy->RuleFor(port_name);
    if (rule == nullptr) return absl::PermissionDeniedError(NoRule(*policy, port_name));
    if (rule->read_only) {
      return absl::PermissionDeniedError(absl::StrCat("port ", port_name,
                                                      " is read-only by the policy (rule '",
                                                      rule->match, "'); reads only"));
    }
    for (const DataRule& deny : rule->deny) {
      if (PatternFound(*deny.compiled, bytes)) {
        return absl::PermissionDeniedError(absl::StrCat("write to ", port_name,
                                                        " refused by the policy's deny rule '",
                                                        deny.name, "' (/", deny.pattern, "/)"));
      }
    }
  }
  // Who asks a person: the policy's first matching confirm rule, else the instrument's limit.
  const DataRule* confirm = nullptr;
  if (rule != nullptr && !policy->confirm_exempt.contains(owner)) {
    for (const DataRule& candidate : rule->confirm) {
      if (PatternFound(*candidate.compiled, bytes)) {
        confirm = &candidate;
        break;
      }
    }
  }
  const auto now = std::chrono::steady_clock::now();
  if ((confirm != nullptr || limit != nullptr) &&
      (approval.empty() || !TakeApproval(approval, owner, port_name, bytes))) {
    const std::string rule_name = confirm != nullptr ? confirm->name : limit->rule;
    if (approvals_.size() >= kMaxPendingApprovals) approvals_.erase(approvals_.begin());
    const std::string id = NewApprovalId();
    approvals_[id] = {owner, port_name, bytes, rule_name, now + kApprovalLifetime};
    const std::string why =
        confirm != nullptr ? absl::StrCat("the policy's confirm rule '", confirm->name, "' (/",
                                          confirm->pattern, "/) matches this write to ", port_name)
                           : limit->reason;
    const std::string unless =
        confirm != nullptr
            ? absl::StrCat(", or the policy must list owner '", owner, "' in confirm_exempt")
            : std::string();
    absl::Status status = absl::FailedPreconditionError(
        absl::StrCat("confirmation required: ", why,
                     "; a person must approve it through an MCP client that supports "
                     "elicitation",
                     unless));
    status.SetPayload(kConfirmRulePayload, absl::Cord(rule_name));
    status.SetPayload(kConfirmIdPayload, absl::Cord(id));
    if (confirm == nullptr) {
      // The person sees why and what: the limit's reason and the command.
      std::string shown = bytes.substr(0, 200);
      while (!shown.empty() && (shown.back() == '\n' || shown.back() == '\r')) shown.pop_back();
      status.SetPayload(kConfirmWhatPayload,
                        absl::Cord(absl::StrCat(shown, "  (", limit->reason, ")")));
      status.SetPayload(kConfirmSourcePayload, absl::Cord("limit"));
    }
    return status;
  }
  const std::optional<double> max_writes_per_s =
      rule != nullptr ? rule->max_writes_per_s : std::nullopt;
  if (max_writes_per_s.has_value()) {
    std::deque<std::chrono::steady_clock::time_point>& recent = writes_[port_name];
    while (!recent.empty() && now - recent.front() >= std::chrono::seconds(1)) recent.pop_front();
    if (static_cast<double>(recent.size()) + 1 > *max_writes_per_s) {
      const auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(
          recent.front() + std::chrono::seconds(1) - now);
      return absl::ResourceExhaustedError(absl::StrCat(
          "write to ", port_name, " refused: the policy allows ", *max_writes_per_s,
          " writes per second (rule '", rule->match, "'); retry in ", wait.count(), " ms"));
    }
    recent.push_back(now);
  }
  return absl::OkStatus();
}

}  // namespace labgate::serial
