// The shapes the console streams and exports: port events (with what was written),
// session events and the NDJSON export.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "gateway/console/port_views.h"
#include "gateway/console/session_views.h"
#include "gateway/console/sse_relay.h"

namespace labgate::gateway::console {
namespace {

using nlohmann::json;
namespace serial_v1 = labgate::serial::v1;
namespace session_v1 = labgate::session::v1;

TEST(ConsoleJsonTest, PortEventsNameTheirTypeAndCarryTheQualifiedPort) {
  serial_v1::PortEvent written;
  written.set_type(serial_v1::PortEvent::TYPE_WRITTEN);
  written.set_port_name("loop://x");
  written.set_data("*IDN?\n");
  written.set_encoding(serial_v1::ENCODING_TEXT);
  written.set_timestamp_ms(1700000000123);
  json event = PortEventJson(written, "lab-a:loop://x");
  EXPECT_EQ(event["type"], "written");
  EXPECT_EQ(event["port"], "lab-a:loop://x");
  EXPECT_EQ(event["data"], "*IDN?\n");
  EXPECT_EQ(event["encoding"], "text");
  EXPECT_EQ(event["timestamp_ms"], 1700000000123);
  EXPECT_FALSE(event.contains("dropped_bytes"));

  serial_v1::PortEvent closed;
  closed.set_type(serial_v1::PortEvent::TYPE_AUTO_CLOSE);
  closed.set_reason("idle_timeout");
  closed.set_idle_ms(500);
  closed.set_idle_close_count(2);
  event = PortEventJson(closed, "loop://x");
  EXPECT_EQ(event["type"], "auto_close");
  EXPECT_EQ(event["reason"], "idle_timeout");
  EXPECT_EQ(event["idle_ms"], 500);
  EXPECT_FALSE(event.contains("data"));

  serial_v1::PortEvent lost;
  lost.set_type(serial_v1::PortEvent::TYPE_DATA);
  lost.set_encoding(serial_v1::ENCODING_BASE64);
  lost.set_dropped_bytes(4096);
  event = PortEventJson(lost, "loop://x");
  EXPECT_EQ(event["type"], "data");
  EXPECT_EQ(event["encoding"], "base64");
  EXPECT_EQ(event["dropped_bytes"], 4096);
}

TEST(ConsoleJsonTest, SessionEvents) {
  session_v1::SessionEvent appended;
  appended.set_type(session_v1::SessionEvent::TYPE_APPENDED);
  appended.mutable_session()->set_id("s1");
  appended.mutable_session()->set_device_id("dmm");
  appended.mutable_message()->set_message_id(7);
  appended.mutable_message()->set_content("+1.0E0");
  appended.mutable_message()->set_direction("rx");
  json event = SessionEventJson(appended);
  EXPECT_EQ(event["type"], "appended");
  EXPECT_EQ(event["session"]["device_id"], "dmm");
  EXPECT_EQ(event["message"]["message_id"], 7);
  EXPECT_EQ(event["message"]["direction"], "rx");

  session_v1::SessionEvent closed;
  closed.set_type(session_v1::SessionEvent::TYPE_CLOSED);
  closed.mutable_session()->set_closed(true);
  event = SessionEventJson(closed);
  EXPECT_EQ(event["type"], "closed");
  EXPECT_FALSE(event.contains("message"));
}

TEST(ConsoleJsonTest, NdjsonExportIsTheSessionLineThenOneLinePerMessage) {
  session_v1::Session session;
  session.set_id("s1");
  session.set_device_id("dmm");
  std::vector<session_v1::Message> messages(2);
  messages[0].set_message_id(1);
  messages[0].set_content("line one\nstill one");
  messages[1].set_message_id(2);
  messages[1].set_content("two");
  std::istringstream lines(ExportNdjson(session, messages));
  std::string line;
  std::vector<json> parsed;
  while (std::getline(lines, line)) parsed.push_back(json::parse(line));
  ASSERT_EQ(parsed.size(), 3u);
  EXPECT_EQ(parsed[0]["session"]["id"], "s1");
  EXPECT_EQ(parsed[1]["message"]["content"], "line one\nstill one");
  EXPECT_EQ(parsed[2]["message"]["message_id"], 2);
}

TEST(ConsoleJsonTest, SseDataIsOneLine) {
  EXPECT_EQ(SseData({{"type", "data"}, {"data", "a\nb"}}),
            "data: {\"data\":\"a\\nb\",\"type\":\"data\"}\n\n");
}

}  // namespace
}  // namespace labgate::gateway::console
