#include "gateway/transport/stdio_transport.h"

#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <functional>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace labgate::gateway {
namespace {

using namespace std::chrono_literals;
using ::testing::ElementsAre;

class Pipe {
 public:
  Pipe() {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) ADD_FAILURE() << "pipe2 failed";
    read_fd_ = fds[0];
    write_fd_ = fds[1];
  }
  ~Pipe() {
    CloseRead();
    CloseWrite();
  }
  int read_fd() const { return read_fd_; }
  int write_fd() const { return write_fd_; }
  void CloseRead() {
    if (read_fd_ >= 0) close(read_fd_);
    read_fd_ = -1;
  }
  void CloseWrite() {
    if (write_fd_ >= 0) close(write_fd_);
    write_fd_ = -1;
  }
  // The smallest pipe buffer (one page), so that backpressure shows quickly.
  void Shrink() { fcntl(write_fd_, F_SETPIPE_SZ, 4096); }

 private:
  int read_fd_ = -1;
  int write_fd_ = -1;
};

void WriteAllTo(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    ASSERT_GT(n, 0) << "write failed: " << errno;
    data.remove_prefix(static_cast<size_t>(n));
  }
}

// Reads until `want` bytes arrived or the deadline passed.
std::string ReadBytes(int fd, size_t want, std::chrono::milliseconds timeout = 5000ms) {
  std::string out;
  auto deadline = std::chrono::steady_clock::now() + timeout;
  char buf[65536];
  while (out.size() < want) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
    ssize_t n = read(fd, buf, std::min(sizeof(buf), want - out.size()));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  return out;
}

std::string Cl(std::string_view payload) {
  return "Content-Length: " + std::to_string(payload.size()) + "\r\n\r\n" + std::string(payload);
}

// What the transport reported on its reader thread.
class Events {
 public:
  void Frame(const gateway::Frame& f) {
    std::lock_guard<std::mutex> lock(mu_);
    log_.push_back((f.framing == Framing::kNewline ? "nl:" : "cl:") + f.payload);
    ++frames_;
    cv_.notify_all();
  }
  void Error(const FrameError& e) {
    std::lock_guard<std::mutex> lock(mu_);
    log_.push_back("error:" + e.message);
    cv_.notify_all();
  }
  void Eof() {
    std::lock_guard<std::mutex> lock(mu_);
    log_.push_back("eof");
    cv_.notify_all();
  }
  bool WaitForLog(size_t entries, std::chrono::milliseconds timeout = 5000ms) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, timeout, [&] { return log_.size() >= entries; });
  }
  bool WaitForFrames(size_t frames, std::chrono::milliseconds timeout = 10000ms) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, timeout, [&] { return frames_ >= frames; });
  }
  std::vector<std::string> log() const {
    std::lock_guard<std::mutex> lock(mu_);
    return log_;
  }
  size_t frames() const {
    std::lock_guard<std::mutex> lock(mu_);
    return frames_;
  }

 private:
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::string> log_;
  size_t frames_ = 0;
};

// Four threads send lines of many sizes (some above PIPE_BUF) at once.
void CheckConcurrentSendsAreNeverInterleaved(StdioTransport& transport, int read_fd, bool direct) {
  constexpr int kThreads = 4;
  constexpr int kPerThread = 300;
  std::string received;
  std::vector<std::string> expected_lines;
  for (int t = 0; t < kThreads; ++t) {
    for (int i = 0; i < kPerThread; ++i) {
      expected_lines.push_back(std::to_string(t) + ":" + std::to_string(i) + ":" +
                               std::string(static_cast<size_t>((i * 37) % 9000), 'a' + t));
    }
  }
  size_t total = 0;
  for (const std::string& line : expected_lines) total += line.size() + 1;
  std::thread drain([&] { received = ReadBytes(read_fd, total, 20s); });
  std::vector<std::thread> senders;
  senders.reserve(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    senders.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        std::string line =
            expected_lines[static_cast<size_t>(t) * kPerThread + static_cast<size_t>(i)];
        // Mixed, so that direct writes and the writer thread's interleave.
        if (direct && i % 3 != 0) {
          transport.SendDirect(Framing::kNewline, std::move(line));
        } else {
          transport.Send(Framing::kNewline, std::move(line));
        }
      }
    });
  }
  for (std::thread& s : senders) s.join();
  drain.join();
  ASSERT_EQ(received.size(), total);
  // Every line arrives whole, and each thread's lines keep their order.
  std::vector<int> next(kThreads, 0);
  size_t pos = 0;
  while (pos < received.size()) {
    size_t end = received.find('\n', pos);
    ASSERT_NE(end, std::string::npos);
    std::string line = received.substr(pos, end - pos);
    int t = line[0] - '0';
    ASSERT_GE(t, 0);
    ASSERT_LT(t, kThreads);
    EXPECT_EQ(line, expected_lines[static_cast<size_t>(t * kPerThread + next[t])]);
    ++next[t];
    pos = end + 1;
  }
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(next[t], kPerThread);
}

