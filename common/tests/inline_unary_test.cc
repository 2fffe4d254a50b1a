// InlineUnaryServer: real gRPC calls over its in-process channel, answered at once (on the
// caller's thread) or later (from another thread), failed, cancelled, timed out, and stopped.
#include "common/inline_unary.h"

#include <google/protobuf/wrappers.pb.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"

namespace labgate {
namespace {

using google::protobuf::StringValue;
using namespace std::chrono_literals;

constexpr char kEcho[] = "/test.Echo/Echo";
constexpr char kLater[] = "/test.Echo/Later";
constexpr char kFail[] = "/test.Echo/Fail";

// The calls the "Later" method has taken and not answered yet.
class Parked {
 public:
  void Add(UnaryCall* call, StringValue* response) {
    absl::MutexLock lock(&mutex_);
    calls_.push_back({call, response});
  }
  // Waits for the next parked call.
  std::pair<UnaryCall*, StringValue*> Take() {
    absl::MutexLock lock(&mutex_);
    mutex_.Await(absl::Condition(
        +[](std::vector<std::pair<UnaryCall*, StringValue*>>* calls) { return !calls->empty(); },
        &calls_));
    auto call = calls_.front();
    calls_.erase(calls_.begin());
    return call;
  }

 private:
  absl::Mutex mutex_;
  std::vector<std::pair<UnaryCall*, StringValue*>> calls_ ABSL_GUARDED_BY(mutex_);
};

class InlineUnaryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server_.Add(kEcho, StringValue::default_instance(), StringValue::default_instance(),
                [this](UnaryCall* call, const google::protobuf::Message* request,
                       google::protobuf::Message* response) {
                  handler_thread_ = std::this_thread::get_id();
                  std::string owner;
                  for (const auto& [key, value] : call->client_metadata()) {
                    if (key == "labgate-owner") owner.assign(value.data(), value.size());
                  }
                  static_cast<StringValue*>(response)->set_value(
                      static_cast<const StringValue*>(request)->value() + owner);
                  call->Finish(grpc::Status::OK);
                });
    server_.Add(kLater, StringValue::default_instance(), StringValue::default_instance(),
                [this](UnaryCall* call, const google::protobuf::Message*,
                       google::protobuf::Message* response) {
                  parked_.Add(call, static_cast<StringValue*>(response));
                });
    server_.Add(kFail, StringValue::default_instance(), StringValue::default_instance(),
                [](UnaryCall* call, const google::protobuf::Message*, google::protobuf::Message*) {
                  call->AddTrailingMetadata("labgate-rule", "no-writes");
                  call->Finish(grpc::Status(grpc::StatusCode::FAILED_PRECONDITION, "held"));
                });
    ASSERT_TRUE(server_.Start().ok());
  }

  // One call's outcome, filled in by its completion.
  struct Outcome {
    grpc::ClientContext context;
    StringValue request;
    StringValue response;
    grpc::Status status;
    std::thread::id done_thread;
    absl::Notification done;
  };
  std::unique_ptr<Outcome> Start(const std::string& path, const std::string& text) {
    auto outcome = std::make_unique<Outcome>();
    outcome->request.set_value(text);
    outcome->context.set_deadline(std::chrono::system_clock::now() + 30s);
    Outcome* raw = outcome.get();
    server_.Call(&raw->context, path, raw->request, &raw->response,
                 [raw](const grpc::Status& status) {
                   raw->status = status;
                   raw->done_thread = std::this_thread::get_id();
                   raw->done.Notify();
                 });
    return outcome;
  }

  InlineUnaryServer server_;
  Parked parked_;
  std::atomic<std::thread::id> handler_thread_;  // concurrent callers each write it
};

