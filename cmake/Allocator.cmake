# The servers allocate and free many small blocks per request (JSON values, protobuf messages,
# gRPC's call state). tcmalloc's per-thread caches serve them at about a third of glibc
# malloc's cost, which was 14% of the gateway's CPU on the stdio fast path (bench/README.md).
# Sanitizer and fuzzing builds keep their own allocator.
option(LABGATE_TCMALLOC "Link the servers with tcmalloc_minimal when it is installed" ON)
set(LABGATE_ALLOCATOR_LIBS "")
if(LABGATE_TCMALLOC AND NOT LABGATE_SANITIZE AND NOT LABGATE_FUZZ)
  pkg_check_modules(TCMALLOC IMPORTED_TARGET libtcmalloc_minimal)
  if(TCMALLOC_FOUND)
    set(LABGATE_ALLOCATOR_LIBS PkgConfig::TCMALLOC)
  endif()
endif()

# For the four server executables.
function(labgate_use_allocator target)
  if(LABGATE_ALLOCATOR_LIBS)
    target_link_libraries(${target} PRIVATE ${LABGATE_ALLOCATOR_LIBS})
  endif()
endfunction()
