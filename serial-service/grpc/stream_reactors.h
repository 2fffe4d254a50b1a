// The server-streaming calls: Subscribe (one port's events), WatchPorts (every port's
// lifecycle) and Lease (owner presence).
// Each reactor keeps itself alive until gRPC calls OnDone, has at most one write in
// flight, and always finishes.
#pragma once

#include <grpcpp/grpcpp.h>

#include <deque>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "labgate/serial/v1/serial.pb.h"
#include "serial-service/port_service.h"
#include "serial-service/ports/event_hub.h"

namespace labgate::serial {

// The open streams, so that Shutdown can end them.
class StreamTracker {
 public:
  class Stream {
   public:
    virtual ~Stream() = default;
    // Finishes the stream with OK.
    virtual void End() = 0;
  };
  // False once EndAll has been called.
  bool Add(std::shared_ptr<Stream> stream);
  void Remove(const Stream* stream);
  void EndAll();

 private:
  absl::Mutex mu_;
  bool ended_ ABSL_GUARDED_BY(mu_) = false;
  std::set<std::shared_ptr<Stream>> streams_ ABSL_GUARDED_BY(mu_);
};

class SubscribeReactor : public grpc::ServerWriteReactor<v1::PortEvent>,
                         public PortEventSink,
                         public StreamTracker::Stream {
 public:
  // Which of the port's events a Subscribe stream carries besides its state changes.
  enum class Traffic { kNone, kReceived, kReceivedAndWritten };
  // Sends `initial` (the port's current state) first, then the port's events; data as
  // `traffic` says.
  static grpc::ServerWriteReactor<v1::PortEvent>* Start(std::string port_name,
                                                        v1::Encoding encoding, Traffic traffic,
                                                        v1::PortEvent initial, EventHub* hub,
                                                        StreamTracker* tracker, size_t queue_limit);

  // WatchPorts: every port's events but data. The initial metadata goes out once the
  // stream is registered with the hub; then the events `current_state()` returns, then the
  // live ones.
  static grpc::ServerWriteReactor<v1::PortEvent>* StartForEveryPort(
      const std::function<std::vector<v1::PortEvent>()>& current_state, EventHub* hub,
      StreamTracker* tracker);

  void OnPortEvent(const PortEventRecord& record) override;
  void End() override;
  void OnWriteDone(bool ok) override;
  void OnCancel() override;
  void OnDone() override;

 private:
  SubscribeReactor(std::string port_name, v1::Encoding encoding, Traffic traffic, EventHub* hub,
                   StreamTracker* tracker, size_t queue_limit);
  // Data chunks are droppable when the queue is full; state events never are.
  void Enqueue(v1::PortEvent event, size_t raw_bytes, bool droppable);
  void WriteNextLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // With `drain`, the events already queued are sent before the stream finishes
  // (Shutdown); without, they are dropped (the client is gone).
  void FinishLocked(grpc::Status status, bool drain) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const std::string port_name_;
  const v1::Encoding encoding_;
  const Traffic traffic_;
  EventHub* const hub_;
  StreamTracker* const tracker_;
  const size_t queue_limit_;

  absl::Mutex mu_;
  std::deque<v1::PortEvent> queue_ ABSL_GUARDED_BY(mu_);
  v1::PortEvent in_flight_ ABSL_GUARDED_BY(mu_);
  int64_t dropped_bytes_ ABSL_GUARDED_BY(mu_) = 0;
  bool writing_ ABSL_GUARDED_BY(mu_) = false;
  bool finished_ ABSL_GUARDED_BY(mu_) = false;
  bool finish_pending_ ABSL_GUARDED_BY(mu_) = false;
  grpc::Status finish_status_ ABSL_GUARDED_BY(mu_);
  std::shared_ptr<SubscribeReactor> self_;
};

class LeaseReactor : public grpc::ServerWriteReactor<v1::LeaseEvent>, public StreamTracker::Stream {
 public:
  static grpc::ServerWriteReactor<v1::LeaseEvent>* Start(std::string owner, PortService* ports,
                                                         StreamTracker* tracker);
  void End() override;
  void OnWriteDone(bool ok) override;
  void OnCancel() override;
  void OnDone() override;

 private:
  LeaseReactor(std::string owner, PortService* ports, StreamTracker* tracker);
  void FinishLocked(grpc::Status status) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const std::string owner_;
  PortService* const ports_;
  StreamTracker* const tracker_;
  bool leased_ = false;

  absl::Mutex mu_;
  v1::LeaseEvent event_ ABSL_GUARDED_BY(mu_);
  bool writing_ ABSL_GUARDED_BY(mu_) = false;
  bool finished_ ABSL_GUARDED_BY(mu_) = false;
  bool finish_pending_ ABSL_GUARDED_BY(mu_) = false;
  grpc::Status finish_status_ ABSL_GUARDED_BY(mu_);
  std::shared_ptr<LeaseReactor> self_;
};

}  // namespace labgate::serial
