#include "gateway/transport/stdio_transport.h"

#include <poll.h>
#include <pthread.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <csignal>
#include <cstring>
#include <exception>
#include <string_view>
#include <utility>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/log.h"
#include "gateway/transport/spin_guard.h"

namespace labgate::gateway {
namespace {

constexpr size_t kReadBytes = 64 * 1024;
// The writer coalesces small queued messages into one write of up to this size.
constexpr size_t kBatchBytes = 64 * 1024;
// Replies held halfway through a read go out early only from this size (a pipe page): a
// smaller batch saves the client less than the extra write costs.
constexpr size_t kEarlyReleaseBytes = 4096;
// Regular files never block, so they take large writes.
constexpr size_t kRegularFileWriteBytes = 1024 * 1024;

int MakeEventFd() {
  int fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (fd < 0) {
    LG_LOG(kError) << "stdio transport: eventfd failed: " << std::strerror(errno);
  }
  return fd;
}

void Signal(int event_fd) {
  if (event_fd < 0) return;
  uint64_t one = 1;
  ssize_t ignored = write(event_fd, &one, sizeof(one));
  (void)ignored;  // the counter only has to become non-zero
}

// A write of at most PIPE_BUF bytes to a pipe that poll() reports writable does not block,
// so the writer never sleeps anywhere but in poll(), where the destructor can wake it.
// The transport whose reader is the current thread, so Stop() can tell it runs in a callback.
thread_local const StdioTransport* t_reading_for = nullptr;

// Only the writer thread blocks SIGPIPE, and a write to a tty may block however little
// it is; so other threads write only to pipes and sockets while SIGPIPE is ignored (as
// labgate's main does), and to regular files.
bool CanWriteFromAnyThread(int fd) {
  struct stat st;
  if (fstat(fd, &st) != 0) return false;
  if (S_ISREG(st.st_mode)) return true;
  if (!S_ISFIFO(st.st_mode) && !S_ISSOCK(st.st_mode)) return false;
  struct sigaction current;
  return sigaction(SIGPIPE, nullptr, &current) == 0 && current.sa_handler == SIG_IGN;
}

// The kernel refuses RWF_NOWAIT on a file that does not support it (older kernels' pipes).
bool NowaitUnsupported(int error) { return error == EOPNOTSUPP || error == EINVAL; }

size_t WriteChunkFor(int fd) {
  struct stat st;
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) return kRegularFileWriteBytes;
  return PIPE_BUF;
}

}  // namespace

StdioTransport::StdioTransport(Options options, Callbacks callbacks)
    : options_(options),
      callbacks_(std::move(callbacks)),
      decoder_(options.max_message_bytes),
      reader_wake_fd_(MakeEventFd()),
      writer_wake_fd_(MakeEventFd()),
      write_chunk_bytes_(WriteChunkFor(options.output_fd)) {}

StdioTransport::~StdioTransport() {
  Stop();
  bool started;
  {
    absl::MutexLock lock(&mu_);
    started = started_;
  }
  if (started && !Flush(options_.shutdown_drain_timeout)) {
    size_t left = queued_output_bytes();
    if (left > 0) {
      LG_LOG(kWarning) << "stdio transport: dropping " << left << " unwritten bytes";
    }
  }
  {
    absl::MutexLock lock(&mu_);
    writer_quit_ = true;
  }
  work_cv_.SignalAll();
  Signal(writer_wake_fd_);
  if (reader_.joinable()) reader_.join();
  if (writer_.joinable()) writer_.join();
  if (reader_wake_fd_ >= 0) close(reader_wake_fd_);
  if (writer_wake_fd_ >= 0) close(writer_wake_fd_);
}

void StdioTransport::Start() {
  {
    absl::MutexLock lock(&mu_);
    if (started_) return;
    started_ = true;
    direct_write_ = CanWriteFromAnyThread(options_.output_fd);
  }
  writer_ = std::thread(&StdioTransport::WriterLoop, this);
  reader_ = std::thread(&StdioTransport::ReaderLoop, this);
}

void StdioTransport::Stop() {
  bool first;
  {
    absl::MutexLock lock(&mu_);
    first = !stopping_;
    stopping_ = true;
  }
  if (first) {
    stop_requested_.store(true, std::memory_order_relaxed);
    progress_cv_.SignalAll();
    Signal(reader_wake_fd_);
  }
  if (t_reading_for != this) {
    absl::MutexLock wait_for_callback(&callback_mu_);
  }
}

