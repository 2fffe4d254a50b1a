// The floor for Streamable HTTP on this machine: a server that does nothing but answer every
// POST with the same bytes, read from a file once. Measured with labgate_http_bench beside
// labgate and the reference, it shows what the machine's TCP, wake-ups and the load generator
// allow for a reply of that size, whatever the server does.
//
//   labgate_http_floor --body-file F --port-file P [--threads 2] [--spin-us 0]
//
// Each thread has its own epoll set; the main thread accepts and deals connections out in
// turn, as labgate deals them over its io_contexts. A notification (a body naming a
// `notifications/` method) gets 202 with no body, as Streamable HTTP asks; any other POST gets
// 200, an `Mcp-Session-Id` and the file's bytes, in one gather write. With --spin-us, a thread
// polls its epoll set for that long after each event before it sleeps, as labgate's io threads
// do (--io-spin-us).
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

namespace {

struct Replies {
  std::string head;  // the 200's status line and headers
  std::string body;
};

// Writes all of `parts`, waiting for room when the socket is full. False: the peer is gone.
bool WriteAll(int fd, iovec* parts, int count) {
  while (count > 0) {
    ssize_t n = ::writev(fd, parts, count);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno != EAGAIN) return false;
      pollfd wait{fd, POLLOUT, 0};
      ::poll(&wait, 1, 1000);
      continue;
    }
    size_t left = static_cast<size_t>(n);
    while (count > 0 && left >= parts->iov_len) {
      left -= parts->iov_len;
      ++parts;
      --count;
    }
    if (count > 0) {
      parts->iov_base = static_cast<char*>(parts->iov_base) + left;
      parts->iov_len -= left;
    }
  }
  return true;
}

// The length of the first complete request in `buffer`, or 0 while it is incomplete.
size_t CompleteRequest(std::string_view buffer) {
  size_t head_end = buffer.find("\r\n\r\n");
  if (head_end == std::string_view::npos) return 0;
  std::string head(buffer.substr(0, head_end));
  std::transform(head.begin(), head.end(), head.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  size_t body = 0;
  if (size_t at = head.find("\r\ncontent-length:"); at != std::string::npos) {
    body = std::stoul(head.substr(at + 17));
  }
  size_t total = head_end + 4 + body;
  return buffer.size() >= total ? total : 0;
}

// Answers every complete request in `buffer` and drops it. False: the peer is gone.
bool AnswerRequests(int fd, std::string& buffer, const Replies& replies) {
  static const std::string kAccepted = "HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n";
  size_t used = 0;
  while (size_t length = CompleteRequest(std::string_view(buffer).substr(used))) {
    std::string_view request = std::string_view(buffer).substr(used, length);
    used += length;
    iovec parts[2];
    int count = 1;
    if (request.find("\"method\":\"notifications/") != std::string_view::npos) {
      parts[0] = {const_cast<char*>(kAccepted.data()), kAccepted.size()};
    } else {
      parts[0] = {const_cast<char*>(replies.head.data()), replies.head.size()};
      parts[1] = {const_cast<char*>(replies.body.data()), replies.body.size()};
      count = 2;
    }
    if (!WriteAll(fd, parts, count)) return false;
  }
  buffer.erase(0, used);
  return true;
}

void Serve(int epoll_fd, const Replies& replies, std::chrono::microseconds spin) {
  std::unordered_map<int, std::string> buffers;
  epoll_event events[64];
  char scratch[65536];
  std::chrono::steady_clock::time_point spin_until;
  while (true) {
    const bool spinning = std::chrono::steady_clock::now() < spin_until;
    int ready = ::epoll_wait(epoll_fd, events, 64, spinning ? 0 : -1);
    if (ready > 0 && spin.count() > 0) spin_until = std::chrono::steady_clock::now() + spin;
    for (int i = 0; i < ready; ++i) {
      int fd = events[i].data.fd;
      std::string& buffer = buffers[fd];
      bool open = true;
      while (true) {
        ssize_t n = ::recv(fd, scratch, sizeof(scratch), 0);
        if (n > 0) {
          buffer.append(scratch, static_cast<size_t>(n));
          continue;
        }
        if (n < 0 && errno == EINTR) continue;
        open = n < 0 && errno == EAGAIN;
        break;
      }
      if (open) open = AnswerRequests(fd, buffer, replies);
      if (!open) {
        ::epoll_ctl(epoll_fd, EPOLL_CTL_DEL, fd, nullptr);
        ::close(fd);
        buffers.erase(fd);
      }
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::string body_file;
  std::string port_file;
  int threads = 2;
  std::chrono::microseconds spin{0};
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string flag = argv[i];
    if (flag == "--body-file") {
      body_file = argv[i + 1];
    } else if (flag == "--port-file") {
      port_file = argv[i + 1];
    } else if (flag == "--threads") {
      threads = std::max(1, std::stoi(argv[i + 1]));
    } else if (flag == "--spin-us") {
      spin = std::chrono::microseconds(std::max(0, std::stoi(argv[i + 1])));
    } else {
      std::cerr << "unknown flag " << flag << "\n";
      return 2;
    }
  }
  std::ifstream in(body_file, std::ios::binary);
  if (body_file.empty() || port_file.empty() || !in) {
    std::cerr << "usage: labgate_http_floor --body-file F --port-file P [--threads N] "
                 "[--spin-us N]\n";
    return 2;
  }
  Replies replies;
  std::ostringstream text;
  text << in.rdbuf();
  replies.body = text.str();
  while (!replies.body.empty() && replies.body.back() == '\n') replies.body.pop_back();
  replies.head =
      "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nMcp-Session-Id: floor\r\n"
      "Content-Length: " +
      std::to_string(replies.body.size()) + "\r\n\r\n";

  int listener = ::socket(AF_INET, SOCK_STREAM, 0);
  int one = 1;
  ::setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t size = sizeof(address);
  if (::bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 ||
      ::listen(listener, 1024) != 0 ||
      ::getsockname(listener, reinterpret_cast<sockaddr*>(&address), &size) != 0) {
    std::perror("listen");
    return 1;
  }
  std::ofstream(port_file) << ntohs(address.sin_port) << "\n";

  std::vector<int> epolls;
  std::vector<std::thread> workers;
  for (int i = 0; i < threads; ++i) {
    epolls.push_back(::epoll_create1(0));
    workers.emplace_back(Serve, epolls.back(), std::cref(replies), spin);
  }
  for (size_t next = 0;; ++next) {
    int fd = ::accept4(listener, nullptr, nullptr, SOCK_NONBLOCK);
    if (fd < 0) continue;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    epoll_event event{};
    event.events = EPOLLIN;
    event.data.fd = fd;
    ::epoll_ctl(epolls[next % epolls.size()], EPOLL_CTL_ADD, fd, &event);
  }
}
