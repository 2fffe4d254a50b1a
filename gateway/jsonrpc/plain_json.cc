#include "gateway/jsonrpc/plain_json.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

namespace labgate::gateway::jsonrpc {
namespace {

using nlohmann::json;

// Recursive descent over one text; every method returns false to decline.
class PlainParser {
 public:
  PlainParser(std::string_view text, size_t max_depth)
      : at_(text.data()), end_(text.data() + text.size()), max_depth_(max_depth) {}

  bool Document(json* root, std::optional<std::string>* id_text) {
    SkipSpace();
    if (!Value(root, 0, id_text)) return false;
    SkipSpace();
    return at_ == end_;
  }

 private:
  void SkipSpace() {
    while (at_ != end_ && (*at_ == ' ' || *at_ == '\n' || *at_ == '\r' || *at_ == '\t')) ++at_;
  }

  bool Literal(std::string_view word) {
    if (static_cast<size_t>(end_ - at_) < word.size() ||
        std::string_view(at_, word.size()) != word) {
      return false;
    }
    at_ += word.size();
    return true;
  }

  // `id_text` is given to the top-level value only: its object's "id" member is noted there.
  bool Value(json* out, size_t depth, std::optional<std::string>* id_text) {
    if (at_ == end_) return false;
    switch (*at_) {
      case '{':
        return Object(out, depth + 1, id_text);
      case '[':
        return Array(out, depth + 1);
      case '"': {
        *out = std::string();
        return String(out->get_ptr<std::string*>());
      }
      case 't':
        *out = true;
        return Literal("true");
      case 'f':
        *out = false;
        return Literal("false");
      case 'n':
        *out = nullptr;
        return Literal("null");
      default:
        return Number(out);
    }
  }

  bool Object(json* out, size_t depth, std::optional<std::string>* id_text) {
    if (depth > max_depth_) return false;
    ++at_;  // '{'
    *out = json::object();
    auto* members = out->get_ptr<json::object_t*>();
    SkipSpace();
    if (at_ != end_ && *at_ == '}') {
      ++at_;
      return true;
    }
    std::string key;
    while (true) {
      if (at_ == end_ || *at_ != '"') return false;
      key.clear();
      if (!String(&key)) return false;
      SkipSpace();
      if (at_ == end_ || *at_ != ':') return false;
      ++at_;
      SkipSpace();
      const char* value_start = at_;
      json& slot = (*members)[key];  // a repeated key's last value wins, as in nlohmann's
      if (!Value(&slot, depth, nullptr)) return false;
      if (id_text != nullptr && key == "id") {
        // Strings and numbers are echoed as written; other ids are not ids.
        *id_text = slot.is_string() || slot.is_number()
                       ? std::optional<std::string>(std::in_place, value_start, at_)
                       : std::nullopt;
      }
      SkipSpace();
      if (at_ == end_) return false;
      if (*at_ == '}') {
        ++at_;
        return true;
      }
      if (*at_ != ',') return false;
      ++at_;
      SkipSpace();
    }
  }

  bool Array(json* out, size_t depth) {
    if (depth > max_depth_) return false;
    ++at_;  // '['
    *out = json::array();
    auto* items = out->get_ptr<json::array_t*>();
    SkipSpace();
    if (at_ != end_ && *at_ == ']') {
      ++at_;
      return true;
    }
    while (true) {
      items->emplace_back();
      if (!Value(&items->back(), depth, nullptr)) return false;
      SkipSpace();
      if (at_ == end_) return false;
      if (*at_ == ']') {
        ++at_;
        return true;
      }
      if (*at_ != ',') return false;
      ++at_;
      SkipSpace();
    }
  }

  // Printable ASCII and the short escapes; anything else is declined (\u, control bytes,
  // bytes past 0x7e), so that UTF-8 is judged by nlohmann alone.
  bool String(std::string* out) {
    ++at_;  // '"'
    while (true) {
      const char* run = at_;
      while (at_ != end_ && *at_ != '"' && *at_ != '\\' &&
             static_cast<unsigned char>(*at_) >= 0x20 && static_cast<unsigned char>(*at_) < 0x7f) {
        ++at_;
      }
      out->append(run, at_);
      if (at_ == end_) return false;
      if (*at_ == '"') {
        ++at_;
        return true;
      }
      if (*at_ != '\\') return false;
      if (++at_ == end_) return false;
      switch (*at_) {
        case '"':
        case '\\':
        case '/':
          out->push_back(*at_);
          break;
        case 'b':
          out->push_back('\b');
          break;
        case 'f':
          out->push_back('\f');
          break;
        case 'n':
          out->push_back('\n');
          break;
        case 'r':
          out->push_back('\r');
          break;
        case 't':
          out->push_back('\t');
          break;
        default:
          return false;
      }
      ++at_;
    }
  }

  // An integer of at most 18 digits, which fits either type; nlohmann makes one without a
  // minus sign unsigned. "-0", leading zeros, fractions and exponents are declined.
  bool Number(json* out) {
    const bool negative = *at_ == '-';
    if (negative) ++at_;
    const char* digits = at_;
    uint64_t value = 0;
    while (at_ != end_ && *at_ >= '0' && *at_ <= '9') {
      value = value * 10 + static_cast<uint64_t>(*at_ - '0');
      ++at_;
    }
    const size_t count = static_cast<size_t>(at_ - digits);
    if (count == 0 || count > 18 || (*digits == '0' && (count > 1 || negative))) return false;
    if (at_ != end_ && (*at_ == '.' || *at_ == 'e' || *at_ == 'E')) return false;
    if (negative) {
      *out = -static_cast<int64_t>(value);
    } else {
      *out = value;
    }
    return true;
  }

  const char* at_;
  const char* const end_;
  const size_t max_depth_;
};

}  // namespace

bool ParsePlainJson(std::string_view text, size_t max_depth, BoundedJson* out) {
  PlainParser parser(text, max_depth);
  return parser.Document(&out->value, &out->id_text);
}

}  // namespace labgate::gateway::jsonrpc
