#include "actions-service/contract_sources.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

namespace labgate::actions {

absl::StatusOr<std::vector<ContractSource>> ReadContractsDir(const std::string& dir) {
  std::error_code error;
  if (!std::filesystem::is_directory(dir, error)) {
    return absl::NotFoundError("contracts directory '" + dir + "' is not a readable directory");
  }
  std::vector<ContractSource> sources;
  for (const auto& entry : std::filesystem::directory_iterator(dir, error)) {
    if (!entry.is_regular_file() || entry.path().extension() != ".json") continue;
    std::ifstream file(entry.path(), std::ios::binary);
    if (!file) {
      return absl::NotFoundError("cannot read contract file '" + entry.path().string() + "'");
    }
    std::ostringstream text;
    text << file.rdbuf();
    sources.push_back({entry.path().filename().string(), text.str()});
  }
  if (error) {
    return absl::NotFoundError("cannot list contracts directory '" + dir + "': " + error.message());
  }
  std::sort(sources.begin(), sources.end(),
            [](const ContractSource& a, const ContractSource& b) { return a.name < b.name; });
  return sources;
}

}  // namespace labgate::actions
