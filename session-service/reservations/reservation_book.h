// The rules of the bench reservation queue, apart from storage and RPCs: who waits for what, in
// which order waiting reservations are granted, and when a grant ends. Time is passed in, so a
// test drives it; the caller serializes calls (one book per service, behind its lock).
//
// Order: a waiting reservation is granted in priority order (9 first), then arrival order, as
// soon as all of its targets are free and present. A reservation that names its targets holds
// back those of them that are free from reservations behind it, so a later one that wants
// fewer things cannot starve it; one by tags holds back nothing (any match will do). An absent
// target is never granted.
//
// Leases: a grant lasts while its holder renews it (Renew, or any use of a reserved target,
// Touch) and ends `lease` after the last renewal, or `hold` after the grant, whichever comes
// first. A waiting reservation leaves the queue `wait` after it arrived.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace labgate::session {

// Something that can be reserved now: a serial port or a named instrument, with its tags.
struct Reservable {
  std::string name;  // "psu-2", "/dev/ttyUSB0", "lab-a:loop://x"
  std::vector<std::string> tags;
  bool present = true;
};

enum class ReservationState { kWaiting, kGranted, kExpired, kReleased, kCancelled };
// "waiting", "granted", "expired", "released", "cancelled".
const char* ReservationStateName(ReservationState state);

using ReservationTime = std::chrono::system_clock::time_point;

struct ReservationRequest {
  std::string holder;                // the principal
  std::vector<std::string> targets;  // reservables by name: all of them
  std::vector<std::string> tags;     // or: `count` reservables that have every one of these
  int count = 1;
  int priority = 0;  // 0 to 9; the higher is granted first
  std::chrono::seconds hold{3600};
  std::chrono::seconds lease{60};
  std::chrono::seconds wait{0};  // 0: granted at once or not at all
};

struct Reservation {
  std::string id;
  ReservationRequest request;
  ReservationState state = ReservationState::kWaiting;
  int64_t sequence = 0;  // arrival order
  ReservationTime created_at, granted_at, renewed_at, ended_at;
  // While waiting: when it leaves the queue; while granted: when the grant ends (the earlier
  // of the lease and the hold).
  ReservationTime ends_at;
  std::vector<std::string> granted;  // what it holds, once granted
  // 1-based place in the queue while waiting, among those that want one of its targets (or, by
  // tags, the same tags): one more than the waiting reservations ahead of it for them.
  int position = 0;
  std::string end_reason;  // "released by its holder", "lease not renewed", ...
};

struct ReservationLimits {
  std::chrono::seconds max_hold{8 * 3600};
  std::chrono::seconds max_lease{3600};
  std::chrono::seconds max_wait{24 * 3600};
  int max_count = 64;
};

class ReservationBook {
 public:
  explicit ReservationBook(ReservationLimits limits = {}) : limits_(limits) {}

  // Checks the request against the limits and `inventory` (INVALID_ARGUMENT saying what is
  // wrong; NOT_FOUND naming an unknown target or a tag set nothing has), queues it, and grants
  // what can be granted now. A request with no wait that cannot be granted at once ends
  // expired. `id` names it (unique; the caller makes it).
  absl::StatusOr<Reservation> Reserve(std::string id, ReservationRequest request,
                                      const std::vector<Reservable>& inventory,
                                      ReservationTime now);
  // The holder's grant lives on for another lease. NOT_FOUND for an id that is not the holder's
  // (another principal's reservation is not told apart from none); FAILED_PRECONDITION for one
  // that is not granted, including a grant whose time is up at `now`: that one is expired here,
  // as Advance would, and the caller stores it.
  absl::StatusOr<Reservation> Renew(const std::string& id, const std::string& holder,
                                    ReservationTime now);
  // A use of `target` by `holder` renews the holder's grant on it, if any; returns it renewed.
  // A grant whose time is up at `now` is expired instead (as Renew does) and not returned.
  std::vector<Reservation> Touch(const std::string& holder, const std::string& target,
                                 ReservationTime now);
  // Ends the holder's reservation: a grant is released, a waiting one leaves the queue
  // (cancelled). Ending one that has ended already answers it as it is.
  absl::StatusOr<Reservation> End(const std::string& id, const std::string& holder,
                                  ReservationTime now);
  // An operator ends anyone's reservation, saying why.
  absl::StatusOr<Reservation> EndByOperator(const std::string& id, const std::string& reason,
                                            ReservationTime now);
  // Ends what has run out (leases, holds, waits), then grants in queue order what can be
  // granted from `inventory`. Returns every reservation whose state or position changed.
  std::vector<Reservation> Advance(const std::vector<Reservable>& inventory, ReservationTime now);

  // After a restart: takes back reservations as they were stored (any state), keeping their
  // arrival order (the queue's places follow from it); later ones arrive after them.
  // ALREADY_EXISTS for an id it has.
  absl::Status Restore(std::vector<Reservation> reservations);

  // Granted ones first, then the queue in order.
  std::vector<Reservation> Active() const;
  std::optional<Reservation> Find(const std::string& id) const;
  // The grant that holds `target`; null when it is free.
  const Reservation* HolderOf(const std::string& target) const;
  // The earliest moment something may run out (for the caller's timer); nullopt: nothing can.
  std::optional<ReservationTime> NextDeadline() const;

 private:
  std::vector<Reservation*> QueueOrder();
  void EndNow(Reservation& reservation, ReservationState state, std::string reason,
              ReservationTime now);
  // Ends a grant whose lease or hold is over at `now`; true if it did.
  bool ExpireIfRunOut(Reservation& reservation, ReservationTime now);

  const ReservationLimits limits_;
  int64_t next_sequence_ = 1;
  std::map<std::string, Reservation> reservations_;  // active and ended, by id
};

}  // namespace labgate::session
