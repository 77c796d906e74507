#include "pkb/suite/pkb_checkout.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <stdexcept>

#include "trace/core/error.h"

namespace parascope::pkb {

namespace fs = std::filesystem;

const PkbTask* PkbCheckout::find(int id) const {
  for (const auto& t : tasks)
    if (t.id == id) return &t;
  return nullptr;
}

PkbCheckout open_pkb_checkout(const std::string& dir) {
  std::error_code ec;
  const fs::path root = fs::absolute(dir, ec);
  for (const char* need : {"run_local.py", "scripts/worker.py", "utils/performance.py", "reference"})
    if (!fs::exists(root / need, ec))
      throw InputError({dir, -1, -1, need}, "not a ParallelKernelBench checkout (no " + std::string(need) + ")");
  PkbCheckout c;
  c.root = fs::canonical(root, ec).string();
  for (const auto& e : fs::directory_iterator(root / "reference", ec)) {
    if (e.path().extension() != ".py") continue;
    const std::string stem = e.path().stem().string();
    int id = 0;
    const auto r = std::from_chars(stem.data(), stem.data() + stem.size(), id);
    if (r.ec != std::errc() || r.ptr == stem.data() || r.ptr == stem.data() + stem.size() || *r.ptr != '_') continue;
    c.tasks.push_back({id, stem, fs::absolute(e.path()).string()});
  }
  std::sort(c.tasks.begin(), c.tasks.end(),
            [](const PkbTask& a, const PkbTask& b) { return a.id != b.id ? a.id < b.id : a.stem < b.stem; });
  if (c.tasks.empty()) throw InputError({dir, -1, -1, "reference"}, "no task files <id>_<name>.py");
  return c;
}

namespace {
int to_id(const std::string& piece, const std::string& whole) {
  int v = 0;
  const auto r = std::from_chars(piece.data(), piece.data() + piece.size(), v);
  if (piece.empty() || r.ec != std::errc() || r.ptr != piece.data() + piece.size() || v < 1)
    throw std::invalid_argument("problem range '" + whole + "': '" + piece + "' is not a task number");
  return v;
}
}  // namespace

std::set<int> parse_problem_range(const std::string& text) {
  std::set<int> ids;
  size_t pos = 0;
  while (pos <= text.size()) {
    const size_t comma = std::min(text.find(',', pos), text.size());
    const std::string piece = text.substr(pos, comma - pos);
    const size_t dash = piece.find('-');
    if (dash == std::string::npos) {
      ids.insert(to_id(piece, text));
    } else {
      const int a = to_id(piece.substr(0, dash), text), b = to_id(piece.substr(dash + 1), text);
      if (b < a) throw std::invalid_argument("problem range '" + text + "': " + piece + " runs backwards");
      for (int i = a; i <= b; ++i) ids.insert(i);
    }
    pos = comma + 1;
  }
  return ids;
}

std::vector<PkbTask> select_tasks(const PkbCheckout& c, const std::set<int>& ids) {
  std::vector<PkbTask> out;
  for (const auto& t : c.tasks)
    if (ids.empty() || ids.count(t.id)) out.push_back(t);
  return out;
}

}  // namespace parascope::pkb
