#include "session-service/reservations/reservation_watch.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "session-service/reservations/reservation_grpc_service.h"

namespace labgate::session {
namespace {

::labgate::reservations::v1::ReservationUpdate Update(const std::vector<Reservation>& reservations,
                                                      bool snapshot, const std::string& reason) {
  ::labgate::reservations::v1::ReservationUpdate update;
  update.set_snapshot(snapshot);
  update.set_reason(reason);
  for (const Reservation& reservation : reservations) {
    ReservationToProto(reservation, update.add_reservations());
  }
  return update;
}

}  // namespace

ReservationWatchReactor::ReservationWatchReactor(ReservationDesk* desk,
                                                 ReservationWatchRegistry* registry,
                                                 const grpc::Status& refusal)
    : BoundedStream(registry, kMaxQueuedUpdates, "updates"), desk_(desk) {
  if (!refusal.ok()) {
    handle()->Close(refusal);
    return;
  }
  if (!Register("reservations are shutting down")) return;
  std::shared_ptr<Handle> watching = handle();
  watch_ = desk_->Watch(
      [&watching](const std::vector<Reservation>& active) {
        watching->Send(Update(active, /*snapshot=*/true, "snapshot"));
      },
      [watching](const std::vector<Reservation>& changed, const std::string& reason) {
        watching->Send(Update(changed, /*snapshot=*/false, reason));
      });
}

void ReservationWatchReactor::OnStreamDone() {
  if (watch_ != 0) desk_->Unwatch(watch_);
}

}  // namespace labgate::session
