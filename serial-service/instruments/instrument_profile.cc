#include "serial-service/instruments/instrument_profile.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/json_schema_check.h"
#include "serial-service/instruments/simulation_json.h"
#include "serial-service/ports/line_sequence_json.h"
#include "serial-service/ports/port_settings.h"

namespace labgate::serial {
namespace {

using nlohmann::json;

// Every object closes its keys: a misspelt key is an error, never silently ignored.
constexpr char kSchema[] = R"json({
  "$schema": "http://json-schema.org/draft-07/schema#",
  "type": "object",
  "additionalProperties": false,
  "required": ["model"],
  "properties": {
    "model": {"type": "string", "minLength": 1},
    "match": {
      "type": "object", "additionalProperties": false,
      "properties": {
        "usb": {
          "type": "object", "additionalProperties": false, "minProperties": 1,
          "properties": {
            "vid": {"type": "string", "pattern": "^0x[0-9a-fA-F]{4}$"},
            "pid": {"type": "string", "pattern": "^0x[0-9a-fA-F]{4}$"},
            "manufacturer": {"type": "string", "minLength": 1},
            "product": {"type": "string", "minLength": 1}
          }
        },
        "probe": {
          "type": "object", "additionalProperties": false, "required": ["reply"],
          "properties": {
            "command": {"type": "string", "minLength": 1},
            "reply": {"type": "string", "minLength": 1}
          }
        }
      }
    },
    "settings": {
      "type": "object", "additionalProperties": false,
      "properties": {
        "baud_rate": {"type": "integer", "minimum": 1, "maximum": 4000000},
        "data_bits": {"type": "integer", "minimum": 5, "maximum": 8},
        "stop_bits": {"type": "integer", "minimum": 1, "maximum": 2},
        "timeout_ms": {"type": "integer", "minimum": 0, "maximum": 600000},
        "parity": {"enum": ["none", "odd", "even"]},
        "flow_control": {"enum": ["none", "hardware", "software"]},
        "terminator": {"type": "string"}
      }
    },
    "tags": {"type": "array", "items": {"type": "string", "minLength": 1}},
    "quantities": {"type": "object", "additionalProperties": {"$ref": "#/definitions/quantity"}},
    "lists": {"type": "array", "items": {"$ref": "#/definitions/list"}},
    "limits": {"type": "array", "items": {"$ref": "#/definitions/limit"}},
    "sequences": {"type": "object", "additionalProperties": {"$ref": "#/definitions/sequence"}},
    "readings": {"type": "object", "additionalProperties": {"$ref": "#/definitions/reading"}}
  },
  "definitions": {
    "quantity": {
      "type": "object", "additionalProperties": false, "required": ["unit"],
      "properties": {
        "unit": {"type": "string", "pattern": "^[A-Za-z]{1,8}$"},
        "headers": {"type": "array", "items": {"type": "string", "minLength": 1}},
        "other_headers": {"type": "array", "items": {"type": "string", "minLength": 1}},
        "parameter": {"type": "integer", "minimum": 0, "maximum": 15},
        "pattern": {"type": "string", "minLength": 1},
        "min": {"type": "number"}, "max": {"type": "number"}, "default": {"type": "number"}
      }
    },
    "list": {
      "type": "object", "additionalProperties": false, "required": ["header", "quantities"],
      "properties": {
        "header": {"type": "string", "minLength": 1},
        "channel_parameter": {"type": "integer", "minimum": 0, "maximum": 15},
        "channels": {"type": "object", "additionalProperties": {"type": "integer", "minimum": 0}},
        "quantities": {"type": "object", "minProperties": 1,
                       "additionalProperties": {"type": "string", "minLength": 1}}
      }
    },
    "limit": {
      "type": "object", "additionalProperties": false, "required": ["name", "quantity"],
      "minProperties": 3,
      "properties": {
        "name": {"type": "string", "minLength": 1},
        "quantity": {"type": "string", "minLength": 1},
        "channel": {"type": "integer", "minimum": 0},
        "max": {"type": "number"}, "min": {"type": "number"},
        "max_step": {"type": "number", "exclusiveMinimum": 0},
        "ramp_per_s": {"type": "number", "exclusiveMinimum": 0},
        "confirm_above": {"type": "number"}
      }
    },
    "sequence": {
      "type": "object", "additionalProperties": false, "required": ["steps"],
      "properties": {
        "steps": {"type": "array", "minItems": 1, "maxItems": 32,
                  "items": {"$ref": "#/definitions/step"}}
      }
    },
    "reading": {
      "type": "object", "additionalProperties": false, "required": ["pattern", "unit"],
      "properties": {
        "command": {"type": "string", "minLength": 1},
        "pattern": {"type": "string", "minLength": 1},
        "unit": {"type": "string", "pattern": "^[A-Za-z]{1,8}$"}
      }
    }
  }
})json";

