#include "gateway/approvals/approval_board.h"

#include <algorithm>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace labgate::gateway {

using Waiter = std::function<void(const ApprovalAnswer&)>;

struct ApprovalBoard::Core {
  struct Entry {
    HeldWrite write;
    bool retry = false;
    absl::Time held_at;
    absl::Time expires_at;
    std::optional<ApprovalAnswer> answer;
    Waiter waiter;
  };

  // Takes `answer` for `key` unless one came first. What must run after the lock (the
  // waiter, the listeners) is added to `later`.
  absl::StatusOr<bool> Decide(uint64_t key, const ApprovalAnswer& answer,
                              std::optional<ApprovalAnswer>* earlier,
                              std::vector<std::function<void()>>* later)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex) {
    auto it = entries.find(key);
    if (it == entries.end()) {
      auto past = recent.find(key);
      if (past == recent.end()) return absl::NotFoundError("no such hold");
      if (earlier != nullptr) *earlier = past->second;
      return false;
    }
    Entry& entry = it->second;
    if (entry.answer.has_value()) {
      if (earlier != nullptr) *earlier = entry.answer;
      return false;
    }
    entry.answer = answer;
    if (entry.waiter) {
      later->push_back([waiter = std::move(entry.waiter), answer] { waiter(answer); });
      Forget(it);
    }
    Changed(later);
    return true;
  }

  // Drops a decided entry, remembering its answer for a late answer's refusal.
  void Forget(std::map<uint64_t, Entry>::iterator it) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex) {
    if (it->second.answer.has_value()) {
      recent[it->first] = *it->second.answer;
      while (recent.size() > kRecentAnswers) recent.erase(recent.begin());
    }
    entries.erase(it);
  }

  void Changed(std::vector<std::function<void()>>* later) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex) {
    ++version;
    for (Listener& listener : listeners) later->push_back(std::move(listener.changed));
    listeners.clear();
  }

  static void Run(std::vector<std::function<void()>>& later) {
    for (auto& fn : later) fn();
  }

  absl::Mutex mutex;
  bool stopping ABSL_GUARDED_BY(mutex) = false;
  // Bumped when the expirer must look again (a new hold, or stopping).
  uint64_t wakes ABSL_GUARDED_BY(mutex) = 0;
  uint64_t next_key ABSL_GUARDED_BY(mutex) = 1;
  uint64_t version ABSL_GUARDED_BY(mutex) = 0;
  std::map<uint64_t, Entry> entries ABSL_GUARDED_BY(mutex);  // by key, so oldest first
  static constexpr size_t kRecentAnswers = 1024;
  std::map<uint64_t, ApprovalAnswer> recent ABSL_GUARDED_BY(mutex);
  struct Listener {
    absl::Time deadline;
    std::function<void()> changed;
  };
  std::vector<Listener> listeners ABSL_GUARDED_BY(mutex);
};

namespace {

ApprovalAnswer Expired() { return {"expired", "", false}; }

}  // namespace

const char* AnswerWord(const std::string& decision) {
  if (decision == "accept") return "approved";
  if (decision == "decline") return "declined";
  if (decision == "expired") return "expired";
  return "dismissed";
}

bool ApprovalBoard::Hold::Answer(const ApprovalAnswer& answer) {
  std::vector<std::function<void()>> later;
  bool taken = false;
  {
    absl::MutexLock lock(&core_->mutex);
    absl::StatusOr<bool> decided = core_->Decide(key_, answer, nullptr, &later);
    taken = decided.ok() && *decided;
  }
  Core::Run(later);
  return taken;
}

void ApprovalBoard::Hold::Await(Waiter then) {
  std::optional<ApprovalAnswer> known;
  {
    absl::MutexLock lock(&core_->mutex);
    auto it = core_->entries.find(key_);
    if (it == core_->entries.end()) {
      known = Expired();  // let go: expired, or the board stopped
    } else if (it->second.answer.has_value()) {
      known = it->second.answer;
      core_->Forget(it);
    } else {
      it->second.waiter = std::move(then);
    }
  }
  if (known.has_value()) then(*known);
}

std::optional<ApprovalAnswer> ApprovalBoard::Hold::answer() const {
  absl::MutexLock lock(&core_->mutex);
  auto it = core_->entries.find(key_);
  if (it == core_->entries.end()) return std::nullopt;
  return it->second.answer;
}

ApprovalBoard::ApprovalBoard(absl::Duration lifetime)
    : lifetime_(lifetime), core_(std::make_shared<Core>()) {
  expirer_ = std::thread([this] { ExpireLoop(); });
}

ApprovalBoard::~ApprovalBoard() {
  {
    absl::MutexLock lock(&core_->mutex);
    core_->stopping = true;
    ++core_->wakes;
  }
  expirer_.join();
}