// A transport over two real pipes whose frames are recorded and, optionally, answered.
class StdioTransportTest : public ::testing::Test {
 protected:
  // `reply` runs for every frame on the reader thread; by default it echoes "echo:<payload>"
  // in the frame's own framing.
  void StartTransport(StdioTransport::Options options = {},
                      std::function<void(StdioTransport&, const Frame&)> reply = nullptr) {
    if (options.input_fd == 0) options.input_fd = in_.read_fd();
    if (options.output_fd == 1) options.output_fd = out_.write_fd();
    if (!reply) {
      reply = [](StdioTransport& t, const Frame& f) { t.Send(f.framing, "echo:" + f.payload); };
    }
    StdioTransport::Callbacks callbacks;
    callbacks.on_frame = [this, reply](const Frame& f) {
      reply(*transport_, f);  // first, so that a recorded frame has its reply queued
      events_.Frame(f);
    };
    callbacks.on_error = [this](const FrameError& e) { events_.Error(e); };
    callbacks.on_eof = [this] { events_.Eof(); };
    transport_ = std::make_unique<StdioTransport>(options, std::move(callbacks));
    transport_->Start();
  }

  Pipe in_;
  Pipe out_;
  Events events_;
  std::unique_ptr<StdioTransport> transport_;
};

TEST_F(StdioTransportTest, RoundTripAnswersInTheClientsFraming) {
  StartTransport();
  WriteAllTo(in_.write_fd(), "[1]\n" + Cl("[2]") + "{\"\xC3\xA9\":3}\r\n");
  const std::string expected = "echo:[1]\n" + Cl("echo:[2]") + "echo:{\"\xC3\xA9\":3}\n";
  EXPECT_EQ(ReadBytes(out_.read_fd(), expected.size()), expected);
  ASSERT_TRUE(events_.WaitForLog(3));
  EXPECT_THAT(events_.log(), ElementsAre("nl:[1]", "cl:[2]", "nl:{\"\xC3\xA9\":3}"));
}

TEST_F(StdioTransportTest, PreservesOrderOfManyMessages) {
  StartTransport();
  std::string input;
  std::string expected;
  for (int i = 0; i < 3000; ++i) {
    std::string payload = "{\"n\":" + std::to_string(i) + "}";
    input += (i % 3 == 0) ? Cl(payload) : payload + "\n";
    expected += (i % 3 == 0) ? Cl("echo:" + payload) : "echo:" + payload + "\n";
  }
  std::thread writer([&] { WriteAllTo(in_.write_fd(), input); });
  EXPECT_EQ(ReadBytes(out_.read_fd(), expected.size()), expected);
  writer.join();
}

TEST_F(StdioTransportTest, SignalsInterruptingPollReadAndWriteAreRetried) {
  // A handler without SA_RESTART makes blocking calls fail with EINTR.
  struct sigaction action = {};
  struct sigaction previous = {};
  action.sa_handler = [](int) {};
  sigemptyset(&action.sa_mask);
  ASSERT_EQ(sigaction(SIGUSR1, &action, &previous), 0);
  StartTransport();
  std::atomic<bool> signalling{true};
  std::thread signaller([&] {
    while (signalling) {
      kill(getpid(), SIGUSR1);
      std::this_thread::sleep_for(100us);
    }
  });
  std::string input;
  std::string expected;
  for (int i = 0; i < 2000; ++i) {
    std::string payload =
        "[" + std::to_string(i) + "," + std::string(static_cast<size_t>(i % 700), 's') + "]";
    input += payload + "\n";
    expected += "echo:" + payload + "\n";
  }
  std::thread writer([&] {
    for (size_t pos = 0; pos < input.size(); pos += 1000) {
      WriteAllTo(in_.write_fd(), std::string_view(input).substr(pos, 1000));
    }
  });
  EXPECT_EQ(ReadBytes(out_.read_fd(), expected.size(), 20s), expected);
  writer.join();
  signalling = false;
  signaller.join();
  transport_.reset();
  sigaction(SIGUSR1, &previous, nullptr);
}

