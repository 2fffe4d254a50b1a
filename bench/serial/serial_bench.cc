// Serial benchmarks on real ptys with the real libserialport, through embedded
// `labgate` over stdio pipes and, for comparison, direct libserialport calls on the same
// ptys in the same run:
//   1. command round trip (write "*IDN?" + read the reply) to a simulated SCPI instrument,
//      gateway against direct, in alternating blocks; through the gateway both as two tool
//      calls (`write`, then `read`) and as one (`query`: round_trip_query in the report);
//      and, when bench/labgate_stdio_floor is built, the floor under a `query` in the same
//      blocks: a tools/call to that server (nothing but stdio) and to it paying one
//      in-process call, each plus direct libserialport's round trip;
//   2. a 1 MiB binary transfer each way (instrument -> host, host -> instrument);
//   3. eight ports active at once through one gateway;
//   4. wait_for: from the matching bytes reaching the pty to the result reaching the client;
//   5. continuous capture: eight bound ports each streaming 1 MB/s with nobody reading,
//      every byte recorded, and labgate's CPU per MB.
// Sets up the pty harness itself (tests/serial_harness: private mount namespace and
// tiocm shim), so it needs root, like the pty tests. Prints one JSON report on stdout.
//
// Usage: labgate_serial_bench LABGATE_BINARY [round_trips] [round_trips_per_port_of_8]
//                             [OTHER_LABGATE_BINARY]
// With another labgate build, its `query` is measured in the same blocks too
// (round_trip_query.other_build): a change measured before and after in one run.
// With LABGATE_BENCH_QUERIES_ONLY=SECONDS it only runs `query` calls for that long and
// prints their p50, so that `perf` attached to labgate sees nothing else.
#include <fcntl.h>
#include <libserialport.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/escaping.h"
#include "bench/serial/stdio_gateway.h"
#include "tests/serial_harness/pty_device.h"

namespace {

using Clock = std::chrono::steady_clock;
using labgate::bench::Gateway;
using labgate::serial_harness::InstrumentMode;
using labgate::serial_harness::kInstrumentId;
using labgate::serial_harness::PtyDevice;
using nlohmann::json;

constexpr size_t kTransferBytes = 1 << 20;
constexpr size_t kChunkBytes = 64 * 1024;  // the most one write or read call moves

double Micros(Clock::duration d) { return std::chrono::duration<double, std::micro>(d).count(); }

double Percentile(std::vector<double> values, double p) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  return values[static_cast<size_t>(p * static_cast<double>(values.size() - 1))];
}

double Mean(const std::vector<double>& values) {
  double sum = 0;
  for (double v : values) sum += v;
  return values.empty() ? 0 : sum / static_cast<double>(values.size());
}

json Summary(const std::vector<double>& us) {
  return {{"count", us.size()},
          {"p50_us", Percentile(us, 0.50)},
          {"p90_us", Percentile(us, 0.90)},
          {"p99_us", Percentile(us, 0.99)},
          {"mean_us", Mean(us)}};
}

// The same pty through libserialport in this process, as the service would drive it.
class DirectPort {
 public:
  explicit DirectPort(const std::string& path) {
    Check(sp_get_port_by_name(path.c_str(), &port_), "sp_get_port_by_name");
    Check(sp_open(port_, SP_MODE_READ_WRITE), "sp_open");
    Check(sp_set_baudrate(port_, 115200), "sp_set_baudrate");
    Check(sp_set_bits(port_, 8), "sp_set_bits");
    Check(sp_set_parity(port_, SP_PARITY_NONE), "sp_set_parity");
    Check(sp_set_stopbits(port_, 1), "sp_set_stopbits");
    Check(sp_set_flowcontrol(port_, SP_FLOWCONTROL_NONE), "sp_set_flowcontrol");
  }
  ~DirectPort() {
    sp_close(port_);
    sp_free_port(port_);
  }
  DirectPort(const DirectPort&) = delete;
  DirectPort& operator=(const DirectPort&) = delete;

