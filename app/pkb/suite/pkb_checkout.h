// A ParallelKernelBench checkout the user passes with --pkb DIR: its tasks are the files
// reference/<id>_<name>.py, read at run time (Parascope drives PKB and never copies it). A task is
// named by its file stem ("1_allreduce"), as PKB's run_local.py and solutions folders name it.
#pragma once

#include <set>
#include <string>
#include <vector>

namespace parascope::pkb {

struct PkbTask {
  int id = 0;          // the leading number of the stem
  std::string stem;    // "1_allreduce"
  std::string reference;  // absolute path of reference/<stem>.py
};

struct PkbCheckout {
  std::string root;               // absolute
  std::vector<PkbTask> tasks;     // by id, then stem (PKB's own order: utils/problem_id.py)
  const PkbTask* find(int id) const;  // the first task with this id (run_local.py's "--problem N")
};

// InputError naming the directory when it is not a PKB checkout (run_local.py, scripts/worker.py,
// reference/ with at least one task).
PkbCheckout open_pkb_checkout(const std::string& dir);

// "1-87", "1,2,7-8", "12" -> ids; UsageError-free: std::invalid_argument with the bad piece.
std::set<int> parse_problem_range(const std::string& text);

// The tasks of a checkout whose ids are in `ids` (all when empty).
std::vector<PkbTask> select_tasks(const PkbCheckout& c, const std::set<int>& ids);

}  // namespace parascope::pkb
