// For provider tests: one request's RequestContext that records what the handler logs, and
// a wait for an asynchronous `done` with a generous deadline.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gateway/mcp/providers.h"

namespace labgate::gateway::testing {

inline constexpr auto kWait = std::chrono::seconds(30);

class RecordingRequest final : public RequestContext {
 public:
  explicit RecordingRequest(std::string owner = "test-owner") : owner_(std::move(owner)) {}

  const std::string& owner() const override { return owner_; }
  const nlohmann::json& client_capabilities() const override { return capabilities_; }
  bool cancelled() const override {
    std::lock_guard<std::mutex> lock(mutex_);
    return cancelled_;
  }
  void OnCancel(std::function<void()> handler) override {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!cancelled_) {
        on_cancel_ = std::move(handler);
        return;
      }
    }
    handler();
  }
  // The client cancels: the handler registered runs (once), as later ones will at once.
  void Cancel() {
    std::function<void()> handler;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (cancelled_) return;
      cancelled_ = true;
      handler = std::move(on_cancel_);
      on_cancel_ = nullptr;
    }
    if (handler) handler();
  }
  void Progress(double, std::optional<double>, const std::string&) override {}
  void Log(McpLogLevel level, const std::string& logger, const nlohmann::json& data) override {
    std::lock_guard<std::mutex> lock(mutex_);
    logs_.push_back({{"level", McpLogLevelName(level)}, {"logger", logger}, {"data", data}});
  }
  void RequestClient(const std::string&, const nlohmann::json&, std::chrono::milliseconds,
                     JsonDone done) override {
    done(absl::UnimplementedError("no client requests in this test"));
  }
  // Holds what the handler asks the principal to keep, until ReleaseHeld().
  std::shared_ptr<void> HoldForPrincipal(
      const std::string& key, const std::function<std::shared_ptr<void>()>& make) override {
    std::lock_guard<std::mutex> lock(mutex_);
    std::shared_ptr<void>& held = held_[key];
    if (held == nullptr) held = make();
    return held;
  }
  // What KeepPrincipalBusy hands out (a principal's Busy(), say); none by default.
  void SetKeepBusy(std::function<std::shared_ptr<void>()> keep_busy) {
    std::lock_guard<std::mutex> lock(mutex_);
    keep_busy_ = std::move(keep_busy);
  }
  std::shared_ptr<void> KeepPrincipalBusy() override {
    std::lock_guard<std::mutex> lock(mutex_);
    return keep_busy_ ? keep_busy_() : nullptr;
  }
  void ReleaseHeld() {
    std::map<std::string, std::shared_ptr<void>> released;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      released.swap(held_);
    }
  }
  size_t held_count() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return held_.size();
  }

  std::vector<nlohmann::json> logs() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return logs_;
  }
  bool has_cancel_handler() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return on_cancel_ != nullptr;
  }

 private:
  const std::string owner_;
  const nlohmann::json capabilities_ = nlohmann::json::object();
  mutable std::mutex mutex_;
  std::vector<nlohmann::json> logs_;
  std::function<void()> on_cancel_;
  bool cancelled_ = false;
  std::map<std::string, std::shared_ptr<void>> held_;
  std::function<std::shared_ptr<void>()> keep_busy_;
};

// A `done` callback and the value it will be given: Wait() returns it, or fails the test
// after kWait.
template <typename T>
class Outcome {
 public:
  std::function<void(T)> Callback() {
    return [promise = promise_](T value) { promise->set_value(std::move(value)); };
  }
  T Wait() {
    std::future<T> future = promise_->get_future();
    if (future.wait_for(kWait) != std::future_status::ready) {
      ADD_FAILURE() << "no answer within " << kWait.count() << " s";
      return T{};  // the callback holds only the promise, so it may still run safely
    }
    return future.get();
  }

 private:
  std::shared_ptr<std::promise<T>> promise_ = std::make_shared<std::promise<T>>();
};

}  // namespace labgate::gateway::testing