TEST_F(StdioTransportTest, EndOfInputFlushesTheLastMessageThenCallsOnEof) {
  StartTransport();
  WriteAllTo(in_.write_fd(), "[1]\n[2]");
  in_.CloseWrite();
  ASSERT_TRUE(events_.WaitForLog(3));
  EXPECT_THAT(events_.log(), ElementsAre("nl:[1]", "nl:[2]", "eof"));
}

TEST_F(StdioTransportTest, FrameErrorsAreReportedAndReadingContinues) {
  StdioTransport::Options options;
  options.max_message_bytes = 16;
  StartTransport(options);
  WriteAllTo(in_.write_fd(), std::string(100, 'x') + "\n[1]\n");
  ASSERT_TRUE(events_.WaitForLog(2));
  EXPECT_THAT(events_.log(),
              ElementsAre("error:message of 100 bytes exceeds the 16-byte limit", "nl:[1]"));
}

TEST_F(StdioTransportTest, TenMegabyteLinesAreRefusedAndServingContinues) {
  StartTransport();  // the default 4 MiB limit
  std::thread writer([&] {
    WriteAllTo(in_.write_fd(), std::string(10 * 1024 * 1024, 'x') + "\n[1]\n");
    WriteAllTo(in_.write_fd(),
               "Content-Length: 10485760\r\n\r\n" + std::string(10 * 1024 * 1024, 'y') + Cl("[2]"));
  });
  ASSERT_TRUE(events_.WaitForLog(4, 20s));
  writer.join();
  EXPECT_THAT(
      events_.log(),
      ElementsAre("error:message of 10485760 bytes exceeds the 4194304-byte limit", "nl:[1]",
                  "error:message of 10485760 bytes exceeds the 4194304-byte limit", "cl:[2]"));
  const std::string expected = "echo:[1]\n" + Cl("echo:[2]");
  EXPECT_EQ(ReadBytes(out_.read_fd(), expected.size()), expected);
}

TEST_F(StdioTransportTest, ACallbackThatThrowsDoesNotStopTheReader) {
  StartTransport({}, [](StdioTransport& t, const Frame& f) {
    if (f.payload == "[throw]") throw std::runtime_error("boom");
    t.Send(f.framing, f.payload);
  });
  WriteAllTo(in_.write_fd(), "[throw]\n[1]\n");
  EXPECT_EQ(ReadBytes(out_.read_fd(), 4), "[1]\n");
}

TEST_F(StdioTransportTest, FlushWaitsUntilEverythingIsWritten) {
  StartTransport();
  std::string received;
  const std::string chunk(1000, 'z');
  std::thread drain([&] { received = ReadBytes(out_.read_fd(), 1001 * 1000); });
  for (int i = 0; i < 1000; ++i) transport_->Send(Framing::kNewline, chunk);
  EXPECT_TRUE(transport_->Flush(10s));
  EXPECT_EQ(transport_->queued_output_bytes(), 0u);
  drain.join();
  EXPECT_EQ(received.size(), 1001u * 1000);
}

TEST_F(StdioTransportTest, FlushTimesOutWhileOutputIsNotRead) {
  out_.Shrink();
  StartTransport();
  transport_->Send(Framing::kNewline, std::string(100000, 'q'));
  auto start = std::chrono::steady_clock::now();
  EXPECT_FALSE(transport_->Flush(100ms));
  EXPECT_GE(std::chrono::steady_clock::now() - start, 100ms);
  EXPECT_GT(transport_->queued_output_bytes(), 0u);
  // Once the client reads, it completes.
  std::thread drain([&] { ReadBytes(out_.read_fd(), 100001); });
  EXPECT_TRUE(transport_->Flush(10s));
  drain.join();
}

