#include "serial-service/instruments/instrument_catalog.h"

#include <array>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "serial-service/backends/serial_port.h"
#include "common/json_schema_check.h"

namespace labgate::serial {
namespace {

using nlohmann::json;

// Every object closes its keys: a misspelt key is an error, never silently ignored. The name's
// form and how many match keys there are are checked in code, so that the error can say what a
// name may hold and which keys were given (the schema's own texts say neither).
constexpr char kSchema[] = R"json({
  "$schema": "http://json-schema.org/draft-07/schema#",
  "type": "object",
  "additionalProperties": false,
  "required": ["instruments"],
  "properties": {
    "instruments": {"type": "array", "items": {"$ref": "#/definitions/instrument"}}
  },
  "definitions": {
    "instrument": {
      "type": "object", "additionalProperties": false, "required": ["name", "profile", "match"],
      "properties": {
        "name": {"type": "string"},
        "profile": {"type": "string", "minLength": 1},
        "match": {
          "type": "object", "additionalProperties": false,
          "properties": {
            "usb_serial": {"type": "string", "minLength": 1},
            "by_path": {"type": "string", "minLength": 1},
            "idn_serial": {"type": "string", "minLength": 1},
            "port_name": {"type": "string", "minLength": 1}
          }
        },
        "bench": {"type": "string", "minLength": 1},
        "tags": {"type": "array", "items": {"type": "string", "minLength": 1}}
      }
    }
  }
})json";

constexpr std::array<InstrumentMatch::Kind, 4> kMatchKinds = {
    InstrumentMatch::Kind::kUsbSerial, InstrumentMatch::Kind::kByPath,
    InstrumentMatch::Kind::kIdnSerial, InstrumentMatch::Kind::kPortName};

absl::Status Bad(const std::string& source, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("instruments file ", source, ": ", what));
}

// ^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$: safe in a tool argument, a log line and a file name.
bool IsInstrumentName(const std::string& name) {
  if (name.empty() || name.size() > 64 || !absl::ascii_isalnum(static_cast<unsigned char>(name[0])))
    return false;
  for (const char c : name) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-')
      return false;
  }
  return true;
}

absl::StatusOr<InstrumentMatch> MatchFromJson(const json& match, const std::string& where) {
  std::vector<std::string> given;
  InstrumentMatch parsed;
  for (const InstrumentMatch::Kind kind : kMatchKinds) {
    const char* key = MatchKindName(kind);
    if (!match.contains(key)) continue;
    given.emplace_back(key);
    parsed = {kind, match[key].get<std::string>()};
  }
  if (given.size() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        where, ": match must have exactly one of usb_serial, by_path, idn_serial, port_name; ",
        given.empty() ? "it has none" : absl::StrCat("it has ", absl::StrJoin(given, " and "))));
  }
  // A loopback (loop://name) or a simulation (sim://MODEL) may stand in for an instrument, to
  // rehearse with its limits.
  const bool loopback = parsed.kind == InstrumentMatch::Kind::kPortName &&
                        (IsLoopbackName(parsed.value) || parsed.value.rfind("sim://", 0) == 0);
  if ((parsed.kind == InstrumentMatch::Kind::kByPath ||
       parsed.kind == InstrumentMatch::Kind::kPortName) &&
      parsed.value.front() != '/' && !loopback) {
    return absl::InvalidArgumentError(absl::StrCat(where, ": match.", MatchKindName(parsed.kind),
                                                   " '", parsed.value,
                                                   "' is not an absolute path (one starting /)"));
  }
  return parsed;
}

const InstrumentProfile* FindProfile(
    const std::vector<std::shared_ptr<const InstrumentProfile>>& profiles,
    const std::string& model) {
  for (const std::shared_ptr<const InstrumentProfile>& profile : profiles) {
    if (profile != nullptr && profile->model == model) return profile.get();
  }
  return nullptr;
}

std::string NoSuchModel(const std::vector<std::shared_ptr<const InstrumentProfile>>& profiles,
                        const std::string& model) {
  std::vector<std::string> models;
  for (const std::shared_ptr<const InstrumentProfile>& profile : profiles) {
    if (profile != nullptr) models.push_back(profile->model);
  }
  return absl::StrCat("no profile has the model '", model, "'; ",
                      models.empty()
                          ? "no profiles are loaded (--profiles DIR)"
                          : absl::StrCat("the models are ", absl::StrJoin(models, ", ")));
}

// idn_serial is compared with the group `serial` of the probe's reply, so the profile needs both.
absl::Status CheckProbeGivesSerial(const InstrumentProfile& profile, const std::string& where) {
  const std::string lead =
      absl::StrCat(where, ": idn_serial is the serial number in the probe reply, but the profile '",
                   profile.model, "' (", profile.source, ")");
  if (!profile.probe.has_value()) {
    return absl::InvalidArgumentError(absl::StrCat(lead, " has no match.probe"));
  }
  if (profile.probe->compiled == nullptr ||
      !profile.probe->compiled->NamedCapturingGroups().contains("serial")) {
    return absl::InvalidArgumentError(absl::StrCat(
        lead, " has a probe reply pattern with no group named serial: (?P<serial>...)"));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> ReadFile(const std::string& path, const char* what) {
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error)) {
    return absl::NotFoundError(absl::StrCat("cannot read the ", what, " ", path, ": ",
                                            error ? error.message() : "not a regular file"));
  }
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read the ", what, " ", path));
  return text.str();
}

}  // namespace

