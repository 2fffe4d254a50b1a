# labgate_warnings(target): the project's warning set, applied per target so that
# generated protobuf code (which is not warning-clean under -Wpedantic) stays exempt.
function(labgate_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic)
  if(LABGATE_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()
