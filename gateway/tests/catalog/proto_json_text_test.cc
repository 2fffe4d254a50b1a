// AppendProtoJsonText writes exactly what ProtoToJson(...).dump() writes, for every field kind
// (the test proto's AllKinds and Everything) and for every message of labgate's own serial,
// session, reservation and task APIs, each filled many times at random: strings with quotes,
// control characters, non-ASCII and invalid UTF-8; integers at their limits; NaN, infinities
// and -0.0; unknown enum numbers; maps with every key kind; nested and repeated messages; and
// the well-known types.
#include "gateway/catalog/proto_json_text.h"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/dynamic_message.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "gateway/catalog/json_proto.h"
#include "gateway/catalog/well_known_json.h"
#include "labgate/reservations/v1/reservations.pb.h"
#include "labgate/serial/v1/serial.pb.h"
#include "labgate/session/v1/session.pb.h"
#include "labgate/tasks/v1/tasks.pb.h"
#include "labgate/testing/catalog_test.pb.h"

namespace labgate::gateway {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::MessageFactory;
using google::protobuf::Reflection;
using nlohmann::json;

std::string Document(const Message& message) {
  return ProtoToJson(message).dump(-1, ' ', false, json::error_handler_t::replace);
}
std::string Text(const Message& message) {
  std::string out;
  AppendProtoJsonText(message, &out);
  return out;
}

class Filler {
 public:
  explicit Filler(uint32_t seed) : random_(seed) {}

  void Fill(Message* message, int depth) {
    const Descriptor* descriptor = message->GetDescriptor();
    for (int i = 0; i < descriptor->field_count(); ++i) {
      const FieldDescriptor* field = descriptor->field(i);
      if (Pick(3) == 0) continue;  // left unset
      if (field->is_repeated()) {
        const int count = Pick(4);
        for (int j = 0; j < count; ++j) Add(message, field, depth);
      } else {
        Set(message, field, depth);
      }
    }
  }

 private:
  int Pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(random_); }

  std::string AString() {
    static const char* const kTexts[] = {"",
                                         "plain",
                                         "quote \" and back\\slash",
                                         "ctrl \x01\x1f\n\t\r\b\f",
                                         "h\xc3\xa9llo \xe2\x98\x83",
                                         "bad \xff\xfe utf8",
                                         "del \x7f",
                                         "/slash",
                                         "\xf0\x9f\x94\x8c plug",
                                         "MEAS:VOLT?\r\n",
                                         "C:\\lab\\psu",
                                         "say \"hi\""};
    return kTexts[Pick(12)];
  }
  double ADouble() {
    static const double kValues[] = {0.0,
                                     -0.0,
                                     0.1,
                                     3.0,
                                     -2.5e-300,
                                     1e300,
                                     std::numeric_limits<double>::quiet_NaN(),
                                     std::numeric_limits<double>::infinity(),
                                     -std::numeric_limits<double>::infinity(),
                                     123456.789};
    return kValues[Pick(10)];
  }
  int64_t AnInteger(int64_t low, int64_t high) {
    switch (Pick(4)) {
      case 0:
        return low;
      case 1:
        return high;
      case 2:
        return 0;
      default:
        return std::uniform_int_distribution<int64_t>(low, high)(random_);
    }
  }

