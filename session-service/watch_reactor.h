// The WatchSession stream: forwards committed session events to one client (a BoundedStream).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "labgate/session/v1/session.pb.h"
#include "session-service/bounded_stream.h"
#include "session-service/store/session_store.h"

namespace labgate::session {

using WatchRegistry = BoundedStream<::labgate::session::v1::SessionEvent>::Registry;

class WatchReactor final : public BoundedStream<::labgate::session::v1::SessionEvent> {
 public:
  static constexpr size_t kMaxQueuedEvents = 1024;

  // Subscribes to `store` at once (every session when `session_id` is empty); deletes itself
  // when the stream is done.
  WatchReactor(SessionStore* store, WatchRegistry* registry, std::string session_id);

 private:
  void OnStreamDone() override;

  SessionStore* const store_;
  uint64_t subscription_ = 0;  // set by the constructor, read by OnStreamDone
};

}  // namespace labgate::session