  void Write(const std::string& bytes) {
    const int wrote = sp_blocking_write(port_, bytes.data(), bytes.size(), 2000);
    if (wrote != static_cast<int>(bytes.size())) throw std::runtime_error("sp_blocking_write");
  }
  // Whatever has arrived, waiting up to 2 s for the first byte.
  std::string ReadSome(size_t max) {
    std::string buffer(max, '\0');
    const int got = sp_blocking_read_next(port_, buffer.data(), max, 2000);
    if (got <= 0) throw std::runtime_error("sp_blocking_read_next: nothing within 2 s");
    buffer.resize(static_cast<size_t>(got));
    return buffer;
  }
  std::string ReadLine() {
    std::string line;
    while (line.empty() || line.back() != '\n') line += ReadSome(4096);
    line.pop_back();
    return line;
  }

 private:
  static void Check(sp_return result, const char* what) {
    if (result != SP_OK) {
      char* message = sp_last_error_message();
      std::string text = std::string(what) + ": " + (message ? message : "?");
      sp_free_error_message(message);
      throw std::runtime_error(text);
    }
  }
  sp_port* port_ = nullptr;
};

json OpenArgs(const std::string& path) {
  return {{"port_name", path}, {"baud_rate", 115200}, {"terminator", "\n"}, {"timeout_ms", 2000}};
}

void Expect(bool ok, const std::string& what) {
  if (!ok) throw std::runtime_error(what);
}

// The floor server, alone and with the seam's in-process call (bench/stdio_floor.cc).
struct Floors {
  std::unique_ptr<Gateway> bare;
  std::unique_ptr<Gateway> grpc;
  std::unique_ptr<Gateway> other_build;  // another labgate build, for its `query`
};

// One `echo` tools/call to a floor server.
void FloorEcho(Gateway& floor) {
  json reply =
      floor.Call("tools/call", {{"name", "echo"}, {"arguments", {{"message", kInstrumentId}}}});
  const std::string text = reply["result"]["content"][0].value("text", "");
  Expect(text == std::string("Echo: ") + kInstrumentId, "floor echo " + reply.dump());
}

