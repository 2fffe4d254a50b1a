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
  out->set_signals_allowed(rule->allow && rule->signals_allowed && !rule->read_only);
}

}  // namespace labgate::serial
