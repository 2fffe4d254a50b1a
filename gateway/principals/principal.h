// Whoever is asking: a stdio connection, a named bearer token, the one `local` principal of
// unauthenticated loopback HTTP, or (in the services) a gRPC labgate-owner. Ports, stateful
// MCP sessions and leases belong to a principal, never to a connection, so a client that
// leaves without saying goodbye locks nothing away from its principal.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

namespace labgate::gateway {

class Principal : public std::enable_shared_from_this<Principal> {
 public:
  // What Touch() reads; tests move one of their own instead of waiting.
  using Clock = std::function<std::chrono::steady_clock::time_point()>;

  // `name` is shown to people ("alice", "local", "stdio-1"); `owner_id` is what the
  // services know it by (the labgate-owner of its serial ports); `transport` ("stdio" or
  // "http", a static string) is where it speaks, for logs and metrics. Without a `clock`,
  // the steady clock.
  Principal(std::string name, std::string owner_id, const char* transport = "stdio",
            Clock clock = nullptr);
  ~Principal();

  const std::string& name() const { return name_; }
  const std::string& owner_id() const { return owner_id_; }
  const char* transport() const { return transport_; }

  // Keeps `make()`'s result (e.g. the serial Lease) until Release(); made once per key.
  // Returns what is held under `key`.
  std::shared_ptr<void> Hold(const std::string& key,
                             const std::function<std::shared_ptr<void>()>& make);
  // Drops everything held: the services then release what the principal had.
  void Release();
  bool holds_anything() const;

  // Records a request now; idle release counts from the last one.
  void Touch();
  std::chrono::steady_clock::time_point last_active() const;
  // Marks a request (or task) under way until the handle goes: a busy principal is never
  // idle, and its idle time counts from when its last request ended. A `send_expect` that
  // outlasts the idle-release time keeps its port to its last send.
  std::shared_ptr<void> Busy();
  bool busy() const { return busy_.load(std::memory_order_acquire) > 0; }

 private:
  const std::string name_;
  const std::string owner_id_;
  const char* const transport_;
  const Clock clock_;
  mutable absl::Mutex mutex_;
  std::map<std::string, std::shared_ptr<void>> held_ ABSL_GUARDED_BY(mutex_);
  std::atomic<std::chrono::steady_clock::rep> last_active_;
  std::atomic<int> busy_{0};
};

}  // namespace labgate::gateway
