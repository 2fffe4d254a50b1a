// labgate's flags are spelled with hyphens (--data-dir); absl flags are defined with
// underscores. Every translation between the two spellings lives here: argv before absl
// parses it, the names --help prints, and the few flags read straight from argv.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace labgate {

// "data-dir" -> "data_dir", and back.
std::string UnderscoredFlagName(std::string_view name);
std::string HyphenatedFlagName(std::string_view name);

// argv with "--data-dir=x" rewritten to "--data_dir=x" (values and everything after "--"
// left alone), for absl::ParseCommandLine.
class HyphenatedFlags {
 public:
  HyphenatedFlags(int argc, char** argv);
  int argc() { return static_cast<int>(pointers_.size()) - 1; }
  char** argv() { return pointers_.data(); }

 private:
  std::vector<std::string> storage_;
  std::vector<char*> pointers_;
};

// Every value given to flag `name` (either spelling, "-" or "--", "=VALUE" or a separate
// VALUE), in order: absl keeps only the last of a repeated flag.
std::vector<std::string> FlagValues(int argc, char** argv, std::string_view name);

// True when argv names flag `name` at all (either spelling, with or without a value).
bool FlagNamed(int argc, char** argv, std::string_view name);

}  // namespace labgate
