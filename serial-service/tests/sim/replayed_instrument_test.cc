// replay://: a recorded session played back with a clock the test moves. Strict and lenient
// matching, writes split and joined, divergences (kept, not answered, not advancing), what the
// device said on its own, delays scaled by speed, and the recording read from session messages.
#include "serial-service/sim/replayed_instrument.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"

namespace labgate::serial {
namespace {

using Clock = ScriptedDevice::Clock;
using std::chrono::milliseconds;

RecordedIo Io(int64_t id, bool tx, std::string bytes, int64_t at_ms) {
  RecordedIo io;
  io.message_id = id;
  io.tx = tx;
  io.bytes = std::move(bytes);
  io.at = milliseconds(at_ms);
  return io;
}

// A banner 100 ms in, then *IDN? answered 30 ms later, VOLT 5 silently, VOLT? in two parts.
ReplayRecording Bench() {
  ReplayRecording recording;
  recording.session_id = "s1";
  recording.records = {
      Io(2, false, "BOOT OK\n", 100), Io(3, true, "*IDN?\n", 200), Io(4, false, "ACME,PSU\n", 230),
      Io(5, true, "VOLT 5\n", 300),   Io(6, true, "VOLT?\n", 400), Io(7, false, "5.0", 410),
      Io(8, false, "00\n", 425),
  };
  recording.tx_count = 3;
  recording.rx_count = 4;
  return recording;
}

class ReplayedInstrumentTest : public ::testing::Test {
 protected:
  void Start(ReplayMode mode = ReplayMode::kStrict, double speed = 1.0) {
    ReplayTarget target;
    target.session_id = "s1";
    target.mode = mode;
    target.speed = speed;
    replay_ = std::make_unique<ReplayedInstrument>(target, Bench());
    ASSERT_TRUE(replay_->Open(now_).ok());
  }
  void Advance(int64_t ms) { now_ += milliseconds(ms); }
  std::string Due() { return replay_->TakeDue(now_); }
  std::string Send(const std::string& bytes) {
    replay_->Receive(bytes, now_);
    return Due();
  }

