#include "gateway/backends/reservation_watch.h"

#include <chrono>
#include <set>
#include <utility>
#include <vector>

namespace labgate::gateway {
namespace {
constexpr std::chrono::seconds kRetryAfter{1};
}  // namespace

namespace reservations_v1 = labgate::reservations::v1;

std::unique_ptr<ReservationWatch> ReservationWatch::Start(
    const std::shared_ptr<grpc::Channel>& channel) {
  std::unique_ptr<ReservationWatch> watch(new ReservationWatch());
  std::shared_ptr<reservations_v1::ReservationService::Stub> stub =
      reservations_v1::ReservationService::NewStub(channel);
  watch->stream_ = Stream::Start(
      [stub](grpc::ClientContext* context,
             grpc::ClientReadReactor<reservations_v1::ReservationUpdate>* reactor) {
        static const reservations_v1::WatchReservationsRequest kEverything;
        stub->async()->Watch(context, &kEverything, reactor);
      },
      {.on_event = [raw = watch.get()](
                       const reservations_v1::ReservationUpdate& update) { raw->Deliver(update); },
       .on_started = nullptr},
      kRetryAfter);
  return watch;
}

ReservationWatch::~ReservationWatch() { Stop(); }

void ReservationWatch::Stop() {
  if (stream_) stream_->Stop();
}

std::optional<ReservationWatch::Reservation> ReservationWatch::Find(const std::string& id) const {
  absl::MutexLock lock(&mu_);
  auto it = known_.find(id);
  if (it == known_.end()) return std::nullopt;
  return it->second;
}

std::shared_ptr<void> ReservationWatch::Listen(const std::string& id,
                                               std::function<void(const Reservation&)> changed) {
  absl::MutexLock lock(&mu_);
  const uint64_t key = next_listener_++;
  listeners_[key] = {id, std::make_shared<Listener>(std::move(changed))};
  // Not null: a subscription's handle says it was taken by being there.
  class Listening {
   public:
    Listening(ReservationWatch* watch, uint64_t key) : watch_(watch), key_(key) {}
    Listening(const Listening&) = delete;
    Listening& operator=(const Listening&) = delete;
    ~Listening() { watch_->Forget(key_); }

   private:
    ReservationWatch* const watch_;
    const uint64_t key_;
  };
  return std::make_shared<Listening>(this, key);
}

void ReservationWatch::Forget(uint64_t listener) {
  absl::MutexLock lock(&mu_);
  listeners_.erase(listener);
}

void ReservationWatch::Deliver(const reservations_v1::ReservationUpdate& update) {
  std::vector<std::pair<std::shared_ptr<Listener>, Reservation>> calls;
  {
    absl::MutexLock lock(&mu_);
    std::vector<Reservation> changes(update.reservations().begin(), update.reservations().end());
    if (update.snapshot()) {
      // What was active and is not in the snapshot ended while the stream was down. How is not
      // known: it is told as "ended", with that said.
      std::set<std::string> in_snapshot;
      for (const Reservation& reservation : changes) in_snapshot.insert(reservation.id());
      for (const auto& [id, reservation] : known_) {
        const bool active = reservation.state() == "waiting" || reservation.state() == "granted";
        if (!active || in_snapshot.contains(id)) continue;
        Reservation& gone = changes.emplace_back(reservation);
        gone.set_state("ended");
        gone.set_end_reason("ended while this gateway could not watch the reservation service");
      }
    }
    for (const Reservation& reservation : changes) {
      const bool ended = reservation.state() != "waiting" && reservation.state() != "granted";
      known_.insert_or_assign(reservation.id(), reservation);
      if (ended) {
        ended_.push_back(reservation.id());
        while (ended_.size() > kEndedKept) {
          auto old = known_.find(ended_.front());
          if (old != known_.end() && old->second.state() != "waiting" &&
              old->second.state() != "granted") {
            known_.erase(old);
          }
          ended_.pop_front();
        }
      }
      for (const auto& [key, listening] : listeners_) {
        if (listening.id == reservation.id()) calls.emplace_back(listening.changed, reservation);
      }
    }
  }
  for (const auto& [listener, reservation] : calls) (*listener)(reservation);
}

}  // namespace labgate::gateway
