// The /metrics endpoint of a standalone service (--metrics-listen): a tiny HTTP/1.1
// responder on a thread of its own. GET (or HEAD) /metrics answers the process's registry,
// /healthz and /health answer {"status":"ok"}; any other path is 404 and any other method
// 405. Each connection carries one request (headers of at most 8 KiB, arriving within
// 10 s, no body) and is then closed; at most 64 are open at once. A request it cannot
// parse gets 400; the server goes on serving.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"

namespace labgate::metrics {

class MetricsHttpServer {
 public:
  // `address` is HOST:PORT or [V6]:PORT; port 0 picks a free one (see port()).
  static absl::StatusOr<std::unique_ptr<MetricsHttpServer>> Start(const std::string& address);
  ~MetricsHttpServer();  // stops accepting, closes what is open, joins the thread

  uint16_t port() const;

  struct Impl;

 private:
  explicit MetricsHttpServer(std::shared_ptr<Impl> impl);
  std::shared_ptr<Impl> impl_;
};

}  // namespace labgate::metrics
