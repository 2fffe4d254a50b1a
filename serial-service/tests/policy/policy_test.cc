// The policy file format and the decisions it makes, without a service around it.
#include "serial-service/policy/policy.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "serial-service/policy/policy_engine.h"
#include "serial-service/policy/port_policy_proto.h"

namespace labgate::serial {
namespace {

constexpr char kPolicy[] = R"json({
  "show_denied": false,
  "confirm_exempt": ["robot"],
  "ports": [
    {"match": "loop://locked*", "allow": false},
    {"match": "loop://meter*", "read_only": true},
    {"match": "loop://psu*", "max_baud": 115200, "max_writes_per_s": 2,
     "deny": [{"name": "no-reset", "pattern": "^\\*RST"}],
     "confirm": [{"name": "output-on", "pattern": "^OUTP(UT)? ON"}]},
    {"match": "loop://*"}
  ]
})json";

std::shared_ptr<const Policy> Parse(const std::string& text) {
  absl::StatusOr<std::shared_ptr<const Policy>> policy = ParsePolicy(text, "test.json");
  EXPECT_TRUE(policy.ok()) << policy.status();
  return policy.ok() ? *policy : nullptr;
}

TEST(PolicyTest, ParsesTheRulesAndTheFirstMatchApplies) {
  auto policy = Parse(kPolicy);
  ASSERT_NE(policy, nullptr);
  ASSERT_EQ(policy->ports.size(), 4u);
  EXPECT_EQ(policy->RuleFor("loop://psu1")->match, "loop://psu*");
  EXPECT_EQ(policy->RuleFor("loop://other")->match, "loop://*");
  EXPECT_EQ(policy->RuleFor("/dev/ttyUSB0"), nullptr);
  EXPECT_EQ(policy->confirm_exempt.count("robot"), 1u);
}

// A sequence is checked whole when the policy loads: each step one kind, a level with its
// signal, patterns RE2 accepts, known keys only; each refusal names the step.
TEST(PolicyTest, BadSequencesAreRefusedByStep) {
  auto refused = [](const std::string& sequences) {
    auto policy = ParsePolicy(
        absl::StrCat(R"({"ports": [{"match": "*", "sequences": )", sequences, "}]}"), "p.json");
    EXPECT_FALSE(policy.ok()) << sequences;
    EXPECT_EQ(policy.status().code(), absl::StatusCode::kInvalidArgument);
    return std::string(policy.status().message());
  };
  EXPECT_THAT(refused(R"({"reset": {"steps": [{"delay_ms": 5}, {"send": "x", "delay_ms": 5}]}})"),
              ::testing::HasSubstr("ports[0].sequences.reset.steps[1] must be exactly one of"));
  EXPECT_THAT(refused(R"({"reset": {"steps": [{"signal": "dtr", "ms": 5}]}})"),
              ::testing::HasSubstr("ports[0].sequences.reset.steps[0].level is required"));
  EXPECT_THAT(refused(R"({"boot": {"steps": [{"expect": ["(unclosed"]}]}})"),
              ::testing::HasSubstr("ports[0].sequences.boot.steps[0].expect[0]"));
  EXPECT_THAT(refused(R"({"boot": {"steps": [{"send": "x", "timeout_ms": 5}]}})"),
              ::testing::HasSubstr("timeout_ms goes with expect"));
  EXPECT_THAT(refused(R"({"reset": {"steps": [{"signal": "dtr", "level": false, "colour": 1}]}})"),
              ::testing::HasSubstr("colour"));
  EXPECT_THAT(refused(R"({"reset": {"steps": []}})"), ::testing::HasSubstr("reset"));
  EXPECT_THAT(refused(R"({"reset": {"steps": [{"delay_ms": 1}], "signals": "maybe"}})"),
              ::testing::HasSubstr("signals"));
  EXPECT_THAT(refused(R"({"two words": {"steps": [{"delay_ms": 1}]}})"),
              ::testing::HasSubstr("ports[0].sequences: the name 'two words' may hold only"));

  auto good = ParsePolicy(R"({"ports": [{"match": "*", "signals": "confirm", "sequences": {
      "reset": {"steps": [{"signal": "dtr", "level": false, "ms": 100}, {"delay_ms": 50}],
                "signals": "allow"}}}]})",
                          "p.json");
  ASSERT_TRUE(good.ok()) << good.status();
  const PortRule& rule = (*good)->ports[0];
  EXPECT_EQ(rule.signals, SignalsRule::kConfirm);
  ASSERT_NE(rule.SequenceNamed("reset"), nullptr);
  EXPECT_EQ(rule.SequenceNamed("reset")->signals, SignalsRule::kAllow);
  EXPECT_TRUE(rule.SequenceNamed("reset")->DrivesLines());
  EXPECT_EQ(DescribeSteps(rule.SequenceNamed("reset")->steps), "DTR low for 100 ms; wait 50 ms");
  EXPECT_EQ(rule.SequenceNamed("flash"), nullptr);
}

