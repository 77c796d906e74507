#include "pkb/suite/pkb_perf.h"

#include <algorithm>
#include <charconv>
#include <filesystem>

#include "trace/core/error.h"
#include "trace/core/json.h"

namespace parascope::pkb {

namespace fs = std::filesystem;

namespace {
double number(const JsonValue& doc, const std::string& file, const char* key, bool required) {
  const JsonValue* v = doc.find(key);
  if (!v) {
    if (required) throw InputError({file, -1, -1, std::string("$.") + key}, "missing (not a PKB perf file?)");
    return 0;
  }
  if (!v->is_number()) throw InputError({file, v->byte_offset(), -1, std::string("$.") + key}, "expected a number");
  return v->as_double();
}
}  // namespace

RankPerf read_rank_perf(const std::string& path) {
  const JsonValue doc = load_json_file(path);
  if (!doc.is_object()) throw InputError({path, 0, -1, "$"}, "expected a JSON object");
  RankPerf p;
  p.file = path;
  const std::string base = fs::path(path).filename().string();  // rank_<r>_perf.json
  int r = -1;
  if (base.rfind("rank_", 0) == 0) std::from_chars(base.data() + 5, base.data() + base.size(), r);
  p.rank = r;
  p.wall_time_ms = number(doc, path, "wall_time_ms", true);
  p.wall_time_std_ms = number(doc, path, "wall_time_std_ms", false);
  p.min_time_ms = number(doc, path, "min_time_ms", false);
  p.max_time_ms = number(doc, path, "max_time_ms", false);
  p.iterations = static_cast<int>(number(doc, path, "iterations", false));
  p.warmup_iterations = static_cast<int>(number(doc, path, "warmup_iterations", false));
  p.num_input_groups = number(doc, path, "num_input_groups", false);
  p.timed_tensor_bytes = number(doc, path, "timed_tensor_bytes", false);
  if (!(p.wall_time_ms >= 0)) throw InputError({path, -1, -1, "$.wall_time_ms"}, "negative time");
  return p;
}

PerfSummary read_perf_dir(const std::string& dir) {
  PerfSummary s;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string base = e.path().filename().string();
    if (base.rfind("rank_", 0) == 0 && base.size() > 10 && base.substr(base.size() - 10) == "_perf.json")
      s.ranks.push_back(read_rank_perf(e.path().string()));
  }
  std::sort(s.ranks.begin(), s.ranks.end(), [](const RankPerf& a, const RankPerf& b) { return a.rank < b.rank; });
  if (s.ranks.empty()) return s;
  double sum = 0;
  for (const auto& r : s.ranks) {
    s.wall_time_ms_max = std::max(s.wall_time_ms_max, r.wall_time_ms);
    sum += r.wall_time_ms;
  }
  s.wall_time_ms_mean = sum / static_cast<double>(s.ranks.size());
  s.iterations = s.ranks.front().iterations;
  s.warmup_iterations = s.ranks.front().warmup_iterations;
  return s;
}

}  // namespace parascope::pkb