const char* MatchKindName(InstrumentMatch::Kind kind) {
  switch (kind) {
    case InstrumentMatch::Kind::kUsbSerial:
      return "usb_serial";
    case InstrumentMatch::Kind::kByPath:
      return "by_path";
    case InstrumentMatch::Kind::kIdnSerial:
      return "idn_serial";
    case InstrumentMatch::Kind::kPortName:
      return "port_name";
  }
  return "unknown";
}

const InstrumentProfile* InstrumentCatalog::ProfileFor(const std::string& model) const {
  return FindProfile(profiles, model);
}

const NamedInstrument* InstrumentCatalog::Find(const std::string& name) const {
  for (const NamedInstrument& instrument : instruments) {
    if (instrument.name == name) return &instrument;
  }
  return nullptr;
}

absl::StatusOr<std::vector<NamedInstrument>> ParseInstrumentsFile(
    const std::string& json_text, const std::string& source,
    const std::vector<std::shared_ptr<const InstrumentProfile>>& profiles) {
  const json document = json::parse(json_text, nullptr, /*allow_exceptions=*/false);
  if (document.is_discarded()) return Bad(source, "not valid JSON");
  static const json* schema = new json(json::parse(kSchema));
  if (absl::Status valid = CheckAgainstSchema(*schema, document); !valid.ok()) {
    return Bad(source, valid.message());
  }
  std::vector<NamedInstrument> instruments;
  std::map<std::string, size_t> index_of_name;
  // (kind, value) -> the instrument that claimed it first.
  std::map<std::pair<InstrumentMatch::Kind, std::string>, std::string> claimed_by;
  size_t index = 0;
  for (const json& entry : document["instruments"]) {
    std::string where = absl::StrCat("instruments[", index, "]");
    NamedInstrument instrument;
    instrument.name = entry["name"].get<std::string>();
    if (!IsInstrumentName(instrument.name)) {
      return Bad(source, absl::StrCat(where, ": the name '", instrument.name,
                                      "' must start with a letter or digit and hold only letters, "
                                      "digits, '.', '_' and '-' (1 to 64 of them)"));
    }
    absl::StrAppend(&where, " '", instrument.name, "'");
    auto [first, fresh] = index_of_name.emplace(instrument.name, index);
    if (!fresh) {
      return Bad(source,
                 absl::StrCat("two instruments are named '", instrument.name, "': instruments[",
                              first->second, "] and instruments[", index, "]"));
    }
    instrument.profile = entry["profile"].get<std::string>();
    absl::StatusOr<InstrumentMatch> match = MatchFromJson(entry["match"], where);
    if (!match.ok()) return Bad(source, match.status().message());
    instrument.match = *std::move(match);
    if (entry.contains("bench")) instrument.bench = entry["bench"].get<std::string>();
    if (entry.contains("tags")) instrument.tags = entry["tags"].get<std::vector<std::string>>();

    const InstrumentProfile* profile = FindProfile(profiles, instrument.profile);
    if (profile == nullptr) {
      return Bad(source, absl::StrCat(where, ": ", NoSuchModel(profiles, instrument.profile)));
    }
    if (instrument.match.kind == InstrumentMatch::Kind::kIdnSerial) {
      if (absl::Status gives = CheckProbeGivesSerial(*profile, where); !gives.ok()) {
        return Bad(source, gives.message());
      }
    }
    auto [claim, unclaimed] = claimed_by.emplace(
        std::make_pair(instrument.match.kind, instrument.match.value), instrument.name);
    if (!unclaimed) {
      return Bad(source, absl::StrCat(claim->second, " and ", instrument.name, " both match ",
                                      MatchKindName(instrument.match.kind), " '",
                                      instrument.match.value, "'"));
    }
    instruments.push_back(std::move(instrument));
    ++index;
  }
  return instruments;
}

absl::StatusOr<std::shared_ptr<const InstrumentCatalog>> LoadInstrumentCatalog(
    const std::string& profiles_dir, const std::string& instruments_file) {
  auto catalog = std::make_shared<InstrumentCatalog>();
  if (!profiles_dir.empty()) {
    absl::StatusOr<std::vector<InstrumentProfile>> profiles = LoadInstrumentProfiles(profiles_dir);
    if (!profiles.ok()) return profiles.status();
    for (InstrumentProfile& profile : *profiles) {
      catalog->profiles.push_back(std::make_shared<const InstrumentProfile>(std::move(profile)));
    }
  }
  if (!instruments_file.empty()) {
    if (profiles_dir.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--instruments ", instruments_file,
                       " needs --profiles DIR: each instrument names the profile of its model"));
    }
    absl::StatusOr<std::string> text = ReadFile(instruments_file, "instruments file");
    if (!text.ok()) return text.status();
    absl::StatusOr<std::vector<NamedInstrument>> instruments =
        ParseInstrumentsFile(*text, instruments_file, catalog->profiles);
    if (!instruments.ok()) return instruments.status();
    catalog->instruments = *std::move(instruments);
  }
  return catalog;
}

absl::StatusOr<std::string> CheckInstrumentFiles(const std::string& profiles_dir,
                                                 const std::string& instruments_file) {
  absl::StatusOr<std::shared_ptr<const InstrumentCatalog>> loaded =
      LoadInstrumentCatalog(profiles_dir, instruments_file);
  if (!loaded.ok()) return loaded.status();
  return absl::StrCat("instruments: ", (*loaded)->profiles.size(), " profile(s), ",
                      (*loaded)->instruments.size(), " named instrument(s)");
}

}  // namespace labgate::serial
