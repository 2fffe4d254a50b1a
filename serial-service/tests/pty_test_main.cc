// The pty tests' main(): shim via LD_PRELOAD and a private mount namespace first.
#include "tests/serial_harness/harness_main.h"

int main(int argc, char** argv) { return labgate::serial_harness::HarnessMain(argc, argv); }
