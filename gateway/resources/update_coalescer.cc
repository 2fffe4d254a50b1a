#include "gateway/resources/update_coalescer.h"

namespace labgate::gateway {

std::shared_ptr<UpdateCoalescer> UpdateCoalescer::Create(std::chrono::milliseconds interval,
                                                         std::function<void()> fire) {
  return std::make_shared<UpdateCoalescer>(interval, std::move(fire));
}

void UpdateCoalescer::Trigger() {
  {
    absl::MutexLock lock(&mutex_);
    if (stopped_ || pending_) return;  // a pending call already covers this change
    const auto now = std::chrono::steady_clock::now();
    const auto due = last_fire_ + interval_;
    if (now < due) {
      pending_ = true;
      alarm_ = std::make_unique<grpc::Alarm>();
      const auto deadline =
          std::chrono::system_clock::now() +
          std::chrono::duration_cast<std::chrono::system_clock::duration>(due - now);
      // The alarm keeps its callback until it is destroyed, and this object owns the alarm:
      // a strong reference here would be a cycle that is never freed.
      alarm_->Set(deadline, [weak = weak_from_this()](bool ok) {
        if (auto self = weak.lock()) self->OnAlarm(ok);
      });
      return;
    }
    last_fire_ = now;
  }
  fire_();
}

void UpdateCoalescer::OnAlarm(bool ok) {
  {
    absl::MutexLock lock(&mutex_);
    pending_ = false;
    if (!ok || stopped_) return;
    last_fire_ = std::chrono::steady_clock::now();
  }
  fire_();
}

void UpdateCoalescer::Stop() {
  absl::MutexLock lock(&mutex_);
  stopped_ = true;
  if (alarm_) alarm_->Cancel();
}

}  // namespace labgate::gateway
