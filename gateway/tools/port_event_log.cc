#include "gateway/tools/port_event_log.h"

#include "gateway/backends/async_calls.h"
#include "labgate/serial/v1/serial.grpc.pb.h"

namespace labgate::gateway {

namespace serial_v1 = labgate::serial::v1;
using nlohmann::json;

struct PortEventLog::Stub {
  std::unique_ptr<serial_v1::SerialService::Stub> serial;
};

std::optional<LogNotice> PortEventMapper::Map(int type, const std::string& port,
                                              const std::string& reason) {
  if (reason == "current state") {  // Subscribe's first event: what is, not what happened
    lost_ = type == serial_v1::PortEvent::TYPE_ERROR;
    return std::nullopt;
  }
  auto info = [&](const char* event) {
    json data = {{"event", event}, {"port_name", port}};
    if (!reason.empty()) data["reason"] = reason;
    return LogNotice{McpLogLevel::kInfo, "serial", std::move(data)};
  };
  switch (type) {
    case serial_v1::PortEvent::TYPE_AUTO_CLOSE:
      lost_ = false;
      return info("port_auto_closed");
    case serial_v1::PortEvent::TYPE_ERROR:
      lost_ = true;
      return info("device_lost");
    case serial_v1::PortEvent::TYPE_OPENED:
      if (!lost_) return std::nullopt;  // an open by a tool call is logged by that call
      lost_ = false;
      return info("device_back");
    default:
      return std::nullopt;
  }
}

PortEventLog::PortEventLog(std::shared_ptr<grpc::Channel> serial)
    : stub_(std::make_unique<Stub>()) {
  if (serial != nullptr) stub_->serial = serial_v1::SerialService::NewStub(serial);
}

PortEventLog::~PortEventLog() = default;

void PortEventLog::Follow(const std::string& owner, const std::string& port,
                          RequestContext::LogSink log) {
  if (stub_->serial == nullptr || port.empty() || !log) return;
  serial_v1::SubscribeRequest request;
  request.set_port_name(port);
  auto* stub = stub_->serial.get();
  auto mapper = std::make_shared<PortEventMapper>();
  auto watch = Watch<serial_v1::PortEvent>(
      request,
      [stub](grpc::ClientContext* call, const serial_v1::SubscribeRequest* req,
             grpc::ClientReadReactor<serial_v1::PortEvent>* reactor) {
        stub->async()->Subscribe(call, req, reactor);
      },
      [mapper, log = std::move(log)](const serial_v1::PortEvent& event) {
        // Events of one stream arrive one at a time, so the mapper needs no lock.
        if (auto notice = mapper->Map(event.type(), event.port_name(), event.reason())) {
          log(notice->level, notice->logger, notice->data);
        }
      });
  std::lock_guard<std::mutex> lock(mutex_);
  watches_[owner + '\n' + port] = std::move(watch);
}

void PortEventLog::Unfollow(const std::string& owner, const std::string& port) {
  std::shared_ptr<void> watch;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = watches_.find(owner + '\n' + port);
    if (it == watches_.end()) return;
    watch = std::move(it->second);
    watches_.erase(it);
  }
}  // `watch` is released outside the lock: it cancels the stream

}  // namespace labgate::gateway
