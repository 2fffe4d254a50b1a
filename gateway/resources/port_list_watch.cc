#include "gateway/resources/port_list_watch.h"

#include <chrono>
#include <utility>

#include "labgate/serial/v1/serial.grpc.pb.h"

namespace labgate::gateway {
namespace {
constexpr std::chrono::seconds kRetryAfter{1};
}  // namespace

namespace serial_v1 = labgate::serial::v1;

bool ChangesPortList(int type, const std::string& reason) {
  if (reason == "current state") return false;
  return type == serial_v1::PortEvent::TYPE_OPENED || type == serial_v1::PortEvent::TYPE_CLOSED ||
         type == serial_v1::PortEvent::TYPE_AUTO_CLOSE;
}

std::unique_ptr<PortListWatch> PortListWatch::Start(
    const std::vector<std::shared_ptr<grpc::Channel>>& channels,
    const std::function<void()>& changed) {
  std::vector<std::shared_ptr<Stream>> streams;
  for (const auto& channel : channels) {
    if (channel == nullptr) continue;
    std::shared_ptr<serial_v1::SerialService::Stub> stub =
        serial_v1::SerialService::NewStub(channel);
    streams.push_back(Stream::Start(
        [stub](grpc::ClientContext* context,
               grpc::ClientReadReactor<serial_v1::PortEvent>* reactor) {
          static const serial_v1::WatchPortsRequest kEveryPort;
          stub->async()->WatchPorts(context, &kEveryPort, reactor);
        },
        {.on_event =
             [changed](const serial_v1::PortEvent& event) {
               if (ChangesPortList(event.type(), event.reason())) changed();
             },
         // The service has registered the stream. What changed while none was (before the
         // gateway started, or while the service was away) is unknown: say the list changed.
         .on_started = changed},
        kRetryAfter));
  }
  return std::unique_ptr<PortListWatch>(new PortListWatch(std::move(streams)));
}

PortListWatch::~PortListWatch() {
  for (const auto& stream : streams_) stream->Stop();
}

}  // namespace labgate::gateway