absl::Status Bad(const std::string& source, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("profile ", source, ": ", what));
}

std::optional<std::string> OptionalString(const json& object, const char* key) {
  if (!object.contains(key)) return std::nullopt;
  return object[key].get<std::string>();
}

std::optional<int64_t> OptionalInt(const json& object, const char* key) {
  if (!object.contains(key)) return std::nullopt;
  return object[key].get<int64_t>();
}

std::optional<double> OptionalNumber(const json& object, const char* key) {
  if (!object.contains(key)) return std::nullopt;
  return object[key].get<double>();
}

absl::StatusOr<CompiledPattern> Pattern(const std::string& pattern, const std::string& where,
                                        const char* required_group) {
  absl::StatusOr<CompiledPattern> compiled = CompilePattern(pattern, PatternInput::kUtf8, where);
  if (!compiled.ok()) return compiled.status();
  if (required_group != nullptr && !(*compiled)->NamedCapturingGroups().contains(required_group)) {
    return absl::InvalidArgumentError(absl::StrCat(where, ": the pattern has no group named ",
                                                   required_group, ": (?P<", required_group,
                                                   ">...)"));
  }
  return compiled;
}

absl::StatusOr<LimitsSpec> Limits(const json& document) {
  LimitsSpec spec;
  if (document.contains("quantities")) {
    for (const auto& [name, entry] : document["quantities"].items()) {
      const std::string where = absl::StrCat("quantities.", name);
      QuantitySpec quantity;
      quantity.name = name;
      quantity.unit = absl::AsciiStrToUpper(entry["unit"].get<std::string>());
      quantity.range = {OptionalNumber(entry, "min"), OptionalNumber(entry, "max"),
                        OptionalNumber(entry, "default")};
      quantity.parameter = static_cast<int>(entry.value("parameter", 0));
      for (const auto& [key, into] : {std::pair{"headers", &quantity.headers},
                                      std::pair{"other_headers", &quantity.other_headers}}) {
        if (!entry.contains(key)) continue;
        for (const json& header : entry[key]) {
          absl::StatusOr<ScpiHeaderPattern> parsed =
              ScpiHeaderPattern::Parse(header.get<std::string>());
          if (!parsed.ok())
            return absl::InvalidArgumentError(absl::StrCat(where, ": ", parsed.status().message()));
          into->push_back(*std::move(parsed));
        }
      }
      if (entry.contains("pattern")) {
        quantity.pattern_text = entry["pattern"].get<std::string>();
        absl::StatusOr<CompiledPattern> compiled =
            Pattern(quantity.pattern_text, where + ".pattern", "value");
        if (!compiled.ok()) return compiled.status();
        quantity.pattern = *std::move(compiled);
      }
      if (quantity.headers.empty() && quantity.pattern == nullptr) {
        return absl::InvalidArgumentError(
            absl::StrCat(where, ": say where it is set, with headers or a pattern"));
      }
      spec.quantities.push_back(std::move(quantity));
    }
  }
  if (document.contains("lists")) {
    size_t index = 0;
    for (const json& entry : document["lists"]) {
      const std::string where = absl::StrCat("lists[", index++, "]");
      absl::StatusOr<ScpiHeaderPattern> header =
          ScpiHeaderPattern::Parse(entry["header"].get<std::string>());
      if (!header.ok())
        return absl::InvalidArgumentError(absl::StrCat(where, ": ", header.status().message()));
      ListSpec list{*std::move(header), std::nullopt, {}, {}};
      if (entry.contains("channel_parameter")) {
        list.channel_parameter = entry["channel_parameter"].get<int>();
        if (!entry.contains("channels")) {
          return absl::InvalidArgumentError(
              absl::StrCat(where, ": channel_parameter needs channels, e.g. {\"CH1\": 1}"));
        }
      }
      if (entry.contains("channels")) {
        for (const auto& [name, number] : entry["channels"].items()) {
          list.channels[absl::AsciiStrToUpper(name)] = number.get<int>();
        }
      }
      for (const auto& [position, quantity] : entry["quantities"].items()) {
        int at = 0;
        if (!absl::SimpleAtoi(position, &at) || at < 0 || at > 15) {
          return absl::InvalidArgumentError(absl::StrCat(
              where, ".quantities: '", position, "' is not a parameter position (0 to 15)"));
        }
        list.quantities.emplace_back(at, quantity.get<std::string>());
      }
      std::sort(list.quantities.begin(), list.quantities.end());
      spec.lists.push_back(std::move(list));
    }
  }
  if (document.contains("limits")) {
    for (const json& entry : document["limits"]) {
      LimitRule rule;
      rule.name = entry["name"].get<std::string>();
      rule.quantity = entry["quantity"].get<std::string>();
      if (entry.contains("channel")) rule.channel = entry["channel"].get<int>();
      rule.max = OptionalNumber(entry, "max");
      rule.min = OptionalNumber(entry, "min");
      rule.max_step = OptionalNumber(entry, "max_step");
      rule.ramp_per_s = OptionalNumber(entry, "ramp_per_s");
      rule.confirm_above = OptionalNumber(entry, "confirm_above");
      spec.rules.push_back(std::move(rule));
    }
  }
  return spec;
}

}  // namespace

