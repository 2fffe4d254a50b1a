// Side-by-side stdio benchmark: labgate and the TypeScript reference servers, each a child
// process on real pipes, driven by the same client in the same run. For every case it
// reports throughput and latency percentiles at 1 (sequential), 16 and 64 requests in
// flight; the levels run one after another, every server taking its turn within a level,
// so that a change in the machine's load touches all of them alike.
//
// Cases: server-everything's `echo` (a local function); labgate's `status` (one in-process
// gRPC call, no device), `get_session` (a SQLite read), `append_message` (a durable write:
// one fsync per group commit) and `supportive_reply` (an action); optionally `echo` on a
// server built with the v2 SDK, and the same labgate cases on another labgate build
// (--labgate-before), to measure a change before and after in one run; and `echo` on the
// floor server (bench/stdio_floor.cc, --floor): alone, paying one in-process gRPC call per
// tools/call, and paying one message each way on a long-lived gRPC stream instead. That is
// what any server, and any server that crosses gRPC, pays on this machine with this client.
// With --floor-spin-us N, also the floor polling stdin for N µs after each read instead of
// sleeping at once (what a server would gain by spending CPU between requests), alone and
// with the in-process call labgate pays; with --floor-lanes N, also that call shared among N
// threads.
//
// C++ and one thread with no JSON parser on the hot path, so that the client does not cap
// the faster server: a reply is matched by its top-level "id", found by a small scanner.
//
//   labgate_stdio_compare --labgate BIN --node NODE --everything INDEX_JS [--v2 SCRIPT]
//                         [--labgate-before BIN [--labgate-before-name NAME]]
//                         [--floor BIN] [--floor-spin-us N]
//                         [--floor-lanes N] [--seconds 3]
//                         [--rounds 3] [--levels 1,16,64] [--cases a,b]
//
// A readable table goes to stderr, one JSON report to stdout.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;
using nlohmann::json;

// A server as a child process on two pipes; its stderr goes to a log file.
class Child {
 public:
  Child(const std::vector<std::string>& argv, const std::string& log_path) {
    int to_child[2];
    int from_child[2];
    if (pipe2(to_child, O_CLOEXEC) != 0 || pipe2(from_child, O_CLOEXEC) != 0) {
      throw std::runtime_error("pipe");
    }
    pid_ = fork();
    if (pid_ == 0) {
      dup2(to_child[0], 0);
      dup2(from_child[1], 1);
      int log = open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (log >= 0) dup2(log, 2);
      std::vector<char*> args;
      args.reserve(argv.size() + 1);
      for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
      args.push_back(nullptr);
      execv(args[0], args.data());
      _exit(127);
    }
    close(to_child[0]);
    close(from_child[1]);
    in_ = to_child[1];
    out_ = from_child[0];
  }
  ~Child() {
    close(in_);
    // The reference servers do not all exit when stdin closes.
    for (int i = 0; i < 100; ++i) {
      int status = 0;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        close(out_);
        return;
      }
      usleep(20 * 1000);
    }
    kill(pid_, SIGTERM);
    int status = 0;
    waitpid(pid_, &status, 0);
    close(out_);
  }
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;

  void Write(std::string_view text) {
    while (!text.empty()) {
      const ssize_t n = write(in_, text.data(), text.size());
      if (n <= 0) throw std::runtime_error("write to the server failed");
      text.remove_prefix(static_cast<size_t>(n));
    }
  }

  // Appends what one read() brings to `buffer`; throws at EOF.
  void ReadSome(std::string* buffer) {
    char chunk[1 << 16];
    const ssize_t n = read(out_, chunk, sizeof(chunk));
    if (n <= 0) throw std::runtime_error("the server closed stdout");
    buffer->append(chunk, static_cast<size_t>(n));
  }

  pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = -1;
  int in_ = -1;
  int out_ = -1;
};

// What the client needs of one reply line: its numeric top-level id (-1 when there is none:
// a notification, or a request from the server) and whether it failed (a top-level
// "error", or a tool result with isError true). Scans once, without building a tree.
struct ReplyFacts {
  long id = -1;
  bool failed = false;
};

