// Prompts that help a person work with labgate:
//   instrument_session(port_name, baud_rate?, device_id?)  a guided instrument session
//   transcript_summary(session_id)                           summarize a transcript
#pragma once

#include "gateway/mcp/providers.h"
#include "gateway/resources/labgate_resources.h"

namespace labgate::gateway {

class LabgatePrompts final : public PromptProvider {
 public:
  // Transcripts are read, and arguments completed, through `resources`.
  explicit LabgatePrompts(LabgateResources* resources) : resources_(resources) {}

  std::vector<nlohmann::json> ListPrompts() const override;
  bool HasPrompt(const std::string& name) const override;
  void GetPrompt(const std::string& name, const nlohmann::json& arguments,
                 std::shared_ptr<RequestContext> context, JsonDone done) override;
  void CompletePromptArgument(const std::string& prompt, const std::string& argument,
                              const std::string& value, const nlohmann::json& context_arguments,
                              StringsDone done) override;

 private:
  LabgateResources* resources_;
};

}  // namespace labgate::gateway
