#include "gateway/backends/serial_benches.h"

#include <set>

#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace labgate::gateway {

absl::StatusOr<std::vector<Bench>> ParseBenches(const std::vector<std::string>& values) {
  std::vector<Bench> benches;
  std::set<std::string> names;
  for (const std::string& value : values) {
    Bench bench;
    size_t equals = value.find('=');
    if (equals == std::string::npos) {
      bench.address = value;
    } else {
      bench.name = value.substr(0, equals);
      bench.address = value.substr(equals + 1);
      if (bench.name.empty()) {
        return absl::InvalidArgumentError(
            absl::StrCat("--serial-addr '", value, "': empty bench name"));
      }
      for (char c : bench.name) {
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_') {
          return absl::InvalidArgumentError(absl::StrCat(
              "--serial-addr '", value, "': a bench name is letters, digits, '-' and '_'"));
        }
      }
      if (bench.name == "loop") {
        return absl::InvalidArgumentError("--serial-addr: 'loop' would read as loop:// ports");
      }
    }
    if (!names.insert(bench.name).second) {
      return absl::InvalidArgumentError(
          bench.name.empty() ? std::string("--serial-addr: only one bench may be unnamed")
                             : absl::StrCat("--serial-addr: bench '", bench.name, "' given twice"));
    }
    benches.push_back(std::move(bench));
  }
  return benches;
}

bool SerialBenches::named() const {
  for (const Bench& bench : benches_) {
    if (!bench.name.empty()) return true;
  }
  return false;
}

const Bench* SerialBenches::Unnamed() const {
  for (const Bench& bench : benches_) {
    if (bench.name.empty()) return &bench;
  }
  return nullptr;
}

std::string SerialBenches::Names() const {
  std::vector<std::string> names;
  for (const Bench& bench : benches_) {
    if (!bench.name.empty()) names.push_back(bench.name);
  }
  return absl::StrJoin(names, ", ");
}

absl::StatusOr<SerialBenches::Route> SerialBenches::Resolve(const std::string& port_name) const {
  size_t colon = port_name.find(':');
  if (colon != std::string::npos) {
    const std::string prefix = port_name.substr(0, colon);
    for (const Bench& bench : benches_) {
      if (!bench.name.empty() && bench.name == prefix) {
        return Route{&bench, port_name.substr(colon + 1)};
      }
    }
  }
  if (const Bench* unnamed = Unnamed()) return Route{unnamed, port_name};
  // A prefix that could be a bench name (not a scheme as in loop://, nor a path) is
  // named in the error.
  if (colon != std::string::npos && colon > 0 && port_name.compare(colon, 3, "://") != 0 &&
      port_name.find('/') > colon) {
    return absl::NotFoundError(absl::StrCat("unknown bench '", port_name.substr(0, colon),
                                            "' in port '", port_name,
                                            "'; configured benches: ", Names()));
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "port '", port_name, "' names no bench; write BENCH:PORT with one of: ", Names()));
}

std::string SerialBenches::Qualify(const Bench& bench, const std::string& local_port) {
  return bench.name.empty() ? local_port : bench.name + ":" + local_port;
}

void SerialBenches::QualifyReply(const Bench& bench, nlohmann::json* reply) {
  if (!reply->is_object()) return;
  if (auto it = reply->find("port_name"); it != reply->end() && it->is_string()) {
    *it = Qualify(bench, it->get<std::string>());
  }
  // describe_port's PortDetails.
  if (auto it = reply->find("port"); it != reply->end() && it->is_object()) {
    QualifyReply(bench, &*it);
  }
  if (auto it = reply->find("ports"); it != reply->end() && it->is_array()) {
    for (nlohmann::json& port : *it) QualifyReply(bench, &port);
  }
  if (auto it = reply->find("open_ports"); it != reply->end() && it->is_array()) {
    for (nlohmann::json& port : *it) {
      if (port.is_string()) port = Qualify(bench, port.get<std::string>());
    }
  }
}

absl::Status SerialBenches::QualifyError(const Bench& bench, const std::string& local_port,
                                         const absl::Status& status) {
  if (bench.name.empty() || local_port.empty()) return status;
  std::string text(status.message());
  const std::string from = "port " + local_port;
  const std::string to = "port " + bench.name + ":" + local_port;
  bool changed = false;
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    const size_t end = at + from.size();
    if (end < text.size() && text[end] != ' ' && text[end] != ':' && text[end] != ',') continue;
    text.replace(at, from.size(), to);
    changed = true;
  }
  if (!changed) return status;
  absl::Status qualified(status.code(), text);
  status.ForEachPayload([&qualified](absl::string_view key, const absl::Cord& value) {
    qualified.SetPayload(key, value);
  });
  return qualified;
}

}  // namespace labgate::gateway
