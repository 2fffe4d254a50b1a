// For gateway tests with benches: a real labgate serial service on 127.0.0.1 (port 0, or a
// given port to come back on), reached with ChannelTo (loopback_server.h).
#pragma once

#include "gateway/tests/loopback_server.h"
#include "serial-service/serial_service.h"

namespace labgate::gateway::testing {

class SerialBench : public LoopbackServer<labgate::serial::SerialGrpcService> {
 public:
  SerialBench()
      : LoopbackServer(
            [] {
              return labgate::serial::CreateSerialService(labgate::serial::SerialServiceOptions{});
            },
            [](labgate::serial::SerialGrpcService& service) { service.Shutdown(); }) {}
};

}  // namespace labgate::gateway::testing