template <typename Fn>
void StdioTransport::RunCallback(Fn&& fn) {
  absl::MutexLock lock(&callback_mu_);
  if (stopping()) return;
  // An exception escaping a callback would end the reader thread, and with it the process;
  // one bad message must not stop the others from being served.
  try {
    fn();
  } catch (const std::exception& e) {
    LG_LOG(kError) << "stdio transport: callback threw: " << e.what();
  } catch (...) {
    LG_LOG(kError) << "stdio transport: callback threw a non-standard exception";
  }
}

bool StdioTransport::stopping() const {
  absl::MutexLock lock(&mu_);
  return stopping_;
}

void StdioTransport::Send(Framing framing, std::string payload) {
  Accept(framing, std::move(payload), /*may_write_here=*/false);
}

void StdioTransport::SendDirect(Framing framing, std::string payload) {
  Accept(framing, std::move(payload), /*may_write_here=*/true);
}

void StdioTransport::Accept(Framing framing, std::string payload, bool may_write_here) {
  std::string frame;
  if (framing == Framing::kNewline) {
    payload.push_back('\n');  // avoids copying the payload
    frame = std::move(payload);
  } else {
    frame = EncodeFrame(framing, payload);
  }
  bool log_drop = false;
  bool write_here = false;
  std::string to_write;  // what this thread writes itself
  {
    absl::MutexLock lock(&mu_);
    if (output_failed_ || writer_quit_) {
      log_drop = !logged_drop_;
      logged_drop_ = true;
    } else {
      queued_bytes_ += frame.size();
      accepted_total_ += frame.size();
      if (holding_) {
        held_ += frame;
        if (held_.size() < kBatchBytes && !release_with_next_) return;
        frame = std::move(held_);
        held_.clear();
        if (release_with_next_) {
          // The read's last message answered: what was held goes out with it, written by the
          // reader as ReleaseHeld would.
          holding_ = false;
          release_with_next_ = false;
          may_write_here = may_write_here || t_reading_for == this;
        } else {
          may_write_here = false;  // a full batch goes to the writer now; holding goes on
        }
      }
      // With nothing ahead of it, a frame is written by the sending thread as far as the
      // output takes it without blocking: one thread hand-off less per reply.
      write_here = may_write_here && direct_write_ && queue_.empty() && !writing_;
      if (write_here) {
        writing_ = true;
        to_write = std::move(frame);
      } else {
        queue_.push_back(std::move(frame));
      }
    }
  }
  if (log_drop) {
    LG_LOG(kWarning) << "stdio transport: output is closed; dropping protocol messages";
    return;
  }
  if (write_here) return WriteNow(std::move(to_write));
  work_cv_.Signal();
}

void StdioTransport::WriteNow(std::string frame) {
  // Never blocks: a write with RWF_NOWAIT, or else chunks of at most write_chunk_bytes_, each
  // after poll() reported room (see WriteChunkFor). Whatever the output cannot take now goes
  // to the writer thread, so a batch of replies costs no hand-off while the client reads.
  size_t n = 0;
  int error = 0;
  while (n < frame.size()) {
    ssize_t wrote = -1;
    if (nowait_writes_.load(std::memory_order_relaxed)) {
      iovec rest = {frame.data() + n, frame.size() - n};
      wrote = pwritev2(options_.output_fd, &rest, 1, -1, RWF_NOWAIT);
      if (wrote < 0 && NowaitUnsupported(errno)) {
        nowait_writes_.store(false, std::memory_order_relaxed);
        continue;
      }
    } else {
      pollfd entry = {options_.output_fd, POLLOUT, 0};
      if (poll(&entry, 1, 0) != 1 || (entry.revents & (POLLOUT | POLLERR | POLLHUP)) == 0) break;
      wrote = write(options_.output_fd, frame.data() + n,
                    std::min(frame.size() - n, write_chunk_bytes_));
    }
    if (wrote < 0) {
      error = errno;
      break;
    }
    n += static_cast<size_t>(wrote);
  }
  const bool failed = error != 0 && error != EINTR && error != EAGAIN && error != EWOULDBLOCK;
  bool wake_writer;
  {
    absl::MutexLock lock(&mu_);
    writing_ = false;
    queued_bytes_ -= n;
    written_total_ += n;
    if (!failed && n < frame.size()) queue_.push_front(frame.substr(n));
    wake_writer = !queue_.empty();
  }
  if (failed) {
    MarkOutputFailed(error);
    return;
  }
  progress_cv_.SignalAll();
  if (wake_writer) work_cv_.Signal();
}

