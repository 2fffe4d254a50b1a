// Binds the stdio transport to one MCP session: frames in, replies out in the framing
// the client used.
#pragma once

#include <atomic>
#include <boost/asio/io_context.hpp>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>

#include "gateway/actions/action_tools.h"
#include "gateway/mcp/mcp_server.h"
#include "gateway/mcp/mcp_session.h"
#include "gateway/server/inline_strand.h"
#include "gateway/transport/stdio_transport.h"

namespace labgate::gateway {

class StdioConnection {
 public:
  // `legacy_actions` answers the legacy list_actions/invoke envelope (may be null).
  StdioConnection(const McpServer* server, ActionTools* legacy_actions, boost::asio::io_context& io,
                  StdioTransport::Options options);
  ~StdioConnection();

  void Start();
  // Blocks until stdin reaches EOF or `Interrupt()` is called.
  void WaitForEndOfInput();
  void Interrupt();
  // Waits (up to `timeout`) for requests in flight to be answered, then flushes output.
  void Drain(std::chrono::milliseconds timeout);

 private:
  void OnFrame(Frame frame);
  void OnFrameError(const FrameError& error);
  void HandleLegacy(const Frame& frame, const nlohmann::json& envelope);
  // `client_waiting`: nothing else is in flight, so the reply is written at once rather
  // than batched with others.
  void Send(std::string payload, bool client_waiting);
  bool Idle() const;
  size_t InFlightOnStrand();

  InlineStrand strand_;
  std::shared_ptr<McpSession> session_;
  std::unique_ptr<StdioTransport> transport_;
  std::atomic<Framing> reply_framing_{Framing::kNewline};
  ActionTools* legacy_actions_;
  // Once a client has used the legacy envelope, malformed lines get its error texts.
  std::atomic<bool> spoke_legacy_{false};
  std::atomic<int> legacy_in_flight_{0};

  std::mutex mutex_;
  std::condition_variable ended_;
  bool input_ended_ = false;
};

}  // namespace labgate::gateway
