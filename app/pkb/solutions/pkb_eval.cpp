#include "pkb/solutions/pkb_eval.h"

#include <cstdlib>
#include <filesystem>

#include "pkb/solutions/solution_set.h"
#include "pkb/suite/child_process.h"
#include "pkb/suite/failure_reason.h"
#include "pkb/suite/suite_folder.h"
#include "trace/core/json.h"

namespace parascope::pkb {

namespace fs = std::filesystem;

EvalResult parse_eval_output(const std::string& stem, const std::string& out, const std::string& err, int exit_code) {
  EvalResult r;
  r.stem = stem;
  constexpr std::string_view kKey = "PKB_EVAL_JSON:";
  const size_t at = out.rfind(kKey);
  bool have_json = false;
  if (at != std::string::npos) {
    const size_t end = out.find('\n', at);
    try {
      const JsonValue d = parse_json(out.substr(at + kKey.size(), end == std::string::npos ? std::string::npos : end - at - kKey.size()),
                                     "PKB_EVAL_JSON");
      have_json = true;
      const JsonValue* ok = d.find("all_ok");
      r.correct = ok && ok->type() == JsonValue::Type::kBool && ok->as_bool();
      if (const JsonValue* t = d.find("trials"); t && t->is_array()) {
        r.trials = static_cast<int>(t->items().size());
        for (const JsonValue& x : t->items()) {
          const JsonValue* res = x.find("result");
          if (!r.correct && res && res->is_string() && res->text() != "match" && r.reason.empty()) {
            r.reason = "trial result: " + res->text();
            if (const JsonValue* h = x.find("harness_hint"); h && h->is_string()) r.reason += " (" + h->text() + ")";
            if (const JsonValue* c = x.find("compare")) {
              if (const JsonValue* e = c->find("errors"); e && e->is_array() && !e->items().empty() && e->items()[0].is_string())
                r.reason += ": " + e->items()[0].text();
            }
          }
        }
      }
    } catch (const std::exception&) {
    }
  }
  // "  trial 0: match | ref 0.031 ms | cuda 0.025 ms | speedup 1.24x"
  double ref = 0, sol = 0;
  int timed = 0;
  size_t pos = 0;
  while ((pos = out.find("trial ", pos)) != std::string::npos) {
    const size_t eol = out.find('\n', pos);
    const std::string line = out.substr(pos, eol == std::string::npos ? std::string::npos : eol - pos);
    pos += 6;
    const size_t r0 = line.find("| ref "), s0 = line.find(" ms | ", r0 == std::string::npos ? 0 : r0 + 6);
    if (r0 == std::string::npos || s0 == std::string::npos) continue;
    const size_t s1 = line.find(' ', s0 + 6);  // after the backend name
    if (s1 == std::string::npos) continue;
    const double rv = std::atof(line.c_str() + r0 + 6), sv = std::atof(line.c_str() + s1 + 1);
    if (rv > 0 && sv > 0) {
      ref += rv;
      sol += sv;
      ++timed;
    }
  }
  if (timed) {
    r.reference_ms = ref / timed;
    r.solution_ms = sol / timed;
    r.measured_speedup = r.reference_ms / r.solution_ms;
  }
  if (!have_json && r.reason.empty()) r.reason = failure_reason({exit_code, false, 0, out, err});
  else if (!r.correct && r.reason.empty()) r.reason = "mismatch";
  // a job that left no outputs: why, from what run_local.py passed on of its stderr
  if (!r.correct && r.reason.rfind("trial result: no_artifacts", 0) == 0)
    r.reason += " (" + failure_reason({exit_code, false, 0, out, err}) + ")";
  return r;
}

std::vector<EvalResult> run_eval(const EvalOptions& o, const std::function<void(const EvalResult&)>& done) {
  std::vector<EvalResult> results;
  const SuitePaths p{o.suite_dir};
  std::error_code ec;
  fs::create_directories(p.solutions_dir(), ec);
  const std::vector<SolutionPrediction> predicted = read_predictions(o.solutions_dir);
  for (const std::string& stem : o.stems) {
    const std::vector<std::string> cmd = {o.python, o.checkout.root + "/run_local.py", "--nproc-per-node", std::to_string(o.world),
                                          "--mode", "eval", "--problem", stem, "--solution", "cuda", "--solutions-dir",
                                          fs::absolute(o.solutions_dir).string(), "--trials", std::to_string(o.trials),
                                          "--measure-perf"};
    const std::string out = p.solutions_dir() + "/" + stem + ".out", err = p.solutions_dir() + "/" + stem + ".err";
    const ChildResult cr = run_bounded(cmd, {"PYTHONUNBUFFERED=1", "PYTHONDONTWRITEBYTECODE=1"}, o.checkout.root, out, err, o.timeout_s);
    const std::string ot = tail_of(out, 256 * 1024), et = tail_of(err, 64 * 1024);
    EvalResult r = parse_eval_output(stem, ot, et, cr.exit_code);
    if (cr.timed_out) r.reason = "timed out after " + std::to_string(static_cast<int>(o.timeout_s)) + " s";
    r.wall_s = cr.wall_s;
    std::string kernel;
    for (const SolutionPrediction& s : predicted)
      if (s.stem == stem) r.predicted_speedup = s.speedup, kernel = s.kernel;
    write_text_file(p.solutions_dir() + "/" + stem + ".log", "--- stdout (end) ---\n" + ot + "\n--- stderr (end) ---\n" + et);
    fs::remove(out, ec);
    fs::remove(err, ec);
    const JsonValue doc = JsonValue::object({{"schema_version", JsonValue::number(int64_t{1})},
                                             {"kind", JsonValue::string("parascope-pkb-eval")},
                                             {"stem", JsonValue::string(stem)},
                                             {"kernel", JsonValue::string(kernel)},
                                             {"world", JsonValue::number(int64_t{o.world})},
                                             {"correct", JsonValue::boolean(r.correct)},
                                             {"trials", JsonValue::number(int64_t{r.trials})},
                                             {"reference_ms", JsonValue::number(r.reference_ms)},
                                             {"solution_ms", JsonValue::number(r.solution_ms)},
                                             {"measured_speedup", JsonValue::number(r.measured_speedup)},
                                             {"predicted_speedup", JsonValue::number(r.predicted_speedup)},
                                             {"reason", JsonValue::string(r.reason)},
                                             {"wall_s", JsonValue::number(r.wall_s)},
                                             {"command", [&] {
                                                JsonValue a = JsonValue::array();
                                                for (const auto& c : cmd) a.push(JsonValue::string(c));
                                                return a;
                                              }()}});
    write_text_file(p.solutions_dir() + "/" + stem + ".json", to_json(doc, 2) + "\n");
    if (done) done(r);
    results.push_back(std::move(r));
  }
  return results;
}

}  // namespace parascope::pkb
