#include "serial-service/ports/port_settings.h"

#include <gtest/gtest.h>

#include "absl/strings/match.h"

namespace labgate::serial {
namespace {

v1::OpenPortRequest Request() {
  v1::OpenPortRequest request;
  request.set_port_name("/dev/ttyUSB0");
  request.set_baud_rate(115200);
  return request;
}

void ExpectInvalid(const absl::Status& status, const std::string& field,
                   const std::string& allowed) {
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  const std::string message(status.message());
  EXPECT_TRUE(absl::StrContains(message, field)) << message;
  EXPECT_TRUE(absl::StrContains(message, allowed)) << message;
}

TEST(PortSettingsTest, DefaultsMatchTheSeed) {
  auto settings = SettingsFromOpenRequest(Request());
  ASSERT_TRUE(settings.ok()) << settings.status();
  EXPECT_EQ(settings->baud_rate, 115200);
  EXPECT_EQ(settings->timeout_ms, 1000);
  EXPECT_EQ(settings->data_bits, 8);
  EXPECT_EQ(settings->parity, Parity::kNone);
  EXPECT_EQ(settings->stop_bits, 1);
  EXPECT_EQ(settings->flow_control, FlowControl::kNone);
  EXPECT_EQ(settings->terminator, "");
  EXPECT_EQ(settings->idle_disconnect_ms, 0);
}

TEST(PortSettingsTest, AcceptsEverySetting) {
  v1::OpenPortRequest request = Request();
  request.set_timeout_ms(0);
  request.set_data_bits(v1::DATA_BITS_SEVEN);
  request.set_parity(v1::PARITY_EVEN);
  request.set_stop_bits(v1::STOP_BITS_TWO);
  request.set_flow_control(v1::FLOW_CONTROL_HARDWARE);
  request.set_terminator("\r\n");
  request.set_idle_disconnect_ms(60000);
  auto settings = SettingsFromOpenRequest(request);
  ASSERT_TRUE(settings.ok()) << settings.status();
  EXPECT_EQ(settings->timeout_ms, 0);
  EXPECT_EQ(settings->data_bits, 7);
  EXPECT_EQ(settings->parity, Parity::kEven);
  EXPECT_EQ(settings->stop_bits, 2);
  EXPECT_EQ(settings->flow_control, FlowControl::kHardware);
  EXPECT_EQ(settings->terminator, "\r\n");
  EXPECT_EQ(settings->idle_disconnect_ms, 60000);

  v1::PortSettings proto;
  SettingsToProto(*settings, &proto);
  EXPECT_EQ(proto.data_bits(), v1::DATA_BITS_SEVEN);
  EXPECT_EQ(proto.parity(), v1::PARITY_EVEN);
  EXPECT_EQ(proto.stop_bits(), v1::STOP_BITS_TWO);
  EXPECT_EQ(proto.flow_control(), v1::FLOW_CONTROL_HARDWARE);
}

TEST(PortSettingsTest, RequiredFields) {
  v1::OpenPortRequest request = Request();
  request.clear_port_name();
  ExpectInvalid(SettingsFromOpenRequest(request).status(), "port_name", "loop://");
  request = Request();
  request.clear_baud_rate();
  ExpectInvalid(SettingsFromOpenRequest(request).status(), "baud_rate", "4000000");
}

TEST(PortSettingsTest, RejectsOutOfRangeNumbers) {
  v1::OpenPortRequest request = Request();
  request.set_baud_rate(4'000'001);
  ExpectInvalid(SettingsFromOpenRequest(request).status(), "baud_rate", "between 1 and 4000000");
  request.set_baud_rate(-5);
  ExpectInvalid(SettingsFromOpenRequest(request).status(), "baud_rate", "between 1 and 4000000");
  request = Request();
  request.set_timeout_ms(-1);
  ExpectInvalid(SettingsFromOpenRequest(request).status(), "timeout_ms", "between 0 and 600000");
  request = Request();
  request.set_idle_disconnect_ms(-1);
  ExpectInvalid(SettingsFromOpenRequest(request).status(), "idle_disconnect_ms", "0 (never)");
  ExpectInvalid(ValidateMaxBytes(0), "max_bytes", "between 1 and 65536");
  ExpectInvalid(ValidateMaxBytes(65537), "max_bytes", "between 1 and 65536");
  EXPECT_TRUE(ValidateMaxBytes(65536).ok());
}

TEST(PortSettingsTest, RejectsUnknownEnumNumbersListingTheAllowedValues) {
  v1::OpenPortRequest request = Request();
  request.set_data_bits(static_cast<v1::DataBits>(9));
  ExpectInvalid(SettingsFromOpenRequest(request).status(), "data_bits",
                "five, six, seven, eight (or 5, 6, 7, 8)");
  request = Request();
  request.set_parity(static_cast<v1::Parity>(7));
  ExpectInvalid(SettingsFromOpenRequest(request).status(), "parity", "none, odd, even");
  request = Request();
  request.set_stop_bits(static_cast<v1::StopBits>(3));
  ExpectInvalid(SettingsFromOpenRequest(request).status(), "stop_bits", "one, two (or 1, 2)");
  request = Request();
  request.set_flow_control(static_cast<v1::FlowControl>(4));
  ExpectInvalid(SettingsFromOpenRequest(request).status(), "flow_control",
                "none, hardware (rtscts), software (xonxoff)");
}

TEST(PortSettingsTest, ReconfigureChangesOnlyWhatIsGiven) {
  auto current = SettingsFromOpenRequest(Request());
  ASSERT_TRUE(current.ok());
  current->terminator = "\n";
  v1::ReconfigurePortRequest request;
  request.set_baud_rate(9600);
  request.set_parity(v1::PARITY_ODD);
  auto updated = ApplyReconfigure(*current, request);
  ASSERT_TRUE(updated.ok()) << updated.status();
  EXPECT_EQ(updated->baud_rate, 9600);
  EXPECT_EQ(updated->parity, Parity::kOdd);
  EXPECT_EQ(updated->terminator, "\n");
  EXPECT_EQ(updated->data_bits, 8);

  request.set_terminator("");
  updated = ApplyReconfigure(*current, request);
  ASSERT_TRUE(updated.ok());
  EXPECT_EQ(updated->terminator, "");

  request.set_baud_rate(0);
  ExpectInvalid(ApplyReconfigure(*current, request).status(), "baud_rate", "between 1");
}

// Appended after the limits check a write, a terminator must not be able to carry a command.
TEST(PortSettingsTest, ATerminatorIsAtMostFourControlCharacters) {
  const std::string allowed = "at most 4 control characters (bytes 0x00-0x1F";
  for (const std::string& bad :
       {std::string("\n:VOLT 30\n"), std::string(";"), std::string(" "), std::string("\r\n\r\n\r"),
        std::string("\x7f"), std::string("\n\x80")}) {
    v1::OpenPortRequest request = Request();
    request.set_terminator(bad);
    ExpectInvalid(SettingsFromOpenRequest(request).status(), "terminator", allowed);
  }
  v1::OpenPortRequest smuggling = Request();
  smuggling.set_terminator("\n:VOLT 30\n");
  ExpectInvalid(SettingsFromOpenRequest(smuggling).status(), "terminator must be empty or",
                "got \"\\n:VOLT 30\\n\"");
  for (const std::string& good :
       {std::string(""), std::string("\n"), std::string("\r\n"), std::string("\r\n\r\n"),
        std::string("\0", 1), std::string("\x1f")}) {
    v1::OpenPortRequest request = Request();
    request.set_terminator(good);
    auto settings = SettingsFromOpenRequest(request);
    ASSERT_TRUE(settings.ok()) << settings.status();
    EXPECT_EQ(settings->terminator, good);
  }

  auto current = SettingsFromOpenRequest(Request());
  ASSERT_TRUE(current.ok());
  v1::ReconfigurePortRequest reconfigure;
  reconfigure.set_terminator("\n:VOLT 30\n");
  ExpectInvalid(ApplyReconfigure(*current, reconfigure).status(), "terminator", allowed);
  reconfigure.set_terminator("VOLT");
  ExpectInvalid(ApplyReconfigure(*current, reconfigure).status(), "terminator", allowed);
  reconfigure.set_terminator("\r");
  auto updated = ApplyReconfigure(*current, reconfigure);
  ASSERT_TRUE(updated.ok()) << updated.status();
  EXPECT_EQ(updated->terminator, "\r");
}

}  // namespace
}  // namespace labgate::serial
