#include "serial-service/recording/session_recorder.h"

#include <algorithm>
#include <chrono>
#include <random>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/log.h"
#include "common/time_format.h"
#include "serial-service/ports/data_encoding.h"
#include "serial-service/serial_metrics.h"

namespace labgate::serial {
namespace {

std::string NewInstanceId() {
  std::random_device random;
  return absl::StrCat(absl::Hex(random(), absl::kZeroPad8), absl::Hex(random(), absl::kZeroPad8));
}

bool Retryable(grpc::StatusCode code) {
  switch (code) {
    case grpc::StatusCode::UNAVAILABLE:
    case grpc::StatusCode::DEADLINE_EXCEEDED:
    case grpc::StatusCode::RESOURCE_EXHAUSTED:
    case grpc::StatusCode::ABORTED:
    case grpc::StatusCode::CANCELLED:
    case grpc::StatusCode::UNKNOWN:
    case grpc::StatusCode::INTERNAL:
      return true;
    default:
      return false;
  }
}

session::v1::AppendMessageRequest ToAppend(const IoRecord& record, const std::string& key) {
  session::v1::AppendMessageRequest request;
  request.set_session_id(record.session_id);
  request.set_role("device");
  request.set_direction(record.direction);
  request.set_idempotency_key(key);
  std::string features = absl::StrCat("serial,", record.port_name);
  if (record.direction == "event" || IsValidUtf8(record.bytes)) {
    request.set_content(record.bytes);
  } else {
    request.set_content(EncodeData(record.bytes, v1::ENCODING_BASE64).data);
    absl::StrAppend(&features, ",base64");
  }
  request.set_features(features);
  if (record.latency_ms.has_value()) request.set_latency_ms(*record.latency_ms);
  if (record.occurred_at.has_value()) request.set_occurred_at(FormatRfc3339(*record.occurred_at));
  return request;
}

}  // namespace

SessionRecorder::SessionRecorder(RecorderOptions options)
    : options_(options), instance_(NewInstanceId()) {
  thread_ = std::thread([this] { Run(); });
}

SessionRecorder::~SessionRecorder() {
  {
    absl::MutexLock lock(&mu_);
    stop_ = true;
  }
  wake_.SignalAll();
  thread_.join();
  absl::MutexLock lock(&mu_);
  std::map<std::string, int64_t> left;
  for (const Queued& queued : queue_) ++left[queued.record.port_name];
  SerialMetrics::Get().recording_queue_depth.Get().Add(-static_cast<double>(queue_.size()));
  SerialMetrics::Get().recording_lost.Get().Increment(queue_.size());
  queue_.clear();
  for (const auto& [port, count] : left) {
    counts_[port].lost += count;
    LG_LOG(kWarning) << "stopping with " << count << " record(s) of " << port
                     << " not delivered to the session service";
  }
}

void SessionRecorder::SetChannel(std::shared_ptr<grpc::Channel> channel) {
  {
    absl::MutexLock lock(&mu_);
    stub_ = channel ? std::shared_ptr<session::v1::SessionService::Stub>(
                          session::v1::SessionService::NewStub(std::move(channel)))
                    : nullptr;
  }
  wake_.SignalAll();
}

void SessionRecorder::Drain(std::chrono::milliseconds grace) {
  const absl::Time deadline = absl::Now() + absl::FromChrono(grace);
  absl::MutexLock lock(&mu_);
  while (!queue_.empty() && stub_ != nullptr) {
    if (drained_.WaitWithDeadline(&mu_, deadline)) break;  // timed out
  }
}

bool SessionRecorder::enabled() const {
  absl::MutexLock lock(&mu_);
  return stub_ != nullptr;
}

bool SessionRecorder::Enqueue(IoRecord record) {
  absl::ReleasableMutexLock lock(&mu_);
  PortCounts& counts = counts_[record.port_name];
  if (stub_ == nullptr || queue_.size() >= options_.queue_limit) {
    const int64_t lost = ++counts.lost;
    SerialMetrics::Get().recording_lost.Get().Increment();
    const char* why =
        stub_ == nullptr ? "no session service (--session-addr)" : "the recording queue is full";
    lock.Release();
    // Logged once per port and then every 1000, so a full queue does not flood stderr.
    if (lost == 1 || lost % 1000 == 0) {
      LG_LOG(kWarning) << "record of " << record.port_name << " lost: " << why << " (" << lost
                       << " lost so far)";
    }
    return false;
  }
  ++counts.pending;
  SerialMetrics::Get().recording_queue_depth.Get().Increment();
  queue_.push_back(
      {std::move(record), absl::StrCat("labgate-serial/", instance_, "/", next_sequence_++)});
  lock.Release();
  wake_.Signal();
  return true;
}

SessionRecorder::PortCounts SessionRecorder::CountsFor(const std::string& port_name) const {
  absl::MutexLock lock(&mu_);
  auto it = counts_.find(port_name);
  return it == counts_.end() ? PortCounts{} : it->second;
}

void SessionRecorder::CountLost(const std::string& port_name, int64_t count,
                                const std::string& why) {
  LG_LOG(kWarning) << "record of " << port_name << " lost: " << why;
  SerialMetrics::Get().recording_lost.Get().Increment(static_cast<uint64_t>(count));
  absl::MutexLock lock(&mu_);
  counts_[port_name].lost += count;
}

bool SessionRecorder::Deliver(const Queued& queued, bool* retry) {
  std::shared_ptr<session::v1::SessionService::Stub> stub;
  {
    absl::MutexLock lock(&mu_);
    stub = stub_;
  }
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() +
                       std::chrono::milliseconds(options_.call_timeout_ms));
  session::v1::AppendMessageResponse response;
  const grpc::Status status =
      stub->AppendMessage(&context, ToAppend(queued.record, queued.idempotency_key), &response);
  *retry = !status.ok() && Retryable(status.error_code());
  if (!status.ok() && !*retry) {
    CountLost(queued.record.port_name, 1,
              absl::StrCat("the session service refused it: ", status.error_message()));
  }
  return status.ok();
}

void SessionRecorder::Run() {
  int64_t backoff_ms = options_.retry_initial_ms;
  absl::MutexLock lock(&mu_);
  for (;;) {
    while (!stop_ && (stub_ == nullptr || queue_.empty())) wake_.Wait(&mu_);
    if (stop_) return;
    // The front stays queued while it is delivered, so order holds across retries.
    const Queued front = queue_.front();
    mu_.Unlock();
    bool retry = false;
    Deliver(front, &retry);
    mu_.Lock();
    if (retry) {
      const absl::Time deadline = absl::Now() + absl::Milliseconds(backoff_ms);
      while (!stop_) {
        if (wake_.WaitWithDeadline(&mu_, deadline)) break;  // timed out
      }
      backoff_ms = std::min(backoff_ms * 2, options_.retry_max_ms);
      continue;
    }
    backoff_ms = options_.retry_initial_ms;
    queue_.pop_front();
    SerialMetrics::Get().recording_queue_depth.Get().Decrement();
    --counts_[front.record.port_name].pending;
    if (queue_.empty()) drained_.SignalAll();
  }
}

}  // namespace labgate::serial