TEST_F(StdioTransportTest, BackpressureStopsReadingUntilOutputDrains) {
  in_.Shrink();
  out_.Shrink();
  StdioTransport::Options options;
  options.output_high_watermark = 16 * 1024;
  // Every request is answered with 8 KiB that nobody reads yet.
  StartTransport(options, [](StdioTransport& t, const Frame&) {
    t.Send(Framing::kNewline, std::string(8 * 1024, 'r'));
  });

  // Feed requests without blocking until the input pipe stays full.
  ASSERT_EQ(fcntl(in_.write_fd(), F_SETFL, O_NONBLOCK), 0);
  size_t lines_written = 0;
  uint64_t bytes_written = 0;
  auto last_progress = std::chrono::steady_clock::now();
  while (std::chrono::steady_clock::now() - last_progress < 500ms) {
    std::string line = "[" + std::to_string(lines_written) + "]\n";
    ssize_t n = write(in_.write_fd(), line.data(), line.size());
    if (n == static_cast<ssize_t>(line.size())) {
      ++lines_written;
      bytes_written += line.size();
      last_progress = std::chrono::steady_clock::now();
    } else {
      ASSERT_LT(n, 0);  // pipe writes this small are all or nothing
      ASSERT_EQ(errno, EAGAIN);
      std::this_thread::sleep_for(1ms);
    }
  }
  // The reader has stopped: input is left unread and no further requests arrive.
  const size_t frames_before = events_.frames();
  const uint64_t read_before = transport_->input_bytes_read();
  std::this_thread::sleep_for(200ms);
  EXPECT_EQ(events_.frames(), frames_before);
  EXPECT_EQ(transport_->input_bytes_read(), read_before);
  EXPECT_LT(read_before, bytes_written);
  EXPECT_GT(transport_->queued_output_bytes(), options.output_high_watermark);

  // Once the client reads its replies, the reader resumes and every request is served.
  std::atomic<bool> draining{true};
  std::thread drain([&] {
    char buf[65536];
    while (draining) {
      pollfd p{out_.read_fd(), POLLIN, 0};
      if (poll(&p, 1, 50) > 0 && read(out_.read_fd(), buf, sizeof(buf)) <= 0) break;
    }
  });
  EXPECT_TRUE(events_.WaitForFrames(lines_written, 20s));
  EXPECT_EQ(events_.frames(), lines_written);
  EXPECT_EQ(transport_->input_bytes_read(), bytes_written);
  EXPECT_TRUE(transport_->Flush(20s));
  draining = false;
  drain.join();
}

TEST_F(StdioTransportTest, WritingToAClosedPipeDoesNotCrash) {
  // SIGPIPE keeps its default action here: a write that raised it would kill the test.
  StartTransport();
  out_.CloseRead();
  transport_->Send(Framing::kNewline, "[1]");
  auto deadline = std::chrono::steady_clock::now() + 5s;
  while (!transport_->output_failed() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(1ms);
  }
  ASSERT_TRUE(transport_->output_failed());
  transport_->Send(Framing::kContentLength, "[2]");  // dropped
  EXPECT_EQ(transport_->queued_output_bytes(), 0u);
  EXPECT_FALSE(transport_->Flush(1s));
  // Input is still served.
  WriteAllTo(in_.write_fd(), "[3]\n");
  ASSERT_TRUE(events_.WaitForLog(1));
  EXPECT_THAT(events_.log(), ElementsAre("nl:[3]"));
}

TEST_F(StdioTransportTest, SendDirectWithoutIgnoredSigpipeLeavesWritingToTheWriter) {
  // SIGPIPE keeps its default action here, so a direct write to the closed pipe would kill
  // the test: SendDirect must hand the frame to the writer thread, which blocks SIGPIPE.
  StartTransport();
  out_.CloseRead();
  transport_->SendDirect(Framing::kNewline, "[1]");
  auto deadline = std::chrono::steady_clock::now() + 5s;
  while (!transport_->output_failed() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(1ms);
  }
  EXPECT_TRUE(transport_->output_failed());
  WriteAllTo(in_.write_fd(), "[2]\n");
  ASSERT_TRUE(events_.WaitForLog(1));
  EXPECT_THAT(events_.log(), ElementsAre("nl:[2]"));
}

TEST_F(StdioTransportTest, StopInterruptsABlockedReaderPromptly) {
  StartTransport();
  std::this_thread::sleep_for(20ms);
  auto start = std::chrono::steady_clock::now();
  transport_->Stop();
  transport_.reset();
  EXPECT_LT(std::chrono::steady_clock::now() - start, 1s);
  EXPECT_TRUE(events_.log().empty());  // no on_eof after Stop
}

TEST_F(StdioTransportTest, StopWaitsForACallbackInProgress) {
  std::atomic<bool> entered{false};
  std::atomic<bool> finished{false};
  StartTransport({}, [&](StdioTransport&, const Frame&) {
    entered = true;
    std::this_thread::sleep_for(200ms);
    finished = true;
  });
  WriteAllTo(in_.write_fd(), "[1]\n");
  while (!entered) std::this_thread::sleep_for(1ms);
  transport_->Stop();
  EXPECT_TRUE(finished);
  WriteAllTo(in_.write_fd(), "[2]\n");
  std::this_thread::sleep_for(50ms);
  EXPECT_THAT(events_.log(), ElementsAre("nl:[1]"));
}

