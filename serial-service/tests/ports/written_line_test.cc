#include "serial-service/ports/written_line.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace labgate::serial {
namespace {

TEST(WrittenLineTest, KeepsWhatFollowsTheLastTerminatorInTheWritesItCameIn) {
  WrittenLine line;
  line.Append("VOLT 3\n", true);
  EXPECT_TRUE(line.empty()) << "a finished line leaves nothing unfinished";
  line.Append("VO", true);
  line.Append("LT", true);
  EXPECT_EQ(line.text(), "VOLT");
  EXPECT_EQ(line.starts(), (std::vector<size_t>{0, 2}));
  line.Append(" 3", false);  // the rest of a write the device took in part: no new start
  EXPECT_EQ(line.starts(), (std::vector<size_t>{0, 2}));
  line.Append("5\rCURR", true);
  EXPECT_EQ(line.text(), "CURR") << "a lone CR ends a line too";
  EXPECT_EQ(line.starts(), (std::vector<size_t>{0}));
  line.Append("\r\n", true);
  EXPECT_TRUE(line.empty());
  EXPECT_TRUE(line.starts().empty());
  EXPECT_FALSE(line.truncated());
}

TEST(WrittenLineTest, HeadIsWhatAWriteAddsToTheUnfinishedLine) {
  EXPECT_EQ(WrittenLine::Head("LT 35\nVOLT 1\n"), "LT 35");
  EXPECT_EQ(WrittenLine::Head("\nVOLT 1"), "");
  EXPECT_EQ(WrittenLine::Head("35"), "35");
  EXPECT_EQ(WrittenLine::Head("3\r5"), "3");
}

TEST(WrittenLineTest, KeepsTheNewestPiecesAndSaysWhenItsStartWasDropped) {
  WrittenLine line;
  for (size_t i = 0; i < WrittenLine::kMaxPieces; ++i) line.Append("x", true);
  EXPECT_FALSE(line.truncated());
  EXPECT_TRUE(line.WouldOverflow("y")) << "one piece more than is kept";
  EXPECT_FALSE(line.WouldOverflow("y\n")) << "a write that ends the line never overflows";
  line.Append("y", true);
  EXPECT_TRUE(line.truncated());
  EXPECT_EQ(line.starts().size(), WrittenLine::kMaxPieces);
  EXPECT_EQ(line.text(), std::string(WrittenLine::kMaxPieces - 1, 'x') + "y");
  line.Append("\n", true);
  EXPECT_FALSE(line.truncated()) << "a new line starts whole";

  line.Append("ab", true);
  line.Append(std::string(WrittenLine::kMaxBytes, 'c'), true);
  EXPECT_TRUE(line.truncated());
  EXPECT_EQ(line.text(), std::string(WrittenLine::kMaxBytes, 'c'))
      << "the older piece no longer fits beside the newer one";
  EXPECT_EQ(line.starts(), (std::vector<size_t>{0}));

  WrittenLine cut;
  cut.Append(std::string(WrittenLine::kMaxBytes - 2, 'a'), true);
  cut.Append("bbbb", true);
  EXPECT_TRUE(cut.truncated());
  EXPECT_EQ(cut.text().size(), WrittenLine::kMaxBytes);
  ASSERT_EQ(cut.starts().size(), 2u);
  EXPECT_EQ(cut.text().substr(cut.starts()[1]), "bbbb") << "the newer piece keeps its start";
}

}  // namespace
}  // namespace labgate::serial
