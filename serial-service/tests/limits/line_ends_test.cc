#include "serial-service/limits/line_ends.h"

#include <gtest/gtest.h>

namespace labgate::serial {
namespace {

TEST(LineEndsTest, EveryCrAndLfMustBePartOfTheInstrumentsLineEnd) {
  EXPECT_TRUE(CheckLineEnds("VOLT 3\rOUTP ON\r", "\r", "psu-2").ok());
  EXPECT_TRUE(CheckLineEnds("VOLT 3\r\nOUTP ON\r\n", "\r\n", "psu-2").ok());
  EXPECT_TRUE(CheckLineEnds("VOLT 3", "\r", "psu-2").ok()) << "the terminator is appended later";

  // To a device that ends lines at CR only, this is VOLT 35.
  absl::Status hidden = CheckLineEnds("VO\nLT 35\r", "\r", "psu-2");
  EXPECT_EQ(hidden.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(hidden.message(),
            "the write has a line feed (\\n) at byte 2 that is not part of the line end of psu-2 "
            "(\\r): the device would read its lines otherwise than the limits do. End each "
            "command with the line end only");
  // A lone CR or LF where the line end is CRLF, and a CR before the appended CRLF.
  EXPECT_FALSE(CheckLineEnds("VOLT 3\rVOLT 35\r\n", "\r\n", "psu-2").ok());
  EXPECT_FALSE(CheckLineEnds("VOLT 3\nVOLT 35\r\n", "\r\n", "psu-2").ok());
  EXPECT_FALSE(CheckLineEnds("VOLT 3\r\r\n", "\r\n", "psu-2").ok());
  // A line end of two CRs is matched whole, not CR by CR.
  EXPECT_TRUE(CheckLineEnds("VOLT 3\r\r", "\r\r", "psu-2").ok());
  EXPECT_FALSE(CheckLineEnds("VOLT 3\rVOLT 35\r\r", "\r\r", "psu-2").ok());
}

TEST(LineEndsTest, WithoutALineEndSetLfIsAssumedAndMayFollowACr) {
  EXPECT_TRUE(CheckLineEnds("VOLT 3\nOUTP ON\r\n", "", "psu-2").ok());
  absl::Status lone_cr = CheckLineEnds("OUTP ON\rVOLT 30\n", "", "psu-2");
  EXPECT_EQ(lone_cr.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(lone_cr.message(),
            "the write has a carriage return (\\r) at byte 7 that is not part of the line end of "
            "psu-2 (\\n (SCPI's, no terminator is set)): the device would read its lines "
            "otherwise than the limits do. End each command with the line end only");
}

TEST(LineEndsTest, ALineEndOfOtherCharactersLeavesNothingThatCanBeChecked) {
  absl::Status refused = CheckLineEnds("VOLT 3\x04", "\x04", "psu-2");
  EXPECT_EQ(refused.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(refused.message(),
            "the line end of psu-2 is \\x04; its limits read lines that end in CR or LF only, so "
            "no write to it can be checked. Set its terminator to \\n, \\r or \\r\\n");
}

}  // namespace
}  // namespace labgate::serial
