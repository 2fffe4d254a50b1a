// A strand for one connection with an explicit fast path. RunOrQueue() runs work on the
// calling thread when the strand is idle, saving the wake-up of an io_context thread (each
// hand-off costs tens of microseconds); otherwise it queues the work. Asio's own operations
// keep their meaning: post(), dispatch() and defer() always queue. Work runs one piece at a
// time, in the order it arrived, and never nested: work submitted from inside the strand is
// queued and run afterwards on an io_context thread.
//
// It is a Boost.Asio executor, so it fits any_io_executor and steady_timer.
#pragma once

#include <boost/asio/execution.hpp>
#include <boost/asio/io_context.hpp>
#include <deque>
#include <memory>
#include <type_traits>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

namespace labgate::gateway {

class RunOrQueueStrand {
 public:
  explicit RunOrQueueStrand(boost::asio::io_context& io);

  // Runs `function` here and now when the strand is idle, else queues it. The caller must
  // not hold a lock that the work takes.
  template <typename Function>
  void RunOrQueue(Function&& function) const {
    state_->Submit(Task(std::forward<Function>(function)), /*may_run_here=*/true);
  }

  // Asio's entry point (post, dispatch, defer): always queues.
  template <typename Function>
  void execute(Function&& function) const {
    state_->Submit(Task(std::forward<Function>(function)), /*may_run_here=*/false);
  }

  // The executor properties any_io_executor needs.
  boost::asio::execution_context& query(boost::asio::execution::context_t) const noexcept {
    return state_->io;
  }
  static constexpr boost::asio::execution::blocking_t query(
      boost::asio::execution::blocking_t) noexcept {
    return boost::asio::execution::blocking.never;
  }
  // execute() never runs work before returning, which is what post() asks for.
  RunOrQueueStrand require(boost::asio::execution::blocking_t::never_t) const noexcept {
    return *this;
  }
  RunOrQueueStrand require(boost::asio::execution::relationship_t::continuation_t) const noexcept {
    return *this;
  }
  RunOrQueueStrand require(boost::asio::execution::relationship_t::fork_t) const noexcept {
    return *this;
  }
  boost::asio::execution::relationship_t query(
      boost::asio::execution::relationship_t) const noexcept {
    return boost::asio::execution::relationship.fork;
  }
  friend bool operator==(const RunOrQueueStrand& a, const RunOrQueueStrand& b) noexcept {
    return a.state_ == b.state_;
  }
  friend bool operator!=(const RunOrQueueStrand& a, const RunOrQueueStrand& b) noexcept {
    return !(a == b);
  }

  // True on the thread that is running this strand's work.
  bool running_in_this_thread() const noexcept;

 private:
  // A move-only function object (asio's handlers may be move-only).
  class Task {
   public:
    Task() = default;
    template <typename Function,
              typename = std::enable_if_t<!std::is_same_v<std::decay_t<Function>, Task>>>
    explicit Task(Function&& function)
        : impl_(std::make_unique<Impl<std::decay_t<Function>>>(std::forward<Function>(function))) {}
    void operator()() { impl_->Run(); }

   private:
    struct Base {
      virtual ~Base() = default;
      virtual void Run() = 0;
    };
    template <typename Function>
    struct Impl final : Base {
      template <typename F>
      explicit Impl(F&& f) : function(std::forward<F>(f)) {}
      void Run() override { function(); }
      Function function;
    };
    std::unique_ptr<Base> impl_;
  };

  struct State : std::enable_shared_from_this<State> {
    explicit State(boost::asio::io_context& context) : io(context) {}
    void Submit(Task task, bool may_run_here) ABSL_LOCKS_EXCLUDED(mutex);
    // Runs queued work on an io_context thread, a batch at a time.
    void Drain() ABSL_LOCKS_EXCLUDED(mutex);
    // After a piece of work: hands queued work to the io_context, or goes idle.
    void Release() ABSL_LOCKS_EXCLUDED(mutex);
    void Run(Task& task) ABSL_LOCKS_EXCLUDED(mutex);

    boost::asio::io_context& io;
    absl::Mutex mutex;
    std::deque<Task> queue ABSL_GUARDED_BY(mutex);
    bool running ABSL_GUARDED_BY(mutex) = false;  // work is running, or queued to run
  };

  std::shared_ptr<State> state_;
};

}  // namespace labgate::gateway
