// labgate's flags are spelled with hyphens (--data-dir); absl flags are defined with
// underscores. This rewrites "--data-dir=x" to "--data_dir=x" before absl parses argv.
#pragma once

#include <string>
#include <vector>

namespace labgate {

class HyphenatedFlags {
 public:
  HyphenatedFlags(int argc, char** argv);
  int argc() { return static_cast<int>(pointers_.size()) - 1; }
  char** argv() { return pointers_.data(); }

 private:
  std::vector<std::string> storage_;
  std::vector<char*> pointers_;
};

}  // namespace labgate
