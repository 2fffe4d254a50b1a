// A real labgate-actions child process on 127.0.0.1:0, called with the generated C++ gRPC
// client: ListActions, GetAction, InvokeAction, health, error codes, and a clean SIGTERM.
#include <fcntl.h>
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <sstream>
#include <thread>

#include "actions-service/struct_json.h"
#include "labgate/actions/v1/actions.grpc.pb.h"
#include "nlohmann/json.hpp"

extern char** environ;

namespace labgate::actions {
namespace {

using nlohmann::json;
namespace v1 = labgate::actions::v1;

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream file(path);
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

// Starts labgate-actions with --listen 127.0.0.1:0 and waits for its --port-file.
class ActionsProcess {
 public:
  explicit ActionsProcess(std::vector<std::string> extra_args = {}) {
    dir_ = std::filesystem::path(::testing::TempDir()) /
           ("labgate-actions-" + std::to_string(::getpid()) + "-" + std::to_string(counter_++));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    port_file_ = dir_ / "port";
    stderr_file_ = dir_ / "stderr.log";

    std::vector<std::string> args = {LABGATE_ACTIONS_BINARY, "--listen", "127.0.0.1:0",
                                     "--port-file", port_file_.string()};
    args.insert(args.end(), extra_args.begin(), extra_args.end());
    std::vector<char*> argv;
    for (std::string& arg : args) argv.push_back(arg.data());
    argv.push_back(nullptr);

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, stderr_file_.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    spawned_ = posix_spawn(&pid_, argv[0], &actions, nullptr, argv.data(), environ) == 0;
    posix_spawn_file_actions_destroy(&actions);
  }

  ~ActionsProcess() {
    if (pid_ > 0 && !reaped_) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }

  // The bound port, or 0 if the child exited or did not write it in time.
  int WaitForPort() {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (std::chrono::steady_clock::now() < deadline) {
      if (std::filesystem::exists(port_file_)) {
        int port = std::atoi(ReadFile(port_file_).c_str());
        if (port > 0) return port;
      }
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        reaped_ = true;
        exit_status_ = status;
        return 0;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return 0;
  }

  // Sends `signal_number` and returns the wait status.
  int StopWith(int signal_number) {
    ::kill(pid_, signal_number);
    return Wait();
  }

  int Wait() {
    if (!reaped_) {
      ::waitpid(pid_, &exit_status_, 0);
      reaped_ = true;
    }
    return exit_status_;
  }

  bool spawned() const { return spawned_; }
  std::string Stderr() const { return ReadFile(stderr_file_); }

 private:
  static inline int counter_ = 0;
  std::filesystem::path dir_;
  std::filesystem::path port_file_;
  std::filesystem::path stderr_file_;
  pid_t pid_ = -1;
  bool spawned_ = false;
  bool reaped_ = false;
  int exit_status_ = 0;
};

class GrpcStandaloneTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    process_ = new ActionsProcess();
    ASSERT_TRUE(process_->spawned());
    port_ = process_->WaitForPort();
    ASSERT_GT(port_, 0) << process_->Stderr();
    channel_ = grpc::CreateChannel("127.0.0.1:" + std::to_string(port_),
                                   grpc::InsecureChannelCredentials());
    ASSERT_TRUE(
        channel_->WaitForConnected(std::chrono::system_clock::now() + std::chrono::seconds(10)));
  }
  static void TearDownTestSuite() {
    channel_.reset();
    delete process_;
    process_ = nullptr;
  }

  std::unique_ptr<v1::ActionsService::Stub> Stub() { return v1::ActionsService::NewStub(channel_); }

  static std::unique_ptr<grpc::ClientContext> Context() {
    auto context = std::make_unique<grpc::ClientContext>();
    context->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    return context;
  }

