# labgate_warnings(target): the project's warning set, applied per target so that
# generated protobuf code (which is not warning-clean under -Wpedantic) stays exempt. Under
# clang the thread-safety analysis checks the ABSL_GUARDED_BY annotations (the clang-tsa
# preset makes its findings errors). The target also reuses the shared precompiled header
# (cmake/PrecompiledHeaders.cmake) unless NO_PCH is given.
function(labgate_warnings target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "NO_PCH" "" "")
  if(NOT arg_NO_PCH)
    set_property(GLOBAL APPEND PROPERTY LABGATE_PCH_USERS ${target})
  endif()
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    target_compile_options(${target} PRIVATE -Wthread-safety)
  endif()
  if(LABGATE_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()
