#include "gateway/resources/session_list_watch.h"

#include <chrono>
#include <utility>

#include "labgate/session/v1/session.grpc.pb.h"

namespace labgate::gateway {
namespace {
constexpr std::chrono::seconds kRetryAfter{1};
}  // namespace

namespace session_v1 = labgate::session::v1;

std::unique_ptr<SessionListWatch> SessionListWatch::Start(
    const std::shared_ptr<grpc::Channel>& channel, std::function<void()> changed) {
  std::shared_ptr<session_v1::SessionService::Stub> stub =
      session_v1::SessionService::NewStub(channel);
  auto stream = Stream::Start(
      [stub](grpc::ClientContext* context,
             grpc::ClientReadReactor<session_v1::SessionEvent>* reactor) {
        static const session_v1::WatchSessionRequest kEverySession;
        stub->async()->WatchSession(context, &kEverySession, reactor);
      },
      {.on_event =
           [changed = std::move(changed)](const session_v1::SessionEvent& event) {
             if (event.type() == session_v1::SessionEvent::TYPE_CREATED ||
                 event.type() == session_v1::SessionEvent::TYPE_CLOSED) {
               changed();
             }
           },
       .on_started = nullptr},
      kRetryAfter);
  return std::unique_ptr<SessionListWatch>(new SessionListWatch(std::move(stream)));
}

SessionListWatch::~SessionListWatch() { stream_->Stop(); }

}  // namespace labgate::gateway