ReplyFacts ScanReply(std::string_view line) {
  ReplyFacts facts;
  int depth = 0;
  bool in_string = false;
  bool expect_key = false;
  size_t key_start = 0;
  std::string_view last_key;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
        if (expect_key && depth == 1) last_key = line.substr(key_start, i - key_start);
      }
      continue;
    }
    switch (c) {
      case '"':
        in_string = true;
        key_start = i + 1;
        break;
      case '{':
        ++depth;
        expect_key = true;
        break;
      case '[':
        ++depth;
        expect_key = false;
        break;
      case '}':
      case ']':
        --depth;
        break;
      case ',':
        expect_key = true;
        break;
      case ':':
        expect_key = false;
        if (depth == 1 && last_key == "id") {
          size_t at = i + 1;
          while (at < line.size() && line[at] == ' ') ++at;
          if (at < line.size() && (line[at] == '-' || (line[at] >= '0' && line[at] <= '9'))) {
            facts.id = std::strtol(line.data() + at, nullptr, 10);
          }
        }
        if (depth == 1 && last_key == "error") facts.failed = true;
        last_key = {};
        break;
      default:
        break;
    }
  }
  if (line.find("\"isError\":true") != std::string_view::npos) facts.failed = true;
  return facts;
}

// Takes complete lines out of `buffer`, calling `on_line` for each.
template <typename OnLine>
void TakeLines(std::string* buffer, OnLine on_line) {
  size_t start = 0;
  for (size_t newline; (newline = buffer->find('\n', start)) != std::string::npos;
       start = newline + 1) {
    on_line(std::string_view(buffer->data() + start, newline - start));
  }
  buffer->erase(0, start);
}

double Percentile(std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0;
  return sorted[static_cast<size_t>(p * static_cast<double>(sorted.size() - 1))];
}

// CPU time the process has used so far, all its threads (user + system), in microseconds.
double CpuMicros(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  // Fields after the command name, which ends with the last ')': state is field 3.
  std::istringstream fields(text.substr(text.rfind(')') + 2));
  std::string field;
  double ticks = 0;
  for (int i = 3; i <= 15 && fields >> field; ++i) {
    if (i == 14 || i == 15) ticks += std::stod(field);  // utime, stime
  }
  return ticks * 1e6 / static_cast<double>(sysconf(_SC_CLK_TCK));
}

long RssKilobytes(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::atol(line.c_str() + 6);
  }
  return -1;
}

// One MCP server under test: the child, its pending output, and its request ids.
class Server {
 public:
  Server(std::string label, const std::vector<std::string>& argv, const std::string& log_path)
      : label_(std::move(label)), child_(argv, log_path) {}

  const std::string& label() const { return label_; }
  pid_t pid() const { return child_.pid(); }

