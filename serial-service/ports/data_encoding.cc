#include "serial-service/ports/data_encoding.h"

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"

namespace labgate::serial {
namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

absl::StatusOr<std::string> DecodeHex(const std::string& text) {
  std::string digits;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == ' ' || c == ':' || c == '\n' || c == '\t' || c == '\r') continue;
    if (c == '0' && i + 1 < text.size() && (text[i + 1] == 'x' || text[i + 1] == 'X')) {
      ++i;
      continue;
    }
    if (HexValue(c) < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "data is not valid hex (encoding hex takes pairs of 0-9a-f, spaces allowed): bad "
          "character at offset ",
          i));
    }
    digits.push_back(c);
  }
  if (digits.size() % 2 != 0) {
    return absl::InvalidArgumentError("data is not valid hex: odd number of hex digits");
  }
  std::string bytes;
  bytes.reserve(digits.size() / 2);
  for (size_t i = 0; i < digits.size(); i += 2) {
    bytes.push_back(static_cast<char>(HexValue(digits[i]) * 16 + HexValue(digits[i + 1])));
  }
  return bytes;
}

}  // namespace

absl::StatusOr<std::string> DecodeData(const std::string& data, v1::Encoding encoding) {
  switch (encoding) {
    case v1::ENCODING_UNSPECIFIED:
    case v1::ENCODING_TEXT:
      return data;
    case v1::ENCODING_HEX:
      return DecodeHex(data);
    case v1::ENCODING_BASE64: {
      std::string bytes;
      if (!absl::Base64Unescape(data, &bytes)) {
        return absl::InvalidArgumentError("data is not valid base64");
      }
      return bytes;
    }
    default:
      break;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("encoding must be one of text, hex, base64; got ", static_cast<int>(encoding)));
}

EncodedData EncodeData(const std::string& bytes, v1::Encoding encoding) {
  EncodedData out;
  if (encoding == v1::ENCODING_HEX) {
    out.data = absl::BytesToHexString(bytes);
    out.encoding = v1::ENCODING_HEX;
  } else if (encoding == v1::ENCODING_BASE64 || !IsValidUtf8(bytes)) {
    out.data = absl::Base64Escape(bytes);
    out.encoding = v1::ENCODING_BASE64;
  } else {
    out.data = bytes;
    out.encoding = v1::ENCODING_TEXT;
  }
  return out;
}

bool IsValidUtf8(const std::string& text) {
  size_t i = 0;
  const size_t n = text.size();
  while (i < n) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    size_t extra = 0;
    uint32_t code = 0;
    if (c < 0x80) {
      ++i;
      continue;
    } else if ((c & 0xE0) == 0xC0) {
      extra = 1;
      code = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
      extra = 2;
      code = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
      extra = 3;
      code = c & 0x07;
    } else {
      return false;
    }
    if (i + extra >= n) return false;
    for (size_t k = 1; k <= extra; ++k) {
      const unsigned char next = static_cast<unsigned char>(text[i + k]);
      if ((next & 0xC0) != 0x80) return false;
      code = (code << 6) | (next & 0x3F);
    }
    if ((extra == 1 && code < 0x80) || (extra == 2 && code < 0x800) ||
        (extra == 3 && (code < 0x10000 || code > 0x10FFFF)) || (code >= 0xD800 && code <= 0xDFFF)) {
      return false;
    }
    i += extra + 1;
  }
  return true;
}

std::string ShownData(const std::string& bytes) {
  std::string shown = IsValidUtf8(bytes) ? bytes : EncodeData(bytes, v1::ENCODING_BASE64).data;
  if (shown.size() > 200) shown = shown.substr(0, 200) + "...";
  return shown;
}

}  // namespace labgate::serial
