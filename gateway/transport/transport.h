// Where the MCP engine sends protocol messages for one client. Framing is a strategy chosen
// per message, so a reply goes out in the framing its request came in.
#pragma once

#include <string>

#include "gateway/transport/framing.h"

namespace labgate::gateway {

class Transport {
 public:
  virtual ~Transport() = default;
  // Thread-safe; never blocks on I/O.
  virtual void Send(Framing framing, std::string payload) = 0;
};

}  // namespace labgate::gateway
