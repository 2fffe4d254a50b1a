// A readiness probe for /readyz: asks each backend's grpc.health.v1.Health/Check, with
// the callback API and a deadline, so no thread waits on it. Works for in-process and
// remote channels alike.
#pragma once

#include <grpcpp/channel.h>

#include <chrono>
#include <map>
#include <memory>
#include <string>

#include "gateway/http/http_server.h"

namespace labgate::gateway::http {

// `channels` maps a service's full name (used in the detail text) to its channel; each is
// asked for its server-wide status.
ReadinessProbe GrpcHealthProbe(std::map<std::string, std::shared_ptr<grpc::Channel>> channels,
                               std::chrono::milliseconds timeout);

}  // namespace labgate::gateway::http
