// The direct conversion of google.protobuf.Struct, Value and ListValue must give exactly
// what protobuf's JSON text gives (the path it replaced, still the fallback): the same
// messages from JSON, the same JSON (number kinds included) from messages, the same errors.
#include "gateway/catalog/well_known_json.h"

#include <google/protobuf/struct.pb.h>
#include <google/protobuf/text_format.h>
#include <google/protobuf/timestamp.pb.h>
#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace labgate::gateway {
namespace {

using google::protobuf::ListValue;
using google::protobuf::Struct;
using google::protobuf::Value;
using nlohmann::json;

// Equal as JSON values and in every number's kind (integer, unsigned, float).
void ExpectSameJson(const json& got, const json& want, const std::string& where) {
  ASSERT_EQ(got.type(), want.type()) << where << ": " << got.dump() << " vs " << want.dump();
  if (got.is_object()) {
    ASSERT_EQ(got.size(), want.size()) << where;
    for (auto it = want.begin(); it != want.end(); ++it) {
      ASSERT_TRUE(got.contains(it.key())) << where << "." << it.key();
      ExpectSameJson(got.at(it.key()), it.value(), where + "." + it.key());
    }
  } else if (got.is_array()) {
    ASSERT_EQ(got.size(), want.size()) << where;
    for (size_t i = 0; i < got.size(); ++i) {
      ExpectSameJson(got[i], want[i], where + "[" + std::to_string(i) + "]");
    }
  } else if (got.is_number_float()) {
    const double a = got.get<double>();
    const double b = want.get<double>();
    EXPECT_TRUE((std::isnan(a) && std::isnan(b)) || (a == b && std::signbit(a) == std::signbit(b)))
        << where << ": " << a << " vs " << b;
  } else if (!got.is_discarded()) {
    EXPECT_EQ(got, want) << where;
  }
}

// Both ways from JSON into a fresh message of type M: same status, same message.
template <typename M>
void ExpectSameFromJson(const json& input) {
  M direct;
  M via_text;
  const absl::Status a = WellKnownFromJson(input, &direct, "field");
  const absl::Status b = WellKnownFromJsonViaText(input, &via_text, "field");
  EXPECT_EQ(a, b) << input.dump();
  if (a.ok() && b.ok()) {
    EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(direct, via_text))
        << input.dump() << "\n"
        << direct.DebugString() << "\nvs\n"
        << via_text.DebugString();
  }
}

template <typename M>
void ExpectSameToJson(const M& message) {
  ExpectSameJson(WellKnownToJson(message), WellKnownToJsonViaText(message),
                 message.ShortDebugString());
}

Value Number(double number) {
  Value value;
  value.set_number_value(number);
  return value;
}

std::vector<double> EdgeNumbers() {
  return {0.0,
          -0.0,
          1,
          -1,
          0.5,
          0.1,
          1.0 / 3,
          2.5e-8,
          1e-7,
          123456789012345.0,
          999999999999999.0,
          999999999999999.9,
          1e15,
          -1e15,
          1e15 + 1,
          1e16,
          9007199254740992.0,
          9007199254740993.0,
          123456789012345678.0,
          1e17,
          1.8446744073709552e19,
          1e21,
          1e300,
          -1e300,
          5e-324,
          std::numeric_limits<double>::max(),
          std::numeric_limits<double>::lowest(),
          std::numeric_limits<double>::min(),
          std::numeric_limits<double>::epsilon(),
          std::numeric_limits<double>::quiet_NaN(),
          std::numeric_limits<double>::infinity(),
          -std::numeric_limits<double>::infinity()};
}

TEST(WellKnownJsonTest, NumbersPrintAsProtobufPrintsThem) {
  for (double number : EdgeNumbers()) ExpectSameToJson(Number(number));
  Struct with_numbers;
  for (double number : EdgeNumbers()) {
    (*with_numbers.mutable_fields())[std::to_string(number)] = Number(number);
  }
  ExpectSameToJson(with_numbers);
}

TEST(WellKnownJsonTest, NumbersReadAsProtobufReadsThem) {
  std::vector<json> numbers = {0,
                               -0,
                               1,
                               -1,
                               json(static_cast<uint64_t>(18446744073709551615ULL)),
                               json(static_cast<int64_t>(-9223372036854775807LL - 1)),
                               9007199254740993LL,
                               9007199254740993ULL,
                               0.5,
                               -0.0,
                               0.1,
                               1e300,
                               5e-324,
                               123456789012345678.0,
                               std::numeric_limits<double>::quiet_NaN(),
                               std::numeric_limits<double>::infinity()};
  for (const json& number : numbers) {
    ExpectSameFromJson<Value>(number);
    ExpectSameFromJson<Struct>(json{{"n", number}});
    ExpectSameFromJson<ListValue>(json::array({number}));
  }
}

