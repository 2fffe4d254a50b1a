// A request as a call that must be allowed to finish sees it: everything passes through to the
// client's request except a cancel, which stops nothing. For a backend call that creates what
// the caller alone can end (a reservation): cut off half way, it might exist with no one told
// its id. The caller checks `cancelled()` when the answer comes and undoes what was made.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>

#include "gateway/mcp/providers.h"

namespace labgate::gateway {

class CancelShield final : public RequestContext {
 public:
  explicit CancelShield(std::shared_ptr<RequestContext> request) : request_(std::move(request)) {}

  const std::string& owner() const override { return request_->owner(); }
  const std::string& principal_name() const override { return request_->principal_name(); }
  const nlohmann::json& client_capabilities() const override {
    return request_->client_capabilities();
  }
  bool cancelled() const override { return request_->cancelled(); }
  void OnCancel(std::function<void()> handler) override { (void)handler; }
  void Progress(double progress, std::optional<double> total, const std::string& message) override {
    request_->Progress(progress, total, message);
  }
  void Log(McpLogLevel level, const std::string& logger, const nlohmann::json& data) override {
    request_->Log(level, logger, data);
  }
  bool WouldLog(McpLogLevel level) const override { return request_->WouldLog(level); }
  void RequestClient(const std::string& method, const nlohmann::json& params,
                     std::chrono::milliseconds timeout, JsonDone done) override {
    request_->RequestClient(method, params, timeout, std::move(done));
  }
  void AskClient(const std::string& key, const std::string& method, const nlohmann::json& params,
                 std::chrono::milliseconds timeout, JsonDone done) override {
    request_->AskClient(key, method, params, timeout, std::move(done));
  }
  void WithdrawQuestions(const std::string& reason) override {
    request_->WithdrawQuestions(reason);
  }
  LogSink LaterLog() override { return request_->LaterLog(); }
  NotifySink LaterNotify() override { return request_->LaterNotify(); }
  bool stateless() const override { return request_->stateless(); }
  bool in_task() const override { return request_->in_task(); }
  void CloseStream() override { request_->CloseStream(); }
  std::shared_ptr<void> HoldForPrincipal(
      const std::string& key, const std::function<std::shared_ptr<void>()>& make) override {
    return request_->HoldForPrincipal(key, make);
  }
  std::shared_ptr<void> KeepPrincipalBusy() override { return request_->KeepPrincipalBusy(); }

 private:
  const std::shared_ptr<RequestContext> request_;
};

}  // namespace labgate::gateway
