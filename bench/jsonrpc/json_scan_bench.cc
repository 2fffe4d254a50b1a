// The JSON-RPC front end's two jobs besides parsing, refusing nesting deeper than 128 and
// finding the top-level "id"'s source text: done by hand-written scanners over the text
// around nlohmann's parse (labgate until this benchmark), or inside the parse by nlohmann's
// SAX parser (ParseBoundedJson, labgate now). Figures and the decision: bench/README.md.
//
//   build/bench/jsonrpc/labgate_json_scan_bench --benchmark_repetitions=5
//       --benchmark_report_aggregates_only=true   (one command line)
#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "gateway/jsonrpc/bounded_json.h"
#include "gateway/jsonrpc/json_scan.h"
#include "gateway/jsonrpc/message.h"

namespace {

using nlohmann::json;
namespace rpc = labgate::gateway::jsonrpc;

// The nesting scanner the gateway ran before every parse until this benchmark retired it:
// one pass over the text counting brackets outside strings.
bool NestingExceeds(std::string_view text, size_t max_depth) {
  size_t depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth) return true;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return false;
}

struct Front {
  json body;
  std::optional<std::string> raw_id;
  bool too_deep = false;
};

// Before: the nesting scan, nlohmann's parse, the id scan: three passes.
Front WithScanners(std::string_view text) {
  Front out;
  if (NestingExceeds(text, rpc::kMaxNestingDepth)) {
    out.too_deep = true;
    return out;
  }
  out.body = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (std::optional<std::string_view> id = rpc::TopLevelMemberText(text, "id")) {
    out.raw_id = std::string(*id);
  }
  return out;
}

// Now: one SAX pass (the id scanner runs only for a string id in text with a backslash).
Front WithSax(std::string_view text) {
  rpc::BoundedJson parsed = rpc::ParseBoundedJson(text, rpc::kMaxNestingDepth);
  return {std::move(parsed.value), std::move(parsed.id_text),
          parsed.error == rpc::BoundedJson::Error::kTooDeep};
}

// Representative messages, smallest first.
std::string Ping() { return R"({"jsonrpc":"2.0","id":1,"method":"ping"})"; }

std::string ToolsCall() {
  return R"({"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"write",)"
         R"("arguments":{"port":"/dev/ttyUSB0","data":"*IDN?\n","encoding":"text"},)"
         R"("_meta":{"progressToken":"p-42"}}})";
}

std::string Initialize() {
  return R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":)"
         R"("2025-11-25","capabilities":{"roots":{"listChanged":true},"sampling":{},)"
         R"("elicitation":{"form":{},"url":{}},"experimental":{}},"clientInfo":{"name":)"
         R"("claude-code","title":"Claude Code","version":"2.1.0","websiteUrl":)"
         R"("https://example.org"}}})";
}

// A 2026-07-28 era request: _meta on every request.
std::string Stateless() {
  return R"({"jsonrpc":"2.0","id":"c1-7","method":"tools/call","params":{"_meta":{)"
         R"("io.modelcontextprotocol/protocolVersion":"2026-07-28",)"
         R"("io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1"},)"
         R"("io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}},)"
         R"("name":"list_sessions","arguments":{"limit":20}}})";
}

// An append of a 4 KiB transcript entry, with the id at the end (the scan walks it all).
std::string Append4k() {
  return R"({"jsonrpc":"2.0","method":"tools/call","params":{"name":"append_message",)"
         R"("arguments":{"session_id":"0b6c2f3e-6a53-4c1e-9b8e-2a7d1f0c4e55","role":"device",)"
         R"("text":")" +
         std::string(4096, 'x') + R"("}},"id":"req-1001"})";
}

// A 64 KiB base64 write: the largest message the serial tools see in practice.
std::string Write64k() {
  std::string data;
  for (size_t i = 0; i < 65536; ++i) data.push_back("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdef"[i % 32]);
  return R"({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"write",)"
         R"("arguments":{"port":"/dev/ttyUSB0","data":")" +
         data + R"(","encoding":"base64"}}})";
}

