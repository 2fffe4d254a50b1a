#include "gateway/catalog/tool_schema.h"

#include <set>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "gateway/catalog/json_proto.h"
#include "labgate/mcp/v1/annotations.pb.h"

namespace labgate::gateway {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using nlohmann::json;

json WellKnownSchema(const Descriptor* descriptor) {
  const std::string& name = descriptor->full_name();
  if (name == "google.protobuf.Struct") return {{"type", "object"}};
  if (name == "google.protobuf.ListValue") return {{"type", "array"}};
  if (name == "google.protobuf.Value") return json::object();
  if (name == "google.protobuf.Timestamp") return {{"type", "string"}, {"format", "date-time"}};
  if (name == "google.protobuf.Duration") return {{"type", "string"}};
  if (name == "google.protobuf.Empty") return {{"type", "object"}};
  return json::object();  // wrappers and the rest: accept what protobuf's JSON accepts
}

class SchemaBuilder {
 public:
  explicit SchemaBuilder(SchemaRole role) : role_(role) {}

  json Message(const Descriptor* descriptor) {
    if (descriptor->file()->package() == "google.protobuf") return WellKnownSchema(descriptor);
    // A message that contains itself is described once; deeper levels are open objects.
    if (!in_progress_.insert(descriptor).second) return {{"type", "object"}};
    json properties = json::object();
    json required = json::array();
    for (int i = 0; i < descriptor->field_count(); ++i) {
      const FieldDescriptor* field = descriptor->field(i);
      properties[field->name()] = Field(field);
      if (IsRequired(field)) required.push_back(field->name());
    }
    in_progress_.erase(descriptor);
    json schema = {{"type", "object"}, {"properties", std::move(properties)}};
    if (!required.empty()) schema["required"] = std::move(required);
    if (role_ == SchemaRole::kInput) schema["additionalProperties"] = false;
    return schema;
  }

 private:
  bool IsRequired(const FieldDescriptor* field) const {
    if (role_ == SchemaRole::kOutput) return !field->has_presence();
    return Options(field).required();
  }

  static const labgate::mcp::v1::FieldOptions& Options(const FieldDescriptor* field) {
    return field->options().GetExtension(labgate::mcp::v1::field);
  }

  json Field(const FieldDescriptor* field) {
    json schema;
    if (field->is_map()) {
      schema = {{"type", "object"},
                {"additionalProperties", Single(field->message_type()->map_value())}};
    } else if (field->is_repeated()) {
      schema = {{"type", "array"}, {"items", Single(field)}};
    } else {
      schema = Single(field);
    }
    const auto& options = Options(field);
    if (!options.description().empty()) schema["description"] = options.description();
    if (role_ == SchemaRole::kInput && !options.default_json().empty()) {
      json parsed = json::parse(options.default_json(), nullptr, false);
      if (!parsed.is_discarded()) schema["default"] = std::move(parsed);
    }
    if (options.has_minimum()) schema["minimum"] = options.minimum();
    if (options.has_maximum()) schema["maximum"] = options.maximum();
    return schema;
  }

  json Single(const FieldDescriptor* field) {
    switch (field->cpp_type()) {
      case FieldDescriptor::CPPTYPE_INT32:
      case FieldDescriptor::CPPTYPE_INT64:
        return {{"type", "integer"}};
      case FieldDescriptor::CPPTYPE_UINT32:
      case FieldDescriptor::CPPTYPE_UINT64:
        return {{"type", "integer"}, {"minimum", 0}};
      case FieldDescriptor::CPPTYPE_DOUBLE:
      case FieldDescriptor::CPPTYPE_FLOAT:
        return {{"type", "number"}};
      case FieldDescriptor::CPPTYPE_BOOL:
        return {{"type", "boolean"}};
      case FieldDescriptor::CPPTYPE_STRING:
        if (field->type() == FieldDescriptor::TYPE_BYTES) {
          return {{"type", "string"}, {"contentEncoding", "base64"}};
        }
        return {{"type", "string"}};
      case FieldDescriptor::CPPTYPE_ENUM:
        return Enum(field);
      case FieldDescriptor::CPPTYPE_MESSAGE:
        return Message(field->message_type());
    }
    return json::object();
  }

  json Enum(const FieldDescriptor* field) {
    json names = json::array();
    std::vector<std::string> aliases;
    const auto* type = field->enum_type();
    for (int i = 0; i < type->value_count(); ++i) {
      const auto* value = type->value(i);
      bool unspecified = value->number() == 0 && absl::EndsWith(value->name(), "_UNSPECIFIED");
      // Outputs can carry the zero value; inputs leave it out by omitting the field.
      if (unspecified && role_ == SchemaRole::kInput) continue;
      names.push_back(EnumValueJsonName(value));
      const auto& spelling = value->options().GetExtension(labgate::mcp::v1::value);
      for (const std::string& alias : spelling.aliases()) aliases.push_back(alias);
    }
    json schema = {{"type", "string"}, {"enum", std::move(names)}};
    if (role_ == SchemaRole::kInput && !aliases.empty()) {
      // Seed spellings are accepted too; say so without widening the enum.
      schema["$comment"] = "Also accepted: " + absl::StrJoin(aliases, ", ");
    }
    return schema;
  }

  SchemaRole role_;
  std::set<const Descriptor*> in_progress_;
};

}  // namespace

json MessageSchema(const Descriptor* descriptor, SchemaRole role) {
  return SchemaBuilder(role).Message(descriptor);
}

}  // namespace labgate::gateway