  // One request, waiting for its reply, parsed (setup only, not measured).
  json Call(const std::string& method, const json& params) {
    const long id = next_id_++;
    child_.Write(
        json{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}}.dump() + "\n");
    for (;;) {
      std::string found;
      TakeLines(&buffer_, [&](std::string_view line) {
        if (ScanReply(line).id == id) found = std::string(line);
      });
      if (!found.empty()) return json::parse(found);
      child_.ReadSome(&buffer_);
    }
  }

  void Notify(const std::string& method) {
    child_.Write(json{{"jsonrpc", "2.0"}, {"method", method}}.dump() + "\n");
  }

  void Initialize() {
    json reply =
        Call("initialize", {{"protocolVersion", "2025-11-25"},
                            {"capabilities", json::object()},
                            {"clientInfo", {{"name", "stdio-compare"}, {"version", "1"}}}});
    if (!reply.contains("result")) throw std::runtime_error(label_ + ": " + reply.dump());
    Notify("notifications/initialized");
    Call("tools/list", json::object());
  }

  // A tool's structuredContent (or the whole result); throws when the call failed.
  json Tool(const std::string& name, const json& arguments) {
    json reply = Call("tools/call", {{"name", name}, {"arguments", arguments}});
    if (!reply.contains("result") || reply["result"].value("isError", false)) {
      throw std::runtime_error(label_ + " " + name + ": " + reply.dump());
    }
    const json& result = reply["result"];
    return result.contains("structuredContent") ? result["structuredContent"] : result;
  }

  struct Figures {
    long calls = 0;
    long errors = 0;
    double seconds = 0;
    double per_second = 0;
    double p50_us = 0;
    double p90_us = 0;
    double p99_us = 0;
    double cpu_us_per_call = 0;  // the server's CPU time (all threads) per call
  };

  // Keeps `in_flight` copies of the request outstanding for `seconds`, then waits for the
  // last replies. `tail` is the request after its id: `,"method":...}` with no newline.
  Figures Drive(const std::string& tail, int in_flight, double seconds) {
    std::vector<Clock::time_point> sent;  // by id - first
    std::vector<double> latencies_us;
    latencies_us.reserve(1 << 16);
    const long first = next_id_;
    long outstanding = 0;
    Figures figures;
    std::string out;
    auto queue_one = [&] {
      out += "{\"jsonrpc\":\"2.0\",\"id\":";
      out += std::to_string(next_id_++);
      out += tail;
      out += '\n';
      sent.push_back(Clock::now());
      ++outstanding;
    };
    const double cpu_before = CpuMicros(child_.pid());
    const auto start = Clock::now();
    const auto deadline =
        start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
    for (int i = 0; i < in_flight; ++i) queue_one();
    child_.Write(out);
    out.clear();
    while (outstanding > 0) {
      child_.ReadSome(&buffer_);
      const auto now = Clock::now();
      TakeLines(&buffer_, [&](std::string_view line) {
        const ReplyFacts facts = ScanReply(line);
        if (facts.id < first || facts.id >= next_id_) return;  // not one of ours
        latencies_us.push_back(
            std::chrono::duration<double, std::micro>(now - sent[facts.id - first]).count());
        if (facts.failed) ++figures.errors;
        --outstanding;
        if (now < deadline) queue_one();
      });
      if (!out.empty()) {
        child_.Write(out);
        out.clear();
      }
    }
    figures.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    figures.calls = static_cast<long>(latencies_us.size());
    figures.cpu_us_per_call =
        (CpuMicros(child_.pid()) - cpu_before) / static_cast<double>(std::max(1L, figures.calls));
    figures.per_second = static_cast<double>(figures.calls) / figures.seconds;
    std::sort(latencies_us.begin(), latencies_us.end());
    figures.p50_us = Percentile(latencies_us, 0.50);
    figures.p90_us = Percentile(latencies_us, 0.90);
    figures.p99_us = Percentile(latencies_us, 0.99);
    return figures;
  }

 private:
  std::string label_;
  Child child_;
  std::string buffer_;
  long next_id_ = 1;
};

// One thing measured: a tool on a server, with fixed arguments.
struct Case {
  std::string name;  // e.g. "labgate status"
  Server* server;
  std::string tool;
  json arguments;
  std::string Tail() const {
    return ",\"method\":\"tools/call\",\"params\":" +
           json{{"name", tool}, {"arguments", arguments}}.dump() + "}";
  }
};

std::vector<std::string> Split(const std::string& text) {
  std::vector<std::string> parts;
  std::stringstream stream(text);
  for (std::string part; std::getline(stream, part, ',');) {
    if (!part.empty()) parts.push_back(part);
  }
  return parts;
}

struct Options {
  std::string labgate;
  std::string node;
  std::string everything;
  std::string v2;
  std::string labgate_before;  // another labgate build, measured beside (before/after)
  std::string labgate_before_name = "labgate-before";  // its label (e.g. labgate-split)
  std::string floor;                                   // labgate_stdio_floor
  int floor_spin_us = 0;  // also the floor polling stdin this long after each read
  int floor_lanes = 1;    // also the floor's hop shared among this many threads
  double seconds = 3;
  int rounds = 3;
  std::vector<int> levels = {1, 16, 64};
  std::vector<std::string> cases;  // empty: all
};

