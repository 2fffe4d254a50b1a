#include "common/local_call.h"

#include <map>
#include <thread>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

namespace labgate {

// The calls that outlived their handler, by deadline. Its thread exists from the first such
// call until the LocalCalls that owns it goes, and sleeps until the earliest deadline.
class DeadlineWatch {
 public:
  ~DeadlineWatch() { Stop(); }

  void Watch(const std::shared_ptr<LocalCall>& call) {
    absl::MutexLock lock(&mutex_);
    if (stopping_) return;
    if (!thread_.joinable()) thread_ = std::thread([this] { Run(); });
    auto at = calls_.emplace(call->deadline(), Entry{call, call.get()});
    where_[call.get()] = at;
    if (at == calls_.begin()) earlier_.Signal();
  }

  void Forget(const LocalCall* call) {
    absl::MutexLock lock(&mutex_);
    auto it = where_.find(call);
    if (it == where_.end()) return;
    calls_.erase(it->second);
    where_.erase(it);
  }

  void Stop() {
    {
      absl::MutexLock lock(&mutex_);
      stopping_ = true;
      earlier_.Signal();
    }
    std::thread thread;
    {
      absl::MutexLock lock(&mutex_);
      thread = std::move(thread_);
    }
    if (thread.joinable()) thread.join();
  }

 private:
  struct Entry {
    std::weak_ptr<LocalCall> call;
    const LocalCall* key;
  };
  using ByDeadline = std::multimap<absl::Time, Entry>;

  void Run() {
    mutex_.Lock();
    while (!stopping_) {
      if (calls_.empty()) {
        earlier_.Wait(&mutex_);
        continue;
      }
      const absl::Time now = absl::Now();
      if (calls_.begin()->first > now) {
        earlier_.WaitWithDeadline(&mutex_, calls_.begin()->first);
        continue;
      }
      std::vector<std::weak_ptr<LocalCall>> expired;
      while (!calls_.empty() && calls_.begin()->first <= now) {
        where_.erase(calls_.begin()->second.key);
        expired.push_back(std::move(calls_.begin()->second.call));
        calls_.erase(calls_.begin());
      }
      mutex_.Unlock();
      for (const std::weak_ptr<LocalCall>& weak : expired) {
        if (std::shared_ptr<LocalCall> call = weak.lock()) {
          call->End(absl::DeadlineExceededError("Deadline Exceeded"), nullptr);
        }
      }
      mutex_.Lock();
    }
    mutex_.Unlock();
  }

  absl::Mutex mutex_;
  absl::CondVar earlier_;  // a new earliest deadline, or stopping
  ByDeadline calls_ ABSL_GUARDED_BY(mutex_);
  std::map<const LocalCall*, ByDeadline::iterator> where_ ABSL_GUARDED_BY(mutex_);
  bool stopping_ ABSL_GUARDED_BY(mutex_) = false;
  std::thread thread_ ABSL_GUARDED_BY(mutex_);
};

LocalCall::LocalCall(LocalCallOptions options, std::unique_ptr<Message> request,
                     std::shared_ptr<Message> response, std::shared_ptr<DeadlineWatch> watch,
                     Done done)
    : CallContext(std::move(options.principal), options.deadline, std::move(options.confirmation),
                  /*speaks_for_principals=*/true),
      request_(std::move(request)),
      response_(std::move(response)),
      watch_(std::move(watch)),
      done_(std::move(done)) {}

void LocalCall::Cancel() {
  cancelled_.store(true, std::memory_order_release);
  End(absl::CancelledError("Cancelled"), nullptr);
}

void LocalCall::Finish(const absl::Status& status) {
  std::shared_ptr<LocalCall> keep = std::move(self_);  // the handler's hold ends here
  // An answer after the deadline is not the caller's any more, as over gRPC: the handler may
  // have stopped because it saw the deadline (IsCancelled) just before the watch ended it.
  if (!cancelled_.load(std::memory_order_acquire) && DeadlinePassed()) {
    End(absl::DeadlineExceededError("Deadline Exceeded"), nullptr);
  } else {
    End(status, response_);
  }
  if (watched_.load(std::memory_order_acquire)) watch_->Forget(this);
}

void LocalCall::End(const absl::Status& status, std::shared_ptr<const Message> response) {
  bool expected = false;
  if (!ended_.compare_exchange_strong(expected, true, std::memory_order_acq_rel)) return;
  Done done = std::move(done_);
  done(status, std::move(response));
}

LocalCalls::LocalCalls(LocalMethods methods)
    : methods_(std::move(methods)), watch_(std::make_shared<DeadlineWatch>()) {}

LocalCalls::~LocalCalls() { watch_->Stop(); }

std::shared_ptr<LocalCall> LocalCalls::Start(const LocalMethods::Method& method,
                                             LocalCallOptions options,
                                             std::unique_ptr<LocalCall::Message> request,
                                             LocalCall::Done done) {
  std::shared_ptr<LocalCall::Message> response(method.response_prototype->New());
  std::shared_ptr<LocalCall> call(new LocalCall(std::move(options), std::move(request),
                                                std::move(response), watch_, std::move(done)));
  call->self_ = call;
  method.handler(call.get(), call->request_.get(), call->response_.get());
  // Only a call still running needs its deadline watched; one answered at once is done.
  if (!call->ended() && call->deadline() != absl::InfiniteFuture()) {
    call->watched_.store(true, std::memory_order_release);
    watch_->Watch(call);
  }
  return call;
}

}  // namespace labgate
