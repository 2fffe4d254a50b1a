#include "session-service/reservations/reservation_book.h"

#include <algorithm>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace labgate::session {
namespace {

// Places in the queue, counted per thing wanted: a reservation's place is one more than the
// waiting reservations ahead of it that want one of its targets (or, by tags, the same tags), so
// "2nd in the queue for psu-2" means one is ahead for psu-2, however long the queues for the
// other supplies are. Several targets: the longest of their lines.
class QueuePlaces {
 public:
  int Next(const Reservation& reservation) {
    std::vector<std::string> keys = reservation.request.targets;
    if (keys.empty()) {
      std::vector<std::string> tags = reservation.request.tags;
      std::sort(tags.begin(), tags.end());
      keys.push_back("#" + absl::StrJoin(tags, "+"));
    }
    int ahead = 0;
    for (const std::string& key : keys) ahead = std::max(ahead, waiting_[key]);
    for (const std::string& key : keys) ++waiting_[key];
    return ahead + 1;
  }

 private:
  std::map<std::string, int> waiting_;
};

// Ended reservations are kept this long, so that ending one twice, or asking after it, still
// says what became of it.
constexpr std::chrono::hours kKeepEnded{1};

bool HasAllTags(const Reservable& reservable, const std::vector<std::string>& tags) {
  return std::all_of(tags.begin(), tags.end(), [&](const std::string& tag) {
    return std::find(reservable.tags.begin(), reservable.tags.end(), tag) != reservable.tags.end();
  });
}

absl::Status CheckRange(const char* what, int64_t value, int64_t low, int64_t high,
                        const char* unit = "") {
  if (value >= low && value <= high) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(what, " must be ", low, " to ", high, unit, ", not ", value));
}