// A result with many small members, the shape of a tools/list or a transcript page.
std::string ManyMembers() {
  std::string items;
  for (int i = 0; i < 200; ++i) {
    if (i) items += ",";
    items += R"({"seq":)" + std::to_string(i) +
             R"(,"role":"device","text":"OK\r\n","at":"2026-01-01T00:00:00.000Z","bytes":4})";
  }
  return R"({"jsonrpc":"2.0","id":9,"result":{"messages":[)" + items + R"(]}})";
}

// A tools/call whose string id is written with an escape: the SAX path's slow case (the
// id scanner runs after the parse).
std::string EscapedId() {
  std::string text = ToolsCall();
  text.replace(text.find("\"id\":42"), 7, R"("id":"req-\u0031")");
  return text;
}

// Hostile: a megabyte of '[' (refused at depth 129 by both).
std::string Brackets() { return std::string(1 << 20, '['); }

void Report(benchmark::State& state, const std::string& text) {
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
}

template <std::string (*Make)()>
void BM_Scanners(benchmark::State& state) {
  const std::string text = Make();
  for (auto _ : state) benchmark::DoNotOptimize(WithScanners(text));
  Report(state, text);
}

template <std::string (*Make)()>
void BM_Sax(benchmark::State& state) {
  const std::string text = Make();
  for (auto _ : state) benchmark::DoNotOptimize(WithSax(text));
  Report(state, text);
}

// The floor: nlohmann's parse alone, neither limit nor id.
template <std::string (*Make)()>
void BM_ParseOnly(benchmark::State& state) {
  const std::string text = Make();
  for (auto _ : state) {
    benchmark::DoNotOptimize(json::parse(text.begin(), text.end(), nullptr, false));
  }
  Report(state, text);
}

// Each scanner's own share, without the parse.
template <std::string (*Make)()>
void BM_DepthScan(benchmark::State& state) {
  const std::string text = Make();
  for (auto _ : state) benchmark::DoNotOptimize(NestingExceeds(text, rpc::kMaxNestingDepth));
  Report(state, text);
}

template <std::string (*Make)()>
void BM_IdScan(benchmark::State& state) {
  const std::string text = Make();
  for (auto _ : state) benchmark::DoNotOptimize(rpc::TopLevelMemberText(text, "id"));
  Report(state, text);
}

#define LABGATE_JSON_BENCH(make)          \
  BENCHMARK_TEMPLATE(BM_Scanners, make);  \
  BENCHMARK_TEMPLATE(BM_Sax, make);       \
  BENCHMARK_TEMPLATE(BM_ParseOnly, make); \
  BENCHMARK_TEMPLATE(BM_DepthScan, make); \
  BENCHMARK_TEMPLATE(BM_IdScan, make)

LABGATE_JSON_BENCH(Ping);
LABGATE_JSON_BENCH(ToolsCall);
LABGATE_JSON_BENCH(Initialize);
LABGATE_JSON_BENCH(Stateless);
LABGATE_JSON_BENCH(Append4k);
LABGATE_JSON_BENCH(Write64k);
LABGATE_JSON_BENCH(ManyMembers);
LABGATE_JSON_BENCH(EscapedId);
LABGATE_JSON_BENCH(Brackets);

// Both ways agree on every message before anything is timed.
bool SameAnswers() {
  for (auto make : {Ping, ToolsCall, Initialize, Stateless, Append4k, Write64k, ManyMembers,
                    EscapedId, Brackets}) {
    const std::string text = make();
    const Front scanned = WithScanners(text);
    const Front sax = WithSax(text);
    if (scanned.too_deep != sax.too_deep || scanned.body != sax.body ||
        scanned.raw_id != sax.raw_id) {
      std::fprintf(stderr, "the two ways disagree on: %.80s\n", text.c_str());
      return false;
    }
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (!SameAnswers()) return 1;
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
