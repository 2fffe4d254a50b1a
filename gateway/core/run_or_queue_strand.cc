#include "gateway/core/run_or_queue_strand.h"

#include <boost/asio/post.hpp>
#include <exception>

#include "common/log.h"

namespace labgate::gateway {
namespace {

// Queued work is run this many pieces at a time before the io_context thread is given
// back to other connections.
constexpr int kDrainBatch = 32;

thread_local const void* t_running_strand = nullptr;

}  // namespace

RunOrQueueStrand::RunOrQueueStrand(boost::asio::io_context& io)
    : state_(std::make_shared<State>(io)) {}

bool RunOrQueueStrand::running_in_this_thread() const noexcept {
  return t_running_strand == state_.get();
}

void RunOrQueueStrand::State::Submit(Task task, bool may_run_here) {
  bool queued = false;
  {
    absl::MutexLock lock(&mutex);
    if (running) {
      queue.push_back(std::move(task));
      return;
    }
    running = true;
    if (!may_run_here) {
      queue.push_back(std::move(task));
      queued = true;
    }
  }
  if (queued) {
    boost::asio::post(io, [self = shared_from_this()] { self->Drain(); });
    return;
  }
  Run(task);
  task = Task();  // destroyed outside the strand's lock, before others run
  Release();
}

void RunOrQueueStrand::State::Release() {
  {
    absl::MutexLock lock(&mutex);
    if (queue.empty()) {
      running = false;
      return;
    }
  }
  // Still running: the queued work now belongs to an io_context thread.
  boost::asio::post(io, [self = shared_from_this()] { self->Drain(); });
}

void RunOrQueueStrand::State::Drain() {
  for (int i = 0; i < kDrainBatch; ++i) {
    Task task;
    {
      absl::MutexLock lock(&mutex);
      if (queue.empty()) {
        running = false;
        return;
      }
      task = std::move(queue.front());
      queue.pop_front();
    }
    Run(task);
  }
  Release();
}

void RunOrQueueStrand::State::Run(Task& task) {
  const void* outer = t_running_strand;
  t_running_strand = this;
  // An exception must not leave the strand marked as running forever.
  try {
    task();
  } catch (const std::exception& e) {
    LG_LOG(kError) << "connection work threw: " << e.what();
  } catch (...) {
    LG_LOG(kError) << "connection work threw a non-standard exception";
  }
  t_running_strand = outer;
}

}  // namespace labgate::gateway
