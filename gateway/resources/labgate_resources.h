// labgate's own MCP resources:
//   labgate://sessions            every session (JSON)
//   labgate://sessions/{id}       one transcript: the session and all its messages
//   labgate://ports               the serial ports the machine (or every bench) has
//   labgate://ports/{port_name}   one port (percent-encode '/' in device paths)
//   labgate://actions/{action}    an action contract with its schemas
// Subscribing to a session (or to labgate://sessions) follows the session service's
// WatchSession stream; to a port, the serial service's Subscribe stream and this gateway's
// own calls on the port (PortChanges), coalesced to at most kPortUpdateInterval apart.
#pragma once

#include <grpcpp/channel.h>

#include <memory>
#include <string>

#include "gateway/backends/serial_benches.h"
#include "gateway/mcp/providers.h"
#include "gateway/mcp/resource_access.h"
#include "gateway/resources/port_changes.h"

namespace labgate::gateway {

struct ResourceChannels {
  std::shared_ptr<grpc::Channel> session;
  std::shared_ptr<grpc::Channel> serial;
  std::shared_ptr<grpc::Channel> actions;
  // Several benches (gateway/backends/serial_benches.h): ports are then listed from every
  // bench and named BENCH:PORT. Null = the one serial channel above.
  const SerialBenches* benches = nullptr;
};

// A port subscriber hears at most 4 updates a second.
inline constexpr std::chrono::milliseconds kPortUpdateInterval{250};

class LabgateResources final : public ResourceProvider {
 public:
  LabgateResources(const ResourceChannels& channels, std::chrono::milliseconds deadline);
  ~LabgateResources() override;

  void ListResources(JsonListDone done) override;
  std::vector<nlohmann::json> ListResourceTemplates() const override;
  bool HandlesUri(const std::string& uri) const override;
  void ReadResource(const std::string& uri, std::shared_ptr<RequestContext> context,
                    JsonDone done) override;
  std::shared_ptr<void> SubscribeResource(const std::string& uri,
                                          std::function<void()> updated) override;
  // Ready when the service has registered the watch (its stream's initial metadata).
  std::shared_ptr<void> SubscribeResourceWhenReady(const std::string& uri,
                                                   std::function<void()> updated,
                                                   std::function<void()> ready) override;
  void CompleteResourceArgument(const std::string& template_uri, const std::string& argument,
                                const std::string& value, const nlohmann::json& context_arguments,
                                StringsDone done) override;

  // The ports this gateway's tool calls touch; set before serving (may stay null).
  void SetPortChanges(PortChanges* changes) { port_changes_ = changes; }

  struct Stubs;

 private:
  void ReadBenchPorts(const std::string& uri, JsonDone done);
  std::unique_ptr<Stubs> stubs_;
  std::chrono::milliseconds deadline_;
  PortChanges* port_changes_ = nullptr;
};

// "/dev/ttyUSB0" -> "%2Fdev%2FttyUSB0" (PercentDecode, in resource_access.h, undoes it).
std::string PercentEncode(const std::string& text);

}  // namespace labgate::gateway
