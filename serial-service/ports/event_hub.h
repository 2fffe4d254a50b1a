// Fans port events (received data, written data, opened, closed, auto_close, error) out
// to the Subscribe streams of that port name. Keyed by name, so a subscription outlives
// closes and reopens of its port. WatchPorts streams subscribe to every port at once
// (kEveryPort) and get every event but data. A subscriber may ask for state changes only:
// it gets no data, and nothing written is copied for it.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

namespace labgate::serial {

struct PortEventRecord {
  enum class Type { kData, kOpened, kClosed, kAutoClose, kError, kReconfigured, kWritten };
  Type type = Type::kData;
  std::string port_name;
  std::string data;  // kData (received), kWritten (written): raw bytes
  std::string reason;
  int64_t idle_ms = 0;
  int64_t idle_close_count = 0;
};

class PortEventSink {
 public:
  virtual ~PortEventSink() = default;
  // Called on the port's worker thread. Must not block. May still be called shortly
  // after Unsubscribe returns.
  virtual void OnPortEvent(const PortEventRecord& event) = 0;
};

class EventHub {
 public:
  // The name that subscribes to the lifecycle of every port (no port is named "").
  static constexpr char kEveryPort[] = "";

  // Without `wants_traffic` the sink gets the port's state changes only (no kData, no kWritten).
  void Subscribe(const std::string& port_name, std::shared_ptr<PortEventSink> sink,
                 bool wants_traffic = true);
  void Unsubscribe(const std::string& port_name, const PortEventSink* sink);
  // Whether this very port has subscribers (kEveryPort ones aside): its worker then polls the
  // device between calls, which is how a lost device is noticed while nobody calls.
  bool HasSubscribers(const std::string& port_name) const;
  // Whether one of them wants its traffic: only then is what is written copied for them.
  bool WantsTraffic(const std::string& port_name) const;
  void Publish(const PortEventRecord& event);

 private:
  struct Subscriber {
    std::shared_ptr<PortEventSink> sink;
    bool wants_traffic;
  };
  mutable absl::Mutex mu_;
  std::map<std::string, std::vector<Subscriber>> sinks_ ABSL_GUARDED_BY(mu_);
};

}  // namespace labgate::serial
