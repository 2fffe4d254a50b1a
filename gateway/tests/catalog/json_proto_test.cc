#include "gateway/catalog/json_proto.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "labgate/testing/catalog_test.pb.h"

namespace labgate::gateway {
namespace {

using labgate::testing::DataBits;
using labgate::testing::Everything;
using nlohmann::json;
using ::testing::HasSubstr;

Everything Parse(const json& input) {
  Everything message;
  absl::Status status = JsonToProto(input, &message);
  EXPECT_TRUE(status.ok()) << status;
  return message;
}

std::string ErrorOf(const json& input) {
  Everything message;
  absl::Status status = JsonToProto(input, &message);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << input.dump();
  return std::string(status.message());
}

TEST(JsonToProtoTest, ReadsScalarsNestedRepeatedAndMaps) {
  Everything m = Parse({{"port_name", "/dev/ttyUSB0"},
                        {"baud_rate", 115200},
                        {"big", 9007199254740993LL},
                        {"terminator", "\n"},
                        {"flag", true},
                        {"ratio", 0.5},
                        {"blob", "AAEC"},
                        {"inner", {{"label", "x"}, {"values", {1, 2, 3}}}},
                        {"inners", json::array({{{"label", "a"}}, {{"label", "b"}}})},
                        {"counts", {{"scpi", 3}, {"idn", 1}}},
                        {"extra", {{"k", "v"}, {"n", 2}}}});
  EXPECT_EQ(m.port_name(), "/dev/ttyUSB0");
  EXPECT_EQ(m.baud_rate(), 115200u);
  EXPECT_EQ(m.big(), 9007199254740993LL);
  EXPECT_TRUE(m.has_terminator());
  EXPECT_EQ(m.terminator(), "\n");
  EXPECT_TRUE(m.flag());
  EXPECT_DOUBLE_EQ(m.ratio(), 0.5);
  EXPECT_EQ(m.blob(), std::string("\x00\x01\x02", 3));
  EXPECT_THAT(m.inner().values(), ::testing::ElementsAre(1, 2, 3));
  ASSERT_EQ(m.inners_size(), 2);
  EXPECT_EQ(m.inners(1).label(), "b");
  EXPECT_EQ(m.counts().at("scpi"), 3);
  EXPECT_EQ(m.extra().fields().at("k").string_value(), "v");
}

TEST(JsonToProtoTest, AcceptsSeedEnumSpellings) {
  struct Case {
    json value;
    DataBits expected;
  };
  for (const Case& c : std::vector<Case>{{"eight", labgate::testing::DATA_BITS_EIGHT},
                                         {"EIGHT", labgate::testing::DATA_BITS_EIGHT},
                                         {8, labgate::testing::DATA_BITS_EIGHT},
                                         {"8", labgate::testing::DATA_BITS_EIGHT},
                                         {"DATA_BITS_SEVEN", labgate::testing::DATA_BITS_SEVEN},
                                         {"Seven", labgate::testing::DATA_BITS_SEVEN}}) {
    EXPECT_EQ(Parse({{"data_bits", c.value}}).data_bits(), c.expected) << c.value.dump();
  }
  EXPECT_EQ(Parse({{"flow_control", "rtscts"}}).flow_control(),
            labgate::testing::FLOW_CONTROL_HARDWARE);
  EXPECT_EQ(Parse({{"flow_control", "XonXoff"}}).flow_control(),
            labgate::testing::FLOW_CONTROL_SOFTWARE);
  EXPECT_EQ(Parse({{"flow_control", "hardware"}}).flow_control(),
            labgate::testing::FLOW_CONTROL_HARDWARE);
}

TEST(JsonToProtoTest, BadEnumNamesTheFieldAndTheAllowedValues) {
  std::string error = ErrorOf({{"flow_control", "maybe"}});
  EXPECT_THAT(error, HasSubstr("flow_control"));
  EXPECT_THAT(error, HasSubstr("'maybe'"));
  EXPECT_THAT(error, HasSubstr("none, hardware, software"));
  EXPECT_THAT(ErrorOf({{"data_bits", 9}}), HasSubstr("invalid value 9"));
}

TEST(JsonToProtoTest, UnknownFieldIsRejectedByName) {
  std::string error = ErrorOf({{"port_name", "x"}, {"bogus", 1}});
  EXPECT_THAT(error, HasSubstr("unknown field 'bogus'"));
  EXPECT_THAT(error, HasSubstr("port_name"));
  EXPECT_THAT(ErrorOf({{"inner", {{"nope", 1}}}}), HasSubstr("unknown field 'inner.nope'"));
}

TEST(JsonToProtoTest, WrongTypesNameTheField) {
  EXPECT_THAT(ErrorOf({{"baud_rate", "fast"}}), HasSubstr("field 'baud_rate'"));
  EXPECT_THAT(ErrorOf({{"baud_rate", -1}}), HasSubstr("out of range"));
  EXPECT_THAT(ErrorOf({{"baud_rate", 1.5}}), HasSubstr("expected an integer"));
  EXPECT_THAT(ErrorOf({{"limit", 4294967296LL}}), HasSubstr("out of range"));
  EXPECT_THAT(ErrorOf({{"port_name", 7}}), HasSubstr("expected a string"));
  EXPECT_THAT(ErrorOf({{"flag", "yes"}}), HasSubstr("expected a boolean"));
  EXPECT_THAT(ErrorOf({{"inners", {{"label", "x"}}}}), HasSubstr("field 'inners'"));
  EXPECT_THAT(ErrorOf({{"inner", {{"values", {1, "two"}}}}}), HasSubstr("inner.values[1]"));
  EXPECT_THAT(ErrorOf({{"blob", "!!not base64!!"}}), HasSubstr("base64"));
  EXPECT_THAT(ErrorOf(json::array()), HasSubstr("must be an object"));
  EXPECT_THAT(ErrorOf({{"choice_text", "a"}, {"choice_number", 1}}), HasSubstr("only one"));
}

TEST(JsonToProtoTest, IntegralFloatsBeyondA64BitRangeAreRefusedNotOverflowed) {
  // 2^63, one past int64's maximum (found by fuzz_json_proto: the cast was undefined).
  EXPECT_THAT(ErrorOf({{"big", 9223372036854775808.0}}), HasSubstr("out of range"));
  EXPECT_THAT(ErrorOf({{"big", -9223372036854777856.0}}), HasSubstr("out of range"));
  EXPECT_EQ(Parse({{"big", 9223372036854774784.0}}).big(), 9223372036854774784LL);
  EXPECT_EQ(Parse({{"big", -9223372036854775808.0}}).big(), INT64_MIN);
  EXPECT_THAT(ErrorOf({{"baud_rate", 4294967296.0}}), HasSubstr("out of range"));
  EXPECT_EQ(Parse({{"baud_rate", 4294967295.0}}).baud_rate(), 4294967295u);
}

TEST(JsonToProtoTest, NullLeavesAFieldUnsetAndIntegralFloatsAreIntegers) {
  Everything m = Parse({{"terminator", nullptr}, {"baud_rate", 9600.0}, {"big", "12"}});
  EXPECT_FALSE(m.has_terminator());
  EXPECT_EQ(m.baud_rate(), 9600u);
  EXPECT_EQ(m.big(), 12);
}

TEST(JsonToProtoTest, DeepNestingIsRefusedNotOverflowed) {
  json deep = {{"name", "leaf"}};
  for (int i = 0; i < 200; ++i) deep = {{"child", deep}};
  labgate::testing::Nested message;
  absl::Status status = JsonToProto(deep, &message);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()), HasSubstr("nested too deeply"));
}

