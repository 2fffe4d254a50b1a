#include "gateway/catalog/json_proto.h"

#include <google/protobuf/descriptor.h>

#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gateway/catalog/well_known_json.h"
#include "labgate/mcp/v1/annotations.pb.h"

namespace labgate::gateway {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::EnumDescriptor;
using google::protobuf::EnumValueDescriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;
using nlohmann::json;

std::string Lower(const std::string& text) { return absl::AsciiStrToLower(text); }

std::string JoinPath(const std::string& prefix, const std::string& name) {
  return prefix.empty() ? name : absl::StrCat(prefix, ".", name);
}

absl::Status FieldError(const std::string& path, const std::string& what) {
  return absl::InvalidArgumentError(absl::StrCat("field '", path, "': ", what));
}

const char* JsonTypeName(const json& value) {
  switch (value.type()) {
    case json::value_t::null:
      return "null";
    case json::value_t::object:
      return "an object";
    case json::value_t::array:
      return "an array";
    case json::value_t::string:
      return "a string";
    case json::value_t::boolean:
      return "a boolean";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
      return "an integer";
    case json::value_t::number_float:
      return "a number";
    default:
      return "an unsupported value";
  }
}

// Reads an integral JSON value (integer, integral float, or digit string) into the
// range [min, max].
template <typename T>
absl::Status ReadInteger(const json& value, const std::string& path, T* out) {
  constexpr T kMin = std::numeric_limits<T>::min();
  constexpr T kMax = std::numeric_limits<T>::max();
  const std::string range = absl::StrCat(" (range ", kMin, " to ", kMax, ")");
  if (value.is_number_unsigned()) {
    uint64_t v = value.get<uint64_t>();
    if (v > static_cast<uint64_t>(kMax))
      return FieldError(path, absl::StrCat(v, " is out of range", range));
    *out = static_cast<T>(v);
    return absl::OkStatus();
  }
  if (value.is_number_integer()) {
    int64_t v = value.get<int64_t>();
    if constexpr (std::is_unsigned_v<T>) {
      if (v < 0) return FieldError(path, absl::StrCat(v, " is out of range", range));
      if (static_cast<uint64_t>(v) > static_cast<uint64_t>(kMax)) {
        return FieldError(path, absl::StrCat(v, " is out of range", range));
      }
    } else {
      if (v < static_cast<int64_t>(kMin) || v > static_cast<int64_t>(kMax)) {
        return FieldError(path, absl::StrCat(v, " is out of range", range));
      }
    }
    *out = static_cast<T>(v);
    return absl::OkStatus();
  }
  if (value.is_number_float()) {
    double v = value.get<double>();
    if (!std::isfinite(v) || std::floor(v) != v) {
      return FieldError(path, absl::StrCat("expected an integer, got ", value.dump()));
    }
    // 2^digits bounds the range from above and, unlike kMax of a 64-bit type (which rounds
    // up to it), is exact as a double: casting a value at that bound would overflow.
    if (v < static_cast<double>(kMin) || v >= std::ldexp(1.0, std::numeric_limits<T>::digits)) {
      return FieldError(path, absl::StrCat(value.dump(), " is out of range", range));
    }
    *out = static_cast<T>(v);
    return absl::OkStatus();
  }
  if (value.is_string()) {
    const std::string& text = value.get_ref<const std::string&>();
    if constexpr (std::is_unsigned_v<T>) {
      uint64_t v = 0;
      if (absl::SimpleAtoi(text, &v) && v <= static_cast<uint64_t>(kMax)) {
        *out = static_cast<T>(v);
        return absl::OkStatus();
      }
    } else {
      int64_t v = 0;
      if (absl::SimpleAtoi(text, &v) && v >= static_cast<int64_t>(kMin) &&
          v <= static_cast<int64_t>(kMax)) {
        *out = static_cast<T>(v);
        return absl::OkStatus();
      }
    }
    return FieldError(path, absl::StrCat("expected an integer", range, ", got \"", text, "\""));
  }
  return FieldError(path, absl::StrCat("expected an integer, got ", JsonTypeName(value)));
}

absl::Status ReadDouble(const json& value, const std::string& path, double* out) {
  if (value.is_number()) {
    *out = value.get<double>();
    return absl::OkStatus();
  }
  if (value.is_string()) {
    const std::string& text = value.get_ref<const std::string&>();
    if (text == "NaN") {
      *out = std::numeric_limits<double>::quiet_NaN();
      return absl::OkStatus();
    }
    if (text == "Infinity" || text == "-Infinity") {
      *out = text[0] == '-' ? -std::numeric_limits<double>::infinity()
                            : std::numeric_limits<double>::infinity();
      return absl::OkStatus();
    }
    if (absl::SimpleAtod(text, out)) return absl::OkStatus();
  }
  return FieldError(path, absl::StrCat("expected a number, got ", JsonTypeName(value)));
}

std::vector<std::string> EnumSpellings(const EnumDescriptor* type) {
  std::vector<std::string> names;
  for (int i = 0; i < type->value_count(); ++i) {
    const EnumValueDescriptor* value = type->value(i);
    if (value->number() == 0 && absl::EndsWith(value->name(), "_UNSPECIFIED")) continue;
    names.push_back(EnumValueJsonName(value));
  }
  return names;
}

// The enum value's name without the type's UPPER_SNAKE prefix: DATA_BITS_EIGHT -> EIGHT.
std::string ShortEnumName(const EnumValueDescriptor* value) {
  std::string prefix;
  for (char c : value->type()->name()) {
    if (absl::ascii_isupper(static_cast<unsigned char>(c)) && !prefix.empty()) prefix += '_';
    prefix += absl::ascii_toupper(static_cast<unsigned char>(c));
  }
  prefix += '_';
  if (absl::StartsWith(value->name(), prefix)) return value->name().substr(prefix.size());
  return value->name();
}

absl::StatusOr<const EnumValueDescriptor*> ReadEnum(const json& value, const EnumDescriptor* type,
                                                    const std::string& path) {
  auto invalid = [&](const std::string& shown) {
    return FieldError(path, absl::StrCat("invalid value ", shown, " (allowed: ",
                                         absl::StrJoin(EnumSpellings(type), ", "), ")"));
  };
  if (value.is_number_integer() || value.is_number_unsigned()) {
    int64_t number = value.get<int64_t>();
    if (number >= std::numeric_limits<int>::min() && number <= std::numeric_limits<int>::max()) {
      if (const auto* found = type->FindValueByNumber(static_cast<int>(number))) return found;
    }
    return invalid(value.dump());
  }
  if (!value.is_string()) return invalid(absl::StrCat("of type ", JsonTypeName(value)));
  const std::string wanted = Lower(value.get<std::string>());
  for (int i = 0; i < type->value_count(); ++i) {
    const EnumValueDescriptor* candidate = type->value(i);
    if (Lower(candidate->name()) == wanted || Lower(ShortEnumName(candidate)) == wanted) {
      return candidate;
    }
    if (candidate->options().HasExtension(labgate::mcp::v1::value)) {
      const auto& spelling = candidate->options().GetExtension(labgate::mcp::v1::value);
      if (Lower(spelling.name()) == wanted) return candidate;
      for (const std::string& alias : spelling.aliases()) {
        if (Lower(alias) == wanted) return candidate;
      }
    }
  }
  return invalid(absl::StrCat("'", value.get<std::string>(), "'"));
}

absl::Status ReadMessage(const json& value, Message* message, const std::string& path, int depth);

// Converts one scalar/enum/message JSON value and stores it with `set` semantics
// (singular) or `add` semantics (repeated).
absl::Status ReadValue(const json& value, Message* message, const FieldDescriptor* field,
                       bool repeated, const std::string& path, int depth) {
  const Reflection* reflection = message->GetReflection();
  switch (field->cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT32: {
      int32_t v = 0;
      if (auto s = ReadInteger(value, path, &v); !s.ok()) return s;
      repeated ? reflection->AddInt32(message, field, v) : reflection->SetInt32(message, field, v);
      return absl::OkStatus();
    }
    case FieldDescriptor::CPPTYPE_INT64: {
      int64_t v = 0;
      if (auto s = ReadInteger(value, path, &v); !s.ok()) return s;
      repeated ? reflection->AddInt64(message, field, v) : reflection->SetInt64(message, field, v);
      return absl::OkStatus();
    }
    case FieldDescriptor::CPPTYPE_UINT32: {
      uint32_t v = 0;
      if (auto s = ReadInteger(value, path, &v); !s.ok()) return s;
      repeated ? reflection->AddUInt32(message, field, v)
               : reflection->SetUInt32(message, field, v);
      return absl::OkStatus();
    }
    case FieldDescriptor::CPPTYPE_UINT64: {
      uint64_t v = 0;
      if (auto s = ReadInteger(value, path, &v); !s.ok()) return s;
      repeated ? reflection->AddUInt64(message, field, v)
               : reflection->SetUInt64(message, field, v);
      return absl::OkStatus();
    }
    case FieldDescriptor::CPPTYPE_DOUBLE:
    case FieldDescriptor::CPPTYPE_FLOAT: {
      double v = 0;
      if (auto s = ReadDouble(value, path, &v); !s.ok()) return s;
      if (field->cpp_type() == FieldDescriptor::CPPTYPE_DOUBLE) {
        repeated ? reflection->AddDouble(message, field, v)
                 : reflection->SetDouble(message, field, v);
      } else {
        repeated ? reflection->AddFloat(message, field, static_cast<float>(v))
                 : reflection->SetFloat(message, field, static_cast<float>(v));
      }
      return absl::OkStatus();
    }
    case FieldDescriptor::CPPTYPE_BOOL: {
      if (!value.is_boolean()) {
        return FieldError(path, absl::StrCat("expected a boolean, got ", JsonTypeName(value)));
      }
      bool v = value.get<bool>();
      repeated ? reflection->AddBool(message, field, v) : reflection->SetBool(message, field, v);
      return absl::OkStatus();
    }
    case FieldDescriptor::CPPTYPE_STRING: {
      if (!value.is_string()) {
        return FieldError(path, absl::StrCat("expected a string, got ", JsonTypeName(value)));
      }
      std::string v = value.get<std::string>();
      if (field->type() == FieldDescriptor::TYPE_BYTES) {
        std::string decoded;
        if (!absl::Base64Unescape(v, &decoded) && !absl::WebSafeBase64Unescape(v, &decoded)) {
          return FieldError(path, "expected base64 data");
        }
        v = std::move(decoded);
      }
      repeated ? reflection->AddString(message, field, std::move(v))
               : reflection->SetString(message, field, std::move(v));
      return absl::OkStatus();
    }
    case FieldDescriptor::CPPTYPE_ENUM: {
      auto found = ReadEnum(value, field->enum_type(), path);
      if (!found.ok()) return found.status();
      repeated ? reflection->AddEnumValue(message, field, (*found)->number())
               : reflection->SetEnumValue(message, field, (*found)->number());
      return absl::OkStatus();
    }
    case FieldDescriptor::CPPTYPE_MESSAGE: {
      Message* child = repeated ? reflection->AddMessage(message, field)
                                : reflection->MutableMessage(message, field);
      if (IsWellKnownType(field->message_type())) return WellKnownFromJson(value, child, path);
      return ReadMessage(value, child, path, depth + 1);
    }
  }
  return FieldError(path, "unsupported field type");
}

absl::Status ReadMapEntry(const std::string& key, const json& value, Message* message,
                          const FieldDescriptor* field, const std::string& path, int depth) {
  const Reflection* reflection = message->GetReflection();
  Message* entry = reflection->AddMessage(message, field);
  const Descriptor* entry_type = field->message_type();
  const FieldDescriptor* key_field = entry_type->map_key();
  const FieldDescriptor* value_field = entry_type->map_value();
  json key_json = key;
  if (key_field->cpp_type() == FieldDescriptor::CPPTYPE_BOOL) {
    if (key != "true" && key != "false") return FieldError(path, "map key must be true or false");
    key_json = key == "true";
  }
  const std::string entry_path = absl::StrCat(path, "[\"", key, "\"]");
  if (auto s = ReadValue(key_json, entry, key_field, false, entry_path, depth); !s.ok()) return s;
  return ReadValue(value, entry, value_field, false, entry_path, depth);
}

constexpr int kMaxDepth = 64;

absl::Status ReadMessage(const json& value, Message* message, const std::string& path, int depth) {
  if (depth > kMaxDepth) return FieldError(path, "nested too deeply");
  if (!value.is_object()) {
    return absl::InvalidArgumentError(
        path.empty()
            ? absl::StrCat("arguments must be an object, got ", JsonTypeName(value))
            : absl::StrCat("field '", path, "': expected an object, got ", JsonTypeName(value)));
  }
  const Descriptor* descriptor = message->GetDescriptor();
  const Reflection* reflection = message->GetReflection();
  for (const auto& [key, item] : value.items()) {
    const FieldDescriptor* field = descriptor->FindFieldByName(key);
    if (field == nullptr) field = descriptor->FindFieldByCamelcaseName(key);
    const std::string field_path = JoinPath(path, key);
    if (field == nullptr) {
      std::vector<std::string> allowed;
      allowed.reserve(descriptor->field_count());
      for (int i = 0; i < descriptor->field_count(); ++i) {
        allowed.push_back(descriptor->field(i)->name());
      }
      return absl::InvalidArgumentError(absl::StrCat(
          "unknown field '", field_path, "' (allowed: ", absl::StrJoin(allowed, ", "), ")"));
    }
    if (item.is_null()) continue;
    if (const auto* oneof = field->real_containing_oneof()) {
      if (reflection->HasOneof(*message, oneof)) {
        return FieldError(field_path,
                          absl::StrCat("only one of the '", oneof->name(), "' fields may be set"));
      }
    }
    if (field->is_map()) {
      if (!item.is_object()) {
        return FieldError(field_path, absl::StrCat("expected an object, got ", JsonTypeName(item)));
      }
      for (const auto& [map_key, map_value] : item.items()) {
        if (auto s = ReadMapEntry(map_key, map_value, message, field, field_path, depth); !s.ok()) {
          return s;
        }
      }
    } else if (field->is_repeated()) {
      if (!item.is_array()) {
        return FieldError(field_path, absl::StrCat("expected an array, got ", JsonTypeName(item)));
      }
      for (size_t i = 0; i < item.size(); ++i) {
        auto s =
            ReadValue(item[i], message, field, true, absl::StrCat(field_path, "[", i, "]"), depth);
        if (!s.ok()) return s;
      }
    } else {
      if (auto s = ReadValue(item, message, field, false, field_path, depth); !s.ok()) return s;
    }
  }
  return absl::OkStatus();
}

json WriteMessage(const Message& message);

json WriteValue(const Message& message, const FieldDescriptor* field, int index) {
  const Reflection* r = message.GetReflection();
  const bool rep = index >= 0;
  switch (field->cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT32:
      return rep ? r->GetRepeatedInt32(message, field, index) : r->GetInt32(message, field);
    case FieldDescriptor::CPPTYPE_INT64:
      return rep ? r->GetRepeatedInt64(message, field, index) : r->GetInt64(message, field);
    case FieldDescriptor::CPPTYPE_UINT32:
      return rep ? r->GetRepeatedUInt32(message, field, index) : r->GetUInt32(message, field);
    case FieldDescriptor::CPPTYPE_UINT64:
      return rep ? r->GetRepeatedUInt64(message, field, index) : r->GetUInt64(message, field);
    case FieldDescriptor::CPPTYPE_DOUBLE:
      return rep ? r->GetRepeatedDouble(message, field, index) : r->GetDouble(message, field);
    case FieldDescriptor::CPPTYPE_FLOAT:
      return rep ? r->GetRepeatedFloat(message, field, index) : r->GetFloat(message, field);
    case FieldDescriptor::CPPTYPE_BOOL:
      return rep ? r->GetRepeatedBool(message, field, index) : r->GetBool(message, field);
    case FieldDescriptor::CPPTYPE_STRING: {
      std::string value =
          rep ? r->GetRepeatedString(message, field, index) : r->GetString(message, field);
      if (field->type() == FieldDescriptor::TYPE_BYTES) return absl::Base64Escape(value);
      return value;
    }
    case FieldDescriptor::CPPTYPE_ENUM: {
      int number =
          rep ? r->GetRepeatedEnumValue(message, field, index) : r->GetEnumValue(message, field);
      const EnumValueDescriptor* value = field->enum_type()->FindValueByNumber(number);
      if (value == nullptr) return number;
      return EnumValueJsonName(value);
    }
    case FieldDescriptor::CPPTYPE_MESSAGE: {
      const Message& child =
          rep ? r->GetRepeatedMessage(message, field, index) : r->GetMessage(message, field);
      if (IsWellKnownType(field->message_type())) return WellKnownToJson(child);
      return WriteMessage(child);
    }
  }
  return nullptr;
}

// One field's member: its value, or nullopt when the document leaves it out (a field with
// presence that is not set).
std::optional<json> WriteField(const Message& message, const FieldDescriptor* field) {
  const Reflection* reflection = message.GetReflection();
  if (field->is_map()) {
    json map = json::object();
    const FieldDescriptor* key_field = field->message_type()->map_key();
    const FieldDescriptor* value_field = field->message_type()->map_value();
    for (int j = 0; j < reflection->FieldSize(message, field); ++j) {
      const Message& entry = reflection->GetRepeatedMessage(message, field, j);
      json key = WriteValue(entry, key_field, -1);
      map[key.is_string() ? key.get<std::string>() : key.dump()] =
          WriteValue(entry, value_field, -1);
    }
    return map;
  }
  if (field->is_repeated()) {
    json items = json::array();
    for (int j = 0; j < reflection->FieldSize(message, field); ++j) {
      items.push_back(WriteValue(message, field, j));
    }
    return items;
  }
  if (!field->has_presence() || reflection->HasField(message, field)) {
    return WriteValue(message, field, -1);
  }
  return std::nullopt;
}

json WriteMessage(const Message& message) {
  const Descriptor* descriptor = message.GetDescriptor();
  json out = json::object();
  for (int i = 0; i < descriptor->field_count(); ++i) {
    const FieldDescriptor* field = descriptor->field(i);
    if (std::optional<json> value = WriteField(message, field)) {
      out[field->name()] = *std::move(value);
    }
  }
  return out;
}

}  // namespace

std::string EnumValueJsonName(const EnumValueDescriptor* value) {
  if (value->options().HasExtension(labgate::mcp::v1::value)) {
    const auto& spelling = value->options().GetExtension(labgate::mcp::v1::value);
    if (!spelling.name().empty()) return spelling.name();
  }
  return value->name();
}

absl::Status JsonToProto(const json& value, Message* message) {
  if (IsWellKnownType(message->GetDescriptor())) return WellKnownFromJson(value, message, "");
  return ReadMessage(value, message, "", 0);
}

json ProtoToJson(const Message& message) {
  if (IsWellKnownType(message.GetDescriptor())) return WellKnownToJson(message);
  return WriteMessage(message);
}

json ProtoMemberToJson(const Message& message, const std::string& name) {
  if (IsWellKnownType(message.GetDescriptor())) return ProtoToJson(message).value(name, json());
  const FieldDescriptor* field = message.GetDescriptor()->FindFieldByName(name);
  if (field == nullptr) return nullptr;
  return WriteField(message, field).value_or(nullptr);
}

}  // namespace labgate::gateway
