#include "gateway/transport/framing.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gateway/transport/frame_decoder.h"

namespace labgate::gateway {
namespace {

TEST(EncodeFrameTest, NewlineAppendsOneNewline) {
  EXPECT_EQ(EncodeFrame(Framing::kNewline, R"({"a":1})"), "{\"a\":1}\n");
  EXPECT_EQ(EncodeFrame(Framing::kNewline, ""), "\n");
}

TEST(EncodeFrameTest, ContentLengthCountsUtf8Bytes) {
  // "é" is 2 bytes, "€" 3, "𝄞" 4: 9 bytes in 3 characters.
  EXPECT_EQ(EncodeFrame(Framing::kContentLength, "é€𝄞"),
            "Content-Length: 9\r\n\r\n\xC3\xA9\xE2\x82\xAC\xF0\x9D\x84\x9E");
  EXPECT_EQ(EncodeFrame(Framing::kContentLength, ""), "Content-Length: 0\r\n\r\n");
}

TEST(EncodeFrameTest, EncodedFramesDecodeToTheSamePayloads) {
  const std::vector<std::string> payloads = {R"({"id":1,"s":"é€𝄞"})", "[1,2,3]",
                                             R"({"text":"line\nbreak"})"};
  std::string stream;
  for (const std::string& p : payloads) {
    stream += EncodeFrame(Framing::kContentLength, p);
    stream += EncodeFrame(Framing::kNewline, p);
  }
  FrameDecoder decoder(1024);
  std::vector<Frame> frames;
  decoder.Feed(
      stream, [&](Frame f) { frames.push_back(std::move(f)); },
      [](FrameError e) { ADD_FAILURE() << e.message; });
  ASSERT_EQ(frames.size(), payloads.size() * 2);
  for (size_t i = 0; i < payloads.size(); ++i) {
    EXPECT_EQ(frames[2 * i].framing, Framing::kContentLength);
    EXPECT_EQ(frames[2 * i].payload, payloads[i]);
    EXPECT_EQ(frames[2 * i + 1].framing, Framing::kNewline);
    EXPECT_EQ(frames[2 * i + 1].payload, payloads[i]);
  }
}

TEST(FramingNameTest, NamesBothFramings) {
  EXPECT_EQ(FramingName(Framing::kNewline), "newline");
  EXPECT_EQ(FramingName(Framing::kContentLength), "content-length");
}

}  // namespace
}  // namespace labgate::gateway
