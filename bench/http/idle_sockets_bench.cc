// Idle sockets against new clients: opens N connections that then sit idle (kept alive after
// one request, or connected and silent), and while they are held, times K new clients one
// after another, each from connect to a whole `GET /health` answer. Prints one JSON line with
// the latency percentiles and how many new clients were not answered.
//
//   labgate_idle_sockets_bench --port P [--idle 2000] [--clients 500] [--silent] [--label NAME]
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

const char kHealth[] = "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";

int Connect(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  timeval timeout{5, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

// Sends one /health request and reads until its body's closing brace; false if the server
// closed or stayed silent.
bool AskHealth(int fd) {
  if (::send(fd, kHealth, sizeof(kHealth) - 1, MSG_NOSIGNAL) != sizeof(kHealth) - 1) return false;
  std::string seen;
  char buffer[1024];
  while (seen.find('}') == std::string::npos) {
    ssize_t got = ::recv(fd, buffer, sizeof(buffer), 0);
    if (got <= 0) return false;
    seen.append(buffer, static_cast<size_t>(got));
  }
  return seen.rfind("HTTP/1.1 200", 0) == 0;
}

double Percentile(std::vector<double> values, double q) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  return values[std::min(values.size() - 1, static_cast<size_t>(q * values.size()))];
}

}  // namespace

int main(int argc, char** argv) {
  int port = 0;
  int idle = 2000;
  int clients = 500;
  bool silent = false;
  std::string label = "server";
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    if (flag == "--silent") {
      silent = true;
      continue;
    }
    if (i + 1 >= argc) {
      std::cerr << "missing value for " << flag << "\n";
      return 2;
    }
    std::string value = argv[++i];
    if (flag == "--port") {
      port = std::stoi(value);
    } else if (flag == "--idle") {
      idle = std::stoi(value);
    } else if (flag == "--clients") {
      clients = std::stoi(value);
    } else if (flag == "--label") {
      label = value;
    } else {
      std::cerr << "unknown flag " << flag << "\n";
      return 2;
    }
  }
  if (port == 0) {
    std::cerr << "--port is required\n";
    return 2;
  }
  rlimit files{};
  ::getrlimit(RLIMIT_NOFILE, &files);
  files.rlim_cur = files.rlim_max;
  ::setrlimit(RLIMIT_NOFILE, &files);

  std::vector<int> held;
  int held_failed = 0;
  for (int i = 0; i < idle; ++i) {
    int fd = Connect(port);
    if (fd < 0 || (!silent && !AskHealth(fd))) {
      ++held_failed;
      if (fd >= 0) ::close(fd);
      continue;
    }
    held.push_back(fd);
  }

  std::vector<double> latencies_ms;
  int unanswered = 0;
  for (int i = 0; i < clients; ++i) {
    const auto started = Clock::now();
    int fd = Connect(port);
    bool answered = fd >= 0 && AskHealth(fd);
    const double elapsed =
        std::chrono::duration<double, std::milli>(Clock::now() - started).count();
    if (fd >= 0) ::close(fd);
    if (answered) {
      latencies_ms.push_back(elapsed);
    } else {
      ++unanswered;
    }
  }
  // How many of the held sockets the server has closed by now (evicted or timed out).
  int held_closed = 0;
  for (int fd : held) {
    char byte;
    ssize_t got = ::recv(fd, &byte, 1, MSG_DONTWAIT);
    if (got == 0 || (got < 0 && errno != EAGAIN && errno != EWOULDBLOCK)) ++held_closed;
    ::close(fd);
  }
  std::printf(
      "{\"label\":\"%s\",\"idle\":%d,\"idle_kind\":\"%s\",\"idle_not_opened\":%d,"
      "\"idle_closed_by_server\":%d,\"clients\":%d,\"unanswered\":%d,\"p50_ms\":%.3f,"
      "\"p99_ms\":%.3f,\"max_ms\":%.3f}\n",
      label.c_str(), idle, silent ? "silent" : "kept-alive", held_failed, held_closed, clients,
      unanswered, Percentile(latencies_ms, 0.5), Percentile(latencies_ms, 0.99),
      Percentile(latencies_ms, 1.0));
  return 0;
}
