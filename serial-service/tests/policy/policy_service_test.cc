// The policy enforced by the serial service for direct gRPC callers, on loop:// ports:
// in-process, and in a real labgate-serial child process reloading on SIGHUP.
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <map>
#include <thread>
#include <vector>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/confirmation_secret.h"
#include "common/service_host.h"
#include "serial-service/serial_metrics.h"
#include "serial-service/serial_service.h"
#include "serial-service/tests/serial_test_client.h"

#ifndef LABGATE_SERIAL_BINARY
#error "LABGATE_SERIAL_BINARY must name the labgate-serial binary"
#endif

extern char** environ;

namespace labgate::serial {
namespace {

using testing::SerialClient;

constexpr char kPolicy[] = R"json({
  "confirm_exempt": ["robot"],
  "ports": [
    {"match": "loop://locked", "allow": false},
    {"match": "loop://meter", "read_only": true},
    {"match": "loop://psu*", "max_baud": 115200, "max_writes_per_s": 3, "signals": "deny",
     "deny": [{"name": "no-reset", "pattern": "^\\*RST"}],
     "confirm": [{"name": "output-on", "pattern": "^OUTP ON"}],
     "sequences": {"reset": {"steps": [{"signal": "dtr", "level": false, "ms": 10}],
                             "signals": "allow"}}},
    {"match": "loop://board*", "signals": "confirm",
     "sequences": {
       "reset": {"steps": [{"signal": "dtr", "level": false, "ms": 20}, {"delay_ms": 5}],
                 "signals": "allow"},
       "bootloader": {"steps": [{"signal": "rts", "level": false},
                                {"signal": "dtr", "level": false, "ms": 20},
                                {"signal": "rts", "level": true}]},
       "hello": {"steps": [{"send": "HELLO"}, {"expect": ["HEL+O"], "timeout_ms": 500}]}}}
  ]
})json";

constexpr char kRelaxed[] = R"json({"ports": [{"match": "loop://*"}]})json";

std::string TempFile(const std::string& name) {
  return absl::StrCat(::testing::TempDir(), "labgate-policy-", getpid(), "-", name);
}

void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::trunc);
  out << text;
}

grpc::Status WriteWith(SerialClient& client, const std::string& port, const std::string& data,
                       const std::string& confirmation,
                       std::multimap<std::string, std::string>* trailers = nullptr) {
  auto context = client.Context();
  if (!confirmation.empty()) context->AddMetadata("labgate-confirmation", confirmation);
  v1::WriteRequest request;
  request.set_port_name(port);
  request.set_data(data);
  v1::WriteResponse response;
  grpc::Status status = client.stub()->Write(context.get(), request, &response);
  if (trailers != nullptr) {
    for (const auto& [key, value] : context->GetServerTrailingMetadata()) {
      trailers->emplace(std::string(key.data(), key.size()),
                        std::string(value.data(), value.size()));
    }
  }
  return status;
}

class PolicyServiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    policy_file_ = TempFile("policy.json");
    WriteFile(policy_file_, kPolicy);
    SerialServiceOptions options;
    options.policy_file = policy_file_;
    auto service = CreateSerialService(options);
    ASSERT_TRUE(service.ok()) << service.status();
    service_ = std::move(*service);
    auto host = ServiceHost::Start("", {service_.get()});
    ASSERT_TRUE(host.ok());
    host_ = std::move(*host);
    alice_ = std::make_unique<SerialClient>(host_->InProcessChannel(), "alice");
    robot_ = std::make_unique<SerialClient>(host_->InProcessChannel(), "robot");
  }
  void TearDown() override {
    service_->Shutdown();
    host_->Shutdown(std::chrono::seconds(2));
    unlink(policy_file_.c_str());
  }
  // What the loopback has received and not yet read.
  std::string Pending(SerialClient& client, const std::string& port) {
    v1::ReadResponse read;
    EXPECT_TRUE(client.Read(port, 0, &read).ok());
    return read.data();
  }

  std::string policy_file_;
  std::unique_ptr<SerialGrpcService> service_;
  std::unique_ptr<ServiceHost> host_;
  std::unique_ptr<SerialClient> alice_, robot_;
};

