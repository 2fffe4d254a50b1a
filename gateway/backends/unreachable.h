// A backend call that failed because the service is down reads, for the operator,
// "UNAVAILABLE: actions service at HOST:PORT is not reachable" rather than gRPC's
// transport text.
#pragma once

#include <grpcpp/channel.h>
#include <grpcpp/support/status.h>

#include <string>

#include "absl/status/status.h"

namespace labgate::gateway {

// `status` as an absl::Status; an UNAVAILABLE from a remote channel that is not READY
// (the connection failed or broke) becomes the not-reachable text naming `address`.
absl::Status BackendCallStatus(const grpc::Status& status, grpc::Channel* channel,
                               const std::string& service_name, const std::string& address);

// After a call to a remote backend succeeded: if that backend was reported down, logs once
// that it is back. Cheap when nothing is down.
void NoteBackendAnswered(const std::string& service_name, const std::string& address);

}  // namespace labgate::gateway
