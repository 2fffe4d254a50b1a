// A fast parser for the plain JSON most messages are: ASCII text, strings with only the short
// escapes, integers. It gives exactly what ParseBoundedJson's nlohmann pass gives for such
// text, and declines everything else (any other byte or escape, fractions and exponents, "-0",
// integers of 19 digits or more, nesting past the limit, any syntax error), which that pass
// then parses and words. bench/README.md ("The request's parse") measured the two.
#pragma once

#include <cstddef>
#include <string_view>

#include "gateway/jsonrpc/bounded_json.h"

namespace labgate::gateway::jsonrpc {

// Fills `out` (value and id_text) and returns true when `text` is plain JSON no deeper than
// `max_depth`; otherwise returns false, and `out` is to be thrown away.
bool ParsePlainJson(std::string_view text, size_t max_depth, BoundedJson* out);

}  // namespace labgate::gateway::jsonrpc
