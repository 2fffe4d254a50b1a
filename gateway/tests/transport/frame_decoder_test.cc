#include "gateway/transport/frame_decoder.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace labgate::gateway {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

std::string KindName(FrameError::Kind kind) {
  switch (kind) {
    case FrameError::Kind::kTooLarge:
      return "too-large";
    case FrameError::Kind::kBadHeader:
      return "bad-header";
    case FrameError::Kind::kByteOrderMark:
      return "bom";
  }
  return "?";
}

// Decoder output as comparable strings: "nl:<payload>", "cl:<payload>" or
// "error:<kind>:<framing>:<message>".
class Recorder {
 public:
  explicit Recorder(size_t max_message_bytes) : decoder_(max_message_bytes) {}

  Recorder& Feed(std::string_view bytes) {
    decoder_.Feed(bytes, OnFrame(), OnError());
    return *this;
  }
  Recorder& Finish() {
    decoder_.Finish(OnFrame(), OnError());
    return *this;
  }
  const std::vector<std::string>& events() const { return events_; }
  FrameDecoder& decoder() { return decoder_; }

 private:
  FrameDecoder::FrameCallback OnFrame() {
    return [this](const Frame& f) {
      events_.push_back((f.framing == Framing::kNewline ? "nl:" : "cl:") + f.payload);
    };
  }
  FrameDecoder::ErrorCallback OnError() {
    return [this](const FrameError& e) {
      events_.push_back("error:" + KindName(e.kind) + ":" + std::string(FramingName(e.framing)) +
                        ":" + e.message);
    };
  }

  FrameDecoder decoder_;
  std::vector<std::string> events_;
};

std::vector<std::string> DecodeAll(std::string_view stream, size_t max = 1024) {
  Recorder r(max);
  r.Feed(stream).Finish();
  return r.events();
}

std::string Cl(std::string_view payload) {
  return "Content-Length: " + std::to_string(payload.size()) + "\r\n\r\n" + std::string(payload);
}

TEST(FrameDecoderTest, NewlineFrames) {
  EXPECT_THAT(DecodeAll("{\"a\":1}\n{\"b\":2}\n"), ElementsAre("nl:{\"a\":1}", "nl:{\"b\":2}"));
}

TEST(FrameDecoderTest, StripsTrailingCarriageReturnInNewlineMode) {
  EXPECT_THAT(DecodeAll("{\"a\":1}\r\n{\"b\":2}\r\n"), ElementsAre("nl:{\"a\":1}", "nl:{\"b\":2}"));
  // Only one trailing \r is part of the line ending.
  EXPECT_THAT(DecodeAll("x\r\r\n"), ElementsAre("nl:x\r"));
}

TEST(FrameDecoderTest, ContentLengthFrames) {
  EXPECT_THAT(DecodeAll(Cl("{\"a\":1}") + Cl("{\"b\":2}")),
              ElementsAre("cl:{\"a\":1}", "cl:{\"b\":2}"));
}

TEST(FrameDecoderTest, ContentLengthBodyMayContainNewlines) {
  EXPECT_THAT(DecodeAll(Cl("{\n\"a\": 1\r\n}")), ElementsAre("cl:{\n\"a\": 1\r\n}"));
}

TEST(FrameDecoderTest, HeaderNameIsCaseInsensitiveAndOtherHeadersAreIgnored) {
  EXPECT_THAT(DecodeAll("content-length: 2\r\n\r\n{}"), ElementsAre("cl:{}"));
  EXPECT_THAT(DecodeAll("CONTENT-LENGTH:2\r\n\r\n{}"), ElementsAre("cl:{}"));
  EXPECT_THAT(DecodeAll("Content-Length: 2\r\nContent-Type: application/vscode-jsonrpc; "
                        "charset=utf-8\r\n\r\n{}"),
              ElementsAre("cl:{}"));
  EXPECT_THAT(DecodeAll("Content-Type: application/json\r\nContent-Length:   2  \r\n"
                        "X-Extra: 1\r\n\r\n{}"),
              ElementsAre("cl:{}"));
}

TEST(FrameDecoderTest, ToleratesBareNewlinesAfterHeaders) {
  EXPECT_THAT(DecodeAll("Content-Length: 2\n\n{}"), ElementsAre("cl:{}"));
}

