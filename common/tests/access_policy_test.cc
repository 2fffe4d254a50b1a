// The access file: its schema and role rules, each check's refusal naming what is missing,
// and reloading (a bad file keeps the one in force).
#include "common/access/access_policy.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "common/access/access_control.h"

namespace labgate::access {
namespace {

using nlohmann::json;

AccessPolicy Parsed(const json& document) {
  auto policy = AccessPolicy::Parse(document, "lab.json");
  EXPECT_TRUE(policy.ok()) << policy.status();
  return policy.ok() ? *std::move(policy) : AccessPolicy();
}

const json kLab = json::parse(R"({
  "principals": {
    "student": {"role": "viewer", "tools": ["list_*", "read", "query", "write"],
                "ports": ["dmm-*"]},
    "alice": {"role": "operator", "benches": ["lab-a"], "may_approve": ["psu-*"]},
    "carol": {"role": "operator", "read_only": true},
    "root": {"role": "admin"}
  }
})");

TEST(AccessPolicyTest, AViewerCallsOnlyReadOnlyToolsAmongItsOwn) {
  AccessPolicy policy = Parsed(kLab);
  EXPECT_TRUE(policy.MayCallTool("student", "read", true).ok());
  EXPECT_TRUE(policy.MayCallTool("student", "list_ports", true).ok());
  absl::Status write = policy.MayCallTool("student", "write", false);
  EXPECT_EQ(write.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(write.message(),
            "student may not call write: student (viewer) is read-only in lab.json, and write is "
            "not a read-only tool");
  absl::Status other = policy.MayCallTool("student", "status", true);
  EXPECT_EQ(other.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(other.message(),
            "student may not call status: the tool is not among its tools in lab.json");
}

TEST(AccessPolicyTest, PortsBenchesAndApprovalsFollowTheirGlobs) {
  AccessPolicy policy = Parsed(kLab);
  EXPECT_TRUE(policy.MayUsePort("student", "dmm-1").ok());
  EXPECT_EQ(policy.MayUsePort("student", "psu-1").message(),
            "student may not use port psu-1: it is not among its ports in lab.json");
  EXPECT_EQ(policy.MayChangePort("student", "dmm-1").code(), absl::StatusCode::kPermissionDenied);
  EXPECT_TRUE(policy.MayChangePort("alice", "psu-1").ok());
  EXPECT_TRUE(policy.MayUseBench("alice", "lab-a").ok());
  EXPECT_EQ(policy.MayUseBench("alice", "lab-b").message(),
            "alice may not use bench lab-b: it is not among its benches in lab.json");
  EXPECT_TRUE(policy.MayApprove("alice", "psu-limit").ok());
  EXPECT_EQ(policy.MayApprove("alice", "dmm-range").code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(policy.MayApprove("student", "psu-limit").code(), absl::StatusCode::kPermissionDenied);
  // Someone may approve a rule when any operator's may_approve (or an admin) covers it.
  EXPECT_TRUE(policy.SomeoneMayApprove("dmm-range"));  // carol and root: all rules
  AccessPolicy strict = Parsed(json::parse(R"({"principals": {
    "alice": {"role": "operator", "may_approve": ["psu-*"]}, "vera": {"role": "viewer"}},
    "default": {"role": "viewer"}})"));
  EXPECT_TRUE(strict.SomeoneMayApprove("psu-limit"));
  EXPECT_FALSE(strict.SomeoneMayApprove("output-on"));
  // At a port, the approver must also be one who may change it: its ports, its bench, and not
  // read-only (carol approves every rule but changes nothing).
  AccessPolicy scoped = Parsed(json::parse(R"({"principals": {
    "alice": {"role": "operator", "benches": ["lab-a"], "ports": ["psu-*"],
              "may_approve": ["output-*"]},
    "carol": {"role": "operator", "read_only": true}}})"));
  EXPECT_TRUE(scoped.SomeoneMayApprove("output-on", "lab-a", "psu-1"));
  EXPECT_TRUE(scoped.SomeoneMayApprove("output-on", "", "psu-1"));
  EXPECT_FALSE(scoped.SomeoneMayApprove("output-on", "lab-b", "psu-1")) << "not alice's bench";
  EXPECT_FALSE(scoped.SomeoneMayApprove("output-on", "lab-a", "dmm-1")) << "not alice's port";
  EXPECT_TRUE(scoped.SomeoneMayApprove("other-rule")) << "carol, with no port named";
  EXPECT_FALSE(scoped.SomeoneMayApprove("other-rule", "", "psu-1")) << "carol is read-only";
  // A stdio connection never reaches the console, where a held write is answered.
  AccessPolicy only_stdio = Parsed(json::parse(R"({"principals": {
    "stdio": {"role": "admin"}, "vera": {"role": "viewer"}}})"));
  EXPECT_FALSE(only_stdio.SomeoneMayApprove("output-on", "", "psu-1"));
  EXPECT_TRUE(only_stdio.MayApprove("stdio", "output-on").ok()) << "its own client may still";
  // An operator limited to reading, and an admin limited by nothing.
  EXPECT_EQ(policy.MayCallTool("carol", "write", false).code(),
            absl::StatusCode::kPermissionDenied);
  EXPECT_TRUE(policy.MayCallTool("carol", "read", true).ok());
  EXPECT_TRUE(policy.MayCallTool("root", "write", false).ok());
  EXPECT_TRUE(policy.MayChangePort("root", "anything").ok());
  EXPECT_TRUE(policy.MayAct("alice").ok());
  EXPECT_EQ(policy.MayAct("student").code(), absl::StatusCode::kPermissionDenied);
}

TEST(AccessPolicyTest, AnUnnamedPrincipalGetsTheDefaultOrNothing) {
  AccessPolicy without_default = Parsed(kLab);
  absl::Status refused = without_default.MayCallTool("mallory", "read", true);
  EXPECT_EQ(refused.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(refused.message(),
            "mallory may do nothing here: it is not in the access file lab.json and the file has "
            "no \"default\" entry");
  EXPECT_EQ(without_default.RoleOf("mallory"), "none");

  json with_default = kLab;
  with_default["default"] = {{"role", "viewer"}};
  AccessPolicy policy = Parsed(with_default);
  EXPECT_TRUE(policy.MayCallTool("mallory", "read", true).ok());
  EXPECT_FALSE(policy.MayCallTool("mallory", "write", false).ok());
  EXPECT_EQ(policy.RoleOf("mallory"), "viewer");
  EXPECT_EQ(policy.RoleOf("alice"), "operator");
}

TEST(AccessPolicyTest, BadFilesAreRefusedNamingTheProblem) {
  struct Case {
    const char* document;
    const char* expected;
  };
  for (const Case& bad : {
           Case{R"({})", "principals"},
           Case{R"({"principals": {"a": {"role": "boss"}}})", "[principals][a][role]"},
           Case{R"({"principals": {"a": {"role": "viewer", "tols": []}}})", "tols"},
           Case{R"({"principals": {"a": {"role": "viewer", "tools": "read"}}})", "[tools]"},
           Case{R"({"principals": {"a": {"role": "viewer", "read_only": false}}})",
                "[principals][a]: a viewer is always read-only"},
           Case{R"({"principals": {"a": {"role": "viewer", "may_approve": ["*"]}}})",
                "a viewer never approves"},
           Case{R"({"principals": {"a": {"role": "admin", "ports": ["x"]}}})",
                "an admin is unrestricted, so it has no ports"},
       }) {
    auto policy = AccessPolicy::Parse(json::parse(bad.document), "lab.json");
    ASSERT_FALSE(policy.ok()) << bad.document;
    EXPECT_EQ(policy.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(std::string(policy.status().message()).find(bad.expected), std::string::npos)
        << policy.status().message();
    EXPECT_EQ(std::string(policy.status().message()).rfind("lab.json: ", 0), 0u);
  }
}

TEST(AccessControlTest, WithoutAFileEverythingPassesAndAReloadKeepsTheLastGoodFile) {
  AccessControl none;
  EXPECT_FALSE(none.enabled());
  EXPECT_TRUE(none.MayCallTool("anyone", "write", false).ok());
  EXPECT_EQ(none.RoleOf("anyone"), "unrestricted");

  char path[] = "/tmp/labgate-access-XXXXXX";
  const int fd = ::mkstemp(path);
  ASSERT_GE(fd, 0);
  ::close(fd);
  auto write = [&](const std::string& text) { std::ofstream(path) << text; };
  write(R"({"principals": {"alice": {"role": "viewer"}}})");
  auto control = AccessControl::FromFile(path);
  ASSERT_TRUE(control.ok()) << control.status();
  EXPECT_FALSE((*control)->MayCallTool("alice", "write", false).ok());
  const uint64_t first = (*control)->generation();

  write(R"({"principals": {"alice": {"role": "operator"}}})");
  ASSERT_TRUE((*control)->Reload().ok());
  EXPECT_TRUE((*control)->MayCallTool("alice", "write", false).ok());
  EXPECT_GT((*control)->generation(), first);

  write("{not json");
  absl::Status broken = (*control)->Reload();
  EXPECT_EQ(broken.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE((*control)->MayCallTool("alice", "write", false).ok());  // still the last good one

  EXPECT_FALSE(AccessControl::FromFile("/nonexistent/access.json").ok());
  ::unlink(path);
}

}  // namespace
}  // namespace labgate::access
