// BackendReply: a reply kept as its message gives the text, the members and the document that
// converting the message to a JSON document first would give.
#include "gateway/backends/backend_reply.h"

#include <gtest/gtest.h>

#include <memory>

#include "gateway/catalog/json_proto.h"
#include "labgate/serial/v1/serial.pb.h"

namespace labgate::gateway {
namespace {

namespace pb = labgate::serial::v1;
using nlohmann::json;

std::string Dump(const json& document) {
  return document.dump(-1, ' ', false, json::error_handler_t::replace);
}

pb::GetStatusResponse OpenPortStatus() {
  pb::GetStatusResponse status;
  status.set_status(pb::PORT_STATE_OPEN);
  status.set_port_name("loop://bench \"A\"");
  status.add_open_ports("loop://bench \"A\"");
  status.add_open_ports("/dev/ttyUSB0");
  status.set_owner("http:alice");
  status.set_records_pending(3);
  status.mutable_settings()->set_baud_rate(115200);
  status.mutable_policy()->set_match("/dev/tty*");
  status.mutable_policy()->add_confirm_rules("power");
  status.set_instrument("psu-1 \xc3\xa9\xff");  // UTF-8, then a byte that is not
  return status;
}

BackendReply FromMessage(const google::protobuf::Message& message) {
  std::shared_ptr<google::protobuf::Message> kept(message.New());
  kept->CopyFrom(message);
  return BackendReply(std::shared_ptr<const google::protobuf::Message>(std::move(kept)));
}

TEST(BackendReplyTest, AMessagesTextIsItsDocumentsText) {
  const pb::GetStatusResponse status = OpenPortStatus();
  const BackendReply reply = FromMessage(status);
  EXPECT_EQ(reply.Text(), Dump(ProtoToJson(status)));
  EXPECT_EQ(reply.document(), ProtoToJson(status));
  EXPECT_EQ(reply.Text(), Dump(reply.document())) << "the same once the document is built";
}

TEST(BackendReplyTest, AMessagesMembersAreItsDocumentsMembers) {
  const pb::GetStatusResponse status = OpenPortStatus();
  const BackendReply reply = FromMessage(status);
  const json document = ProtoToJson(status);
  for (const char* name : {"status", "port_name", "open_ports", "owner", "records_pending",
                           "settings", "policy", "instrument", "owned_by_caller"}) {
    EXPECT_EQ(reply.Member(name), document[name]) << name;
  }
  EXPECT_TRUE(reply.Member("device_path").is_null()) << "a field with presence left unset";
  EXPECT_TRUE(reply.Member("no_such_field").is_null());
}

TEST(BackendReplyTest, AnAutoCloseReadNamesItsEventAndIdleTime) {
  pb::ReadResponse read;
  read.set_port_name("loop://idle");
  read.set_event("auto_close");
  read.set_idle_ms(250);
  const BackendReply reply = FromMessage(read);
  EXPECT_EQ(reply.Member("event"), "auto_close");
  EXPECT_EQ(reply.Member("idle_ms"), 250);
  EXPECT_TRUE(reply.Member("reason").is_null());
}

TEST(BackendReplyTest, AnEditedDocumentIsWhatTheTextAndMembersSay) {
  BackendReply reply = FromMessage(OpenPortStatus());
  reply.mutable_document()["port_name"] = "bench-a:/dev/ttyUSB0";
  EXPECT_EQ(reply.Member("port_name"), "bench-a:/dev/ttyUSB0");
  EXPECT_NE(reply.Text().find(R"("port_name":"bench-a:/dev/ttyUSB0")"), std::string::npos)
      << reply.Text();
}

TEST(BackendReplyTest, ADocumentIsKeptAsGiven) {
  const json merged = {{"ports", json::array({{{"port_name", "a:loop://"}}})},
                       {"unreachable_benches", json::array()}};
  const BackendReply reply(merged);
  EXPECT_EQ(reply.Text(), Dump(merged));
  EXPECT_EQ(reply.document(), merged);
  EXPECT_EQ(reply.Member("ports"), merged["ports"]);
  EXPECT_TRUE(reply.Member("port_name").is_null());
}

}  // namespace
}  // namespace labgate::gateway
