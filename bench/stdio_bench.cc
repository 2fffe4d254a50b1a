// Measures embedded labgate over real stdio pipes: sequential ping round trips,
// pipelined durable append_message, pipelined legacy `invoke` and pipelined tools/call
// on an action (each with a fixed number in flight), and idle RSS.
// Usage: labgate_stdio_bench LABGATE_BINARY [ping_count] [append_count] [in_flight]
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;
using nlohmann::json;

class GatewayProcess {
 public:
  GatewayProcess(const std::string& binary, const std::string& data_dir) {
    int to_child[2];
    int from_child[2];
    if (pipe(to_child) != 0 || pipe(from_child) != 0) throw std::runtime_error("pipe");
    pid_ = fork();
    if (pid_ == 0) {
      dup2(to_child[0], 0);
      dup2(from_child[1], 1);
      close(to_child[1]);
      close(from_child[0]);
      execl(binary.c_str(), binary.c_str(), "--data-dir", data_dir.c_str(), "--log-level",
            "warning", static_cast<char*>(nullptr));
      _exit(127);
    }
    close(to_child[0]);
    close(from_child[1]);
    in_ = to_child[1];
    out_ = from_child[0];
  }
  ~GatewayProcess() {
    close(in_);
    int status = 0;
    waitpid(pid_, &status, 0);
    close(out_);
  }

  void Write(const std::string& text) {
    size_t offset = 0;
    while (offset < text.size()) {
      ssize_t n = write(in_, text.data() + offset, text.size() - offset);
      if (n <= 0) throw std::runtime_error("write to labgate failed");
      offset += static_cast<size_t>(n);
    }
  }

  std::string ReadLine() {
    for (;;) {
      size_t newline = buffer_.find('\n');
      if (newline != std::string::npos) {
        std::string line = buffer_.substr(0, newline);
        buffer_.erase(0, newline + 1);
        return line;
      }
      char chunk[65536];
      ssize_t n = read(out_, chunk, sizeof(chunk));
      if (n <= 0) throw std::runtime_error("labgate closed stdout");
      buffer_.append(chunk, static_cast<size_t>(n));
    }
  }

  json Call(const json& request) {
    Write(request.dump() + "\n");
    return json::parse(ReadLine());
  }

  pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = -1;
  int in_ = -1;
  int out_ = -1;
  std::string buffer_;
};

double Percentile(std::vector<double> values, double p) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  size_t index = static_cast<size_t>(p * static_cast<double>(values.size() - 1));
  return values[index];
}

long RssKilobytes(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string key;
  while (status >> key) {
    if (key == "VmRSS:") {
      long kb = 0;
      status >> kb;
      return kb;
    }
    std::string rest;
    std::getline(status, rest);
  }
  return -1;
}

struct PipelineResult {
  double per_second = 0;
  double p50_ms = 0;
  double p99_ms = 0;
  int errors = 0;
};