TEST(FrameDecoderTest, EmptyContentLengthBodyIsAFrame) {
  EXPECT_THAT(DecodeAll("Content-Length: 0\r\n\r\n{}\n"), ElementsAre("cl:", "nl:{}"));
}

TEST(FrameDecoderTest, ContentLengthCountsUtf8BytesNotCharacters) {
  // 3 + 2 (é) + 3 (€) + 4 (𝄞) + 1 = 13 bytes in 7 characters.
  const std::string payload = "[\"\xC3\xA9\xE2\x82\xAC\xF0\x9D\x84\x9E\"]";
  ASSERT_EQ(payload.size(), 13u);
  EXPECT_THAT(DecodeAll(Cl(payload) + Cl(payload)), ElementsAre("cl:" + payload, "cl:" + payload));
  // A length counted in characters cuts the body short; the rest is a separate message.
  EXPECT_THAT(DecodeAll("Content-Length: 7\r\n\r\n" + payload + "\n"),
              ElementsAre("cl:" + payload.substr(0, 7), "nl:" + payload.substr(7)));
}

TEST(FrameDecoderTest, Utf8PayloadSplitInsideMultibyteCharacters) {
  const std::string payload = "{\"s\":\"\xC3\xA9\xE2\x82\xAC\xF0\x9D\x84\x9E\"}";
  const std::string stream = Cl(payload) + payload + "\n";
  for (size_t cut = 0; cut <= stream.size(); ++cut) {
    Recorder r(1024);
    r.Feed(stream.substr(0, cut)).Feed(stream.substr(cut)).Finish();
    EXPECT_THAT(r.events(), ElementsAre("cl:" + payload, "nl:" + payload)) << "cut at " << cut;
  }
}

TEST(FrameDecoderTest, MixedFramingInOneStream) {
  EXPECT_THAT(
      DecodeAll("{\"n\":1}\n" + Cl("{\"c\":2}") + "{\"n\":3}\r\n" + Cl("{\"c\":4}") + "\r\n" +
                Cl("{\"c\":5}")),
      ElementsAre("nl:{\"n\":1}", "cl:{\"c\":2}", "nl:{\"n\":3}", "cl:{\"c\":4}", "cl:{\"c\":5}"));
}

TEST(FrameDecoderTest, BlankLinesAndLeadingWhitespaceAreSkipped) {
  EXPECT_THAT(DecodeAll("\n\n\r\n  \t \r\n   {\"a\":1}\n\n\n" + Cl("{}") + "\n\n  " + Cl("[]")),
              ElementsAre("nl:{\"a\":1}", "cl:{}", "cl:[]"));
  EXPECT_THAT(DecodeAll("\n\r\n \n"), IsEmpty());
}

TEST(FrameDecoderTest, ByteOrderMarkRefusesTheRestOfTheLine) {
  EXPECT_THAT(DecodeAll("\xEF\xBB\xBF{\"a\":1}\n{\"b\":2}\n"),
              ElementsAre("error:bom:newline:message starts with a UTF-8 byte order mark (EF BB "
                          "BF); send UTF-8 without a byte order mark",
                          "nl:{\"b\":2}"));
}

TEST(FrameDecoderTest, ByteOrderMarkBeforeHeadersRefusesTheWholeFrame) {
  std::vector<std::string> events = DecodeAll("\xEF\xBB\xBF" + Cl("{\"a\":1}") + Cl("{\"b\":2}"));
  ASSERT_EQ(events.size(), 2u);
  EXPECT_TRUE(events[0].starts_with("error:bom:content-length:")) << events[0];
  EXPECT_EQ(events[1], "cl:{\"b\":2}");
}

TEST(FrameDecoderTest, ByteOrderMarkOnItsOwnLineAndAfterWhitespace) {
  std::vector<std::string> events = DecodeAll("\xEF\xBB\xBF\n  \xEF\xBB\xBF [1]\n[2]\n");
  ASSERT_EQ(events.size(), 3u);
  EXPECT_TRUE(events[0].starts_with("error:bom:newline:"));
  EXPECT_TRUE(events[1].starts_with("error:bom:newline:"));
  EXPECT_EQ(events[2], "nl:[2]");
}

