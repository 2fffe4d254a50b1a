#include "serial-service/grpc/stream_reactors.h"

#include <vector>

#include "absl/time/clock.h"
#include "common/tsan_handoff.h"
#include "serial-service/ports/data_encoding.h"

namespace labgate::serial {

bool StreamTracker::Add(std::shared_ptr<Stream> stream) {
  absl::MutexLock lock(&mu_);
  if (ended_) return false;
  streams_.insert(std::move(stream));
  return true;
}

void StreamTracker::Remove(const Stream* stream) {
  std::shared_ptr<Stream> removed;  // released outside the lock
  absl::MutexLock lock(&mu_);
  for (auto it = streams_.begin(); it != streams_.end(); ++it) {
    if (it->get() == stream) {
      removed = *it;
      streams_.erase(it);
      break;
    }
  }
}

void StreamTracker::EndAll() {
  std::set<std::shared_ptr<Stream>> streams;
  {
    absl::MutexLock lock(&mu_);
    ended_ = true;
    streams = streams_;
  }
  for (const auto& stream : streams) stream->End();
}

namespace {
v1::PortEvent::Type EventType(PortEventRecord::Type type) {
  switch (type) {
    case PortEventRecord::Type::kData:
      return v1::PortEvent::TYPE_DATA;
    case PortEventRecord::Type::kOpened:
      return v1::PortEvent::TYPE_OPENED;
    case PortEventRecord::Type::kClosed:
      return v1::PortEvent::TYPE_CLOSED;
    case PortEventRecord::Type::kAutoClose:
      return v1::PortEvent::TYPE_AUTO_CLOSE;
    case PortEventRecord::Type::kError:
      return v1::PortEvent::TYPE_ERROR;
    case PortEventRecord::Type::kReconfigured:
      return v1::PortEvent::TYPE_RECONFIGURED;
    case PortEventRecord::Type::kWritten:
      return v1::PortEvent::TYPE_WRITTEN;
  }
  return v1::PortEvent::TYPE_UNSPECIFIED;
}
}  // namespace

SubscribeReactor::SubscribeReactor(std::string port_name, v1::Encoding encoding, Traffic traffic,
                                   EventHub* hub, StreamTracker* tracker, size_t queue_limit)
    : port_name_(std::move(port_name)),
      encoding_(encoding),
      traffic_(traffic),
      hub_(hub),
      tracker_(tracker),
      queue_limit_(queue_limit) {}

grpc::ServerWriteReactor<v1::PortEvent>* SubscribeReactor::Start(
    std::string port_name, v1::Encoding encoding, Traffic traffic, v1::PortEvent initial,
    EventHub* hub, StreamTracker* tracker, size_t queue_limit) {
  std::shared_ptr<SubscribeReactor> reactor(
      new SubscribeReactor(std::move(port_name), encoding, traffic, hub, tracker, queue_limit));
  reactor->self_ = reactor;
  HandOff(reactor.get());  // its callbacks run on gRPC's threads
  if (!tracker->Add(reactor)) {
    absl::MutexLock lock(&reactor->mu_);
    reactor->FinishLocked(grpc::Status(grpc::StatusCode::UNAVAILABLE, "service is shutting down"),
                          false);
    return reactor.get();
  }
  initial.set_timestamp_ms(absl::ToUnixMillis(absl::Now()));
  // Subscribed before the initial event is sent, so a caller that has seen it misses
  // nothing after it; events published meanwhile wait on the lock and come after it.
  absl::MutexLock lock(&reactor->mu_);
  hub->Subscribe(reactor->port_name_, reactor, /*wants_traffic=*/traffic != Traffic::kNone);
  reactor->queue_.push_back(std::move(initial));
  reactor->WriteNextLocked();
  return reactor.get();
}

grpc::ServerWriteReactor<v1::PortEvent>* SubscribeReactor::StartForEveryPort(
    const std::function<std::vector<v1::PortEvent>()>& current_state, EventHub* hub,
    StreamTracker* tracker) {
  // No data is ever queued, so the limit never drops anything.
  std::shared_ptr<SubscribeReactor> reactor(new SubscribeReactor(
      EventHub::kEveryPort, v1::ENCODING_UNSPECIFIED, Traffic::kNone, hub, tracker,
      /*queue_limit=*/1));
  reactor->self_ = reactor;
  HandOff(reactor.get());  // its callbacks run on gRPC's threads
  if (!tracker->Add(reactor)) {
    absl::MutexLock lock(&reactor->mu_);
    reactor->FinishLocked(grpc::Status(grpc::StatusCode::UNAVAILABLE, "service is shutting down"),
                          false);
    return reactor.get();
  }
  {
    // Held so that no event's write goes out before the metadata that says "registered".
    absl::MutexLock lock(&reactor->mu_);
    hub->Subscribe(reactor->port_name_, reactor);
    HandOff(reactor.get());
    reactor->StartSendInitialMetadata();
  }
  const int64_t now = absl::ToUnixMillis(absl::Now());
  for (v1::PortEvent& event : current_state()) {
    event.set_timestamp_ms(now);
    reactor->Enqueue(std::move(event), 0, false);
  }
  return reactor.get();
}

void SubscribeReactor::OnPortEvent(const PortEventRecord& record) {
  const bool written = record.type == PortEventRecord::Type::kWritten;
  if (written && traffic_ != Traffic::kReceivedAndWritten) return;
  v1::PortEvent event;
  event.set_type(EventType(record.type));
  event.set_port_name(record.port_name);
  event.set_timestamp_ms(absl::ToUnixMillis(absl::Now()));
  if (record.type == PortEventRecord::Type::kData || written) {
    EncodedData encoded = EncodeData(record.data, encoding_);
    event.set_data(std::move(encoded.data));
    event.set_encoding(encoded.encoding);
  }
  event.set_reason(record.reason);
  event.set_idle_ms(record.idle_ms);
  event.set_idle_close_count(record.idle_close_count);
  const bool droppable = record.type == PortEventRecord::Type::kData || written;
  Enqueue(std::move(event), record.data.size(), droppable);
}

void SubscribeReactor::Enqueue(v1::PortEvent event, size_t raw_bytes, bool droppable) {
  absl::MutexLock lock(&mu_);
  if (finished_) return;
  if (droppable) {
    if (queue_.size() >= queue_limit_) {
      dropped_bytes_ += static_cast<int64_t>(raw_bytes);
      return;
    }
    event.set_dropped_bytes(dropped_bytes_);
    dropped_bytes_ = 0;
  }
  queue_.push_back(std::move(event));
  if (!writing_) WriteNextLocked();
}

void SubscribeReactor::WriteNextLocked() {
  in_flight_ = std::move(queue_.front());
  queue_.pop_front();
  writing_ = true;
  HandOff(this);
  StartWrite(&in_flight_);
}

void SubscribeReactor::FinishLocked(grpc::Status status, bool drain) {
  if (finished_) return;
  finished_ = true;  // nothing more is queued from here on
  if (!drain) queue_.clear();
  if (writing_ || !queue_.empty()) {
    finish_pending_ = true;
    finish_status_ = std::move(status);
    if (!writing_) WriteNextLocked();
    return;
  }
  HandOff(this);
  Finish(std::move(status));
}

void SubscribeReactor::OnWriteDone(bool ok) {
  TakeOver(this);  // a completion gRPC runs, maybe on another thread
  absl::MutexLock lock(&mu_);
  writing_ = false;
  if (!ok) {
    queue_.clear();
    if (finish_pending_) {
      finish_pending_ = false;
      HandOff(this);
      Finish(finish_status_);
    } else {
      FinishLocked(grpc::Status(grpc::StatusCode::CANCELLED, "stream broken"), false);
    }
    return;
  }
  if (!queue_.empty()) {
    WriteNextLocked();
  } else if (finish_pending_) {
    finish_pending_ = false;
    HandOff(this);
    Finish(finish_status_);
  } else if (dropped_bytes_ > 0 && !finished_) {
    // The reader has caught up: report the loss now rather than with some later chunk,
    // which may never come.
    v1::PortEvent loss;
    loss.set_type(v1::PortEvent::TYPE_DATA);
    loss.set_port_name(port_name_);
    loss.set_timestamp_ms(absl::ToUnixMillis(absl::Now()));
    loss.set_encoding(EncodeData("", encoding_).encoding);
    loss.set_dropped_bytes(dropped_bytes_);
    dropped_bytes_ = 0;
    queue_.push_back(std::move(loss));
    WriteNextLocked();
  }
}

void SubscribeReactor::End() {
  absl::MutexLock lock(&mu_);
  FinishLocked(grpc::Status::OK, /*drain=*/true);
}

void SubscribeReactor::OnCancel() {
  TakeOver(this);  // a completion gRPC runs, maybe on another thread
  absl::MutexLock lock(&mu_);
  FinishLocked(grpc::Status::CANCELLED, /*drain=*/false);
}

void SubscribeReactor::OnDone() {
  TakeOver(this);  // a completion gRPC runs, maybe on another thread
  hub_->Unsubscribe(port_name_, this);
  tracker_->Remove(this);
  std::shared_ptr<SubscribeReactor> self = std::move(self_);
  // `self` may be the last reference: nothing after this line touches members.
}

LeaseReactor::LeaseReactor(std::string owner, PortService* ports, StreamTracker* tracker)
    : owner_(std::move(owner)), ports_(ports), tracker_(tracker) {}

grpc::ServerWriteReactor<v1::LeaseEvent>* LeaseReactor::Start(std::string owner, PortService* ports,
                                                              StreamTracker* tracker) {
  std::shared_ptr<LeaseReactor> reactor(new LeaseReactor(std::move(owner), ports, tracker));
  reactor->self_ = reactor;
  HandOff(reactor.get());  // its callbacks run on gRPC's threads
  absl::MutexLock lock(&reactor->mu_);
  if (!tracker->Add(reactor)) {
    reactor->FinishLocked(grpc::Status(grpc::StatusCode::UNAVAILABLE, "service is shutting down"));
    return reactor.get();
  }
  ports->AcquireLease(reactor->owner_);
  reactor->leased_ = true;
  reactor->event_.set_owner(reactor->owner_);
  reactor->writing_ = true;
  HandOff(reactor.get());
  reactor->StartWrite(&reactor->event_);
  return reactor.get();
}

void LeaseReactor::FinishLocked(grpc::Status status) {
  if (finished_) return;
  finished_ = true;
  if (writing_) {
    finish_pending_ = true;
    finish_status_ = std::move(status);
    return;
  }
  HandOff(this);
  Finish(std::move(status));
}

void LeaseReactor::OnWriteDone(bool ok) {
  TakeOver(this);  // a completion gRPC runs, maybe on another thread
  absl::MutexLock lock(&mu_);
  writing_ = false;
  if (finish_pending_) {
    finish_pending_ = false;
    HandOff(this);
    Finish(finish_status_);
    return;
  }
  if (!ok) FinishLocked(grpc::Status(grpc::StatusCode::CANCELLED, "stream broken"));
}

void LeaseReactor::End() {
  absl::MutexLock lock(&mu_);
  FinishLocked(grpc::Status::OK);
}

void LeaseReactor::OnCancel() {
  TakeOver(this);  // a completion gRPC runs, maybe on another thread
  absl::MutexLock lock(&mu_);
  FinishLocked(grpc::Status::CANCELLED);
}

void LeaseReactor::OnDone() {
  TakeOver(this);  // a completion gRPC runs, maybe on another thread
  if (leased_) ports_->ReleaseLease(owner_);
  tracker_->Remove(this);
  std::shared_ptr<LeaseReactor> self = std::move(self_);
}

}  // namespace labgate::serial
