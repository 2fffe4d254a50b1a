#include "session-service/watch_reactor.h"

#include <memory>
#include <utility>

#include "common/grpc_status.h"
#include "session-service/proto_convert.h"

namespace labgate::session {

WatchReactor::WatchReactor(SessionStore* store, WatchRegistry* registry, std::string session_id)
    : BoundedStream(registry, kMaxQueuedEvents, "events"), store_(store) {
  if (!Register("session service is shutting down")) return;
  std::shared_ptr<Handle> watching = handle();
  // Subscribe before checking the session so no event slips between the two.
  subscription_ = store_->Subscribe(session_id, [watching](const SessionEventRecord& event) {
    ::labgate::session::v1::SessionEvent message;
    ToProto(event, &message);
    watching->Send(std::move(message));
  });
  if (session_id.empty()) {
    watching->Ready();
    return;
  }
  store_->GetSession(std::move(session_id),
                     [watching](const absl::StatusOr<SessionRecord>& session) {
                       if (session.ok()) {
                         watching->Ready();
                       } else {
                         watching->Close(ToGrpcStatus(session.status()));
                       }
                     });
}

void WatchReactor::OnStreamDone() {
  if (subscription_ != 0) store_->Unsubscribe(subscription_);
}

}  // namespace labgate::session