TEST_F(StdioTransportTest, StopFromInsideACallbackEndsDelivery) {
  StartTransport({}, [](StdioTransport& t, const Frame& f) {
    if (f.payload == "[stop]") t.Stop();
  });
  WriteAllTo(in_.write_fd(), "[1]\n[stop]\n[2]\n");
  ASSERT_TRUE(events_.WaitForLog(2));
  std::this_thread::sleep_for(50ms);
  EXPECT_THAT(events_.log(), ElementsAre("nl:[1]", "nl:[stop]"));
  in_.CloseWrite();
  std::this_thread::sleep_for(20ms);
  EXPECT_EQ(events_.log().size(), 2u);  // no on_eof after Stop
}

TEST_F(StdioTransportTest, StopKeepsWritingOutput) {
  StartTransport();
  transport_->Stop();
  transport_->Send(Framing::kNewline, "[late]");
  EXPECT_EQ(ReadBytes(out_.read_fd(), 7), "[late]\n");
  WriteAllTo(in_.write_fd(), "[ignored]\n");
  std::this_thread::sleep_for(50ms);
  EXPECT_TRUE(events_.log().empty());
}

TEST_F(StdioTransportTest, DestructorDoesNotHangOnOutputNobodyReads) {
  out_.Shrink();
  StdioTransport::Options options;
  options.shutdown_drain_timeout = 100ms;
  StartTransport(options);
  transport_->Send(Framing::kNewline, std::string(1 << 20, 'w'));
  auto start = std::chrono::steady_clock::now();
  transport_.reset();
  EXPECT_LT(std::chrono::steady_clock::now() - start, 2s);
}

TEST_F(StdioTransportTest, DestructorWritesQueuedOutput) {
  StartTransport();
  for (int i = 0; i < 100; ++i) transport_->Send(Framing::kNewline, std::to_string(i));
  std::string expected;
  for (int i = 0; i < 100; ++i) expected += std::to_string(i) + "\n";
  std::thread drain([&] { EXPECT_EQ(ReadBytes(out_.read_fd(), expected.size()), expected); });
  transport_.reset();
  drain.join();
}

TEST_F(StdioTransportTest, SendBeforeStartIsWrittenOnStart) {
  StdioTransport::Options options;
  options.input_fd = in_.read_fd();
  options.output_fd = out_.write_fd();
  StdioTransport transport(options, {});
  transport.Send(Framing::kNewline, "[early]");
  EXPECT_EQ(transport.queued_output_bytes(), 8u);
  transport.Start();
  EXPECT_EQ(ReadBytes(out_.read_fd(), 8), "[early]\n");
  EXPECT_TRUE(transport.Flush(5s));
  transport.Stop();
}

TEST_F(StdioTransportTest, ConcurrentSendsAreNeverInterleaved) {
  StartTransport();
  CheckConcurrentSendsAreNeverInterleaved(*transport_, out_.read_fd(), /*direct=*/false);
}

// With SIGPIPE ignored (as labgate's main does) and a pipe for output, a small frame
// sent with SendDirect() while nothing is queued is written by the sending thread itself.
class StdioTransportDirectWriteTest : public StdioTransportTest {
 protected:
  void SetUp() override { previous_ = signal(SIGPIPE, SIG_IGN); }
  void TearDown() override {
    // Stop() first: it waits for a callback still running (one that already answered), so
    // the callbacks' reads of transport_ happen before reset() clears it.
    if (transport_) transport_->Stop();
    transport_.reset();
    signal(SIGPIPE, previous_);
  }
  void (*previous_)(int) = SIG_DFL;
};

TEST_F(StdioTransportDirectWriteTest, ASmallFrameIsWrittenBeforeSendReturns) {
  StartTransport();
  fcntl(out_.read_fd(), F_SETFL, O_NONBLOCK);
  for (int i = 0; i < 100; ++i) {
    const std::string payload = "{\"n\":" + std::to_string(i) + "}";
    transport_->SendDirect(Framing::kNewline, payload);
    char buffer[64];
    const ssize_t n = read(out_.read_fd(), buffer, sizeof(buffer));
    ASSERT_EQ(n, static_cast<ssize_t>(payload.size() + 1)) << "frame " << i;
    EXPECT_EQ(std::string(buffer, static_cast<size_t>(n)), payload + "\n");
  }
  EXPECT_EQ(transport_->queued_output_bytes(), 0u);
}

TEST_F(StdioTransportDirectWriteTest, ConcurrentSendsAreNeverInterleaved) {
  StartTransport();
  CheckConcurrentSendsAreNeverInterleaved(*transport_, out_.read_fd(), /*direct=*/true);
}

