// JSON -> protobuf argument conversion (and back) on every message of labgate's services.
// An input is "<message full name>\n<JSON>"; an unknown name picks a message by hash, so
// mutated names still reach some message. Invariants:
// - JsonToProto never throws; a refusal is InvalidArgument naming what it refuses;
// - what it accepts, printed by ProtoToJson, converts back to the same message, and prints
//   the same again.
#include <google/protobuf/descriptor.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/message.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "gateway/catalog/json_proto.h"
#include "gateway/jsonrpc/bounded_json.h"
#include "gateway/jsonrpc/message.h"
#include "labgate/actions/v1/actions.pb.h"
#include "labgate/serial/v1/serial.pb.h"
#include "labgate/session/v1/session.pb.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

using google::protobuf::Descriptor;
using google::protobuf::Message;
using labgate::gateway::JsonToProto;
using labgate::gateway::ProtoToJson;
using labgate::gateway::jsonrpc::DumpJson;
using nlohmann::json;

void AddMessages(const Descriptor* descriptor, std::vector<const Descriptor*>* out) {
  if (descriptor->options().map_entry()) return;
  out->push_back(descriptor);
  for (int i = 0; i < descriptor->nested_type_count(); ++i) {
    AddMessages(descriptor->nested_type(i), out);
  }
}

const std::vector<const Descriptor*>& Messages() {
  static const auto* messages = [] {
    auto* all = new std::vector<const Descriptor*>;
    // Naming one message of each file also links its generated code in.
    for (const Descriptor* anchor : {labgate::serial::v1::OpenPortRequest::descriptor(),
                                     labgate::session::v1::CreateSessionRequest::descriptor(),
                                     labgate::actions::v1::InvokeActionRequest::descriptor()}) {
      const auto* file = anchor->file();
      for (int i = 0; i < file->message_type_count(); ++i) AddMessages(file->message_type(i), all);
    }
    return all;
  }();
  return *messages;
}

const Descriptor* Pick(std::string_view name) {
  for (const Descriptor* descriptor : Messages()) {
    if (descriptor->full_name() == name) return descriptor;
  }
  return Messages()[std::hash<std::string_view>()(name) % Messages().size()];
}

std::string Canonical(const Message& message) {
  std::string bytes;
  google::protobuf::io::StringOutputStream stream(&bytes);
  google::protobuf::io::CodedOutputStream coded(&stream);
  coded.SetSerializationDeterministic(true);  // map entries in key order
  message.SerializeToCodedStream(&coded);
  coded.Trim();
  return bytes;
}

std::unique_ptr<Message> NewMessage(const Descriptor* descriptor) {
  return std::unique_ptr<Message>(
      google::protobuf::MessageFactory::generated_factory()->GetPrototype(descriptor)->New());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t newline = input.find('\n');
  if (newline == std::string_view::npos) return 0;
  const std::string_view text = input.substr(newline + 1);
  // As the gateway sees arguments: from a message ParseMessage accepted, so not too deep.
  labgate::gateway::jsonrpc::BoundedJson parsed = labgate::gateway::jsonrpc::ParseBoundedJson(
      text, labgate::gateway::jsonrpc::kMaxNestingDepth);
  if (parsed.error != labgate::gateway::jsonrpc::BoundedJson::Error::kNone) return 0;
  const json arguments = std::move(parsed.value);

  const Descriptor* descriptor = Pick(input.substr(0, newline));
  const auto message = NewMessage(descriptor);
  const absl::Status status = JsonToProto(arguments, message.get());
  if (!status.ok()) {
    FUZZ_CHECK(status.code() == absl::StatusCode::kInvalidArgument);
    const absl::string_view why = status.message();
    FUZZ_CHECK(absl::StartsWith(why, "field '") || absl::StartsWith(why, "unknown field '") ||
               absl::StartsWith(why, "arguments must be an object"));
    return 0;
  }
  const json printed = ProtoToJson(*message);
  FUZZ_CHECK(printed.is_object());
  const auto again = NewMessage(descriptor);
  FUZZ_CHECK(JsonToProto(printed, again.get()).ok());
  FUZZ_CHECK(Canonical(*again) == Canonical(*message));
  FUZZ_CHECK(DumpJson(ProtoToJson(*again)) == DumpJson(printed));
  return 0;
}
