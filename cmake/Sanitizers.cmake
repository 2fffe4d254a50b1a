# Instrumented builds (the asan, tsan and fuzz presets). The flags apply to every target,
# generated protobuf code included, so the sanitizers see all of labgate's code.
set(LABGATE_SANITIZE "" CACHE STRING
    "Sanitizers for every target, e.g. address,undefined or thread (empty: none)")
option(LABGATE_FUZZ "Build tests/fuzz as libFuzzer targets (clang only)" OFF)

if(LABGATE_SANITIZE)
  add_compile_options(-fsanitize=${LABGATE_SANITIZE} -fno-omit-frame-pointer)
  add_link_options(-fsanitize=${LABGATE_SANITIZE})
  if(LABGATE_SANITIZE MATCHES "thread")
    add_compile_options(-fsanitize-ignorelist=${PROJECT_SOURCE_DIR}/tests/tsan/ignorelist.txt)
  endif()
  if(LABGATE_SANITIZE MATCHES "undefined")
    # A report must fail the test, not scroll by.
    add_compile_options(-fno-sanitize-recover=undefined)
  endif()
endif()

if(LABGATE_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "LABGATE_FUZZ needs clang's libFuzzer: cmake --preset fuzz")
  endif()
  # Coverage feedback for all code; only the fuzz targets link libFuzzer's main.
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()

# Every executable target under `dir`, its subdirectories included.
function(labgate_executables out dir)
  set(found "")
  get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
  foreach(target IN LISTS targets)
    get_target_property(type ${target} TYPE)
    if(type STREQUAL "EXECUTABLE")
      list(APPEND found ${target})
    endif()
  endforeach()
  get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  foreach(subdir IN LISTS subdirs)
    labgate_executables(below ${subdir})
    list(APPEND found ${below})
  endforeach()
  set(${out} ${found} PARENT_SCOPE)
endfunction()

# ThreadSanitizer builds: every executable gets the absl::Mutex annotations of tests/tsan/.
# Called at the end of the top-level CMakeLists.txt, when every target exists.
function(labgate_link_tsan_annotations)
  if(NOT LABGATE_SANITIZE MATCHES "thread")
    return()
  endif()
  labgate_executables(executables ${PROJECT_SOURCE_DIR})
  foreach(executable IN LISTS executables)
    set_property(TARGET ${executable} APPEND PROPERTY LINK_LIBRARIES labgate_tsan_absl_sync)
  endforeach()
endfunction()
