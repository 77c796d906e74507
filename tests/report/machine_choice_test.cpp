// One trace through the three what-if paths gets one machine and one reason: the CLI's
// (`parascope-cli whatif --json`), the report's (build_report's what-if section, as `report
// --whatif` and File → Export Report make it) and the GUI's (whatif::compare with the GUI's
// presets, the call the What-if dock's Run makes; no window needed). Three traces, one per way a
// machine is chosen: a preset with the traced GPU model, the trace's own topology, and a model no
// preset has (before, the CLI and the report fell back to a preset while the dock gave up).
// trace/io first: pstrace_writer.h names a member `emit`, which Qt's headers make a keyword
#include "trace/io/pstrace/pstrace_writer.h"

#include <catch2/catch.hpp>

#include <filesystem>

#include "cli/run_command.h"
#include "app/qt_app.h"
#include "gui/data_table_model.h"
#include "gui/link_view.h"
#include "gui/presets.h"
#include "report/report_builder.h"
#include "sim/whatif/compare.h"
#include "test_paths.h"
#include "trace/core/analysis/roofline.h"
#include "trace/core/json.h"
#include "trace/io/load_trace.h"

using namespace parascope;
namespace fs = std::filesystem;

namespace {

struct Seen {
  std::string machine, reason;
};

Seen cli_path(const std::string& input) {
  const auto r = test::run_command(std::string(PARASCOPE_CLI) + " whatif -q --json --set comm_stream=side '" + input + "'");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const JsonValue doc = parse_json(r.out, "whatif --json");
  return {doc.find("prediction")->find("topology")->text(), doc.find("topology_source")->text()};
}

// The report's "Topology" fact: "NAME (CALIBRATION; REASON)".
Seen report_path(const std::string& input) {
  report::ReportOptions o;
  o.inputs = {input};
  o.presets = load_presets();
  o.whatif = {{"comm_stream", "side"}};
  const report::ReportDocument doc = report::build_report(std::make_shared<const Trace>(load_trace({input})), o);
  for (const report::Section& s : doc.sections) {
    if (s.id != "whatif") continue;
    for (const report::Block& b : s.blocks)
      for (const report::Fact& f : b.facts) {
        if (f.key != "Topology") continue;
        const std::string v = f.value.toStdString();
        const size_t open = v.find(" ("), semi = v.find("; ", open);
        REQUIRE(open != std::string::npos);
        REQUIRE(semi != std::string::npos);
        REQUIRE(v.back() == ')');
        return {v.substr(0, open), v.substr(semi + 2, v.size() - semi - 3)};
      }
  }
  FAIL("no what-if Topology fact in the report");
  return {};
}

Seen gui_path(const std::string& input) {
  const Trace trace = load_trace({input});
  whatif::CompareSettings cs;
  cs.knobs = {{"comm_stream", "side"}};
  cs.presets = &gui::topology_presets();
  const whatif::Comparison c = whatif::compare(trace, cs);
  return {c.shown().summary.topology, c.machine.reason};
}

void check_one_machine(const std::string& input, const std::string& machine, const std::string& reason) {
  INFO(input);
  for (const Seen& s : {cli_path(input), report_path(input), gui_path(input)}) {
    CHECK(s.machine == machine);
    CHECK(s.reason == reason);
  }
}

}  // namespace

TEST_CASE("The CLI's whatif, the report and the What-if dock run one trace on one machine for one reason", "[report][cli][gui][machine]") {
  const fs::path dir = test::temp_dir("machine-choice");
  SECTION("the preset with the traced GPU model: the 2 x H200 capture on the measured h200x2") {
    check_one_machine(test::source_path("resources/captures/h200x2_2026-11-30/tp_serial_b1"), "h200x2",
                      "preset matching NVIDIA H200");
  }
  SECTION("a prediction carries its own topology") {
    const std::string pred = (dir / "predicted.pstrace").string();
    const auto w = test::run_command(std::string(PARASCOPE_CLI) + " whatif -q -t h200x2 --set comm_select=allreduce " +
                                     test::sample_path("allreduce_matmul_2xh200") + " -o " + pred);
    INFO(w.err);
    REQUIRE(w.exit_code == 0);
    check_one_machine(pred, "h200x2", "the trace's own topology");
  }
  SECTION("a GPU model no preset has: the measured preset with enough GPUs, and the reason says so") {
    // the sample with the GPU model HTA's A100 traces record (../shared/external/hta_testdata)
    Trace t = load_trace({test::sample_path("allreduce_matmul_2xh200")});
    for (Device& d : t.devices) d.name = "NVIDIA A100-PG509-200";
    const std::string a100 = (dir / "a100.pstrace").string();
    write_pstrace(t, a100);
    check_one_machine(a100, "h200x2", "the first preset with 2 GPUs (no preset has 2 NVIDIA A100-PG509-200 GPUs)");
  }
  fs::remove_all(dir);
}

