// Calls on the embedded services' methods (common/local_methods.h) from the gateway, in
// process: the handler runs on the calling thread with a LocalCall as its CallContext; it
// answers at once (before Start returns) or later from its own thread (a port worker, the
// store's writer), and that thread delivers the answer. A caller may cancel; a call still
// running at its deadline is answered DEADLINE_EXCEEDED then, as gRPC would answer it.
#pragma once

#include <google/protobuf/message.h>

#include <atomic>
#include <memory>
#include <optional>
#include <string>

#include "absl/functional/any_invocable.h"
#include "absl/status/status.h"
#include "absl/time/time.h"
#include "common/call_context.h"
#include "common/local_methods.h"

namespace labgate {

class DeadlineWatch;

struct LocalCallOptions {
  std::string principal;  // empty: anonymous
  absl::Time deadline = absl::InfiniteFuture();
  std::optional<ConfirmationAnswer> confirmation;
};

class LocalCall final : public CallContext {
 public:
  using Message = google::protobuf::Message;
  // The call's status, and its response when the handler answered it (null when the call
  // ended without it: cancelled, or past its deadline). Runs exactly once.
  // The caller may keep the response: the handler is done with it.
  using Done =
      absl::AnyInvocable<void(const absl::Status& status, std::shared_ptr<const Message> response)>;

  // Ends the call for its caller now, with CANCELLED, and lets the handler see it
  // (IsCancelled); the handler's own answer comes later and is dropped.
  void Cancel();
  // Whether the caller has had its answer (or is being given it).
  bool ended() const { return ended_.load(std::memory_order_acquire); }

  bool IsCancelled() const override {
    return cancelled_.load(std::memory_order_acquire) || DeadlinePassed();
  }
  void Finish(const absl::Status& status) override;

 private:
  friend class LocalCalls;
  friend class DeadlineWatch;
  LocalCall(LocalCallOptions options, std::unique_ptr<Message> request,
            std::shared_ptr<Message> response, std::shared_ptr<DeadlineWatch> watch, Done done);
  // The first of the handler's Finish, Cancel and the deadline gives the caller its answer.
  void End(const absl::Status& status, std::shared_ptr<const Message> response);

  const std::unique_ptr<Message> request_;
  const std::shared_ptr<Message> response_;
  const std::shared_ptr<DeadlineWatch> watch_;
  Done done_;  // taken by whoever ends the call first
  std::atomic<bool> ended_{false};
  std::atomic<bool> cancelled_{false};
  // The handler's hold on the call, from Start to its Finish.
  std::shared_ptr<LocalCall> self_;
  // Whether the deadline watch was given the call: only a call its handler did not answer at
  // once is watched.
  std::atomic<bool> watched_{false};
};

// Starts calls on one table of methods, and answers those still running at their deadline
// from one thread, which sleeps until the earliest such deadline.
class LocalCalls {
 public:
  explicit LocalCalls(LocalMethods methods);
  ~LocalCalls();
  LocalCalls(const LocalCalls&) = delete;
  LocalCalls& operator=(const LocalCalls&) = delete;

  const LocalMethods& methods() const { return methods_; }
  // Runs `method`'s handler with `request` (of the method's request type) on this thread.
  // `done` runs before Start returns when the handler answered at once.
  std::shared_ptr<LocalCall> Start(const LocalMethods::Method& method, LocalCallOptions options,
                                   std::unique_ptr<LocalCall::Message> request,
                                   LocalCall::Done done);

 private:
  const LocalMethods methods_;
  const std::shared_ptr<DeadlineWatch> watch_;
};

}  // namespace labgate
