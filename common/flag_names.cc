#include "common/flag_names.h"

namespace labgate {

HyphenatedFlags::HyphenatedFlags(int argc, char** argv) {
  bool after_terminator = false;
  for (int i = 0; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--") after_terminator = true;
    if (i > 0 && !after_terminator && arg.size() > 2 && arg[0] == '-') {
      size_t name_start = arg[1] == '-' ? 2 : 1;
      size_t name_end = arg.find('=');
      if (name_end == std::string::npos) name_end = arg.size();
      for (size_t j = name_start; j < name_end; ++j) {
        if (arg[j] == '-') arg[j] = '_';
      }
    }
    storage_.push_back(std::move(arg));
  }
  for (std::string& arg : storage_) pointers_.push_back(arg.data());
  pointers_.push_back(nullptr);
}

}  // namespace labgate
