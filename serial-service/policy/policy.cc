#include "serial-service/policy/policy.h"

#include <fnmatch.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/json_schema_check.h"
#include "serial-service/ports/line_sequence_json.h"

namespace labgate::serial {
namespace {

using nlohmann::json;

// Every object closes its keys, so a misspelt rule is an error, never silently ignored.
constexpr char kSchema[] = R"json({
  "$schema": "http://json-schema.org/draft-07/schema#",
  "type": "object",
  "additionalProperties": false,
  "required": ["ports"],
  "properties": {
    "ports": {"type": "array", "items": {"$ref": "#/definitions/port"}},
    "show_denied": {"type": "boolean"},
    "confirm_exempt": {"type": "array", "items": {"type": "string", "minLength": 1}}
  },
  "definitions": {
    "rule": {
      "type": "object",
      "additionalProperties": false,
      "required": ["name", "pattern"],
      "properties": {
        "name": {"type": "string", "minLength": 1},
        "pattern": {"type": "string", "minLength": 1}
      }
    },
    "port": {
      "type": "object",
      "additionalProperties": false,
      "required": ["match"],
      "properties": {
        "match": {"type": "string", "minLength": 1},
        "allow": {"type": "boolean"},
        "read_only": {"type": "boolean"},
        "max_baud": {"type": "integer", "minimum": 1},
        "deny": {"type": "array", "items": {"$ref": "#/definitions/rule"}},
        "confirm": {"type": "array", "items": {"$ref": "#/definitions/rule"}},
        "max_writes_per_s": {"type": "number", "exclusiveMinimum": 0},
        "signals": {"$ref": "#/definitions/signals"},
        "sequences": {
          "type": "object",
          "additionalProperties": {"$ref": "#/definitions/sequence"}
        }
      }
    },
    "signals": {"enum": ["allow", "deny", "confirm"]},
    "sequence": {
      "type": "object",
      "additionalProperties": false,
      "required": ["steps"],
      "properties": {
        "steps": {"type": "array", "minItems": 1, "maxItems": 32,
                  "items": {"$ref": "#/definitions/step"}},
        "signals": {"$ref": "#/definitions/signals"}
      }
    }
  }
})json";

absl::Status Validate(const json& document) {
  static const json* schema = new json(WithStepSchema(json::parse(kSchema)));
  return CheckAgainstSchema(*schema, document);
}

absl::StatusOr<std::vector<DataRule>> Rules(const json& port, const char* key, size_t index) {
  std::vector<DataRule> rules;
  if (!port.contains(key)) return rules;
  for (const json& entry : port[key]) {
    DataRule rule;
    rule.name = entry["name"].get<std::string>();
    rule.pattern = entry["pattern"].get<std::string>();
    absl::StatusOr<CompiledPattern> compiled =
        CompilePattern(rule.pattern, PatternInput::kBytes,
                       absl::StrCat("ports[", index, "].", key, " rule '", rule.name, "'"));
    if (!compiled.ok()) return compiled.status();
    rule.compiled = *std::move(compiled);
    rules.push_back(std::move(rule));
  }
  return rules;
}

SignalsRule ParseSignalsRule(const json& value) {
  const std::string text = value.get<std::string>();
  if (text == "deny") return SignalsRule::kDeny;
  if (text == "confirm") return SignalsRule::kConfirm;
  return SignalsRule::kAllow;
}

absl::StatusOr<std::vector<LineSequence>> Sequences(const json& port, size_t index) {
  std::vector<LineSequence> sequences;
  if (!port.contains("sequences")) return sequences;
  for (const auto& [name, entry] : port["sequences"].items()) {
    absl::StatusOr<LineSequence> sequence =
        SequenceFromJson(name, entry, absl::StrCat("ports[", index, "].sequences"));
    if (!sequence.ok()) return sequence.status();
    if (entry.contains("signals")) sequence->signals = ParseSignalsRule(entry["signals"]);
    sequences.push_back(*std::move(sequence));
  }
  return sequences;
}

}  // namespace

const LineSequence* PortRule::SequenceNamed(const std::string& name) const {
  for (const LineSequence& sequence : sequences) {
    if (sequence.name == name) return &sequence;
  }
  return nullptr;
}

const PortRule* Policy::RuleFor(const std::string& port_name) const {
  for (const PortRule& rule : ports) {
    if (fnmatch(rule.match.c_str(), port_name.c_str(), 0) == 0) return &rule;
  }
  return nullptr;
}

absl::StatusOr<std::shared_ptr<const Policy>> ParsePolicy(const std::string& json_text,
                                                          const std::string& source) {
  json document = json::parse(json_text, nullptr, /*allow_exceptions=*/false);
  if (document.is_discarded()) {
    return absl::InvalidArgumentError(absl::StrCat("policy ", source, " is not valid JSON"));
  }
  if (absl::Status valid = Validate(document); !valid.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("policy ", source, " is invalid: ", valid.message()));
  }
  auto policy = std::make_shared<Policy>();
  policy->source = source;
  policy->show_denied = document.value("show_denied", false);
  if (document.contains("confirm_exempt")) {
    for (const json& owner : document["confirm_exempt"]) {
      policy->confirm_exempt.insert(owner.get<std::string>());
    }
  }
  size_t index = 0;
  for (const json& entry : document["ports"]) {
    PortRule rule;
    rule.match = entry["match"].get<std::string>();
    rule.allow = entry.value("allow", true);
    rule.read_only = entry.value("read_only", false);
    if (entry.contains("signals")) rule.signals = ParseSignalsRule(entry["signals"]);
    if (entry.contains("max_baud")) rule.max_baud = entry["max_baud"].get<int64_t>();
    if (entry.contains("max_writes_per_s")) {
      rule.max_writes_per_s = entry["max_writes_per_s"].get<double>();
    }
    absl::StatusOr<std::vector<DataRule>> deny = Rules(entry, "deny", index);
    if (!deny.ok())
      return absl::InvalidArgumentError(
          absl::StrCat("policy ", source, ": ", deny.status().message()));
    absl::StatusOr<std::vector<DataRule>> confirm = Rules(entry, "confirm", index);
    if (!confirm.ok())
      return absl::InvalidArgumentError(
          absl::StrCat("policy ", source, ": ", confirm.status().message()));
    absl::StatusOr<std::vector<LineSequence>> sequences = Sequences(entry, index);
    if (!sequences.ok())
      return absl::InvalidArgumentError(
          absl::StrCat("policy ", source, ": ", sequences.status().message()));
    rule.deny = std::move(*deny);
    rule.confirm = std::move(*confirm);
    rule.sequences = std::move(*sequences);
    policy->ports.push_back(std::move(rule));
    ++index;
  }
  return std::shared_ptr<const Policy>(std::move(policy));
}

absl::StatusOr<std::shared_ptr<const Policy>> LoadPolicyFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read policy file ", path));
  std::stringstream text;
  text << in.rdbuf();
  return ParsePolicy(text.str(), path);
}

}  // namespace labgate::serial
