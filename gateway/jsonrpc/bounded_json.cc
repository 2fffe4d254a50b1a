#include "gateway/jsonrpc/bounded_json.h"

#include <cstring>
#include <utility>

#include "gateway/jsonrpc/json_scan.h"
#include "gateway/jsonrpc/plain_json.h"

namespace labgate::gateway::jsonrpc {
namespace {

using nlohmann::json;

// nlohmann's own DOM builder, with a depth limit in front and an eye on the top-level "id".
class BoundedDomSax {
 public:
  BoundedDomSax(json* root, size_t max_depth)
      : dom_(*root, /*allow_exceptions=*/false), max_depth_(max_depth) {}

  bool null() { return Scalar(std::nullopt) && dom_.null(); }
  bool boolean(bool value) { return Scalar(std::nullopt) && dom_.boolean(value); }
  // nlohmann reports a number with a minus sign as an integer and one without as unsigned,
  // so an integer 0 was written "-0".
  bool number_integer(json::number_integer_t value) {
    return Scalar(value == 0 ? "-0" : std::to_string(value)) && dom_.number_integer(value);
  }
  bool number_unsigned(json::number_unsigned_t value) {
    return Scalar(std::to_string(value)) && dom_.number_unsigned(value);
  }
  // A float's lexeme is its source text (this is also where too large integers land).
  bool number_float(json::number_float_t value, const std::string& lexeme) {
    return Scalar(lexeme) && dom_.number_float(value, lexeme);
  }
  bool string(std::string& value) {
    if (IdIsNext()) {
      id_is_string_ = true;
      id_text_ = "\"" + value + "\"";
    }
    id_next_ = false;
    return dom_.string(value);
  }
  bool binary(json::binary_t& value) { return dom_.binary(value); }
  bool start_object(std::size_t size) { return Open() && dom_.start_object(size); }
  bool start_array(std::size_t size) { return Open() && dom_.start_array(size); }
  bool end_object() {
    --depth_;
    return dom_.end_object();
  }
  bool end_array() {
    --depth_;
    return dom_.end_array();
  }
  bool key(std::string& name) {
    id_next_ = depth_ == 1 && name == "id";
    if (id_next_) {
      // With duplicate keys the last wins, as in the parsed value.
      id_text_.reset();
      id_is_string_ = false;
    }
    return dom_.key(name);
  }
  template <typename Exception>
  bool parse_error(std::size_t position, const std::string& token, const Exception& error) {
    error_text_ = error.what();
    return dom_.parse_error(position, token, error);
  }

  bool too_deep() const { return too_deep_; }
  std::string& error_text() { return error_text_; }
  std::optional<std::string>& id_text() { return id_text_; }
  bool id_is_string() const { return id_is_string_; }

 private:
  bool IdIsNext() const { return id_next_ && depth_ == 1; }
  bool Scalar(std::optional<std::string> text) {
    if (IdIsNext()) id_text_ = std::move(text);
    id_next_ = false;
    return true;
  }
  bool Open() {
    id_next_ = false;
    if (++depth_ > max_depth_) {
      too_deep_ = true;
      return false;
    }
    return true;
  }

  nlohmann::detail::json_sax_dom_parser<json> dom_;
  const size_t max_depth_;
  size_t depth_ = 0;
  bool id_next_ = false;
  bool id_is_string_ = false;
  bool too_deep_ = false;
  std::optional<std::string> id_text_;
  std::string error_text_;
};

}  // namespace

BoundedJson ParseBoundedJson(std::string_view text, size_t max_depth) {
  BoundedJson out;
  if (ParsePlainJson(text, max_depth, &out)) return out;
  return ParseBoundedJsonWithSax(text, max_depth);
}

BoundedJson ParseBoundedJsonWithSax(std::string_view text, size_t max_depth) {
  BoundedJson out;
  BoundedDomSax sax(&out.value, max_depth);
  if (!json::sax_parse(text.begin(), text.end(), &sax)) {
    out.value = nullptr;
    if (sax.too_deep()) {
      out.error = BoundedJson::Error::kTooDeep;
    } else {
      out.error = BoundedJson::Error::kSyntax;
      out.error_text = std::move(sax.error_text());
    }
    return out;
  }
  out.id_text = std::move(sax.id_text());
  // A string id's source text is its value in quotes unless it was written with escapes,
  // which only the text itself shows; then the scanner finds it.
  if (sax.id_is_string() && std::memchr(text.data(), '\\', text.size()) != nullptr) {
    std::optional<std::string_view> source = TopLevelMemberText(text, "id");
    out.id_text = source.has_value() ? std::optional<std::string>(*source) : std::nullopt;
  }
  return out;
}

}  // namespace labgate::gateway::jsonrpc
