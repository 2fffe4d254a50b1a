#include "actions-service/struct_json.h"

#include <cmath>

namespace labgate::actions {

nlohmann::json ValueToJson(const google::protobuf::Value& value) {
  switch (value.kind_case()) {
    case google::protobuf::Value::kBoolValue:
      return value.bool_value();
    case google::protobuf::Value::kStringValue:
      return value.string_value();
    case google::protobuf::Value::kNumberValue: {
      double number = value.number_value();
      if (!std::isfinite(number)) return nullptr;
      constexpr double kMaxExactInteger = 9007199254740992.0;  // 2^53
      if (std::trunc(number) == number && std::fabs(number) <= kMaxExactInteger) {
        return static_cast<int64_t>(number);
      }
      return number;
    }
    case google::protobuf::Value::kStructValue:
      return StructToJson(value.struct_value());
    case google::protobuf::Value::kListValue: {
      nlohmann::json list = nlohmann::json::array();
      for (const google::protobuf::Value& item : value.list_value().values()) {
        list.push_back(ValueToJson(item));
      }
      return list;
    }
    case google::protobuf::Value::kNullValue:
    default:
      return nullptr;
  }
}

nlohmann::json StructToJson(const google::protobuf::Struct& value) {
  nlohmann::json object = nlohmann::json::object();
  for (const auto& [key, field] : value.fields()) object[key] = ValueToJson(field);
  return object;
}

void JsonToValue(const nlohmann::json& value, google::protobuf::Value* out) {
  switch (value.type()) {
    case nlohmann::json::value_t::boolean:
      out->set_bool_value(value.get<bool>());
      break;
    case nlohmann::json::value_t::string:
      out->set_string_value(value.get<std::string>());
      break;
    case nlohmann::json::value_t::number_integer:
    case nlohmann::json::value_t::number_unsigned:
    case nlohmann::json::value_t::number_float:
      out->set_number_value(value.get<double>());
      break;
    case nlohmann::json::value_t::object: {
      google::protobuf::Struct* object = out->mutable_struct_value();
      for (auto it = value.begin(); it != value.end(); ++it) {
        JsonToValue(it.value(), &(*object->mutable_fields())[it.key()]);
      }
      break;
    }
    case nlohmann::json::value_t::array: {
      google::protobuf::ListValue* list = out->mutable_list_value();
      for (const nlohmann::json& item : value) JsonToValue(item, list->add_values());
      break;
    }
    default:
      out->set_null_value(google::protobuf::NULL_VALUE);
      break;
  }
}

absl::StatusOr<google::protobuf::Struct> JsonToStruct(const nlohmann::json& value) {
  if (!value.is_object()) return absl::InvalidArgumentError("expected a JSON object");
  google::protobuf::Struct object;
  for (auto it = value.begin(); it != value.end(); ++it) {
    JsonToValue(it.value(), &(*object.mutable_fields())[it.key()]);
  }
  return object;
}

}  // namespace labgate::actions
