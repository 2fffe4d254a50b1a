# labgate_warnings(target): the project's warning set, applied per target so that
# generated protobuf code (which is not warning-clean under -Wpedantic) stays exempt. Under
# clang the thread-safety analysis checks the ABSL_GUARDED_BY annotations (the clang-tsa
# preset makes its findings errors).
function(labgate_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    target_compile_options(${target} PRIVATE -Wthread-safety)
  endif()
  if(LABGATE_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()
