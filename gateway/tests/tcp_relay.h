// For gateway tests: a TCP relay on 127.0.0.1 to a local port whose links can go silent.
// Freeze() stops moving bytes on every link made so far without closing it, as a link to a
// host that lost power looks to both ends; links made afterwards relay as before.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace labgate::gateway::testing {

class TcpRelay {
 public:
  explicit TcpRelay(int target_port) : target_port_(target_port) {
    listener_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address = Loopback(0);
    socklen_t length = sizeof(address);
    bind(listener_, reinterpret_cast<sockaddr*>(&address), sizeof(address));
    listen(listener_, 16);
    getsockname(listener_, reinterpret_cast<sockaddr*>(&address), &length);
    port_ = ntohs(address.sin_port);
    acceptor_ = std::thread([this] { Accept(); });
  }
  ~TcpRelay() {
    stop_ = true;
    acceptor_.join();
    for (std::thread& thread : pumps_) thread.join();  // the acceptor, which adds them, is gone
    close(listener_);
    for (int fd : sockets_) close(fd);
  }
  TcpRelay(const TcpRelay&) = delete;
  TcpRelay& operator=(const TcpRelay&) = delete;

  int port() const { return port_; }
  void Freeze() {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto& frozen : links_) *frozen = true;
  }

 private:
  static sockaddr_in Loopback(int port) {
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<uint16_t>(port));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return address;
  }

  void Accept() {
    while (!stop_) {
      pollfd ready{listener_, POLLIN, 0};
      if (poll(&ready, 1, 20) <= 0) continue;
      const int client = accept(listener_, nullptr, nullptr);
      if (client < 0) continue;
      const int service = socket(AF_INET, SOCK_STREAM, 0);
      sockaddr_in target = Loopback(target_port_);
      if (connect(service, reinterpret_cast<sockaddr*>(&target), sizeof(target)) != 0) {
        close(client);
        close(service);
        continue;
      }
      auto frozen = std::make_shared<std::atomic<bool>>(false);
      std::lock_guard<std::mutex> lock(mutex_);
      sockets_.insert(sockets_.end(), {client, service});
      links_.push_back(frozen);
      pumps_.emplace_back([this, client, service, frozen] { Pump(client, service, *frozen); });
    }
  }

  // Moves bytes both ways until the relay stops; frozen, it reads and writes nothing more.
  void Pump(int client, int service, const std::atomic<bool>& frozen) {
    char buffer[16384];
    while (!stop_) {
      if (frozen) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        continue;
      }
      pollfd ready[2] = {{client, POLLIN, 0}, {service, POLLIN, 0}};
      if (poll(ready, 2, 20) <= 0) continue;
      for (int side = 0; side < 2; ++side) {
        if ((ready[side].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
        const ssize_t got = read(ready[side].fd, buffer, sizeof(buffer));
        if (got <= 0) return;  // one end closed: the link is over
        const int to = side == 0 ? service : client;
        for (ssize_t sent = 0; sent < got;) {
          const ssize_t wrote = write(to, buffer + sent, static_cast<size_t>(got - sent));
          if (wrote <= 0) return;
          sent += wrote;
        }
      }
    }
  }

  const int target_port_;
  int listener_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::mutex mutex_;
  std::vector<int> sockets_;
  std::vector<std::shared_ptr<std::atomic<bool>>> links_;
  std::thread acceptor_;
  std::vector<std::thread> pumps_;  // one per link
};

}  // namespace labgate::gateway::testing
