#include "tools/probe/token_file.h"

#include <fcntl.h>
#include <sys/random.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "common/caller_auth.h"

namespace labgate::probe {

absl::StatusOr<bool> EnsureTokenFile(const std::string& path) {
  if (access(path.c_str(), F_OK) == 0) {
    // One there already: keep it, as long as it is a token the services can read.
    absl::StatusOr<std::string> token = ReadTokenFile(path, "token");
    if (!token.ok()) return token.status();
    return false;
  }
  unsigned char bytes[32];
  if (getrandom(bytes, sizeof bytes, 0) != sizeof bytes) {
    return absl::InternalError(absl::StrCat("no random bytes: ", std::strerror(errno)));
  }
  const std::string text = absl::BytesToHexString(absl::string_view(
                               reinterpret_cast<const char*>(bytes), sizeof bytes)) +
                           "\n";
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("token ", path, ": cannot create: ", std::strerror(errno)));
  }
  const bool written = write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  const bool closed = close(fd) == 0;
  if (!written || !closed) {
    unlink(path.c_str());
    return absl::InternalError(absl::StrCat("token ", path, ": cannot write it"));
  }
  return true;
}

}  // namespace labgate::probe