TEST_F(InlineUnaryTest, AnAnswerGivenAtOnceArrivesBeforeCallReturnsOnTheCallersThread) {
  auto outcome = Start(kEcho, "ping");
  ASSERT_TRUE(outcome->done.HasBeenNotified());
  EXPECT_TRUE(outcome->status.ok()) << outcome->status.error_message();
  EXPECT_EQ(outcome->response.value(), "ping");
  EXPECT_EQ(handler_thread_.load(), std::this_thread::get_id());
  EXPECT_EQ(outcome->done_thread, std::this_thread::get_id());
}

TEST_F(InlineUnaryTest, TheHandlerSeesTheCallersMetadata) {
  auto outcome = std::make_unique<Outcome>();
  outcome->request.set_value("for ");
  outcome->context.AddMetadata("labgate-owner", "client-7");
  Outcome* raw = outcome.get();
  server_.Call(&raw->context, kEcho, raw->request, &raw->response,
               [raw](const grpc::Status& status) {
                 raw->status = status;
                 raw->done.Notify();
               });
  ASSERT_TRUE(raw->done.WaitForNotificationWithTimeout(absl::Seconds(10)));
  EXPECT_EQ(raw->response.value(), "for client-7");
}

TEST_F(InlineUnaryTest, AnAnswerGivenLaterArrivesOnTheAnsweringThread) {
  auto outcome = Start(kLater, "x");
  EXPECT_FALSE(outcome->done.HasBeenNotified());
  auto [call, response] = parked_.Take();
  std::thread::id answering_thread;
  std::thread answerer([&, call = call, response = response] {
    answering_thread = std::this_thread::get_id();
    response->set_value("late");
    call->Finish(grpc::Status::OK);
  });
  answerer.join();
  ASSERT_TRUE(outcome->done.WaitForNotificationWithTimeout(absl::Seconds(10)));
  EXPECT_TRUE(outcome->status.ok());
  EXPECT_EQ(outcome->response.value(), "late");
  EXPECT_EQ(outcome->done_thread, answering_thread);
}

TEST_F(InlineUnaryTest, ACallMadeFromACompletionOnAnAnsweringThreadIsServedElsewhere) {
  // An answering thread may hold its own locks while it finishes a call, so the handler of a
  // call made from the completion it delivers must not run under them, on that thread.
  grpc::ClientContext outer_context;
  StringValue outer_request;
  StringValue outer_response;
  auto nested = std::make_unique<Outcome>();
  nested->request.set_value("nested");
  Outcome* raw = nested.get();
  server_.Call(&outer_context, kLater, outer_request, &outer_response,
               [this, raw](const grpc::Status&) {
                 server_.Call(&raw->context, kEcho, raw->request, &raw->response,
                              [raw](const grpc::Status& status) {
                                raw->status = status;
                                raw->done.Notify();
                              });
               });
  auto [call, response] = parked_.Take();
  std::thread::id answering_thread;
  std::thread answerer([&, call = call] {
    answering_thread = std::this_thread::get_id();
    call->Finish(grpc::Status::OK);
  });
  answerer.join();
  ASSERT_TRUE(raw->done.WaitForNotificationWithTimeout(absl::Seconds(10)));
  EXPECT_TRUE(raw->status.ok()) << raw->status.error_message();
  EXPECT_EQ(raw->response.value(), "nested");
  EXPECT_NE(handler_thread_.load(), answering_thread);
}

