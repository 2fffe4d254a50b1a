// LocalCalls, the embedded side of the seam, on the one service labgate_common carries
// (grpc.health.v1): an answer given at once arrives before Start returns; a later one on the
// thread that gave it; a cancelled call or one past its deadline is answered then, once, and
// its handler sees that it was abandoned.
#include "common/local_call.h"

#include <gtest/gtest.h>

#include <memory>
#include <thread>
#include <utility>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "grpc/health/v1/health.pb.h"

namespace labgate {
namespace {

using grpc::health::v1::HealthCheckRequest;
using grpc::health::v1::HealthCheckResponse;

// Answers at once, or keeps the call for the test to answer later.
class FakeHealth {
 public:
  void ServeCheck(CallContext* call, const HealthCheckRequest* request,
                  HealthCheckResponse* response) {
    principal_seen = call->principal();
    if (request->service() == "later") {
      absl::MutexLock lock(&mutex_);
      held_ = call;
      held_response_ = response;
      return;
    }
    response->set_status(HealthCheckResponse::SERVING);
    call->Finish(absl::OkStatus());
  }
  CallContext* WaitForHeld() {
    absl::MutexLock lock(&mutex_);
    mutex_.Await(absl::Condition(
        +[](CallContext** held) { return *held != nullptr; }, &held_));
    return held_;
  }
  void AnswerHeld() {
    CallContext* call = WaitForHeld();
    held_response_->set_status(HealthCheckResponse::NOT_SERVING);
    call->Finish(absl::OkStatus());
  }

  std::string principal_seen;

 private:
  absl::Mutex mutex_;
  CallContext* held_ ABSL_GUARDED_BY(mutex_) = nullptr;
  HealthCheckResponse* held_response_ = nullptr;
};

class LocalCallTest : public ::testing::Test {
 protected:
  LocalCallTest() {
    LocalMethods methods;
    methods.Add("grpc.health.v1.Health", "Check", &health_, &FakeHealth::ServeCheck);
    calls_ = std::make_unique<LocalCalls>(std::move(methods));
    method_ = calls_->methods().Find("/grpc.health.v1.Health/Check");
  }

  std::unique_ptr<HealthCheckRequest> Request(const std::string& service) {
    auto request = std::make_unique<HealthCheckRequest>();
    request->set_service(service);
    return request;
  }

  FakeHealth health_;
  std::unique_ptr<LocalCalls> calls_;
  const LocalMethods::Method* method_ = nullptr;
};

TEST_F(LocalCallTest, TheTableServesEveryUnaryMethodAndLeavesStreamsToGrpc) {
  ASSERT_NE(method_, nullptr);
  EXPECT_TRUE(calls_->methods().CheckServesAll("grpc.health.v1.Health").ok());
  EXPECT_EQ(calls_->methods().Find("/grpc.health.v1.Health/Watch"), nullptr);
}

TEST_F(LocalCallTest, AnAnswerGivenAtOnceArrivesBeforeStartReturns) {
  int answers = 0;
  HealthCheckResponse::ServingStatus status = HealthCheckResponse::UNKNOWN;
  std::shared_ptr<LocalCall> call =
      calls_->Start(*method_, {}, Request("now"),
                    [&](const absl::Status& outcome,
                        const std::shared_ptr<const google::protobuf::Message>& response) {
                      ++answers;
                      ASSERT_TRUE(outcome.ok()) << outcome;
                      status = static_cast<const HealthCheckResponse*>(response.get())->status();
                    });
  EXPECT_EQ(answers, 1);
  EXPECT_TRUE(call->ended());
  EXPECT_EQ(status, HealthCheckResponse::SERVING);
  EXPECT_EQ(health_.principal_seen, kAnonymousPrincipal) << "no principal given is anonymous";
}

TEST_F(LocalCallTest, ALaterAnswerArrivesOnTheThreadThatGaveIt) {
  absl::Notification answered;
  std::thread::id answered_on;
  HealthCheckResponse::ServingStatus status = HealthCheckResponse::UNKNOWN;
  LocalCallOptions options;
  options.principal = "alice";
  std::shared_ptr<LocalCall> call =
      calls_->Start(*method_, options, Request("later"),
                    [&](const absl::Status& outcome,
                        const std::shared_ptr<const google::protobuf::Message>& response) {
                      EXPECT_TRUE(outcome.ok()) << outcome;
                      status = static_cast<const HealthCheckResponse*>(response.get())->status();
                      answered_on = std::this_thread::get_id();
                      answered.Notify();
                    });
  EXPECT_FALSE(call->ended());
  EXPECT_EQ(health_.principal_seen, "alice");
  std::thread answerer([this] { health_.AnswerHeld(); });
  const std::thread::id answerer_id = answerer.get_id();
  answerer.join();
  ASSERT_TRUE(answered.HasBeenNotified());
  EXPECT_EQ(answered_on, answerer_id);
  EXPECT_EQ(status, HealthCheckResponse::NOT_SERVING);
}

TEST_F(LocalCallTest, ACancelledCallIsAnsweredOnceAndItsHandlerSeesIt) {
  int answers = 0;
  absl::Status seen;
  const google::protobuf::Message* response_seen = nullptr;
  std::shared_ptr<LocalCall> call =
      calls_->Start(*method_, {}, Request("later"),
                    [&](const absl::Status& outcome,
                        const std::shared_ptr<const google::protobuf::Message>& response) {
                      ++answers;
                      seen = outcome;
                      response_seen = response.get();
                    });
  CallContext* held = health_.WaitForHeld();
  EXPECT_FALSE(held->IsCancelled());
  call->Cancel();
  EXPECT_EQ(answers, 1);
  EXPECT_EQ(seen.code(), absl::StatusCode::kCancelled);
  EXPECT_EQ(response_seen, nullptr) << "the handler may still be writing its response";
  EXPECT_TRUE(held->IsCancelled());
  health_.AnswerHeld();  // the handler's own answer is dropped
  EXPECT_EQ(answers, 1);
}

// What a call's caller was told, from whichever thread told it.
class Answers {
 public:
  LocalCall::Done Done() {
    return [this](const absl::Status& outcome,
                  const std::shared_ptr<const google::protobuf::Message>&) {
      absl::MutexLock lock(&mutex_);
      ++count_;
      last_ = outcome;
      if (!first_.HasBeenNotified()) first_.Notify();
    };
  }
  bool WaitForFirst(absl::Duration timeout) {
    return first_.WaitForNotificationWithTimeout(timeout);
  }
  int count() {
    absl::MutexLock lock(&mutex_);
    return count_;
  }
  absl::Status last() {
    absl::MutexLock lock(&mutex_);
    return last_;
  }

