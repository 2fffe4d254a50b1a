// The loaf rpc dialect (JSON-RPC 2.0 over NDJSON stdio): rpc.handshake, system.ping,
// system.shutdown, session.create/get/send, and `event` notifications for the sessions a
// connection has touched. It needs no MCP initialize. LoafDialect is shared by the process;
// each stdio connection has its own LoafConnection (its framing, watches and events).
#pragma once

#include <grpcpp/channel.h>

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "gateway/core/outbound.h"
#include "gateway/core/reply_once.h"
#include "gateway/jsonrpc/message.h"
#include "labgate/session/v1/session.grpc.pb.h"

namespace labgate::gateway::loaf {

class LoafDialect {
 public:
  LoafDialect(std::shared_ptr<grpc::Channel> session_channel, std::chrono::milliseconds deadline);

  // What system.shutdown triggers, with the client's reason ("" when none was given).
  void OnShutdown(std::function<void(const std::string& reason)> handler);
  void RequestShutdown(const std::string& reason) const;

  labgate::session::v1::SessionService::Stub* stub() const { return stub_.get(); }
  std::chrono::milliseconds deadline() const { return deadline_; }

 private:
  std::unique_ptr<labgate::session::v1::SessionService::Stub> stub_;
  std::chrono::milliseconds deadline_;
  mutable absl::Mutex mutex_;
  std::function<void(const std::string&)> on_shutdown_ ABSL_GUARDED_BY(mutex_);
};

class LoafConnection : public std::enable_shared_from_this<LoafConnection> {
 public:
  // Events go to `outbound`, in the framing of the connection's latest loaf request.
  // Whether this connection's principal may call a loaf method (the access file); null: all.
  using MayCall = std::function<absl::Status(const std::string& method)>;
  static std::shared_ptr<LoafConnection> Create(const LoafDialect* dialect,
                                                std::shared_ptr<Outbound> outbound,
                                                MayCall may_call = nullptr);

  // One request (a message with an "id") that ClaimsMessage() accepted; the caller ignores
  // notifications before making a ReplyOnce. `reply` may be answered later, from a gRPC
  // thread.
  void Handle(const jsonrpc::IncomingMessage& message, Framing framing, ReplyOnce reply);

  // Ends every watch; no event is sent after it returns.
  void Close();

 private:
  struct Watch {
    std::shared_ptr<void> handle;
    bool ready = false;
    std::vector<std::function<void()>> waiting;  // run once subscribed (or failed)
  };

  LoafConnection(const LoafDialect* dialect, std::shared_ptr<Outbound> outbound, MayCall may_call)
      : dialect_(dialect), outbound_(std::move(outbound)), may_call_(std::move(may_call)) {}

  void Create(const nlohmann::json& params, ReplyOnce reply);
  void Get(const nlohmann::json& params, ReplyOnce reply);
  void Send(const nlohmann::json& params, ReplyOnce reply);

  // Runs `then` once `session_id` is watched (or the watch could not start).
  void EnsureWatched(const std::string& session_id, std::function<void()> then);
  void OnWatchReady(const std::string& session_id, bool subscribed);
  void OnEvent(const labgate::session::v1::SessionEvent& event);
  void Emit(std::string_view type, nlohmann::json payload);

  const LoafDialect* dialect_;
  std::shared_ptr<Outbound> outbound_;
  const MayCall may_call_;

  absl::Mutex mutex_;
  bool closed_ ABSL_GUARDED_BY(mutex_) = false;
  Framing framing_ ABSL_GUARDED_BY(mutex_) = Framing::kNewline;
  std::map<std::string, Watch> watches_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace labgate::gateway::loaf