TEST_F(InlineUnaryTest, AFailureKeepsItsCodeWordsAndTrailers) {
  auto outcome = Start(kFail, "");
  ASSERT_TRUE(outcome->done.WaitForNotificationWithTimeout(absl::Seconds(10)));
  EXPECT_EQ(outcome->status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_EQ(outcome->status.error_message(), "held");
  const auto& trailers = outcome->context.GetServerTrailingMetadata();
  auto rule = trailers.find("labgate-rule");
  ASSERT_NE(rule, trailers.end());
  EXPECT_EQ(std::string(rule->second.data(), rule->second.size()), "no-writes");
}

TEST_F(InlineUnaryTest, AnUnknownMethodIsUnimplementedAndTheServerGoesOn) {
  auto unknown = Start("/test.Echo/Nothing", "");
  ASSERT_TRUE(unknown->done.WaitForNotificationWithTimeout(absl::Seconds(10)));
  EXPECT_EQ(unknown->status.error_code(), grpc::StatusCode::UNIMPLEMENTED);
  EXPECT_NE(unknown->status.error_message().find("/test.Echo/Nothing"), std::string::npos);
  auto after = Start(kEcho, "still here");
  ASSERT_TRUE(after->done.WaitForNotificationWithTimeout(absl::Seconds(10)));
  EXPECT_EQ(after->response.value(), "still here");
}

TEST_F(InlineUnaryTest, ACancelledCallEndsAndItsHandlerSeesIt) {
  auto outcome = Start(kLater, "");
  auto [call, response] = parked_.Take();
  EXPECT_FALSE(call->IsCancelled());
  outcome->context.TryCancel();
  server_.Pump();
  ASSERT_TRUE(outcome->done.WaitForNotificationWithTimeout(absl::Seconds(10)));
  EXPECT_EQ(outcome->status.error_code(), grpc::StatusCode::CANCELLED);
  EXPECT_TRUE(call->IsCancelled());
  call->Finish(grpc::Status::OK);  // a late answer goes nowhere and breaks nothing
  auto after = Start(kEcho, "next");
  ASSERT_TRUE(after->done.WaitForNotificationWithTimeout(absl::Seconds(10)));
  EXPECT_EQ(after->response.value(), "next");
}

TEST_F(InlineUnaryTest, APassedDeadlineEndsTheCallWithNobodyDrainingTheQueue) {
  auto outcome = std::make_unique<Outcome>();
  outcome->context.set_deadline(std::chrono::system_clock::now() + 100ms);
  Outcome* raw = outcome.get();
  server_.Call(&raw->context, kLater, raw->request, &raw->response,
               [raw](const grpc::Status& status) {
                 raw->status = status;
                 raw->done.Notify();
               });
  auto [call, response] = parked_.Take();
  ASSERT_TRUE(raw->done.WaitForNotificationWithTimeout(absl::Seconds(10)));
  EXPECT_EQ(raw->status.error_code(), grpc::StatusCode::DEADLINE_EXCEEDED);
  call->Finish(grpc::Status::OK);
}

TEST_F(InlineUnaryTest, ConcurrentCallersEachGetTheirOwnAnswer) {
  constexpr int kThreads = 4;
  constexpr int kCalls = 200;
  std::atomic<int> wrong{0};
  std::vector<std::thread> callers;
  callers.reserve(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    callers.emplace_back([&, t] {
      for (int i = 0; i < kCalls; ++i) {
        const std::string text = std::to_string(t) + ":" + std::to_string(i);
        auto outcome = Start(kEcho, text);
        if (!outcome->done.WaitForNotificationWithTimeout(absl::Seconds(10)) ||
            !outcome->status.ok() || outcome->response.value() != text) {
          wrong.fetch_add(1);
        }
      }
    });
  }
  for (std::thread& caller : callers) caller.join();
  EXPECT_EQ(wrong.load(), 0);
}

TEST_F(InlineUnaryTest, ShutdownEndsAWaitingCallAndRefusesNewOnes) {
  auto waiting = Start(kLater, "");
  auto [call, response] = parked_.Take();
  server_.Shutdown(50ms);
  ASSERT_TRUE(waiting->done.WaitForNotificationWithTimeout(absl::Seconds(10)));
  EXPECT_FALSE(waiting->status.ok());
  call->Finish(grpc::Status::OK);  // the handler answers after all: dropped, nothing leaks
  auto refused = Start(kEcho, "");
  ASSERT_TRUE(refused->done.HasBeenNotified());
  EXPECT_EQ(refused->status.error_code(), grpc::StatusCode::UNAVAILABLE);
}

}  // namespace
}  // namespace labgate
