#include "gateway/mcp/mcp_server.h"

#include <algorithm>
#include <array>
#include <boost/asio/post.hpp>
#include <cstdio>
#include <random>

#include "gateway/mcp/mcp_session.h"

namespace labgate::gateway {

namespace {
constexpr std::array<const char*, 8> kLevelNames = {"debug", "info",     "notice", "warning",
                                                    "error", "critical", "alert",  "emergency"};
}

bool ParseMcpLogLevel(const std::string& text, McpLogLevel* level) {
  for (size_t i = 0; i < kLevelNames.size(); ++i) {
    if (text == kLevelNames[i]) {
      *level = static_cast<McpLogLevel>(i);
      return true;
    }
  }
  return false;
}

const char* McpLogLevelName(McpLogLevel level) { return kLevelNames[static_cast<size_t>(level)]; }

void SessionHub::Add(const std::shared_ptr<McpSession>& session) {
  std::lock_guard<std::mutex> lock(mutex_);
  sessions_.erase(std::remove_if(sessions_.begin(), sessions_.end(),
                                 [](const std::weak_ptr<McpSession>& s) { return s.expired(); }),
                  sessions_.end());
  sessions_.push_back(session);
}

void SessionHub::Broadcast(std::function<void(McpSession&)> fn) {
  std::vector<std::shared_ptr<McpSession>> live;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto& weak : sessions_) {
      if (auto session = weak.lock()) live.push_back(std::move(session));
    }
  }
  for (auto& session : live) {
    boost::asio::post(session->strand(), [session, fn]() { fn(*session); });
  }
}

size_t SessionHub::live_sessions() {
  std::lock_guard<std::mutex> lock(mutex_);
  return static_cast<size_t>(std::count_if(sessions_.begin(), sessions_.end(),
                                           [](const auto& s) { return !s.expired(); }));
}

std::string ToolListCache::Find(const std::string& cursor, uint64_t generation) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (generation != generation_) return "";
  auto it = pages_.find(cursor);
  return it == pages_.end() ? "" : it->second;
}

void ToolListCache::Store(const std::string& cursor, uint64_t generation, std::string result_text) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (generation != generation_) {
    pages_.clear();
    generation_ = generation;
  }
  if (pages_.size() < 64) pages_[cursor] = std::move(result_text);
}

void McpServer::NotifyListChanged(ListKind kind) const {
  if (kind == ListKind::kTools) tools_generation->fetch_add(1);
  hub->Broadcast([kind](McpSession& session) { session.NotifyListChanged(kind); });
}

std::string DefaultInstructions() {
  return "labgate connects you to the lab machine's serial instruments and keeps a durable "
         "transcript of what you do. Typical flow: list_ports, open_port (port_name, baud_rate, "
         "terminator), write a command and read the reply; create_session for the device and "
         "append_message for each command sent and reply received (role, direction tx/rx, "
         "feature tags such as 'scpi,idn'); list_messages / filter_messages / export_session to "
         "review. Transcripts are also resources (labgate://sessions/{id}) you can subscribe "
         "to. Every tool returns structured JSON; failures come back as tool results with "
         "isError set and a message saying what to fix.";
}

std::string NewOwnerId(const std::string& transport) {
  static thread_local std::mt19937_64 generator(std::random_device{}());
  char hex[17];
  std::snprintf(hex, sizeof(hex), "%016llx", static_cast<unsigned long long>(generator()));
  return transport + "-" + hex;
}

}  // namespace labgate::gateway
