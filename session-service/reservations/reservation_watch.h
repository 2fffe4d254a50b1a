// The reservations Watch stream: a snapshot of the queue and the grants, then every stored
// change, to one client (a BoundedStream).
#pragma once

#include <grpcpp/grpcpp.h>

#include <cstddef>
#include <cstdint>

#include "labgate/reservations/v1/reservations.pb.h"
#include "session-service/bounded_stream.h"
#include "session-service/reservations/reservation_desk.h"

namespace labgate::session {

using ReservationWatchRegistry =
    BoundedStream<::labgate::reservations::v1::ReservationUpdate>::Registry;

class ReservationWatchReactor final
    : public BoundedStream<::labgate::reservations::v1::ReservationUpdate> {
 public:
  static constexpr size_t kMaxQueuedUpdates = 1024;

  // Starts watching `desk` at once, or ends the stream with `refusal` when it is not OK;
  // deletes itself when the stream is done.
  ReservationWatchReactor(ReservationDesk* desk, ReservationWatchRegistry* registry,
                          const grpc::Status& refusal = grpc::Status::OK);

 private:
  void OnStreamDone() override;

  ReservationDesk* const desk_;
  uint64_t watch_ = 0;  // set by the constructor, read by OnStreamDone
};

}  // namespace labgate::session
