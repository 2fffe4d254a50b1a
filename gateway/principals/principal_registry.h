// The principals of one HTTP listener, by name, and their idle release: a principal that
// has made no request for `idle_release` gives up what it owns (its serial ports), and the
// release is logged. A principal that comes back gets the same owner id, so it still has
// everything it had not yet released.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "gateway/principals/principal.h"

namespace labgate::gateway {

class PrincipalRegistry {
 public:
  // Owner ids are `prefix` + name, e.g. "http:alice"; the principals speak `transport` and
  // read `clock` (default: the steady clock) when they make a request.
  explicit PrincipalRegistry(std::string prefix, const char* transport = "http",
                             Principal::Clock clock = nullptr)
      : prefix_(std::move(prefix)), transport_(transport), clock_(std::move(clock)) {}

  std::shared_ptr<Principal> Get(const std::string& name);
  // Releases what principals idle since before `cutoff` hold, none with a request or task
  // under way (Principal::Busy); returns how many released.
  size_t ReleaseIdle(std::chrono::steady_clock::time_point cutoff);
  size_t size() const;

 private:
  const std::string prefix_;
  const char* const transport_;
  const Principal::Clock clock_;
  mutable absl::Mutex mutex_;
  std::map<std::string, std::shared_ptr<Principal>> principals_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace labgate::gateway
