# Writes a C++ source holding the bytes of the console page, so that the gateway binary
# serves it wherever it runs. An array, not a string literal: the page is longer than
# what ISO C++ asks compilers to accept in one literal.
# Usage: cmake -DINPUT=<console.html> -DOUTPUT=<file.cc> -P embed_page.cmake
file(READ "${INPUT}" hex HEX)
string(LENGTH "${hex}" hex_length)
math(EXPR size "${hex_length} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "'\\\\x\\1'," bytes "${hex}")
# Break the array into lines of 16 bytes (CMake's regexes have no {n}).
string(REPEAT "'[^']+'," 16 sixteen)
string(REGEX REPLACE "(${sixteen})" "\\1\n  " bytes "${bytes}")

set(content "// Generated from gateway/console/console.html by embed_page.cmake. Do not edit.
#include \"gateway/console/console_page.h\"

namespace labgate::gateway::console {
namespace {

constexpr char kPage[${size}] = {
  ${bytes}
};

}  // namespace

std::string_view ConsolePage() { return std::string_view(kPage, sizeof(kPage)); }

}  // namespace labgate::gateway::console
")

if(EXISTS "${OUTPUT}")
  file(READ "${OUTPUT}" previous)
  if(previous STREQUAL content)
    return()
  endif()
endif()
file(WRITE "${OUTPUT}" "${content}")
