# Instrumented builds (the asan, tsan and fuzz presets). The flags apply to every target,
# generated protobuf code included, so the sanitizers see all of labgate's code.
set(LABGATE_SANITIZE "" CACHE STRING
    "Sanitizers for every target, e.g. address,undefined or thread (empty: none)")
option(LABGATE_FUZZ "Build tests/fuzz as libFuzzer targets (clang only)" OFF)

if(LABGATE_SANITIZE)
  add_compile_options(-fsanitize=${LABGATE_SANITIZE} -fno-omit-frame-pointer)
  add_link_options(-fsanitize=${LABGATE_SANITIZE})
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