TEST(FrameDecoderTest, ByteOrderMarkInsideAMessageIsPayload) {
  EXPECT_THAT(DecodeAll("[\"\xEF\xBB\xBF\"]\n"), ElementsAre("nl:[\"\xEF\xBB\xBF\"]"));
  // EF not followed by BB BF is ordinary (invalid UTF-8) payload for the JSON layer to refuse.
  EXPECT_THAT(DecodeAll("\xEF\xBB{}\n"), ElementsAre("nl:\xEF\xBB{}"));
}

TEST(FrameDecoderTest, NonNumericContentLengthResyncsAtTheNextLine) {
  EXPECT_THAT(DecodeAll("Content-Length: abc\r\n\r\n{\"good\":1}\n"),
              ElementsAre("error:bad-header:content-length:invalid Content-Length value \"abc\"",
                          "nl:{\"good\":1}"));
}

TEST(FrameDecoderTest, NegativeContentLength) {
  EXPECT_THAT(DecodeAll("Content-Length: -5\r\nContent-Type: x\r\n\r\n" + Cl("{\"good\":1}")),
              ElementsAre("error:bad-header:content-length:invalid Content-Length value \"-5\"",
                          "cl:{\"good\":1}"));
}

TEST(FrameDecoderTest, EmptyAndOverflowingContentLength) {
  EXPECT_THAT(
      DecodeAll("Content-Length:\r\n\r\n[1]\n"),
      ElementsAre("error:bad-header:content-length:invalid Content-Length value \"\"", "nl:[1]"));
  EXPECT_THAT(DecodeAll("Content-Length: 99999999999999999999999\r\n\r\n[1]\n"),
              ElementsAre("error:bad-header:content-length:invalid Content-Length value "
                          "\"99999999999999999999999\"",
                          "nl:[1]"));
  EXPECT_THAT(DecodeAll("Content-Length: 1 2\r\n\r\n[1]\n"),
              ElementsAre("error:bad-header:content-length:invalid Content-Length value \"1 2\"",
                          "nl:[1]"));
}

TEST(FrameDecoderTest, MissingContentLength) {
  EXPECT_THAT(
      DecodeAll("Content-Type: application/json\r\n\r\n" + Cl("[1]")),
      ElementsAre("error:bad-header:content-length:missing Content-Length header", "cl:[1]"));
}

TEST(FrameDecoderTest, ConflictingContentLengths) {
  EXPECT_THAT(
      DecodeAll("Content-Length: 2\r\nContent-Length: 3\r\n\r\n[1]\n"),
      ElementsAre("error:bad-header:content-length:conflicting Content-Length headers", "nl:[1]"));
  // Repeating the same value is harmless.
  EXPECT_THAT(DecodeAll("Content-Length: 3\r\nContent-Length: 3\r\n\r\n[1]"),
              ElementsAre("cl:[1]"));
}

TEST(FrameDecoderTest, MissingBlankLineDropsTheLineThatIsNotAHeader) {
  EXPECT_THAT(DecodeAll("Content-Length: 7\r\n{\"a\":1}\n{\"b\":2}\n"),
              ElementsAre("error:bad-header:content-length:malformed header line \"{\"a\":1}\"",
                          "nl:{\"b\":2}"));
}

TEST(FrameDecoderTest, OverlongHeaderLine) {
  const std::string stream = "Content-Type: " + std::string(20000, 'x') + "\r\n" +
                             "Content-Length: 3\r\n\r\n" + "[9]" + "\n[1]\n";
  std::vector<std::string> events = DecodeAll(stream);
  // The rest of that header block is dropped; the body line is then the next message.
  EXPECT_THAT(events, ElementsAre("error:bad-header:content-length:header line longer than "
                                  "8192 bytes",
                                  "nl:[9]", "nl:[1]"));
}