TEST(ProtoToJsonTest, PrintsDefaultsProtoNamesNumbersAndEnumNames) {
  Everything m;
  m.set_big(9007199254740991LL);
  m.set_data_bits(labgate::testing::DATA_BITS_EIGHT);
  m.set_flow_control(labgate::testing::FLOW_CONTROL_HARDWARE);
  m.set_blob(std::string("\x00\x01", 2));
  (*m.mutable_counts())["scpi"] = 2;
  json out = ProtoToJson(m);
  EXPECT_EQ(out["port_name"], "");  // default printed
  EXPECT_EQ(out["baud_rate"], 0);   // default printed
  EXPECT_TRUE(out["big"].is_number_integer());
  EXPECT_EQ(out["big"].get<int64_t>(), 9007199254740991LL);
  EXPECT_EQ(out["data_bits"], "eight");
  EXPECT_EQ(out["flow_control"], "hardware");
  EXPECT_EQ(out["blob"], "AAE=");
  EXPECT_EQ(out["counts"]["scpi"], 2);
  EXPECT_EQ(out["inners"], json::array());
  EXPECT_FALSE(out.contains("terminator"));  // optional and unset
  EXPECT_FALSE(out.contains("inner"));       // message and unset
  EXPECT_FALSE(out.contains("choice_text"));
}

TEST(ProtoToJsonTest, RoundTripsThroughJsonToProto) {
  json input = {{"port_name", "loop://"},
                {"baud_rate", 9600},
                {"big", 42},
                {"terminator", "\r\n"},
                {"data_bits", "seven"},
                {"flow_control", "software"},
                {"flag", true},
                {"ratio", 1.25},
                {"blob", "AP8="},
                {"inner", {{"label", "l"}, {"values", {5}}}},
                {"inners", json::array()},
                {"counts", {{"a", 1}}},
                {"extra", {{"x", true}}},
                {"limit", 7},
                {"choice_number", 3}};
  Everything first = Parse(input);
  json printed = ProtoToJson(first);
  Everything second = Parse(printed);
  EXPECT_EQ(first.SerializeAsString(), second.SerializeAsString());
  EXPECT_EQ(printed["choice_number"], 3);
  EXPECT_EQ(printed["extra"]["x"], true);
}

}  // namespace
}  // namespace labgate::gateway
