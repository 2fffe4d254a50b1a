// Watches every port of each serial service (WatchPorts, one stream per bench) so that a
// port opened, closed or auto-closed by anyone, this gateway's clients, another gateway or
// a direct gRPC caller, becomes a notifications/resources/list_changed. A stream that ends
// (the service restarted or is not up yet) is watched again after a second. Each time a
// stream starts, one change is reported for whatever happened while none was watching.
#pragma once

#include <grpcpp/channel.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "gateway/backends/resuming_watch.h"
#include "labgate/serial/v1/serial.grpc.pb.h"

namespace labgate::gateway {

class PortListWatch {
 public:
  // `changed` runs on a gRPC thread for each port opened, closed or auto-closed, and when
  // a stream starts.
  static std::unique_ptr<PortListWatch> Start(
      const std::vector<std::shared_ptr<grpc::Channel>>& channels,
      const std::function<void()>& changed);
  ~PortListWatch();  // cancels the streams; no call after it returns but a running one

  using Stream = ResumingWatch<labgate::serial::v1::PortEvent>;

 private:
  explicit PortListWatch(std::vector<std::shared_ptr<Stream>> streams)
      : streams_(std::move(streams)) {}
  std::vector<std::shared_ptr<Stream>> streams_;
};

// Whether a WatchPorts event (type as the proto enum's number) changes the port list:
// opened, closed or auto-closed, and not merely the current state reported at the start.
bool ChangesPortList(int type, const std::string& reason);

}  // namespace labgate::gateway
