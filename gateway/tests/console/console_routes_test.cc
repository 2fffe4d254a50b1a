// The console's URL rules: which endpoint a path names, port names with slashes and
// bench prefixes, and query strings.
#include "gateway/console/console_routes.h"

#include <gtest/gtest.h>

namespace labgate::gateway::console {
namespace {

TEST(ConsoleRoutesTest, ConsolePathsAreConsoleAndApiPathsNeedTokens) {
  EXPECT_TRUE(IsConsolePath("/console"));
  EXPECT_TRUE(IsConsolePath("/console/"));
  EXPECT_TRUE(IsConsolePath("/console/api/ports"));
  EXPECT_FALSE(IsConsolePath("/consoles"));
  EXPECT_FALSE(IsConsolePath("/mcp"));
  EXPECT_TRUE(IsApiPath("/console/api/ports"));
  EXPECT_FALSE(IsApiPath("/console"));
  EXPECT_FALSE(IsApiPath("/console/apix"));
}

TEST(ConsoleRoutesTest, FixedEndpoints) {
  EXPECT_EQ(ParseRoute("/console").endpoint, Endpoint::kPage);
  EXPECT_EQ(ParseRoute("/console/").endpoint, Endpoint::kPage);
  EXPECT_EQ(ParseRoute("/console/api/whoami").endpoint, Endpoint::kWhoami);
  EXPECT_EQ(ParseRoute("/console/api/ports").endpoint, Endpoint::kPorts);
  EXPECT_EQ(ParseRoute("/console/api/sessions").endpoint, Endpoint::kSessions);
  EXPECT_EQ(ParseRoute("/console/api/backends").endpoint, Endpoint::kBackends);
  EXPECT_EQ(ParseRoute("/console/api/nothing").endpoint, Endpoint::kUnknown);
  EXPECT_EQ(ParseRoute("/console/other").endpoint, Endpoint::kUnknown);
}

TEST(ConsoleRoutesTest, PortNamesAreDecodedWithTheirSlashesAndBench) {
  Route route = ParseRoute("/console/api/ports/loop%3A%2F%2Fdemo");
  EXPECT_EQ(route.endpoint, Endpoint::kPort);
  EXPECT_EQ(route.port, "loop://demo");

  route = ParseRoute("/console/api/ports/lab-a%3A%2Fdev%2FttyUSB0/events");
  EXPECT_EQ(route.endpoint, Endpoint::kPortEvents);
  EXPECT_EQ(route.port, "lab-a:/dev/ttyUSB0");

  // A client that did not encode the slashes still names the port.
  route = ParseRoute("/console/api/ports//dev/ttyS0/events");
  EXPECT_EQ(route.endpoint, Endpoint::kPortEvents);
  EXPECT_EQ(route.port, "/dev/ttyS0");

  EXPECT_EQ(ParseRoute("/console/api/ports/").endpoint, Endpoint::kUnknown);
}

TEST(ConsoleRoutesTest, SessionEndpoints) {
  const std::string id = "0b9d6a5e-2f61-4b7e-9a49-3c8a4b1f0d11";
  Route route = ParseRoute("/console/api/sessions/" + id);
  EXPECT_EQ(route.endpoint, Endpoint::kSession);
  EXPECT_EQ(route.session_id, id);
  EXPECT_EQ(ParseRoute("/console/api/sessions/" + id + "/export").endpoint,
            Endpoint::kSessionExport);
  route = ParseRoute("/console/api/sessions/" + id + "/events");
  EXPECT_EQ(route.endpoint, Endpoint::kSessionEvents);
  EXPECT_EQ(route.session_id, id);
  EXPECT_EQ(ParseRoute("/console/api/sessions/a/b").endpoint, Endpoint::kUnknown);
  EXPECT_EQ(ParseRoute("/console/api/sessions/").endpoint, Endpoint::kUnknown);
}

TEST(ConsoleRoutesTest, APrincipalsRevokeNamesThePrincipalDecoded) {
  Route route = ParseRoute("/console/api/principals/token-1a2b/revoke");
  EXPECT_EQ(route.endpoint, Endpoint::kRevoke);
  EXPECT_EQ(route.principal, "token-1a2b");
  EXPECT_EQ(ParseRoute("/console/api/principals/a%20b/revoke").principal, "a b");
  EXPECT_EQ(ParseRoute("/console/api/principals/a/b/revoke").endpoint, Endpoint::kUnknown);
  EXPECT_EQ(ParseRoute("/console/api/principals//revoke").endpoint, Endpoint::kUnknown);
  EXPECT_EQ(ParseRoute("/console/api/principals/alice").endpoint, Endpoint::kUnknown);
}

TEST(ConsoleRoutesTest, AnApprovalAnswerNamesTheHoldAndTheDecision) {
  EXPECT_EQ(ParseRoute("/console/api/approvals").endpoint, Endpoint::kApprovals);
  Route route = ParseRoute("/console/api/approvals/12/approve");
  EXPECT_EQ(route.endpoint, Endpoint::kApprovalAnswer);
  EXPECT_EQ(route.approval_id, "12");
  EXPECT_EQ(route.decision, "accept");
  route = ParseRoute("/console/api/approvals/7/decline");
  EXPECT_EQ(route.endpoint, Endpoint::kApprovalAnswer);
  EXPECT_EQ(route.decision, "decline");
  EXPECT_EQ(ParseRoute("/console/api/approvals/7").endpoint, Endpoint::kUnknown);
  EXPECT_EQ(ParseRoute("/console/api/approvals/7/maybe").endpoint, Endpoint::kUnknown);
  EXPECT_EQ(ParseRoute("/console/api/approvals//approve").endpoint, Endpoint::kUnknown);
  EXPECT_EQ(ParseRoute("/console/api/approvals/1/2/approve").endpoint, Endpoint::kUnknown);
}

TEST(ConsoleRoutesTest, ClosingAPortAndEndingAReservationNameTheirTargets) {
  Route route = ParseRoute("/console/api/ports/loop%3A%2F%2Fpsu/close");
  EXPECT_EQ(route.endpoint, Endpoint::kPortClose);
  EXPECT_EQ(route.port, "loop://psu");
  EXPECT_EQ(ParseRoute("/console/api/ports/lab-a:/dev/ttyUSB0/close").port, "lab-a:/dev/ttyUSB0");
  route = ParseRoute("/console/api/reservations/r-12/end");
  EXPECT_EQ(route.endpoint, Endpoint::kReservationEnd);
  EXPECT_EQ(route.reservation_id, "r-12");
  EXPECT_EQ(ParseRoute("/console/api/reservations/r-12").endpoint, Endpoint::kUnknown);
  EXPECT_EQ(ParseRoute("/console/api/reservations//end").endpoint, Endpoint::kUnknown);
  EXPECT_EQ(ParseRoute("/console/api/reservations/a/b/end").endpoint, Endpoint::kUnknown);
}

TEST(ConsoleRoutesTest, QueryStrings) {
  auto query = ParseQuery("/console/api/sessions?device=dmm+1&feature=scpi%2Cidn&closed");
  EXPECT_EQ(query["device"], "dmm 1");
  EXPECT_EQ(query["feature"], "scpi,idn");
  EXPECT_EQ(query.count("closed"), 1u);
  EXPECT_EQ(query["closed"], "");
  EXPECT_TRUE(ParseQuery("/console/api/sessions").empty());
  EXPECT_TRUE(ParseQuery("/x?").empty());
}

TEST(ConsoleRoutesTest, MalformedEscapesStayAsTheyAre) {
  EXPECT_EQ(PercentDecode("100%"), "100%");
  EXPECT_EQ(PercentDecode("%zz%4"), "%zz%4");
  EXPECT_EQ(PercentDecode("a%2fb"), "a/b");
  EXPECT_EQ(PercentDecode("a+b"), "a+b");
  EXPECT_EQ(PercentDecode("a+b", true), "a b");
}

}  // namespace
}  // namespace labgate::gateway::console
