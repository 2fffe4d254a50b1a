#include "gateway/tools/call_notices.h"

#include <gtest/gtest.h>

#include <memory>

#include "labgate/serial/v1/serial.pb.h"

namespace labgate::gateway {
namespace {

using nlohmann::json;
constexpr char kSerial[] = "labgate.serial.v1.SerialService";
constexpr char kSession[] = "labgate.session.v1.SessionService";

// The notice Observe gave; each test has asserted that there is one.
LogNotice NoticeOf(const std::optional<LogNotice>& observed) {
  return observed.value_or(LogNotice{});
}

TEST(CallNoticesTest, LoggerFollowsTheComponent) {
  EXPECT_EQ(LoggerForService(kSerial), "serial");
  EXPECT_EQ(LoggerForService(kSession), "session");
  EXPECT_EQ(LoggerForService("labgate.actions.v1.ActionsService"), "actions");
  EXPECT_EQ(LoggerForService("other.Service"), "gateway");
  // Only a whole package name counts, and only under labgate.
  EXPECT_EQ(LoggerForService("labgate.serialx.v1.SerialService"), "gateway");
  EXPECT_EQ(LoggerForService("labgate.serial"), "gateway");
  EXPECT_EQ(LoggerForService("other.serial.v1.SerialService"), "gateway");
  EXPECT_EQ(LoggerForService("labgate.sessionserial.v1.X"), "gateway");
  EXPECT_EQ(LoggerForService(""), "gateway");
}

TEST(CallNoticesTest, EveryCallLogsItsDurationAtDebug) {
  CallNotices notices = NoticesForCall("status", kSerial, json::object(), json{{"open", true}},
                                       std::chrono::microseconds(2500));
  ASSERT_EQ(notices.logs.size(), 1u);
  EXPECT_EQ(notices.logs[0].level, McpLogLevel::kDebug);
  EXPECT_EQ(notices.logs[0].logger, "serial");
  EXPECT_EQ(notices.logs[0].data["tool"], "status");
  EXPECT_DOUBLE_EQ(notices.logs[0].data["duration_ms"].get<double>(), 2.5);
  EXPECT_EQ(notices.logs[0].data["status"], "OK");
  EXPECT_FALSE(notices.ports_changed);
}

TEST(CallNoticesTest, WithoutDebugOnlyTheOtherNoticesAreMade) {
  CallNotices quiet = NoticesForCall("status", kSerial, json::object(), json{{"open", true}},
                                     std::chrono::microseconds(2500), /*with_debug=*/false);
  EXPECT_TRUE(quiet.logs.empty());
  CallNotices opened = NoticesForCall("open_port", kSerial, json{{"port_name", "loop://"}},
                                      json{{"port_name", "loop://"}}, {}, /*with_debug=*/false);
  ASSERT_EQ(opened.logs.size(), 1u);
  EXPECT_EQ(opened.logs[0].data["event"], "port_opened");
  EXPECT_TRUE(opened.ports_changed);
  CallNotices failed = NoticesForCall("write", kSerial, json{{"port_name", "loop://"}},
                                      absl::NotFoundError("no port"), {}, /*with_debug=*/false);
  ASSERT_EQ(failed.logs.size(), 1u);
  EXPECT_EQ(failed.logs[0].level, McpLogLevel::kError);
}

TEST(CallNoticesTest, OpeningAPortLogsAtInfoAndChangesTheList) {
  CallNotices notices = NoticesForCall("open_port", kSerial, json{{"port_name", "loop://"}},
                                       json{{"port_name", "loop://"}, {"baud_rate", 9600}}, {});
  ASSERT_EQ(notices.logs.size(), 2u);
  EXPECT_EQ(notices.logs[1].level, McpLogLevel::kInfo);
  EXPECT_EQ(notices.logs[1].data, (json{{"event", "port_opened"}, {"port_name", "loop://"}}));
  EXPECT_TRUE(notices.ports_changed);
  EXPECT_EQ(notices.port, "loop://");
}

TEST(CallNoticesTest, ClosingTheOnlyPortNamesItFromTheReply) {
  CallNotices notices = NoticesForCall("close", kSerial, json::object(),
                                       json{{"port_name", "loop://"}, {"closed", true}}, {});
  ASSERT_EQ(notices.logs.size(), 2u);
  EXPECT_EQ(notices.logs[1].data["event"], "port_closed");
  EXPECT_EQ(notices.logs[1].data["port_name"], "loop://");
  EXPECT_TRUE(notices.ports_changed);
}

TEST(CallNoticesTest, AReadThatAutoClosedItsPortLogsItAndChangesTheList) {
  CallNotices notices =
      NoticesForCall("read", kSerial, json{{"port_name", "loop://idle"}},
                     json{{"port_name", "loop://idle"},
                          {"event", "auto_close"},
                          {"reason", "idle_timeout"},
                          {"idle_ms", "50"},  // proto JSON spells int64 as a string
                          {"idle_close_count", "1"}},
                     {});
  ASSERT_EQ(notices.logs.size(), 2u);
  EXPECT_EQ(notices.logs[1].level, McpLogLevel::kInfo);
  EXPECT_EQ(notices.logs[1].logger, "serial");
  EXPECT_EQ(notices.logs[1].data, (json{{"event", "port_auto_closed"},
                                        {"port_name", "loop://idle"},
                                        {"reason", "idle_timeout"},
                                        {"idle_ms", 50}}));
  EXPECT_TRUE(notices.ports_changed);
  EXPECT_EQ(notices.port, "loop://idle");
}

TEST(CallNoticesTest, AReadReplyKeptAsItsMessageIsReadTheSame) {
  auto read = std::make_shared<labgate::serial::v1::ReadResponse>();
  read->set_port_name("loop://idle");
  read->set_event("auto_close");
  read->set_reason("idle_timeout");
  read->set_idle_ms(50);
  const BackendReply reply{std::shared_ptr<const google::protobuf::Message>(read)};
  CallNotices notices = NoticesForCall("read", kSerial, json::object(), absl::OkStatus(), &reply,
                                       {}, /*with_debug=*/false);
  ASSERT_EQ(notices.logs.size(), 1u);
  EXPECT_EQ(notices.logs[0].data, (json{{"event", "port_auto_closed"},
                                        {"port_name", "loop://idle"},
                                        {"reason", "idle_timeout"},
                                        {"idle_ms", 50}}));
  EXPECT_TRUE(notices.ports_changed);
  EXPECT_EQ(notices.port, "loop://idle") << "named by the reply, not the arguments";
}

TEST(CallNoticesTest, AnOrdinaryReadChangesNothing) {
  CallNotices notices = NoticesForCall("read", kSerial, json{{"port_name", "loop://"}},
                                       json{{"port_name", "loop://"}, {"data", "x"}}, {});
  ASSERT_EQ(notices.logs.size(), 1u);
  EXPECT_FALSE(notices.ports_changed);
}

TEST(CallNoticesTest, AFailedCallLogsAnErrorAndChangesNothing) {
  CallNotices notices = NoticesForCall("open_port", kSerial, json{{"port_name", "/dev/none"}},
                                       absl::NotFoundError("no such port"), {});
  ASSERT_EQ(notices.logs.size(), 2u);
  EXPECT_EQ(notices.logs[0].data["status"], "NOT_FOUND");
  EXPECT_EQ(notices.logs[1].level, McpLogLevel::kError);
  EXPECT_EQ(notices.logs[1].data["tool"], "open_port");
  EXPECT_NE(notices.logs[1].data["error"].get<std::string>().find("no such port"),
            std::string::npos);
  EXPECT_FALSE(notices.ports_changed);
}

TEST(CallNoticesTest, SessionCallsNameNoPort) {
  CallNotices notices = NoticesForCall("create_session", kSession, json{{"port_name", "loop://"}},
                                       json{{"session", {{"id", "s1"}}}}, {});
  EXPECT_EQ(notices.logs[0].logger, "session");
  EXPECT_TRUE(notices.port.empty());
  EXPECT_FALSE(notices.ports_changed);
}

TEST(BackendHealthTest, WarnsOnceWhenUnreachableAndOnceWhenRecovered) {
  BackendHealth health;
  const absl::Status down =
      absl::UnavailableError("the serial service at 127.0.0.1:1 is not reachable");
  EXPECT_FALSE(health.Observe(kSerial, "", absl::OkStatus()).has_value());
  auto first = health.Observe(kSerial, "", down);
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(NoticeOf(first).level, McpLogLevel::kWarning);
  EXPECT_EQ(NoticeOf(first).logger, "gateway");
  EXPECT_EQ(NoticeOf(first).data["event"], "backend_unreachable");
  EXPECT_FALSE(health.Observe(kSerial, "", down).has_value());
  // Another failure says nothing about reachability.
  EXPECT_FALSE(health.Observe(kSerial, "", absl::NotFoundError("x")).has_value());
  // Other services are tracked apart.
  EXPECT_FALSE(health.Observe(kSession, "", absl::OkStatus()).has_value());
  auto recovered = health.Observe(kSerial, "", absl::OkStatus());
  ASSERT_TRUE(recovered.has_value());
  EXPECT_EQ(NoticeOf(recovered).data["event"], "backend_recovered");
  EXPECT_FALSE(health.Observe(kSerial, "", absl::OkStatus()).has_value());
}

// Benches of one serial service are backends of their own: one bench's answer says
// nothing about another's reachability, and the log names the bench.
TEST(BackendHealthTest, EachBenchIsTrackedApartAndNamed) {
  BackendHealth health;
  const absl::Status down =
      absl::UnavailableError("serial service at 127.0.0.1:2 is not reachable");
  auto lost = health.Observe(kSerial, "lab-b", down);
  ASSERT_TRUE(lost.has_value());
  EXPECT_EQ(NoticeOf(lost).data,
            (json{{"event", "backend_unreachable"},
                  {"service", kSerial},
                  {"bench", "lab-b"},
                  {"error", "serial service at 127.0.0.1:2 is not reachable"}}));
  EXPECT_FALSE(health.Observe(kSerial, "lab-a", absl::OkStatus()).has_value())
      << "another bench's success is no recovery";
  EXPECT_FALSE(health.Observe(kSerial, "", absl::OkStatus()).has_value())
      << "nor is the unnamed bench's";
  auto back = health.Observe(kSerial, "lab-b", absl::OkStatus());
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(NoticeOf(back).data,
            (json{{"event", "backend_recovered"}, {"service", kSerial}, {"bench", "lab-b"}}));
}

// While one backend is still down, the others' recoveries and its own are each told once.
TEST(BackendHealthTest, TwoBackendsDownRecoverOneAtATime) {
  BackendHealth health;
  const absl::Status down = absl::UnavailableError("the service at 127.0.0.1:3 is not reachable");
  ASSERT_TRUE(health.Observe(kSerial, "", down).has_value());
  ASSERT_TRUE(health.Observe(kSession, "", down).has_value());
  auto serial_back = health.Observe(kSerial, "", absl::OkStatus());
  ASSERT_TRUE(serial_back.has_value());
  EXPECT_EQ(NoticeOf(serial_back).data["service"], kSerial);
  EXPECT_FALSE(health.Observe(kSerial, "", absl::OkStatus()).has_value());
  auto session_back = health.Observe(kSession, "", absl::OkStatus());
  ASSERT_TRUE(session_back.has_value());
  EXPECT_EQ(NoticeOf(session_back).data["service"], kSession);
  EXPECT_FALSE(health.Observe(kSession, "", absl::OkStatus()).has_value());
  // Down again after all recovered: told again.
  EXPECT_TRUE(health.Observe(kSession, "", down).has_value());
  EXPECT_TRUE(health.Observe(kSession, "", absl::OkStatus()).has_value());
}

}  // namespace
}  // namespace labgate::gateway
