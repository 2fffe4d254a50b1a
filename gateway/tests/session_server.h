// The real session service on 127.0.0.1, on its own data dir, for the gateway's tests.
#pragma once

#include <string>

#include "gateway/tests/loopback_server.h"
#include "session-service/session_service.h"

namespace labgate::gateway::testing {

class SessionServer : public LoopbackServer<labgate::session::SessionGrpcService> {
 public:
  explicit SessionServer(const std::string& dir)
      : LoopbackServer(
            [dir] { return labgate::session::CreateSessionService({dir}); },
            [](labgate::session::SessionGrpcService& service) { service.FinishWatchStreams(); },
            [](labgate::session::SessionGrpcService& service) { service.Shutdown(); }) {}
};

}  // namespace labgate::gateway::testing