TEST_F(PolicyServiceTest, StatusReportsTheRuleThatAppliesToEachPort) {
  v1::GetStatusResponse psu;
  ASSERT_TRUE(alice_->Status("loop://psu2", &psu).ok());
  ASSERT_TRUE(psu.has_policy());
  EXPECT_EQ(psu.policy().source(), policy_file_);
  EXPECT_EQ(psu.policy().match(), "loop://psu*");
  EXPECT_TRUE(psu.policy().allowed());
  EXPECT_FALSE(psu.policy().read_only());
  EXPECT_EQ(psu.policy().max_baud(), 115200);
  EXPECT_EQ(psu.policy().max_writes_per_s(), 3);
  ASSERT_EQ(psu.policy().deny_rules_size(), 1);
  EXPECT_EQ(psu.policy().deny_rules(0), "no-reset");
  ASSERT_EQ(psu.policy().confirm_rules_size(), 1);
  EXPECT_EQ(psu.policy().confirm_rules(0), "output-on");
  EXPECT_FALSE(psu.policy().signals_allowed()) << "\"signals\": \"deny\"";

  v1::GetStatusResponse meter;
  ASSERT_TRUE(alice_->Status("loop://meter", &meter).ok());
  EXPECT_TRUE(meter.policy().read_only());
  EXPECT_FALSE(meter.policy().has_max_baud());
  EXPECT_FALSE(meter.policy().signals_allowed()) << "a read-only port's lines are not driven";

  v1::GetStatusResponse locked;
  ASSERT_TRUE(alice_->Status("loop://locked", &locked).ok());
  EXPECT_EQ(locked.policy().match(), "loop://locked");
  EXPECT_FALSE(locked.policy().allowed());

  v1::GetStatusResponse unmatched;
  ASSERT_TRUE(alice_->Status("/dev/ttyS9", &unmatched).ok());
  EXPECT_EQ(unmatched.policy().match(), "") << "no rule matches";
  EXPECT_FALSE(unmatched.policy().allowed());
}

uint64_t Confirmations(const char* outcome) {
  return SerialMetrics::Get().policy_confirmations.With({outcome}).value();
}
uint64_t Refusals(const char* action) {
  return SerialMetrics::Get().policy_refusals.With({action}).value();
}

