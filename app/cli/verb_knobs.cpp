// `parascope-cli knobs [NAME...] [--group G] [--json]`: lists the knob registry (sim/knobs.h), the
// one list `simulate --set`, `whatif --set`, their `--sweep` and the GUI's what-if panel share: name,
// type, range or choices, default, unit, group and what it does. Names select knobs (unknown names
// get the registry's suggestion); --group keeps one group.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "cli/cli_args.h"
#include "cli/verbs.h"
#include "sim/knobs.h"
#include "trace/core/json.h"

namespace parascope::cli {

namespace {

const std::vector<OptionSpec> kOptions = {
    {"--group", true, false, "only knobs of this group (collective, mechanism, topology, schedule)", ""},
    {"--json", false, false, "machine-readable list (with schema_version)", ""},
    {"--help", false, false, "this help", "-h"},
};

constexpr int kKnobsSchemaVersion = 1;

}  // namespace

int run_knobs(const VerbArgs& argv) {
  const Args args(kOptions, argv);
  if (args.flag("--help")) {
    std::printf("usage: parascope-cli knobs [NAME ...] [--group G] [--json]\n%s", options_help(kOptions).c_str());
    return 0;
  }
  const sim::KnobRegistry& reg = sim::knob_registry();
  std::vector<const sim::KnobSpec*> selected;
  if (args.inputs().empty()) {
    for (const auto& k : reg.all()) selected.push_back(&k);
  } else {
    for (const std::string& name : args.inputs()) {
      const sim::KnobSpec* k = reg.find(name);
      if (!k) {
        try {
          sim::KnobSettings probe;
          probe.set(name, "0");  // the registry's own message, with its suggestion
        } catch (const sim::KnobError& e) {
          throw UsageError(e.what());
        }
        throw UsageError("unknown knob '" + name + "'");
      }
      selected.push_back(k);
    }
  }
  if (const auto g = args.value("--group")) {
    std::vector<const sim::KnobSpec*> kept;
    for (const auto* k : selected)
      if (k->group == *g) kept.push_back(k);
    if (kept.empty()) throw UsageError("no knob in group '" + *g + "' (groups: collective, mechanism, topology, schedule)");
    selected = kept;
  }
  if (args.flag("--json")) {
    JsonValue list = JsonValue::array();
    for (const auto* k : selected) {
      JsonValue v = JsonValue::object({{"name", JsonValue::string(k->name)},
                                       {"type", JsonValue::string(std::string(sim::to_string(k->type)))},
                                       {"default", JsonValue::string(reg.format(*k, k->default_value))},
                                       {"unit", JsonValue::string(k->unit)},
                                       {"group", JsonValue::string(k->group)},
                                       {"help", JsonValue::string(k->help)}});
      if (k->type == sim::KnobType::kEnum) {
        JsonValue choices = JsonValue::array();
        for (const auto& c : k->choices) choices.push(JsonValue::string(c));
        v.set("choices", std::move(choices));
      } else if (k->type != sim::KnobType::kBool) {
        v.set("min", JsonValue::number(k->min));
        v.set("max", JsonValue::number(k->max));
      }
      list.push(std::move(v));
    }
    std::printf("%s\n", to_json(JsonValue::object({{"schema_version", JsonValue::number(int64_t{kKnobsSchemaVersion})},
                                                   {"knobs", std::move(list)}}),
                                2)
                            .c_str());
    return 0;
  }
  // Columns as wide as their widest entry, so long enumerations stay aligned.
  struct Row {
    std::string cells[5];
    const std::string* help;
  };
  std::vector<Row> rows;
  size_t width[5] = {4, 4, 5, 7, 5};  // "knob", "type", "group", "default", "range"
  for (const auto* k : selected) {
    std::string def = reg.format(*k, k->default_value);
    if (!k->unit.empty() && k->type != sim::KnobType::kBytes && k->type != sim::KnobType::kEnum && k->type != sim::KnobType::kBool)
      def += " " + k->unit;
    Row r{{k->name, std::string(sim::to_string(k->type)), k->group, def, sim::range_text(*k)}, &k->help};
    for (int c = 0; c < 5; ++c) width[c] = std::max(width[c], r.cells[c].size());
    rows.push_back(std::move(r));
  }
  auto print = [&](const std::string* cells, const std::string& help) {
    for (int c = 0; c < 5; ++c) std::printf("%-*s  ", static_cast<int>(width[c]), cells[c].c_str());
    std::printf("%s\n", help.c_str());
  };
  const std::string header[5] = {"knob", "type", "group", "default", "range"};
  print(header, "what it does");
  for (const Row& r : rows) print(r.cells, *r.help);
  return 0;
}

}  // namespace parascope::cli
