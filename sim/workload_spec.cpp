#include "sim/workload_spec.h"

#include <charconv>
#include <filesystem>

#include "trace/core/json.h"

namespace parascope::sim {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::string knob_alias(std::string_view key) {
  if (key == "algo") return "algorithm";
  if (key == "chunk") return "chunk_bytes";
  if (key == "sms") return "num_comm_sms";
  if (key == "mech") return "mechanism";
  return std::string(key);
}

std::string op_or_fail(std::string_view name, const std::string& where) {
  std::string op = canonical_op(name);
  if (op.empty()) {
    std::string list;
    for (const auto& o : workload_ops()) list += (list.empty() ? "" : ", ") + o;
    throw KnobError(where + "unknown operation '" + std::string(name) + "'; expected one of: " + list);
  }
  return op;
}

uint32_t stream_value(std::string_view text, const std::string& where) {
  uint32_t v = 0;
  const auto r = std::from_chars(text.data(), text.data() + text.size(), v);
  if (r.ec != std::errc() || r.ptr != text.data() + text.size() || v > 1024)
    throw KnobError(where + "stream must be an integer 0..1024, got '" + std::string(text) + "'");
  return v;
}

}  // namespace

std::vector<WorkloadStep> parse_workload_spec(std::string_view spec) {
  std::vector<WorkloadStep> steps;
  while (true) {
    const size_t semi = spec.find(';');
    const std::string_view part = trim(spec.substr(0, semi));
    const std::string where = "workload '" + std::string(part) + "': ";
    if (part.empty()) throw KnobError("workload: empty step in '" + std::string(spec) + "'");
    const size_t colon = part.find(':');
    WorkloadStep step;
    step.op = op_or_fail(trim(part.substr(0, colon)), where);
    if (colon != std::string_view::npos) {
      std::string_view rest = part.substr(colon + 1);
      while (!rest.empty()) {
        const size_t comma = rest.find(',');
        const std::string_view kv = trim(rest.substr(0, comma));
        const size_t eq = kv.find('=');
        if (eq == std::string_view::npos || eq == 0) throw KnobError(where + "expected knob=value, got '" + std::string(kv) + "'");
        const std::string key = knob_alias(trim(kv.substr(0, eq)));
        const std::string_view value = trim(kv.substr(eq + 1));
        if (key == "stream") step.stream = stream_value(value, where);
        else {
          try {
            step.knobs.set(key, value);
          } catch (const KnobError& e) {
            throw KnobError(where + e.what());
          }
        }
        if (comma == std::string_view::npos) break;
        rest.remove_prefix(comma + 1);
      }
    }
    steps.push_back(std::move(step));
    if (semi == std::string_view::npos) break;
    spec.remove_prefix(semi + 1);
  }
  return steps;
}

std::vector<WorkloadStep> load_workload_file(const std::string& path) {
  const JsonValue doc = load_json_file(path);
  JsonField root(doc, path);
  root.expect(JsonValue::Type::kObject);
  if (auto v = root.get("schema_version"); v && v->as_int() > kWorkloadSchemaVersion)
    v->fail("schema_version " + std::to_string(v->as_int()) + " is newer than this build reads (" +
            std::to_string(kWorkloadSchemaVersion) + ")");
  const JsonField list = root.at("steps");
  if (list.size() == 0) list.fail("a workload needs at least one step");
  std::vector<WorkloadStep> steps;
  for (size_t i = 0; i < list.size(); ++i) {
    const JsonField item = list.at(i);
    item.expect(JsonValue::Type::kObject);
    WorkloadStep step;
    const JsonField op = item.at("op");
    const std::string name = op.as_string();
    step.op = canonical_op(name);
    if (step.op.empty()) {
      std::string all;
      for (const auto& o : workload_ops()) all += (all.empty() ? "" : ", ") + o;
      op.fail("unknown operation \"" + name + "\"; expected one of: " + all);
    }
    for (const auto& [key, field] : item.members()) {
      if (key == "op" || key == "name" || key == "comment") continue;
      std::string text;
      if (field.value().is_string()) text = field.as_string();
      else if (field.value().is_number()) text = field.value().text();
      else if (field.value().type() == JsonValue::Type::kBool) text = field.as_bool() ? "true" : "false";
      else field.fail("expected a string, number or boolean");
      if (key == "stream") {
        try {
          step.stream = stream_value(text, "");
        } catch (const KnobError& e) {
          field.fail(e.what());
        }
        continue;
      }
      try {
        step.knobs.set(knob_alias(key), text);
      } catch (const KnobError& e) {
        field.fail(e.what());
      }
    }
    steps.push_back(std::move(step));
  }
  return steps;
}

std::vector<WorkloadStep> parse_workload(const std::string& text) {
  std::error_code ec;
  const bool is_json = text.size() > 5 && text.compare(text.size() - 5, 5, ".json") == 0;
  if (is_json || std::filesystem::is_regular_file(text, ec)) return load_workload_file(text);
  return parse_workload_spec(text);
}

}  // namespace parascope::sim
