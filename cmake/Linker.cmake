# lld links labgate's large executables about ten times faster than GNU ld (1.9 s against
# 20 s for the gateway with debug information), which is most of a full build's time on two
# cores. Used when installed (scripts/setup.sh installs it); -DLABGATE_USE_LLD=OFF keeps the
# toolchain's default linker.
option(LABGATE_USE_LLD "Link with lld when it is installed" ON)
if(LABGATE_USE_LLD)
  find_program(LABGATE_LLD ld.lld)
  if(LABGATE_LLD)
    add_link_options(-fuse-ld=lld)
  endif()
endif()
