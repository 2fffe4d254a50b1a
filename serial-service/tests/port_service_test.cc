// PortService on its own, without gRPC: ownership, closing, the transfer limits and the
// parameters of a read, on loop:// ports; and an open that outlives its owner's Lease.
#include "serial-service/port_service.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <future>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/synchronization/notification.h"
#include "serial-service/ports/port_settings.h"
#include "serial-service/tests/test_util.h"

namespace labgate::serial {
namespace {

using testing::Await;
using testing::FakeClock;

class PortServiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    PortServiceOptions options;
    options.clock = &clock_;
    absl::StatusOr<std::unique_ptr<PortService>> created = PortService::Create(options);
    ASSERT_TRUE(created.ok()) << created.status();
    service_ = *std::move(created);
  }

  absl::StatusOr<PortSettings> Open(const std::string& owner, const std::string& name,
                                    const std::string& session_id = "") {
    PortSettings settings;
    settings.baud_rate = 115200;
    settings.timeout_ms = 250;
    settings.session_id = session_id;
    return Await<absl::StatusOr<PortSettings>>(
        [&](std::function<void(absl::StatusOr<PortSettings>)> done) {
          service_->OpenPort(owner, name, settings, std::move(done));
        });
  }
  absl::StatusOr<PortService::CloseOutcome> Close(const std::string& owner,
                                                  std::optional<std::string> name) {
    return Await<absl::StatusOr<PortService::CloseOutcome>>(
        [&](std::function<void(absl::StatusOr<PortService::CloseOutcome>)> done) {
          service_->ClosePort(owner, name, std::move(done));
        });
  }

  FakeClock clock_;
  std::unique_ptr<PortService> service_;
};

TEST_F(PortServiceTest, AnotherOwnersPortIsRefusedButMayBeObserved) {
  ASSERT_TRUE(Open("alice", "loop://a").ok());
  auto mine = service_->CallersPort("alice", std::string("loop://a"));
  ASSERT_TRUE(mine.ok()) << mine.status();
  EXPECT_EQ((*mine)->owner(), "alice");
  auto theirs = service_->CallersPort("bob", std::string("loop://a"));
  EXPECT_EQ(theirs.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(std::string(theirs.status().message()),
            "port loop://a is in use by another client (held by alice)");
  auto observed = service_->ObservedPort("bob", std::string("loop://a"));
  ASSERT_TRUE(observed.ok());
  ASSERT_NE(*observed, nullptr);
  EXPECT_EQ((*observed)->name(), "loop://a");
  // With no name, an observer without ports of its own looks at none.
  auto none = service_->ObservedPort("bob", std::nullopt);
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(*none, nullptr);
}

TEST_F(PortServiceTest, ClosingChecksTheOwnerAndIsIdempotent) {
  ASSERT_TRUE(Open("alice", "loop://a").ok());
  auto refused = Close("bob", std::string("loop://a"));
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(std::string(refused.status().message()),
            "port loop://a is in use by another client (held by alice)");
  auto closed = Close("alice", std::nullopt);  // her only port
  ASSERT_TRUE(closed.ok()) << closed.status();
  EXPECT_EQ(closed->status, "closed");
  EXPECT_EQ(closed->port_name, "loop://a");
  auto again = Close("alice", std::string("loop://a"));
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->status, "already closed");
  EXPECT_EQ(again->port_name, "loop://a");
}

