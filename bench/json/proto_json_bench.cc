// A `status` reply (GetStatusResponse of an open port with settings and a policy) turned into
// the JSON text a tool call writes: through the document, as the gateway does today, or
// written straight from the message.
#include <benchmark/benchmark.h>

#include <string>

#include "gateway/catalog/json_proto.h"
#include "gateway/catalog/proto_json_text.h"
#include "labgate/serial/v1/serial.pb.h"

namespace {

labgate::serial::v1::GetStatusResponse StatusReply() {
  labgate::serial::v1::GetStatusResponse reply;
  reply.set_status(labgate::serial::v1::PORT_STATE_OPEN);
  reply.set_port_name("/dev/ttyUSB0");
  reply.set_owned_by_caller(true);
  reply.add_open_ports("/dev/ttyUSB0");
  reply.add_open_ports("loop://bench");
  reply.set_owner("stdio:local");
  reply.mutable_settings()->set_baud_rate(115200);
  auto* policy = reply.mutable_policy();
  policy->set_source("/etc/labgate/policy.json");
  policy->set_match("/dev/ttyUSB*");
  policy->set_allowed(true);
  policy->add_confirm_rules("output-on");
  policy->set_signals("allow");
  policy->set_signals_allowed(true);
  return reply;
}

void ThroughTheDocument(benchmark::State& state) {
  const auto reply = StatusReply();
  for (auto _ : state) {
    std::string text = labgate::gateway::ProtoToJson(reply).dump(
        -1, ' ', false, nlohmann::json::error_handler_t::replace);
    benchmark::DoNotOptimize(text);
  }
}
BENCHMARK(ThroughTheDocument);

void Straight(benchmark::State& state) {
  const auto reply = StatusReply();
  for (auto _ : state) {
    std::string text;
    labgate::gateway::AppendProtoJsonText(reply, &text);
    benchmark::DoNotOptimize(text);
  }
}
BENCHMARK(Straight);

}  // namespace

BENCHMARK_MAIN();
