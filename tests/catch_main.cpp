// main() for the non-Qt test binaries: Catch2's runner, with skips reported to ctest (skip.h).
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include "skip_main.h"

int main(int argc, char** argv) { return parascope::test::skip_aware_result(Catch::Session().run(argc, argv)); }
