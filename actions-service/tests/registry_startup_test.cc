// Startup checks: contracts and handlers must match one to one, contract files must be
// well-formed, the embedded contracts equal the files on disk, and a handler whose output
// breaks its schema is caught.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "actions-service/action_registry.h"
#include "actions-service/contract_sources.h"
#include "actions-service/tests/test_registry.h"

namespace labgate::actions {
namespace {

using nlohmann::json;
using testing::Contains;

json MinimalContract(const std::string& action) {
  return {{"skill", "test-skill"},
          {"action", action},
          {"title", "Test"},
          {"category", "test"},
          {"description", "A test action"},
          {"boundary_notice", "Tests only"},
          {"uncertainty", "low"},
          {"input_schema",
           {{"type", "object"},
            {"required", {"text"}},
            {"properties", {{"text", {{"type", "string"}}}}},
            {"additionalProperties", false}}},
          {"output_schema",
           {{"type", "object"},
            {"required", {"echo"}},
            {"properties", {{"echo", {{"type", "string"}}}}},
            {"additionalProperties", false}}}};
}

ContractSource Source(const std::string& name, const json& contract) {
  return {name, contract.dump(2)};
}

HandlerResult Echo(const json& input) {
  return {{{"echo", input["text"]}}, {"Text: " + input["text"].get<std::string>()}};
}

std::string MessageOf(const absl::Status& status) { return std::string(status.message()); }

TEST(RegistryStartupTest, MatchedContractAndHandlerStart) {
  auto registry =
      ActionRegistry::Create({Source("echo.json", MinimalContract("echo"))}, {{"echo", Echo}});
  ASSERT_TRUE(registry.ok()) << registry.status();
  auto result = (*registry)->Invoke("echo", {{"text", "hi"}});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->ToJson(), (json{{"action", "echo"},
                                    {"boundaryNotice", "Tests only"},
                                    {"uncertainty", "low"},
                                    {"assumptions", {"Text: hi"}},
                                    {"output", {{"echo", "hi"}}}}));
}

TEST(RegistryStartupTest, ContractWithoutHandlerIsNamed) {
  auto registry = ActionRegistry::Create({Source("echo.json", MinimalContract("echo")),
                                          Source("orphan.json", MinimalContract("orphan"))},
                                         {{"echo", Echo}});
  ASSERT_FALSE(registry.ok());
  EXPECT_EQ(registry.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(MessageOf(registry.status()),
            "Action registry cannot start: Contract 'orphan' (orphan.json) has no handler");
}

TEST(RegistryStartupTest, HandlerWithoutContractIsNamed) {
  auto registry = ActionRegistry::Create({Source("echo.json", MinimalContract("echo"))},
                                         {{"echo", Echo}, {"stray", Echo}});
  ASSERT_FALSE(registry.ok());
  EXPECT_EQ(MessageOf(registry.status()),
            "Action registry cannot start: Handler 'stray' has no contract");
}

TEST(RegistryStartupTest, BuiltinHandlersWithAMissingContractFail) {
  std::vector<ContractSource> contracts = EmbeddedContracts();
  contracts.erase(
      std::remove_if(contracts.begin(), contracts.end(),
                     [](const ContractSource& s) { return s.name == "supportive_reply.json"; }),
      contracts.end());
  auto registry = ActionRegistry::Create(contracts, BuiltinHandlers());
  ASSERT_FALSE(registry.ok());
  EXPECT_TRUE(Contains(MessageOf(registry.status()), "Handler 'supportive_reply' has no contract"));
}

TEST(RegistryStartupTest, EveryProblemIsListed) {
  auto registry =
      ActionRegistry::Create({Source("a.json", MinimalContract("a"))}, {{"b", Echo}, {"c", Echo}});
  ASSERT_FALSE(registry.ok());
  EXPECT_EQ(MessageOf(registry.status()),
            "Action registry cannot start: Contract 'a' (a.json) has no handler; Handler 'b' has "
            "no contract; Handler 'c' has no contract");
}

TEST(RegistryStartupTest, DuplicateActionIsAnError) {
  auto registry = ActionRegistry::Create(
      {Source("one.json", MinimalContract("echo")), Source("two.json", MinimalContract("echo"))},
      {{"echo", Echo}});
  ASSERT_FALSE(registry.ok());
  EXPECT_TRUE(Contains(MessageOf(registry.status()),
                       "Action 'echo' is defined twice (one.json and two.json)"));
}

TEST(RegistryStartupTest, MalformedContractFilesAreNamed) {
  json missing = MinimalContract("echo");
  missing.erase("boundary_notice");
  json unknown_key = MinimalContract("echo");
  unknown_key["boundary"] = "typo";
  json bad_uncertainty = MinimalContract("echo");
  bad_uncertainty["uncertainty"] = "maybe";

  struct Case {
    ContractSource source;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {{"broken.json", "{not json"}, "Contract file 'broken.json' is invalid: malformed JSON"},
      {Source("missing.json", missing),
       "Contract file 'missing.json' is invalid: Required field 'boundary_notice' is missing or "
       "empty"},
      {Source("unknown.json", unknown_key),
       "Contract file 'unknown.json' is invalid: Unknown field 'boundary' is not allowed"},
      {Source("uncertainty.json", bad_uncertainty),
       "Contract file 'uncertainty.json' is invalid: Field 'uncertainty' must be one of: low, "
       "medium, high (got 'maybe')"},
  };
  for (const Case& c : cases) {
    auto registry = ActionRegistry::Create({c.source}, {{"echo", Echo}});
    ASSERT_FALSE(registry.ok()) << c.source.name;
    EXPECT_TRUE(Contains(MessageOf(registry.status()), c.expected)) << MessageOf(registry.status());
  }
}

TEST(RegistryStartupTest, NonConformingOutputIsInternal) {
  auto registry =
      ActionRegistry::Create({Source("echo.json", MinimalContract("echo"))},
                             {{"echo", [](const json&) {
                                 return HandlerResult{{{"echo", 5}, {"extra", true}}, {}};
                               }}});
  ASSERT_TRUE(registry.ok());
  auto result = (*registry)->Invoke("echo", {{"text", "hi"}});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInternal);
  EXPECT_EQ(MessageOf(result.status()),
            "Action 'echo' produced output that does not match its output schema: Field 'echo' "
            "must be of type string, got number; Unknown field 'extra' is not allowed");
}

TEST(RegistryStartupTest, ThrowingHandlerIsInternal) {
  auto registry =
      ActionRegistry::Create({Source("echo.json", MinimalContract("echo"))},
                             {{"echo", [](const json& input) -> HandlerResult {
                                 return {{{"echo", input.at("missing").get<std::string>()}}, {}};
                               }}});
  ASSERT_TRUE(registry.ok());
  auto result = (*registry)->Invoke("echo", {{"text", "hi"}});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInternal);
}

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream file(path, std::ios::binary);
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

