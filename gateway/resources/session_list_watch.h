// Watches every session (WatchSession with no id) so that a session created or closed by
// anyone, this gateway's clients, another gateway or a direct gRPC caller, becomes a
// notifications/resources/list_changed. A stream that ends (the service restarted or is
// not up yet) is watched again after a second.
#pragma once

#include <grpcpp/channel.h>

#include <functional>
#include <memory>

#include "gateway/backends/resuming_watch.h"
#include "labgate/session/v1/session.grpc.pb.h"

namespace labgate::gateway {

class SessionListWatch {
 public:
  // `changed` runs on a gRPC thread for each created or closed session.
  static std::unique_ptr<SessionListWatch> Start(const std::shared_ptr<grpc::Channel>& channel,
                                                 std::function<void()> changed);
  ~SessionListWatch();  // cancels the stream; no call after it returns but a running one

  using Stream = ResumingWatch<labgate::session::v1::SessionEvent>;

 private:
  explicit SessionListWatch(std::shared_ptr<Stream> stream) : stream_(std::move(stream)) {}
  std::shared_ptr<Stream> stream_;
};

}  // namespace labgate::gateway
