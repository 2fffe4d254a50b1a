// What a permission check costs per tools/call (Google Benchmark): ToolAccess::MayCall for an
// operator with tool and port globs, for a viewer refused a write, and the same call with no
// access file, over a tool list of labgate's size (40 tools, half read-only).
#include <benchmark/benchmark.h>

#include <memory>
#include <string>
#include <vector>

#include "common/access/access_control.h"
#include "gateway/mcp/mcp_server.h"

namespace {

using labgate::access::AccessControl;
using labgate::access::AccessPolicy;
using labgate::gateway::McpServer;
using labgate::gateway::ToolAccess;
using nlohmann::json;

class ListedTools final : public labgate::gateway::ToolProvider {
 public:
  std::vector<json> ListTools() const override {
    std::vector<json> tools;
    tools.reserve(41);
    for (int i = 0; i < 40; ++i) {
      tools.push_back(
          {{"name", "tool_" + std::to_string(i)}, {"annotations", {{"readOnlyHint", i % 2 == 0}}}});
    }
    tools.push_back({{"name", "write"}, {"annotations", {{"readOnlyHint", false}}}});
    return tools;
  }
  bool HasTool(const std::string&) const override { return true; }
  void CallTool(const std::string&, const json&, std::shared_ptr<labgate::gateway::RequestContext>,
                labgate::gateway::ToolDone) override {}
};

// A control whose policy names 20 principals, each with a few globs.
std::shared_ptr<AccessControl> LabControl() {
  json principals = json::object();
  for (int i = 0; i < 18; ++i) {
    principals["user" + std::to_string(i)] = {
        {"role", "operator"}, {"tools", {"list_*", "tool_1*", "write"}}, {"ports", {"dmm-*"}}};
  }
  principals["alice"] = {{"role", "operator"},
                         {"tools", {"list_*", "open_port", "tool_*", "write"}},
                         {"ports", {"psu-*", "dmm-*"}}};
  principals["vera"] = {{"role", "viewer"}};
  auto policy = AccessPolicy::Parse({{"principals", principals}}, "bench.json");
  return AccessControl::ForTesting(*std::move(policy));
}

void BM_NoAccessFile(benchmark::State& state) {
  McpServer server;
  ListedTools tools;
  server.tools = {&tools};
  ToolAccess access(std::make_shared<AccessControl>());
  for (auto _ : state) benchmark::DoNotOptimize(access.MayCall(server, "alice", "write"));
}
BENCHMARK(BM_NoAccessFile);

void BM_OperatorAllowed(benchmark::State& state) {
  McpServer server;
  ListedTools tools;
  server.tools = {&tools};
  ToolAccess access(LabControl());
  for (auto _ : state) benchmark::DoNotOptimize(access.MayCall(server, "alice", "write"));
}
BENCHMARK(BM_OperatorAllowed);

void BM_ViewerRefused(benchmark::State& state) {
  McpServer server;
  ListedTools tools;
  server.tools = {&tools};
  ToolAccess access(LabControl());
  for (auto _ : state) benchmark::DoNotOptimize(access.MayCall(server, "vera", "write"));
}
BENCHMARK(BM_ViewerRefused);

}  // namespace

BENCHMARK_MAIN();
