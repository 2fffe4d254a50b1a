// loop:// — a built-in port that reads back what was written, for demos and the
// gateway's tests. Each opened loopback (loop://, loop://a, ...) has its own buffer. Its
// control lines are those of a loopback plug: RTS comes back as CTS, DTR as DSR and DCD.
#pragma once

#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "serial-service/backends/serial_port.h"

namespace labgate::serial {

class LoopbackPort : public SerialPort {
 public:
  // Bytes written but not yet read back, beyond which writes are refused.
  static constexpr size_t kCapacity = 1 << 20;

  LoopbackPort();
  ~LoopbackPort() override;
  LoopbackPort(const LoopbackPort&) = delete;
  LoopbackPort& operator=(const LoopbackPort&) = delete;

  absl::Status Open() override;
  absl::Status Configure(const PortSettings& settings) override;
  absl::StatusOr<size_t> Read(char* buffer, size_t max, int64_t timeout_ms) override;
  absl::StatusOr<size_t> Write(const std::string& data, int64_t timeout_ms) override;
  void Close() override;
  std::string backend_name() const override { return "loopback"; }
  // An eventfd that is readable while bytes wait to be read back.
  int ReadableFd() const override { return readable_fd_; }
  absl::StatusOr<ModemSignals> GetSignals() override;
  absl::Status SetSignals(std::optional<bool> dtr, std::optional<bool> rts) override;
  // A break on a plug reaches nothing: it only takes its time.
  absl::Status SendBreak(int64_t ms) override;

 private:
  absl::Status CheckOpen() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Makes readable_fd_ match whether buffer_ holds anything.
  void UpdateReadable() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const int readable_fd_;

  absl::Mutex mu_;
  std::string buffer_ ABSL_GUARDED_BY(mu_);
  bool open_ ABSL_GUARDED_BY(mu_) = false;
  bool dtr_ ABSL_GUARDED_BY(mu_) = false;
  bool rts_ ABSL_GUARDED_BY(mu_) = false;
  bool signalled_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace labgate::serial
