// This gateway's view of the bench reservations: the reservation service's Watch stream, kept
// as the latest state of every reservation it has seen (waiting, granted, and the last ended
// ones), with listeners by reservation id. A reserve that waits, and the labgate://reservations
// resources, are told of changes through it. A stream that ends is watched again after a
// second, from a fresh snapshot.
#pragma once

#include <grpcpp/channel.h>

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "gateway/backends/resuming_watch.h"
#include "labgate/reservations/v1/reservations.grpc.pb.h"

namespace labgate::gateway {

class ReservationWatch {
 public:
  using Reservation = labgate::reservations::v1::Reservation;
  // Ended reservations kept for late readers, the oldest forgotten first.
  static constexpr size_t kEndedKept = 1024;

  static std::unique_ptr<ReservationWatch> Start(const std::shared_ptr<grpc::Channel>& channel);
  ~ReservationWatch();  // cancels the stream; no listener runs after it returns but a running one
  // Cancels the stream, and watches no more; what is known stays readable.
  void Stop();

  // The latest known state of reservation `id`; nullopt when it was never seen (or forgotten).
  std::optional<Reservation> Find(const std::string& id) const ABSL_LOCKS_EXCLUDED(mu_);

  // `changed` runs (on a gRPC thread, with no lock held) with each new state of reservation
  // `id`. The listener stays until the returned handle is destroyed.
  std::shared_ptr<void> Listen(const std::string& id,
                               std::function<void(const Reservation&)> changed)
      ABSL_LOCKS_EXCLUDED(mu_);

  // For tests and benches: the watch delivered these (as the stream would).
  void Deliver(const labgate::reservations::v1::ReservationUpdate& update) ABSL_LOCKS_EXCLUDED(mu_);

 private:
  using Stream = ResumingWatch<labgate::reservations::v1::ReservationUpdate>;
  using Listener = std::function<void(const Reservation&)>;
  ReservationWatch() = default;
  void Forget(uint64_t listener) ABSL_LOCKS_EXCLUDED(mu_);

  mutable absl::Mutex mu_;
  std::map<std::string, Reservation> known_ ABSL_GUARDED_BY(mu_);
  std::deque<std::string> ended_ ABSL_GUARDED_BY(mu_);  // ids of ended ones, oldest first
  struct Listening {
    std::string id;
    std::shared_ptr<Listener> changed;
  };
  std::map<uint64_t, Listening> listeners_ ABSL_GUARDED_BY(mu_);
  uint64_t next_listener_ ABSL_GUARDED_BY(mu_) = 1;
  std::shared_ptr<Stream> stream_;
};

}  // namespace labgate::gateway
