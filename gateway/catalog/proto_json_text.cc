#include "gateway/catalog/proto_json_text.h"

#include <google/protobuf/descriptor.h>

#include <algorithm>
#include <charconv>
#include <map>
#include <nlohmann/json.hpp>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/strings/escaping.h"
#include "absl/synchronization/mutex.h"
#include "gateway/catalog/json_proto.h"
#include "gateway/catalog/well_known_json.h"

namespace labgate::gateway {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;
using nlohmann::json;

// A message's fields in name order: the order of a JSON document's keys.
const std::vector<const FieldDescriptor*>& FieldsByName(const Descriptor* descriptor) {
  static absl::Mutex mu(absl::kConstInit);
  static auto* sorted ABSL_GUARDED_BY(mu) =
      new std::map<const Descriptor*, std::vector<const FieldDescriptor*>>();
  {
    absl::ReaderMutexLock lock(&mu);
    if (auto it = sorted->find(descriptor); it != sorted->end()) return it->second;
  }
  std::vector<const FieldDescriptor*> fields;
  fields.reserve(static_cast<size_t>(descriptor->field_count()));
  for (int i = 0; i < descriptor->field_count(); ++i) fields.push_back(descriptor->field(i));
  std::sort(fields.begin(), fields.end(), [](const FieldDescriptor* a, const FieldDescriptor* b) {
    return a->name() < b->name();
  });
  absl::MutexLock lock(&mu);
  return sorted->emplace(descriptor, std::move(fields)).first->second;  // entries never move
}

void AppendDump(const json& value, std::string* out) {
  out->append(value.dump(-1, ' ', false, json::error_handler_t::replace));
}

// Plain ASCII needs no escaping; anything else is written as the document would write it.
void AppendString(const std::string& text, std::string* out) {
  const bool plain = std::all_of(text.begin(), text.end(), [](char c) {
    const auto byte = static_cast<unsigned char>(c);
    return byte >= 0x20 && byte < 0x7f && c != '"' && c != '\\';
  });
  if (!plain) return AppendDump(json(text), out);
  out->push_back('"');
  out->append(text);
  out->push_back('"');
}

template <typename Integer>
void AppendInteger(Integer value, std::string* out) {
  char digits[24];
  const auto [end, error] = std::to_chars(digits, digits + sizeof(digits), value);
  out->append(digits, end);
}

void AppendMessage(const Message& message, std::string* out);

void AppendValue(const Message& message, const FieldDescriptor* field, int index,
                 std::string* out) {
  const Reflection* r = message.GetReflection();
  const bool rep = index >= 0;
  switch (field->cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT32:
      return AppendInteger(
          rep ? r->GetRepeatedInt32(message, field, index) : r->GetInt32(message, field), out);
    case FieldDescriptor::CPPTYPE_INT64:
      return AppendInteger(
          rep ? r->GetRepeatedInt64(message, field, index) : r->GetInt64(message, field), out);
    case FieldDescriptor::CPPTYPE_UINT32:
      return AppendInteger(
          rep ? r->GetRepeatedUInt32(message, field, index) : r->GetUInt32(message, field), out);
    case FieldDescriptor::CPPTYPE_UINT64:
      return AppendInteger(
          rep ? r->GetRepeatedUInt64(message, field, index) : r->GetUInt64(message, field), out);
    case FieldDescriptor::CPPTYPE_DOUBLE:
      return AppendDump(
          json(rep ? r->GetRepeatedDouble(message, field, index) : r->GetDouble(message, field)),
          out);
    case FieldDescriptor::CPPTYPE_FLOAT:
      return AppendDump(
          json(rep ? r->GetRepeatedFloat(message, field, index) : r->GetFloat(message, field)),
          out);
    case FieldDescriptor::CPPTYPE_BOOL:
      out->append((rep ? r->GetRepeatedBool(message, field, index) : r->GetBool(message, field))
                      ? "true"
                      : "false");
      return;
    case FieldDescriptor::CPPTYPE_STRING: {
      std::string scratch;
      const std::string& value =
          rep ? r->GetRepeatedStringReference(message, field, index, &scratch)
              : r->GetStringReference(message, field, &scratch);
      if (field->type() == FieldDescriptor::TYPE_BYTES) {
        return AppendString(absl::Base64Escape(value), out);
      }
      return AppendString(value, out);
    }
    case FieldDescriptor::CPPTYPE_ENUM: {
      const int number =
          rep ? r->GetRepeatedEnumValue(message, field, index) : r->GetEnumValue(message, field);
      const auto* value = field->enum_type()->FindValueByNumber(number);
      if (value == nullptr) return AppendInteger(number, out);
      return AppendString(EnumValueJsonName(value), out);
    }
    case FieldDescriptor::CPPTYPE_MESSAGE: {
      const Message& child =
          rep ? r->GetRepeatedMessage(message, field, index) : r->GetMessage(message, field);
      if (IsWellKnownType(field->message_type())) return AppendDump(WellKnownToJson(child), out);
      return AppendMessage(child, out);
    }
  }
  out->append("null");
}

// A map is an object keyed by its keys' text, in key order.
void AppendMap(const Message& message, const FieldDescriptor* field, std::string* out) {
  const Reflection* reflection = message.GetReflection();
  const FieldDescriptor* key_field = field->message_type()->map_key();
  const FieldDescriptor* value_field = field->message_type()->map_value();
  std::map<std::string, const Message*> entries;
  for (int j = 0; j < reflection->FieldSize(message, field); ++j) {
    const Message& entry = reflection->GetRepeatedMessage(message, field, j);
    // A string key is itself; a number or a bool is its JSON text.
    std::string key;
    if (key_field->cpp_type() == FieldDescriptor::CPPTYPE_STRING) {
      key = entry.GetReflection()->GetString(entry, key_field);
    } else {
      AppendValue(entry, key_field, -1, &key);
    }
    entries[key] = &entry;  // the last entry of a key wins, as in the document
  }
  out->push_back('{');
  bool first = true;
  for (const auto& [key, entry] : entries) {
    if (!first) out->push_back(',');
    first = false;
    AppendString(key, out);
    out->push_back(':');
    AppendValue(*entry, value_field, -1, out);
  }
  out->push_back('}');
}

void AppendMessage(const Message& message, std::string* out) {
  const Reflection* reflection = message.GetReflection();
  out->push_back('{');
  bool first = true;
  for (const FieldDescriptor* field : FieldsByName(message.GetDescriptor())) {
    const bool shown =
        field->is_repeated() || !field->has_presence() || reflection->HasField(message, field);
    if (!shown) continue;
    if (!first) out->push_back(',');
    first = false;
    // A proto field name is letters, digits and underscores: nothing to escape.
    out->push_back('"');
    out->append(field->name());
    out->append("\":");
    if (field->is_map()) {
      AppendMap(message, field, out);
    } else if (field->is_repeated()) {
      out->push_back('[');
      for (int j = 0; j < reflection->FieldSize(message, field); ++j) {
        if (j > 0) out->push_back(',');
        AppendValue(message, field, j, out);
      }
      out->push_back(']');
    } else {
      AppendValue(message, field, -1, out);
    }
  }
  out->push_back('}');
}

}  // namespace

void AppendProtoJsonText(const Message& message, std::string* out) {
  if (IsWellKnownType(message.GetDescriptor())) return AppendDump(WellKnownToJson(message), out);
  AppendMessage(message, out);
}

}  // namespace labgate::gateway
