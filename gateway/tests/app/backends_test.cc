// Backends: embedded, the three services answer on in-process channels; given an address, a
// service is called over the network instead (here a real session service on 127.0.0.1).
#include "gateway/app/backends.h"

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <string>

#include "gateway/tests/temp_dir.h"
#include "labgate/actions/v1/actions.grpc.pb.h"
#include "labgate/serial/v1/serial.grpc.pb.h"
#include "labgate/session/v1/session.grpc.pb.h"
#include "session-service/session_service.h"

namespace labgate::gateway {
namespace {

namespace session_v1 = labgate::session::v1;
namespace actions_v1 = labgate::actions::v1;
namespace serial_v1 = labgate::serial::v1;

std::unique_ptr<grpc::ClientContext> Context() {
  auto context = std::make_unique<grpc::ClientContext>();
  context->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
  return context;
}

class BackendsTest : public ::testing::Test {
 protected:
  testing::TempDir temp_;
  const std::string& dir_ = temp_.path();
};

TEST_F(BackendsTest, EmbeddedServicesAnswerInProcess) {
  BackendOptions options;
  options.data_dir = dir_;
  auto backends = Backends::Start(options);
  ASSERT_TRUE(backends.ok()) << backends.status();

  actions_v1::ListActionsResponse actions;
  ASSERT_TRUE(actions_v1::ActionsService::NewStub((*backends)->actions_channel())
                  ->ListActions(Context().get(), {}, &actions)
                  .ok());
  EXPECT_EQ(actions.actions_size(), 10);

  session_v1::CreateSessionRequest create;
  create.set_device_id("dmm-embedded");
  session_v1::CreateSessionResponse created;
  ASSERT_TRUE(session_v1::SessionService::NewStub((*backends)->session_channel())
                  ->CreateSession(Context().get(), create, &created)
                  .ok());
  EXPECT_TRUE(std::filesystem::exists(std::filesystem::path(dir_) / "sessions.db"));

  serial_v1::OpenPortRequest open;
  open.set_port_name("loop://embedded");
  open.set_baud_rate(9600);
  serial_v1::OpenPortResponse opened;
  auto open_context = Context();
  open_context->AddMetadata("labgate-owner", "test");
  ASSERT_TRUE(serial_v1::SerialService::NewStub((*backends)->serial_channel())
                  ->OpenPort(open_context.get(), open, &opened)
                  .ok());

  // Embedded channels have no address; a reload without a policy file does nothing.
  EXPECT_EQ((*backends)->channels().AddressOf(session_v1::SessionService::service_full_name()), "");
  EXPECT_TRUE((*backends)->ReloadPolicy().ok());
  std::vector<std::string> tool_services;
  for (const auto* service : (*backends)->ToolServices()) {
    ASSERT_NE(service, nullptr);
    tool_services.push_back(service->full_name());
  }
  EXPECT_EQ(tool_services,
            (std::vector<std::string>{"labgate.serial.v1.SerialService",
                                      "labgate.session.v1.SessionService",
                                      "labgate.reservations.v1.ReservationService"}));

  // Shutdown stops the embedded services (and is idempotent; the destructor calls it again).
  // No call may follow it: gRPC 1.51's in-process transport crashes on a call made on a
  // channel whose server has shut down.
  (*backends)->Shutdown(std::chrono::seconds(2));
  (*backends)->Shutdown(std::chrono::seconds(2));
}

TEST_F(BackendsTest, AGivenAddressIsCalledOverTheNetwork) {
  auto remote = labgate::session::CreateSessionService({dir_ + "/remote"});
  ASSERT_TRUE(remote.ok()) << remote.status();
  auto host = ServiceHost::Start("127.0.0.1:0", {remote->get()});
  ASSERT_TRUE(host.ok()) << host.status();
  const std::string address = "127.0.0.1:" + std::to_string((*host)->port());

  BackendOptions options;
  options.data_dir = dir_ + "/unused";
  options.session_addr = address;
  auto backends = Backends::Start(options);
  ASSERT_TRUE(backends.ok()) << backends.status();
  EXPECT_EQ((*backends)->channels().AddressOf(session_v1::SessionService::service_full_name()),
            address);

  session_v1::CreateSessionRequest create;
  create.set_device_id("dmm-remote");
  session_v1::CreateSessionResponse created;
  ASSERT_TRUE(session_v1::SessionService::NewStub((*backends)->session_channel())
                  ->CreateSession(Context().get(), create, &created)
                  .ok());
  // The session is the remote service's: its own data dir has it, the unused one does not.
  EXPECT_TRUE(std::filesystem::exists(std::filesystem::path(dir_) / "remote" / "sessions.db"));
  EXPECT_FALSE(std::filesystem::exists(std::filesystem::path(dir_) / "unused" / "sessions.db"));

  backends->reset();
  (*remote)->FinishWatchStreams();
  (*host)->Shutdown(std::chrono::seconds(2));
  (*remote)->Shutdown();
}

TEST_F(BackendsTest, BenchesGetAChannelEach) {
  BackendOptions options;
  options.data_dir = dir_;
  options.serial_benches = {{"lab-a", "127.0.0.1:7001", nullptr},
                            {"lab-b", "127.0.0.1:7002", nullptr}};
  auto backends = Backends::Start(options);
  ASSERT_TRUE(backends.ok()) << backends.status();
  const SerialBenches* benches = (*backends)->channels().serial_benches();
  ASSERT_NE(benches, nullptr);
  ASSERT_EQ(benches->all().size(), 2u);
  EXPECT_NE(benches->all()[0].channel, nullptr);
  EXPECT_NE(benches->all()[0].channel, benches->all()[1].channel);
  // The first bench also answers what is not per bench.
  EXPECT_EQ((*backends)->serial_channel(), benches->all()[0].channel);
  EXPECT_EQ((*backends)->channels().AddressOf(serial_v1::SerialService::service_full_name()),
            "127.0.0.1:7001");
}

}  // namespace
}  // namespace labgate::gateway
