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

}  // namespace labgate::gateway
