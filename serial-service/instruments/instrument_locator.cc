#include "serial-service/instruments/instrument_locator.h"

#include <re2/re2.h>
#include <sys/stat.h>

#include <filesystem>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/byte_pattern.h"

namespace labgate::serial {
namespace {

// A profile's "0x1ab1" against libserialport's number (-1: not a USB device).
bool SameUsbId(const std::string& wanted, int listed) {
  int value = 0;
  return listed >= 0 && absl::SimpleHexAtoi(wanted, &value) && value == listed;
}

// "vid 0x1ab1, pid 0x0e11": what the profile asks of a port.
std::string WantedUsb(const InstrumentProfile& profile) {
  std::vector<std::string> parts;
  if (!profile.usb.has_value()) return "";
  const InstrumentProfile::UsbMatch& usb = *profile.usb;
  if (usb.vid.has_value()) parts.push_back(absl::StrCat("vid ", *usb.vid));
  if (usb.pid.has_value()) parts.push_back(absl::StrCat("pid ", *usb.pid));
  if (usb.manufacturer.has_value())
    parts.push_back(absl::StrCat("manufacturer '", *usb.manufacturer, "'"));
  if (usb.product.has_value()) parts.push_back(absl::StrCat("product '", *usb.product, "'"));
  return absl::StrJoin(parts, ", ");
}

// "vid 0x0403, pid 0x6001, manufacturer 'FTDI', product 'FT232R USB UART'": what a port is.
std::string ListedUsb(const PortDetails& port) {
  std::vector<std::string> parts;
  if (port.usb_vid >= 0) parts.push_back(absl::StrFormat("vid 0x%04x", port.usb_vid));
  if (port.usb_pid >= 0) parts.push_back(absl::StrFormat("pid 0x%04x", port.usb_pid));
  if (port.manufacturer.has_value())
    parts.push_back(absl::StrCat("manufacturer '", *port.manufacturer, "'"));
  if (port.product.has_value()) parts.push_back(absl::StrCat("product '", *port.product, "'"));
  return parts.empty() ? "no USB ids" : absl::StrJoin(parts, ", ");
}

InstrumentLocation Absent(std::string reason) {
  InstrumentLocation location;
  location.absent_reason = std::move(reason);
  return location;
}

InstrumentLocation Found(std::string path) {
  InstrumentLocation location;
  location.path = std::move(path);
  return location;
}

InstrumentLocation ByUsbSerial(const std::string& serial, const InstrumentProfile& profile,
                               const std::vector<PortDetails>& listed) {
  const PortDetails* with_serial = nullptr;
  std::vector<std::string> fitting;
  for (const PortDetails& port : listed) {
    if (port.serial_number != serial) continue;
    if (with_serial == nullptr) with_serial = &port;
    if (FitsUsbMatch(profile, port)) fitting.push_back(port.port_name);
  }
  if (fitting.size() == 1) return Found(fitting.front());
  // A multi-port adapter (an FT2232, say) gives each of its ports the one serial number, and
  // which is which cannot be told from the listing: guessing could drive the wrong instrument.
  if (fitting.size() > 1) {
    return Absent(absl::StrCat("USB serial '", serial, "' is on ", fitting.size(),
                               " listed ports (", absl::StrJoin(fitting, ", "),
                               "); match this instrument by_path instead"));
  }
  if (with_serial != nullptr) {
    return Absent(absl::StrCat("the device with USB serial '", serial, "' at ",
                               with_serial->port_name, " is not a ", profile.model, " (",
                               WantedUsb(profile), "): it has ", ListedUsb(*with_serial)));
  }
  return Absent(absl::StrCat("no listed port has USB serial '", serial, "'"));
}

InstrumentLocation ByPath(const std::string& path) {
  std::error_code error;
  const std::filesystem::path resolved = std::filesystem::canonical(path, error);
  if (!error) return Found(resolved.string());
  if (error == std::errc::no_such_file_or_directory) {
    return Absent(absl::StrCat("by_path '", path, "' does not exist"));
  }
  return Absent(absl::StrCat("by_path '", path, "' cannot be resolved: ", error.message()));
}

InstrumentLocation ByPortName(const std::string& path) {
  if (IsLoopbackName(path) || path.rfind("sim://", 0) == 0) return Found(path);
  std::error_code error;
  if (std::filesystem::exists(path, error)) return Found(path);
  if (error)
    return Absent(absl::StrCat("port_name '", path, "' cannot be checked: ", error.message()));
  return Absent(absl::StrCat("port_name '", path, "' does not exist"));
}

InstrumentLocation ByIdnSerial(const std::string& serial, const InstrumentProfile& profile,
                               const std::vector<PortDetails>& listed) {
  InstrumentLocation location;
  for (const PortDetails& port : listed) {
    if (FitsUsbMatch(profile, port)) location.probe_candidates.push_back(port.port_name);
  }
  if (!location.probe_candidates.empty()) return location;
  if (profile.usb.has_value()) {
    location.absent_reason =
        absl::StrCat("no listed port is a ", profile.model, " (", WantedUsb(profile),
                     ") to probe for serial '", serial, "'");
  } else {
    location.absent_reason = absl::StrCat("no port is listed to probe for serial '", serial, "'");
  }
  return location;
}

}  // namespace

InstrumentLocation LocateInstrument(const NamedInstrument& instrument,
                                    const InstrumentProfile& profile,
                                    const std::vector<PortDetails>& listed) {
  const std::string& value = instrument.match.value;
  switch (instrument.match.kind) {
    case InstrumentMatch::Kind::kUsbSerial:
      return ByUsbSerial(value, profile, listed);
    case InstrumentMatch::Kind::kByPath:
      return ByPath(value);
    case InstrumentMatch::Kind::kPortName:
      return ByPortName(value);
    case InstrumentMatch::Kind::kIdnSerial:
      return ByIdnSerial(value, profile, listed);
  }
  return Absent("unknown match kind");
}

bool FitsUsbMatch(const InstrumentProfile& profile, const PortDetails& port) {
  if (!profile.usb.has_value()) return true;
  const InstrumentProfile::UsbMatch& usb = *profile.usb;
  if (usb.vid.has_value() && !SameUsbId(*usb.vid, port.usb_vid)) return false;
  if (usb.pid.has_value() && !SameUsbId(*usb.pid, port.usb_pid)) return false;
  if (usb.manufacturer.has_value() && port.manufacturer != usb.manufacturer) return false;
  if (usb.product.has_value() && port.product != usb.product) return false;
  return true;
}

bool ProbeReplyMatches(const InstrumentProfile& profile, absl::string_view reply) {
  if (!profile.probe.has_value() || profile.probe->compiled == nullptr) return false;
  return PatternFound(*profile.probe->compiled, reply);
}

std::optional<std::string> SerialInProbeReply(const InstrumentProfile& profile,
                                              absl::string_view reply) {
  if (!profile.probe.has_value() || profile.probe->compiled == nullptr) return std::nullopt;
  const re2::RE2& pattern = *profile.probe->compiled;
  const auto group = pattern.NamedCapturingGroups().find("serial");
  if (group == pattern.NamedCapturingGroups().end()) return std::nullopt;
  std::vector<re2::StringPiece> submatches(static_cast<size_t>(group->second) + 1);
  if (!pattern.Match(re2::StringPiece(reply.data(), reply.size()), 0, reply.size(),
                     re2::RE2::UNANCHORED, submatches.data(),
                     static_cast<int>(submatches.size()))) {
    return std::nullopt;
  }
  const re2::StringPiece serial = submatches.back();
  if (serial.data() == nullptr) return std::nullopt;  // the group took no part in the match
  return std::string(serial.data(), serial.size());
}

std::string DevicePathOf(const std::string& name) {
  if (name.empty() || name.front() != '/') return name;
  std::error_code error;
  const std::filesystem::path resolved = std::filesystem::canonical(name, error);
  return error ? name : resolved.string();
}

bool SameDevice(const std::string& a, const std::string& b) {
  if (a == b) return true;
  if (a.empty() || b.empty() || a.front() != '/' || b.front() != '/') return false;
  struct stat first {};
  struct stat second {};
  return stat(a.c_str(), &first) == 0 && stat(b.c_str(), &second) == 0 && S_ISCHR(first.st_mode) &&
         S_ISCHR(second.st_mode) && first.st_rdev == second.st_rdev;
}

}  // namespace labgate::serial