// After a bad header the rest of the block is dropped: a line counts as a header when its
// name has at most 64 token characters, wherever the input was split.
TEST(FrameDecoderTest, HeaderNameLengthAfterABadHeaderDoesNotDependOnSplits) {
  const std::string name64(64, 'N');
  const std::string name65(65, 'N');
  const std::string stream =
      "Content-Length: x\r\n" + name64 + ": dropped\r\n" + name65 + ": kept\n[1]\n";
  const std::vector<std::string> expected{
      "error:bad-header:content-length:invalid Content-Length value \"x\"",
      "nl:" + name65 + ": kept", "nl:[1]"};
  EXPECT_EQ(DecodeAll(stream), expected);
  for (size_t cut = 0; cut <= stream.size(); ++cut) {
    Recorder r(1024);
    r.Feed(stream.substr(0, cut)).Feed(stream.substr(cut)).Finish();
    ASSERT_EQ(r.events(), expected) << "split at offset " << cut;
  }
}

TEST(FrameDecoderTest, TooManyHeaderLines) {
  std::string stream;
  for (int i = 0; i < 40; ++i) stream += "Content-X" + std::to_string(i) + ": y\r\n";
  stream += "\r\n[1]\n";
  EXPECT_THAT(DecodeAll(stream),
              ElementsAre("error:bad-header:content-length:more than 32 header lines", "nl:[1]"));
}

TEST(FrameDecoderTest, HeaderPrefixWithoutColonIsANewlineMessage) {
  EXPECT_THAT(DecodeAll("Content-Length 5\n"), ElementsAre("nl:Content-Length 5"));
  EXPECT_THAT(DecodeAll("content\n"), ElementsAre("nl:content"));
}

TEST(FrameDecoderTest, OversizedNewlineMessageIsDroppedWithoutBuffering) {
  constexpr size_t kLimit = 4 * 1024 * 1024;
  const std::string huge(10 * 1024 * 1024, 'x');
  Recorder r(kLimit);
  size_t max_buffered = 0;
  for (size_t off = 0; off < huge.size(); off += 100000) {
    r.Feed(std::string_view(huge).substr(off, 100000));
    max_buffered = std::max(max_buffered, r.decoder().buffered_bytes());
  }
  r.Feed("\n{\"good\":1}\n");
  EXPECT_THAT(r.events(), ElementsAre("error:too-large:newline:message of 10485760 bytes exceeds "
                                      "the 4194304-byte limit",
                                      "nl:{\"good\":1}"));
  EXPECT_LE(max_buffered, kLimit + 200000);
  EXPECT_EQ(r.decoder().buffered_bytes(), 0u);
}

TEST(FrameDecoderTest, OversizedNewlineMessageInOneFeed) {
  const std::string stream = std::string(10 * 1024 * 1024, '[') + "\r\n[1]\n";
  EXPECT_THAT(DecodeAll(stream, 4 * 1024 * 1024),
              ElementsAre("error:too-large:newline:message of 10485760 bytes exceeds the "
                          "4194304-byte limit",
                          "nl:[1]"));
}

TEST(FrameDecoderTest, OversizedContentLengthMessageIsSkippedWithoutBuffering) {
  constexpr size_t kLimit = 4 * 1024 * 1024;
  const std::string body(10 * 1024 * 1024, 'y');
  Recorder r(kLimit);
  r.Feed("Content-Length: " + std::to_string(body.size()) + "\r\n\r\n");
  // Reported as soon as the headers are read, before the body arrives.
  EXPECT_THAT(r.events(), ElementsAre("error:too-large:content-length:message of 10485760 bytes "
                                      "exceeds the 4194304-byte limit"));
  for (size_t off = 0; off < body.size(); off += 100000) {
    r.Feed(std::string_view(body).substr(off, 100000));
    EXPECT_EQ(r.decoder().buffered_bytes(), 0u);
  }
  r.Feed(Cl("{\"good\":1}"));
  EXPECT_EQ(r.events().size(), 2u);
  EXPECT_EQ(r.events().back(), "cl:{\"good\":1}");
}

TEST(FrameDecoderTest, MessagesExactlyAtTheLimitPass) {
  const std::string at_limit(16, 'a');
  const std::string over_limit(17, 'b');
  EXPECT_THAT(DecodeAll(at_limit + "\n" + at_limit + "\r\n" + over_limit + "\n" + over_limit +
                            "\r\n" + Cl(at_limit) + Cl(over_limit) + "[1]\n",
                        16),
              ElementsAre("nl:" + at_limit, "nl:" + at_limit,
                          "error:too-large:newline:message of 17 bytes exceeds the 16-byte limit",
                          "error:too-large:newline:message of 17 bytes exceeds the 16-byte limit",
                          "cl:" + at_limit,
                          "error:too-large:content-length:message of 17 bytes exceeds the "
                          "16-byte limit",
                          "nl:[1]"));
}