void StdioTransport::ReleaseHeld(bool keep_holding) {
  std::string to_write;  // what this thread writes itself
  {
    absl::MutexLock lock(&mu_);
    if (keep_holding) {
      if (!holding_ || held_.size() < kEarlyReleaseBytes) return;
    } else {
      holding_ = false;
      release_with_next_ = false;
      if (held_.empty()) return;
    }
    // Written here under the same conditions as SendDirect's.
    if (direct_write_ && queue_.empty() && !writing_) {
      writing_ = true;
      to_write.swap(held_);
    } else {
      queue_.emplace_back().swap(held_);
    }
  }
  if (!to_write.empty()) return WriteNow(std::move(to_write));
  work_cv_.Signal();
}

bool StdioTransport::Flush(std::chrono::milliseconds timeout) {
  const absl::Time deadline = absl::Now() + absl::FromChrono(timeout);
  absl::MutexLock lock(&mu_);
  const uint64_t target = accepted_total_;
  while (written_total_ + dropped_total_ < target) {
    if (progress_cv_.WaitWithDeadline(&mu_, deadline)) break;  // timed out
  }
  return written_total_ >= target;
}

size_t StdioTransport::queued_output_bytes() const {
  absl::MutexLock lock(&mu_);
  return queued_bytes_;
}

bool StdioTransport::output_failed() const {
  absl::MutexLock lock(&mu_);
  return output_failed_;
}

uint64_t StdioTransport::input_bytes_read() const {
  absl::MutexLock lock(&mu_);
  return input_bytes_read_;
}

bool StdioTransport::WaitForOutputRoom() {
  absl::MutexLock lock(&mu_);
  while (!stopping_ && queued_bytes_ > options_.output_high_watermark) progress_cv_.Wait(&mu_);
  return !stopping_;
}

void StdioTransport::ReaderLoop() {
  t_reading_for = this;
  size_t read_size = 0;           // what the read being handled brought
  bool released_halfway = false;  // its first half's replies have gone out
  auto on_frame = [this, &read_size, &released_halfway](Frame frame) {
    const size_t left = decoder_.buffered_bytes();
    if (left == 0) {
      absl::MutexLock lock(&mu_);
      release_with_next_ = holding_;
    } else if (!released_halfway && left < read_size / 2) {
      // Halfway through a read of many requests, the replies so far go out: a pipelining
      // client works on them while this thread handles the rest, instead of each waiting in
      // turn for the other's whole batch.
      released_halfway = true;
      ReleaseHeld(/*keep_holding=*/true);
    }
    if (callbacks_.on_frame) RunCallback([&] { callbacks_.on_frame(std::move(frame)); });
  };
  auto on_error = [this](FrameError error) {
    if (callbacks_.on_error) RunCallback([&] { callbacks_.on_error(std::move(error)); });
  };
  std::string buffer(kReadBytes, '\0');
  std::chrono::steady_clock::time_point spin_until;  // read without sleeping until then
  SpinGuard spin_guard;
  bool try_first = false;  // input just came: read again before polling, if RWF_NOWAIT works
  while (WaitForOutputRoom()) {
    ssize_t n = -1;
    if (nowait_reads_ && (try_first || std::chrono::steady_clock::now() < spin_until)) {
      // Spinning on the read itself finds a request one system call sooner than polling
      // first; the poll below then sees Stop()'s wake-up.
      iovec into = {buffer.data(), buffer.size()};
      n = preadv2(options_.input_fd, &into, 1, -1, RWF_NOWAIT);
      while (n < 0 && errno == EAGAIN && !stop_requested_.load(std::memory_order_relaxed) &&
             std::chrono::steady_clock::now() < spin_until) {
        n = preadv2(options_.input_fd, &into, 1, -1, RWF_NOWAIT);
      }
      if (n < 0 && NowaitUnsupported(errno)) nowait_reads_ = false;
    }
    try_first = false;
    if (n < 0) {
      pollfd fds[2] = {{options_.input_fd, POLLIN, 0}, {reader_wake_fd_, POLLIN, 0}};
      const bool spinning = !nowait_reads_ && std::chrono::steady_clock::now() < spin_until;
      const int ready = poll(fds, 2, spinning ? 0 : -1);
      if (ready < 0) {
        if (errno == EINTR) continue;
        LG_LOG(kError) << "stdio transport: poll on input failed: " << std::strerror(errno);
        break;
      }
      if (ready == 0) continue;         // still spinning, nothing yet
      if (fds[1].revents != 0) return;  // Stop()
      if (fds[0].revents == 0) continue;
      n = read(options_.input_fd, buffer.data(), buffer.size());
    }
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK) continue;
      LG_LOG(kError) << "stdio transport: reading input failed: " << std::strerror(errno);
      break;
    }
    if (n == 0) break;
    {
      absl::MutexLock lock(&mu_);
      input_bytes_read_ += static_cast<uint64_t>(n);
      holding_ = true;
    }
    read_size = static_cast<size_t>(n);
    released_halfway = false;
    decoder_.Feed(std::string_view(buffer.data(), static_cast<size_t>(n)), on_frame, on_error);
    ReleaseHeld();
    try_first = true;
    if (options_.input_spin.count() > 0 && spin_guard.MaySpin()) {
      spin_until = std::chrono::steady_clock::now() + options_.input_spin;
    }
  }
  if (stopping()) return;
  decoder_.Finish(on_frame, on_error);
  if (callbacks_.on_eof) RunCallback([&] { callbacks_.on_eof(); });
}

