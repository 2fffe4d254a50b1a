// Automatic transcripts and continuous capture: a port opened with a session_id is recorded
// by the serial service itself, as bytes arrive, in a real labgate-session child process,
// which is killed and restarted mid-run. The real libserialport drives the simulated
// instrument on a pty.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <thread>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "serial-service/tests/recording/transcript_fixture.h"

namespace labgate::serial {
namespace {

using serial_harness::InstrumentMode;
using serial_harness::PtyDevice;
using testing::SerialClient;
namespace session_v1 = labgate::session::v1;

using testing::FreePort;
using testing::Line;
using testing::QuickReconnectChannel;

class PtyTranscriptTest : public testing::TranscriptFixture {};

TEST_F(PtyTranscriptTest, TheTranscriptKeepsIoOrderAcrossASessionServiceRestart) {
  ASSERT_NE(session_->Start(), 0) << "labgate-session did not start";
  StartSerial(session_->address());
  const std::string session_id = CreateSession();
  ASSERT_FALSE(session_id.empty());
  auto device = Device(InstrumentMode::kScpi);
  ASSERT_NE(device, nullptr);
  v1::OpenPortRequest open;
  open.set_port_name(device->path());
  open.set_baud_rate(115200);
  open.set_terminator("\n");
  open.set_session_id(session_id);
  v1::OpenPortResponse opened;
  ASSERT_TRUE(client_->Open(open, &opened).ok());
  EXPECT_EQ(opened.settings().session_id(), session_id);

  std::vector<Line> expected = {{"event", absl::StrCat("opened at 115200 baud for alice")}};
  auto exchange = [&](int i) {
    const std::string command = absl::StrCat("CMD-", i);
    if (i % 2 == 0) {
      v1::QueryResponse reply;
      ASSERT_TRUE(client_->Query("", command, 3000, &reply).ok());
      EXPECT_EQ(reply.data(), command);
      EXPECT_FALSE(reply.not_recorded());
    } else {
      v1::WriteResponse wrote;
      ASSERT_TRUE(client_->Write("", command, v1::ENCODING_TEXT, &wrote).ok());
      EXPECT_FALSE(wrote.not_recorded());
      v1::ReadResponse read;
      ASSERT_TRUE(client_->Read("", 3000, &read).ok());
      EXPECT_EQ(read.data(), command);
      EXPECT_FALSE(read.not_recorded());
    }
    // rx records the bytes as they arrived, terminator and all.
    expected.push_back({"tx", command + "\n"});
    expected.push_back({"rx", command + "\n"});
  };
  int i = 0;
  for (; i < 10; ++i) exchange(i);

  // The session service dies mid-run; the I/O goes on, and its records wait.
  session_->Kill();
  for (; i < 20; ++i) exchange(i);
  EXPECT_GT(Metrics(device->path()).records_pending(), 0);
  v1::GetStatusResponse status;
  ASSERT_TRUE(client_->Status(device->path(), &status).ok());
  EXPECT_GT(status.records_pending(), 0);

  ASSERT_NE(session_->Start(session_->port()), 0) << "labgate-session did not restart";
  for (; i < 30; ++i) exchange(i);
  v1::ClosePortResponse closed;
  ASSERT_TRUE(client_->Close(device->path(), &closed).ok());
  expected.push_back({"event", "closed: closed by client"});
  ASSERT_TRUE(WaitDelivered(device->path())) << "records still pending";
  EXPECT_EQ(Metrics(device->path()).records_lost(), 0);

  std::vector<session_v1::Message> messages = Transcript(session_id);
  std::vector<Line> actual;
  for (size_t n = 0; n < messages.size(); ++n) {
    const session_v1::Message& message = messages[n];
    actual.push_back({message.direction(), message.content()});
    EXPECT_EQ(message.message_id(), static_cast<int64_t>(n + 1)) << "ids are consecutive";
    EXPECT_EQ(message.role(), "device");
    EXPECT_TRUE(absl::StrContains(message.features(), "serial")) << message.features();
    EXPECT_TRUE(message.has_occurred_at()) << "every record has its time on the wire";
    // A query's reply is recorded as it returns, with its latency. (A plain read's reply may
    // have been recorded before the read came, as it arrived.)
    if (message.direction() == "rx" && absl::StartsWith(message.content(), "CMD-") &&
        std::stoi(message.content().substr(4)) % 2 == 0) {
      EXPECT_TRUE(message.has_latency_ms()) << message.content();
    }
  }
  EXPECT_EQ(actual, expected) << "exact order, no duplicates";
}

TEST_F(PtyTranscriptTest, BinaryIsRecordedAsBase64WithItsTag) {
  ASSERT_NE(session_->Start(), 0);
  StartSerial(session_->address());
  const std::string session_id = CreateSession();
  auto device = Device(InstrumentMode::kEcho);
  ASSERT_NE(device, nullptr);
  ASSERT_TRUE(client_->Open(device->path(), 115200).ok());
  // Bound later, by reconfigure.
  v1::ReconfigurePortRequest bind;
  bind.set_session_id(session_id);
  v1::ReconfigurePortResponse rebound;
  ASSERT_TRUE(client_->stub()->ReconfigurePort(client_->Context().get(), bind, &rebound).ok());
  const std::string payload("\x00\xff\x01", 3);
  ASSERT_TRUE(client_->Write("", absl::Base64Escape(payload), v1::ENCODING_BASE64).ok());
  v1::ReadResponse read;
  ASSERT_TRUE(client_->Read("", 2000, &read, v1::ENCODING_BASE64, 3).ok());
  ASSERT_TRUE(WaitDelivered(device->path()));
  std::vector<session_v1::Message> messages = Transcript(session_id);
  ASSERT_EQ(messages.size(), 3u);
  EXPECT_EQ(messages[0].direction(), "event");
  EXPECT_TRUE(absl::StartsWith(messages[0].content(), "reconfigured")) << messages[0].content();
  for (int n : {1, 2}) {
    EXPECT_EQ(messages[n].content(), absl::Base64Escape(payload));
    EXPECT_TRUE(absl::StrContains(messages[n].features(), "base64")) << messages[n].features();
  }
  EXPECT_EQ(messages[1].direction(), "tx");
  EXPECT_EQ(messages[2].direction(), "rx");
}

TEST_F(PtyTranscriptTest, AFullQueueLosesRecordsCountsThemAndTellsTheCaller) {
  const int port = FreePort();
  ASSERT_NE(port, 0);
  // The session service is not running yet: records wait in a queue of 4.
  StartSerial(absl::StrCat("127.0.0.1:", port), /*queue_limit=*/4);
  auto device = Device(InstrumentMode::kEcho);
  ASSERT_NE(device, nullptr);
  v1::OpenPortRequest open;
  open.set_port_name(device->path());
  open.set_baud_rate(115200);
  open.set_session_id("bound-before-the-service-runs");
  ASSERT_TRUE(client_->Open(open).ok());  // its "opened" event takes one place
  // Each write is recorded after the echo of the one before (captured as it arrived), so the
  // queue fills by the third write at the latest; from then on every write says so.
  int not_recorded = 0;
  bool lost_before = false;
  for (int i = 0; i < 6; ++i) {
    v1::WriteResponse wrote;
    ASSERT_TRUE(client_->Write("", absl::StrCat("W", i), v1::ENCODING_TEXT, &wrote).ok())
        << "recording never fails the I/O";
    if (i == 0) {
      EXPECT_FALSE(wrote.not_recorded());
    }
    if (i >= 3 || lost_before) {
      EXPECT_TRUE(wrote.not_recorded()) << i;
    }
    lost_before = lost_before || wrote.not_recorded();
    not_recorded += wrote.not_recorded() ? 1 : 0;
  }
  EXPECT_GE(not_recorded, 3);
  v1::GetMetricsResponse metrics = Metrics(device->path());
  // Echoes captured between calls are lost too, and counted, with no caller to tell.
  EXPECT_GE(metrics.records_lost(), not_recorded);
  EXPECT_EQ(metrics.records_pending(), 4);
  v1::GetStatusResponse status;
  ASSERT_TRUE(client_->Status(device->path(), &status).ok());
  EXPECT_EQ(status.records_lost(), metrics.records_lost());
}

TEST_F(PtyTranscriptTest, BindingWithoutASessionServiceIsRefused) {
  auto service = CreateSerialService(SerialServiceOptions{});
  ASSERT_TRUE(service.ok());
  service_ = std::move(*service);
  auto host = ServiceHost::Start("", {service_.get()});
  ASSERT_TRUE(host.ok());
  host_ = std::move(*host);
  SerialClient client(host_->InProcessChannel(), "alice");
  v1::OpenPortRequest open;
  open.set_port_name("loop://unbound");
  open.set_baud_rate(9600);
  open.set_session_id("some-session");
  grpc::Status refused = client.Open(open);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_TRUE(absl::StrContains(refused.error_message(), "--session-addr"))
      << refused.error_message();
  v1::GetStatusResponse status;
  ASSERT_TRUE(client.Status("loop://unbound", &status).ok());
  EXPECT_EQ(status.status(), v1::PORT_STATE_CLOSED) << "nothing was opened";

  // A replay reads its recording from the session service, so it is refused the same way.
  grpc::Status replay = client.Open("replay://some-session", 9600, "\n");
  EXPECT_EQ(replay.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_TRUE(absl::StrContains(replay.error_message(), "--session-addr"))
      << replay.error_message();
}

// The device speaks while nobody reads: the bytes are taken as they arrive, recorded then
// with their arrival time, and kept for the read that comes later, which records nothing
// twice.
TEST_F(PtyTranscriptTest, BytesThatArriveWithNoReadInFlightAreRecordedWithTheirArrivalTime) {
  ASSERT_NE(session_->Start(), 0);
  StartSerial(session_->address());
  const std::string session_id = CreateSession();
  auto device = Device(InstrumentMode::kScpi);
  ASSERT_NE(device, nullptr);
  OpenBound(device->path(), session_id);
  // Capture starts once the port has settled (ManagedPort::kOpenSettle, 50 ms).
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  const auto before = std::chrono::system_clock::now();
  device->Send("BOOT v1.2 ready\n");
  const auto after = std::chrono::system_clock::now();
  // No read is in flight, yet the record arrives.
  std::vector<session_v1::Message> messages;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (std::chrono::steady_clock::now() < deadline) {
    messages = Transcript(session_id);
    if (messages.size() >= 2) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_EQ(messages.size(), 2u) << "opened, then the banner";
  EXPECT_EQ(messages[1].direction(), "rx");
  EXPECT_EQ(messages[1].content(), "BOOT v1.2 ready\n");
  ASSERT_TRUE(messages[1].has_occurred_at());
  absl::Time occurred;
  std::string why;
  ASSERT_TRUE(absl::ParseTime(absl::RFC3339_full, messages[1].occurred_at(), &occurred, &why))
      << why;
  // Milliseconds, truncated: within the send, give or take the truncation and 50 ms of
  // scheduling (the bytes wait in the pty until the worker wakes).
  EXPECT_GE(occurred, absl::FromChrono(before) - absl::Milliseconds(1));
  EXPECT_LE(occurred, absl::FromChrono(after) + absl::Milliseconds(50));
  EXPECT_EQ(Status(device->path()).capture_buffered_bytes(), 16);

  v1::ReadResponse read;
  ASSERT_TRUE(client_->Read("", 1000, &read).ok());
  EXPECT_EQ(read.data(), "BOOT v1.2 ready");
  EXPECT_EQ(Status(device->path()).capture_buffered_bytes(), 0);
  ASSERT_TRUE(WaitDelivered(device->path()));
  EXPECT_EQ(Transcript(session_id).size(), 2u) << "the read records nothing twice";
}

// The harness's board is reset through its DTR line (tiocm_shim.so tells the simulator of the
// line changes libserialport makes): its boot banner is captured and recorded as it arrives,
// with no read in flight, after the event of the pulse, and waits in the capture buffer.
TEST_F(PtyTranscriptTest, ADtrPulseRebootsTheBoardAndItsBannerIsRecordedWithNoReadInFlight) {
  ASSERT_NE(session_->Start(), 0);
  StartSerial(session_->address());
  const std::string session_id = CreateSession();
  auto device = Device(InstrumentMode::kBoard);
  ASSERT_NE(device, nullptr);
  OpenBound(device->path(), session_id);
  EXPECT_EQ(device->boots(), 0) << "opening the port does not reset the board";

  v1::PulseSignalRequest pulse;
  pulse.set_port_name(device->path());
  pulse.set_signal(v1::CONTROL_LINE_DTR);
  pulse.set_level(false);
  pulse.set_ms(100);
  v1::SignalsResponse lines;
  ASSERT_TRUE(client_->stub()->PulseSignal(client_->Context().get(), pulse, &lines).ok());
  EXPECT_TRUE(lines.dtr()) << "DTR is back where it was";

  const std::string boot_output =
      absl::StrCat(serial_harness::kBoardBanner, serial_harness::kBoardLoginPrompt);
  std::vector<session_v1::Message> messages;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (std::chrono::steady_clock::now() < deadline) {
    messages = Transcript(session_id);
    if (RxBytes(messages) == boot_output) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(device->boots(), 1);
  ASSERT_EQ(RxBytes(messages), boot_output) << "recorded with no read in flight";
  ASSERT_GE(messages.size(), 3u);
  EXPECT_EQ(messages[1].direction(), "event");
  EXPECT_EQ(messages[1].content(), "DTR low for 100 ms");
  for (size_t n = 2; n < messages.size(); ++n) {
    EXPECT_EQ(messages[n].direction(), "rx");
    EXPECT_TRUE(messages[n].has_occurred_at());
    EXPECT_GE(messages[n].occurred_at(), messages[1].occurred_at()) << "after the pulse";
  }
  EXPECT_EQ(Status(device->path()).capture_buffered_bytes(),
            static_cast<int64_t>(boot_output.size()))
      << "and kept for the next read";
}

// A stream at the pty's full rate, held for up to a second per record: what is held is recorded
// once it reaches 256 KiB, so no record exceeds what the session service takes (1 MiB), and
// every byte is in the transcript.
TEST_F(PtyTranscriptTest, AStreamAtFullRateIsRecordedInRecordsTheSessionServiceTakes) {
  ASSERT_NE(session_->Start(), 0);
  CaptureOptions capture;
  capture.record_coalesce_ms = 1000;
  StartSerial(session_->address(), 10000, capture);
  const std::string session_id = CreateSession();
  auto device = Device(InstrumentMode::kScpi);
  ASSERT_NE(device, nullptr);
  OpenBound(device->path(), session_id);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // capture has started
  std::string stream;
  for (int line = 0; stream.size() < (3u << 20); ++line) {
    absl::StrAppend(&stream, "READING ", line, " 5.0001 V\n");
  }
  device->Send(stream);
  std::vector<session_v1::Message> messages;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (std::chrono::steady_clock::now() < deadline) {
    messages = Transcript(session_id);
    if (RxBytes(messages).size() >= stream.size()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_EQ(Metrics(device->path()).records_lost(), 0);
  ASSERT_EQ(RxBytes(messages).size(), stream.size());
  EXPECT_TRUE(RxBytes(messages) == stream) << "every byte, in order";
  int rx_records = 0;
  for (const session_v1::Message& message : messages) {
    if (message.direction() != "rx") continue;
    ++rx_records;
    EXPECT_LE(message.content().size(), 260u * 1024) << "record " << message.message_id();
  }
  EXPECT_GE(rx_records, 12) << "3 MiB in records of at most 256 KiB (and a read's 4 KiB)";
}

// A small capture buffer overflows: the oldest unread bytes go, the loss is counted and
// recorded as an event, and the transcript still has every byte.
TEST_F(PtyTranscriptTest, ACaptureBufferOverflowDropsTheOldestCountsItAndTheTranscriptKeepsAll) {
  ASSERT_NE(session_->Start(), 0);
  CaptureOptions capture;
  capture.buffer_bytes = 64;
  StartSerial(session_->address(), 10000, capture);
  const std::string session_id = CreateSession();
  auto device = Device(InstrumentMode::kScpi);
  ASSERT_NE(device, nullptr);
  OpenBound(device->path(), session_id);
  std::string sent;
  for (int i = 0; i < 20; ++i) {
    const std::string chunk = absl::StrCat("chunk-", i, "-", std::string(4, 'a' + i), ";");
    device->Send(chunk);
    sent += chunk;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  const int64_t expected_dropped = static_cast<int64_t>(sent.size()) - 64;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (Status(device->path()).capture_dropped_bytes() < expected_dropped &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  v1::GetStatusResponse status = Status(device->path());
  EXPECT_EQ(status.capture_dropped_bytes(), expected_dropped);
  EXPECT_EQ(status.capture_buffered_bytes(), 64);
  EXPECT_EQ(Metrics(device->path()).capture_dropped_bytes(), expected_dropped);

  v1::ReadResponse read;
  ASSERT_TRUE(client_->Read("", 1000, &read, v1::ENCODING_HEX, 1024).ok());
  const std::string kept = absl::HexStringToBytes(read.data());
  EXPECT_EQ(kept, sent.substr(sent.size() - 64)) << "the newest 64 bytes";

  ASSERT_TRUE(WaitDelivered(device->path()));
  std::vector<session_v1::Message> messages = Transcript(session_id);
  EXPECT_EQ(RxBytes(messages), sent) << "the transcript has every byte";
  int64_t reported = 0;
  for (const session_v1::Message& message : messages) {
    if (message.direction() != "event" ||
        !absl::StartsWith(message.content(), "capture buffer full: ")) {
      continue;
    }
    reported += std::stoll(message.content().substr(strlen("capture buffer full: ")));
  }
  EXPECT_EQ(reported, expected_dropped) << "every dropped byte is reported";
}

// While the device streams, commands go out: every record keeps its place, so the times on
// the wire never go backwards, and rx holds exactly what the device sent.
TEST_F(PtyTranscriptTest, TxAndStreamedRxKeepTheirOrderAndTimes) {
  ASSERT_NE(session_->Start(), 0);
  StartSerial(session_->address());
  const std::string session_id = CreateSession();
  auto device = Device(InstrumentMode::kScpi);
  ASSERT_NE(device, nullptr);
  OpenBound(device->path(), session_id);
  std::string streamed;
  std::thread stream([&] {
    for (int i = 0; i < 100; ++i) {
      const std::string reading = absl::StrCat("READING ", i, "\n");
      device->Send(reading);
      streamed += reading;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  });
  for (int i = 0; i < 10; ++i) {
    ASSERT_TRUE(client_->Write("", absl::StrCat("MARK ", i), v1::ENCODING_TEXT).ok());
    std::this_thread::sleep_for(std::chrono::milliseconds(7));
  }
  stream.join();
  // The SCPI simulator echoes each MARK, so the echoes are part of the stream too. The last
  // bytes are held for up to record_coalesce_ms before they are recorded.
  std::vector<session_v1::Message> messages;
  std::string rx;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (std::chrono::steady_clock::now() < deadline) {
    messages = Transcript(session_id);
    rx = RxBytes(messages);
    if (absl::StrContains(rx, "READING 99\n") && absl::StrContains(rx, "MARK 9\n")) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  std::string readings;
  int marks_echoed = 0;
  for (absl::string_view line : absl::StrSplit(rx, '\n', absl::SkipEmpty())) {
    if (absl::StartsWith(line, "READING ")) absl::StrAppend(&readings, line, "\n");
    if (absl::StartsWith(line, "MARK ")) ++marks_echoed;
  }
  EXPECT_EQ(readings, streamed) << "every reading, in order, none twice";
  EXPECT_EQ(marks_echoed, 10);
  int tx = 0;
  std::string last;
  for (const session_v1::Message& message : messages) {
    ASSERT_TRUE(message.has_occurred_at()) << message.content();
    EXPECT_GE(message.occurred_at(), last) << "message " << message.message_id();
    last = message.occurred_at();
    if (message.direction() == "tx") ++tx;
  }
  EXPECT_EQ(tx, 10);
  // Coalesced: far fewer rx records than the 110 lines that arrived.
  EXPECT_LT(std::count_if(messages.begin(), messages.end(),
                          [](const session_v1::Message& m) { return m.direction() == "rx"; }),
            110);
}

// Eight instruments stream at once with nobody reading: each port's transcript has all of
// its own bytes and none of the others', and nothing is dropped.
TEST_F(PtyTranscriptTest, EightPortsStreamingAtOnceAreEachRecordedWhole) {
  ASSERT_NE(session_->Start(), 0);
  StartSerial(session_->address());
  constexpr int kPorts = 8;
  std::vector<std::unique_ptr<PtyDevice>> devices;
  std::vector<std::string> sessions;
  for (int i = 0; i < kPorts; ++i) {
    devices.push_back(Device(InstrumentMode::kScpi));
    ASSERT_NE(devices.back(), nullptr);
    sessions.push_back(CreateSession());
    OpenBound(devices.back()->path(), sessions.back());
  }
  std::vector<std::string> sent(kPorts);
  std::vector<std::thread> streams;
  streams.reserve(kPorts);
  for (int i = 0; i < kPorts; ++i) {
    streams.emplace_back([&, i] {
      for (int n = 0; n < 64; ++n) {
        std::string block = absl::StrCat("port ", i, " block ", n, " ");
        block.resize(512, static_cast<char>('A' + i));
        devices[i]->Send(block);
        sent[i] += block;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
    });
  }
  for (std::thread& stream : streams) stream.join();
  for (int i = 0; i < kPorts; ++i) {
    const std::string& path = devices[i]->path();
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (Status(path).capture_buffered_bytes() < static_cast<int64_t>(sent[i].size()) &&
           std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    EXPECT_EQ(Status(path).capture_dropped_bytes(), 0);
    // The last bytes are held for up to record_coalesce_ms before they are recorded.
    std::string rx;
    while (rx.size() < sent[i].size() && std::chrono::steady_clock::now() < deadline) {
      rx = RxBytes(Transcript(sessions[i]));
      if (rx.size() < sent[i].size()) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    EXPECT_TRUE(rx == sent[i])
        << "port " << i << ": recorded " << rx.size() << " of " << sent[i].size()
        << " bytes; first difference at "
        << std::mismatch(rx.begin(), rx.end(), sent[i].begin(), sent[i].end()).first - rx.begin();
  }
}

// labgate-serial is killed (SIGKILL) while it captures a streaming instrument: everything the
// session service had acknowledged stays, in order, with no gap, and the session service goes
// on serving.
TEST_F(PtyTranscriptTest, KillingTheSerialServiceWhileItCapturesKeepsWhatWasAcknowledged) {
  ASSERT_NE(session_->Start(), 0);
  const std::string token_file = data_dir_ + "/tokens";
  {
    std::ofstream tokens(token_file);
    tokens << "alice alice-secret-token\n";
  }
  const std::string port_file = data_dir_ + "/serial.port";
  std::vector<std::string> args = {LABGATE_SERIAL_BINARY,
                                   "--listen",
                                   "127.0.0.1:0",
                                   "--port-file",
                                   port_file,
                                   "--session-addr",
                                   session_->address(),
                                   "--client-token-file",
                                   token_file,
                                   "--log-level",
                                   "warning"};
  std::vector<char*> argv;
  argv.reserve(args.size() + 1);
  for (std::string& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  pid_t serial = 0;
  ASSERT_EQ(posix_spawn(&serial, argv[0], nullptr, nullptr, argv.data(), environ), 0);
  absl::Cleanup reap = [serial] {
    kill(serial, SIGKILL);
    waitpid(serial, nullptr, 0);
  };
  int port = 0;
  const auto started = std::chrono::steady_clock::now();
  while (port == 0 && std::chrono::steady_clock::now() - started < std::chrono::seconds(15)) {
    std::ifstream in(port_file);
    std::string text;
    if (in >> text && !absl::SimpleAtoi(text, &port)) port = 0;
    if (port == 0) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_NE(port, 0) << "labgate-serial did not start";
  SerialClient client(
      grpc::CreateChannel(absl::StrCat("127.0.0.1:", port), grpc::InsecureChannelCredentials()),
      "alice", "alice-secret-token");
  sessions_ = session_v1::SessionService::NewStub(QuickReconnectChannel(session_->address()));
  const std::string session_id = CreateSession();
  auto device = Device(InstrumentMode::kScpi);
  ASSERT_NE(device, nullptr);
  v1::OpenPortRequest open;
  open.set_port_name(device->path());
  open.set_baud_rate(115200);
  open.set_session_id(session_id);
  ASSERT_TRUE(client.Open(open).ok());

  std::atomic<bool> streaming{true};
  std::string sent;
  std::thread stream([&] {
    for (int n = 0; streaming; ++n) {
      const std::string line = absl::StrCat("LINE ", n, "\n");
      device->Send(line);
      sent += line;
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  });
  // Wait until the session service has acknowledged a good part of the stream.
  std::string before_kill;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (std::chrono::steady_clock::now() < deadline &&
         !absl::StrContains(before_kill, "LINE 60\n")) {
    before_kill = RxBytes(Transcript(session_id));
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_TRUE(absl::StrContains(before_kill, "LINE 60\n")) << "no capture reached the session";
  ASSERT_EQ(kill(serial, SIGKILL), 0);
  waitpid(serial, nullptr, 0);
  std::move(reap).Cancel();
  streaming = false;
  stream.join();

  std::vector<session_v1::Message> after = Transcript(session_id);
  const std::string kept = RxBytes(after);
  EXPECT_TRUE(absl::StartsWith(kept, before_kill)) << "what was acknowledged is still there";
  EXPECT_TRUE(absl::StartsWith(sent, kept))
      << "in order, with no gap: " << kept.size() << " of " << sent.size() << " bytes";
  for (size_t n = 0; n < after.size(); ++n) {
    EXPECT_EQ(after[n].message_id(), static_cast<int64_t>(n + 1));
  }
  // The session service goes on serving.
  EXPECT_FALSE(CreateSession().empty());
}

// A named supply bound to a session: its identification, a refusal by its limits, its loss and
// its return under another path are all in the transcript, between the I/O around them.
TEST_F(PtyTranscriptTest, AnInstrumentsRefusalLossAndReturnUnderANewPathAreRecorded) {
  std::unique_ptr<PtyDevice> supply = Device(InstrumentMode::kPowerSupply);
  ASSERT_NE(supply, nullptr);
  supply->set_serial("PSU0042");
  profiles_dir_ = data_dir_ + "/profiles";
  std::filesystem::create_directory(profiles_dir_);
  std::ofstream(profiles_dir_ + "/sim-psu.json") << R"json({
    "model": "SIM-PSU",
    "match": {"probe": {"reply": "^LABGATE,SIM-PSU,(?P<serial>[^,]+),"}},
    "settings": {"baud_rate": 115200, "terminator": "\n"},
    "quantities": {"voltage": {"unit": "V", "headers": ["[SOURce#:]VOLTage[:LEVel]"]}},
    "limits": [{"name": "max-voltage", "quantity": "voltage", "max": 5}],
    "readings": {"voltage": {"command": "^VOLT\\?", "pattern": "^(?P<value>[0-9.]+)$",
                             "unit": "V"}}})json";
  const std::string link = data_dir_ + "/by-id-psu";
  std::filesystem::create_symlink(supply->path(), link);
  instruments_file_ = data_dir_ + "/instruments.json";
  std::ofstream(instruments_file_) << R"({"instruments": [{"name": "psu-2", "profile": "SIM-PSU",
      "match": {"by_path": ")" << link
                                   << R"("}}]})";
  ASSERT_NE(session_->Start(), 0) << "labgate-session did not start";
  StartSerial(session_->address());
  const std::string session_id = CreateSession();
  v1::OpenPortRequest open;
  open.set_instrument("psu-2");
  open.set_session_id(session_id);
  ASSERT_TRUE(client_->Open(open).ok());
  EXPECT_EQ(client_->Write("psu-2", "VOLT 12").error_code(), grpc::StatusCode::PERMISSION_DENIED);
  ASSERT_TRUE(client_->Write("psu-2", "VOLT 4").ok());

  supply->Disconnect();
  const auto lost_by = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (Status("psu-2").status() != v1::PORT_STATE_ERROR &&
         std::chrono::steady_clock::now() < lost_by) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  std::unique_ptr<PtyDevice> back = Device(InstrumentMode::kPowerSupply);
  ASSERT_NE(back, nullptr);
  back->set_serial("PSU0042");
  std::filesystem::remove(link);
  std::filesystem::create_symlink(back->path(), link);
  const auto back_by = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (Status("psu-2").status() != v1::PORT_STATE_OPEN &&
         std::chrono::steady_clock::now() < back_by) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  v1::QueryResponse reply;
  ASSERT_TRUE(client_->Query("psu-2", "VOLT?", 2000, &reply).ok());
  EXPECT_EQ(reply.data(), "0") << "a fresh supply: the query reached the one that came back";
  ASSERT_TRUE(WaitDelivered("psu-2"));

  std::vector<Line> lines;
  for (const session_v1::Message& message : Transcript(session_id)) {
    lines.push_back({message.direction(), message.content()});
  }
  const std::vector<Line> expected = {
      {"event", absl::StrCat("opened at 115200 baud for alice")},
      {"tx", "*IDN?\n"},
      {"rx", "LABGATE,SIM-PSU,PSU0042,1.0\n"},
      {"event", absl::StrCat("instrument psu-2 at ", supply->path(),
                             " identified: LABGATE,SIM-PSU,PSU0042,1.0")},
      {"event",
       "write refused by the instrument's limits: 12 V exceeds max-voltage (5 V) on "
       "psu-2 channel 1 (VOLT 12)"},
      {"tx", "VOLT 4\n"},
      {"event", "device lost: device disconnected"},
      {"event", absl::StrCat("device back at ", back->path())},
      {"event",
       "device back: its limits take it as reset (declared defaults; other values unknown)"},
      {"tx", "VOLT?\n"},
      {"rx", "0\n"},
      {"event", "reading voltage: 0 V"},
  };
  EXPECT_EQ(lines, expected);
}

}  // namespace
}  // namespace labgate::serial