// 1. Round trips: alternating blocks of gateway and direct calls on the same pty.
json RoundTrips(Gateway& gateway, const Floors& floors, const std::string& path, int total) {
  constexpr int kBlocks = 10;
  constexpr int kWarmup = 50;
  const int per_block = std::max(1, total / kBlocks);
  std::vector<double> through_gateway;
  std::vector<double> direct;
  std::vector<double> gateway_write;
  std::vector<double> gateway_query;  // the same exchange as one `query` tool call
  std::vector<double> floor_bare;     // a tools/call to the floor server
  std::vector<double> floor_grpc;     // the same, paying one in-process call
  std::vector<double> other_query;    // `query` through the other labgate build
  // Where the gateway's time goes: a bare MCP ping (stdio + JSON-RPC), and the same two
  // tool calls on a loop:// port (gRPC in-process + the port worker, no device).
  std::vector<double> ping;
  std::vector<double> loopback;
  gateway.Tool("open_port",
               {{"port_name", "loop://bench"}, {"baud_rate", 115200}, {"terminator", "\n"}});
  for (int block = 0; block < kBlocks; ++block) {
    for (int i = 0; i < kWarmup + per_block; ++i) {
      const auto start = Clock::now();
      gateway.Call("ping", json::object());
      const auto pinged = Clock::now();
      gateway.Tool("write", {{"port_name", "loop://bench"}, {"data", "*IDN?"}});
      json read = gateway.Tool("read", {{"port_name", "loop://bench"}});
      const auto end = Clock::now();
      Expect(read.value("data", "") == "*IDN?", "loopback read " + read.dump());
      if (i >= kWarmup) {
        ping.push_back(Micros(pinged - start));
        loopback.push_back(Micros(end - pinged));
      }
    }

    gateway.Tool("open_port", OpenArgs(path));
    for (int i = 0; i < kWarmup + per_block; ++i) {
      const auto start = Clock::now();
      gateway.Tool("write", {{"port_name", path}, {"data", "*IDN?"}});
      const auto wrote = Clock::now();
      json read = gateway.Tool("read", {{"port_name", path}});
      const auto end = Clock::now();
      Expect(read.value("data", "") == kInstrumentId, "gateway read " + read.dump());
      if (i >= kWarmup) {
        through_gateway.push_back(Micros(end - start));
        gateway_write.push_back(Micros(wrote - start));
      }
    }
    const auto queries = [&](Gateway& through, std::vector<double>& latencies) {
      through.Tool("open_port", OpenArgs(path));
      for (int i = 0; i < kWarmup + per_block; ++i) {
        const auto start = Clock::now();
        json reply = through.Tool("query", {{"port_name", path}, {"data", "*IDN?"}});
        const auto end = Clock::now();
        Expect(reply.value("data", "") == kInstrumentId, "gateway query " + reply.dump());
        if (i >= kWarmup) latencies.push_back(Micros(end - start));
      }
      through.Tool("close", {{"port_name", path}});
    };
    gateway.Tool("close", {{"port_name", path}});
    // Which build goes first alternates between blocks.
    if (floors.other_build && block % 2 == 1) queries(*floors.other_build, other_query);
    queries(gateway, gateway_query);
    if (floors.other_build && block % 2 == 0) queries(*floors.other_build, other_query);

    if (floors.bare) {
      for (int i = 0; i < kWarmup + per_block; ++i) {
        const auto start = Clock::now();
        FloorEcho(*floors.bare);
        const auto bare = Clock::now();
        FloorEcho(*floors.grpc);
        const auto end = Clock::now();
        if (i >= kWarmup) {
          floor_bare.push_back(Micros(bare - start));
          floor_grpc.push_back(Micros(end - bare));
        }
      }
    }

    DirectPort port(path);
    for (int i = 0; i < kWarmup + per_block; ++i) {
      const auto start = Clock::now();
      port.Write("*IDN?\n");
      const std::string line = port.ReadLine();
      const auto end = Clock::now();
      Expect(line == kInstrumentId, "direct read " + line);
      if (i >= kWarmup) direct.push_back(Micros(end - start));
    }
  }
  const double gateway_p50 = Percentile(through_gateway, 0.5);
  const double direct_p50 = Percentile(direct, 0.5);
  const double query_p50 = Percentile(gateway_query, 0.5);
  gateway.Tool("close", {{"port_name", "loop://bench"}});
  json query = {{"gateway", Summary(gateway_query)},
                {"direct", Summary(direct)},
                {"ratio_p50", query_p50 / direct_p50},
                {"added_p50_us", query_p50 - direct_p50}};
  if (!other_query.empty()) {
    query["other_build"] = {{"gateway", Summary(other_query)},
                            {"ratio_p50", Percentile(other_query, 0.5) / direct_p50}};
  }
  if (!floor_bare.empty()) {
    // What a gateway doing nothing but relaying would take at least: its stdio round trip
    // (and an in-process call) plus the instrument's exchange as direct libserialport sees it;
    // and labgate's added time (query p50 minus direct p50) against the floor's tools/call p50.
    const double bare_p50 = Percentile(floor_bare, 0.5);
    const double grpc_p50 = Percentile(floor_grpc, 0.5);
    query["floor"] = {{"stdio_tool_call", Summary(floor_bare)},
                      {"stdio_tool_call_with_local_call", Summary(floor_grpc)},
                      {"stdio_plus_direct_ratio_p50", (bare_p50 + direct_p50) / direct_p50},
                      {"stdio_local_plus_direct_ratio_p50", (grpc_p50 + direct_p50) / direct_p50},
                      {"query_added_over_floor_p50", (query_p50 - direct_p50) / bare_p50}};
  }
  return {{"query", std::move(query)},
          {"gateway", Summary(through_gateway)},
          {"gateway_ping", Summary(ping)},
          {"gateway_loopback_round_trip", Summary(loopback)},
          {"gateway_write_call", Summary(gateway_write)},
          {"direct", Summary(direct)},
          {"ratio_p50", gateway_p50 / direct_p50},
          {"added_p50_us", gateway_p50 - direct_p50},
          {"added_mean_us", Mean(through_gateway) - Mean(direct)},
          {"added_p99_us", Percentile(through_gateway, 0.99) - Percentile(direct, 0.99)}};
}

