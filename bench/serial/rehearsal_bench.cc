// Rehearsal benchmarks (issue 33), through embedded `labgate` over stdio, no hardware:
//   1. a `query` to sim://SIM-PSU (the example profile's simulation) against one to a loop://
//      port, in alternating blocks of the same run;
//   2. loading a 10,000-message session for replay: open_port replay://ID?speed=0 (which reads
//      every message from the session service) against open_port loop://, alternating;
//   3. replay timing at speed 1: a recording whose replies came 5 to 50 ms after their
//      commands is replayed, and each reply's latency as the client sees it is compared with
//      the recorded delay.
// Prints one JSON report on stdout.
//
// Usage: labgate_rehearsal_bench LABGATE_BINARY [queries] [loads] [timed_replies]
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "bench/serial/stdio_gateway.h"

namespace {

using Clock = std::chrono::steady_clock;
using labgate::bench::Gateway;
using nlohmann::json;

double Micros(Clock::duration d) { return std::chrono::duration<double, std::micro>(d).count(); }

double Percentile(std::vector<double> values, double p) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  return values[static_cast<size_t>(p * static_cast<double>(values.size() - 1))];
}

json Summary(const std::vector<double>& values, const char* unit) {
  return {{"count", values.size()},
          {absl::StrCat("p50_", unit), Percentile(values, 0.50)},
          {absl::StrCat("p99_", unit), Percentile(values, 0.99)},
          {absl::StrCat("max_", unit), Percentile(values, 1.0)}};
}

template <typename Call>
double Timed(Call call) {
  const auto started = Clock::now();
  call();
  return Micros(Clock::now() - started);
}

// 1. sim:// against loop://, the same query, alternating blocks.
json SimAgainstLoop(Gateway& gateway, int total) {
  gateway.Tool("open_port",
               {{"port_name", "sim://SIM-PSU"}, {"baud_rate", 115200}, {"terminator", "\n"}});
  gateway.Tool("open_port",
               {{"port_name", "loop://bench"}, {"baud_rate", 115200}, {"terminator", "\n"}});
  gateway.Tool("wait_for", {{"port_name", "sim://SIM-PSU"},
                            {"patterns", {"ready\n"}},
                            {"regex", false},
                            {"timeout_ms", 2000}});
  auto query = [&](const char* port, const char* expected) {
    json reply = gateway.Tool("query", {{"port_name", port}, {"data", "*IDN?"}});
    if (reply.value("data", "") != expected) throw std::runtime_error("query " + reply.dump());
  };
  std::vector<double> sim, loop;
  constexpr int kBlocks = 10;
  const int per_block = std::max(1, total / kBlocks);
  for (int i = 0; i < 100; ++i) {  // warm-up
    query("sim://SIM-PSU", "LABGATE,SIM-PSU,SIM0001,1.0");
    query("loop://bench", "*IDN?");
  }
  for (int block = 0; block < kBlocks; ++block) {
    for (int i = 0; i < per_block; ++i) {
      sim.push_back(Timed([&] { query("sim://SIM-PSU", "LABGATE,SIM-PSU,SIM0001,1.0"); }));
    }
    for (int i = 0; i < per_block; ++i) {
      loop.push_back(Timed([&] { query("loop://bench", "*IDN?"); }));
    }
  }
  gateway.Tool("close", {{"port_name", "sim://SIM-PSU"}});
  gateway.Tool("close", {{"port_name", "loop://bench"}});
  return {{"sim", Summary(sim, "us")},
          {"loop", Summary(loop, "us")},
          {"p50_ratio_sim_to_loop", Percentile(sim, 0.5) / Percentile(loop, 0.5)}};
}

// An export of `pairs` tx/rx exchanges, each reply `delay_ms(i)` after its command.
template <typename Delay>
json Export(int pairs, Delay delay_ms) {
  json messages = json::array();
  absl::Time at = absl::FromUnixSeconds(1800000000);
  auto stamp = [](absl::Time t) {
    return absl::FormatTime("%Y-%m-%dT%H:%M:%E3SZ", t, absl::UTCTimeZone());
  };
  for (int i = 0; i < pairs; ++i) {
    at += absl::Milliseconds(20);
    messages.push_back({{"role", "device"},
                        {"direction", "tx"},
                        {"features", "serial,bench"},
                        {"content", absl::StrCat("MEAS:VOLT? ", i, "\n")},
                        {"occurred_at", stamp(at)}});
    at += absl::Milliseconds(delay_ms(i));
    messages.push_back({{"role", "device"},
                        {"direction", "rx"},
                        {"features", "serial,bench"},
                        {"content", absl::StrFormat("%d.%03d\n", i / 1000, i % 1000)},
                        {"occurred_at", stamp(at)}});
  }
  return {{"session", {{"id", "bench"}, {"device_id", "bench-psu"}}}, {"messages", messages}};
}

