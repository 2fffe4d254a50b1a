// Applies the current Policy to opens and writes, and swaps in a new one on reload
// (SIGHUP) without disturbing calls in flight. Without a policy everything is allowed.
#pragma once

#include <chrono>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "serial-service/policy/policy.h"

namespace labgate::serial {

// Status payloads of a write refused for confirmation: the rule, and the id of the approval
// that a confirming gateway may present when it retries. They reach the caller as they are in
// process, and as trailing metadata of the same name over gRPC (common/call_context.h).
inline constexpr char kConfirmRulePayload[] = "labgate-confirm-rule";
inline constexpr char kConfirmIdPayload[] = "labgate-confirm-id";
// And, for a change of control lines, what the person is asked about (the call's own arguments
// do not show a named sequence's steps).
inline constexpr char kConfirmWhatPayload[] = "labgate-confirm-what";
// "limit" when an instrument's limit (confirm_above) asks, not the policy: its refusals then
// speak of the instrument's limit, and confirm_exempt is no way around it.
inline constexpr char kConfirmSourcePayload[] = "labgate-confirm-source";
// What a held write to an instrument sets, read with its profile ("voltage 3.5 V on psu-2
// channel 1"), for the person asked; set by PortService, absent for a write that sets nothing.
inline constexpr char kConfirmQuantityPayload[] = "labgate-confirm-quantity";

class PolicyEngine {
 public:
  PolicyEngine() = default;

  void Replace(std::shared_ptr<const Policy> policy);
  std::shared_ptr<const Policy> current() const;

  // PERMISSION_DENIED when the port may not be opened at this baud rate.
  absl::Status CheckOpen(const std::string& port_name, int64_t baud_rate) const;
  // Whether `owner` may drive the port's control lines (DTR, RTS, break) as `action` says (e.g.
  // "DTR low for 100 ms"). For a named sequence (`sequence`), its own rule applies when it
  // has one. `approval` is as for CheckWrite. Refusals:
  //   PERMISSION_DENIED   a read-only port, or "signals": "deny";
  //   FAILED_PRECONDITION "signals": "confirm" without a valid approval (payloads: the rule,
  //                       a fresh confirm id, and kConfirmWhatPayload: `action`).
  absl::Status CheckSignals(const std::string& owner, const std::string& port_name,
                            const std::string& action, const std::string& approval,
                            const LineSequence* sequence = nullptr);
  // Whether CheckSignals would ask a person (a "confirm" rule, the owner not exempt); changes
  // nothing.
  bool SignalsNeedApproval(const std::string& owner, const std::string& port_name,
                           const LineSequence* sequence = nullptr) const;
  // The operator's sequence `name` for the port, copied (the policy may be replaced meanwhile).
  // NOT_FOUND naming the sequences there are.
  absl::StatusOr<LineSequence> SequenceFor(const std::string& port_name,
                                           const std::string& name) const;
  // Whether list_ports shows the port.
  bool Listed(const std::string& port_name) const;

  // A write (or query) of `bytes` by `owner`. `approval` is the confirm id a gateway
  // presents after a person approved (empty: none). Refusals:
  //   PERMISSION_DENIED   read_only, or a deny rule (named);
  //   FAILED_PRECONDITION a confirm rule matched (payloads: rule and a fresh confirm id);
  //   RESOURCE_EXHAUSTED  max_writes_per_s.
  // An allowed write counts toward the rate limit.
  // `limit` is an instrument limit's question (confirm_above): the write needs a person's
  // approval for it too, whatever the policy says, confirm_exempt owners included, since the
  // limit belongs to the instrument. One approval answers both.
  struct LimitQuestion {
    std::string rule;    // "confirm-current"
    std::string reason;  // "4 A is above confirm-current (3 A) on psu-2 channel 1"
  };
  absl::Status CheckWrite(const std::string& owner, const std::string& port_name,
                          const std::string& bytes, const std::string& approval,
                          const LimitQuestion* limit = nullptr);
  // The confirm rule a write of `bytes` by `owner` would need a person's approval for, if any;
  // changes nothing (no request is made, nothing counts toward the rate limit).
  std::optional<std::string> ConfirmRuleFor(const std::string& owner, const std::string& port_name,
                                            const std::string& bytes) const;
  // A write whose first line (`head`) completes the device's unfinished line `earlier`: refused
  // when the joined line matches a deny rule, or a confirm rule that neither part matches alone
  // (nobody was asked about the joined line). OK for a port without a rule: CheckWrite says so.
  absl::Status CheckJoinedLine(const std::string& owner, const std::string& port_name,
                               absl::string_view earlier, absl::string_view head) const;
  // Forgets a confirmation request the person did not approve, so it cannot be used later.
  void Withdraw(const std::string& approval);

 private:
  struct PendingApproval {
    std::string owner, port_name, bytes, rule;
    std::chrono::steady_clock::time_point expires;
  };
  // Consumes a matching approval; false when there is none.
  bool TakeApproval(const std::string& id, const std::string& owner, const std::string& port_name,
                    const std::string& bytes) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  mutable absl::Mutex mu_;
  std::shared_ptr<const Policy> policy_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, std::deque<std::chrono::steady_clock::time_point>> writes_
      ABSL_GUARDED_BY(mu_);
  std::map<std::string, PendingApproval> approvals_ ABSL_GUARDED_BY(mu_);
};

}  // namespace labgate::serial