  static inline ActionsProcess* process_ = nullptr;
  static inline int port_ = 0;
  static inline std::shared_ptr<grpc::Channel> channel_;
};

TEST_F(GrpcStandaloneTest, LogsListeningAddressToStderr) {
  EXPECT_NE(
      process_->Stderr().find("labgate-actions listening on 127.0.0.1:" + std::to_string(port_)),
      std::string::npos)
      << process_->Stderr();
}

TEST_F(GrpcStandaloneTest, ListActionsReturnsTenContractsWithSchemas) {
  v1::ListActionsResponse response;
  grpc::Status status = Stub()->ListActions(Context().get(), v1::ListActionsRequest(), &response);
  ASSERT_TRUE(status.ok()) << status.error_message();
  ASSERT_EQ(response.actions_size(), 10);
  for (const v1::ActionContract& contract : response.actions()) {
    SCOPED_TRACE(contract.action());
    EXPECT_FALSE(contract.skill().empty());
    EXPECT_FALSE(contract.title().empty());
    EXPECT_FALSE(contract.category().empty());
    EXPECT_FALSE(contract.description().empty());
    EXPECT_FALSE(contract.boundary_notice().empty());
    EXPECT_TRUE(contract.uncertainty() == "low" || contract.uncertainty() == "medium" ||
                contract.uncertainty() == "high");
    json input_schema = json::parse(contract.input_schema_json());
    json output_schema = json::parse(contract.output_schema_json());
    EXPECT_EQ(input_schema["type"], "object");
    EXPECT_EQ(output_schema["type"], "object");
    EXPECT_EQ(input_schema["additionalProperties"], false);
  }
  EXPECT_EQ(response.actions(0).action(), "age_inclusive_design_check");
  EXPECT_EQ(response.actions(9).action(), "wcagaaa_check");
}

TEST_F(GrpcStandaloneTest, GetAction) {
  v1::GetActionRequest request;
  request.set_action("supportive_reply");
  v1::ActionContract contract;
  grpc::Status status = Stub()->GetAction(Context().get(), request, &contract);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(contract.skill(), "supportive-conversation");
  EXPECT_EQ(contract.boundary_notice(),
            "Non-clinical support; must provide escalation cues when risk is elevated");
  EXPECT_EQ(json::parse(contract.input_schema_json())["required"], (json{"message", "risk_level"}));

  request.set_action("nope");
  status = Stub()->GetAction(Context().get(), request, &contract);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(status.error_message(),
            "Unknown action: 'nope'. Call list_actions to see available actions.");
}

TEST_F(GrpcStandaloneTest, InvokeActionEscalatesCrisisLanguage) {
  v1::InvokeActionRequest request;
  request.set_action("supportive_reply");
  *request.mutable_input() =
      *JsonToStruct({{"message", "I want to end my life"}, {"risk_level", "low"}});
  v1::InvokeActionResponse response;
  grpc::Status status = Stub()->InvokeAction(Context().get(), request, &response);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(response.action(), "supportive_reply");
  EXPECT_EQ(response.uncertainty(), "medium");
  EXPECT_EQ(response.boundary_notice(),
            "Non-clinical support; must provide escalation cues when risk is elevated");
  ASSERT_GE(response.assumptions_size(), 1);
  EXPECT_EQ(response.assumptions(0), "Risk level: low (self-reported or system-assessed)");
  json output = StructToJson(response.output());
  EXPECT_EQ(output["escalation_guidance"].size(), 3u);
  EXPECT_NE(
      output["escalation_guidance"].dump().find("Samaritans 116 123 | US: 988 | findahelpline.com"),
      std::string::npos);
}

TEST_F(GrpcStandaloneTest, InvokeActionKeepsIntegersAndBooleans) {
  v1::InvokeActionRequest request;
  request.set_action("rewrite_depression_sensitive_content");
  *request.mutable_input() = *JsonToStruct({{"text", "Act now, hurry!"}, {"mode", "audit"}});
  v1::InvokeActionResponse response;
  grpc::Status status = Stub()->InvokeAction(Context().get(), request, &response);
  ASSERT_TRUE(status.ok()) << status.error_message();
  json output = StructToJson(response.output());
  EXPECT_EQ(output["pattern_count"], 2);
  EXPECT_EQ(output["review_recommended"], true);
}

TEST_F(GrpcStandaloneTest, InvokeActionErrors) {
  v1::InvokeActionRequest request;
  v1::InvokeActionResponse response;

  request.set_action("supportive_reply");
  *request.mutable_input() = *JsonToStruct({{"message", ""}, {"risk_level", "extreme"}});
  grpc::Status status = Stub()->InvokeAction(Context().get(), request, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(status.error_message(),
            "Input validation failed for action 'supportive_reply': Required field 'message' is "
            "missing or empty; Field 'risk_level' must be one of: low, medium, high (got "
            "'extreme')");

  request.Clear();
  request.set_action("supportive_reply");  // no input at all counts as {}
  status = Stub()->InvokeAction(Context().get(), request, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(status.error_message(),
            "Input validation failed for action 'supportive_reply': Required field 'message' is "
            "missing or empty; Required field 'risk_level' is missing or empty");

  request.set_action("make_coffee");
  status = Stub()->InvokeAction(Context().get(), request, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(status.error_message(),
            "Unknown action: 'make_coffee'. Call list_actions to see available actions.");
}

// grpc.health.v1.Health/Check, encoded by hand: HealthCheckRequest{service = 1} and
// HealthCheckResponse{status = 1}, where SERVING is 1.
int HealthStatus(const std::shared_ptr<grpc::Channel>& channel, const std::string& service) {
  std::string request_bytes;
  if (!service.empty()) {
    request_bytes.push_back(0x0A);
    request_bytes.push_back(static_cast<char>(service.size()));
    request_bytes += service;
  }
  grpc::Slice slice(request_bytes);
  grpc::ByteBuffer request(&slice, 1);
  grpc::ByteBuffer response;
  grpc::GenericStub stub(channel);
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  std::promise<grpc::Status> done;
  stub.UnaryCall(&context, "/grpc.health.v1.Health/Check", grpc::StubOptions(), &request, &response,
                 [&done](grpc::Status status) { done.set_value(status); });
  grpc::Status status = done.get_future().get();
  if (!status.ok()) return -static_cast<int>(status.error_code());
  std::vector<grpc::Slice> slices;
  if (!response.Dump(&slices).ok()) return -100;
  std::string bytes;
  for (const grpc::Slice& part : slices) {
    bytes.append(reinterpret_cast<const char*>(part.begin()), part.size());
  }
  if (bytes.size() == 2 && bytes[0] == 0x08) return bytes[1];
  return bytes.empty() ? 0 : -101;  // proto3 omits status 0 (UNKNOWN)
}

TEST_F(GrpcStandaloneTest, HealthReportsServing) {
  constexpr int kServing = 1;
  EXPECT_EQ(HealthStatus(channel_, ""), kServing);
  EXPECT_EQ(HealthStatus(channel_, "labgate.actions.v1.ActionsService"), kServing);
  EXPECT_EQ(HealthStatus(channel_, "no.such.Service"),
            -static_cast<int>(grpc::StatusCode::NOT_FOUND));
}

TEST(GrpcStandaloneLifecycleTest, SigtermDrainsAndExitsZero) {
  ActionsProcess process;
  ASSERT_TRUE(process.spawned());
  ASSERT_GT(process.WaitForPort(), 0) << process.Stderr();
  int status = process.StopWith(SIGTERM);
  ASSERT_TRUE(WIFEXITED(status)) << process.Stderr();
  EXPECT_EQ(WEXITSTATUS(status), 0) << process.Stderr();
}

TEST(GrpcStandaloneLifecycleTest, SigintExitsZero) {
  ActionsProcess process;
  ASSERT_GT(process.WaitForPort(), 0) << process.Stderr();
  int status = process.StopWith(SIGINT);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

TEST(GrpcStandaloneLifecycleTest, BadContractsDirFailsAtStartup) {
  ActionsProcess process({"--contracts-dir", "/nonexistent/labgate/contracts"});
  ASSERT_TRUE(process.spawned());
  EXPECT_EQ(process.WaitForPort(), 0);
  int status = process.Wait();
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 1);
  EXPECT_NE(process.Stderr().find("labgate-actions cannot start"), std::string::npos)
      << process.Stderr();
}

TEST(GrpcStandaloneLifecycleTest, ContractsDirFromSourceTreeWorks) {
  ActionsProcess process({"--contracts-dir", LABGATE_ACTIONS_CONTRACTS_DIR});
  ASSERT_GT(process.WaitForPort(), 0) << process.Stderr();
  EXPECT_NE(process.Stderr().find(std::string("loaded 10 action contracts from ") +
                                  LABGATE_ACTIONS_CONTRACTS_DIR),
            std::string::npos)
      << process.Stderr();
  int status = process.StopWith(SIGTERM);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

}  // namespace
}  // namespace labgate::actions
