// A readiness probe for /readyz: asks each backend's grpc.health.v1.Health/Check, with
// the callback API and a deadline, so no thread waits on it. Works for in-process and
// remote channels alike. The console's backend view asks the same question.
#pragma once

#include <grpcpp/channel.h>

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "gateway/http/http_server.h"

namespace labgate::gateway::http {

struct BackendHealth {
  std::string name;  // as an operator knows it, e.g. "session service at HOST:PORT"
  bool serving = false;
  std::string state;  // "serving", "not serving", or why the check failed
};

// Checks every channel once (server-wide status) and calls `done` once, from any thread,
// with one entry per channel in name order.
void CheckBackends(const std::map<std::string, std::shared_ptr<grpc::Channel>>& channels,
                   std::chrono::milliseconds timeout,
                   std::function<void(std::vector<BackendHealth>)> done);

// `channels` maps a service's full name (used in the detail text) to its channel; each is
// asked for its server-wide status.
ReadinessProbe GrpcHealthProbe(std::map<std::string, std::shared_ptr<grpc::Channel>> channels,
                               std::chrono::milliseconds timeout);

}  // namespace labgate::gateway::http
