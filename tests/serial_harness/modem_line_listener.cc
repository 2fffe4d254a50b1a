#include "tests/serial_harness/modem_line_listener.h"

#include <errno.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/synchronization/mutex.h"

namespace labgate::serial_harness {
namespace {

absl::Mutex listeners_mu;
std::map<dev_t, std::function<void(int)>>& Listeners() ABSL_EXCLUSIVE_LOCKS_REQUIRED(listeners_mu) {
  static auto* listeners = new std::map<dev_t, std::function<void(int)>>();
  return *listeners;
}
bool started ABSL_GUARDED_BY(listeners_mu) = false;

void Dispatch(const std::string& message) {
  std::vector<std::string> fields = absl::StrSplit(message, ' ');
  uint64_t device = 0;
  int bits = 0;
  if (fields.size() != 2 || !absl::SimpleAtoi(fields[0], &device) ||
      !absl::SimpleAtoi(fields[1], &bits)) {
    return;
  }
  absl::MutexLock lock(&listeners_mu);
  auto found = Listeners().find(static_cast<dev_t>(device));
  if (found != Listeners().end()) found->second(bits);
}

// The listener lives as long as the process: the socket and thread are never torn down.
void Listen(int sock) {
  char buffer[128];
  for (;;) {
    const ssize_t got = recv(sock, buffer, sizeof(buffer) - 1, 0);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return;
    Dispatch(std::string(buffer, static_cast<size_t>(got)));
  }
}

}  // namespace

absl::Status StartModemLineListener() {
  absl::MutexLock lock(&listeners_mu);
  if (started) return absl::OkStatus();
  const std::string name = absl::StrCat("labgate-tiocm-", getpid());
  const int sock = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (sock < 0) return absl::InternalError(absl::StrCat("socket: ", std::strerror(errno)));
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::memcpy(address.sun_path + 1, name.data(), name.size());  // abstract namespace
  const auto length = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + name.size());
  if (bind(sock, reinterpret_cast<sockaddr*>(&address), length) != 0) {
    const int error = errno;
    close(sock);
    return absl::InternalError(absl::StrCat("bind @", name, ": ", std::strerror(error)));
  }
  setenv("LABGATE_TIOCM_NOTIFY", name.c_str(), 1);
  std::thread(Listen, sock).detach();
  started = true;
  return absl::OkStatus();
}

void ListenTo(dev_t device, std::function<void(int bits)> on_change) {
  absl::MutexLock lock(&listeners_mu);
  Listeners()[device] = std::move(on_change);
}

void StopListeningTo(dev_t device) {
  absl::MutexLock lock(&listeners_mu);
  Listeners().erase(device);
}

}  // namespace labgate::serial_harness
