// requestState sealing on arbitrary input, taken both as a state to seal (when it is a JSON
// object) and as a sealed string a client sent back. Invariants:
// - a sealed state opens to the same state, and only under its own key;
// - a sealed state altered in one byte, or cut short, does not open, or opens to the very
//   same state (Base64 may ignore a padding bit): it can never open to anything else;
// - whatever opens is a JSON object, and seals and opens again to itself.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "gateway/dialects/mcp_stateless/request_state.h"
#include "gateway/jsonrpc/bounded_json.h"
#include "gateway/jsonrpc/message.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

using labgate::gateway::stateless::RequestStateCodec;
using nlohmann::json;

// Fixed keys, so that sealed seeds in the corpus open (tests/fuzz/README.md shows how they
// were made).
const RequestStateCodec& Codec() {
  static const auto* codec = new RequestStateCodec("labgate-fuzz-request-state-key-0123456789");
  return *codec;
}
const RequestStateCodec& OtherCodec() {
  static const auto* codec = new RequestStateCodec("labgate-fuzz-another-replica-key-987654321");
  return *codec;
}

void CheckAltered(const std::string& sealed, const json& state, size_t seed) {
  std::string altered = sealed;
  const size_t at = seed % altered.size();
  altered[at] = static_cast<char>(altered[at] ^ (1 + seed % 255));
  absl::StatusOr<json> opened = Codec().Open(altered);
  FUZZ_CHECK(!opened.ok() || *opened == state);
  altered = sealed.substr(0, at);
  opened = Codec().Open(altered);
  FUZZ_CHECK(!opened.ok() || *opened == state);
}

void CheckSeal(const json& state, size_t seed) {
  const std::string sealed = Codec().Seal(state);
  const absl::StatusOr<json> opened = Codec().Open(sealed);
  FUZZ_CHECK(opened.ok() && *opened == state);
  FUZZ_CHECK(!OtherCodec().Open(sealed).ok());
  CheckAltered(sealed, state, seed);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  const size_t seed = std::hash<std::string>()(input);

  // As a state: the dialect seals objects it built from parsed requests.
  const labgate::gateway::jsonrpc::BoundedJson parsed = labgate::gateway::jsonrpc::ParseBoundedJson(
      input, labgate::gateway::jsonrpc::kMaxNestingDepth);
  if (parsed.value.is_object()) CheckSeal(parsed.value, seed);

  // As a sealed string from a client.
  const absl::StatusOr<json> opened = Codec().Open(input);
  if (!opened.ok()) {
    FUZZ_CHECK(opened.status().code() == absl::StatusCode::kInvalidArgument);
    return 0;
  }
  FUZZ_CHECK(opened->is_object());
  CheckSeal(*opened, seed);
  return 0;
}
