#include "common/port_file.h"

#include <cstdio>
#include <fstream>

namespace labgate {

absl::Status WritePortFile(const std::string& path, int port) {
  if (path.empty()) return absl::OkStatus();
  const std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary, std::ios::trunc);
    out << port << "\n";
    if (!out.flush()) return absl::UnavailableError("cannot write port file " + temporary);
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    std::remove(temporary.c_str());
    return absl::UnavailableError("cannot write port file " + path);
  }
  return absl::OkStatus();
}

}  // namespace labgate
