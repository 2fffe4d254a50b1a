// How soon a named instrument that comes back under another path is reopened (issue 31's
// target: within 1 s of the device's return). A simulated supply on a pty is opened by name
// through a by_path link; each cycle it drops off, returns on a fresh pty under a new name, the
// link is pointed there (as udev does), and the time until the port is open again is taken
// (status polled every millisecond through the in-process gRPC channel). Also: how soon the
// loss is noticed. The return comes 0-150 ms after the loss, at random. Sets up the pty harness
// itself, so it needs root. Prints one JSON report.
//
// Usage: labgate_reenumeration_bench [cycles]
#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "common/service_host.h"
#include "serial-service/serial_service.h"
#include "tests/serial_harness/pty_device.h"

namespace {

using Clock = std::chrono::steady_clock;
using labgate::serial_harness::InstrumentMode;
using labgate::serial_harness::PtyDevice;
namespace v1 = labgate::serial::v1;

constexpr char kProfile[] = R"({"model": "SIM-PSU",
  "match": {"probe": {"reply": "^LABGATE,SIM-PSU,(?P<serial>[^,]+),"}},
  "settings": {"baud_rate": 115200, "terminator": "\n", "timeout_ms": 1000}})";

double Ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

double Percentile(std::vector<double> values, double p) {
  std::sort(values.begin(), values.end());
  return values[std::min(values.size() - 1, static_cast<size_t>(p * values.size()))];
}

v1::PortState State(v1::SerialService::Stub& stub) {
  grpc::ClientContext context;
  context.AddMetadata("labgate-owner", "bench");
  v1::GetStatusRequest request;
  request.set_port_name("psu-2");
  v1::GetStatusResponse response;
  if (!stub.GetStatus(&context, request, &response).ok()) return v1::PORT_STATE_UNSPECIFIED;
  return response.status();
}

// Polls until the port is in `state`; the time it took, or -1 after 5 s.
double AwaitState(v1::SerialService::Stub& stub, v1::PortState state, Clock::time_point from) {
  while (Clock::now() - from < std::chrono::seconds(5)) {
    if (State(stub) == state) return Ms(Clock::now() - from);
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return -1;
}

std::unique_ptr<PtyDevice> Supply() {
  auto device = PtyDevice::Create(InstrumentMode::kPowerSupply);
  if (!device.ok()) {
    std::fprintf(stderr, "pty harness: %s\n", std::string(device.status().message()).c_str());
    std::exit(1);
  }
  (*device)->set_serial("PSU0042");
  return std::move(*device);
}

int Run(int argc, char** argv) {
  if (absl::Status status = labgate::serial_harness::ReexecWithShimIfNeeded(argv); !status.ok()) {
    std::fprintf(stderr, "FATAL: %s\n", std::string(status.message()).c_str());
    return 1;
  }
  if (absl::Status status = labgate::serial_harness::EnterPrivateMountNamespace(); !status.ok()) {
    std::fprintf(stderr, "FATAL: %s (needs root)\n", std::string(status.message()).c_str());
    return 1;
  }
  const int cycles = argc > 1 ? std::atoi(argv[1]) : 20;
  char dir_template[] = "/tmp/labgate-reenum-bench-XXXXXX";
  const std::string dir = mkdtemp(dir_template);
  std::filesystem::create_directory(dir + "/profiles");
  std::ofstream(dir + "/profiles/psu.json") << kProfile;
  const std::string link = dir + "/by-id-psu";
  std::ofstream(dir + "/instruments.json")
      << R"({"instruments": [{"name": "psu-2", "profile": "SIM-PSU", "match": {"by_path": ")"
      << link << R"("}}]})";

  std::unique_ptr<PtyDevice> device = Supply();
  std::filesystem::create_symlink(device->path(), link);
  labgate::serial::SerialServiceOptions options;
  options.profiles_dir = dir + "/profiles";
  options.instruments_file = dir + "/instruments.json";
  auto service = labgate::serial::CreateSerialService(options);
  if (!service.ok()) {
    std::fprintf(stderr, "%s\n", std::string(service.status().message()).c_str());
    return 1;
  }
  auto host = labgate::ServiceHost::Start("", {service->get()});
  if (!host.ok()) return 1;
  auto stub = v1::SerialService::NewStub((*host)->InProcessChannel());
  {
    grpc::ClientContext context;
    context.AddMetadata("labgate-owner", "bench");
    v1::OpenPortRequest open;
    open.set_instrument("psu-2");
    v1::OpenPortResponse opened;
    if (grpc::Status status = stub->OpenPort(&context, open, &opened); !status.ok()) {
      std::fprintf(stderr, "open: %s\n", status.error_message().c_str());
      return 1;
    }
  }
  std::vector<double> noticed, reopened;
  std::mt19937 random(42);
  std::uniform_int_distribution<int> jitter(0, 150);
  int failures = 0;
  for (int cycle = 0; cycle < cycles; ++cycle) {
    const Clock::time_point dropped = Clock::now();
    device->Disconnect();
    const double lost_ms = AwaitState(*stub, v1::PORT_STATE_ERROR, dropped);
    // The device returns at a random moment, not in step with the watcher's period.
    std::this_thread::sleep_for(std::chrono::milliseconds(jitter(random)));
    std::unique_ptr<PtyDevice> back = Supply();
    std::filesystem::remove(link);
    std::filesystem::create_symlink(back->path(), link);
    const Clock::time_point returned = Clock::now();
    const double back_ms = AwaitState(*stub, v1::PORT_STATE_OPEN, returned);
    if (lost_ms < 0 || back_ms < 0) {
      ++failures;
    } else {
      noticed.push_back(lost_ms);
      reopened.push_back(back_ms);
    }
    device = std::move(back);  // the old pty goes once the new one is in use
  }
  (*service)->Shutdown();
  (*host)->Shutdown(std::chrono::seconds(2));
  std::filesystem::remove_all(dir);
  if (reopened.empty()) {
    std::fprintf(stderr, "no cycle completed\n");
    return 1;
  }
  nlohmann::json report = {
      {"cycles", cycles},
      {"failures", failures},
      {"loss_noticed_ms", {{"p50", Percentile(noticed, 0.5)}, {"max", Percentile(noticed, 1)}}},
      {"reopened_after_return_ms",
       {{"p50", Percentile(reopened, 0.5)},
        {"p90", Percentile(reopened, 0.9)},
        {"max", Percentile(reopened, 1)}}},
  };
  std::printf("%s\n", report.dump(2).c_str());
  return failures == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return Run(argc, argv);
  } catch (const std::exception& error) {  // JSON and the filesystem report by exception
    std::fprintf(stderr, "reenumeration bench: %s\n", error.what());
    return 1;
  }
}
