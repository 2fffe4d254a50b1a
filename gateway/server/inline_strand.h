// A strand for one stdio connection that can run work on the thread that hands it over,
// instead of waking an io_context thread for it. Work still runs one piece at a time, in
// the order it arrived, and never nested: work submitted from inside the strand, or while
// it is busy, is queued and run afterwards on an io_context thread.
//
// It is a Boost.Asio executor, so it fits any_io_executor and steady_timer:
// - post() and dispatch() run the function at once, on the calling thread, when the strand
//   is idle. (Unlike an asio strand, post() may thus run it before returning; its users,
//   McpSession and StdioConnection, never rely on post() deferring, and must not submit
//   work while holding a lock the work takes.)
// - defer() (relationship.continuation) always queues: for a caller with more work right
//   behind, which should not stop to run this piece.
#pragma once

#include <boost/asio/execution.hpp>
#include <boost/asio/io_context.hpp>
#include <deque>
#include <memory>
#include <mutex>
#include <type_traits>
#include <utility>

namespace labgate::gateway {

class InlineStrand {
 public:
  explicit InlineStrand(boost::asio::io_context& io);

  template <typename Function>
  void execute(Function&& function) const {
    state_->Submit(Task(std::forward<Function>(function)), /*may_run_here=*/!queue_only_);
  }

  // The executor properties any_io_executor needs.
  boost::asio::execution_context& query(boost::asio::execution::context_t) const noexcept {
    return state_->io;
  }
  static constexpr boost::asio::execution::blocking_t query(
      boost::asio::execution::blocking_t) noexcept {
    return boost::asio::execution::blocking.possibly;
  }
  // post() asks for blocking.never; see the note at the top of this file.
  InlineStrand require(boost::asio::execution::blocking_t::never_t) const noexcept { return *this; }
  InlineStrand require(boost::asio::execution::relationship_t::continuation_t) const noexcept {
    InlineStrand queued = *this;
    queued.queue_only_ = true;
    return queued;
  }
  InlineStrand require(boost::asio::execution::relationship_t::fork_t) const noexcept {
    InlineStrand forked = *this;
    forked.queue_only_ = false;
    return forked;
  }
  boost::asio::execution::relationship_t query(
      boost::asio::execution::relationship_t) const noexcept {
    if (queue_only_) return boost::asio::execution::relationship.continuation;
    return boost::asio::execution::relationship.fork;
  }
  friend bool operator==(const InlineStrand& a, const InlineStrand& b) noexcept {
    return a.state_ == b.state_ && a.queue_only_ == b.queue_only_;
  }
  friend bool operator!=(const InlineStrand& a, const InlineStrand& b) noexcept {
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
    void Submit(Task task, bool may_run_here);
    // Runs queued work on an io_context thread, a batch at a time.
    void Drain();
    // After a piece of work: hands queued work to the io_context, or goes idle.
    void Release();
    void Run(Task& task);

    boost::asio::io_context& io;
    std::mutex mutex;
    std::deque<Task> queue;  // guarded by mutex
    bool running = false;    // guarded by mutex: work is running, or queued to run
  };

  std::shared_ptr<State> state_;
  bool queue_only_ = false;  // defer(): never run on the submitting thread
};

}  // namespace labgate::gateway
