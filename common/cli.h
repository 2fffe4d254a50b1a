// Command-line parsing shared by every labgate binary: hyphenated flag names, a --help
// that lists labgate's own flags with hyphens, and --check-config.
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"

namespace labgate {

// Parses argv with absl after rewriting --flag-name to --flag_name. `usage` is the
// first line of --help, e.g. "labgate-session [--listen HOST:PORT] [--data-dir DIR]".
// On --help prints it and the flags, then exits 0. Returns the positional arguments.
std::vector<std::string> ParseFlags(int argc, char** argv, const std::string& usage);

// The --help text (usage line and every flag not defined by absl itself).
std::string HelpText(const std::string& usage);

// True when --check-config was given: validate, print what would be served, exit.
bool CheckConfigRequested();

// Ends a --check-config run: prints "PROGRAM: configuration OK" and `lines` to stdout
// and returns 0, or prints the error to stderr and returns 2.
int FinishCheckConfig(const std::string& program, const std::vector<std::string>& lines,
                      const absl::Status& status);

}  // namespace labgate
