#include "bench/report.h"

#include <cstdio>

#include "bench/commands.h"
#include "bench/row_runner.h"
#include "device/cuda_check.h"
#include "device/gpu_context.h"
#include "host/size_spec.h"

namespace parascope::bench {

Report::Report(const std::string& subcommand, const std::string& command_line, std::string json_path,
               std::string table_path)
    : set_(subcommand, command_line), json_path_(std::move(json_path)), table_path_(std::move(table_path)) {}

void Report::add(ResultRow row) {
  print_progress(row);
  set_.add(std::move(row));
  save();
}

void Report::save() const {
  if (json_path_.empty()) return;
  try {
    set_.write_json(json_path_);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "parascope-bench: %s\n", e.what());
  }
}

void Report::finish(const std::string& title) const {
  std::string text = "== " + title + " ==\n" + format_table(set_.rows());
  if (!set_.targets().empty()) text += "\ntargets (issue #5, same run):\n" + format_targets(set_.targets());
  std::fputs(text.c_str(), stdout);
  std::fflush(stdout);
  if (!table_path_.empty()) {
    try {
      write_text_file(table_path_, text);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "parascope-bench: %s\n", e.what());
    }
  }
  save();
}

bool Report::any_failed() const {
  for (const auto& r : set_.rows())
    if (r.checked && !r.ok) return true;
  return false;
}

int run_subcommand(const std::string& name, const std::vector<std::string>& args, const std::vector<OptionSpec>& specs,
                   int min_gpus, const std::function<int(const Options&)>& body) {
  try {
    if (Options::wants_help(args)) {
      std::printf("usage: parascope-bench %s [options]\n%s", name.c_str(), Options(std::vector<std::string>{}, specs).usage().c_str());
      return 0;
    }
    const Options opts(args, specs);
    const int have = GpuContext::available_gpus();
    if (have < min_gpus) {
      std::fprintf(stderr, "SKIPPED: parascope-bench %s needs %d GPUs with peer access, found %d\n", name.c_str(), min_gpus, have);
      return kExitSkip;
    }
    return body(opts);
  } catch (const UsageError& e) {
    std::fprintf(stderr, "parascope-bench %s: %s\n", name.c_str(), e.what());
    return kExitUsage;
  } catch (const ContextLost& e) {
    std::fprintf(stderr, "parascope-bench %s: %s (rows so far are saved)\n", name.c_str(), e.what());
    return kExitContextLost;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "parascope-bench %s: %s\n", name.c_str(), e.what());
    return kExitFailed;
  }
}

}  // namespace parascope::bench