void StdioTransport::WriterLoop() {
  // A write to a closed pipe must come back as EPIPE rather than kill the process, whatever
  // main did with SIGPIPE. The signal is raised on the writing thread, so blocking it here
  // is enough.
  sigset_t sigpipe;
  sigemptyset(&sigpipe);
  sigaddset(&sigpipe, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &sigpipe, nullptr);

  std::string batch;
  while (true) {
    {
      absl::MutexLock lock(&mu_);
      while (!writer_quit_ && (queue_.empty() || writing_)) work_cv_.Wait(&mu_);
      if (writer_quit_) return;
      writing_ = true;
      batch = std::move(queue_.front());
      queue_.pop_front();
      while (!queue_.empty() && batch.size() + queue_.front().size() <= kBatchBytes) {
        batch += queue_.front();
        queue_.pop_front();
      }
    }
    const bool wrote = WriteAll(batch);
    absl::MutexLock lock(&mu_);
    writing_ = false;
    if (!wrote && writer_quit_) return;
  }
}

bool StdioTransport::WriteAll(std::string_view data) {
  while (!data.empty()) {
    pollfd fds[2] = {{options_.output_fd, POLLOUT, 0}, {writer_wake_fd_, POLLIN, 0}};
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      MarkOutputFailed(errno);
      return false;
    }
    if (fds[1].revents != 0) return false;  // the destructor gave up on the queue
    if (fds[0].revents == 0) continue;
    ssize_t n = write(options_.output_fd, data.data(), std::min(data.size(), write_chunk_bytes_));
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK) continue;
      MarkOutputFailed(errno);
      return false;
    }
    data.remove_prefix(static_cast<size_t>(n));
    {
      absl::MutexLock lock(&mu_);
      queued_bytes_ -= static_cast<size_t>(n);
      written_total_ += static_cast<uint64_t>(n);
    }
    progress_cv_.SignalAll();
  }
  return true;
}

void StdioTransport::MarkOutputFailed(int error) {
  {
    absl::MutexLock lock(&mu_);
    if (output_failed_) return;
    output_failed_ = true;
    logged_drop_ = true;
    dropped_total_ += queued_bytes_;
    queued_bytes_ = 0;
    queue_.clear();
    held_.clear();
  }
  progress_cv_.SignalAll();
  LG_LOG(kError) << "stdio transport: writing output failed (" << std::strerror(error)
                 << "); dropping further protocol messages";
}

}  // namespace labgate::gateway
