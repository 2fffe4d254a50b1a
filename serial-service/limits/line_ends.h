// Where a limited instrument's lines end. The limits read a write as lines split at CR and at
// LF; a device splits only at its own line end, so "VO\nLT 35\r" is one command, VOLT 35, to a
// device that ends lines at CR and ignores LF. On such an instrument every CR and LF of a
// write must therefore be part of its line end, and then both read the same lines.
#pragma once

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace labgate::serial {

// OK when each CR and LF in `bytes` is part of an occurrence of `line_end`. An empty
// `line_end` (none configured) is read as SCPI's LF, which may follow a CR. A `line_end` with
// other characters than CR and LF is refused: the limits could not find its lines. Otherwise
// PERMISSION_DENIED naming the stray byte, its offset and `where` ("psu-2").
absl::Status CheckLineEnds(absl::string_view bytes, absl::string_view line_end,
                           absl::string_view where);

// "\r\n" spelled as `\r\n`, for messages.
std::string SpelledLineEnd(absl::string_view line_end);

}  // namespace labgate::serial
