// The stdio transport: a reader thread decodes frames from input_fd and a writer thread
// writes queued frames to output_fd, several to a write. SendDirect() is for a reply that
// a client waits on with nothing else pending: when nothing is queued, the sending thread
// writes as much of it as the output takes at once (never blocking, see WriteNow; with
// RWF_NOWAIT where the kernel takes it, else a poll() per chunk), saving a thread hand-off; the
// writer gets only the rest. Both threads sleep only in poll(), next to an eventfd that Stop()
// and the destructor signal, so shutdown never waits on a silent peer. poll() rather than epoll
// because stdin may be a regular file or /dev/null, which epoll cannot watch.
//
// Output accepted while the reader works through one read's worth of input is held and written
// together when that input is done: a client that pipelines requests gets its replies in a few
// writes, not one write (and one wake-up of its reader) each.
//
// Backpressure: while more than output_high_watermark bytes wait to be written, the reader
// stops reading input, so a client that does not read its replies cannot grow our memory.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "gateway/transport/frame_decoder.h"
#include "gateway/transport/framing.h"

namespace labgate::gateway {

class StdioTransport {
 public:
  struct Options {
    int input_fd = 0;
    int output_fd = 1;
    size_t max_message_bytes = 4 * 1024 * 1024;
    size_t output_high_watermark = 8 * 1024 * 1024;
    // How long the destructor keeps writing queued output before it gives up on it.
    std::chrono::milliseconds shutdown_drain_timeout{2000};
    // After the work of each read, how long the reader polls the input without sleeping
    // before it sleeps: a client that sends its next request at once finds it awake, which
    // saves a wake-up on each side (bench/README.md). 0: sleep at once.
    std::chrono::microseconds input_spin{0};
  };
  struct Callbacks {  // called on the reader thread, in order
    std::function<void(Frame)> on_frame;
    std::function<void(FrameError)> on_error;
    std::function<void()> on_eof;  // end of input or a read error; not called after Stop()
  };

  StdioTransport(Options options, Callbacks callbacks);
  // Stops reading, writes what is queued (up to shutdown_drain_timeout) and joins both
  // threads. Must not run on the reader thread (that is, inside a callback).
  ~StdioTransport();
  StdioTransport(const StdioTransport&) = delete;
  StdioTransport& operator=(const StdioTransport&) = delete;

  // Starts the reader and writer threads. Only the first call has an effect.
  void Start();
  // Queues one message for the writer thread; dropped once the output has failed.
  void Send(Framing framing, std::string payload);
  // The same, but a message with nothing queued ahead of it is written by the calling thread,
  // as far as the output takes it without blocking. Order with Send() is kept.
  void SendDirect(Framing framing, std::string payload);
  // Waits until everything queued so far has been written, or the output failed, up to
  // timeout. True when it was all written.
  bool Flush(std::chrono::milliseconds timeout);
  // Stops reading. Called from outside a callback, it also waits for a callback in progress,
  // so none runs after it returns; called from inside one, it returns at once. The
  // writer keeps writing queued output, and output sent later, until destruction.
  void Stop();
  // Bytes accepted by Send and not yet written.
  size_t queued_output_bytes() const;
  // True once a write failed (EPIPE, EIO, ...); output is dropped from then on.
  bool output_failed() const;
  // Bytes read from input_fd so far.
  uint64_t input_bytes_read() const;

 private:
  void ReaderLoop();
  void WriterLoop();
  // Backpressure: waits while the output queue is above the watermark. False when stopping.
  bool WaitForOutputRoom();
  // Writes all of data; false when the output failed or the writer was told to quit.
  bool WriteAll(std::string_view data);
  void Accept(Framing framing, std::string payload, bool may_write_here);
  // Writes a frame on the calling thread, once Accept() has made it the writer; queues the
  // part not written.
  void WriteNow(std::string frame);
  // Ends holding (see held_) and writes or queues what was held. With `keep_holding`, writes
  // what was held if it fills kEarlyReleaseBytes, and holding goes on.
  void ReleaseHeld(bool keep_holding = false) ABSL_LOCKS_EXCLUDED(mu_);
  void MarkOutputFailed(int error);
  bool stopping() const ABSL_LOCKS_EXCLUDED(mu_);
  // Runs one callback unless Stop() was called; Stop() waits on callback_mu_.
  template <typename Fn>
  void RunCallback(Fn&& fn) ABSL_LOCKS_EXCLUDED(callback_mu_);

  const Options options_;
  const Callbacks callbacks_;
  FrameDecoder decoder_;  // reader thread only
  // eventfds: readable once Stop() (reader) or the destructor (writer) wants the thread out.
  int reader_wake_fd_ = -1;
  int writer_wake_fd_ = -1;
  size_t write_chunk_bytes_;
  // Whether the kernel takes RWF_NOWAIT on output_fd (writes) and input_fd (reads): a write
  // or read that cannot proceed at once then fails with EAGAIN, so no poll() is needed first.
  // Cleared the first time the kernel refuses the flag.
  std::atomic<bool> nowait_writes_{true};
  bool nowait_reads_ = true;                 // reader thread only
  std::atomic<bool> stop_requested_{false};  // stopping_, for the reader's spin without the lock
  std::thread reader_;
  std::thread writer_;

  absl::Mutex callback_mu_;  // held while a callback runs
  mutable absl::Mutex mu_;
  absl::CondVar work_cv_;      // the writer waits for output
  absl::CondVar progress_cv_;  // the reader and Flush wait for output to drain
  bool started_ ABSL_GUARDED_BY(mu_) = false;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  bool writer_quit_ ABSL_GUARDED_BY(mu_) = false;
  bool output_failed_ ABSL_GUARDED_BY(mu_) = false;
  bool logged_drop_ ABSL_GUARDED_BY(mu_) = false;
  bool direct_write_ ABSL_GUARDED_BY(mu_) = false;  // see CanWriteFromAnyThread
  bool writing_ ABSL_GUARDED_BY(mu_) = false;       // a thread is writing to output_fd
  std::deque<std::string> queue_ ABSL_GUARDED_BY(mu_);
  // While the reader feeds one read's input to the decoder, every accepted frame is appended
  // here, in order, and goes out in one piece when that input is done, or with the first
  // frame accepted once the read's last message is being handled (release_with_next_): its
  // reply then goes out before the call behind it is torn down. A read of many requests also
  // lets what was held go out halfway through (ReleaseHeld(true)).
  bool holding_ ABSL_GUARDED_BY(mu_) = false;
  bool release_with_next_ ABSL_GUARDED_BY(mu_) = false;
  std::string held_ ABSL_GUARDED_BY(mu_);
  size_t queued_bytes_ ABSL_GUARDED_BY(mu_) = 0;  // queue_ plus the batch being written
  uint64_t accepted_total_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t written_total_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t dropped_total_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t input_bytes_read_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace labgate::gateway
