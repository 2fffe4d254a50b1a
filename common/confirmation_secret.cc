#include "common/confirmation_secret.h"

#include <cstdlib>
#include <fstream>
#include <random>

#include "absl/strings/str_cat.h"
#include "common/log.h"

namespace labgate {

const std::string& ConfirmationSecret() {
  static const std::string* secret = [] {
    const char* path = std::getenv(kConfirmSecretFileEnv);
    if (path != nullptr && path[0] != '\0') {
      std::ifstream in(path);
      std::string line;
      if (in && std::getline(in, line) && !line.empty()) return new std::string(line);
      LG_LOG(kWarning) << kConfirmSecretFileEnv << "=" << path
                       << " is unreadable or empty; approvals work only within this process";
    }
    std::random_device random;
    std::string generated;
    for (int i = 0; i < 4; ++i) absl::StrAppend(&generated, absl::Hex(random(), absl::kZeroPad8));
    return new std::string(generated);
  }();
  return *secret;
}

}  // namespace labgate