TEST(WellKnownJsonTest, EveryKindOfValueBothWays) {
  const json document = json::parse(R"({
    "null": null, "yes": true, "no": false, "int": 42, "neg": -7, "float": 2.75,
    "text": "h\u00e9llo \"quoted\" \\ \n\t\u0001 \u4e2d \ud83d\ude00",
    "empty_text": "", "empty_list": [], "empty_object": {},
    "list": [1, "two", null, [3, [4, {"five": 5}]], {"six": [6]}],
    "nested": {"a": {"b": {"c": {"d": [true, false, null]}}}},
    "": "empty key", "k\u00e9y": "unicode key"
  })");
  ExpectSameFromJson<Struct>(document);
  ExpectSameFromJson<Value>(document);
  ExpectSameFromJson<ListValue>(json::array({document, document["list"], 1, "x"}));
  ExpectSameFromJson<Value>(json("just text"));
  ExpectSameFromJson<Value>(json(nullptr));
  ExpectSameFromJson<Value>(json::array());

  Struct message;
  ASSERT_TRUE(WellKnownFromJson(document, &message, "").ok());
  ExpectSameToJson(message);
  for (const auto& [key, value] : message.fields()) {
    (void)key;
    ExpectSameToJson(value);
  }
  ExpectSameToJson(message.fields().at("list").list_value());
  ExpectSameToJson(Struct());
  ExpectSameToJson(ListValue());
}

TEST(WellKnownJsonTest, WrongShapesFailAsProtobufFailsThem) {
  for (const json& input : {json::array(), json("x"), json(1), json(true), json(nullptr)}) {
    ExpectSameFromJson<Struct>(input);
  }
  for (const json& input : {json::object(), json("x"), json(1), json(nullptr)}) {
    ExpectSameFromJson<ListValue>(input);
  }
  Struct message;
  const absl::Status status = WellKnownFromJson(json::array(), &message, "arguments.input");
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(),
            "field 'arguments.input': not a valid google.protobuf.Struct: : Root element must be "
            "a message.");
}

TEST(WellKnownJsonTest, ValuesOnlyProtobufCanSpellGoThroughIt) {
  // Text that is not UTF-8, deep nesting, and a Value without a kind.
  json bad_text = json::object();
  bad_text["k"] = std::string("bad \xff\xfe");
  bad_text[std::string("key \xc3")] = 1;
  ExpectSameFromJson<Struct>(bad_text);
  json deep = 1;
  for (int i = 0; i < 60; ++i) deep = json::array({deep});
  ExpectSameFromJson<Value>(deep);
  json deeper = 1;
  for (int i = 0; i < 200; ++i) deeper = json{{"k", deeper}};
  ExpectSameFromJson<Struct>(deeper);

  Struct odd;
  (*odd.mutable_fields())["text"].set_string_value("bad \xff");
  (*odd.mutable_fields())["kindless"];
  ExpectSameToJson(odd);
  ExpectSameToJson(Value());
  Struct nested = odd;
  for (int i = 0; i < 40; ++i) {
    Struct outer;
    *(*outer.mutable_fields())["inner"].mutable_struct_value() = nested;
    nested = outer;
  }
  ExpectSameToJson(nested);
}

TEST(WellKnownJsonTest, OtherWellKnownTypesKeepProtobufsSpelling) {
  google::protobuf::Timestamp timestamp;
  ASSERT_TRUE(WellKnownFromJson(json("2026-11-22T10:00:00.5Z"), &timestamp, "at").ok());
  EXPECT_EQ(timestamp.seconds(), 1795341600);
  EXPECT_EQ(WellKnownToJson(timestamp), json("2026-11-22T10:00:00.500Z"));
  EXPECT_EQ(WellKnownFromJson(json(5), &timestamp, "at").code(),
            absl::StatusCode::kInvalidArgument);
}

// Random documents of every kind, nested, both ways.
json RandomJson(std::mt19937& random, int depth) {
  const int kind = static_cast<int>(random() % (depth > 4 ? 6 : 8));
  switch (kind) {
    case 0:
      return nullptr;
    case 1:
      return random() % 2 == 0;
    case 2:
      return static_cast<int64_t>(random()) - (1LL << 31);
    case 3:
      return static_cast<uint64_t>(random()) << (random() % 33);
    case 4: {
      const double mantissa = static_cast<double>(random()) / 4294967296.0;
      return std::ldexp(random() % 2 == 0 ? mantissa : -mantissa,
                        static_cast<int>(random() % 140) - 70);
    }
    case 5: {
      static const char* kTexts[] = {"",   "a",           "h\u00e9", "\"q\"",
                                     "\\", "line\nbreak", "\x01",    "\xe4\xb8\xad"};
      return kTexts[random() % 8];
    }
    case 6: {
      json list = json::array();
      for (int i = static_cast<int>(random() % 4); i > 0; --i) {
        list.push_back(RandomJson(random, depth + 1));
      }
      return list;
    }
    default: {
      json object = json::object();
      for (int i = static_cast<int>(random() % 4); i > 0; --i) {
        object["k" + std::to_string(random() % 10)] = RandomJson(random, depth + 1);
      }
      return object;
    }
  }
}

TEST(WellKnownJsonTest, RandomDocumentsAgreeBothWays) {
  std::mt19937 random(20261122);
  for (int i = 0; i < 500; ++i) {
    const json document = RandomJson(random, 0);
    ExpectSameFromJson<Value>(document);
    Value value;
    ASSERT_TRUE(WellKnownFromJson(document, &value, "").ok());
    ExpectSameToJson(value);
    if (document.is_object()) ExpectSameFromJson<Struct>(document);
    if (document.is_array()) ExpectSameFromJson<ListValue>(document);
  }
}

}  // namespace
}  // namespace labgate::gateway