std::string RandomBytes(size_t size, bool no_line_endings) {
  std::mt19937 random(20261122);
  std::string bytes(size, '\0');
  for (char& c : bytes) {
    unsigned value = random() & 0xff;
    // The SCPI instrument acts on line endings; everything else (NULs too) it just takes.
    if (no_line_endings && (value == '\n' || value == '\r')) value = 0;
    c = static_cast<char>(value);
  }
  return bytes;
}

double MiBps(size_t bytes, Clock::duration d) {
  return static_cast<double>(bytes) / (1 << 20) / std::chrono::duration<double>(d).count();
}

// 2a. Instrument -> host: the instrument sends 1 MiB; the host reads it all.
json TransferIn(Gateway& gateway, PtyDevice& device) {
  const std::string payload = RandomBytes(kTransferBytes, false);
  json report;
  {
    gateway.Tool("open_port", OpenArgs(device.path()));
    std::string got;
    const auto start = Clock::now();
    std::thread sender([&] { device.Send(payload); });
    int calls = 0;
    while (got.size() < payload.size()) {
      json read = gateway.Tool(
          "read",
          {{"port_name", device.path()}, {"encoding", "base64"}, {"max_bytes", kChunkBytes}});
      std::string bytes;
      Expect(absl::Base64Unescape(read.value("data", ""), &bytes), "base64");
      Expect(!bytes.empty(), "gateway read timed out at " + std::to_string(got.size()));
      got += bytes;
      ++calls;
    }
    const auto elapsed = Clock::now() - start;
    sender.join();
    Expect(got == payload, "gateway: the bytes read differ from those sent");
    gateway.Tool("close", {{"port_name", device.path()}});
    report["gateway"] = {{"MiB_per_s", MiBps(payload.size(), elapsed)},
                         {"ms", Micros(elapsed) / 1000},
                         {"read_calls", calls}};
  }
  {
    DirectPort port(device.path());
    std::string got;
    const auto start = Clock::now();
    std::thread sender([&] { device.Send(payload); });
    int calls = 0;
    while (got.size() < payload.size()) {
      got += port.ReadSome(kChunkBytes);
      ++calls;
    }
    const auto elapsed = Clock::now() - start;
    sender.join();
    Expect(got == payload, "direct: the bytes read differ from those sent");
    report["direct"] = {{"MiB_per_s", MiBps(payload.size(), elapsed)},
                        {"ms", Micros(elapsed) / 1000},
                        {"read_calls", calls}};
  }
  return report;
}

// 2b. Host -> instrument: the host writes 1 MiB (64 KiB per call); done when the
// instrument has received the last byte. The instrument takes every byte except line
// endings as part of one long command, so the payload leaves those out.
json TransferOut(Gateway& gateway, PtyDevice& device) {
  const std::string payload = RandomBytes(kTransferBytes, true);
  auto wait_received = [&](size_t total) {
    while (device.Received().size() < total)
      std::this_thread::sleep_for(std::chrono::microseconds(200));
  };
  json report;
  {
    gateway.Tool("open_port", OpenArgs(device.path()));
    const size_t before = device.Received().size();
    const auto start = Clock::now();
    for (size_t offset = 0; offset < payload.size(); offset += kChunkBytes) {
      gateway.Tool("write", {{"port_name", device.path()},
                             {"encoding", "base64"},
                             {"data", absl::Base64Escape(payload.substr(offset, kChunkBytes))}});
    }
    wait_received(before + payload.size());
    const auto elapsed = Clock::now() - start;
    Expect(device.Received().substr(before) == payload, "gateway: the instrument got other bytes");
    gateway.Tool("close", {{"port_name", device.path()}});
    report["gateway"] = {{"MiB_per_s", MiBps(payload.size(), elapsed)},
                         {"ms", Micros(elapsed) / 1000}};
  }
  {
    DirectPort port(device.path());
    const size_t before = device.Received().size();
    const auto start = Clock::now();
    for (size_t offset = 0; offset < payload.size(); offset += kChunkBytes) {
      port.Write(payload.substr(offset, kChunkBytes));
    }
    wait_received(before + payload.size());
    const auto elapsed = Clock::now() - start;
    Expect(device.Received().substr(before) == payload, "direct: the instrument got other bytes");
    report["direct"] = {{"MiB_per_s", MiBps(payload.size(), elapsed)},
                        {"ms", Micros(elapsed) / 1000}};
  }
  return report;
}