TEST(ContractSourcesTest, EmbeddedContractsEqualTheFilesOnDisk) {
  auto on_disk = ReadContractsDir(LABGATE_ACTIONS_CONTRACTS_DIR);
  ASSERT_TRUE(on_disk.ok()) << on_disk.status();
  const std::vector<ContractSource>& embedded = EmbeddedContracts();
  ASSERT_EQ(embedded.size(), 10u);
  ASSERT_EQ(on_disk->size(), embedded.size());
  for (size_t i = 0; i < embedded.size(); ++i) {
    EXPECT_EQ(embedded[i].name, (*on_disk)[i].name);
    EXPECT_EQ(embedded[i].text, (*on_disk)[i].text) << embedded[i].name;
    EXPECT_EQ(embedded[i].text,
              ReadFile(std::filesystem::path(LABGATE_ACTIONS_CONTRACTS_DIR) / embedded[i].name));
  }
}

TEST(ContractSourcesTest, ContractsDirOverridesEmbedded) {
  std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) /
                              ("actions-contracts-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  for (const ContractSource& source : EmbeddedContracts()) {
    json contract = json::parse(source.text);
    if (contract["action"] == "supportive_reply") contract["title"] = "Overridden title";
    std::ofstream(dir / source.name) << contract.dump(2);
  }
  std::ofstream(dir / "notes.txt") << "ignored: not a .json file";
  auto registry = ActionRegistry::CreateBuiltin(dir.string());
  ASSERT_TRUE(registry.ok()) << registry.status();
  EXPECT_EQ((*(*registry)->Get("supportive_reply"))->title, "Overridden title");

  std::filesystem::remove(dir / "wcagaaa_check.json");
  registry = ActionRegistry::CreateBuiltin(dir.string());
  ASSERT_FALSE(registry.ok());
  EXPECT_TRUE(Contains(MessageOf(registry.status()), "Handler 'wcagaaa_check' has no contract"));
  std::filesystem::remove_all(dir);
}

TEST(ContractSourcesTest, MissingDirIsNotFound) {
  auto registry = ActionRegistry::CreateBuiltin("/nonexistent/labgate/contracts");
  ASSERT_FALSE(registry.ok());
  EXPECT_EQ(registry.status().code(), absl::StatusCode::kNotFound);
}

TEST(ContractSourcesTest, SchemaTextKeepsFileOrder) {
  const ActionContract& contract = **testing::BuiltinRegistry().Get("supportive_reply");
  EXPECT_EQ(contract.input_schema_json.rfind(
                R"({"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object",)", 0),
            0u)
      << contract.input_schema_json;
  EXPECT_EQ(json::parse(contract.input_schema_json), contract.input_schema);
  EXPECT_EQ(json::parse(contract.output_schema_json), contract.output_schema);
}

}  // namespace
}  // namespace labgate::actions
