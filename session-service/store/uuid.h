#pragma once

#include <string>

namespace labgate::session {

// A random (version 4) UUID in canonical lower-case form.
std::string NewUuidV4();

}  // namespace labgate::session
