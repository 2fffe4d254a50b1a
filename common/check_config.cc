#include "common/check_config.h"

#include <unistd.h>

#include <charconv>
#include <filesystem>

#include "absl/strings/str_cat.h"

namespace labgate {

absl::Status CheckHostPort(const std::string& flag, const std::string& value, bool allow_zero) {
  std::string host;
  std::string port;
  if (!value.empty() && value.front() == '[') {
    size_t close = value.find("]:");
    if (close == std::string::npos) {
      return absl::InvalidArgumentError(absl::StrCat(flag, ": want [V6]:PORT, got '", value, "'"));
    }
    host = value.substr(1, close - 1);
    port = value.substr(close + 2);
  } else {
    size_t colon = value.rfind(':');
    if (colon == std::string::npos) {
      return absl::InvalidArgumentError(absl::StrCat(flag, ": want HOST:PORT, got '", value, "'"));
    }
    host = value.substr(0, colon);
    port = value.substr(colon + 1);
  }
  unsigned number = 0;
  auto [end, error] = std::from_chars(port.data(), port.data() + port.size(), number);
  if (host.empty() || port.empty() || error != std::errc() || end != port.data() + port.size() ||
      number > 65535 || (number == 0 && !allow_zero)) {
    return absl::InvalidArgumentError(absl::StrCat(flag, ": bad HOST:PORT '", value, "'"));
  }
  return absl::OkStatus();
}

absl::Status CheckWritableDirIfPresent(const std::string& flag, const std::string& path) {
  std::error_code error;
  if (!std::filesystem::exists(path, error)) return absl::OkStatus();
  if (!std::filesystem::is_directory(path, error)) {
    return absl::InvalidArgumentError(absl::StrCat(flag, ": '", path, "' is not a directory"));
  }
  if (access(path.c_str(), W_OK | X_OK) != 0) {
    return absl::InvalidArgumentError(absl::StrCat(flag, ": '", path, "' is not writable"));
  }
  return absl::OkStatus();
}

absl::Status CheckReadableDir(const std::string& flag, const std::string& path) {
  std::error_code error;
  if (!std::filesystem::is_directory(path, error) || access(path.c_str(), R_OK | X_OK) != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(flag, ": '", path, "' is not a readable directory"));
  }
  return absl::OkStatus();
}

}  // namespace labgate