TEST(FrameDecoderTest, FinishEmitsAnUnterminatedNewlineMessage) {
  Recorder r(1024);
  r.Feed("{\"a\":1}\n{\"b\":");
  EXPECT_THAT(r.events(), ElementsAre("nl:{\"a\":1}"));
  r.Finish();
  EXPECT_THAT(r.events(), ElementsAre("nl:{\"a\":1}", "nl:{\"b\":"));
  EXPECT_THAT(DecodeAll("Cont"), ElementsAre("nl:Cont"));
  EXPECT_THAT(DecodeAll("[1]\r"), ElementsAre("nl:[1]"));
}

TEST(FrameDecoderTest, FinishReportsATruncatedContentLengthMessage) {
  EXPECT_THAT(DecodeAll("Content-Length: 10\r\n\r\n{\"a\""),
              ElementsAre("error:bad-header:content-length:input ended after 4 of the 10 bytes "
                          "announced by Content-Length"));
  EXPECT_THAT(DecodeAll("Content-Length: 10\r\n"),
              ElementsAre("error:bad-header:content-length:input ended inside Content-Length "
                          "headers"));
}

TEST(FrameDecoderTest, DecoderIsReusableAfterFinish) {
  Recorder r(1024);
  r.Feed("Content-Length: 10\r\n\r\n{").Finish();
  r.Feed("[1]\n").Finish();
  ASSERT_EQ(r.events().size(), 2u);
  EXPECT_EQ(r.events()[1], "nl:[1]");
}

TEST(FrameDecoderTest, GarbageBytesArePassedThroughAsNewlineMessages) {
  const std::string garbage("\x00\x01\xFF\xFEgarbage\x80", 12);
  EXPECT_THAT(DecodeAll(garbage + "\n[1]\n"), ElementsAre("nl:" + garbage, "nl:[1]"));
  EXPECT_THAT(DecodeAll(std::string("{\"a\":\"\0\"}\n", 10)),
              ElementsAre("nl:" + std::string("{\"a\":\"\0\"}", 9)));
}

// A stream exercising every path: the result must not depend on where it is split.
std::string SampleStream() {
  std::string s;
  s += "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n";
  s += "\r\n\n";
  s += Cl("{\"s\":\"\xC3\xA9\xE2\x82\xAC\xF0\x9D\x84\x9E\"}");
  s += "[2]\r\n";
  s += "\xEF\xBB\xBF{\"bom\":1}\n";
  s += "\xEF\xBB\xBF" + Cl("{\"bom\":2}");
  s += "Content-Length: x\r\nContent-Type: a\r\n\r\n";
  s += "content-type: b\r\ncontent-length: 3\r\n\r\n[3]";
  s += std::string(80, 'L') + "\r\n";  // over the 64-byte limit
  s += "Content-Length: 70\r\n\r\n" + std::string(70, 'B');
  s += "Content-Length: 5\n\n[4,5]";
  s += "Content-Length: 2\r\n[5]\n";
  s += "  [6]  \n";
  s += std::string(64, 'M') + "\r\n";  // exactly at the limit
  s += "Cont";                         // unterminated at the end
  return s;
}

TEST(FrameDecoderTest, SampleStreamDecodesAsExpected) {
  std::vector<std::string> events = DecodeAll(SampleStream(), 64);
  ASSERT_EQ(events.size(), 14u) << ::testing::PrintToString(events);
  EXPECT_EQ(events[0], "nl:{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}");
  EXPECT_EQ(events[1], "cl:{\"s\":\"\xC3\xA9\xE2\x82\xAC\xF0\x9D\x84\x9E\"}");
  EXPECT_EQ(events[2], "nl:[2]");
  EXPECT_TRUE(events[3].starts_with("error:bom:newline:"));
  EXPECT_TRUE(events[4].starts_with("error:bom:content-length:"));
  EXPECT_EQ(events[5], "error:bad-header:content-length:invalid Content-Length value \"x\"");
  EXPECT_EQ(events[6], "cl:[3]");
  EXPECT_EQ(events[7], "error:too-large:newline:message of 80 bytes exceeds the 64-byte limit");
  EXPECT_EQ(events[8],
            "error:too-large:content-length:message of 70 bytes exceeds the 64-byte limit");
  EXPECT_EQ(events[9], "cl:[4,5]");
  EXPECT_EQ(events[10], "error:bad-header:content-length:malformed header line \"[5]\"");
  EXPECT_EQ(events[11], "nl:[6]  ");
  EXPECT_EQ(events[12], "nl:" + std::string(64, 'M'));
  EXPECT_EQ(events[13], "nl:Cont");
}

