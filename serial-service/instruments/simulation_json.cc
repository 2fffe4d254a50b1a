#include "serial-service/instruments/simulation_json.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/byte_pattern.h"

namespace labgate::serial {

nlohmann::json SimulationSchema() {
  return nlohmann::json::parse(R"json({
    "type": "object", "additionalProperties": false,
    "properties": {
      "serial": {"type": "string", "minLength": 1},
      "banner": {"type": "string"},
      "terminator": {"type": "string", "minLength": 1},
      "reboot_on_dtr_pulse": {"type": "boolean"},
      "responses": {"type": "array", "items": {
        "type": "object", "additionalProperties": false, "required": ["match"],
        "properties": {
          "match": {"type": "string", "minLength": 1},
          "reply": {"type": "string"},
          "delay_ms": {"type": "integer", "minimum": 0, "maximum": 60000},
          "error": {"type": "string", "minLength": 1}
        }
      }},
      "switches": {"type": "object", "additionalProperties": {
        "type": "object", "additionalProperties": false, "required": ["headers"],
        "properties": {
          "headers": {"type": "array", "minItems": 1, "items": {"type": "string", "minLength": 1}},
          "initial": {"type": "boolean"}
        }
      }},
      "state": {"type": "object", "additionalProperties": {
        "type": "object", "additionalProperties": false,
        "properties": {
          "initial": {"type": "number"},
          "noise": {"type": "number", "minimum": 0}
        }
      }}
    }
  })json");
}

absl::StatusOr<SimulationSpec> SimulationFromJson(const nlohmann::json& section,
                                                  const std::vector<QuantitySpec>& quantities) {
  SimulationSpec spec;
  spec.serial = section.value("serial", spec.serial);
  spec.banner = section.value("banner", spec.banner);
  spec.terminator = section.value("terminator", spec.terminator);
  spec.reboot_on_dtr_pulse = section.value("reboot_on_dtr_pulse", false);
  if (section.contains("responses")) {
    size_t index = 0;
    for (const nlohmann::json& entry : section["responses"]) {
      const std::string where = absl::StrCat("simulation.responses[", index++, "].match");
      SimulationSpec::Response response;
      response.match_text = entry["match"].get<std::string>();
      absl::StatusOr<CompiledPattern> match =
          CompilePattern(response.match_text, PatternInput::kUtf8, where);
      if (!match.ok()) return match.status();
      response.match = *std::move(match);
      response.reply = entry.value("reply", "");
      response.delay_ms = entry.value("delay_ms", int64_t{0});
      if (entry.contains("error")) response.error = entry["error"].get<std::string>();
      spec.responses.push_back(std::move(response));
    }
  }
  if (section.contains("switches")) {
    for (const auto& [name, entry] : section["switches"].items()) {
      SimulationSpec::Switch on_off;
      on_off.name = name;
      on_off.initial = entry.value("initial", false);
      for (const nlohmann::json& header : entry["headers"]) {
        absl::StatusOr<ScpiHeaderPattern> parsed =
            ScpiHeaderPattern::Parse(header.get<std::string>());
        if (!parsed.ok()) {
          return absl::InvalidArgumentError(
              absl::StrCat("simulation.switches.", name, ": ", parsed.status().message()));
        }
        on_off.headers.push_back(*std::move(parsed));
      }
      spec.switches.push_back(std::move(on_off));
    }
  }
  if (section.contains("state")) {
    for (const auto& [name, entry] : section["state"].items()) {
      const QuantitySpec* declared = nullptr;
      std::vector<std::string> names;
      for (const QuantitySpec& quantity : quantities) {
        names.push_back(quantity.name);
        if (quantity.name == name) declared = &quantity;
      }
      if (declared == nullptr || declared->headers.empty()) {
        return absl::InvalidArgumentError(
            absl::StrCat("simulation.state.", name,
                         ": the state is kept in a quantity the profile declares "
                         "with SCPI headers (",
                         names.empty() ? "it declares none" : absl::StrJoin(names, ", "), ")"));
      }
      SimulationSpec::Quantity quantity;
      quantity.name = name;
      quantity.unit = declared->unit;
      quantity.range = declared->range;
      quantity.headers = declared->headers;
      quantity.initial = entry.value("initial", declared->range.def.value_or(0.0));
      quantity.noise = entry.value("noise", 0.0);
      spec.quantities.push_back(std::move(quantity));
    }
  }
  return spec;
}

}  // namespace labgate::serial