Options ParseOptions(int argc, char** argv) {
  Options options;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const std::string value = argv[i + 1];
    if (flag == "--labgate") {
      options.labgate = value;
    } else if (flag == "--node") {
      options.node = value;
    } else if (flag == "--everything") {
      options.everything = value;
    } else if (flag == "--v2") {
      options.v2 = value;
    } else if (flag == "--labgate-before") {
      options.labgate_before = value;
    } else if (flag == "--labgate-before-name") {
      options.labgate_before_name = value;
    } else if (flag == "--floor") {
      options.floor = value;
    } else if (flag == "--floor-spin-us") {
      options.floor_spin_us = std::stoi(value);
    } else if (flag == "--floor-lanes") {
      options.floor_lanes = std::stoi(value);
    } else if (flag == "--seconds") {
      options.seconds = std::stod(value);
    } else if (flag == "--rounds") {
      options.rounds = std::stoi(value);
    } else if (flag == "--levels") {
      options.levels.clear();
      for (const std::string& level : Split(value)) options.levels.push_back(std::stoi(level));
    } else if (flag == "--cases") {
      options.cases = Split(value);
    } else {
      throw std::runtime_error("unknown flag " + flag);
    }
  }
  if (options.labgate.empty() || options.node.empty() || options.everything.empty()) {
    throw std::runtime_error(
        "usage: labgate_stdio_compare --labgate BIN --node NODE --everything INDEX_JS "
        "[--v2 SCRIPT] [--labgate-before BIN [--labgate-before-name NAME]] [--floor BIN] "
        "[--floor-spin-us N] [--floor-lanes N] "
        "[--seconds S] "
        "[--rounds N] "
        "[--levels 1,16,64] [--cases a,b]");
  }
  return options;
}

json FiguresJson(const Server::Figures& f) {
  return {{"calls", f.calls},
          {"errors", f.errors},
          {"per_s", f.per_second},
          {"p50_us", f.p50_us},
          {"p90_us", f.p90_us},
          {"p99_us", f.p99_us},
          {"cpu_us_per_call", f.cpu_us_per_call}};
}

// labgate's cases on `server`, named "<label> <tool>".
std::vector<Case> LabgateCases(Server* server) {
  const std::string session_id =
      server->Tool("create_session", {{"device_id", "bench"}})["session"]["id"];
  const std::string& label = server->label();
  return {
      {label + " status", server, "status", json::object()},
      {label + " get_session", server, "get_session", {{"session_id", session_id}}},
      {label + " append_message",
       server,
       "append_message",
       {{"session_id", session_id},
        {"content", "MEAS:VOLT? -> 5.0012"},
        {"direction", "rx"},
        {"features", "scpi,meas"}}},
      {label + " supportive_reply",
       server,
       "supportive_reply",
       {{"message", "I feel overwhelmed by this deadline"}, {"risk_level", "medium"}}},
  };
}

