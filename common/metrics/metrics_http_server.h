// The /metrics endpoint of a standalone service (--metrics-listen): a tiny HTTP/1.1
// responder on a thread of its own. GET (or HEAD) /metrics answers the process's registry,
// /healthz and /health answer {"status":"ok"}; /readyz answers what the service's readiness
// check says (200 when ready, else 503, with its JSON; {"status":"ready"} without one); any
// other path is 404 and any other method
// 405. Each connection carries one request (headers of at most 8 KiB, arriving within
// 10 s, no body) and is then closed; at most 64 are open at once. A request it cannot
// parse gets 400; the server goes on serving.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "absl/status/statusor.h"

namespace labgate::metrics {

// Whether the service is ready, and a JSON object saying why; called on the server's thread for
// each /readyz.
struct Readiness {
  bool ready = true;
  std::string json;
};
using ReadinessCheck = std::function<Readiness()>;

class MetricsHttpServer {
 public:
  // `address` is HOST:PORT or [V6]:PORT; port 0 picks a free one (see port()).
  static absl::StatusOr<std::unique_ptr<MetricsHttpServer>> Start(const std::string& address,
                                                                  ReadinessCheck readiness = {});
  ~MetricsHttpServer();  // stops accepting, closes what is open, joins the thread

  uint16_t port() const;

  struct Impl;

 private:
  explicit MetricsHttpServer(std::shared_ptr<Impl> impl);
  std::shared_ptr<Impl> impl_;
};

}  // namespace labgate::metrics