// Keeps `in_flight` requests outstanding until `count` have been answered. `make` builds
// request number i with id `id`; `ok` judges a reply; replies are matched by "id".
PipelineResult RunPipelined(GatewayProcess& gateway, int count, int in_flight,
                            const std::function<json(long id)>& make,
                            const std::function<bool(const json&)>& ok) {
  std::map<long, Clock::time_point> sent;
  std::vector<double> latencies_ms;
  latencies_ms.reserve(static_cast<size_t>(count));
  static long next_id = 5000000;
  int issued = 0;
  PipelineResult result;
  auto send_one = [&] {
    long id = next_id++;
    sent[id] = Clock::now();
    gateway.Write(make(id).dump() + "\n");
    ++issued;
  };
  auto start = Clock::now();
  while (issued < std::min(in_flight, count)) send_one();
  for (int done = 0; done < count; ++done) {
    json reply = json::parse(gateway.ReadLine());
    const json& id_json = reply["id"];
    long id = id_json.is_string() ? std::stol(id_json.get<std::string>()) : id_json.get<long>();
    latencies_ms.push_back(
        std::chrono::duration<double, std::milli>(Clock::now() - sent[id]).count());
    sent.erase(id);
    if (!ok(reply)) ++result.errors;
    if (issued < count) send_one();
  }
  double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  result.per_second = count / seconds;
  result.p50_ms = Percentile(latencies_ms, 0.50);
  result.p99_ms = Percentile(latencies_ms, 0.99);
  return result;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s LABGATE_BINARY [pings] [appends] [in_flight]\n", argv[0]);
    return 2;
  }
  signal(SIGPIPE, SIG_IGN);
  const std::string binary = argv[1];
  const int pings = argc > 2 ? std::atoi(argv[2]) : 20000;
  const int appends = argc > 3 ? std::atoi(argv[3]) : 20000;
  const int in_flight = argc > 4 ? std::atoi(argv[4]) : 64;

  char data_template[] = "/tmp/labgate-bench-XXXXXX";
  std::string data_dir = mkdtemp(data_template);
  GatewayProcess gateway(binary, data_dir);
  gateway.Call({{"jsonrpc", "2.0"},
                {"id", 0},
                {"method", "initialize"},
                {"params",
                 {{"protocolVersion", "2025-11-25"},
                  {"capabilities", json::object()},
                  {"clientInfo", {{"name", "bench"}, {"version", "1"}}}}}});
  gateway.Write(R"({"jsonrpc":"2.0","method":"notifications/initialized"})"
                "\n");
  gateway.Call({{"jsonrpc", "2.0"}, {"id", 1}, {"method", "tools/list"}});
  usleep(500 * 1000);
  long idle_rss_kb = RssKilobytes(gateway.pid());

  // Sequential pings.
  auto start = Clock::now();
  for (int i = 0; i < pings; ++i) {
    gateway.Write(R"({"jsonrpc":"2.0","id":)" + std::to_string(i + 10) +
                  R"(,"method":"ping"})"
                  "\n");
    gateway.ReadLine();
  }
  double ping_seconds = std::chrono::duration<double>(Clock::now() - start).count();

  // Pipelined appends.
  json created = gateway.Call(
      {{"jsonrpc", "2.0"},
       {"id", "create"},
       {"method", "tools/call"},
       {"params", {{"name", "create_session"}, {"arguments", {{"device_id", "bench"}}}}}});
  std::string session_id = created["result"]["structuredContent"]["session"]["id"];
  std::map<long, Clock::time_point> sent;
  std::vector<double> latencies_ms;
  latencies_ms.reserve(static_cast<size_t>(appends));
  long next_id = 1000000;
  int issued = 0;
  int errors = 0;
  auto send_one = [&] {
    long id = next_id++;
    json request = {{"jsonrpc", "2.0"},
                    {"id", id},
                    {"method", "tools/call"},
                    {"params",
                     {{"name", "append_message"},
                      {"arguments",
                       {{"session_id", session_id},
                        {"content", "MEAS:VOLT? -> 5.0012"},
                        {"direction", "rx"},
                        {"features", "scpi,meas"}}}}}};
    sent[id] = Clock::now();
    gateway.Write(request.dump() + "\n");
    ++issued;
  };
  start = Clock::now();
  while (issued < std::min(in_flight, appends)) send_one();
  for (int done = 0; done < appends; ++done) {
    json reply = json::parse(gateway.ReadLine());
    long id = reply["id"].get<long>();
    latencies_ms.push_back(
        std::chrono::duration<double, std::milli>(Clock::now() - sent[id]).count());
    sent.erase(id);
    if (!reply.contains("result") || reply["result"].value("isError", true)) ++errors;
    if (issued < appends) send_one();
  }
  double append_seconds = std::chrono::duration<double>(Clock::now() - start).count();

  // Actions: the legacy envelope and tools/call on an action tool, both pipelined.
  const json action_input = {{"message", "I feel overwhelmed by this deadline"},
                             {"risk_level", "medium"}};
  PipelineResult legacy = RunPipelined(
      gateway, appends, in_flight,
      [&](long id) {
        return json{{"id", std::to_string(id)},
                    {"type", "invoke"},
                    {"payload", {{"action", "supportive_reply"}, {"input", action_input}}}};
      },
      [](const json& reply) { return reply.value("ok", false); });
  PipelineResult action_calls = RunPipelined(
      gateway, appends, in_flight,
      [&](long id) {
        return json{{"jsonrpc", "2.0"},
                    {"id", id},
                    {"method", "tools/call"},
                    {"params", {{"name", "supportive_reply"}, {"arguments", action_input}}}};
      },
      [](const json& reply) {
        return reply.contains("result") && !reply["result"].value("isError", true);
      });
  errors += legacy.errors + action_calls.errors;

  json report = {
      {"idle_rss_mb", static_cast<double>(idle_rss_kb) / 1024.0},
      {"ping_count", pings},
      {"ping_per_s", pings / ping_seconds},
      {"ping_mean_us", ping_seconds * 1e6 / pings},
      {"append_count", appends},
      {"append_in_flight", in_flight},
      {"append_per_s", appends / append_seconds},
      {"append_p50_ms", Percentile(latencies_ms, 0.50)},
      {"append_p99_ms", Percentile(latencies_ms, 0.99)},
      {"legacy_invoke_per_s", legacy.per_second},
      {"legacy_invoke_p50_ms", legacy.p50_ms},
      {"legacy_invoke_p99_ms", legacy.p99_ms},
      {"action_call_per_s", action_calls.per_second},
      {"action_call_p50_ms", action_calls.p50_ms},
      {"action_call_p99_ms", action_calls.p99_ms},
      {"errors", errors},
  };
  std::printf("%s\n", report.dump(2).c_str());
  std::string cleanup = "rm -rf '" + data_dir + "'";
  if (std::system(cleanup.c_str()) != 0)
    std::fprintf(stderr, "could not remove %s\n", data_dir.c_str());
  return errors == 0 ? 0 : 1;
}