TEST_F(StdioTransportDirectWriteTest, AFullPipeQueuesTheRestInOrder) {
  out_.Shrink();
  StartTransport();
  // Far more than the pipe holds, sent while nobody reads: the first frames are written
  // at once, the rest wait for the writer thread, and all arrive in order.
  std::string expected;
  for (int i = 0; i < 200; ++i) {
    std::string line = std::to_string(i) + ":" + std::string(static_cast<size_t>(i % 7) * 150, 'x');
    transport_->SendDirect(Framing::kNewline, line);
    expected += line + "\n";
  }
  EXPECT_GT(transport_->queued_output_bytes(), 0u);
  EXPECT_EQ(ReadBytes(out_.read_fd(), expected.size(), 10s), expected);
  EXPECT_TRUE(transport_->Flush(5s));
}

TEST_F(StdioTransportDirectWriteTest, AClosedPipeFailsTheOutputAtOnce) {
  StartTransport();
  out_.CloseRead();
  transport_->SendDirect(Framing::kNewline, "[1]");
  EXPECT_TRUE(transport_->output_failed());    // no waiting: the sending thread wrote
  transport_->Send(Framing::kNewline, "[2]");  // dropped
  EXPECT_EQ(transport_->queued_output_bytes(), 0u);
  WriteAllTo(in_.write_fd(), "[3]\n");
  ASSERT_TRUE(events_.WaitForLog(1));
  EXPECT_THAT(events_.log(), ElementsAre("nl:[3]"));
}

// Output to a SOCK_SEQPACKET socket keeps each write() as one record, so the number of writes
// the transport made is visible to the reader.
class SeqPacketOutput {
 public:
  SeqPacketOutput() {
    int fds[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, fds) != 0) {
      ADD_FAILURE() << "socketpair failed";
    }
    read_fd_ = fds[0];
    write_fd_ = fds[1];
  }
  ~SeqPacketOutput() {
    close(read_fd_);
    close(write_fd_);
  }
  int write_fd() const { return write_fd_; }
  // The next record, or "" when none came within the timeout.
  std::string NextWrite(std::chrono::milliseconds timeout = 5000ms) {
    pollfd p{read_fd_, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(timeout.count())) != 1) return "";
    std::string record(256 * 1024, '\0');
    const ssize_t n = recv(read_fd_, record.data(), record.size(), 0);
    record.resize(n > 0 ? static_cast<size_t>(n) : 0);
    return record;
  }

 private:
  int read_fd_ = -1;
  int write_fd_ = -1;
};

TEST_F(StdioTransportDirectWriteTest, RepliesToRequestsReadTogetherLeaveInOneWrite) {
  SeqPacketOutput output;
  StdioTransport::Options options;
  options.output_fd = output.write_fd();
  StartTransport(options, [](StdioTransport& t, const Frame& f) {
    t.SendDirect(f.framing, "echo:" + f.payload);
  });
  // One write of four requests arrives in one read: four replies, one write.
  WriteAllTo(in_.write_fd(), "[1]\n[2]\n[3]\n[4]\n");
  EXPECT_EQ(output.NextWrite(), "echo:[1]\necho:[2]\necho:[3]\necho:[4]\n");
  // A request alone is answered alone, as before.
  ASSERT_TRUE(events_.WaitForFrames(4));
  WriteAllTo(in_.write_fd(), "[5]\n");
  EXPECT_EQ(output.NextWrite(), "echo:[5]\n");
  WriteAllTo(in_.write_fd(), "[6]\n");
  EXPECT_EQ(output.NextWrite(), "echo:[6]\n");
}

TEST_F(StdioTransportDirectWriteTest, ManyRequestsReadTogetherHaveTheFirstHalfAnsweredHalfway) {
  // A pipelining client sent sixteen requests in one write. The replies to the first eight go
  // out when the reader reaches the ninth, so the client can work on them meanwhile; the rest
  // go out together at the end of the read. Replies that fill less than a pipe page by then
  // are not worth a write of their own.
  SeqPacketOutput output;
  StdioTransport::Options options;
  options.output_fd = output.write_fd();
  const std::string filler(1000, 'x');  // eight such replies fill more than a pipe page
  StartTransport(options, [&](StdioTransport& t, const Frame& f) {
    const bool large = f.payload < "[50]";
    t.SendDirect(f.framing, large ? f.payload + filler : "echo:" + f.payload);
  });
  // Requests of equal lengths: the ninth is the first to end past the middle of the read.
  std::string large_requests;
  std::string first_half;
  std::string second_half;
  std::string small_requests;
  std::string small_replies;
  for (int i = 10; i < 26; ++i) {
    const std::string request = "[" + std::to_string(i) + "]";
    large_requests += request + "\n";
    (i < 18 ? first_half : second_half) += request + filler + "\n";
    small_requests += "[" + std::to_string(i + 50) + "]\n";
    small_replies += "echo:[" + std::to_string(i + 50) + "]\n";
  }
  WriteAllTo(in_.write_fd(), large_requests);
  EXPECT_EQ(output.NextWrite(), first_half);
  EXPECT_EQ(output.NextWrite(), second_half);
  ASSERT_TRUE(events_.WaitForFrames(16));
  WriteAllTo(in_.write_fd(), small_requests);
  EXPECT_EQ(output.NextWrite(), small_replies);
}

