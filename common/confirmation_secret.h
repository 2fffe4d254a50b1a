// The secret that lets the gateway, and only it, present a person's approval of a
// write to labgate-serial. Embedded, both sides share the process and so a random
// secret; split, both read the file named by LABGATE_CONFIRM_SECRET_FILE.
#pragma once

#include <string>

namespace labgate {

inline constexpr char kConfirmSecretFileEnv[] = "LABGATE_CONFIRM_SECRET_FILE";

// The file's first line when the variable names a readable, non-empty file; otherwise
// random for this process. Fixed after the first call.
const std::string& ConfirmationSecret();

}  // namespace labgate