std::shared_ptr<ApprovalBoard::Hold> ApprovalBoard::Put(const HeldWrite& write, bool retry) {
  std::vector<std::function<void()>> later;
  uint64_t key = 0;
  {
    absl::MutexLock lock(&core_->mutex);
    if (retry) {
      for (const auto& [existing, entry] : core_->entries) {
        const HeldWrite& held = entry.write;
        if (entry.retry && !entry.waiter && held.owner == write.owner && held.tool == write.tool &&
            held.port == write.port && held.shown == write.shown && held.rule == write.rule) {
          return std::shared_ptr<Hold>(new Hold(core_, existing));
        }
      }
    }
    if (core_->stopping) {
      key = 0;  // a key never used: the hold reads as expired
    } else {
      key = core_->next_key++;
      const absl::Time now = absl::Now();
      core_->entries[key] = Core::Entry{write, retry, now, now + lifetime_, std::nullopt, nullptr};
      ++core_->wakes;
      core_->Changed(&later);
    }
  }
  Core::Run(later);
  return std::shared_ptr<Hold>(new Hold(core_, key));
}

absl::Status ApprovalBoard::Answer(const std::string& id, const ApprovalAnswer& answer) {
  uint64_t key = 0;
  if (!absl::SimpleAtoi(id, &key)) {
    return absl::NotFoundError(absl::StrCat("no write is waiting for approval as ", id));
  }
  std::vector<std::function<void()>> later;
  std::optional<ApprovalAnswer> earlier;
  absl::StatusOr<bool> decided;
  {
    absl::MutexLock lock(&core_->mutex);
    decided = core_->Decide(key, answer, &earlier, &later);
  }
  Core::Run(later);
  if (!decided.ok()) {
    return absl::NotFoundError(absl::StrCat("no write is waiting for approval as ", id));
  }
  if (!*decided) {
    if (earlier->decision == "expired") {
      return absl::AlreadyExistsError("this write's approval expired: nobody answered in time");
    }
    return absl::AlreadyExistsError(
        absl::StrCat("this write was already ", AnswerWord(earlier->decision),
                     earlier->approver.empty() ? "" : " by ", earlier->approver));
  }
  return absl::OkStatus();
}

std::vector<ApprovalBoard::Waiting> ApprovalBoard::List() const {
  std::vector<Waiting> waiting;
  absl::MutexLock lock(&core_->mutex);
  for (const auto& [key, entry] : core_->entries) {
    if (entry.answer.has_value()) continue;
    waiting.push_back({std::to_string(key), entry.write, entry.held_at, entry.expires_at});
  }
  return waiting;
}

uint64_t ApprovalBoard::version() const {
  absl::MutexLock lock(&core_->mutex);
  return core_->version;
}

void ApprovalBoard::OnChange(uint64_t seen, absl::Time deadline, std::function<void()> changed) {
  {
    absl::MutexLock lock(&core_->mutex);
    if (core_->version == seen && !core_->stopping && deadline > absl::Now()) {
      core_->listeners.push_back({deadline, std::move(changed)});
      ++core_->wakes;
      return;
    }
  }
  changed();
}

void ApprovalBoard::ExpireLoop() {
  absl::MutexLock lock(&core_->mutex);
  while (true) {
    std::vector<std::function<void()>> later;
    const absl::Time now = absl::Now();
    absl::Time next = absl::InfiniteFuture();
    for (auto it = core_->entries.begin(); it != core_->entries.end();) {
      const uint64_t key = it->first;
      Core::Entry& entry = it->second;
      ++it;
      if (!core_->stopping && entry.expires_at > now) {
        next = std::min(next, entry.expires_at);
        continue;
      }
      if (entry.waiter) {
        (void)core_->Decide(key, Expired(), nullptr, &later);
      } else {
        // An answer nobody came back for, or a 2026-era hold whose client did not retry in
        // time: a retry after this is asked afresh.
        const bool listed = !entry.answer.has_value();
        core_->entries.erase(key);
        if (listed) core_->Changed(&later);
      }
    }
    for (auto it = core_->listeners.begin(); it != core_->listeners.end();) {
      if (core_->stopping || it->deadline <= now) {
        later.push_back(std::move(it->changed));
        it = core_->listeners.erase(it);
      } else {
        next = std::min(next, it->deadline);
        ++it;
      }
    }
    if (core_->stopping) {
      core_->Changed(&later);
      core_->entries.clear();
    }
    const bool stopping = core_->stopping;
    if (!later.empty()) {
      core_->mutex.Unlock();
      Core::Run(later);
      core_->mutex.Lock();
      // The board may have changed (a new hold, a stop) while unlocked: look again.
      if (!stopping) continue;
    }
    if (stopping) return;
    const uint64_t wakes = core_->wakes;
    auto woken = [this, wakes]()
                     ABSL_EXCLUSIVE_LOCKS_REQUIRED(core_->mutex) { return core_->wakes != wakes; };
    // Await and AwaitWithTimeout (not AwaitWithDeadline), which the TSan build's annotations
    // of absl know.
    if (next == absl::InfiniteFuture()) {
      core_->mutex.Await(absl::Condition(&woken));
    } else {
      core_->mutex.AwaitWithTimeout(absl::Condition(&woken), next - absl::Now());
    }
  }
}

}  // namespace labgate::gateway