// Starts the servers, measures every case, prints the report; the servers are gone when it
// returns.
int Run(const Options& options, const std::string& work) {
  Server labgate("labgate",
                 {options.labgate, "--data-dir", work + "/data", "--log-level", "warning"},
                 work + "/labgate.log");
  Server everything("server-everything", {options.node, options.everything, "stdio"},
                    work + "/everything.log");
  std::unique_ptr<Server> v2;
  if (!options.v2.empty()) {
    v2 = std::make_unique<Server>("v2-sdk", std::vector<std::string>{options.node, options.v2},
                                  work + "/v2.log");
  }
  std::unique_ptr<Server> before;
  if (!options.labgate_before.empty()) {
    before = std::make_unique<Server>(
        options.labgate_before_name,
        std::vector<std::string>{options.labgate_before, "--data-dir", work + "/data-before",
                                 "--log-level", "warning"},
        work + "/labgate-before.log");
  }
  std::unique_ptr<Server> floor;
  std::unique_ptr<Server> floor_grpc;
  std::unique_ptr<Server> floor_stream;
  std::unique_ptr<Server> floor_spin;
  std::unique_ptr<Server> floor_grpc_spin;
  std::unique_ptr<Server> floor_lanes;
  if (!options.floor.empty()) {
    floor = std::make_unique<Server>("floor", std::vector<std::string>{options.floor},
                                     work + "/floor.log");
    floor_grpc = std::make_unique<Server>("floor+local",
                                          std::vector<std::string>{options.floor, "--local-call"},
                                          work + "/floor-local.log");
    floor_stream = std::make_unique<Server>(
        "floor+stream", std::vector<std::string>{options.floor, "--grpc-stream"},
        work + "/floor-stream.log");
    if (options.floor_spin_us > 0) {
      floor_spin =
          std::make_unique<Server>("floor+spin",
                                   std::vector<std::string>{options.floor, "--spin-us",
                                                            std::to_string(options.floor_spin_us)},
                                   work + "/floor-spin.log");
      floor_grpc_spin = std::make_unique<Server>(
          "floor+local+spin",
          std::vector<std::string>{options.floor, "--local-call", "--spin-us",
                                   std::to_string(options.floor_spin_us)},
          work + "/floor-local-spin.log");
    }
    if (options.floor_lanes > 1) {
      floor_lanes = std::make_unique<Server>(
          "floor+local lanes",
          std::vector<std::string>{options.floor, "--local-call", "--lanes",
                                   std::to_string(options.floor_lanes)},
          work + "/floor-lanes.log");
    }
  }
  std::string pids = "labgate pid " + std::to_string(labgate.pid()) + ", server-everything pid " +
                     std::to_string(everything.pid());
  if (v2) pids += ", v2 pid " + std::to_string(v2->pid());
  if (before) pids += ", labgate-before pid " + std::to_string(before->pid());
  std::fprintf(stderr, "%s\n", pids.c_str());

  double load_at_start[3] = {0, 0, 0};
  if (getloadavg(load_at_start, 3) != 3) load_at_start[0] = -1;
  labgate.Initialize();
  everything.Initialize();
  if (v2) v2->Initialize();
  if (before) before->Initialize();
  if (floor) floor->Initialize();
  if (floor_grpc) floor_grpc->Initialize();
  if (floor_stream) floor_stream->Initialize();
  if (floor_spin) floor_spin->Initialize();
  if (floor_grpc_spin) floor_grpc_spin->Initialize();
  if (floor_lanes) floor_lanes->Initialize();
  usleep(500 * 1000);
  json rss = {{"labgate_idle_mb", RssKilobytes(labgate.pid()) / 1024.0},
              {"server_everything_idle_mb", RssKilobytes(everything.pid()) / 1024.0}};
  if (v2) rss["v2_sdk_idle_mb"] = RssKilobytes(v2->pid()) / 1024.0;
  if (before) rss["labgate_before_idle_mb"] = RssKilobytes(before->pid()) / 1024.0;

  std::vector<Case> all = {{"server-everything echo", &everything, "echo", {{"message", "hello"}}}};
  for (Case& c : LabgateCases(&labgate)) all.push_back(std::move(c));
  if (before) {
    for (Case& c : LabgateCases(before.get())) all.push_back(std::move(c));
  }
  if (v2) all.push_back({"v2-sdk echo", v2.get(), "echo", {{"message", "hello"}}});
  if (floor) all.push_back({"floor echo", floor.get(), "echo", {{"message", "hello"}}});
  if (floor_grpc) {
    all.push_back({"floor+local echo", floor_grpc.get(), "echo", {{"message", "hello"}}});
    all.push_back({"floor+stream echo", floor_stream.get(), "echo", {{"message", "hello"}}});
  }
  if (floor_spin) {
    all.push_back({"floor+spin echo", floor_spin.get(), "echo", {{"message", "hello"}}});
    all.push_back({"floor+local+spin echo", floor_grpc_spin.get(), "echo", {{"message", "hello"}}});
  }
  if (floor_lanes) {
    all.push_back({"floor+local lanes echo", floor_lanes.get(), "echo", {{"message", "hello"}}});
  }
  std::vector<Case> cases;
  for (const Case& c : all) {
    if (options.cases.empty() ||
        std::find(options.cases.begin(), options.cases.end(), c.name) != options.cases.end() ||
        std::find(options.cases.begin(), options.cases.end(), c.tool) != options.cases.end()) {
      cases.push_back(c);
    }
  }
  // Each case once, so that lazy work (first gRPC call, JIT) is not measured.
  for (const Case& c : cases) {
    c.server->Tool(c.tool, c.arguments);
    c.server->Drive(c.Tail(), 16, std::min(1.0, options.seconds));
  }

  json rounds = json::array();
  long errors = 0;
  for (int round = 1; round <= options.rounds; ++round) {
    json levels = json::object();
    for (int level : options.levels) {
      json results = json::object();
      std::fprintf(stderr, "\nround %d, %d in flight%s\n", round, level,
                   level == 1 ? " (sequential)" : "");
      std::fprintf(stderr, "  %-28s %10s %10s %10s %12s %7s\n", "case", "calls/s", "p50 us",
                   "p99 us", "CPU us/call", "errors");
      for (const Case& c : cases) {
        const Server::Figures f = c.server->Drive(c.Tail(), level, options.seconds);
        errors += f.errors;
        results[c.name] = FiguresJson(f);
        std::fprintf(stderr, "  %-28s %10.0f %10.1f %10.1f %12.1f %7ld\n", c.name.c_str(),
                     f.per_second, f.p50_us, f.p99_us, f.cpu_us_per_call, f.errors);
      }
      // Ratios against the reference's echo, in this level of this round.
      json ratios = json::object();
      if (results.contains("server-everything echo")) {
        const json& reference = results["server-everything echo"];
        for (const auto& [name, figures] : results.items()) {
          if (name == "server-everything echo") continue;
          ratios[name] = {
              {"throughput", figures["per_s"].get<double>() / reference["per_s"].get<double>()},
              {"p50", figures["p50_us"].get<double>() / reference["p50_us"].get<double>()}};
          std::fprintf(stderr, "  %-28s %9.2fx throughput, p50 %.2fx the reference's\n",
                       name.c_str(), ratios[name]["throughput"].get<double>(),
                       ratios[name]["p50"].get<double>());
        }
      }
      levels[std::to_string(level)] = {{"cases", std::move(results)},
                                       {"vs_server_everything_echo", std::move(ratios)}};
    }
    rounds.push_back({{"round", round}, {"in_flight", std::move(levels)}});
  }
  rss["labgate_after_mb"] = RssKilobytes(labgate.pid()) / 1024.0;
  double load[3] = {0, 0, 0};
  if (getloadavg(load, 3) != 3) load[0] = -1;
  json report = {{"seconds_per_case", options.seconds},
                 {"rss", rss},
                 {"load_average_at_start", {load_at_start[0], load_at_start[1], load_at_start[2]}},
                 {"load_average_at_end", {load[0], load[1], load[2]}},
                 {"errors", errors},
                 {"rounds", std::move(rounds)}};
  std::printf("%s\n", report.dump(2).c_str());
  return errors == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  signal(SIGPIPE, SIG_IGN);
  Options options;
  try {
    options = ParseOptions(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  }
  char work_template[] = "/tmp/labgate-stdio-compare-XXXXXX";
  const std::string work = mkdtemp(work_template);
  int status = 1;
  try {
    status = Run(options, work);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "stdio compare: %s\n", e.what());
  }
  const std::string cleanup = "rm -rf '" + work + "'";
  if (std::system(cleanup.c_str()) != 0)
    std::fprintf(stderr, "could not remove %s\n", work.c_str());
  return status;
}
