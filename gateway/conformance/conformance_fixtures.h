// The tools, resources and prompts the official MCP conformance suite expects of a
// server (`labgate --conformance-fixtures`). Off by default: nothing here is
// registered unless the flag asks for it, so normal behaviour never changes.
#pragma once

#include <boost/asio/io_context.hpp>
#include <chrono>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "gateway/mcp/mcp_server.h"
#include "gateway/mcp/providers.h"

namespace labgate::gateway {

struct FixtureTimings {
  // When test_dynamic_tool, test://dynamic-resource and test_dynamic_prompt appear.
  std::chrono::milliseconds dynamic_delay{2000};
  // How often test://watched-resource changes.
  std::chrono::milliseconds watch_interval{3000};
  // Pause between the log or progress steps of the logging and progress tools.
  std::chrono::milliseconds step_delay{50};
  // How long sampling and elicitation wait for the client.
  std::chrono::milliseconds client_timeout{60000};
};

class ConformanceFixtures final : public ToolProvider,
                                  public ResourceProvider,
                                  public PromptProvider {
 public:
  // `list_changed` is told when the dynamic fixtures appear (on an io thread), and when a
  // client calls test_trigger_tool_change or test_trigger_prompt_change (on the caller's).
  ConformanceFixtures(boost::asio::io_context& io, FixtureTimings timings,
                      std::function<void(ListKind)> list_changed);
  ~ConformanceFixtures() override;
  ConformanceFixtures(const ConformanceFixtures&) = delete;
  ConformanceFixtures& operator=(const ConformanceFixtures&) = delete;

  // Arms the dynamic-fixture and watched-resource timers on the io_context.
  void Start();

  // True once the dynamic tool, resource and prompt exist.
  bool dynamic_ready() const;
  // How many times test://watched-resource has changed.
  int watched_revision() const;

  // ToolProvider
  std::vector<nlohmann::json> ListTools() const override;
  bool HasTool(const std::string& name) const override;
  void CallTool(const std::string& name, const nlohmann::json& arguments,
                std::shared_ptr<RequestContext> context, ToolDone done) override;

  // ResourceProvider
  void ListResources(JsonListDone done) override;
  std::vector<nlohmann::json> ListResourceTemplates() const override;
  bool HandlesUri(const std::string& uri) const override;
  void ReadResource(const std::string& uri, std::shared_ptr<RequestContext> context,
                    JsonDone done) override;
  std::shared_ptr<void> SubscribeResource(const std::string& uri,
                                          std::function<void()> updated) override;
  void CompleteResourceArgument(const std::string& template_uri, const std::string& argument,
                                const std::string& value, const nlohmann::json& context_arguments,
                                StringsDone done) override;

  // PromptProvider
  std::vector<nlohmann::json> ListPrompts() const override;
  bool HasPrompt(const std::string& name) const override;
  void GetPrompt(const std::string& name, const nlohmann::json& arguments,
                 std::shared_ptr<RequestContext> context, JsonDone done) override;
  void CompletePromptArgument(const std::string& prompt, const std::string& argument,
                              const std::string& value, const nlohmann::json& context_arguments,
                              StringsDone done) override;

  // Shared with the timers, which may outlive a handler running on another thread.
  struct State;

 private:
  friend std::unique_ptr<ConformanceFixtures> CreateConformanceFixtures(McpServer*,
                                                                        boost::asio::io_context&,
                                                                        FixtureTimings);
  boost::asio::io_context& io_;
  FixtureTimings timings_;
  std::shared_ptr<State> state_;
  std::unique_ptr<ToolProvider> task_tools_;  // the tasks scenarios' (fixture_tasks.h)
};

// Creates the fixtures, adds them to `server`'s tools, resources and prompts (call it
// before any connection is served), routes their list changes to
// server->NotifyListChanged and starts their timers on `io`. `server` must outlive them.
std::unique_ptr<ConformanceFixtures> CreateConformanceFixtures(McpServer* server,
                                                               boost::asio::io_context& io,
                                                               FixtureTimings timings = {});

}  // namespace labgate::gateway
