#include "gateway/catalog/well_known_json.h"

#include <google/protobuf/struct.pb.h>
#include <google/protobuf/util/json_util.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "absl/strings/str_cat.h"

namespace labgate::gateway {
namespace {

using google::protobuf::ListValue;
using google::protobuf::Message;
using google::protobuf::Struct;
using google::protobuf::Value;
using nlohmann::json;

// Deeper values go through protobuf's JSON utilities, whose own depth limit then decides.
constexpr int kDirectDepth = 32;

// Well-formed UTF-8 (no overlong forms, no surrogates, nothing above U+10FFFF): text that
// protobuf's JSON utilities pass through unchanged.
bool IsUtf8(std::string_view text) {
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  const auto* end = p + text.size();
  while (p < end) {
    if (*p < 0x80) {
      ++p;
      continue;
    }
    int length;
    uint32_t code;
    if ((*p & 0xE0) == 0xC0) {
      length = 2;
      code = *p & 0x1F;
    } else if ((*p & 0xF0) == 0xE0) {
      length = 3;
      code = *p & 0x0F;
    } else if ((*p & 0xF8) == 0xF0) {
      length = 4;
      code = *p & 0x07;
    } else {
      return false;
    }
    if (end - p < length) return false;
    for (int i = 1; i < length; ++i) {
      if ((p[i] & 0xC0) != 0x80) return false;
      code = (code << 6) | (p[i] & 0x3F);
    }
    static constexpr uint32_t kSmallest[] = {0, 0, 0x80, 0x800, 0x10000};
    if (code < kSmallest[length] || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) {
      return false;
    }
    p += length;
  }
  return true;
}

// Each Read/Write returns false for a value it leaves to protobuf's JSON utilities.
bool ReadValue(const json& in, Value* out, int depth);

bool ReadStruct(const json& in, Struct* out, int depth) {
  if (!in.is_object() || depth > kDirectDepth) return false;
  auto* fields = out->mutable_fields();
  for (const auto& [key, item] : in.items()) {
    if (!IsUtf8(key) || !ReadValue(item, &(*fields)[key], depth + 1)) return false;
  }
  return true;
}

bool ReadList(const json& in, ListValue* out, int depth) {
  if (!in.is_array() || depth > kDirectDepth) return false;
  out->mutable_values()->Reserve(static_cast<int>(in.size()));
  for (const json& item : in) {
    if (!ReadValue(item, out->add_values(), depth + 1)) return false;
  }
  return true;
}

bool ReadValue(const json& in, Value* out, int depth) {
  switch (in.type()) {
    case json::value_t::null:
      out->set_null_value(google::protobuf::NULL_VALUE);
      return true;
    case json::value_t::boolean:
      out->set_bool_value(in.get<bool>());
      return true;
    // The text path prints the number exactly and parses it back to the nearest double.
    case json::value_t::number_integer:
      out->set_number_value(static_cast<double>(in.get<int64_t>()));
      return true;
    case json::value_t::number_unsigned:
      out->set_number_value(static_cast<double>(in.get<uint64_t>()));
      return true;
    case json::value_t::number_float: {
      const double number = in.get<double>();
      // nlohmann prints a non-finite number as null.
      if (std::isfinite(number)) {
        out->set_number_value(number);
      } else {
        out->set_null_value(google::protobuf::NULL_VALUE);
      }
      return true;
    }
    case json::value_t::string: {
      const std::string& text = in.get_ref<const std::string&>();
      if (!IsUtf8(text)) return false;
      out->set_string_value(text);
      return true;
    }
    case json::value_t::object:
      return ReadStruct(in, out->mutable_struct_value(), depth);
    case json::value_t::array:
      return ReadList(in, out->mutable_list_value(), depth);
    default:
      return false;
  }
}

// A number as protobuf's JSON printer spells it ("%.15g", or "%.17g" when that does not
// read back exactly) and nlohmann then parses it: text with no point, exponent or letter
// is an integer (unsigned unless negative), anything else the double itself.
bool WriteNumber(double number, json* out) {
  if (!std::isfinite(number)) return false;
  char text[32];
  std::snprintf(text, sizeof(text), "%.15g", number);
  if (std::strtod(text, nullptr) != number) std::snprintf(text, sizeof(text), "%.17g", number);
  if (std::strpbrk(text, ".eEnNiI") != nullptr) {
    *out = number;
  } else if (text[0] == '-') {
    *out = static_cast<int64_t>(std::strtoll(text, nullptr, 10));
  } else {
    *out = static_cast<uint64_t>(std::strtoull(text, nullptr, 10));
  }
  return true;
}

bool WriteValue(const Value& in, json* out, int depth);

bool WriteStruct(const Struct& in, json* out, int depth) {
  if (depth > kDirectDepth) return false;
  *out = json::object();
  for (const auto& [key, value] : in.fields()) {
    if (!IsUtf8(key) || !WriteValue(value, &(*out)[key], depth + 1)) return false;
  }
  return true;
}

bool WriteList(const ListValue& in, json* out, int depth) {
  if (depth > kDirectDepth) return false;
  *out = json::array();
  out->get_ref<json::array_t&>().reserve(static_cast<size_t>(in.values_size()));
  for (const Value& value : in.values()) {
    json item;
    if (!WriteValue(value, &item, depth + 1)) return false;
    out->push_back(std::move(item));
  }
  return true;
}

bool WriteValue(const Value& in, json* out, int depth) {
  switch (in.kind_case()) {
    case Value::kNullValue:
      *out = nullptr;
      return true;
    case Value::kNumberValue:
      return WriteNumber(in.number_value(), out);
    case Value::kStringValue:
      if (!IsUtf8(in.string_value())) return false;
      *out = in.string_value();
      return true;
    case Value::kBoolValue:
      *out = in.bool_value();
      return true;
    case Value::kStructValue:
      return WriteStruct(in.struct_value(), out, depth);
    case Value::kListValue:
      return WriteList(in.list_value(), out, depth);
    default:
      return false;  // no kind: protobuf's printer decides
  }
}

}  // namespace

bool IsWellKnownType(const google::protobuf::Descriptor* descriptor) {
  return descriptor->file()->package() == "google.protobuf";
}

absl::Status WellKnownFromJson(const json& value, Message* message, const std::string& path) {
  bool done = false;
  if (auto* as_struct = google::protobuf::DynamicCastToGenerated<Struct>(message)) {
    done = ReadStruct(value, as_struct, 0);
  } else if (auto* as_value = google::protobuf::DynamicCastToGenerated<Value>(message)) {
    done = ReadValue(value, as_value, 0);
  } else if (auto* as_list = google::protobuf::DynamicCastToGenerated<ListValue>(message)) {
    done = ReadList(value, as_list, 0);
  }
  if (done) return absl::OkStatus();
  message->Clear();
  return WellKnownFromJsonViaText(value, message, path);
}

json WellKnownToJson(const Message& message) {
  json out;
  bool done = false;
  if (const auto* as_struct = google::protobuf::DynamicCastToGenerated<Struct>(&message)) {
    done = WriteStruct(*as_struct, &out, 0);
  } else if (const auto* as_value = google::protobuf::DynamicCastToGenerated<Value>(&message)) {
    done = WriteValue(*as_value, &out, 0);
  } else if (const auto* as_list = google::protobuf::DynamicCastToGenerated<ListValue>(&message)) {
    done = WriteList(*as_list, &out, 0);
  }
  return done ? out : WellKnownToJsonViaText(message);
}

absl::Status WellKnownFromJsonViaText(const json& value, Message* message,
                                      const std::string& path) {
  google::protobuf::util::JsonParseOptions options;
  auto status = google::protobuf::util::JsonStringToMessage(
      value.dump(-1, ' ', false, json::error_handler_t::replace), message, options);
  if (!status.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("field '", path.empty() ? std::string("value") : path, "': not a valid ",
                     message->GetDescriptor()->full_name(), ": ", std::string(status.message())));
  }
  return absl::OkStatus();
}

json WellKnownToJsonViaText(const Message& message) {
  std::string text;
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  if (!google::protobuf::util::MessageToJsonString(message, &text, options).ok()) return nullptr;
  return json::parse(text, nullptr, false);
}

}  // namespace labgate::gateway