TEST_F(StdioTransportDirectWriteTest, TheReplyToAReadsLastRequestLeavesBeforeItsHandlerReturns) {
  // The reply to the last request of a read goes out (with the replies held before it) as
  // soon as it is sent, not when its handler returns: what a handler does after answering
  // (tearing its call down) is not in the client's wait.
  SeqPacketOutput output;
  StdioTransport::Options options;
  options.output_fd = output.write_fd();
  std::mutex mutex;
  std::vector<std::string> seen_by_handlers;  // what had been written when each handler ended
  StartTransport(options, [&](StdioTransport& t, const Frame& f) {
    t.SendDirect(f.framing, "echo:" + f.payload);
    const std::string written = output.NextWrite(0ms);
    const std::lock_guard<std::mutex> lock(mutex);
    seen_by_handlers.push_back(written);
  });
  WriteAllTo(in_.write_fd(), "[1]\n[2]\n[3]\n");
  ASSERT_TRUE(events_.WaitForFrames(3));
  WriteAllTo(in_.write_fd(), "[4]\n");
  ASSERT_TRUE(events_.WaitForFrames(4));
  const std::lock_guard<std::mutex> lock(mutex);
  EXPECT_THAT(seen_by_handlers,
              ElementsAre("", "", "echo:[1]\necho:[2]\necho:[3]\n", "echo:[4]\n"));
}

