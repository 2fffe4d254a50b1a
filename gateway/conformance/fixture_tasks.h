// The tools the conformance suite's tasks-* scenarios call (the io.modelcontextprotocol/tasks
// extension): greet (never a task), slow_compute (a task when the client declares the
// extension), failing_job and test_tool_with_task (only as tasks), protocol_error_job,
// confirm_delete and multi_input (tasks that ask the person). A separate provider, added by
// CreateConformanceFixtures after the others so that the first tool listed stays the same.
#pragma once

#include <boost/asio/io_context.hpp>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "gateway/mcp/providers.h"

namespace labgate::gateway {

class TaskFixtures final : public ToolProvider {
 public:
  explicit TaskFixtures(boost::asio::io_context& io) : io_(io) {}

  std::vector<nlohmann::json> ListTools() const override;
  bool HasTool(const std::string& name) const override;
  TaskSupport TaskSupportOf(const std::string& name) const override;
  bool RunsLong(const std::string& name, const nlohmann::json& arguments) const override;
  void BeforeTask(const std::string& name, const nlohmann::json& arguments,
                  const std::shared_ptr<RequestContext>& context, const JsonDone& done) override;
  void CallTool(const std::string& name, const nlohmann::json& arguments,
                std::shared_ptr<RequestContext> context, ToolDone done) override;

 private:
  // Answers `done` with `result` after `delay`, or CANCELLED at once if the call is cancelled.
  void After(std::chrono::milliseconds delay, const std::shared_ptr<RequestContext>& context,
             const nlohmann::json& result, ToolDone done);
  boost::asio::io_context& io_;
};

}  // namespace labgate::gateway
