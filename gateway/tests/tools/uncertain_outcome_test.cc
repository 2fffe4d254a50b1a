#include "gateway/tools/uncertain_outcome.h"

#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "labgate/serial/v1/serial.grpc.pb.h"
#include "labgate/session/v1/session.grpc.pb.h"

namespace labgate::gateway {
namespace {

const google::protobuf::MethodDescriptor& Append() {
  return *session::v1::AppendMessageRequest::descriptor()
              ->file()
              ->FindServiceByName("SessionService")
              ->FindMethodByName("AppendMessage");
}

TEST(UncertainOutcomeTest, AKeyedAppendThatMayHaveLandedSaysARetryIsSafe) {
  const std::string advice =
      UncertainOutcomeAdvice(Append(), {{"session_id", "s"}, {"idempotency_key", "k1"}});
  for (const absl::Status& failure :
       {absl::UnavailableError("connection refused"), absl::DeadlineExceededError("late")}) {
    absl::Status explained = ExplainUncertainOutcome(advice, failure);
    EXPECT_EQ(explained.code(), failure.code());
    EXPECT_TRUE(absl::StartsWith(explained.message(), failure.message()));
    EXPECT_TRUE(absl::StrContains(explained.message(), "outcome is unknown")) << explained;
    EXPECT_TRUE(absl::StrContains(explained.message(), "same idempotency_key is safe"))
        << explained;
  }
}

TEST(UncertainOutcomeTest, AnAppendWithoutAKeyWarnsThatARetryMayDuplicate) {
  absl::Status explained = ExplainUncertainOutcome(
      UncertainOutcomeAdvice(Append(), {{"session_id", "s"}}), absl::UnavailableError("down"));
  EXPECT_TRUE(absl::StrContains(explained.message(), "outcome is unknown")) << explained;
  EXPECT_TRUE(absl::StrContains(explained.message(), "may store it twice")) << explained;
}

TEST(UncertainOutcomeTest, OtherFailuresAndOtherToolsAreLeftAlone) {
  const std::string advice = UncertainOutcomeAdvice(Append(), {{"idempotency_key", "k"}});
  absl::Status invalid = absl::InvalidArgumentError("content is required");
  EXPECT_EQ(ExplainUncertainOutcome(advice, invalid), invalid);
  const auto* write = serial::v1::WriteRequest::descriptor()
                          ->file()
                          ->FindServiceByName("SerialService")
                          ->FindMethodByName("Write");
  EXPECT_EQ(UncertainOutcomeAdvice(*write, {{"data", "x"}}), "");
  absl::Status down = absl::UnavailableError("down");
  EXPECT_EQ(ExplainUncertainOutcome("", down), down);
}

}  // namespace
}  // namespace labgate::gateway