 private:
  absl::Mutex mutex_;
  int count_ ABSL_GUARDED_BY(mutex_) = 0;
  absl::Status last_ ABSL_GUARDED_BY(mutex_);
  absl::Notification first_;
};

TEST_F(LocalCallTest, ACallStillRunningAtItsDeadlineIsAnsweredThen) {
  Answers answers;
  LocalCallOptions options;
  options.deadline = absl::Now() + absl::Milliseconds(100);
  std::shared_ptr<LocalCall> call =
      calls_->Start(*method_, options, Request("later"), answers.Done());
  CallContext* held = health_.WaitForHeld();
  ASSERT_TRUE(answers.WaitForFirst(absl::Seconds(30)));
  EXPECT_EQ(answers.last().code(), absl::StatusCode::kDeadlineExceeded) << answers.last();
  EXPECT_TRUE(held->IsCancelled()) << "past its deadline, the handler is told to give up";
  health_.AnswerHeld();
  EXPECT_EQ(answers.count(), 1);
}

TEST_F(LocalCallTest, AnAnswerBeforeTheDeadlineIsTheOnlyOne) {
  Answers answers;
  LocalCallOptions options;
  options.deadline = absl::Now() + absl::Milliseconds(300);
  std::shared_ptr<LocalCall> call =
      calls_->Start(*method_, options, Request("later"), answers.Done());
  health_.AnswerHeld();
  ASSERT_TRUE(answers.WaitForFirst(absl::ZeroDuration()));
  absl::SleepFor(absl::Milliseconds(500));  // past the deadline: the watch has forgotten it
  EXPECT_EQ(answers.count(), 1);
  EXPECT_TRUE(answers.last().ok()) << answers.last();
}

// A handler that gives up because it saw the deadline (IsCancelled) may answer before the
// watch does; the caller still gets DEADLINE_EXCEEDED, as over gRPC, never the handler's
// CANCELLED or a late result.
TEST_F(LocalCallTest, AnAnswerAfterTheDeadlineIsDeadlineExceededWhoeverGivesIt) {
  Answers answers;
  LocalCallOptions options;
  options.deadline = absl::Now() - absl::Milliseconds(1);
  std::shared_ptr<LocalCall> call =
      calls_->Start(*method_, options, Request("now"), answers.Done());
  ASSERT_TRUE(answers.WaitForFirst(absl::Seconds(30)));
  EXPECT_EQ(answers.last().code(), absl::StatusCode::kDeadlineExceeded) << answers.last();
  EXPECT_EQ(answers.count(), 1);
}

}  // namespace
}  // namespace labgate
