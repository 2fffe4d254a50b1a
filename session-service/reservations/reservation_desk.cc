#include "session-service/reservations/reservation_desk.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/log.h"
#include "session-service/reservations/reservation_json.h"
#include "session-service/reservations/reservation_metrics.h"
#include "session-service/store/uuid.h"

namespace labgate::session {
namespace {

// The timer looks again at least this often: a clock moved by hand, or a deadline missed.
constexpr absl::Duration kLongestSleep = absl::Seconds(1);

std::string Qualified(const std::string& bench, const std::string& name) {
  return bench.empty() ? name : absl::StrCat(bench, ":", name);
}

}  // namespace

absl::StatusOr<std::unique_ptr<ReservationDesk>> ReservationDesk::Open(
    SessionStore* store, ReservationDeskOptions options) {
  if (!options.clock) options.clock = [] { return std::chrono::system_clock::now(); };
  absl::Notification loaded;
  absl::StatusOr<std::vector<ReservationRow>> rows;
  store->LoadActiveReservations([&](absl::StatusOr<std::vector<ReservationRow>> got) {
    rows = std::move(got);
    loaded.Notify();
  });
  loaded.WaitForNotification();
  if (!rows.ok()) return rows.status();
  std::vector<Reservation> restored;
  for (const ReservationRow& row : *rows) {
    absl::StatusOr<Reservation> reservation = ReservationFromJson(row.body);
    if (!reservation.ok()) {
      return absl::DataLossError(absl::StrCat("stored reservation ", row.id,
                                              " cannot be read: ", reservation.status().message()));
    }
    restored.push_back(*std::move(reservation));
  }
  std::unique_ptr<ReservationDesk> desk(new ReservationDesk(store, std::move(options)));
  {
    absl::MutexLock lock(&desk->mu_);
    if (absl::Status kept = desk->book_.Restore(std::move(restored)); !kept.ok()) return kept;
    desk->CountLocked({}, desk->options_.clock());  // the gauges, from what was restored
    absl::MutexLock watch_lock(&desk->watch_mu_);
    for (const Reservation& reservation : desk->book_.Active()) {
      desk->stored_active_[reservation.id] = reservation;
    }
  }
  desk->worker_ = std::thread([raw = desk.get()] { raw->Run(); });
  return desk;
}

ReservationDesk::ReservationDesk(SessionStore* store, ReservationDeskOptions options)
    : store_(store), options_(std::move(options)), book_(options_.limits) {}

ReservationDesk::~ReservationDesk() {
  {
    absl::MutexLock lock(&mu_);
    stop_ = true;
  }
  wake_.SignalAll();
  if (worker_.joinable()) worker_.join();
  // Saves in flight answer through `this`: wait for the store to finish them.
  absl::MutexLock lock(&mu_);
  mu_.Await(absl::Condition(
      +[](int64_t* saving) { return *saving == 0; }, &saving_));
}

bool ReservationDesk::StaleLocked(const std::string& bench) const {
  auto reported = reported_at_.find(bench);
  return reported == reported_at_.end() ||
         options_.clock() - reported->second > options_.inventory_stale_after;
}

std::vector<Reservable> ReservationDesk::InventoryLocked() const {
  std::vector<Reservable> all;
  for (const auto& [bench, reservables] : inventory_) {
    const bool stale = StaleLocked(bench);
    for (Reservable reservable : reservables) {
      reservable.name = Qualified(bench, reservable.name);
      if (stale) reservable.present = false;
      all.push_back(std::move(reservable));
    }
  }
  return all;
}

void ReservationDesk::CountLocked(const std::vector<Reservation>& changed,
                                  ReservationTime now) const {
  ReservationMetrics& metrics = ReservationMetrics::Get();
  for (const Reservation& reservation : changed) {
    if (reservation.state == ReservationState::kGranted && reservation.granted_at == now) {
      metrics.grants.Get().Increment();
      metrics.wait_seconds.Get().Observe(
          std::chrono::duration<double>(reservation.granted_at - reservation.created_at).count());
    } else if (reservation.state == ReservationState::kExpired && reservation.ended_at == now) {
      metrics.expiries.Get().Increment();
    }
  }
  double waiting = 0;
  double granted = 0;
  for (const Reservation& reservation : book_.Active()) {
    (reservation.state == ReservationState::kGranted ? granted : waiting) += 1;
  }
  metrics.waiting.Get().Set(waiting);
  metrics.granted.Get().Set(granted);
}

void ReservationDesk::AdvanceLocked(ReservationTime now, const std::string& reason,
                                    std::function<void(absl::Status)> then) {
  std::vector<Reservation> changed = book_.Advance(InventoryLocked(), now);
  CountLocked(changed, now);
  StoreLocked(std::move(changed), reason, std::move(then));
}

void ReservationDesk::StoreLocked(std::vector<Reservation> changed, const std::string& reason,
                                  std::function<void(absl::Status)> then) {
  if (changed.empty()) return then(absl::OkStatus());
  SaveJob job;
  job.rows.reserve(changed.size());
  for (const Reservation& reservation : changed) {
    job.rows.push_back(
        {reservation.id, ReservationStateName(reservation.state), ReservationToJson(reservation)});
  }
  job.changed = std::move(changed);
  job.reason = reason;
  job.then = std::move(then);
  to_save_.push_back(std::move(job));
  ++saving_;
  wake_.SignalAll();
}

void ReservationDesk::Save(SaveJob job) {
  store_->SaveReservations(
      std::move(job.rows), [this, changed = std::move(job.changed), reason = std::move(job.reason),
                            then = std::move(job.then)](const absl::StatusOr<int64_t>& saved) {
        if (saved.ok()) {
          Publish(changed, reason);
        } else {
          LG_LOG(kError) << "reservations not stored: " << saved.status().message();
        }
        then(saved.ok() ? absl::OkStatus() : saved.status());
        absl::MutexLock lock(&mu_);
        --saving_;  // last: the destructor may go on once this is 0
      });
}

void ReservationDesk::Publish(const std::vector<Reservation>& changed, const std::string& reason) {
  absl::MutexLock lock(&watch_mu_);
  for (const Reservation& reservation : changed) {
    if (reservation.state == ReservationState::kWaiting ||
        reservation.state == ReservationState::kGranted) {
      stored_active_[reservation.id] = reservation;
    } else {
      stored_active_.erase(reservation.id);
    }
  }
  for (const auto& [id, listener] : listeners_) listener(changed, reason);
}

void ReservationDesk::Reserve(ReservationRequest request, Done done) {
  absl::MutexLock lock(&mu_);
  const ReservationTime now = options_.clock();
  const std::vector<Reservable> inventory = InventoryLocked();
  // What ran out before it arrived ends first, and is stored with it.
  std::vector<Reservation> changed = book_.Advance(inventory, now);
  absl::StatusOr<Reservation> reserved =
      book_.Reserve(NewUuidV4(), std::move(request), inventory, now);
  if (!reserved.ok()) {
    CountLocked(changed, now);
    StoreLocked(std::move(changed), "time passed", [](const absl::Status&) {});
    return done(reserved.status());
  }
  changed.push_back(*reserved);
  CountLocked(changed, now);
  StoreLocked(std::move(changed), "reserved",
              [done = std::move(done), reserved = *reserved](const absl::Status& stored) mutable {
                if (!stored.ok()) return done(stored);
                done(std::move(reserved));
              });
}

void ReservationDesk::Renew(const std::string& id, const std::string& holder, Done done) {
  absl::MutexLock lock(&mu_);
  const ReservationTime now = options_.clock();
  // The timer may not have ended a lease that ran out yet: end it (stored, and its targets
  // granted on) before the renewal, which then finds it expired.
  std::vector<Reservation> ran_out = book_.Advance(InventoryLocked(), now);
  CountLocked(ran_out, now);
  absl::StatusOr<Reservation> renewed = book_.Renew(id, holder, now);
  if (!renewed.ok()) {
    // Answered once the expiry is stored, as every change is.
    return StoreLocked(std::move(ran_out), "time passed",
                       [done = std::move(done), refused = renewed.status()](const absl::Status&) {
                         done(refused);
                       });
  }
  StoreLocked(std::move(ran_out), "time passed", [](const absl::Status&) {});
  StoreLocked({*renewed}, "renewed",
              [done = std::move(done), renewed = *renewed](const absl::Status& stored) mutable {
                if (!stored.ok()) return done(stored);
                done(std::move(renewed));
              });
}

void ReservationDesk::Release(const std::string& id, const std::string& holder, Done done) {
  absl::MutexLock lock(&mu_);
  const ReservationTime now = options_.clock();
  EndLocked(book_.End(id, holder, now), "released", now, std::move(done));
}

void ReservationDesk::EndByOperator(const std::string& id, const std::string& reason, Done done) {
  absl::MutexLock lock(&mu_);
  const ReservationTime now = options_.clock();
  EndLocked(book_.EndByOperator(id, reason, now), "ended by an operator", now, std::move(done));
}

void ReservationDesk::EndLocked(absl::StatusOr<Reservation> ended, const std::string& why,
                                ReservationTime now, Done done) {
  if (!ended.ok()) return done(ended.status());
  // What it freed goes to the queue at once.
  std::vector<Reservation> changed = {*ended};
  for (Reservation& next : book_.Advance(InventoryLocked(), now)) {
    if (next.id != ended->id) changed.push_back(std::move(next));
  }
  CountLocked(changed, now);
  StoreLocked(std::move(changed), why,
              [done = std::move(done), ended = *ended](const absl::Status& stored) mutable {
                if (!stored.ok()) return done(stored);
                done(std::move(ended));
              });
}

void ReservationDesk::PublishInventory(const std::string& bench,
                                       std::vector<Reservable> reservables,
                                       std::function<void(absl::Status)> done) {
  absl::MutexLock lock(&mu_);
  inventory_[bench] = std::move(reservables);
  reported_at_[bench] = options_.clock();
  AdvanceLocked(options_.clock(), "inventory changed", std::move(done));
}

void ReservationDesk::Advance() {
  absl::MutexLock lock(&mu_);
  AdvanceLocked(options_.clock(), "time passed", [](const absl::Status&) {});
}

ReservationDesk::Listing ReservationDesk::List() const {
  absl::MutexLock lock(&mu_);
  Listing listing;
  listing.reservations = book_.Active();
  for (const auto& [bench, reservables] : inventory_) {
    const bool stale = StaleLocked(bench);
    for (const Reservable& reservable : reservables) {
      BenchReservable entry{bench, reservable, ""};
      entry.reservable.name = Qualified(bench, reservable.name);
      if (stale) entry.reservable.present = false;
      if (const Reservation* holder = book_.HolderOf(entry.reservable.name)) {
        entry.holder = holder->request.holder;
      }
      listing.reservables.push_back(std::move(entry));
    }
  }
  return listing;
}

void ReservationDesk::Touch(const std::vector<Use>& uses,
                            std::function<void(absl::StatusOr<int>)> done) {
  absl::MutexLock lock(&mu_);
  const ReservationTime now = options_.clock();
  // A use after a lease ran out does not revive it (see Renew).
  AdvanceLocked(now, "time passed", [](const absl::Status&) {});
  std::map<std::string, Reservation> renewed;  // one row per reservation, however many uses
  for (const Use& use : uses) {
    for (Reservation& reservation : book_.Touch(use.holder, use.target, now)) {
      renewed[reservation.id] = std::move(reservation);
    }
  }
  std::vector<Reservation> changed;
  changed.reserve(renewed.size());
  for (auto& [id, reservation] : renewed) changed.push_back(std::move(reservation));
  const int count = static_cast<int>(changed.size());
  StoreLocked(std::move(changed), "used",
              [done = std::move(done), count](const absl::Status& stored) {
                if (!stored.ok()) return done(stored);
                done(count);
              });
}

void ReservationDesk::Cancel(const std::string& id, const std::string& holder, Done done) {
  // One lock for the check and the end: a reservation granted in between would otherwise be
  // released, though Cancel never ends a grant.
  absl::MutexLock lock(&mu_);
  std::optional<Reservation> found = book_.Find(id);
  if (found.has_value() && found->request.holder == holder &&
      found->state == ReservationState::kGranted) {
    return done(absl::FailedPreconditionError(
        absl::StrCat("reservation ", id, " is granted, not waiting: release it to end the grant")));
  }
  const ReservationTime now = options_.clock();
  EndLocked(book_.End(id, holder, now), "released", now, std::move(done));
}

uint64_t ReservationDesk::Watch(const Snapshot& snapshot, Listener listener) {
  absl::MutexLock lock(&watch_mu_);
  std::vector<Reservation> active;
  active.reserve(stored_active_.size());
  for (const auto& [id, reservation] : stored_active_) active.push_back(reservation);
  // Granted first, then the queue in order, as List answers.
  std::stable_sort(active.begin(), active.end(), [](const Reservation& a, const Reservation& b) {
    const bool a_granted = a.state == ReservationState::kGranted;
    const bool b_granted = b.state == ReservationState::kGranted;
    if (a_granted != b_granted) return a_granted;
    return a_granted ? a.sequence < b.sequence : a.position < b.position;
  });
  snapshot(active);
  const uint64_t id = next_listener_++;
  listeners_[id] = std::move(listener);
  return id;
}

void ReservationDesk::Unwatch(uint64_t id) {
  absl::MutexLock lock(&watch_mu_);
  listeners_.erase(id);
}

void ReservationDesk::Run() {
  while (true) {
    std::optional<SaveJob> job;
    {
      absl::MutexLock lock(&mu_);
      while (to_save_.empty() && !stop_) {
        absl::Duration sleep = kLongestSleep;
        if (options_.run_timer) {
          if (std::optional<ReservationTime> next = book_.NextDeadline()) {
            sleep = std::min(sleep, absl::FromChrono(*next - options_.clock()));
          }
          if (sleep <= absl::ZeroDuration()) {
            AdvanceLocked(options_.clock(), "time passed", [](const absl::Status&) {});
            if (!to_save_.empty()) continue;  // leaves the wait to save it
            sleep = kLongestSleep;            // nothing changed: no spinning on a past deadline
          }
        }
        wake_.WaitWithTimeout(&mu_, sleep);
      }
      if (to_save_.empty()) return;  // stopped, and everything is handed to the store
      job = std::move(to_save_.front());
      to_save_.pop_front();
    }
    // Outside the lock: the store may answer at once, on this thread.
    Save(*std::move(job));
  }
}

}  // namespace labgate::session
