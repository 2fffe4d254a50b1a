// replay://: a session recorded from a real libserialport port on a pty instrument is played
// back by the serial service, reading it from a real labgate-session child: the same calls get
// the same replies (never earlier than recorded), a changed command gets a divergence that
// names the record, the replay's own transcript is complete, and an export imported back
// replays the same. Bad replays are refused by name and the service keeps serving (one that
// has no session service to read from: pty_transcript_test).
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "serial-service/recording/session_reader.h"
#include "serial-service/tests/recording/transcript_fixture.h"

namespace labgate::serial {
namespace {

using serial_harness::InstrumentMode;
using testing::Line;
namespace session_v1 = labgate::session::v1;

class PtyReplayTest : public testing::TranscriptFixture {
 protected:
  // Records a bench session against the pty SCPI instrument: a banner, an identification, a
  // query it answers late (it stalls for 100 ms just before), and a setting.
  std::string RecordBench() {
    std::string session_id = CreateSession();
    auto device = Device(InstrumentMode::kScpi);
    if (device == nullptr) return "";
    OpenBound(device->path(), session_id);
    std::this_thread::sleep_for(std::chrono::milliseconds(120));
    device->Send("BOOT OK\n");
    v1::WaitForResponse waited;
    EXPECT_TRUE(WaitFor(device->path(), "BOOT OK\n", &waited).ok());
    v1::QueryResponse reply;
    EXPECT_TRUE(client_->Query("", "*IDN?", 2000, &reply).ok());
    recorded_idn_ = reply.data();
    EXPECT_TRUE(client_->Write("", "STALL 100").ok());
    // The query goes once the instrument has read the stall (one read of both lines would
    // answer the query at once).
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (device->Received().find("STALL 100\n") == std::string::npos &&
           std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    EXPECT_TRUE(client_->Query("", "MEAS?", 2000, &reply).ok());
    EXPECT_EQ(reply.data(), "MEAS?");
    EXPECT_TRUE(client_->Query("", "VOLT 5", 2000, &reply).ok());
    EXPECT_TRUE(client_->Close(device->path()).ok());
    EXPECT_TRUE(WaitDelivered(device->path()));
    return session_id;
  }

  grpc::Status WaitFor(const std::string& port, const std::string& pattern,
                       v1::WaitForResponse* response) {
    v1::WaitForRequest request;
    request.set_port_name(port);
    request.add_patterns(pattern);
    request.set_regex(false);
    request.set_timeout_ms(3000);
    return client_->stub()->WaitFor(client_->Context().get(), request, response);
  }

  grpc::Status ReplayStatus(const std::string& port, v1::ReplayStatusResponse* response) {
    v1::ReplayStatusRequest request;
    request.set_port_name(port);
    return client_->stub()->ReplayStatus(client_->Context().get(), request, response);
  }

  // The tx and rx of a transcript, and its events that start with `event_prefix`.
  static std::vector<Line> Io(const std::vector<session_v1::Message>& messages,
                              const std::string& event_prefix = "\x01") {
    std::vector<Line> io;
    for (const session_v1::Message& message : messages) {
      if (message.direction() == "tx" || message.direction() == "rx" ||
          absl::StartsWith(message.content(), event_prefix)) {
        io.push_back({message.direction(), message.content()});
      }
    }
    return io;
  }

  // The latency of the reply to `command` in a transcript: its rx's time minus its tx's.
  static int64_t ReplyDelayMs(const std::vector<session_v1::Message>& messages,
                              const std::string& command) {
    absl::Time sent;
    for (const session_v1::Message& message : messages) {
      absl::Time at;
      if (!absl::ParseTime(absl::RFC3339_full, message.occurred_at(), &at, nullptr)) continue;
      if (message.direction() == "tx" && message.content() == command) sent = at;
      if (message.direction() == "rx" && sent != absl::Time()) {
        return absl::ToInt64Milliseconds(at - sent);
      }
    }
    return -1;
  }

  std::string recorded_idn_;
};

TEST_F(PtyReplayTest, ARecordedSessionAnswersTheSameCallsAndADivergenceNamesTheRecord) {
  ASSERT_NE(session_->Start(), 0) << "labgate-session did not start";
  StartSerial(session_->address());
  const std::string recorded = RecordBench();
  ASSERT_FALSE(recorded.empty());
  const std::vector<session_v1::Message> original = Transcript(recorded);
  int64_t volt_message_id = 0;
  for (const session_v1::Message& message : original) {
    if (message.direction() == "tx" && message.content() == "VOLT 5\n") {
      volt_message_id = message.message_id();
    }
  }
  ASSERT_NE(volt_message_id, 0);

  const std::string replay_session = CreateSession();
  const std::string port = "replay://" + recorded;
  OpenBound(port, replay_session);
  v1::WaitForResponse banner;
  ASSERT_TRUE(WaitFor(port, "BOOT OK\n", &banner).ok());
  EXPECT_TRUE(banner.matched()) << "what the device said on its own is played";
  v1::QueryResponse reply;
  ASSERT_TRUE(client_->Query(port, "*IDN?", 2000, &reply).ok());
  EXPECT_EQ(reply.data(), recorded_idn_);
  ASSERT_TRUE(client_->Write(port, "STALL 100").ok());
  ASSERT_TRUE(client_->Query(port, "MEAS?", 2000, &reply).ok());
  EXPECT_EQ(reply.data(), "MEAS?");
  const int64_t recorded_delay = ReplyDelayMs(original, "MEAS?\n");
  ASSERT_GE(recorded_delay, 25) << "the instrument stalled for 100 ms before the query came";
  EXPECT_GE(reply.latency_ms(), recorded_delay - 1) << "never answered before it was recorded";

  grpc::Status diverged = client_->Query(port, "VOLT 6", 2000, &reply);
  EXPECT_EQ(diverged.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_TRUE(absl::StrContains(diverged.error_message(), "sent \"VOLT 6\\n\""))
      << diverged.error_message();
  EXPECT_TRUE(absl::StrContains(diverged.error_message(), "\"VOLT 5\\n\""));
  EXPECT_TRUE(
      absl::StrContains(diverged.error_message(), absl::StrCat("(message ", volt_message_id, ")")));
  v1::ReplayStatusResponse status;
  ASSERT_TRUE(ReplayStatus(port, &status).ok());
  EXPECT_EQ(status.session_id(), recorded);
  EXPECT_EQ(status.mode(), "strict");
  EXPECT_EQ(status.matched(), 3);
  EXPECT_EQ(status.total_tx(), 4);
  ASSERT_EQ(status.divergences_size(), 1);
  EXPECT_EQ(status.divergences(0).message_id(), volt_message_id);
  EXPECT_EQ(status.divergences(0).expected(), "VOLT 5\n");
  EXPECT_EQ(status.divergences(0).sent(), "VOLT 6\n");
  EXPECT_FALSE(status.finished());

  ASSERT_TRUE(client_->Query(port, "VOLT 5", 2000, &reply).ok()) << "still expected next";
  EXPECT_EQ(reply.data(), "VOLT 5");
  ASSERT_TRUE(ReplayStatus(port, &status).ok());
  EXPECT_TRUE(status.finished()) << status.summary();
  EXPECT_EQ(status.summary(), "matched 4 of 4, 1 divergence, finished");
  ASSERT_TRUE(client_->Close(port).ok());
  ASSERT_TRUE(WaitDelivered(port));

  // The replay's own transcript: the same tx and rx, plus what diverged.
  std::vector<Line> expected = Io(original);
  expected.insert(
      expected.end() - 2,
      {{"tx", "VOLT 6\n"},
       {"event", absl::StrCat("replay divergence: sent \"VOLT "
                              "6\\n\" where session ",
                              recorded, " has \"VOLT 5\\n\" (message ", volt_message_id, ")")}});
  EXPECT_EQ(Io(Transcript(replay_session), "replay divergence"), expected);
}

TEST_F(PtyReplayTest, AnExportImportedBackReplaysAndBadReplaysAreRefusedByName) {
  ASSERT_NE(session_->Start(), 0) << "labgate-session did not start";
  StartSerial(session_->address());
  const std::string recorded = RecordBench();
  ASSERT_FALSE(recorded.empty());

  session_v1::ExportSessionRequest export_request;
  export_request.set_session_id(recorded);
  session_v1::ExportSessionResponse exported;
  {
    grpc::ClientContext context;
    ASSERT_TRUE(sessions_->ExportSession(&context, export_request, &exported).ok());
  }
  session_v1::ImportSessionRequest import_request;
  *import_request.mutable_export_() = exported.export_();
  session_v1::ImportSessionResponse imported;
  {
    grpc::ClientContext context;
    ASSERT_TRUE(sessions_->ImportSession(&context, import_request, &imported).ok());
  }
  const std::string port = absl::StrCat("replay://", imported.session().id(), "?speed=0");
  ASSERT_TRUE(client_->Open(port, 9600, "\n").ok());
  v1::WaitForResponse banner;
  ASSERT_TRUE(WaitFor(port, "BOOT OK\n", &banner).ok());
  EXPECT_LT(banner.latency_ms(), 100) << "speed 0 plays the banner at once";
  v1::QueryResponse reply;
  ASSERT_TRUE(client_->Query(port, "*IDN?", 2000, &reply).ok());
  EXPECT_EQ(reply.data(), recorded_idn_);
  ASSERT_TRUE(client_->Write(port, "STALL 100").ok());
  ASSERT_TRUE(client_->Query(port, "MEAS?", 2000, &reply).ok());
  EXPECT_LT(reply.latency_ms(), 50) << "speed 0 answers at once";
  ASSERT_TRUE(client_->Close(port).ok());

  grpc::Status missing = client_->Open("replay://no-such-session", 9600, "\n");
  EXPECT_EQ(missing.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(missing.error_message(), "no session no-such-session to replay");

  const std::string empty = CreateSession();
  grpc::Status nothing = client_->Open("replay://" + empty, 9600, "\n");
  EXPECT_EQ(nothing.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_TRUE(absl::StrContains(nothing.error_message(), "has no tx or rx records"))
      << nothing.error_message();

  grpc::Status bad_speed = client_->Open("replay://" + recorded + "?speed=-2", 9600, "\n");
  EXPECT_EQ(bad_speed.error_code(), grpc::StatusCode::INVALID_ARGUMENT);

  ASSERT_TRUE(client_->Open("loop://plain", 9600, "\n").ok());
  v1::ReplayStatusResponse status;
  grpc::Status not_replay = ReplayStatus("loop://plain", &status);
  EXPECT_EQ(not_replay.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_EQ(not_replay.error_message(), "port loop://plain is no replay:// port");
  grpc::Status closed = ReplayStatus("replay://" + recorded, &status);
  EXPECT_EQ(closed.error_code(), grpc::StatusCode::NOT_FOUND) << "no such port open";

  // A recording longer than a reader takes is refused whole, not cut.
  SessionReader reader;
  reader.SetChannel(testing::QuickReconnectChannel(session_->address()));
  absl::StatusOr<std::vector<session_v1::Message>> too_long =
      reader.ReadAll(recorded, std::chrono::seconds(10), /*max_messages=*/2);
  EXPECT_TRUE(absl::IsResourceExhausted(too_long.status())) << too_long.status();
  EXPECT_TRUE(absl::StrContains(too_long.status().message(), "more than 2 messages"));

  // Past the end of the recording: every write is a divergence with nothing expected.
  const std::string again = "replay://" + recorded + "?speed=0";
  ASSERT_TRUE(client_->Open(again, 9600, "\n").ok()) << "the service still serves";
  for (const char* command : {"*IDN?", "STALL 100", "MEAS?", "VOLT 5"}) {
    ASSERT_TRUE(client_->Write(again, command).ok()) << command;
  }
  grpc::Status beyond = client_->Write(again, "*IDN?");
  EXPECT_EQ(beyond.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_TRUE(absl::StrContains(beyond.error_message(), "after every tx of session"))
      << beyond.error_message();
}

}  // namespace
}  // namespace labgate::serial
