// What the safety policy costs per write: PolicyEngine::CheckWrite with the RE2 rules labgate
// uses now, beside the same rules searched with std::regex (ECMAScript, as before). The writes
// are an everyday SCPI command that no rule matches, one a deny rule refuses, and a 4 KiB block
// of data; the last case is a pattern that makes a backtracking engine slow on a short write.
//   build/bench/policy/labgate_policy_pattern_bench
#include <benchmark/benchmark.h>

#include <regex>
#include <string>
#include <vector>

#include "common/byte_pattern.h"
#include "serial-service/policy/policy.h"
#include "serial-service/policy/policy_engine.h"

namespace {

using labgate::serial::ParsePolicy;
using labgate::serial::PolicyEngine;

// The documented example's rules (docs/OPERATIONS.md, "Safety policy").
constexpr char kPolicy[] = R"json({"ports": [{"match": "loop://*",
  "deny": [{"name": "no-reset", "pattern": "^\\*RST"}],
  "confirm": [{"name": "output-on", "pattern": "^OUTP(UT)? ON"}]}]})json";

const std::vector<std::string>& Writes() {
  static const std::vector<std::string> writes = {"VOLT 5.000;CURR 0.100", "*RST",
                                                  std::string(4096, 'x')};
  return writes;
}

void BM_CheckWriteRe2(benchmark::State& state) {
  PolicyEngine engine;
  engine.Replace(*ParsePolicy(kPolicy, "bench"));
  const std::string& write = Writes()[static_cast<size_t>(state.range(0))];
  for (auto _ : state) {
    benchmark::DoNotOptimize(engine.CheckWrite("alice", "loop://psu", write, ""));
  }
}
BENCHMARK(BM_CheckWriteRe2)->Arg(0)->Arg(1)->Arg(2);

// The two searches CheckWrite makes, alone: the deny rule, then the confirm rule when the deny
// rule does not match; with RE2, then with std::regex.
void BM_SearchRe2(benchmark::State& state) {
  const auto deny = *labgate::CompilePattern("^\\*RST", labgate::PatternInput::kBytes, "deny");
  const auto confirm =
      *labgate::CompilePattern("^OUTP(UT)? ON", labgate::PatternInput::kBytes, "confirm");
  const std::string& write = Writes()[static_cast<size_t>(state.range(0))];
  for (auto _ : state) {
    bool refused = labgate::PatternFound(*deny, write);
    if (!refused) refused = labgate::PatternFound(*confirm, write);
    benchmark::DoNotOptimize(refused);
  }
}
BENCHMARK(BM_SearchRe2)->Arg(0)->Arg(1)->Arg(2);

void BM_SearchStdRegex(benchmark::State& state) {
  const std::regex deny("^\\*RST", std::regex::ECMAScript | std::regex::optimize);
  const std::regex confirm("^OUTP(UT)? ON", std::regex::ECMAScript | std::regex::optimize);
  const std::string& write = Writes()[static_cast<size_t>(state.range(0))];
  for (auto _ : state) {
    bool refused = std::regex_search(write, deny);
    if (!refused) refused = std::regex_search(write, confirm);
    benchmark::DoNotOptimize(refused);
  }
}
BENCHMARK(BM_SearchStdRegex)->Arg(0)->Arg(1)->Arg(2);

// "(a|aa)+$" against 28 a's and a '!': the time a backtracking engine takes grows with the
// Fibonacci numbers; RE2's stays linear.
constexpr char kHostile[] = R"json({"ports": [{"match": "loop://*",
  "deny": [{"name": "hostile", "pattern": "(a|aa)+$"}]}]})json";

void BM_HostileRe2(benchmark::State& state) {
  PolicyEngine engine;
  engine.Replace(*ParsePolicy(kHostile, "bench"));
  const std::string write = std::string(28, 'a') + "!";
  for (auto _ : state) {
    benchmark::DoNotOptimize(engine.CheckWrite("alice", "loop://psu", write, ""));
  }
}
BENCHMARK(BM_HostileRe2);

void BM_HostileStdRegex(benchmark::State& state) {
  const std::regex hostile("(a|aa)+$", std::regex::ECMAScript | std::regex::optimize);
  const std::string write = std::string(28, 'a') + "!";
  for (auto _ : state) benchmark::DoNotOptimize(std::regex_search(write, hostile));
}
BENCHMARK(BM_HostileStdRegex)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
