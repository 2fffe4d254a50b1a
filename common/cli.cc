#include "common/cli.h"

#include <algorithm>
#include <cstdlib>
#include <iostream>

#include "absl/flags/commandlineflag.h"
#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/reflection.h"
#include "absl/flags/usage.h"
#include "common/flag_names.h"

ABSL_FLAG(bool, check_config, false,
          "Validate the flags and the files they name, print what would be served, and exit "
          "(0 when valid)");

namespace labgate {

std::string HelpText(const std::string& usage) {
  std::vector<const absl::CommandLineFlag*> flags;
  for (const auto& [name, flag] : absl::GetAllFlags()) {
    // absl's own flags (--flagfile, --helpfull, ...) are not labgate's to document.
    if (flag->Filename().find("absl/") != std::string::npos) continue;
    flags.push_back(flag);
  }
  std::sort(flags.begin(), flags.end(),
            [](const auto* a, const auto* b) { return a->Name() < b->Name(); });
  std::string text = "usage: " + usage + "\n\nflags:\n";
  for (const auto* flag : flags) {
    text += "  --" + HyphenatedFlagName(std::string(flag->Name())) + "  " + flag->Help();
    std::string fallback = flag->DefaultValue();
    if (!fallback.empty() && fallback != "false") text += " (default: " + fallback + ")";
    text += "\n";
  }
  return text;
}

std::vector<std::string> ParseFlags(int argc, char** argv, const std::string& usage) {
  absl::SetProgramUsageMessage(usage);
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--") break;
    if (arg == "--help" || arg == "-help" || arg == "-h" || arg == "--helpfull") {
      std::cout << HelpText(usage);
      std::exit(0);
    }
  }
  HyphenatedFlags hyphenated(argc, argv);
  std::vector<char*> rest = absl::ParseCommandLine(hyphenated.argc(), hyphenated.argv());
  return std::vector<std::string>(rest.begin() + (rest.empty() ? 0 : 1), rest.end());
}

bool CheckConfigRequested() { return absl::GetFlag(FLAGS_check_config); }

int FinishCheckConfig(const std::string& program, const std::vector<std::string>& lines,
                      const absl::Status& status) {
  if (!status.ok()) {
    std::cerr << program << ": bad configuration: " << status.message() << "\n";
    return 2;
  }
  std::cout << program << ": configuration OK\n";
  for (const std::string& line : lines) std::cout << "  " << line << "\n";
  return 0;
}

}  // namespace labgate