  Clock::time_point now_ = Clock::time_point() + std::chrono::hours(1);
  std::unique_ptr<ReplayedInstrument> replay_;
};

TEST_F(ReplayedInstrumentTest, WhatTheDeviceSaidOnItsOwnPlaysAtItsRecordedTime) {
  Start();
  Advance(99);
  EXPECT_EQ(Due(), "");
  EXPECT_EQ(replay_->NextDue(), std::optional(now_ + milliseconds(1)));
  Advance(1);
  EXPECT_EQ(Due(), "BOOT OK\n");
}

TEST_F(ReplayedInstrumentTest, AMatchedWriteIsAnsweredAfterItsRecordedDelay) {
  Start();
  Advance(500);  // later than recorded: the delay counts from the write
  EXPECT_EQ(Due(), "BOOT OK\n");
  EXPECT_EQ(Send("*IDN?\n"), "");
  EXPECT_EQ(replay_->NextDue(), std::optional(now_ + milliseconds(30)));
  Advance(30);
  EXPECT_EQ(Due(), "ACME,PSU\n");
  EXPECT_EQ(Send("VOLT 5\n"), "") << "the recording had no reply to it";
  EXPECT_EQ(Send("VOLT?\n"), "");
  Advance(10);
  EXPECT_EQ(Due(), "5.0");
  Advance(15);
  EXPECT_EQ(Due(), "00\n");
  const ReplayProgress progress = replay_->Progress();
  EXPECT_EQ(progress.matched, 3);
  EXPECT_EQ(progress.total_tx, 3);
  EXPECT_EQ(progress.rx_played, 4);
  EXPECT_TRUE(progress.finished);
  EXPECT_EQ(progress.Summary(), "matched 3 of 3, finished");
}

TEST_F(ReplayedInstrumentTest, SpeedDividesTheDelaysAndZeroAnswersAtOnce) {
  Start(ReplayMode::kStrict, 2.0);
  Advance(50);
  EXPECT_EQ(Due(), "BOOT OK\n");
  Send("*IDN?\n");
  Advance(15);
  EXPECT_EQ(Due(), "ACME,PSU\n");

  Start(ReplayMode::kStrict, 0);
  EXPECT_EQ(Due(), "BOOT OK\n");
  EXPECT_EQ(Send("*IDN?\n"), "ACME,PSU\n");
}

TEST_F(ReplayedInstrumentTest, AWriteInPiecesWaitsAndTwoTxInOneWriteAreBothMatched) {
  Start(ReplayMode::kStrict, 0);
  Due();
  EXPECT_EQ(Send("*ID"), "");
  EXPECT_TRUE(replay_->TakeUnreported().empty()) << "a prefix of the next tx is no divergence";
  EXPECT_EQ(Send("N?\n"), "ACME,PSU\n");
  EXPECT_EQ(Send("VOLT 5\nVOLT?\n"), "5.000\n");
  EXPECT_EQ(replay_->Progress().matched, 3);
}

TEST_F(ReplayedInstrumentTest, StrictModeReportsADivergenceAndStillExpectsTheSameTx) {
  Start(ReplayMode::kStrict, 0);
  Due();
  EXPECT_EQ(Send("*IDN?\n"), "ACME,PSU\n");
  EXPECT_EQ(Send("VOLT 6\n"), "") << "nothing answers a divergence";
  std::vector<ReplayDivergence> diverged = replay_->TakeUnreported();
  ASSERT_EQ(diverged.size(), 1u);
  EXPECT_EQ(diverged[0].message_id, 5);
  EXPECT_EQ(diverged[0].expected, "VOLT 5\n");
  EXPECT_EQ(diverged[0].sent, "VOLT 6\n");
  EXPECT_TRUE(replay_->TakeUnreported().empty()) << "reported once";
  EXPECT_EQ(Send("VOLT?\n"), "") << "strict: VOLT? is not next";
  EXPECT_EQ(replay_->TakeUnreported().size(), 1u);
  Send("VOLT 5\n");
  EXPECT_EQ(Send("VOLT?\n"), "5.000\n");
  const ReplayProgress progress = replay_->Progress();
  EXPECT_EQ(progress.divergence_count, 2);
  ASSERT_EQ(progress.divergences.size(), 2u);
  EXPECT_EQ(progress.divergences[1].sent, "VOLT?\n");
  EXPECT_EQ(progress.Summary(), "matched 3 of 3, 2 divergences, finished");
}

TEST_F(ReplayedInstrumentTest, WritesBeyondTheRecordingAreDivergencesWithNothingExpected) {
  Start(ReplayMode::kStrict, 0);
  Send("*IDN?\n");
  Send("VOLT 5\n");
  Send("VOLT?\n");
  EXPECT_EQ(Send("*IDN?\n"), "");
  std::vector<ReplayDivergence> diverged = replay_->TakeUnreported();
  ASSERT_EQ(diverged.size(), 1u);
  EXPECT_EQ(diverged[0].message_id, 0);
  EXPECT_EQ(diverged[0].expected, "");
  EXPECT_EQ(diverged[0].sent, "*IDN?\n");
}

TEST_F(ReplayedInstrumentTest, LenientModeAnswersAnyRecordedTxOfTheSameContent) {
  Start(ReplayMode::kLenient, 0);
  Due();
  EXPECT_EQ(Send("VOLT?\n"), "5.000\n") << "out of order";
  EXPECT_EQ(Send("*IDN?\n"), "ACME,PSU\n");
  EXPECT_EQ(Send("*IDN?\n"), "ACME,PSU\n") << "again";
  EXPECT_EQ(Send("VOLT 7\n"), "");
  std::vector<ReplayDivergence> diverged = replay_->TakeUnreported();
  ASSERT_EQ(diverged.size(), 1u);
  EXPECT_EQ(diverged[0].sent, "VOLT 7\n");
  EXPECT_FALSE(replay_->Progress().finished) << "VOLT 5 was never sent";
  Send("VOLT 5\n");
  EXPECT_TRUE(replay_->Progress().finished);
  EXPECT_EQ(replay_->Progress().matched, 4);
}

TEST_F(ReplayedInstrumentTest, AFailingLoaderFailsTheOpen) {
  ReplayTarget target;
  target.session_id = "gone";
  ReplayedInstrument replay(target, [](const std::string& id) -> absl::StatusOr<ReplayRecording> {
    return absl::NotFoundError("no session " + id + " to replay");
  });
  absl::Status opened = replay.Open(Clock::now());
  EXPECT_TRUE(absl::IsNotFound(opened)) << opened;
  EXPECT_FALSE(replay.Progress().loaded);
}

TEST(ReplayNameTest, ModeAndSpeedAreReadAndBadOnesNamed) {
  absl::StatusOr<ReplayTarget> plain = ParseReplayName("replay://abc");
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->session_id, "abc");
  EXPECT_EQ(plain->mode, ReplayMode::kStrict);
  EXPECT_EQ(plain->speed, 1.0);
  absl::StatusOr<ReplayTarget> both = ParseReplayName("replay://abc?mode=lenient&speed=0");
  ASSERT_TRUE(both.ok());
  EXPECT_EQ(both->mode, ReplayMode::kLenient);
  EXPECT_EQ(both->speed, 0);
  for (const char* bad : {"replay://", "replay://?speed=1", "replay://a?speed=-1",
                          "replay://a?speed=fast", "replay://a?speed=nan", "replay://a?speed=1e9",
                          "replay://a?mode=loose", "replay://a?tempo=2"}) {
    absl::StatusOr<ReplayTarget> parsed = ParseReplayName(bad);
    EXPECT_TRUE(absl::IsInvalidArgument(parsed.status())) << bad;
  }
  EXPECT_NE(ParseReplayName("replay://a?mode=loose").status().message().find("mode=lenient"),
            std::string::npos);
}

session::v1::Message Message(int64_t id, const std::string& direction, const std::string& content,
                             const std::string& at, const std::string& features = "serial,p") {
  session::v1::Message message;
  message.set_message_id(id);
  message.set_direction(direction);
  message.set_content(content);
  message.set_features(features);
  message.set_created_at("2026-11-27T10:00:59.000Z");
  if (!at.empty()) message.set_occurred_at(at);
  return message;
}

TEST(ReplayRecordingTest, RecordsAreTimedFromTheFirstAndBase64IsDecoded) {
  std::vector<session::v1::Message> messages = {
      Message(1, "event", "opened", "2026-11-27T10:00:00.000Z"),
      Message(2, "tx", "*IDN?\n", "2026-11-27T10:00:00.250Z"),
      Message(3, "rx", absl::Base64Escape(std::string("\x01\xff", 2)), "2026-11-27T10:00:00.275Z",
              "base64,serial,p"),
      Message(4, "rx", "stored only", ""),
  };
  session::v1::Message note;
  note.set_message_id(5);
  note.set_role("user");
  note.set_content("a note with no direction");
  messages.push_back(note);
  absl::StatusOr<ReplayRecording> recording = RecordingFromMessages("s", messages);
  ASSERT_TRUE(recording.ok()) << recording.status();
  ASSERT_EQ(recording->records.size(), 3u);
  EXPECT_EQ(recording->records[0].at, milliseconds(250));
  EXPECT_EQ(recording->records[1].bytes, std::string("\x01\xff", 2));
  EXPECT_EQ(recording->records[1].at, milliseconds(275));
  EXPECT_EQ(recording->records[2].at, milliseconds(59000)) << "created_at when it did not say";
  EXPECT_EQ(recording->tx_count, 1);
  EXPECT_EQ(recording->rx_count, 2);
}

TEST(ReplayRecordingTest, ASessionWithNothingToPlayOrUnreadableRecordsIsRefusedByName) {
  absl::StatusOr<ReplayRecording> empty =
      RecordingFromMessages("s", {Message(1, "event", "opened", "2026-11-27T10:00:00.000Z")});
  EXPECT_TRUE(absl::IsFailedPrecondition(empty.status()));
  EXPECT_NE(empty.status().message().find("no tx or rx"), std::string::npos);

  absl::StatusOr<ReplayRecording> bad_base64 = RecordingFromMessages(
      "s", {Message(7, "rx", "!!!", "2026-11-27T10:00:00.000Z", "base64,serial")});
  EXPECT_NE(bad_base64.status().message().find("message 7"), std::string::npos);

  absl::StatusOr<ReplayRecording> bad_time =
      RecordingFromMessages("s", {Message(9, "tx", "x", "yesterday")});
  EXPECT_NE(bad_time.status().message().find("message 9"), std::string::npos);
}

}  // namespace
}  // namespace labgate::serial
