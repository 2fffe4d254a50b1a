#include "serial-service/ports/line_sequence_json.h"

#include <vector>

#include "absl/strings/str_cat.h"

namespace labgate::serial {

nlohmann::json WithStepSchema(nlohmann::json schema) {
  schema["definitions"]["step"] = nlohmann::json::parse(R"json({
    "type": "object",
    "additionalProperties": false,
    "properties": {
      "send": {"type": "string", "minLength": 1},
      "expect": {"type": "array", "minItems": 1, "maxItems": 16,
                 "items": {"type": "string", "minLength": 1}},
      "timeout_ms": {"type": "integer", "minimum": 1, "maximum": 600000},
      "delay_ms": {"type": "integer", "minimum": 1, "maximum": 10000},
      "signal": {"enum": ["dtr", "rts"]},
      "level": {"type": "boolean"},
      "ms": {"type": "integer", "minimum": 0, "maximum": 10000}
    }
  })json");
  return schema;
}

absl::StatusOr<LineSequence> SequenceFromJson(const std::string& name, const nlohmann::json& entry,
                                              const std::string& where) {
  if (absl::Status valid = ValidateSequenceName(name, where); !valid.ok()) return valid;
  LineSequence sequence;
  sequence.name = name;
  size_t index = 0;
  for (const nlohmann::json& given : entry["steps"]) {
    ScriptStepSpec step;
    if (given.contains("send")) step.send = given["send"].get<std::string>();
    if (given.contains("expect")) step.expect = given["expect"].get<std::vector<std::string>>();
    if (given.contains("timeout_ms")) step.timeout_ms = given["timeout_ms"].get<int64_t>();
    if (given.contains("delay_ms")) step.delay_ms = given["delay_ms"].get<int64_t>();
    if (given.contains("signal")) step.signal_dtr = given["signal"].get<std::string>() == "dtr";
    if (given.contains("level")) step.level = given["level"].get<bool>();
    if (given.contains("ms")) step.ms = given["ms"].get<int64_t>();
    if (absl::Status valid =
            ValidateStep(step, absl::StrCat(where, ".", name, ".steps[", index++, "]"));
        !valid.ok()) {
      return valid;
    }
    sequence.steps.push_back(std::move(step));
  }
  return sequence;
}

}  // namespace labgate::serial