TEST_F(PortServiceTest, BindingASessionNeedsASessionService) {
  auto opened = Open("alice", "loop://a", "session-1");
  EXPECT_EQ(opened.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(std::string(opened.status().message()),
            "session_id given, but this labgate-serial has no session service to record to "
            "(start it with --session-addr)");
  EXPECT_TRUE(service_->OpenPortNames().empty());
}

TEST_F(PortServiceTest, WritesAndQueriesAreCheckedBeforeTheyReachThePort) {
  ASSERT_TRUE(Open("alice", "loop://a").ok());
  auto port = service_->CallersPort("alice", std::nullopt);
  ASSERT_TRUE(port.ok());
  const std::string too_long(kMaxTransferBytes + 1, 'x');
  auto wrote = Await<absl::StatusOr<WriteResult>>(
      [&](std::function<void(absl::StatusOr<WriteResult>)> done) {
        service_->Write("alice", **port, too_long, TransferOptions(), std::move(done));
      });
  EXPECT_EQ(wrote.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(std::string(wrote.status().message()),
            "data is 65537 bytes; write takes at most 65536 bytes per call");
  auto empty = Await<absl::StatusOr<QueryResult>>(
      [&](std::function<void(absl::StatusOr<QueryResult>)> done) {
        service_->Query("alice", **port, "", TransferOptions(), std::move(done));
      });
  EXPECT_EQ(empty.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(std::string(empty.status().message()), "data is required: the command to send");
  auto queried = Await<absl::StatusOr<QueryResult>>(
      [&](std::function<void(absl::StatusOr<QueryResult>)> done) {
        service_->Query("alice", **port, too_long, TransferOptions(), std::move(done));
      });
  EXPECT_EQ(std::string(queried.status().message()),
            "data is 65537 bytes; query takes at most 65536 bytes per call");
}

TEST_F(PortServiceTest, AReadTakesThePortsTimeoutUnlessTheCallerGivesOne) {
  ASSERT_TRUE(Open("alice", "loop://a").ok());
  auto port = service_->CallersPort("alice", std::nullopt);
  ASSERT_TRUE(port.ok());
  TransferOptions options;
  absl::StatusOr<ReadParams> defaults = service_->ReadParamsFor(**port, options);
  ASSERT_TRUE(defaults.ok()) << defaults.status();
  EXPECT_EQ(defaults->timeout_ms, 250);
  EXPECT_EQ(defaults->max_bytes, kDefaultReadBytes);
  EXPECT_TRUE(defaults->text_mode);
  options.timeout_ms = 40;
  options.max_bytes = 7;
  options.text_mode = false;
  absl::StatusOr<ReadParams> given = service_->ReadParamsFor(**port, options);
  ASSERT_TRUE(given.ok()) << given.status();
  EXPECT_EQ(given->timeout_ms, 40);
  EXPECT_EQ(given->max_bytes, 7);
  EXPECT_FALSE(given->text_mode);
  options.timeout_ms = kMaxTimeoutMs + 1;
  EXPECT_EQ(service_->ReadParamsFor(**port, options).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_F(PortServiceTest, StoppingClosesEveryPortOnce) {
  ASSERT_TRUE(Open("alice", "loop://a").ok());
  ASSERT_TRUE(Open("bob", "loop://b").ok());
  EXPECT_FALSE(service_->stopped());
  EXPECT_TRUE(service_->StopPorts());
  EXPECT_TRUE(service_->stopped());
  EXPECT_TRUE(service_->OpenPortNames().empty());
  EXPECT_FALSE(service_->StopPorts());
  EXPECT_EQ(PortService::ShuttingDownError().code(), absl::StatusCode::kUnavailable);
}

// The control lines on a loop:// plug, through the service: DTR comes back as DSR and DCD,
// RTS as CTS; a pulse returns the line to its level; bad durations are refused.
TEST_F(PortServiceTest, ControlLinesAreDrivenOnTheCallersPortAndReadBack) {
  ASSERT_TRUE(Open("alice", "loop://board").ok());
  auto port = service_->CallersPort("alice", std::string("loop://board"));
  ASSERT_TRUE(port.ok()) << port.status();
  using Lines = absl::StatusOr<ModemSignals>;
  auto run = [&](auto call) { return Await<Lines>(call); };

  Lines set = run([&](std::function<void(Lines)> done) {
    service_->SetSignals("alice", **port, true, false, std::nullopt, std::move(done));
  });
  ASSERT_TRUE(set.ok()) << set.status();
  EXPECT_TRUE(set->dtr && set->dsr && set->dcd);
  EXPECT_FALSE(set->rts || set->cts);

  Lines pulsed = run([&](std::function<void(Lines)> done) {
    service_->PulseSignal("alice", **port, /*dtr=*/true, /*level=*/false, 20, std::nullopt,
                          std::move(done));
  });
  ASSERT_TRUE(pulsed.ok()) << pulsed.status();
  EXPECT_TRUE(pulsed->dtr) << "back to high after the pulse";

  Lines broke = run([&](std::function<void(Lines)> done) {
    service_->SendBreak("alice", **port, 10, std::nullopt, std::move(done));
  });
  EXPECT_TRUE(broke.ok()) << broke.status();

  Lines read =
      run([&](std::function<void(Lines)> done) { service_->GetSignals(**port, std::move(done)); });
  ASSERT_TRUE(read.ok());
  EXPECT_TRUE(read->dtr);

  Lines nothing = run([&](std::function<void(Lines)> done) {
    service_->SetSignals("alice", **port, std::nullopt, std::nullopt, std::nullopt,
                         std::move(done));
  });
  EXPECT_EQ(nothing.status().code(), absl::StatusCode::kInvalidArgument);
  for (int64_t ms : {int64_t{0}, int64_t{-5}, PortService::kMaxSignalMs + 1}) {
    Lines bad = run([&](std::function<void(Lines)> done) {
      service_->PulseSignal("alice", **port, true, false, ms, std::nullopt, std::move(done));
    });
    EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument) << ms;
    EXPECT_TRUE(absl::StrContains(bad.status().message(), "must be 1 to 10000")) << bad.status();
  }
}

TEST(PortServicePolicyTest, ReadOnlyPortsAndSignalsDenyKeepCallersOffTheLines) {
  const std::string path = ::testing::TempDir() + "labgate-signals-policy.json";
  {
    std::ofstream out(path);
    out << R"({"ports": [{"match": "loop://meter", "read_only": true},
                         {"match": "loop://psu", "signals": "deny"},
                         {"match": "loop://*"}]})";
  }
  PortServiceOptions options;
  options.policy_file = path;
  auto service = PortService::Create(options);
  ASSERT_TRUE(service.ok()) << service.status();
  using Lines = absl::StatusOr<ModemSignals>;
  for (const auto& [name, reason] : std::vector<std::pair<std::string, std::string>>{
           {"loop://meter", "is read-only by the policy"},
           {"loop://psu", "does not let callers drive the control lines of loop://psu"},
           {"loop://board", ""}}) {
    PortSettings settings;
    settings.baud_rate = 9600;
    ASSERT_TRUE((Await<absl::StatusOr<PortSettings>>(
                     [&](std::function<void(absl::StatusOr<PortSettings>)> done) {
                       (*service)->OpenPort("alice", name, settings, std::move(done));
                     }))
                    .ok());
    auto port = (*service)->CallersPort("alice", name);
    ASSERT_TRUE(port.ok());
    Lines set = Await<Lines>([&](std::function<void(Lines)> done) {
      (*service)->SetSignals("alice", **port, true, std::nullopt, std::nullopt, std::move(done));
    });
    Lines broke = Await<Lines>([&](std::function<void(Lines)> done) {
      (*service)->SendBreak("alice", **port, 5, std::nullopt, std::move(done));
    });
    Lines read = Await<Lines>(
        [&](std::function<void(Lines)> done) { (*service)->GetSignals(**port, std::move(done)); });
    EXPECT_TRUE(read.ok()) << name << ": reading the lines is always allowed";
    if (reason.empty()) {
      EXPECT_TRUE(set.ok() && broke.ok()) << name;
      continue;
    }
    for (const Lines& refused : {set, broke}) {
      EXPECT_EQ(refused.status().code(), absl::StatusCode::kPermissionDenied) << name;
      EXPECT_TRUE(absl::StrContains(refused.status().message(), reason)) << refused.status();
    }
    EXPECT_FALSE(read->dtr) << name << ": a refused change changed nothing";
  }
  (*service)->StopPorts();
  std::remove(path.c_str());
}

// The owner went (its last Lease ended) while its open was still finding the instrument, so
// the Lease's end closed nothing. The port that open then makes would be held by nobody and
// closed by nothing: it is closed again, and the open fails saying why.
TEST(PortServiceLeaseTest, AnOpenThatFinishesAfterItsOwnerWentLeavesNoPortBehind) {
  const std::string dir = ::testing::TempDir() + "labgate-lease-open";
  std::filesystem::create_directories(dir + "/profiles");
  std::ofstream(dir + "/profiles/psu.json")
      << R"({"model": "LOOP-PSU", "settings": {"baud_rate": 9600}})";
  std::ofstream(dir + "/instruments.json") << R"({"instruments": [
      {"name": "psu-2", "profile": "LOOP-PSU", "match": {"usb_serial": "X1"}}]})";
  std::atomic<bool> hold{false};
  absl::Notification listing;
  absl::Notification go_on;
  PortServiceOptions options;
  options.profiles_dir = dir + "/profiles";
  options.instruments_file = dir + "/instruments.json";
  options.port_lister = [&]() -> absl::StatusOr<std::vector<PortDetails>> {
    if (hold) {
      if (!listing.HasBeenNotified()) listing.Notify();
      go_on.WaitForNotification();
    }
    PortDetails psu;
    psu.port_name = "loop://psu";
    psu.serial_number = "X1";
    return std::vector<PortDetails>{psu};
  };
  auto service = PortService::Create(options);
  ASSERT_TRUE(service.ok()) << service.status();

  (*service)->AcquireLease("alice");
  hold = true;
  PortSettings settings;
  settings.baud_rate = 9600;
  std::promise<absl::StatusOr<OpenedInstrument>> opened;
  (*service)->OpenInstrument(
      "alice", "psu-2", settings,
      [&](absl::StatusOr<OpenedInstrument> result) { opened.set_value(std::move(result)); });
  listing.WaitForNotification();  // the open is finding the instrument
  (*service)->ReleaseLease("alice");
  go_on.Notify();

  absl::StatusOr<OpenedInstrument> result = opened.get_future().get();
  EXPECT_EQ(result.status().code(), absl::StatusCode::kAborted) << result.status();
  EXPECT_TRUE(
      absl::StrContains(result.status().message(), "Lease ended while the port was opening"))
      << result.status();
  EXPECT_EQ((*service)->FindPort("psu-2"), nullptr) << "a port nobody holds was left open";

  // An owner that never held a Lease keeps what it opens, as before.
  hold = false;
  std::promise<absl::StatusOr<OpenedInstrument>> unleased;
  (*service)->OpenInstrument(
      "bob", "psu-2", settings,
      [&](absl::StatusOr<OpenedInstrument> result) { unleased.set_value(std::move(result)); });
  EXPECT_TRUE(unleased.get_future().get().ok());
  std::shared_ptr<ManagedPort> kept = (*service)->FindPort("psu-2");
  ASSERT_NE(kept, nullptr);
  EXPECT_EQ(kept->owner(), "bob");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace labgate::serial
