# labgate_add_required_subdirectory(dir): add_subdirectory for a folder the build cannot do
# without. A partial source tree (a folder lost in a copy or a sparse checkout) fails here,
# at configure time, naming what is missing, instead of quietly building less.
function(labgate_add_required_subdirectory dir)
  if(NOT EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/${dir}/CMakeLists.txt)
    file(RELATIVE_PATH where ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_SOURCE_DIR}/${dir})
    message(FATAL_ERROR
      "labgate: ${where}/CMakeLists.txt is missing, so this source tree is incomplete. "
      "Restore it (for example: git checkout -- ${where}). To build without a service on "
      "purpose, configure with -DLABGATE_SKIP=<service> instead.")
  endif()
  add_subdirectory(${dir})
endfunction()
