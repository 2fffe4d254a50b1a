// A WatchSession stream for the loaf dialect that also says when it is subscribed: the
// session service sends headers once the watch is registered, so an append made after
// `on_ready` is sure to come back as an event.
#pragma once

#include <functional>
#include <memory>

#include "labgate/session/v1/session.grpc.pb.h"

namespace labgate::gateway::loaf {

struct SessionWatchCallbacks {
  // Once: true when subscribed, false when the stream ended before that.
  std::function<void(bool subscribed)> on_ready;
  std::function<void(const labgate::session::v1::SessionEvent&)> on_event;
};

// Watches `session_id` until the returned handle is released or the stream ends.
std::shared_ptr<void> WatchSession(labgate::session::v1::SessionService::Stub* stub,
                                   const std::string& session_id, SessionWatchCallbacks callbacks);

}  // namespace labgate::gateway::loaf