namespace {

struct Capacity {
  double bytes_per_s = 0;
  std::string from;
};
using Capacities = std::map<std::string, Capacity>;  // by link name

size_t column(const DataTable& t, const std::string& title) {
  for (size_t c = 0; c < t.columns.size(); ++c)
    if (t.columns[c].title == title) return c;
  FAIL("no column " << title << " in " << t.id);
  return 0;
}

Capacities of_table(const DataTable& t) {
  Capacities out;
  const size_t cap = column(t, "capacity"), from = column(t, "capacity from");
  for (const auto& row : t.rows) out[row[0].text] = {row[cap].numeric() ? row[cap].value : 0.0, row[from].text};
  return out;
}

void check_one_capacity(const std::string& input, double expect, const std::string& expect_from) {
  INFO(input);
  // the CLI's `links`
  const auto r = test::run_command(std::string(PARASCOPE_CLI) + " links -q --json '" + input + "'");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  Capacities cli;
  const JsonValue out = parse_json(r.out, "links --json");
  for (const JsonValue& row : out.find("links")->find("rows")->items())
    cli[row.find("link")->text()] = {row.find("capacity_bytes_per_s") ? row.find("capacity_bytes_per_s")->as_double() : 0.0,
                                     row.find("capacity_from")->text()};
  // the report's link table and its topology table
  auto trace = std::make_shared<const Trace>(load_trace({input}));
  report::ReportOptions o;
  o.inputs = {input};
  o.presets = gui::topology_presets();
  const report::ReportDocument doc = report::build_report(trace, o);
  const DataTable* link_table = nullptr;
  const DataTable* topo_table = nullptr;
  for (const DataTable* t : doc.tables()) {
    if (t->id == "link_stats") link_table = t;
    if (t->id == "topology_links") topo_table = t;
  }
  REQUIRE(link_table);
  REQUIRE(topo_table);
  // the GUI's link dock over the whole trace
  test::qt_app();
  gui::LinkView view;
  view.set_trace(trace);
  view.set_scope(gui::LinkView::Scope::kTrace);
  view.wait();
  const Capacities gui = of_table(view.model()->table());
  const Capacities rep = of_table(*link_table);
  REQUIRE(!cli.empty());
  CHECK(cli.size() == gui.size());
  CHECK(rep.size() == gui.size());
  for (const auto& [name, c] : cli) {
    INFO(name);
    CHECK(c.bytes_per_s == Approx(expect));
    CHECK(c.from == expect_from);
    REQUIRE(gui.count(name));
    REQUIRE(rep.count(name));
    CHECK(gui.at(name).bytes_per_s == c.bytes_per_s);
    CHECK(gui.at(name).from == c.from);
    CHECK(rep.at(name).bytes_per_s == c.bytes_per_s);
    CHECK(rep.at(name).from == c.from);
  }
  // the topology page's links: the same capacity and source
  REQUIRE(!topo_table->rows.empty());
  const size_t cap = column(*topo_table, "capacity"), from = column(*topo_table, "capacity from");
  for (const auto& row : topo_table->rows) {
    CHECK(row[cap].value == Approx(expect));
    CHECK(row[from].text == expect_from);
  }
  // and the roofline's link ceiling, on the same machine (one GPU link into its switch)
  const TraceMachine m = trace_machine(*trace, choose_machine(*trace, gui::topology_presets()));
  CHECK(ceilings_from(m.topology).link_bytes_per_s == Approx(expect));
}

}  // namespace

TEST_CASE("One link has one capacity and source in the CLI's links, the report and the links dock", "[report][cli][gui][links]") {
  SECTION("estimated links of a Kineto capture: the matched h200x2 preset's NVLink (before: '?' beside 478.1 GB/s)") {
    // resources/topologies/h200x2.json: each GPU's 18 NVLinks into the switch, 478.1 GB/s per direction
    check_one_capacity(test::source_path("resources/captures/h200x2_2026-11-30/tp_serial_b1"), 478.1e9,
                       "machine h200x2 (measured)");
  }
  SECTION("the collector's measured NVLink counters: the machine inferred from them, CUPTI's figure") {
    // CUPTI's NVLINK record: 849 960 000 kB/s for both directions = 424.98 GB/s per direction
    check_one_capacity(test::sample_path("record_torch_nccl_2xh200"), 424.98e9, "the trace's link record");
  }
}
