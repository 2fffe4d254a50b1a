#include "serial-service/ports/data_encoding.h"

#include <gtest/gtest.h>

namespace labgate::serial {
namespace {

TEST(DataEncodingTest, TextPassesThrough) {
  auto bytes = DecodeData("hello\n", v1::ENCODING_TEXT);
  ASSERT_TRUE(bytes.ok());
  EXPECT_EQ(*bytes, "hello\n");
  EXPECT_EQ(*DecodeData("x", v1::ENCODING_UNSPECIFIED), "x");
}

TEST(DataEncodingTest, HexAcceptsSpacesAndPrefixes) {
  auto bytes = DecodeData("00 ff 0x41:42", v1::ENCODING_HEX);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  EXPECT_EQ(*bytes, std::string("\x00\xff"
                                "AB",
                                4));
}

TEST(DataEncodingTest, BadHexAndBase64AreInvalidArgument) {
  EXPECT_EQ(DecodeData("abc", v1::ENCODING_HEX).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(DecodeData("zz", v1::ENCODING_HEX).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(DecodeData("!!!", v1::ENCODING_BASE64).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(DecodeData("x", static_cast<v1::Encoding>(9)).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(DataEncodingTest, BinaryRoundTripsThroughEveryEncoding) {
  const std::string bytes("\x00\x01\xfe\xff\n\x00", 6);
  for (v1::Encoding encoding : {v1::ENCODING_HEX, v1::ENCODING_BASE64}) {
    EncodedData encoded = EncodeData(bytes, encoding);
    EXPECT_EQ(encoded.encoding, encoding);
    auto decoded = DecodeData(encoded.data, encoded.encoding);
    ASSERT_TRUE(decoded.ok());
    EXPECT_EQ(*decoded, bytes);
  }
  EXPECT_EQ(EncodeData(bytes, v1::ENCODING_HEX).data, "0001feff0a00");
}

TEST(DataEncodingTest, TextThatIsNotUtf8FallsBackToBase64) {
  EncodedData encoded = EncodeData("\xff\xfe", v1::ENCODING_TEXT);
  EXPECT_EQ(encoded.encoding, v1::ENCODING_BASE64);
  EXPECT_EQ(encoded.data, "//4=");
  EncodedData text = EncodeData("h\xc3\xa9llo", v1::ENCODING_TEXT);
  EXPECT_EQ(text.encoding, v1::ENCODING_TEXT);
}

TEST(DataEncodingTest, Utf8Validation) {
  EXPECT_TRUE(IsValidUtf8(""));
  EXPECT_TRUE(IsValidUtf8("\xe2\x82\xac \xf0\x9f\x98\x80"));
  EXPECT_TRUE(IsValidUtf8(std::string("a\0b", 3)));
  EXPECT_FALSE(IsValidUtf8("\xc3"));
  EXPECT_FALSE(IsValidUtf8("\xc0\xaf"));          // overlong
  EXPECT_FALSE(IsValidUtf8("\xed\xa0\x80"));      // surrogate
  EXPECT_FALSE(IsValidUtf8("\xf4\x90\x80\x80"));  // beyond U+10FFFF
}

}  // namespace
}  // namespace labgate::serial
