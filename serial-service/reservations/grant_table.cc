#include "serial-service/reservations/grant_table.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "common/log.h"
#include "common/ordinal.h"

namespace labgate::serial {
namespace {

// How long past its expires_at a grant is still enforced while the service is reachable: a
// renewal (the watcher reports uses every 250 ms) may be on its way, and the two hosts' clocks
// may differ a little. Past it, a grant ends even if the stream looks alive but has gone quiet.
constexpr GrantTable::Clock::duration kRenewalSkew = std::chrono::seconds(2);

GrantTable::Clock::time_point ParseTime(const std::string& text) {
  absl::Time time;
  std::string error;
  if (text.empty() || !absl::ParseTime(absl::RFC3339_full, text, &time, &error)) {
    return GrantTable::Clock::time_point::max();  // no expiry known: it holds until told
  }
  return absl::ToChronoTime(time);
}

}  // namespace

GrantTable::GrantTable(std::string bench, absl::Duration first_word_hold)
    : bench_(std::move(bench)), hold_until_(absl::Now() + first_word_hold) {
  if (first_word_hold <= absl::ZeroDuration()) HeardLocked();
}

void GrantTable::HeardLocked() {
  heard_locked_ = true;
  heard_.store(true, std::memory_order_release);
}

void GrantTable::AwaitFirstWordLocked() {
  if (heard_locked_) return;
  if (!mu_.AwaitWithDeadline(absl::Condition(&heard_locked_), hold_until_)) {
    LG_LOG(kWarning) << "reservations: no word from the reservation service "
                     << "yet; enforcing no grant until it comes";
    HeardLocked();
  }
}

GrantTable::Known GrantTable::FromProto(const reservations::v1::Reservation& reservation) {
  Known known;
  known.id = reservation.id();
  known.holder = reservation.holder();
  known.granted = reservation.state() == "granted";
  known.position = reservation.position();
  known.targets.assign(reservation.targets().begin(), reservation.targets().end());
  known.by_tags = reservation.tags_size() > 0;
  known.held.assign(reservation.granted().begin(), reservation.granted().end());
  known.expires_at = known.granted && reservation.has_expires_at()
                         ? ParseTime(reservation.expires_at())
                         : Clock::time_point::max();
  return known;
}

void GrantTable::Replace(const std::vector<reservations::v1::Reservation>& active) {
  absl::MutexLock lock(&mu_);
  ++changes_;
  known_.clear();
  for (const auto& reservation : active) known_[reservation.id()] = FromProto(reservation);
  CountGrantsLocked();
  if (!reachable_) since_ = Clock::now();
  reachable_ = true;
  HeardLocked();
}

void GrantTable::Apply(const std::vector<reservations::v1::Reservation>& changed) {
  absl::MutexLock lock(&mu_);
  ++changes_;
  for (const auto& reservation : changed) {
    if (reservation.state() == "granted" || reservation.state() == "waiting") {
      known_[reservation.id()] = FromProto(reservation);
    } else {
      known_.erase(reservation.id());
    }
  }
  CountGrantsLocked();
}

void GrantTable::CountGrantsLocked() {
  int granted = 0;
  for (const auto& [id, known] : known_) granted += known.granted ? 1 : 0;
  grants_known_.store(granted, std::memory_order_relaxed);
}

void GrantTable::SetUnreachable(const std::string& why) {
  absl::MutexLock lock(&mu_);
  ++changes_;
  if (reachable_ || unreachable_why_.empty()) since_ = Clock::now();
  reachable_ = false;
  unreachable_why_ = why;
  HeardLocked();
}

const GrantTable::Known* GrantTable::GrantOnLocked(const std::string& target,
                                                   Clock::time_point now) const {
  for (const auto& [id, known] : known_) {
    if (!known.granted ||
        std::find(known.held.begin(), known.held.end(), target) == known.held.end()) {
      continue;
    }
    if (!InForceLocked(known, now)) continue;
    return &known;
  }
  return nullptr;
}

bool GrantTable::InForceLocked(const Known& grant, Clock::time_point now) const {
  if (grant.expires_at == Clock::time_point::max()) return true;  // no expiry known
  // Cut off from the service, a grant lasts until its lease ends: nobody can renew it.
  // Reachable, it gets the skew for a renewal in flight, and no more: a watch that is silently
  // dead must not keep a holder's grant alive past its lease.
  return now < (reachable_ ? grant.expires_at + kRenewalSkew : grant.expires_at);
}

absl::Status GrantTable::Check(const std::string& principal,
                               const std::vector<std::string>& names) {
  absl::MutexLock lock(&mu_);
  AwaitFirstWordLocked();
  const Clock::time_point now = Clock::now();
  for (const std::string& name : names) {
    if (name.empty()) continue;
    const std::string target = Qualified(name);
    const Known* grant = GrantOnLocked(target, now);
    if (grant == nullptr) continue;
    if (grant->holder == principal) {
      uses_.emplace(principal, target);
      continue;
    }
    std::string message = absl::StrCat(names.front(), " is reserved by ", grant->holder);
    if (grant->expires_at != Clock::time_point::max()) {
      absl::StrAppend(&message, " until ",
                      absl::FormatTime("%H:%M:%S UTC", absl::FromChrono(grant->expires_at),
                                       absl::UTCTimeZone()),
                      " unless renewed");
    }
    absl::StrAppend(&message, " (reservation ", grant->id, ")");
    int position = 0;
    for (const auto& [id, known] : known_) {
      const bool wants = known.by_tags || std::find(known.targets.begin(), known.targets.end(),
                                                    target) != known.targets.end();
      if (!known.granted && known.holder == principal && wants &&
          (position == 0 || known.position < position)) {
        position = known.position;
      }
    }
    if (position > 0) {
      absl::StrAppend(&message, "; you are ", Ordinal(position), " in the queue");
    } else {
      absl::StrAppend(&message, "; to wait your turn, call reserve with targets [\"", target,
                      "\"] and wait_s, or run labgate-reserve --targets ", target,
                      " --wait SECONDS -- COMMAND");
    }
    if (!reachable_) {
      absl::StrAppend(&message, " (as last known: the reservation service is unreachable)");
    }
    return absl::FailedPreconditionError(message);
  }
  return absl::OkStatus();
}

std::string GrantTable::HolderOf(const std::vector<std::string>& names) {
  absl::MutexLock lock(&mu_);
  const Clock::time_point now = Clock::now();
  for (const std::string& name : names) {
    if (name.empty()) continue;
    if (const Known* grant = GrantOnLocked(Qualified(name), now)) return grant->holder;
  }
  return "";
}

bool GrantTable::WaitsFirstFor(const std::string& principal,
                               const std::vector<std::string>& names) {
  absl::MutexLock lock(&mu_);
  for (const std::string& name : names) {
    if (name.empty()) continue;
    const std::string target = Qualified(name);
    for (const auto& [id, known] : known_) {
      if (known.granted || known.holder != principal || known.position != 1) continue;
      if (known.by_tags ||
          std::find(known.targets.begin(), known.targets.end(), target) != known.targets.end()) {
        return true;
      }
    }
  }
  return false;
}

uint64_t GrantTable::changes() const {
  absl::MutexLock lock(&mu_);
  return changes_;
}

bool GrantTable::AwaitChangeAfter(uint64_t seen, absl::Duration within) {
  absl::MutexLock lock(&mu_);
  auto changed = [this, seen]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return changes_ > seen; };
  return mu_.AwaitWithTimeout(absl::Condition(&changed), within);
}

std::vector<std::pair<std::string, std::string>> GrantTable::TakeUses() {
  absl::MutexLock lock(&mu_);
  std::vector<std::pair<std::string, std::string>> uses(uses_.begin(), uses_.end());
  uses_.clear();
  return uses;
}

GrantTable::State GrantTable::state() const {
  absl::MutexLock lock(&mu_);
  State state;
  state.reachable = reachable_;
  state.unreachable_why = unreachable_why_;
  state.since = since_;
  const Clock::time_point now = Clock::now();
  const std::string prefix = bench_.empty() ? "" : bench_ + ":";
  for (const auto& [id, known] : known_) {
    if (!known.granted) {
      ++state.waiting;
      continue;
    }
    const bool here = std::any_of(known.held.begin(), known.held.end(),
                                  [&](const auto& held) { return held.rfind(prefix, 0) == 0; });
    if (here && InForceLocked(known, now)) ++state.grants;
  }
  return state;
}

}  // namespace labgate::serial