TEST(FrameDecoderTest, EverySplitOffsetDecodesIdentically) {
  const std::string stream = SampleStream();
  const std::vector<std::string> expected = DecodeAll(stream, 64);
  for (size_t cut = 0; cut <= stream.size(); ++cut) {
    Recorder r(64);
    r.Feed(stream.substr(0, cut)).Feed(stream.substr(cut)).Finish();
    ASSERT_EQ(r.events(), expected) << "split at offset " << cut;
  }
}

TEST(FrameDecoderTest, EveryPairOfSplitOffsetsDecodesIdentically) {
  const std::string stream = SampleStream();
  const std::vector<std::string> expected = DecodeAll(stream, 64);
  for (size_t a = 0; a <= stream.size(); a += 3) {
    for (size_t b = a; b <= stream.size(); b += 5) {
      Recorder r(64);
      r.Feed(stream.substr(0, a)).Feed(stream.substr(a, b - a)).Feed(stream.substr(b)).Finish();
      ASSERT_EQ(r.events(), expected) << "split at offsets " << a << " and " << b;
    }
  }
}

TEST(FrameDecoderTest, ByteAtATimeDecodesIdentically) {
  const std::string stream = SampleStream();
  Recorder r(64);
  for (char c : stream) r.Feed(std::string_view(&c, 1));
  r.Finish();
  EXPECT_EQ(r.events(), DecodeAll(stream, 64));
}

// Random streams of well-formed and broken pieces, split at random offsets, must decode as
// the unsplit stream does, and the decoder must never hold much more than the limit.
TEST(FrameDecoderTest, RandomStreamsDecodeIdenticallyUnderRandomSplits) {
  constexpr size_t kLimit = 48;
  std::mt19937 rng(20261122);
  auto pick = [&](size_t n) { return static_cast<size_t>(rng() % n); };
  const std::vector<std::string> pieces = {"{\"a\":1}\n",
                                           "[1,2]\r\n",
                                           "\n",
                                           "\r\n",
                                           "  \t",
                                           Cl("{\"b\":\"\xC3\xA9\"}"),
                                           Cl(std::string(60, 'c')),
                                           std::string(70, 'n') + "\n",
                                           "\xEF\xBB\xBF[3]\n",
                                           "\xEF\xBB\xBF" + Cl("[4]"),
                                           "Content-Length: z\r\n\r\n",
                                           "Content-Type: t\r\n\r\n",
                                           "Content-Length: 3\n\n[5]",
                                           "content-length: 2\r\n[6]\n",
                                           std::string("\0\xFF\x01", 3),
                                           "Content-",
                                           "Length: 1\r\n\r\nx",
                                           "\xEF",
                                           "\xBB\xBF",
                                           "garbage ",
                                           ":",
                                           "\r"};
  for (int round = 0; round < 300; ++round) {
    std::string stream;
    size_t count = 1 + pick(25);
    for (size_t i = 0; i < count; ++i) stream += pieces[pick(pieces.size())];
    const std::vector<std::string> expected = DecodeAll(stream, kLimit);
    for (int split = 0; split < 10; ++split) {
      Recorder r(kLimit);
      size_t pos = 0;
      while (pos < stream.size()) {
        size_t n = std::min(stream.size() - pos, 1 + pick(20));
        r.Feed(std::string_view(stream).substr(pos, n));
        EXPECT_LE(r.decoder().buffered_bytes(), FrameDecoder::kMaxHeaderLineBytes + 64 * 1024);
        pos += n;
      }
      r.Finish();
      ASSERT_EQ(r.events(), expected)
          << "round " << round << ", stream " << ::testing::PrintToString(stream);
    }
  }
}

}  // namespace
}  // namespace labgate::gateway