  // A well-known type's value, by way of its JSON.
  void FillWellKnown(Message* message) {
    static const char* const kJson[] = {R"({"a":1,"b":[true,null,"x\"y"],"c":{"d":2.5}})",
                                        R"({})",
                                        R"("text")",
                                        R"(7)",
                                        R"([1,"two",{"three":3}])",
                                        R"(null)"};
    for (int attempt = 0; attempt < 6; ++attempt) {
      if (JsonToProto(json::parse(kJson[Pick(6)]), message).ok()) return;
    }
  }

  void Set(Message* message, const FieldDescriptor* field, int depth) {
    const Reflection* r = message->GetReflection();
    switch (field->cpp_type()) {
      case FieldDescriptor::CPPTYPE_INT32:
        return r->SetInt32(message, field, static_cast<int32_t>(AnInteger(INT32_MIN, INT32_MAX)));
      case FieldDescriptor::CPPTYPE_INT64:
        return r->SetInt64(message, field, AnInteger(INT64_MIN, INT64_MAX));
      case FieldDescriptor::CPPTYPE_UINT32:
        return r->SetUInt32(message, field, static_cast<uint32_t>(AnInteger(0, UINT32_MAX)));
      case FieldDescriptor::CPPTYPE_UINT64:
        return r->SetUInt64(message, field,
                            Pick(2) ? UINT64_MAX : static_cast<uint64_t>(AnInteger(0, INT64_MAX)));
      case FieldDescriptor::CPPTYPE_DOUBLE:
        return r->SetDouble(message, field, ADouble());
      case FieldDescriptor::CPPTYPE_FLOAT:
        return r->SetFloat(message, field, static_cast<float>(ADouble()));
      case FieldDescriptor::CPPTYPE_BOOL:
        return r->SetBool(message, field, Pick(2) == 1);
      case FieldDescriptor::CPPTYPE_STRING:
        return r->SetString(message, field, AString());
      case FieldDescriptor::CPPTYPE_ENUM: {
        const auto* type = field->enum_type();
        const bool unknown = Pick(5) == 0 && field->file()->syntax() ==
                                                 google::protobuf::FileDescriptor::SYNTAX_PROTO3;
        return r->SetEnumValue(message, field,
                               unknown ? 77 : type->value(Pick(type->value_count()))->number());
      }
      case FieldDescriptor::CPPTYPE_MESSAGE: {
        if (depth > 3) return;
        Message* child = r->MutableMessage(message, field);
        if (IsWellKnownType(field->message_type())) return FillWellKnown(child);
        return Fill(child, depth + 1);
      }
    }
  }

  void Add(Message* message, const FieldDescriptor* field, int depth) {
    const Reflection* r = message->GetReflection();
    switch (field->cpp_type()) {
      case FieldDescriptor::CPPTYPE_INT32:
        return r->AddInt32(message, field, static_cast<int32_t>(AnInteger(-5, 5)));
      case FieldDescriptor::CPPTYPE_INT64:
        return r->AddInt64(message, field, AnInteger(INT64_MIN, INT64_MAX));
      case FieldDescriptor::CPPTYPE_UINT32:
        return r->AddUInt32(message, field, static_cast<uint32_t>(AnInteger(0, 9)));
      case FieldDescriptor::CPPTYPE_UINT64:
        return r->AddUInt64(message, field, static_cast<uint64_t>(AnInteger(0, 9)));
      case FieldDescriptor::CPPTYPE_DOUBLE:
        return r->AddDouble(message, field, ADouble());
      case FieldDescriptor::CPPTYPE_FLOAT:
        return r->AddFloat(message, field, static_cast<float>(ADouble()));
      case FieldDescriptor::CPPTYPE_BOOL:
        return r->AddBool(message, field, Pick(2) == 1);
      case FieldDescriptor::CPPTYPE_STRING:
        return r->AddString(message, field, AString());
      case FieldDescriptor::CPPTYPE_ENUM: {
        const auto* type = field->enum_type();
        return r->AddEnumValue(message, field, type->value(Pick(type->value_count()))->number());
      }
      case FieldDescriptor::CPPTYPE_MESSAGE: {
        if (depth > 3) return;
        Message* child = r->AddMessage(message, field);
        if (IsWellKnownType(field->message_type())) return FillWellKnown(child);
        return Fill(child, depth + 1);  // map entries too: key and value at random
      }
    }
  }

  std::mt19937 random_;
};

// Every message of the files that hold these messages' types.
std::vector<const Descriptor*> MessagesOf(const std::vector<const Descriptor*>& anchors) {
  std::vector<const Descriptor*> all;
  for (const Descriptor* anchor : anchors) {
    const auto* file = anchor->file();
    for (int i = 0; i < file->message_type_count(); ++i) all.push_back(file->message_type(i));
  }
  return all;
}

TEST(ProtoJsonTextTest, WritesWhatTheDocumentWritesForEveryFieldKindAndEveryApiMessage) {
  const std::vector<const Descriptor*> messages =
      MessagesOf({labgate::testing::AllKinds::descriptor(),
                  labgate::serial::v1::GetStatusResponse::descriptor(),
                  labgate::session::v1::Session::descriptor(),
                  labgate::reservations::v1::Reservation::descriptor(),
                  labgate::tasks::v1::TaskState::descriptor()});
  ASSERT_GT(messages.size(), 50u);
  int compared = 0;
  for (const Descriptor* descriptor : messages) {
    const Message* prototype = MessageFactory::generated_factory()->GetPrototype(descriptor);
    ASSERT_NE(prototype, nullptr) << descriptor->full_name();
    EXPECT_EQ(Text(*prototype), Document(*prototype)) << descriptor->full_name() << " (empty)";
    for (uint32_t seed = 1; seed <= 40; ++seed) {
      std::unique_ptr<Message> message(prototype->New());
      Filler(seed * 7919 + static_cast<uint32_t>(compared)).Fill(message.get(), 0);
      ASSERT_EQ(Text(*message), Document(*message))
          << descriptor->full_name() << " seed " << seed << ": " << message->ShortDebugString();
      ++compared;
    }
  }
  EXPECT_GT(compared, 2000);
}

TEST(ProtoJsonTextTest, KeysComeInNameOrderAndMapsInKeyOrder) {
  labgate::testing::AllKinds message;
  message.set_i32(1);
  (*message.mutable_m_text())["b"] = "2";
  (*message.mutable_m_text())["a"] = "1";
  (*message.mutable_m_flag())[true] = 1;
  (*message.mutable_m_flag())[false] = 0;
  const std::string text = Text(message);
  EXPECT_EQ(text, Document(message));
  EXPECT_NE(text.find(R"("m_flag":{"false":0,"true":1})"), std::string::npos) << text;
  EXPECT_NE(text.find(R"("m_text":{"a":"1","b":"2"})"), std::string::npos) << text;
  EXPECT_LT(text.find("\"i32\""), text.find("\"m_text\""));
}

}  // namespace
}  // namespace labgate::gateway