TEST_F(PolicyServiceTest, ADirectWriteMatchingAConfirmRuleIsRefusedAndCannotConfirmItself) {
  const uint64_t requested = Confirmations("requested");
  const uint64_t approved_before = Confirmations("approved");
  const uint64_t declined_before = Confirmations("declined");
  ASSERT_TRUE(alice_->Open("loop://psu", 9600).ok());
  std::multimap<std::string, std::string> trailers;
  grpc::Status refused = WriteWith(*alice_, "loop://psu", "OUTP ON", "", &trailers);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_TRUE(absl::StrContains(refused.error_message(), "confirmation required"));
  EXPECT_TRUE(absl::StrContains(refused.error_message(), "'output-on'"));
  ASSERT_EQ(trailers.count("labgate-confirm-rule"), 1u);
  EXPECT_EQ(trailers.find("labgate-confirm-rule")->second, "output-on");
  ASSERT_EQ(trailers.count("labgate-confirm-id"), 1u);
  const std::string id = trailers.find("labgate-confirm-id")->second;
  EXPECT_EQ(Pending(*alice_, "loop://psu"), "") << "nothing was written";

  // A direct caller does not know the secret, so its own "approval" is no approval.
  grpc::Status forged = WriteWith(*alice_, "loop://psu", "OUTP ON", id + ":accept:guess");
  EXPECT_EQ(forged.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_EQ(Pending(*alice_, "loop://psu"), "");

  // The gateway, after a person approved, presents the id with the secret.
  trailers.clear();
  ASSERT_FALSE(WriteWith(*alice_, "loop://psu", "OUTP ON", "", &trailers).ok());
  const std::string fresh = trailers.find("labgate-confirm-id")->second;
  grpc::Status approved =
      WriteWith(*alice_, "loop://psu", "OUTP ON", fresh + ":accept:" + ConfirmationSecret());
  EXPECT_TRUE(approved.ok()) << approved.error_message();
  EXPECT_EQ(Pending(*alice_, "loop://psu"), "OUTP ON");
  // A decline is refused, with nothing written.
  trailers.clear();
  ASSERT_FALSE(WriteWith(*alice_, "loop://psu", "OUTP ON", "", &trailers).ok());
  const std::string declined_id = trailers.find("labgate-confirm-id")->second;
  grpc::Status declined =
      WriteWith(*alice_, "loop://psu", "OUTP ON", declined_id + ":decline:" + ConfirmationSecret());
  EXPECT_EQ(declined.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_TRUE(absl::StrContains(declined.error_message(), "not approved (decline)"));
  EXPECT_EQ(Pending(*alice_, "loop://psu"), "");
  // A declined request cannot be approved afterwards.
  grpc::Status late =
      WriteWith(*alice_, "loop://psu", "OUTP ON", declined_id + ":accept:" + ConfirmationSecret());
  EXPECT_EQ(late.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_EQ(Pending(*alice_, "loop://psu"), "");
  // Every hold is counted, and each person's answer once.
  EXPECT_GE(Confirmations("requested"), requested + 4);
  EXPECT_EQ(Confirmations("approved"), approved_before + 1);
  EXPECT_EQ(Confirmations("declined"), declined_before + 1);
}

// A send_expect script of sends, each step one send.
grpc::Status ScriptWith(SerialClient& client, const std::string& port,
                        const std::vector<std::string>& sends, const std::string& confirmation,
                        std::multimap<std::string, std::string>* trailers = nullptr) {
  auto context = client.Context();
  if (!confirmation.empty()) context->AddMetadata("labgate-confirmation", confirmation);
  v1::SendExpectRequest request;
  request.set_port_name(port);
  for (const std::string& send : sends) request.add_steps()->set_send(send);
  v1::SendExpectResponse response;
  grpc::Status status = client.stub()->SendExpect(context.get(), request, &response);
  if (trailers != nullptr) {
    for (const auto& [key, value] : context->GetServerTrailingMetadata()) {
      trailers->emplace(std::string(key.data(), key.size()),
                        std::string(value.data(), value.size()));
    }
  }
  return status;
}

// The policy sees a send_expect script whole before anything is sent.
TEST_F(PolicyServiceTest, AScriptIsCheckedWholeBeforeItSendsAnything) {
  const std::string port = "loop://psu-script";
  ASSERT_TRUE(alice_->Open(port, 9600).ok());
  // A deny rule on its second send refuses the whole script: the first is not sent either.
  grpc::Status denied = ScriptWith(*alice_, port, {"*IDN?", "*RST"}, "");
  EXPECT_EQ(denied.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_TRUE(absl::StrContains(denied.error_message(), "'no-reset'")) << denied.error_message();
  EXPECT_EQ(Pending(*alice_, port), "");

  // A send that needs a person's approval is asked about before the first step runs.
  std::multimap<std::string, std::string> trailers;
  grpc::Status held = ScriptWith(*alice_, port, {"VOLT 5", "OUTP ON"}, "", &trailers);
  EXPECT_EQ(held.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  ASSERT_EQ(trailers.count("labgate-confirm-id"), 1u) << held.error_message();
  EXPECT_EQ(trailers.find("labgate-confirm-rule")->second, "output-on");
  EXPECT_EQ(Pending(*alice_, port), "") << "nothing ran";
  // Approved, the whole script runs once, in order.
  const std::string id = trailers.find("labgate-confirm-id")->second;
  grpc::Status approved =
      ScriptWith(*alice_, port, {"VOLT 5", "OUTP ON"}, id + ":accept:" + ConfirmationSecret());
  EXPECT_TRUE(approved.ok()) << approved.error_message();
  EXPECT_EQ(Pending(*alice_, port), "VOLT 5OUTP ON");

  // Two sends that each need approval would ask forever: refused, naming them.
  grpc::Status twice = ScriptWith(*alice_, port, {"OUTP ON", "VOLT 1", "OUTP ON"}, "");
  EXPECT_EQ(twice.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_TRUE(absl::StrContains(twice.error_message(), "steps 0 and 2")) << twice.error_message();
  EXPECT_EQ(Pending(*alice_, port), "");

  // Line changes obey "signals": "deny" here, before anything is sent.
  v1::SendExpectRequest lines;
  lines.set_port_name(port);
  lines.add_steps()->set_send("VOLT 2");
  v1::ScriptStep* pulse = lines.add_steps();
  pulse->set_signal(v1::CONTROL_LINE_DTR);
  pulse->set_level(false);
  pulse->set_ms(10);
  v1::SendExpectResponse response;
  grpc::Status refused = alice_->stub()->SendExpect(alice_->Context().get(), lines, &response);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::PERMISSION_DENIED) << refused.error_message();
  EXPECT_EQ(Pending(*alice_, port), "");
}

// A call carrying `confirmation` (the labgate-confirmation metadata); the trailers it got back.
template <typename Call>
grpc::Status CallWith(SerialClient& client, const std::string& confirmation,
                      std::multimap<std::string, std::string>* trailers, const Call& call) {
  auto context = client.Context();
  if (!confirmation.empty()) context->AddMetadata("labgate-confirmation", confirmation);
  grpc::Status status = call(context.get());
  if (trailers != nullptr) {
    trailers->clear();
    for (const auto& [key, value] : context->GetServerTrailingMetadata()) {
      trailers->emplace(std::string(key.data(), key.size()),
                        std::string(value.data(), value.size()));
    }
  }
  return status;
}

grpc::Status PulseWith(SerialClient& client, const std::string& port,
                       const std::string& confirmation,
                       std::multimap<std::string, std::string>* trailers = nullptr) {
  v1::PulseSignalRequest request;
  request.set_port_name(port);
  request.set_signal(v1::CONTROL_LINE_DTR);
  request.set_level(false);
  request.set_ms(50);
  v1::SignalsResponse response;
  return CallWith(client, confirmation, trailers, [&](grpc::ClientContext* context) {
    return client.stub()->PulseSignal(context, request, &response);
  });
}

grpc::Status SequenceWith(SerialClient& client, const std::string& port, const std::string& name,
                          const std::string& confirmation,
                          std::multimap<std::string, std::string>* trailers = nullptr,
                          v1::SendExpectResponse* response = nullptr) {
  v1::RunSequenceRequest request;
  request.set_port_name(port);
  request.set_name(name);
  v1::SendExpectResponse ignored;
  return CallWith(client, confirmation, trailers, [&](grpc::ClientContext* context) {
    return client.stub()->RunSequence(context, request, response ? response : &ignored);
  });
}

TEST_F(PolicyServiceTest, LinesUnderAConfirmRuleWaitForAPersonAndTheAnswerCounts) {
  const std::string port = "loop://board1";
  ASSERT_TRUE(alice_->Open(port, 9600).ok());
  const uint64_t approved_before = Confirmations("approved");
  const uint64_t declined_before = Confirmations("declined");
  std::multimap<std::string, std::string> trailers;
  grpc::Status held = PulseWith(*alice_, port, "", &trailers);
  ASSERT_EQ(held.error_code(), grpc::StatusCode::FAILED_PRECONDITION) << held.error_message();
  EXPECT_TRUE(absl::StrContains(held.error_message(), "\"signals\": \"confirm\""))
      << held.error_message();
  EXPECT_EQ(trailers.find("labgate-confirm-rule")->second, "signals");
  EXPECT_EQ(trailers.find("labgate-confirm-what")->second, "DTR low for 50 ms");
  ASSERT_EQ(trailers.count("labgate-confirm-id"), 1u);
  const std::string id = trailers.find("labgate-confirm-id")->second;
  EXPECT_TRUE(PulseWith(*alice_, port, id + ":accept:" + ConfirmationSecret()).ok());
  EXPECT_EQ(Confirmations("approved"), approved_before + 1);

  // Declined: refused, and the id is spent.
  ASSERT_EQ(PulseWith(*alice_, port, "", &trailers).error_code(),
            grpc::StatusCode::FAILED_PRECONDITION);
  const std::string declined = trailers.find("labgate-confirm-id")->second;
  grpc::Status no = PulseWith(*alice_, port, declined + ":decline:" + ConfirmationSecret());
  EXPECT_EQ(no.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_TRUE(absl::StrContains(no.error_message(), "not approved (decline)"))
      << no.error_message();
  EXPECT_EQ(Confirmations("declined"), declined_before + 1);
  grpc::Status reused = PulseWith(*alice_, port, declined + ":accept:" + ConfirmationSecret());
  EXPECT_EQ(reused.error_code(), grpc::StatusCode::FAILED_PRECONDITION) << "a spent id";
  // An approval is for the change the person saw, not another.
  ASSERT_EQ(PulseWith(*alice_, port, "", &trailers).error_code(),
            grpc::StatusCode::FAILED_PRECONDITION);
  const std::string for_pulse = trailers.find("labgate-confirm-id")->second;
  v1::SendBreakRequest brk;
  brk.set_port_name(port);
  brk.set_ms(50);
  v1::SignalsResponse lines;
  grpc::Status other = CallWith(*alice_, for_pulse + ":accept:" + ConfirmationSecret(), nullptr,
                                [&](grpc::ClientContext* context) {
                                  return alice_->stub()->SendBreak(context, brk, &lines);
                                });
  EXPECT_EQ(other.error_code(), grpc::StatusCode::FAILED_PRECONDITION) << other.error_message();

  // confirm_exempt owners drive the lines directly.
  ASSERT_TRUE(robot_->Open("loop://board-robot", 9600).ok());
  EXPECT_TRUE(PulseWith(*robot_, "loop://board-robot", "").ok());
}

TEST_F(PolicyServiceTest, NamedSequencesRunByNameUnderTheirOwnRules) {
  const std::string port = "loop://board2";
  ASSERT_TRUE(alice_->Open(port, 9600).ok());
  v1::GetStatusResponse status;
  ASSERT_TRUE(alice_->Status(port, &status).ok());
  EXPECT_EQ(status.policy().signals(), "confirm");
  ASSERT_EQ(status.policy().sequences_size(), 3);
  std::map<std::string, std::pair<std::string, std::string>> shown;
  for (const v1::PolicySequence& sequence : status.policy().sequences()) {
    shown[sequence.name()] = {sequence.signals(), sequence.steps()};
  }
  EXPECT_EQ(shown["reset"],
            std::make_pair(std::string("allow"), std::string("DTR low for 20 ms; wait 5 ms")));
  EXPECT_EQ(
      shown["bootloader"],
      std::make_pair(std::string("confirm"), std::string("RTS low; DTR low for 20 ms; RTS high")));
  EXPECT_EQ(shown["hello"].first, "allow") << "sends only: no lines to rule on";

  // "reset" carries its own allow: it runs though the port's lines need a person.
  v1::SendExpectResponse ran;
  grpc::Status reset = SequenceWith(*alice_, port, "reset", "", nullptr, &ran);
  ASSERT_TRUE(reset.ok()) << reset.error_message();
  EXPECT_TRUE(ran.completed());
  ASSERT_EQ(ran.steps_size(), 2);
  EXPECT_EQ(ran.steps(0).kind(), "signal");
  EXPECT_EQ(ran.steps(1).kind(), "delay");

  // "bootloader" follows the port's confirm: the person is shown its steps.
  std::multimap<std::string, std::string> trailers;
  grpc::Status held = SequenceWith(*alice_, port, "bootloader", "", &trailers);
  ASSERT_EQ(held.error_code(), grpc::StatusCode::FAILED_PRECONDITION) << held.error_message();
  EXPECT_EQ(trailers.find("labgate-confirm-rule")->second, "sequence bootloader");
  EXPECT_EQ(trailers.find("labgate-confirm-what")->second,
            "sequence 'bootloader' (RTS low; DTR low for 20 ms; RTS high)");
  const std::string id = trailers.find("labgate-confirm-id")->second;
  grpc::Status approved = SequenceWith(*alice_, port, "bootloader",
                                       id + ":accept:" + ConfirmationSecret(), nullptr, &ran);
  ASSERT_TRUE(approved.ok()) << approved.error_message();
  EXPECT_EQ(ran.steps_size(), 3);

  // Sends and expects run as send_expect runs them (the loopback answers with what it got).
  grpc::Status hello = SequenceWith(*alice_, port, "hello", "", nullptr, &ran);
  ASSERT_TRUE(hello.ok()) << hello.error_message();
  EXPECT_TRUE(ran.completed());
  EXPECT_TRUE(ran.steps(1).matched());
  EXPECT_EQ(ran.steps(1).match(), "HELLO");

  grpc::Status unknown = SequenceWith(*alice_, port, "flash", "");
  EXPECT_EQ(unknown.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_TRUE(absl::StrContains(unknown.error_message(), "it has: bootloader, hello, reset"))
      << unknown.error_message();

  // A port whose lines are denied still runs the reset sequence the operator allowed.
  ASSERT_TRUE(alice_->Open("loop://psu-seq", 9600).ok());
  EXPECT_EQ(PulseWith(*alice_, "loop://psu-seq", "").error_code(),
            grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_TRUE(SequenceWith(*alice_, "loop://psu-seq", "reset", "").ok());
  EXPECT_EQ(SequenceWith(*alice_, "loop://psu-seq", "hello", "").error_code(),
            grpc::StatusCode::NOT_FOUND)
      << "sequences are per port rule";
}

// Sequences given at open: run by name like the policy's, under the port's rule (a caller
// cannot give its own sequence a rule); the operator's sequence of the same name wins.
TEST_F(PolicyServiceTest, APortsOwnSequencesRunUnderThePortsRule) {
  const std::string port = "loop://board3";
  v1::OpenPortRequest open;
  open.set_port_name(port);
  open.set_baud_rate(9600);
  v1::NamedSequence* ping = open.add_sequences();
  ping->set_name("ping");
  ping->add_steps()->set_send("PING");
  v1::ScriptStep* expect = ping->add_steps();
  expect->add_expect("PING");
  expect->set_timeout_ms(500);
  v1::NamedSequence* blink = open.add_sequences();
  blink->set_name("blink");
  v1::ScriptStep* pulse = blink->add_steps();
  pulse->set_signal(v1::CONTROL_LINE_RTS);
  pulse->set_level(false);
  pulse->set_ms(10);
  v1::NamedSequence* reset = open.add_sequences();
  reset->set_name("reset");
  reset->add_steps()->set_delay_ms(1);
  v1::OpenPortResponse opened;
  ASSERT_TRUE(alice_->Open(open, &opened).ok());
  ASSERT_EQ(opened.settings().sequences_size(), 3) << "the port's settings show them";
  EXPECT_EQ(opened.settings().sequences(1).steps(0).signal(), v1::CONTROL_LINE_RTS);

  v1::SendExpectResponse ran;
  ASSERT_TRUE(SequenceWith(*alice_, port, "ping", "", nullptr, &ran).ok());
  EXPECT_TRUE(ran.completed());
  EXPECT_TRUE(ran.steps(1).matched());

  // Its line changes follow the port's "signals": "confirm".
  std::multimap<std::string, std::string> trailers;
  grpc::Status held = SequenceWith(*alice_, port, "blink", "", &trailers);
  ASSERT_EQ(held.error_code(), grpc::StatusCode::FAILED_PRECONDITION) << held.error_message();
  EXPECT_EQ(trailers.find("labgate-confirm-what")->second, "sequence 'blink' (RTS low for 10 ms)");

  // "reset" is the policy's too: the operator's runs (a pulse and a delay, not one delay).
  ASSERT_TRUE(SequenceWith(*alice_, port, "reset", "", nullptr, &ran).ok());
  ASSERT_EQ(ran.steps_size(), 2);
  EXPECT_EQ(ran.steps(0).kind(), "signal");

  grpc::Status unknown = SequenceWith(*alice_, port, "flash", "");
  EXPECT_EQ(unknown.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_TRUE(
      absl::StrContains(unknown.error_message(), "the port was opened with: ping, blink, reset"))
      << unknown.error_message();

  // Checked at open, by name and step.
  v1::OpenPortRequest bad;
  bad.set_port_name("loop://board4");
  bad.set_baud_rate(9600);
  v1::NamedSequence* twice = bad.add_sequences();
  twice->set_name("x");
  twice->add_steps()->set_delay_ms(1);
  *bad.add_sequences() = *twice;
  grpc::Status duplicate = alice_->Open(bad);
  EXPECT_EQ(duplicate.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_TRUE(
      absl::StrContains(duplicate.error_message(), "sequences[1]: the name 'x' is given twice"))
      << duplicate.error_message();
  bad.mutable_sequences(1)->set_name("y");
  bad.mutable_sequences(1)->mutable_steps(0)->set_send("also");
  grpc::Status two_kinds = alice_->Open(bad);
  EXPECT_EQ(two_kinds.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_TRUE(
      absl::StrContains(two_kinds.error_message(), "sequences[1].steps[0] must be exactly one"))
      << two_kinds.error_message();
  bad.clear_sequences();
  for (int i = 0; i < 17; ++i) {
    v1::NamedSequence* many = bad.add_sequences();
    many->set_name(absl::StrCat("s", i));
    many->add_steps()->set_delay_ms(1);
  }
  grpc::Status too_many = alice_->Open(bad);
  EXPECT_EQ(too_many.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_TRUE(
      absl::StrContains(too_many.error_message(), "sequences holds 17; a port takes at most 16"))
      << too_many.error_message();
  bad.mutable_sequences()->DeleteSubrange(1, 16);
  bad.mutable_sequences(0)->clear_steps();
  grpc::Status no_steps = alice_->Open(bad);
  EXPECT_EQ(no_steps.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_TRUE(absl::StrContains(no_steps.error_message(), "takes 1 to 32 steps, not 0"))
      << no_steps.error_message();
  // run_sequence without a name says so; the port keeps serving.
  grpc::Status nameless = SequenceWith(*alice_, port, "", "");
  EXPECT_EQ(nameless.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_TRUE(absl::StrContains(nameless.error_message(), "name is required"))
      << nameless.error_message();
  EXPECT_TRUE(SequenceWith(*alice_, port, "ping", "").ok());
}

TEST_F(PolicyServiceTest, AConfirmExemptOwnerWritesDirectly) {
  ASSERT_TRUE(robot_->Open("loop://psu-robot", 9600).ok());
  EXPECT_TRUE(WriteWith(*robot_, "loop://psu-robot", "OUTP ON", "").ok());
  EXPECT_EQ(Pending(*robot_, "loop://psu-robot"), "OUTP ON");
  grpc::Status denied = WriteWith(*robot_, "loop://psu-robot", "*RST", "");
  EXPECT_EQ(denied.error_code(), grpc::StatusCode::PERMISSION_DENIED) << "deny binds everyone";
}

TEST_F(PolicyServiceTest, DenyReadOnlyRateLimitAllowAndBaud) {
  const uint64_t opens = Refusals("open");
  const uint64_t reconfigures = Refusals("reconfigure");
  const uint64_t writes = Refusals("write");
  grpc::Status locked = alice_->Open("loop://locked", 9600);
  EXPECT_EQ(locked.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_TRUE(absl::StrContains(locked.error_message(), "not allowed")) << locked.error_message();
  EXPECT_EQ(alice_->Open("loop://unlisted", 9600).error_code(),
            grpc::StatusCode::PERMISSION_DENIED);
  grpc::Status fast = alice_->Open("loop://psu", 230400);
  EXPECT_EQ(fast.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_TRUE(absl::StrContains(fast.error_message(), "max_baud")) << fast.error_message();

  ASSERT_TRUE(alice_->Open("loop://meter", 9600).ok());
  grpc::Status read_only = WriteWith(*alice_, "loop://meter", "*IDN?", "");
  EXPECT_EQ(read_only.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  v1::QueryResponse reply;
  EXPECT_EQ(alice_->Query("loop://meter", "*IDN?", 10, &reply).error_code(),
            grpc::StatusCode::PERMISSION_DENIED)
      << "query writes, so read_only refuses it too";

  ASSERT_TRUE(alice_->Open("loop://psu", 9600).ok());
  grpc::Status reset = WriteWith(*alice_, "loop://psu", "*RST", "");
  EXPECT_EQ(reset.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_TRUE(absl::StrContains(reset.error_message(), "'no-reset'")) << reset.error_message();
  v1::ReconfigurePortRequest faster;
  faster.set_port_name("loop://psu");
  faster.set_baud_rate(921600);
  v1::ReconfigurePortResponse ignored;
  EXPECT_EQ(alice_->stub()->ReconfigurePort(alice_->Context().get(), faster, &ignored).error_code(),
            grpc::StatusCode::PERMISSION_DENIED);

  // 3 writes per second: the 4th within the second is refused (and the limit is far
  // below what the loop does, so this does not depend on timing).
  int accepted = 0;
  grpc::Status limited;
  for (int i = 0; i < 4; ++i) {
    limited = WriteWith(*alice_, "loop://psu", absl::StrCat("VOLT ", i), "");
    if (limited.ok()) ++accepted;
  }
  EXPECT_LE(accepted, 3);
  EXPECT_EQ(limited.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_TRUE(absl::StrContains(limited.error_message(), "writes per second"));
  // labgate_serial_policy_refusals_total counts each refusal by what was refused.
  EXPECT_EQ(Refusals("open"), opens + 3);
  EXPECT_EQ(Refusals("reconfigure"), reconfigures + 1);
  EXPECT_GE(Refusals("write"), writes + 4);  // read_only write and query, *RST, the rate
}

TEST_F(PolicyServiceTest, ReloadTakesTheNewFileAndKeepsTheOldOnABadOne) {
  ASSERT_TRUE(alice_->Open("loop://psu", 9600).ok());
  EXPECT_FALSE(WriteWith(*alice_, "loop://psu", "OUTP ON", "").ok());
  WriteFile(policy_file_, "{\"ports\": [{\"match\": \"loop://*\", \"colour\": 1}]}");
  absl::Status bad = service_->ReloadPolicy();
  EXPECT_EQ(bad.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(bad.message(), "colour")) << bad;
  EXPECT_FALSE(WriteWith(*alice_, "loop://psu", "OUTP ON", "").ok()) << "old policy in force";
  WriteFile(policy_file_, kRelaxed);
  ASSERT_TRUE(service_->ReloadPolicy().ok());
  EXPECT_TRUE(WriteWith(*alice_, "loop://psu", "OUTP ON", "").ok());
}

TEST(PolicyStartupTest, ABadPolicyFileStopsTheServiceFromStarting) {
  const std::string path = TempFile("bad.json");
  WriteFile(path, "{\"ports\": [{\"match\": \"*\", \"allow\": \"yes\"}]}");
  SerialServiceOptions options;
  options.policy_file = path;
  auto service = CreateSerialService(options);
  ASSERT_FALSE(service.ok());
  EXPECT_TRUE(absl::StrContains(service.status().message(), "allow")) << service.status();
  options.policy_file = TempFile("missing.json");
  EXPECT_EQ(CreateSerialService(options).status().code(), absl::StatusCode::kNotFound);
  unlink(path.c_str());
}

// The real binary: SIGHUP reloads the policy file.
TEST(PolicyChildProcessTest, SighupReloadsThePolicy) {
  const std::string policy = TempFile("hup.json");
  const std::string port_file = TempFile("hup.port");
  WriteFile(policy, kPolicy);
  unlink(port_file.c_str());
  std::vector<std::string> args = {LABGATE_SERIAL_BINARY,
                                   "--listen",
                                   "127.0.0.1:0",
                                   "--port-file",
                                   port_file,
                                   "--policy",
                                   policy,
                                   "--log-level",
                                   "warning"};
  std::vector<char*> argv;
  argv.reserve(args.size() + 1);
  for (std::string& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  ASSERT_EQ(posix_spawn(&pid, argv[0], nullptr, nullptr, argv.data(), environ), 0);
  // A failed assertion must not leave the child holding ctest's output pipe.
  absl::Cleanup stop_child = [&pid] {
    if (pid <= 0) return;
    kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
  };
  int port = 0;
  for (int i = 0; i < 750 && port == 0; ++i) {
    std::ifstream in(port_file);
    std::string text;
    if (in >> text && !absl::SimpleAtoi(text, &port)) port = 0;
    if (port == 0) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_NE(port, 0) << "labgate-serial did not start";
  // An unauthenticated caller is anonymous, and the policy applies to it all the same.
  SerialClient alice(
      grpc::CreateChannel(absl::StrCat("127.0.0.1:", port), grpc::InsecureChannelCredentials()),
      "");
  ASSERT_TRUE(alice.Open("loop://psu", 9600).ok());
  EXPECT_EQ(WriteWith(alice, "loop://psu", "OUTP ON", "").error_code(),
            grpc::StatusCode::FAILED_PRECONDITION);
  WriteFile(policy, kRelaxed);
  ASSERT_EQ(kill(pid, SIGHUP), 0);
  bool reloaded = false;
  for (int i = 0; i < 250 && !reloaded; ++i) {
    reloaded = WriteWith(alice, "loop://psu", "OUTP ON", "").ok();
    if (!reloaded) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_TRUE(reloaded) << "the relaxed policy did not take effect after SIGHUP";
  kill(pid, SIGTERM);
  int status = 0;
  waitpid(pid, &status, 0);
  pid = 0;
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "SIGHUP did not end it";
  unlink(policy.c_str());
  unlink(port_file.c_str());
}

}  // namespace
}  // namespace labgate::serial