// 3. Eight ports at once: one thread per port doing sequential round trips, all through
// one gateway connection.
json EightPorts(Gateway& gateway, const std::vector<std::unique_ptr<PtyDevice>>& devices,
                int per_port) {
  for (const auto& device : devices) gateway.Tool("open_port", OpenArgs(device->path()));
  std::vector<std::vector<double>> latencies(devices.size());
  std::atomic<int> failures{0};
  const auto start = Clock::now();
  std::vector<std::thread> threads;
  for (size_t p = 0; p < devices.size(); ++p) {
    threads.emplace_back([&, p] {
      const std::string path = devices[p]->path();
      try {
        for (int i = 0; i < per_port; ++i) {
          const std::string tag = "P" + std::to_string(p) + "-" + std::to_string(i);
          const auto begin = Clock::now();
          gateway.Tool("write", {{"port_name", path}, {"data", tag}});
          json read = gateway.Tool("read", {{"port_name", path}});
          latencies[p].push_back(Micros(Clock::now() - begin));
          if (read.value("data", "") != tag) ++failures;
        }
      } catch (const std::exception& e) {
        std::fprintf(stderr, "port %s: %s\n", path.c_str(), e.what());
        ++failures;
      }
    });
  }
  for (auto& thread : threads) thread.join();
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  for (const auto& device : devices) gateway.Tool("close", {{"port_name", device->path()}});
  Expect(failures == 0, "eight ports: " + std::to_string(failures.load()) + " failures");
  json per = json::array();
  std::vector<double> all;
  for (size_t p = 0; p < devices.size(); ++p) {
    per.push_back({{"port", devices[p]->path()},
                   {"p50_us", Percentile(latencies[p], 0.5)},
                   {"p99_us", Percentile(latencies[p], 0.99)}});
    all.insert(all.end(), latencies[p].begin(), latencies[p].end());
  }
  const double total = static_cast<double>(all.size());
  return {{"ports", devices.size()},
          {"round_trips_per_port", per_port},
          {"aggregate_round_trips_per_s", total / seconds},
          {"all", Summary(all)},
          {"per_port", per}};
}

// 4. wait_for: the call is in flight (issued 2 ms before), then the instrument prints the line
// it waits for; latency runs from just before those bytes go into the pty to the result.
json WaitForLatency(Gateway& gateway, PtyDevice& device, int count) {
  gateway.Tool("open_port", OpenArgs(device.path()));
  std::vector<double> latencies;
  for (int i = 0; i < count; ++i) {
    const std::string line = "READY " + std::to_string(i);
    std::atomic<int64_t> sent_at{0};
    std::thread instrument([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      sent_at = Clock::now().time_since_epoch().count();
      device.Send("boot noise\n" + line + "\n");
    });
    json result = gateway.Tool(
        "wait_for",
        {{"port_name", device.path()}, {"patterns", {line + "\n"}}, {"timeout_ms", 5000}});
    const auto done = Clock::now();
    instrument.join();
    Expect(result.value("matched", false), "wait_for did not match " + line);
    latencies.push_back(Micros(done - Clock::time_point(Clock::duration(sent_at.load()))));
  }
  gateway.Tool("close", {{"port_name", device.path()}});
  return Summary(latencies);
}

// labgate's user + system CPU seconds so far.
double CpuSeconds(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  const size_t end_of_name = text.rfind(')');
  std::istringstream fields(text.substr(end_of_name + 2));
  std::string field;
  double ticks = 0;
  for (int n = 3; fields >> field; ++n) {
    if (n == 14 || n == 15) ticks += std::stod(field);
    if (n == 15) break;
  }
  return ticks / static_cast<double>(sysconf(_SC_CLK_TCK));
}

