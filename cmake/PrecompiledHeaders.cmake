# Precompiled headers for clang builds. gRPC, protobuf, Abseil, Boost.Asio and nlohmann::json
# (GoogleTest too, for tests) are most of what a labgate translation unit parses. Two holder
# targets compile them once per build tree, and every target that labgate_warnings() marked
# reuses one of them (the test one when it links GoogleTest). Measured on the asan flags: the
# common, serial and tool-test targets built in 116 s with it against 176 s without.
# Off for GCC: its 300 MB header image made no difference there, and GCC 12 then reports
# -Warray-bounds inside std::string. The clang-tsa preset turns it off too, so that one build
# still proves each file includes what it uses (and clang-tidy reads plain compile commands).
set(labgate_pch_default OFF)
if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  set(labgate_pch_default ON)
endif()
option(LABGATE_PCH "Reuse one precompiled header of the third-party APIs in every target"
       ${labgate_pch_default})

set(LABGATE_PCH_HEADERS
    <algorithm> <atomic> <chrono> <functional> <map> <memory> <mutex> <optional> <string>
    <string_view> <thread> <utility> <vector>
    <absl/status/status.h> <absl/status/statusor.h> <absl/strings/str_cat.h>
    <absl/synchronization/mutex.h> <boost/asio/io_context.hpp> <boost/asio/post.hpp>
    <boost/asio/strand.hpp> <google/protobuf/message.h> <grpcpp/grpcpp.h> <nlohmann/json.hpp>)

# A precompiled header is valid only under the macros it was built with: the holders and
# their users share these (compiler flags are global already; -pthread defines _REENTRANT,
# which the holders get from gRPC's dependencies).
function(labgate_add_pch_holder name)
  add_library(${name} OBJECT ${PROJECT_SOURCE_DIR}/cmake/pch/holder.cc)
  target_link_libraries(${name} PRIVATE labgate_pch_flags absl::status absl::statusor absl::strings
                                        absl::synchronization gRPC::grpc++ protobuf::libprotobuf
                                        nlohmann_json::nlohmann_json ${ARGN})
  labgate_warnings(${name} NO_PCH)
  target_precompile_headers(${name} PRIVATE ${LABGATE_PCH_HEADERS})
endfunction()

if(LABGATE_PCH)
  add_library(labgate_pch_flags INTERFACE)
  target_link_libraries(labgate_pch_flags INTERFACE Boost::headers Threads::Threads)
  target_compile_options(labgate_pch_flags INTERFACE -pthread)
  labgate_add_pch_holder(labgate_pch)
  labgate_add_pch_holder(labgate_pch_test GTest::gtest GTest::gmock)
  target_precompile_headers(labgate_pch_test PRIVATE <gtest/gtest.h> <gmock/gmock.h>)
endif()

# Called at the end of the top-level CMakeLists.txt, when every target exists.
function(labgate_reuse_pch)
  if(NOT LABGATE_PCH)
    return()
  endif()
  get_property(targets GLOBAL PROPERTY LABGATE_PCH_USERS)
  foreach(target IN LISTS targets)
    get_target_property(libraries ${target} LINK_LIBRARIES)
    set(holder labgate_pch)
    if(libraries MATCHES "GTest::")
      set(holder labgate_pch_test)
    endif()
    target_link_libraries(${target} PRIVATE labgate_pch_flags)
    target_precompile_headers(${target} REUSE_FROM ${holder})
  endforeach()
endfunction()
