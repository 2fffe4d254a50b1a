// A backend call that failed because the service is down reads, for the operator,
// "UNAVAILABLE: actions service at HOST:PORT is not reachable" rather than gRPC's
// transport text.
#pragma once

#include <grpcpp/channel.h>
#include <grpcpp/support/status.h>

#include <string>

#include "absl/status/status.h"

namespace labgate::gateway {

// `status` as an absl::Status; an UNAVAILABLE from a remote backend (one with an
// `address`) whose channel is not READY, or whose text is gRPC's for a connection that
// broke under the call (the channel may read READY for a moment after), becomes the
// not-reachable text naming `address`.
absl::Status BackendCallStatus(const grpc::Status& status, grpc::Channel* channel,
                               const std::string& service_name, const std::string& address);
// The same, for a status already converted (the async call helpers hand those over).
absl::Status BackendCallStatus(const absl::Status& status, grpc::Channel* channel,
                               const std::string& service_name, const std::string& address);

// After a call to a remote backend succeeded: if that backend was reported down, logs once
// that it is back. Cheap when nothing is down.
void NoteBackendAnswered(const std::string& service_name, const std::string& address);

}  // namespace labgate::gateway
