// How `data` fields spell bytes: UTF-8 text, hex or base64.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "labgate/serial/v1/serial.pb.h"

namespace labgate::serial {

// INVALID_ARGUMENT when `data` is not valid for `encoding`.
absl::StatusOr<std::string> DecodeData(const std::string& data, v1::Encoding encoding);

struct EncodedData {
  std::string data;
  v1::Encoding encoding = v1::ENCODING_TEXT;
};
// Text stays text when it is valid UTF-8 and falls back to base64 otherwise (a proto
// string must be UTF-8).
EncodedData EncodeData(const std::string& bytes, v1::Encoding encoding);

bool IsValidUtf8(const std::string& text);

// Written data as a record or a refusal shows it: text, or base64 for other bytes; at most 200.
std::string ShownData(const std::string& bytes);

}  // namespace labgate::serial