// 5. Eight bound ports, each instrument streaming `rate` bytes/s for `seconds`, nobody reading.
json CaptureStreams(Gateway& gateway, const std::vector<std::unique_ptr<PtyDevice>>& devices,
                    double seconds, double rate) {
  std::vector<std::string> sessions;
  for (const auto& device : devices) {
    json session = gateway.Tool("create_session", {{"device_id", device->path()}});
    sessions.push_back(session["session"]["id"]);
    json args = OpenArgs(device->path());
    args["session_id"] = sessions.back();
    gateway.Tool("open_port", args);
  }
  const double cpu_before = CpuSeconds(gateway.pid());
  const auto start = Clock::now();
  std::vector<size_t> sent(devices.size(), 0);
  std::vector<std::thread> streams;
  for (size_t p = 0; p < devices.size(); ++p) {
    streams.emplace_back([&, p] {
      const std::string block(static_cast<size_t>(rate / 100), static_cast<char>('a' + p));
      for (int tick = 0; tick < static_cast<int>(seconds * 100); ++tick) {
        std::this_thread::sleep_until(start + std::chrono::milliseconds(10 * tick));
        devices[p]->Send(block);
        sent[p] += block.size();
      }
    });
  }
  for (auto& stream : streams) stream.join();
  const double streamed_s = std::chrono::duration<double>(Clock::now() - start).count();
  // Every byte recorded: wait for the records to reach the session service.
  json per = json::array();
  size_t total = 0;
  int64_t lost = 0;
  for (size_t p = 0; p < devices.size(); ++p) {
    size_t recorded = 0;
    for (int attempt = 0; attempt < 500 && recorded < sent[p]; ++attempt) {
      recorded = 0;
      int64_t after = 0;
      for (;;) {
        json page = gateway.Tool(
            "list_messages",
            {{"session_id", sessions[p]}, {"after_message_id", after}, {"limit", 1000}});
        for (const json& message : page["messages"]) {
          after = message["message_id"];
          if (message.value("direction", "") == "rx") {
            recorded += message["content"].get<std::string>().size();
          }
        }
        if (page["messages"].size() < 1000) break;
      }
      if (recorded < sent[p]) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    json metrics = gateway.Tool("metrics", {{"port_name", devices[p]->path()}});
    lost += metrics.value("records_lost", 0);
    per.push_back({{"sent", sent[p]},
                   {"recorded", recorded},
                   {"dropped_unread", metrics.value("capture_dropped_bytes", 0)}});
    total += recorded;
    Expect(recorded == sent[p], "capture: port " + std::to_string(p) + " recorded " +
                                    std::to_string(recorded) + " of " + std::to_string(sent[p]));
  }
  const double cpu = CpuSeconds(gateway.pid()) - cpu_before;
  for (const auto& device : devices) gateway.Tool("close", {{"port_name", device->path()}});
  const double mb = static_cast<double>(total) / 1e6;
  return {{"ports", devices.size()},
          {"MB_per_s_per_port", static_cast<double>(sent[0]) / 1e6 / streamed_s},
          {"seconds", streamed_s},
          {"bytes_recorded", total},
          {"records_lost", lost},
          {"labgate_cpu_s", cpu},
          {"labgate_cpu_ms_per_MB", cpu * 1000 / mb},
          {"per_port", per}};
}

// The rx bytes recorded in `session` so far (text records; the stream is printable).
size_t RecordedRx(Gateway& gateway, const std::string& session) {
  size_t recorded = 0;
  int64_t after = 0;
  for (;;) {
    json page = gateway.Tool(
        "list_messages", {{"session_id", session}, {"after_message_id", after}, {"limit", 200}});
    for (const json& message : page["messages"]) {
      after = message["message_id"];
      if (message.value("direction", "") == "rx") {
        recorded += message["content"].get<std::string>().size();
      }
    }
    if (page["messages"].size() < 200) return recorded;
  }
}

// 6. One port at the pty's maximum rate: the instrument writes `bytes` as fast as the pty takes
// them (a blocking write paced by the reader). Once through labgate, which captures and records
// it into a bound session with nobody reading; once through direct libserialport reads. The
// figure is the rate the instrument got; the transcript must hold every byte.
json CaptureMaxRate(Gateway& gateway, PtyDevice& device, size_t bytes) {
  std::string payload;
  for (size_t line = 0; payload.size() < bytes; ++line) {
    absl::StrAppend(&payload, "READING ", line, " 5.0001 V 0123456789abcdefghijklmnopqrstuvwxyz\n");
  }
  payload.resize(bytes);
  json report;
  {
    json session = gateway.Tool("create_session", {{"device_id", device.path()}});
    const std::string session_id = session["session"]["id"];
    json args = OpenArgs(device.path());
    args["session_id"] = session_id;
    gateway.Tool("open_port", args);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));  // past the open settle
    const double cpu_before = CpuSeconds(gateway.pid());
    const auto start = Clock::now();
    device.Send(payload);
    const auto sent = Clock::now() - start;
    // Recorded: every byte has come, and what was held (up to --record-coalesce-ms, 20) has
    // reached the session service: nothing pending twice, 25 ms apart.
    int settled = 0;
    for (int attempt = 0; attempt < 2000 && settled < 2; ++attempt) {
      json metrics = gateway.Tool("metrics", {{"port_name", device.path()}});
      // Nobody reads: what came is what the buffer holds plus what it dropped.
      const int64_t received = metrics.value("capture_buffered_bytes", int64_t{0}) +
                               metrics.value("capture_dropped_bytes", int64_t{0});
      const bool done = received >= static_cast<int64_t>(payload.size()) &&
                        metrics.value("records_pending", 0) == 0;
      settled = done ? settled + 1 : 0;
      std::this_thread::sleep_for(std::chrono::milliseconds(done ? 25 : 5));
    }
    const auto all_recorded = Clock::now() - start;
    const double cpu = CpuSeconds(gateway.pid()) - cpu_before;
    const size_t recorded = RecordedRx(gateway, session_id);
    json metrics = gateway.Tool("metrics", {{"port_name", device.path()}});
    gateway.Tool("close", {{"port_name", device.path()}});
    Expect(recorded == payload.size(), "max-rate capture recorded " + std::to_string(recorded) +
                                           " of " + std::to_string(payload.size()));
    report["labgate"] = {{"MiB_per_s_sent", MiBps(payload.size(), sent)},
                         {"MiB_per_s_recorded", MiBps(payload.size(), all_recorded)},
                         {"bytes_recorded", recorded},
                         {"records_lost", metrics.value("records_lost", 0)},
                         {"dropped_unread", metrics.value("capture_dropped_bytes", 0)},
                         {"labgate_cpu_ms_per_MB", cpu * 1000 / (payload.size() / 1e6)}};
  }
  {
    DirectPort port(device.path());
    std::string got;
    got.reserve(payload.size());
    const auto start = Clock::now();
    std::thread sender([&] { device.Send(payload); });
    while (got.size() < payload.size()) got += port.ReadSome(kChunkBytes);
    const auto elapsed = Clock::now() - start;
    sender.join();
    Expect(got == payload, "direct: the bytes read differ from those sent");
    report["direct"] = {{"MiB_per_s", MiBps(payload.size(), elapsed)}};
  }
  report["bytes"] = payload.size();
  report["sent_ratio_to_direct"] = report["labgate"]["MiB_per_s_sent"].get<double>() /
                                   report["direct"]["MiB_per_s"].get<double>();
  return report;
}

