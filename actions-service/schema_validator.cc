#include "actions-service/schema_validator.h"

#include <algorithm>
#include <exception>
#include <set>
#include <utility>

#include "actions-service/valijson_errors.h"
#include "valijson/adapters/nlohmann_json_adapter.hpp"
#include "valijson/schema.hpp"
#include "valijson/schema_parser.hpp"
#include "valijson/validation_results.hpp"
#include "valijson/validator.hpp"

namespace labgate::actions {
namespace {

constexpr size_t kMaxQuotedValue = 40;

// One step of a path into a JSON value: a property name or an array index.
struct PathStep {
  std::string name;
  bool is_index = false;
};
using Path = std::vector<PathStep>;

std::string PathText(const Path& path) {
  std::string text;
  for (const PathStep& step : path) {
    if (step.is_index) {
      text += "[" + step.name + "]";
    } else {
      if (!text.empty()) text += ".";
      text += step.name;
    }
  }
  return text;
}

bool PathStartsWith(const Path& path, const Path& prefix) {
  if (prefix.size() > path.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    if (path[i].name != prefix[i].name) return false;
  }
  return true;
}

std::string TypeName(const nlohmann::json& value) {
  switch (value.type()) {
    case nlohmann::json::value_t::null:
      return "null";
    case nlohmann::json::value_t::boolean:
      return "boolean";
    case nlohmann::json::value_t::string:
      return "string";
    case nlohmann::json::value_t::array:
      return "array";
    case nlohmann::json::value_t::object:
      return "object";
    case nlohmann::json::value_t::number_integer:
    case nlohmann::json::value_t::number_unsigned:
    case nlohmann::json::value_t::number_float:
      return "number";
    default:
      return "unknown";
  }
}

// The value at `path` inside `root`, or nullptr.
const nlohmann::json* ValueAt(const nlohmann::json& root, const Path& path) {
  const nlohmann::json* node = &root;
  for (const PathStep& step : path) {
    if (step.is_index) {
      size_t index = std::stoul(step.name);
      if (!node->is_array() || index >= node->size()) return nullptr;
      node = &(*node)[index];
    } else {
      if (!node->is_object()) return nullptr;
      auto it = node->find(step.name);
      if (it == node->end()) return nullptr;
      node = &*it;
    }
  }
  return node;
}

// The subschema that governs `path`, or nullptr when it cannot be followed.
const nlohmann::json* SchemaAt(const nlohmann::json& schema, const Path& path) {
  const nlohmann::json* node = &schema;
  for (const PathStep& step : path) {
    if (!node->is_object()) return nullptr;
    if (step.is_index) {
      auto items = node->find("items");
      if (items == node->end() || !items->is_object()) return nullptr;
      node = &*items;
      continue;
    }
    auto properties = node->find("properties");
    if (properties != node->end() && properties->contains(step.name)) {
      node = &(*properties)[step.name];
      continue;
    }
    auto additional = node->find("additionalProperties");
    if (additional == node->end() || !additional->is_object()) return nullptr;
    node = &*additional;
  }
  return node;
}

std::string ExpectedTypes(const nlohmann::json* schema) {
  if (schema == nullptr || !schema->is_object()) return "another type";
  auto type = schema->find("type");
  if (type == schema->end()) return "another type";
  if (type->is_string()) return type->get<std::string>();
  std::string text;
  if (type->is_array()) {
    for (const nlohmann::json& entry : *type) {
      if (!entry.is_string()) continue;
      if (!text.empty()) text += " or ";
      text += entry.get<std::string>();
    }
  }
  return text.empty() ? "another type" : text;
}

std::string Quoted(const nlohmann::json* value) {
  if (value == nullptr) return "nothing";
  std::string text = value->is_string()
                         ? value->get<std::string>()
                         : value->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (text.size() > kMaxQuotedValue) {
    size_t cut = kMaxQuotedValue;
    // Do not split a UTF-8 sequence.
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
    text = text.substr(0, cut) + "...";
  }
  return "'" + text + "'";
}

std::string EnumValues(const nlohmann::json* schema) {
  std::string text;
  if (schema == nullptr || !schema->contains("enum") || !(*schema)["enum"].is_array()) return text;
  for (const nlohmann::json& entry : (*schema)["enum"]) {
    if (!text.empty()) text += ", ";
    text += entry.is_string() ? entry.get<std::string>() : entry.dump();
  }
  return text;
}

// Required fields that are absent, null or "", in each schema's "required" order.
void FindEmptyRequired(const nlohmann::json& schema, const nlohmann::json& value, Path& path,
                       std::vector<Path>* found) {
  if (!schema.is_object()) return;
  if (value.is_object()) {
    auto required = schema.find("required");
    if (required != schema.end() && required->is_array()) {
      for (const nlohmann::json& name : *required) {
        if (!name.is_string()) continue;
        auto it = value.find(name.get<std::string>());
        if (it == value.end() || it->is_null() ||
            (it->is_string() && it->get_ref<const std::string&>().empty())) {
          path.push_back({name.get<std::string>(), false});
          found->push_back(path);
          path.pop_back();
        }
      }
    }
    auto properties = schema.find("properties");
    if (properties != schema.end() && properties->is_object()) {
      for (auto it = value.begin(); it != value.end(); ++it) {
        auto property = properties->find(it.key());
        if (property == properties->end()) continue;
        path.push_back({it.key(), false});
        FindEmptyRequired(*property, it.value(), path, found);
        path.pop_back();
      }
    }
  } else if (value.is_array()) {
    auto items = schema.find("items");
    if (items == schema.end()) return;
    for (size_t i = 0; i < value.size(); ++i) {
      path.push_back({std::to_string(i), true});
      FindEmptyRequired(*items, value[i], path, found);
      path.pop_back();
    }
  }
}

Path ParseContext(const nlohmann::json& root, const std::vector<std::string>& context) {
  Path path;
  const nlohmann::json* node = &root;
  for (const std::string& element : context) {
    if (element == "<root>") continue;
    std::string name = element;
    if (name.size() >= 2 && name.front() == '[' && name.back() == ']') {
      name = name.substr(1, name.size() - 2);
    }
    bool is_index = node != nullptr && node->is_array();
    path.push_back({name, is_index});
    node = node == nullptr ? nullptr : ValueAt(*node, {path.back()});
  }
  return path;
}

struct Issue {
  int rank;  // ordering within one field: unknown field, type, enum, other
  Path path;
  std::string text;
};

}  // namespace

absl::StatusOr<std::unique_ptr<SchemaValidator>> SchemaValidator::Create(
    const nlohmann::json& schema) {
  std::unique_ptr<SchemaValidator> validator(new SchemaValidator());
  validator->schema_ = schema;
  validator->compiled_ = std::make_unique<valijson::Schema>();
  try {
    valijson::SchemaParser parser(valijson::SchemaParser::kDraft7);
    valijson::adapters::NlohmannJsonAdapter adapter(validator->schema_);
    parser.populateSchema(adapter, *validator->compiled_);
  } catch (const std::exception& error) {
    return absl::InvalidArgumentError(std::string("invalid JSON Schema: ") + error.what());
  }
  return validator;
}

SchemaValidator::~SchemaValidator() = default;

std::vector<std::string> SchemaValidator::Validate(const nlohmann::json& value) const {
  std::vector<Path> empty_required;
  Path scratch;
  FindEmptyRequired(schema_, value, scratch, &empty_required);

  valijson::ValidationResults results;
  bool valid = false;
  try {
    // A Validator caches regexes, so each call gets its own.
    valijson::Validator validator(valijson::Validator::kStrongTypes);
    valid =
        validator.validate(*compiled_, valijson::adapters::NlohmannJsonAdapter(value), &results);
  } catch (const std::exception& error) {
    return {std::string("Schema validation could not run: ") + error.what()};
  }

  std::vector<std::string> errors;
  for (const Path& path : empty_required) {
    errors.push_back("Required field '" + PathText(path) + "' is missing or empty");
  }
  if (valid) return errors;

  auto covered = [&](const Path& path) {
    return std::any_of(empty_required.begin(), empty_required.end(),
                       [&](const Path& prefix) { return PathStartsWith(path, prefix); });
  };

  std::vector<Issue> issues;
  std::set<std::string> typed_paths;
  for (const valijson::ValidationResults::Error& error : results) {
    Path path = ParseContext(value, error.context);
    const std::string& description = error.description;
    const ValijsonErrorKind kind = ClassifyValijsonError(description);
    if (kind == ValijsonErrorKind::kChildFailed) continue;
    if (kind == ValijsonErrorKind::kMissingRequired) {
      path.push_back({NamedProperty(description), false});
      if (covered(path)) continue;
      errors.push_back("Required field '" + PathText(path) + "' is missing or empty");
      continue;
    }
    if (covered(path)) continue;
    if (kind == ValijsonErrorKind::kUnknownProperty) {
      // valijson names only the first unknown property; list them all.
      std::vector<std::string> unknown;
      const nlohmann::json* object_schema = SchemaAt(schema_, path);
      const nlohmann::json* object = ValueAt(value, path);
      if (object_schema != nullptr && object != nullptr && object->is_object() &&
          !object_schema->contains("patternProperties")) {
        const nlohmann::json properties =
            object_schema->value("properties", nlohmann::json::object());
        for (auto it = object->begin(); it != object->end(); ++it) {
          if (!properties.contains(it.key())) unknown.push_back(it.key());
        }
      }
      if (unknown.empty()) unknown.push_back(NamedProperty(description));
      for (const std::string& name : unknown) {
        Path field = path;
        field.push_back({name, false});
        issues.push_back({0, field, "Unknown field '" + PathText(field) + "' is not allowed"});
      }
      continue;
    }
    const nlohmann::json* field_schema = SchemaAt(schema_, path);
    const nlohmann::json* field_value = ValueAt(value, path);
    if (kind == ValijsonErrorKind::kWrongType) {
      std::string actual = field_value == nullptr ? "nothing" : TypeName(*field_value);
      std::string expected = ExpectedTypes(field_schema);
      if (path.empty()) {
        issues.push_back({1, path, "Input must be a JSON " + expected + ", got " + actual});
      } else {
        issues.push_back(
            {1, path,
             "Field '" + PathText(path) + "' must be of type " + expected + ", got " + actual});
      }
      typed_paths.insert(PathText(path));
      continue;
    }
    if (kind == ValijsonErrorKind::kNotInEnum) {
      issues.push_back({2, path,
                        "Field '" + PathText(path) + "' must be one of: " +
                            EnumValues(field_schema) + " (got " + Quoted(field_value) + ")"});
      continue;
    }
    std::string where = path.empty() ? "Input" : "Field '" + PathText(path) + "'";
    std::string text = description;
    if (!text.empty() && text.back() == '.') text.pop_back();
    issues.push_back({3, path, where + ": " + text});
  }

  std::stable_sort(issues.begin(), issues.end(), [](const Issue& a, const Issue& b) {
    std::string pa = PathText(a.path), pb = PathText(b.path);
    if (pa != pb) return pa < pb;
    return a.rank < b.rank;
  });
  std::set<std::string> seen(errors.begin(), errors.end());
  for (const Issue& issue : issues) {
    // A value of the wrong type fails its enum too; the type error says enough.
    if (issue.rank >= 2 && typed_paths.count(PathText(issue.path)) > 0) continue;
    if (!seen.insert(issue.text).second) continue;
    errors.push_back(issue.text);
  }
  if (errors.empty()) errors.push_back("Input does not match its schema");
  return errors;
}

void SchemaValidator::ApplyDefaults(nlohmann::json& value) const {
  if (!value.is_object()) return;
  auto properties = schema_.find("properties");
  if (properties == schema_.end() || !properties->is_object()) return;
  for (auto it = properties->begin(); it != properties->end(); ++it) {
    if (!it->is_object() || !it->contains("default")) continue;
    if (!value.contains(it.key())) value[it.key()] = (*it)["default"];
  }
}

}  // namespace labgate::actions