absl::StatusOr<InstrumentProfile> ParseInstrumentProfile(const std::string& json_text,
                                                         const std::string& source) {
  const json document = json::parse(json_text, nullptr, /*allow_exceptions=*/false);
  if (document.is_discarded()) return Bad(source, "not valid JSON");
  static const json* schema = [] {
    auto* made = new json(WithStepSchema(json::parse(kSchema)));
    (*made)["properties"]["simulation"] = SimulationSchema();
    return made;
  }();
  if (absl::Status valid = CheckAgainstSchema(*schema, document); !valid.ok()) {
    return Bad(source, valid.message());
  }
  InstrumentProfile profile;
  profile.source = source;
  profile.model = document["model"].get<std::string>();
  if (document.contains("match")) {
    const json& match = document["match"];
    if (match.contains("usb")) {
      const json& usb = match["usb"];
      profile.usb = InstrumentProfile::UsbMatch{
          OptionalString(usb, "vid"), OptionalString(usb, "pid"),
          OptionalString(usb, "manufacturer"), OptionalString(usb, "product")};
    }
    if (match.contains("probe")) {
      InstrumentProfile::Probe probe;
      probe.command = match["probe"].value("command", probe.command);
      probe.reply = match["probe"]["reply"].get<std::string>();
      absl::StatusOr<CompiledPattern> compiled = Pattern(probe.reply, "match.probe.reply", nullptr);
      if (!compiled.ok()) return Bad(source, compiled.status().message());
      probe.compiled = *std::move(compiled);
      profile.probe = std::move(probe);
    }
  }
  if (document.contains("settings")) {
    const json& settings = document["settings"];
    profile.settings = {
        OptionalInt(settings, "baud_rate"),    OptionalInt(settings, "data_bits"),
        OptionalInt(settings, "stop_bits"),    OptionalInt(settings, "timeout_ms"),
        OptionalString(settings, "parity"),    OptionalString(settings, "flow_control"),
        OptionalString(settings, "terminator")};
    // Checked here too, not only when a port opens: a bad profile fails when it loads.
    if (profile.settings.terminator.has_value()) {
      if (absl::Status valid =
              ValidateTerminator(*profile.settings.terminator, "settings.terminator");
          !valid.ok()) {
        return Bad(source, valid.message());
      }
    }
  }
  if (document.contains("tags")) profile.tags = document["tags"].get<std::vector<std::string>>();

  absl::StatusOr<LimitsSpec> spec = Limits(document);
  if (!spec.ok()) return Bad(source, spec.status().message());
  if (!spec->quantities.empty() || !spec->rules.empty()) {
    absl::StatusOr<QuantityLimits> limits = QuantityLimits::Create(*std::move(spec));
    if (!limits.ok()) return Bad(source, limits.status().message());
    profile.limits = std::make_shared<const QuantityLimits>(*std::move(limits));
  }

  if (document.contains("simulation")) {
    static const std::vector<QuantitySpec> kNone;
    absl::StatusOr<SimulationSpec> simulation =
        SimulationFromJson(document["simulation"],
                           profile.limits != nullptr ? profile.limits->spec().quantities : kNone);
    if (!simulation.ok()) return Bad(source, simulation.status().message());
    profile.simulation = *std::move(simulation);
  }

  if (document.contains("sequences")) {
    for (const auto& [name, entry] : document["sequences"].items()) {
      absl::StatusOr<LineSequence> sequence = SequenceFromJson(name, entry, "sequences");
      if (!sequence.ok()) return Bad(source, sequence.status().message());
      profile.sequences.push_back(*std::move(sequence));
    }
  }

  if (document.contains("readings")) {
    for (const auto& [name, entry] : document["readings"].items()) {
      InstrumentProfile::Reading reading;
      reading.name = name;
      reading.unit = absl::AsciiStrToUpper(entry["unit"].get<std::string>());
      reading.pattern = entry["pattern"].get<std::string>();
      absl::StatusOr<CompiledPattern> compiled =
          Pattern(reading.pattern, absl::StrCat("readings.", name), "value");
      if (!compiled.ok()) return Bad(source, compiled.status().message());
      reading.compiled = *std::move(compiled);
      if (entry.contains("command")) {
        reading.command = entry["command"].get<std::string>();
        absl::StatusOr<CompiledPattern> command =
            Pattern(reading.command, absl::StrCat("readings.", name, ".command"), nullptr);
        if (!command.ok()) return Bad(source, command.status().message());
        reading.command_compiled = *std::move(command);
      }
      profile.readings.push_back(std::move(reading));
    }
  }
  return profile;
}

absl::StatusOr<std::vector<InstrumentProfile>> LoadInstrumentProfiles(
    const std::string& directory) {
  std::error_code error;
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(directory, error)) {
    if (entry.path().extension() == ".json") files.push_back(entry.path());
  }
  if (error) {
    return absl::NotFoundError(
        absl::StrCat("cannot read the profiles directory ", directory, ": ", error.message()));
  }
  std::sort(files.begin(), files.end());
  std::vector<InstrumentProfile> profiles;
  std::map<std::string, std::string> model_source;
  for (const std::filesystem::path& file : files) {
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    absl::StatusOr<InstrumentProfile> profile = ParseInstrumentProfile(text.str(), file.string());
    if (!profile.ok()) return profile.status();
    auto [earlier, fresh] = model_source.emplace(profile->model, file.string());
    if (!fresh) {
      return Bad(file.string(),
                 absl::StrCat("the model '", profile->model, "' is also in ", earlier->second));
    }
    profiles.push_back(*std::move(profile));
  }
  return profiles;
}

}  // namespace labgate::serial