// 2. open_port replay:// of a 10,000-message session, against open_port loop://.
json ReplayLoad(Gateway& gateway, int loads) {
  const json imported =
      gateway.Tool("import_session", {{"export", Export(5000, [](int) { return 2; })}});
  const std::string port =
      absl::StrCat("replay://", imported["session"]["id"].get<std::string>(), "?speed=0");
  std::vector<double> replay_ms, loop_ms;
  for (int i = 0; i < loads; ++i) {
    replay_ms.push_back(Timed([&] {
                          gateway.Tool("open_port", {{"port_name", port}, {"baud_rate", 9600}});
                        }) /
                        1000);
    json status = gateway.Tool("replay_status", {{"port_name", port}});
    if (status.value("total_tx", 0) != 5000) throw std::runtime_error(status.dump());
    gateway.Tool("close", {{"port_name", port}});
    loop_ms.push_back(
        Timed([&] {
          gateway.Tool("open_port", {{"port_name", "loop://load"}, {"baud_rate", 9600}});
        }) /
        1000);
    gateway.Tool("close", {{"port_name", "loop://load"}});
  }
  return {{"messages", imported.value("message_count", 0)},
          {"open_replay", Summary(replay_ms, "ms")},
          {"open_loop", Summary(loop_ms, "ms")}};
}

// 3. Each replayed reply's latency minus its recorded delay, at speed 1.
json ReplayTiming(Gateway& gateway, int replies) {
  auto delay = [](int i) { return 5 + (i * 7) % 46; };  // 5..50 ms
  const json imported = gateway.Tool("import_session", {{"export", Export(replies, delay)}});
  const std::string port = absl::StrCat("replay://", imported["session"]["id"].get<std::string>());
  gateway.Tool("open_port", {{"port_name", port}, {"baud_rate", 9600}, {"terminator", "\n"}});
  std::vector<double> error_ms;
  for (int i = 0; i < replies; ++i) {
    const auto started = Clock::now();
    json reply = gateway.Tool(
        "query",
        {{"port_name", port}, {"data", absl::StrCat("MEAS:VOLT? ", i)}, {"timeout_ms", 1000}});
    const double took_ms = Micros(Clock::now() - started) / 1000;
    if (reply.value("timed_out", false)) throw std::runtime_error("replay reply timed out");
    error_ms.push_back(took_ms - delay(i));
  }
  gateway.Tool("close", {{"port_name", port}});
  std::vector<double> magnitude;
  magnitude.reserve(error_ms.size());
  for (double e : error_ms) magnitude.push_back(std::abs(e));
  return {{"late_by", Summary(error_ms, "ms")},
          {"min_ms", Percentile(error_ms, 0)},
          {"abs_error", Summary(magnitude, "ms")}};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s LABGATE_BINARY [queries] [loads] [timed_replies]\n", argv[0]);
    return 2;
  }
  signal(SIGPIPE, SIG_IGN);
  const int queries = argc > 2 ? std::atoi(argv[2]) : 5000;
  const int loads = argc > 3 ? std::atoi(argv[3]) : 10;
  const int timed = argc > 4 ? std::atoi(argv[4]) : 200;
  try {
    char data_template[] = "/tmp/labgate-rehearsal-bench-XXXXXX";
    const std::string data_dir = mkdtemp(data_template);
    json report;
    {
      Gateway gateway(argv[1], data_dir,
                      {"--profiles", LABGATE_SOURCE_DIR "/examples/instruments/profiles"});
      report["sim_against_loop_query"] = SimAgainstLoop(gateway, queries);
      std::fprintf(stderr, "sim against loop done\n");
      report["replay_load_10000_messages"] = ReplayLoad(gateway, loads);
      std::fprintf(stderr, "replay load done\n");
      report["replay_timing_speed_1"] = ReplayTiming(gateway, timed);
    }
    std::filesystem::remove_all(data_dir);
    std::printf("%s\n", report.dump(2).c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rehearsal bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
