// main() for GoogleTest binaries that need pty serial devices. It re-executes the
// binary with tiocm_shim.so in LD_PRELOAD when the shim is not loaded yet, then
// enters a private mount namespace before any thread starts. If either step fails
// it prints why and returns 1: these tests fail, they never skip.
#pragma once

namespace labgate::serial_harness {

int HarnessMain(int argc, char** argv);

}  // namespace labgate::serial_harness