TEST(PolicyTest, UnknownKeysBadTypesAndBadRegexesAreRefusedByName) {
  auto unknown = ParsePolicy(R"({"ports": [{"match": "*", "alow": true}]})", "p.json");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(unknown.status().message(), "alow")) << unknown.status();
  auto top = ParsePolicy(R"({"ports": [], "colour": 1})", "p.json");
  EXPECT_TRUE(absl::StrContains(top.status().message(), "colour")) << top.status();
  auto signals = ParsePolicy(R"({"ports": [{"match": "*", "signals": "sometimes"}]})", "p.json");
  EXPECT_TRUE(absl::StrContains(signals.status().message(), "signals")) << signals.status();
  auto type = ParsePolicy(R"({"ports": [{"match": "*", "max_baud": "fast"}]})", "p.json");
  EXPECT_TRUE(absl::StrContains(type.status().message(), "max_baud")) << type.status();
  auto regex = ParsePolicy(
      R"({"ports": [{"match": "*", "deny": [{"name": "broken", "pattern": "(["}]}]})", "p.json");
  EXPECT_TRUE(absl::StrContains(regex.status().message(), "'broken'")) << regex.status();
  EXPECT_TRUE(absl::StrContains(regex.status().message(), "not valid RE2: missing ]"))
      << regex.status();
  auto missing = ParsePolicy(R"({})", "p.json");
  EXPECT_TRUE(absl::StrContains(missing.status().message(), "ports")) << missing.status();
  auto not_json = ParsePolicy("{ports", "p.json");
  EXPECT_TRUE(absl::StrContains(not_json.status().message(), "not valid JSON"));
}

TEST(PolicyEngineTest, OpensListingAndBaud) {
  PolicyEngine engine;
  EXPECT_TRUE(engine.CheckOpen("/dev/anything", 4000000).ok()) << "no policy: all allowed";
  engine.Replace(Parse(kPolicy));
  EXPECT_TRUE(engine.CheckOpen("loop://psu", 9600).ok());
  absl::Status fast = engine.CheckOpen("loop://psu", 230400);
  EXPECT_EQ(fast.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_TRUE(absl::StrContains(fast.message(), "max_baud 115200")) << fast;
  EXPECT_EQ(engine.CheckOpen("loop://locked", 9600).code(), absl::StatusCode::kPermissionDenied);
  absl::Status unmatched = engine.CheckOpen("/dev/ttyUSB0", 9600);
  EXPECT_TRUE(absl::StrContains(unmatched.message(), "no rule matches")) << unmatched;
  EXPECT_FALSE(engine.Listed("loop://locked"));
  EXPECT_FALSE(engine.Listed("/dev/ttyUSB0"));
  EXPECT_TRUE(engine.Listed("loop://psu"));
  engine.Replace(Parse(R"({"show_denied": true, "ports": [{"match": "x", "allow": false}]})"));
  EXPECT_TRUE(engine.Listed("x"));
  EXPECT_EQ(engine.CheckOpen("x", 9600).code(), absl::StatusCode::kPermissionDenied);
}

TEST(PolicyEngineTest, ReadOnlyDenyAndConfirm) {
  PolicyEngine engine;
  engine.Replace(Parse(kPolicy));
  absl::Status read_only = engine.CheckWrite("alice", "loop://meter", "*IDN?", "");
  EXPECT_EQ(read_only.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_TRUE(absl::StrContains(read_only.message(), "read-only")) << read_only;
  absl::Status denied = engine.CheckWrite("robot", "loop://psu", "*RST", "");
  EXPECT_EQ(denied.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_TRUE(absl::StrContains(denied.message(), "'no-reset'")) << denied;

  absl::Status confirm = engine.CheckWrite("alice", "loop://psu", "OUTP ON", "");
  EXPECT_EQ(confirm.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(absl::StrContains(confirm.message(), "'output-on'")) << confirm;
  EXPECT_EQ(std::string(confirm.GetPayload(kConfirmRulePayload).value_or(absl::Cord())),
            "output-on");
  // The confirm id a refusal carries; empty when it has none (and then the checks below fail).
  auto id_of = [](const absl::Status& status) {
    return std::string(status.GetPayload(kConfirmIdPayload).value_or(absl::Cord()));
  };
  const std::string id = id_of(confirm);
  ASSERT_FALSE(id.empty());
  // The approval is bound to the owner, port and bytes, and used once.
  EXPECT_FALSE(engine.CheckWrite("bob", "loop://psu", "OUTP ON", id).ok());
  absl::Status again = engine.CheckWrite("alice", "loop://psu", "OUTP ON", "");
  const std::string id2 = id_of(again);
  EXPECT_FALSE(engine.CheckWrite("alice", "loop://psu", "OUTPUT ON", id2).ok());
  absl::Status third = engine.CheckWrite("alice", "loop://psu", "OUTP ON", "");
  const std::string id3 = id_of(third);
  ASSERT_FALSE(id3.empty());
  EXPECT_TRUE(engine.CheckWrite("alice", "loop://psu", "OUTP ON", id3).ok());
  EXPECT_FALSE(engine.CheckWrite("alice", "loop://psu", "OUTP ON", id3).ok()) << "used once";
  // Exempt owners skip confirm rules, not deny rules.
  EXPECT_TRUE(engine.CheckWrite("robot", "loop://other", "OUTP ON", "").ok());
}

// A write completing a line begun earlier is matched as the line the device reads.
TEST(PolicyEngineTest, AJoinedLineMeetsTheDenyAndConfirmRulesAsAWhole) {
  PolicyEngine engine;
  engine.Replace(Parse(kPolicy));
  absl::Status denied = engine.CheckJoinedLine("alice", "loop://psu", "*", "RST");
  EXPECT_EQ(denied.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_TRUE(absl::StrContains(denied.message(), "deny rule 'no-reset'")) << denied;
  EXPECT_TRUE(absl::StrContains(denied.message(), "completes a line begun in an earlier write"))
      << denied;
  EXPECT_FALSE(engine.CheckJoinedLine("robot", "loop://psu", "*", "RST").ok())
      << "exempt owners skip confirm rules, not deny rules";

  // Nobody was asked about the joined OUTP ON: refused, with how to be asked.
  absl::Status unasked = engine.CheckJoinedLine("alice", "loop://psu", "OUTP", " ON");
  EXPECT_EQ(unasked.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_TRUE(absl::StrContains(unasked.message(), "the confirm rule 'output-on'")) << unasked;
  EXPECT_TRUE(absl::StrContains(unasked.message(), "send the line in one write")) << unasked;
  EXPECT_TRUE(engine.CheckJoinedLine("robot", "loop://psu", "OUTP", " ON").ok())
      << "an exempt owner is never asked";
  // A confirm rule one part already matched alone was asked about when that part was written.
  EXPECT_TRUE(engine.CheckJoinedLine("alice", "loop://psu", "OUTP ON", ";VOLT 1").ok());
  EXPECT_TRUE(engine.CheckJoinedLine("alice", "loop://psu", "VOLT", " 1").ok());
  EXPECT_TRUE(engine.CheckJoinedLine("alice", "loop://nowhere-ruled", "*", "RST").ok())
      << "a port without a rule of these is CheckWrite's to judge";
}

TEST(PolicyEngineTest, RateLimitCountsAllowedWritesPerPort) {
  PolicyEngine engine;
  engine.Replace(Parse(kPolicy));
  EXPECT_TRUE(engine.CheckWrite("alice", "loop://psu", "VOLT 1", "").ok());
  EXPECT_TRUE(engine.CheckWrite("alice", "loop://psu", "VOLT 2", "").ok());
  absl::Status limited = engine.CheckWrite("alice", "loop://psu", "VOLT 3", "");
  EXPECT_EQ(limited.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_TRUE(absl::StrContains(limited.message(), "2 writes per second")) << limited;
  EXPECT_TRUE(engine.CheckWrite("alice", "loop://psu2", "VOLT 1", "").ok()) << "per port";
}

// Patterns are RE2: what a backtracking engine cannot do is refused by name, and what
// would make one backtrack for ever (or overflow its stack) is matched in linear time.
std::string DenyPolicy(const std::string& pattern_json) {
  return R"({"ports": [{"match": "*", "deny": [{"name": "rule", "pattern": )" + pattern_json +
         "}]}]}";
}

TEST(PolicyPatternTest, BackreferencesLookaroundHugeAndEmptyPatternsAreRefusedByName) {
  for (const auto& [pattern, reason] : std::vector<std::pair<std::string, std::string>>{
           {R"p("(a)\\1")p", "rule 'rule': pattern '(a)\\1' is not valid RE2: invalid escape"},
           {R"p("x(?=y)")p",
            "rule 'rule': pattern 'x(?=y)' is not valid RE2: invalid perl operator"},
           {R"p("")p", "[ports][0][deny][0][pattern]: String should be no fewer than 1"},
           {"\"" + std::string(1 << 20, 'a') + "\"", "rule 'rule': pattern 'aaaa"}}) {
    auto refused = ParsePolicy(DenyPolicy(pattern), "p.json");
    ASSERT_FALSE(refused.ok()) << pattern.substr(0, 40);
    EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_TRUE(absl::StrContains(refused.status().message(), reason)) << refused.status();
    EXPECT_LT(refused.status().message().size(), 400u) << "a huge pattern is not echoed whole";
  }
  auto huge = ParsePolicy(DenyPolicy("\"" + std::string(1 << 20, 'a') + "\""), "p.json");
  EXPECT_TRUE(absl::StrContains(huge.status().message(),
                                "(1048576 bytes)' is 1048576 bytes; at "
                                "most 4096 are accepted"))
      << huge.status();
}

TEST(PolicyPatternTest, CatastrophicBacktrackingClassicsMatchInLinearTime) {
  PolicyEngine engine;
  // Each of these fails to match this input only after exponential time (or a blown stack)
  // in a backtracking engine; RE2 answers at once, and ctest's timeout would catch a hang.
  const std::string input = std::string(100000, 'a') + "!";
  for (const char* pattern :
       {R"p("(a+)+$")p", R"p("(a|aa)+$")p", R"p("(a*)*b")p", R"p("(.*a){20}$")p"}) {
    engine.Replace(Parse(DenyPolicy(pattern)));
    absl::Status status = engine.CheckWrite("alice", "loop://x", input, "");
    EXPECT_TRUE(status.ok()) << pattern << " does not match, so the write is allowed: " << status;
  }
  engine.Replace(Parse(DenyPolicy(R"p("(a+)+$")p")));
  EXPECT_FALSE(engine.CheckWrite("alice", "loop://x", std::string(100000, 'a'), "").ok());
}

TEST(PolicyPatternTest, PatternsMatchBinaryBytesOneForOne) {
  PolicyEngine engine;
  engine.Replace(Parse(DenyPolicy(R"p("\\x00\\xff")p")));
  EXPECT_FALSE(engine
                   .CheckWrite("alice", "loop://x",
                               std::string("A\x00\xff"
                                           "B",
                                           4),
                               "")
                   .ok());
  EXPECT_TRUE(engine
                  .CheckWrite("alice", "loop://x",
                              std::string("A\x00\xfe"
                                          "B",
                                          4),
                              "")
                  .ok());
  // Bytes that are not UTF-8 are written, and searched, like any others.
  engine.Replace(Parse(DenyPolicy(R"p("^RST")p")));
  EXPECT_TRUE(engine.CheckWrite("alice", "loop://x", "\xc3\x28 RST", "").ok());
  EXPECT_FALSE(engine.CheckWrite("alice", "loop://x", "RST\xc3\x28", "").ok());
}

TEST(PortPolicyProtoTest, StatusSaysWhetherTheControlLinesMayBeDriven) {
  auto policy = Parse(R"({"ports": [{"match": "loop://meter", "read_only": true},
                                    {"match": "loop://psu", "signals": "deny"},
                                    {"match": "loop://locked", "allow": false},
                                    {"match": "loop://*"}]})");
  ASSERT_NE(policy, nullptr);
  for (const auto& [port, allowed] :
       std::vector<std::pair<std::string, bool>>{{"loop://meter", false},
                                                 {"loop://psu", false},
                                                 {"loop://locked", false},
                                                 {"loop://board", true}}) {
    v1::PortPolicy proto;
    PortPolicyToProto(*policy, port, &proto);
    EXPECT_EQ(proto.signals_allowed(), allowed) << port;
  }
}

}  // namespace
}  // namespace labgate::serial