// CPU time of this process (all threads) so far.
std::chrono::nanoseconds ProcessCpuTime() {
  timespec now{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
  return std::chrono::seconds(now.tv_sec) + std::chrono::nanoseconds(now.tv_nsec);
}

TEST_F(StdioTransportTest, WithAnInputSpinRequestsAreServedAndAnIdleReaderSleeps) {
  StdioTransport::Options options;
  options.input_spin = 50ms;  // long, so that spinning past it would show
  StartTransport(options);
  // Requests in quick succession (inside the spin) and after it are all answered.
  std::string expected;
  for (int i = 0; i < 20; ++i) {
    WriteAllTo(in_.write_fd(), "[" + std::to_string(i) + "]\n");
    expected += "echo:[" + std::to_string(i) + "]\n";
    if (i % 5 == 4) std::this_thread::sleep_for(60ms);
  }
  EXPECT_EQ(ReadBytes(out_.read_fd(), expected.size()), expected);
  // Once the spin is over the reader sleeps: over 500 ms of silence the process uses far
  // less CPU than a reader polling all along would (about 500 ms).
  std::this_thread::sleep_for(100ms);
  const auto before = ProcessCpuTime();
  std::this_thread::sleep_for(500ms);
  EXPECT_LT(ProcessCpuTime() - before, 150ms);
  // And it still answers.
  WriteAllTo(in_.write_fd(), "[last]\n");
  EXPECT_EQ(ReadBytes(out_.read_fd(), std::string("echo:[last]\n").size()), "echo:[last]\n");
}

TEST_F(StdioTransportTest, StopInterruptsASpinningReaderPromptly) {
  StdioTransport::Options options;
  options.input_spin = 10s;
  StartTransport(options);
  WriteAllTo(in_.write_fd(), "[1]\n");
  EXPECT_EQ(ReadBytes(out_.read_fd(), std::string("echo:[1]\n").size()), "echo:[1]\n");
  const auto start = std::chrono::steady_clock::now();
  transport_->Stop();
  transport_.reset();
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
}

TEST_F(StdioTransportDirectWriteTest, OutputFromOtherThreadsWhileRepliesAreHeldKeepsItsOrder) {
  // While the reader works through a read, a message another thread sends comes out after the
  // replies accepted before it and before those accepted after it.
  StartTransport({}, [](StdioTransport& t, const Frame& f) {
    t.SendDirect(f.framing, "echo:" + f.payload);
    std::thread other([&] { t.Send(Framing::kNewline, "after:" + f.payload); });
    other.join();
  });
  WriteAllTo(in_.write_fd(), "[1]\n[2]\n[3]\n");
  const std::string expected = "echo:[1]\nafter:[1]\necho:[2]\nafter:[2]\necho:[3]\nafter:[3]\n";
  EXPECT_EQ(ReadBytes(out_.read_fd(), expected.size()), expected);
}

TEST_F(StdioTransportDirectWriteTest, HeldRepliesBeyondABatchGoOutInOrder) {
  // Replies far larger than one batch (64 KiB) to requests read together: the full batches go
  // to the writer while the reader goes on, and nothing is lost or reordered.
  StartTransport({}, [](StdioTransport& t, const Frame& f) {
    t.SendDirect(f.framing, f.payload + ":" + std::string(30000, 'x'));
  });
  std::string input;
  std::string expected;
  for (int i = 0; i < 10; ++i) {
    input += std::to_string(i) + "\n";
    expected += std::to_string(i) + ":" + std::string(30000, 'x') + "\n";
  }
  WriteAllTo(in_.write_fd(), input);
  EXPECT_EQ(ReadBytes(out_.read_fd(), expected.size(), 10s), expected);
  EXPECT_TRUE(transport_->Flush(5s));
}

TEST(StdioTransportFilesTest, ReadsARegularFileAndWritesToARegularFile) {
  std::FILE* input = std::tmpfile();
  std::FILE* output = std::tmpfile();
  ASSERT_NE(input, nullptr);
  ASSERT_NE(output, nullptr);
  const std::string requests = "[1]\n" + Cl("[2]") + "[3]";
  ASSERT_EQ(std::fwrite(requests.data(), 1, requests.size(), input), requests.size());
  std::fflush(input);
  std::rewind(input);

  Events events;
  StdioTransport* self = nullptr;
  StdioTransport::Options options;
  options.input_fd = fileno(input);
  options.output_fd = fileno(output);
  StdioTransport::Callbacks callbacks;
  callbacks.on_frame = [&](const Frame& f) {
    events.Frame(f);
    self->Send(f.framing, f.payload);
  };
  callbacks.on_eof = [&] { events.Eof(); };
  StdioTransport transport(options, callbacks);
  self = &transport;
  transport.Start();
  ASSERT_TRUE(events.WaitForLog(4));
  EXPECT_THAT(events.log(), ElementsAre("nl:[1]", "cl:[2]", "nl:[3]", "eof"));
  ASSERT_TRUE(transport.Flush(5s));

  std::string written(256, '\0');
  ssize_t n = pread(fileno(output), written.data(), written.size(), 0);
  ASSERT_GE(n, 0);
  written.resize(static_cast<size_t>(n));
  EXPECT_EQ(written, "[1]\n" + Cl("[2]") + "[3]\n");
  std::fclose(input);
  std::fclose(output);
}

TEST(StdioTransportFilesTest, DevNullInputIsAnImmediateEof) {
  int null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
  ASSERT_GE(null_fd, 0);
  Pipe out;
  Events events;
  StdioTransport::Options options;
  options.input_fd = null_fd;
  options.output_fd = out.write_fd();
  StdioTransport::Callbacks callbacks;
  callbacks.on_eof = [&] { events.Eof(); };
  {
    StdioTransport transport(options, callbacks);
    transport.Start();
    ASSERT_TRUE(events.WaitForLog(1));
  }
  EXPECT_THAT(events.log(), ElementsAre("eof"));
  close(null_fd);
}

TEST(StdioTransportFilesTest, NonBlockingInputIsPolled) {
  Pipe in;
  Pipe out;
  ASSERT_EQ(fcntl(in.read_fd(), F_SETFL, O_NONBLOCK), 0);
  Events events;
  StdioTransport::Options options;
  options.input_fd = in.read_fd();
  options.output_fd = out.write_fd();
  StdioTransport::Callbacks callbacks;
  callbacks.on_frame = [&](const Frame& f) { events.Frame(f); };
  callbacks.on_eof = [&] { events.Eof(); };
  StdioTransport transport(options, callbacks);
  transport.Start();
  for (int i = 0; i < 5; ++i) {
    WriteAllTo(in.write_fd(), "[" + std::to_string(i) + "]\n");
    std::this_thread::sleep_for(5ms);
  }
  in.CloseWrite();
  ASSERT_TRUE(events.WaitForLog(6));
  EXPECT_THAT(events.log(), ElementsAre("nl:[0]", "nl:[1]", "nl:[2]", "nl:[3]", "nl:[4]", "eof"));
}

}  // namespace
}  // namespace labgate::gateway
