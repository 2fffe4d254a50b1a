// One stdio connection: frames in, each message to the dialect it belongs to, and each
// reply out in the framing of the request it answers. The connection is its own principal:
// what it owns (its serial ports) is released when it ends.
//
// Dialects are chosen per message:
// - a JSON-RPC method rpc.*, system.* or session.*: the loaf rpc dialect (gateway/dialects/loaf/);
// - an object with "type" and no "jsonrpc": the v0.1 envelope (gateway/legacy/);
// - a request carrying the 2026-07-28 _meta, or server/discover: stateless MCP;
// - any other JSON-RPC: stateful MCP (2025-11-25 and older), begun by initialize.
#pragma once

#include <atomic>
#include <boost/asio/io_context.hpp>
#include <chrono>
#include <memory>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "gateway/actions/action_tools.h"
#include "gateway/core/in_flight.h"
#include "gateway/core/outbound.h"
#include "gateway/core/run_or_queue_strand.h"
#include "gateway/dialects/loaf/loaf_dialect.h"
#include "gateway/dialects/mcp_stateful/mcp_session.h"
#include "gateway/dialects/mcp_stateless/stateless_dialect.h"
#include "gateway/mcp/mcp_server.h"
#include "gateway/principals/principal.h"
#include "gateway/transport/stdio_transport.h"

namespace labgate::gateway {

struct StdioDialects {
  const McpServer* server = nullptr;
  ActionTools* legacy_actions = nullptr;             // answers the v0.1 envelope; may be null
  stateless::StatelessDialect* stateless = nullptr;  // the 2026 era; may be null
  const loaf::LoafDialect* loaf = nullptr;           // loaf rpc; may be null
};

class StdioConnection {
 public:
  StdioConnection(StdioDialects dialects, boost::asio::io_context& io,
                  StdioTransport::Options options);
  ~StdioConnection();

  void Start();
  // The seed harnesses' start signal, {"jsonrpc":"2.0","method":"_heartbeat","params":{}}.
  // Sent before Start(), so it is the first line written.
  void SendHeartbeat();
  // Blocks until stdin reaches EOF or `Interrupt()` is called.
  void WaitForEndOfInput() ABSL_LOCKS_EXCLUDED(mutex_);
  void Interrupt() ABSL_LOCKS_EXCLUDED(mutex_);
  // Waits (up to `timeout`) until nothing is in flight, then ends the session, releases
  // what the connection owns and flushes output.
  void Drain(std::chrono::milliseconds timeout);

  const std::shared_ptr<Principal>& principal() const { return principal_; }

 private:
  class StdioOutbound;

  // Nothing counted in flight and nothing queued on the strand; false on timeout.
  bool WaitUntilQuiet(std::chrono::milliseconds timeout);
  void OnFrame(Frame frame);
  void OnFrameError(const FrameError& error);
  void HandleLegacy(const Frame& frame, const nlohmann::json& envelope);
  void HandleLoaf(const jsonrpc::IncomingMessage& message, Framing framing);
  // `client_waiting`: nothing else is in flight, so the reply is written at once rather
  // than batched with others.
  void Write(Framing framing, std::string payload, bool client_waiting);
  // Nothing in flight but (for a reply) the request it answers.
  bool Idle(bool answering) const;

  StdioDialects dialects_;
  RunOrQueueStrand strand_;
  std::shared_ptr<InFlightCounter> in_flight_ = InFlightCounter::Create();
  std::shared_ptr<Principal> principal_;
  std::shared_ptr<StdioOutbound> outbound_;
  std::shared_ptr<McpSession> session_;
  std::shared_ptr<stateless::StatelessCalls> stateless_calls_ =
      std::make_shared<stateless::StatelessCalls>();
  std::shared_ptr<loaf::LoafConnection> loaf_;  // null without a loaf dialect
  std::unique_ptr<StdioTransport> transport_;
  // Once a client has used the legacy envelope, malformed lines get its error texts.
  std::atomic<bool> spoke_legacy_{false};

  absl::Mutex mutex_;
  absl::CondVar ended_;
  bool input_ended_ ABSL_GUARDED_BY(mutex_) = false;
};

}  // namespace labgate::gateway
