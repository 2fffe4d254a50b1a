#include <cstdio>
#include <random>

#include "gateway/mcp/mcp_server.h"

namespace labgate::gateway {

std::string DefaultInstructions() {
  return "labgate connects you to the lab machine's serial instruments and keeps a durable "
         "transcript of what you do. Typical flow: create_session for the device, then "
         "append_message for each command sent and reply received (role, direction tx/rx, "
         "feature tags such as 'scpi,idn'), and list_messages / filter_messages / "
         "export_session to review. Every tool returns structured JSON; errors come back as "
         "tool results with isError set and a message saying what to fix.";
}

std::string NewOwnerId(const std::string& transport) {
  static thread_local std::mt19937_64 generator(std::random_device{}());
  char hex[17];
  std::snprintf(hex, sizeof(hex), "%016llx", static_cast<unsigned long long>(generator()));
  return transport + "-" + hex;
}

}  // namespace labgate::gateway
