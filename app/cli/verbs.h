// The CLI's verbs. Each lives in its own verb_<name>.cpp and is listed once in main.cpp's table.
// A verb returns the process exit code; it throws InputError for bad input (main prints it as one
// line, exit 1) and UsageError for bad arguments (exit 2).
#pragma once

#include <string>
#include <vector>

namespace parascope::cli {

using VerbArgs = std::vector<std::string>;

int run_info(const VerbArgs& args);
int run_convert(const VerbArgs& args);
int run_stats(const VerbArgs& args);
int run_record(const VerbArgs& args);
int run_simulate(const VerbArgs& args);
int run_calibrate(const VerbArgs& args);
int run_knobs(const VerbArgs& args);
int run_window(const VerbArgs& args);
int run_whatif(const VerbArgs& args);
int run_links(const VerbArgs& args);
int run_roofline(const VerbArgs& args);
int run_report(const VerbArgs& args);
int run_diff(const VerbArgs& args);
int run_pkb(const VerbArgs& args);

}  // namespace parascope::cli