// `query` calls and nothing else, for a profiler attached to labgate.
int QueriesOnly(const std::string& binary, double seconds) {
  auto device = PtyDevice::Create(InstrumentMode::kScpi);
  if (!device.ok()) throw std::runtime_error(std::string(device.status().message()));
  char data_template[] = "/tmp/labgate-serial-bench-XXXXXX";
  const std::string data_dir = mkdtemp(data_template);
  std::vector<double> latencies;
  {
    Gateway gateway(binary, data_dir);
    const std::string path = (*device)->path();
    gateway.Tool("open_port", OpenArgs(path));
    std::fprintf(stderr, "queries only: labgate pid %d\n", static_cast<int>(gateway.pid()));
    const auto until = Clock::now() + std::chrono::duration<double>(seconds);
    while (Clock::now() < until) {
      const auto start = Clock::now();
      json reply = gateway.Tool("query", {{"port_name", path}, {"data", "*IDN?"}});
      latencies.push_back(Micros(Clock::now() - start));
      Expect(reply.value("data", "") == kInstrumentId, "gateway query " + reply.dump());
    }
  }
  std::filesystem::remove_all(data_dir);
  std::printf("%s\n", json({{"query", Summary(latencies)}}).dump(2).c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr,
                 "usage: %s LABGATE_BINARY [round_trips] [round_trips_per_port_of_8] "
                 "[OTHER_LABGATE_BINARY]\n",
                 argv[0]);
    return 2;
  }
  if (absl::Status status = labgate::serial_harness::ReexecWithShimIfNeeded(argv); !status.ok()) {
    std::fprintf(stderr, "serial bench: FATAL: %s\n", std::string(status.message()).c_str());
    return 1;
  }
  if (absl::Status status = labgate::serial_harness::EnterPrivateMountNamespace(); !status.ok()) {
    std::fprintf(stderr, "serial bench: FATAL: %s (needs root)\n",
                 std::string(status.message()).c_str());
    return 1;
  }
  signal(SIGPIPE, SIG_IGN);
  const std::string binary = argv[1];
  const int round_trips = argc > 2 ? std::atoi(argv[2]) : 5000;
  const int per_port = argc > 3 ? std::atoi(argv[3]) : 1000;

  try {
    if (const char* seconds = std::getenv("LABGATE_BENCH_QUERIES_ONLY")) {
      return QueriesOnly(binary, std::atof(seconds));
    }
    std::vector<std::unique_ptr<PtyDevice>> devices;
    for (int i = 0; i < 8; ++i) {
      auto device = PtyDevice::Create(InstrumentMode::kScpi);
      if (!device.ok()) throw std::runtime_error(std::string(device.status().message()));
      devices.push_back(std::move(*device));
    }
    char data_template[] = "/tmp/labgate-serial-bench-XXXXXX";
    const std::string data_dir = mkdtemp(data_template);
    json report;
    std::string other_data_dir;
    {
      Gateway gateway(binary, data_dir);
      Floors floors;
      const std::filesystem::path floor_binary =
          std::filesystem::canonical("/proc/self/exe").parent_path().parent_path() /
          "labgate_stdio_floor";
      if (std::filesystem::exists(floor_binary)) {
        // Polling stdin for 300 us after each read, as labgate does by default.
        floors.bare =
            std::make_unique<Gateway>(std::vector<std::string>{floor_binary, "--spin-us", "300"});
        floors.grpc = std::make_unique<Gateway>(
            std::vector<std::string>{floor_binary, "--local-call", "--spin-us", "300"});
      } else {
        std::fprintf(stderr, "no %s: round_trip_query has no floor figures\n",
                     floor_binary.c_str());
      }
      if (argc > 4) {
        char other_template[] = "/tmp/labgate-serial-bench-other-XXXXXX";
        other_data_dir = mkdtemp(other_template);
        floors.other_build = std::make_unique<Gateway>(argv[4], other_data_dir);
      }
      json round_trips_report = RoundTrips(gateway, floors, devices[0]->path(), round_trips);
      report["round_trip_query"] = std::move(round_trips_report["query"]);
      round_trips_report.erase("query");
      report["round_trip"] = std::move(round_trips_report);
      std::fprintf(stderr, "round trips done\n");
      report["eight_ports"] = EightPorts(gateway, devices, per_port);
      std::fprintf(stderr, "eight ports done\n");
      report["wait_for"] = WaitForLatency(gateway, *devices[3], std::max(200, round_trips / 10));
      std::fprintf(stderr, "wait_for done\n");
      report["capture_8_ports_1MBps"] = CaptureStreams(gateway, devices, 3.0, 1e6);
      std::fprintf(stderr, "capture done\n");
      report["capture_1_port_max_rate"] = CaptureMaxRate(gateway, *devices[4], 16 << 20);
      std::fprintf(stderr, "max-rate capture done\n");
      report["transfer_1MiB_instrument_to_host"] = TransferIn(gateway, *devices[1]);
      // Last: it leaves an unterminated 2 MiB command in the instrument.
      report["transfer_1MiB_host_to_instrument"] = TransferOut(gateway, *devices[2]);
    }
    std::filesystem::remove_all(data_dir);
    if (!other_data_dir.empty()) std::filesystem::remove_all(other_data_dir);
    std::printf("%s\n", report.dump(2).c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "serial bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
