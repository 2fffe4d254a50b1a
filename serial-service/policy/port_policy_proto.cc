#include "serial-service/policy/port_policy_proto.h"

namespace labgate::serial {

void PortPolicyToProto(const Policy& policy, const std::string& port_name, v1::PortPolicy* out) {
  out->set_source(policy.source);
  const PortRule* rule = policy.RuleFor(port_name);
  if (rule == nullptr) return;  // no rule: not allowed
  out->set_match(rule->match);
  out->set_allowed(rule->allow);
  out->set_read_only(rule->read_only);
  if (rule->max_baud.has_value()) out->set_max_baud(*rule->max_baud);
  for (const DataRule& deny : rule->deny) out->add_deny_rules(deny.name);
  for (const DataRule& confirm : rule->confirm) out->add_confirm_rules(confirm.name);
  if (rule->max_writes_per_s.has_value()) out->set_max_writes_per_s(*rule->max_writes_per_s);
  const bool drivable = rule->allow && !rule->read_only;
  out->set_signals_allowed(drivable && rule->signals != SignalsRule::kDeny);
  out->set_signals(drivable ? SignalsRuleName(rule->signals) : "deny");
  for (const LineSequence& sequence : rule->sequences) {
    v1::PolicySequence* shown = out->add_sequences();
    shown->set_name(sequence.name);
    SignalsRule applies = SignalsRule::kAllow;  // a sequence of sends only: no lines to rule
    if (sequence.signals.has_value()) {
      applies = *sequence.signals;
    } else if (sequence.DrivesLines()) {
      applies = rule->signals;
    }
    shown->set_signals(drivable ? SignalsRuleName(applies) : "deny");
    shown->set_steps(DescribeSteps(sequence.steps));
  }
}

}  // namespace labgate::serial
