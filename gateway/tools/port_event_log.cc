#include "gateway/tools/port_event_log.h"

#include "gateway/backends/async_calls.h"
#include "labgate/serial/v1/serial.grpc.pb.h"

namespace labgate::gateway {

namespace serial_v1 = labgate::serial::v1;
using nlohmann::json;

std::optional<LogNotice> PortEventMapper::Map(int type, const std::string& port,
                                              const std::string& reason) {
  auto info = [&](const char* event, const std::string& why) {
    json data = {{"event", event}, {"port_name", port}};
    if (!why.empty()) data["reason"] = why;
    return LogNotice{McpLogLevel::kInfo, "serial", std::move(data)};
  };
  const bool was_lost = lost_;
  if (reason == "current state") {  // Subscribe's first event: what is, not what happened
    lost_ = type == serial_v1::PortEvent::TYPE_ERROR;
    // ... unless it says that a device known to be lost is open again.
    if (was_lost && type == serial_v1::PortEvent::TYPE_OPENED) return info("device_back", "");
    // ... or that the device went between the open that started the follow and the follow
    // (the port is watched from the moment it opens, so that can be quick).
    if (!was_lost && lost_) return info("device_lost", "device disconnected");
    return std::nullopt;
  }
  switch (type) {
    case serial_v1::PortEvent::TYPE_AUTO_CLOSE:
      // Only a read by the owner auto-closes a port, and that read logs it.
      lost_ = false;
      return std::nullopt;
    case serial_v1::PortEvent::TYPE_ERROR:
      lost_ = true;
      return info("device_lost", reason);
    case serial_v1::PortEvent::TYPE_OPENED:
      if (!was_lost) return std::nullopt;  // an open by a tool call is logged by that call
      lost_ = false;
      return info("device_back", reason);
    default:
      return std::nullopt;
  }
}

PortEventLog::PortEventLog(const std::shared_ptr<grpc::Channel>& serial,
                           const SerialBenches* benches)
    : stubs_(serial, benches) {}

PortEventLog::~PortEventLog() = default;

void PortEventLog::Follow(const std::string& owner, const std::string& port,
                          RequestContext::LogSink log) {
  if (port.empty() || !log) return;
  auto target = stubs_.For(port);
  if (!target.ok()) return;
  serial_v1::SubscribeRequest request;
  request.set_port_name(target->local_port);  // the bench's own name for it
  // The log is of what happens to the port, not of its traffic: no data crosses the stream.
  request.set_states_only(true);
  auto* stub = target->stub;
  std::shared_ptr<SharedMapper> mapper;
  {
    // A port opened again (after its device was lost) keeps what its follow knew, so that
    // the old stream's OPENED, or the new stream's current state, says the device is back.
    absl::MutexLock lock(&mutex_);
    auto it = followed_.find(owner + '\n' + port);
    mapper = it != followed_.end() ? it->second.mapper : std::make_shared<SharedMapper>();
  }
  auto stream = Watch<serial_v1::PortEvent>(
      request,
      [stub](grpc::ClientContext* call, const serial_v1::SubscribeRequest* req,
             grpc::ClientReadReactor<serial_v1::PortEvent>* reactor) {
        stub->async()->Subscribe(call, req, reactor);
      },
      [mapper, port, log = std::move(log)](const serial_v1::PortEvent& event) {
        std::optional<LogNotice> notice;
        {
          // The replaced stream and its successor may deliver at the same time. The log
          // names the port as the client does, not as its bench does.
          absl::MutexLock lock(&mapper->mutex);
          notice = mapper->mapper.Map(event.type(), port, event.reason());
        }
        if (notice) log(notice->level, notice->logger, notice->data);
      });
  std::shared_ptr<void> replaced;
  {
    absl::MutexLock lock(&mutex_);
    Followed& followed = followed_[owner + '\n' + port];
    followed.mapper = mapper;
    replaced = std::move(followed.stream);
    followed.stream = std::move(stream);
  }
}  // `replaced` is released outside the lock: it cancels the earlier stream

void PortEventLog::Unfollow(const std::string& owner, const std::string& port) {
  Followed followed;
  {
    absl::MutexLock lock(&mutex_);
    auto it = followed_.find(owner + '\n' + port);
    if (it == followed_.end()) return;
    followed = std::move(it->second);
    followed_.erase(it);
  }
}  // `followed` is released outside the lock: it cancels the stream

}  // namespace labgate::gateway