absl::Status CheckRequest(const ReservationRequest& request, const ReservationLimits& limits,
                          const std::vector<Reservable>& inventory) {
  if (request.holder.empty()) return absl::InvalidArgumentError("a reservation needs a holder");
  if (request.targets.empty() == request.tags.empty()) {
    return absl::InvalidArgumentError(
        "give targets (ports or instruments by name) or tags (count of those having all of "
        "them), one of the two");
  }
  if (absl::Status valid = CheckRange("priority", request.priority, 0, 9); !valid.ok()) {
    return valid;
  }
  if (request.hold.count() > limits.max_hold.count()) {
    return absl::InvalidArgumentError(absl::StrCat("hold_s ", request.hold.count(),
                                                   " is over the longest hold allowed, ",
                                                   limits.max_hold.count(), " s"));
  }
  if (absl::Status valid = CheckRange("hold_s", request.hold.count(), 1, limits.max_hold.count());
      !valid.ok()) {
    return valid;
  }
  if (absl::Status valid =
          CheckRange("lease_s", request.lease.count(), 1, limits.max_lease.count());
      !valid.ok()) {
    return valid;
  }
  if (request.wait.count() < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("wait_s must not be negative (", request.wait.count(), ")"));
  }
  if (absl::Status valid = CheckRange("wait_s", request.wait.count(), 0, limits.max_wait.count());
      !valid.ok()) {
    return valid;
  }
  std::set<std::string> known;
  for (const Reservable& reservable : inventory) known.insert(reservable.name);
  std::set<std::string> named;
  for (const std::string& target : request.targets) {
    if (!named.insert(target).second) {
      return absl::InvalidArgumentError(absl::StrCat("target '", target, "' is named twice"));
    }
    if (!known.contains(target)) {
      return absl::NotFoundError(
          absl::StrCat("unknown target '", target, "'; reservable: ", absl::StrJoin(known, ", ")));
    }
  }
  if (!request.tags.empty()) {
    if (absl::Status valid = CheckRange("count", request.count, 1, limits.max_count); !valid.ok()) {
      return valid;
    }
    const auto having = std::count_if(inventory.begin(), inventory.end(),
                                      [&](const auto& r) { return HasAllTags(r, request.tags); });
    if (having < request.count) {
      return absl::NotFoundError(absl::StrCat(having, " reservable(s) have the tags ",
                                              absl::StrJoin(request.tags, ", "), "; ",
                                              request.count, " wanted"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

const char* ReservationStateName(ReservationState state) {
  switch (state) {
    case ReservationState::kWaiting:
      return "waiting";
    case ReservationState::kGranted:
      return "granted";
    case ReservationState::kExpired:
      return "expired";
    case ReservationState::kReleased:
      return "released";
    case ReservationState::kCancelled:
      return "cancelled";
  }
  return "unknown";
}

absl::StatusOr<Reservation> ReservationBook::Reserve(std::string id, ReservationRequest request,
                                                     const std::vector<Reservable>& inventory,
                                                     ReservationTime now) {
  if (absl::Status valid = CheckRequest(request, limits_, inventory); !valid.ok()) return valid;
  if (reservations_.contains(id)) {
    return absl::AlreadyExistsError(absl::StrCat("reservation ", id, " exists"));
  }
  if (!request.targets.empty()) request.count = static_cast<int>(request.targets.size());
  Reservation reservation;
  reservation.id = id;
  reservation.sequence = next_sequence_++;
  reservation.created_at = now;
  reservation.ends_at = now + request.wait;
  reservation.request = std::move(request);
  reservations_.emplace(id, std::move(reservation));
  Advance(inventory, now);
  Reservation& queued = reservations_.at(id);
  if (queued.state == ReservationState::kWaiting && queued.request.wait.count() == 0) {
    EndNow(queued, ReservationState::kExpired, "not free now, and wait_s is 0", now);
  }
  return queued;
}

absl::StatusOr<Reservation> ReservationBook::Renew(const std::string& id, const std::string& holder,
                                                   ReservationTime now) {
  auto it = reservations_.find(id);
  if (it == reservations_.end() || it->second.request.holder != holder) {
    return absl::NotFoundError(absl::StrCat("no reservation ", id, " of yours"));
  }
  Reservation& reservation = it->second;
  // A grant whose time is up is over even if no Advance has ended it yet: renewing it would
  // hand back a target the queue may already be owed.
  ExpireIfRunOut(reservation, now);
  if (reservation.state != ReservationState::kGranted) {
    return absl::FailedPreconditionError(absl::StrCat(
        "reservation ", id, " is ", ReservationStateName(reservation.state), ", not granted"));
  }
  reservation.renewed_at = now;
  reservation.ends_at =
      std::min(now + reservation.request.lease, reservation.granted_at + reservation.request.hold);
  return reservation;
}

std::vector<Reservation> ReservationBook::Touch(const std::string& holder,
                                                const std::string& target, ReservationTime now) {
  std::vector<Reservation> renewed;
  for (auto& [id, reservation] : reservations_) {
    if (reservation.state != ReservationState::kGranted || reservation.request.holder != holder) {
      continue;
    }
    const auto& granted = reservation.granted;
    if (std::find(granted.begin(), granted.end(), target) != granted.end()) {
      // Granted and the holder's: it fails only for a grant whose time is up (now expired).
      if (absl::StatusOr<Reservation> done = Renew(id, holder, now); done.ok()) {
        renewed.push_back(*std::move(done));
      }
    }
  }
  return renewed;
}

absl::StatusOr<Reservation> ReservationBook::End(const std::string& id, const std::string& holder,
                                                 ReservationTime now) {
  auto it = reservations_.find(id);
  if (it == reservations_.end() || it->second.request.holder != holder) {
    return absl::NotFoundError(absl::StrCat("no reservation ", id, " of yours"));
  }
  Reservation& reservation = it->second;
  if (reservation.state == ReservationState::kGranted) {
    EndNow(reservation, ReservationState::kReleased, "released by its holder", now);
  } else if (reservation.state == ReservationState::kWaiting) {
    EndNow(reservation, ReservationState::kCancelled, "cancelled by its holder", now);
  }
  return reservation;
}

absl::StatusOr<Reservation> ReservationBook::EndByOperator(const std::string& id,
                                                           const std::string& reason,
                                                           ReservationTime now) {
  auto it = reservations_.find(id);
  if (it == reservations_.end()) return absl::NotFoundError("no reservation " + id);
  Reservation& reservation = it->second;
  if (reservation.state == ReservationState::kGranted ||
      reservation.state == ReservationState::kWaiting) {
    EndNow(reservation, ReservationState::kCancelled, "ended by an operator: " + reason, now);
  }
  return reservation;
}

void ReservationBook::EndNow(Reservation& reservation, ReservationState state, std::string reason,
                             ReservationTime now) {
  reservation.state = state;
  reservation.end_reason = std::move(reason);
  reservation.ended_at = now;
  reservation.ends_at = now;
  reservation.position = 0;
}

bool ReservationBook::ExpireIfRunOut(Reservation& reservation, ReservationTime now) {
  if (reservation.state != ReservationState::kGranted || reservation.ends_at > now) return false;
  const bool held_out = reservation.ends_at >= reservation.granted_at + reservation.request.hold;
  EndNow(reservation, ReservationState::kExpired,
         held_out ? "its hold time ran out" : "its lease was not renewed", now);
  return true;
}

std::vector<Reservation*> ReservationBook::QueueOrder() {
  std::vector<Reservation*> queue;
  for (auto& [id, reservation] : reservations_) {
    if (reservation.state == ReservationState::kWaiting) queue.push_back(&reservation);
  }
  std::sort(queue.begin(), queue.end(), [](const Reservation* a, const Reservation* b) {
    if (a->request.priority != b->request.priority) {
      return a->request.priority > b->request.priority;
    }
    return a->sequence < b->sequence;
  });
  return queue;
}

std::vector<Reservation> ReservationBook::Advance(const std::vector<Reservable>& inventory,
                                                  ReservationTime now) {
  std::map<std::string, std::pair<ReservationState, int>> before;
  for (const auto& [id, reservation] : reservations_) {
    before[id] = {reservation.state, reservation.position};
  }
  // What has run out ends first, so its targets are free for the queue.
  for (auto it = reservations_.begin(); it != reservations_.end();) {
    Reservation& reservation = it->second;
    const bool ended = reservation.state != ReservationState::kWaiting &&
                       reservation.state != ReservationState::kGranted;
    if (ended && now - reservation.ended_at > kKeepEnded) {
      it = reservations_.erase(it);
      continue;
    }
    if (!ExpireIfRunOut(reservation, now) && reservation.state == ReservationState::kWaiting &&
        reservation.request.wait.count() > 0 && reservation.ends_at <= now) {
      EndNow(reservation, ReservationState::kExpired,
             absl::StrCat("not granted within wait_s (", reservation.request.wait.count(), ")"),
             now);
    }
    ++it;
  }
  std::set<std::string> taken;  // held by a grant, or held back for a reservation ahead
  for (const auto& [id, reservation] : reservations_) {
    if (reservation.state == ReservationState::kGranted) {
      taken.insert(reservation.granted.begin(), reservation.granted.end());
    }
  }
  std::map<std::string, const Reservable*> present;
  for (const Reservable& reservable : inventory) {
    if (reservable.present) present[reservable.name] = &reservable;
  }
  auto available = [&](const std::string& name) {
    return present.contains(name) && !taken.contains(name);
  };
  QueuePlaces places;
  for (Reservation* reservation : QueueOrder()) {
    std::vector<std::string> grant;
    if (!reservation->request.targets.empty()) {
      const auto& targets = reservation->request.targets;
      if (std::all_of(targets.begin(), targets.end(), available)) grant = targets;
    } else {
      for (const Reservable& reservable : inventory) {
        if (static_cast<int>(grant.size()) == reservation->request.count) break;
        if (available(reservable.name) && HasAllTags(reservable, reservation->request.tags)) {
          grant.push_back(reservable.name);
        }
      }
      if (static_cast<int>(grant.size()) < reservation->request.count) grant.clear();
    }
    if (!grant.empty()) {
      reservation->state = ReservationState::kGranted;
      reservation->granted = grant;
      reservation->granted_at = now;
      reservation->renewed_at = now;
      reservation->ends_at =
          std::min(now + reservation->request.lease, now + reservation->request.hold);
      reservation->position = 0;
      taken.insert(grant.begin(), grant.end());
      continue;
    }
    reservation->position = places.Next(*reservation);
    // Named targets that are free wait for this one, not for those behind it.
    for (const std::string& target : reservation->request.targets) {
      if (available(target)) taken.insert(target);
    }
  }
  std::vector<Reservation> changed;
  for (const auto& [id, reservation] : reservations_) {
    auto was = before.find(id);
    if (was == before.end() ||
        was->second != std::make_pair(reservation.state, reservation.position)) {
      changed.push_back(reservation);
    }
  }
  return changed;
}

absl::Status ReservationBook::Restore(std::vector<Reservation> reservations) {
  for (const Reservation& reservation : reservations) {
    if (reservations_.contains(reservation.id)) {
      return absl::AlreadyExistsError(absl::StrCat("reservation ", reservation.id, " exists"));
    }
  }
  for (Reservation& reservation : reservations) {
    next_sequence_ = std::max(next_sequence_, reservation.sequence + 1);
    std::string id = reservation.id;
    reservations_.emplace(std::move(id), std::move(reservation));
  }
  // Places in the queue are not stored: they are its order.
  QueuePlaces places;
  for (Reservation* waiting : QueueOrder()) waiting->position = places.Next(*waiting);
  return absl::OkStatus();
}

std::vector<Reservation> ReservationBook::Active() const {
  std::vector<Reservation> active;
  for (const auto& [id, reservation] : reservations_) {
    if (reservation.state == ReservationState::kGranted) active.push_back(reservation);
  }
  std::sort(active.begin(), active.end(),
            [](const Reservation& a, const Reservation& b) { return a.sequence < b.sequence; });
  std::vector<Reservation> waiting;
  for (const auto& [id, reservation] : reservations_) {
    if (reservation.state == ReservationState::kWaiting) waiting.push_back(reservation);
  }
  std::sort(waiting.begin(), waiting.end(),
            [](const Reservation& a, const Reservation& b) { return a.position < b.position; });
  active.insert(active.end(), waiting.begin(), waiting.end());
  return active;
}

std::optional<Reservation> ReservationBook::Find(const std::string& id) const {
  auto it = reservations_.find(id);
  if (it == reservations_.end()) return std::nullopt;
  return it->second;
}

const Reservation* ReservationBook::HolderOf(const std::string& target) const {
  for (const auto& [id, reservation] : reservations_) {
    if (reservation.state != ReservationState::kGranted) continue;
    const auto& granted = reservation.granted;
    if (std::find(granted.begin(), granted.end(), target) != granted.end()) return &reservation;
  }
  return nullptr;
}

std::optional<ReservationTime> ReservationBook::NextDeadline() const {
  // A plain minimum, not an optional compared in the loop: clang-tidy 16's optional-access
  // analysis crashes on that form.
  bool any = false;
  ReservationTime earliest = ReservationTime::max();
  for (const auto& [id, reservation] : reservations_) {
    const bool runs_out =
        reservation.state == ReservationState::kGranted ||
        (reservation.state == ReservationState::kWaiting && reservation.request.wait.count() > 0);
    if (!runs_out) continue;
    any = true;
    earliest = std::min(earliest, reservation.ends_at);
  }
  if (!any) return std::nullopt;
  return earliest;
}

}  // namespace labgate::session
