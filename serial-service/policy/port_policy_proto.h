// What the policy says about one port, as GetStatus reports it (the console shows it).
#pragma once

#include <string>

#include "labgate/serial/v1/serial.pb.h"
#include "serial-service/policy/policy.h"

namespace labgate::serial {

// Fills `out` from the rule `policy` applies to `port_name` (the first that matches; with
// none, `match` stays empty and the port is not allowed).
void PortPolicyToProto(const Policy& policy, const std::string& port_name, v1::PortPolicy* out);

}  // namespace labgate::serial
