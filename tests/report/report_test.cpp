// Reports from the CLI and the GUI on the bundled sample and a real 2 x H200 capture: the HTML read
// back with an XML parser (sections, tables, numbers, embedded figures), its numbers against
// `parascope-cli stats --json` and `whatif --json` on the same input, the CSV files, the PDF's
// first pages rendered with pdftoppm and checked for ink, and the timelines' counter labels as the
// HTML's SVG and pdftotext give them.
#include <catch2/catch.hpp>

#include <QImage>
#include <QMenu>
#include <QMenuBar>
#include <QSignalSpy>
#include <cmath>
#include <filesystem>
#include <set>

#include "app/qt_app.h"
#include "app/sample_copy.h"
#include "cli/run_command.h"
#include "gui/main_window.h"
#include "gui/timeline_view.h"
#include "report/report_html_reader.h"
#include "skip.h"
#include "test_paths.h"
#include "models/track_layout.h"
#include "trace/core/json.h"
#include "trace/io/load_trace.h"

using namespace parascope;
namespace fs = std::filesystem;

namespace {

const std::string kSample = "resources/samples/allreduce_matmul_2xh200";
const std::string kCapture = "resources/captures/h200x2_2026-11-30/tp_overlap_b1";

std::string cli() { return PARASCOPE_CLI; }

test::CommandResult run_cli(const std::string& args) { return test::run_command(cli() + " " + args); }

std::string src(const std::string& rel) { return "'" + test::source_path(rel) + "'"; }

JsonValue json_of(const std::string& args) {
  const auto r = run_cli(args);
  REQUIRE(r.exit_code == 0);
  return parse_json(r.out, "stdout");
}

double num(const JsonValue& v, std::string_view key) {
  const JsonValue* m = v.find(key);
  REQUIRE(m);
  return m->as_double();
}

// "rank 0 GPU 0", as device_label names a device in the report's tables.
std::string device_name(const JsonValue& dev) {
  return "rank " + std::to_string(static_cast<int64_t>(num(dev, "rank"))) + " GPU " +
         std::to_string(static_cast<int64_t>(num(dev, "ordinal")));
}

double cell_value(const test::HtmlTable& t, const std::vector<test::HtmlCell>& row, const std::string& key) {
  const int c = t.column(key);
  REQUIRE(c >= 0);
  REQUIRE(static_cast<size_t>(c) < row.size());
  REQUIRE(row[static_cast<size_t>(c)].value.has_value());
  return *row[static_cast<size_t>(c)].value;
}

// Every device of `stats --json`: the report's overlap row ("all" streams) and kernel count agree.
void check_against_stats(const test::HtmlReport& rep, const JsonValue& stats) {
  const test::HtmlTable& ov = rep.tables.at("overlap");
  const test::HtmlTable& ks = rep.tables.at("kernel_summary");
  const auto& devices = stats.find("devices")->items();
  REQUIRE(!devices.empty());
  for (const JsonValue& dev : devices) {
    const std::string name = device_name(dev);
    INFO(name);
    const JsonValue& ex = *dev.find("exposed_communication");
    const auto* row = ov.row(name, "all");
    REQUIRE(row);
    CHECK(cell_value(ov, *row, "exposed_comm_ns") == num(ex, "exposed_ns"));
    CHECK(cell_value(ov, *row, "communication_ns") == num(ex, "communication_ns"));
    CHECK(cell_value(ov, *row, "overlap_ns") == num(*dev.find("overlap"), "overlap_ns"));
  }
  for (const JsonValue& k : stats.find("kernels")->find("per_device")->items()) {
    const auto* row = ks.row(device_name(*k.find("device")));
    REQUIRE(row);
    CHECK(cell_value(ks, *row, "kernels") == num(k, "kernels"));
  }
  const auto* all = ks.row("all devices");
  REQUIRE(all);
  CHECK(cell_value(ks, *all, "kernels") == num(*stats.find("kernels")->find("overall"), "kernels"));
}

size_t count_files(const fs::path& dir, const std::string& ext) {
  size_t n = 0;
  for (const auto& e : fs::directory_iterator(dir)) n += e.path().extension() == ext;
  return n;
}

// Share of pixels that are not (near) white, and distinct colours.
std::pair<double, size_t> ink(const QImage& img) {
  size_t dark = 0;
  std::set<QRgb> colours;
  for (int y = 0; y < img.height(); ++y)
    for (int x = 0; x < img.width(); ++x) {
      const QRgb p = img.pixel(x, y);
      if (qRed(p) < 235 || qGreen(p) < 235 || qBlue(p) < 235) ++dark;
      if (colours.size() < 10'000) colours.insert(p);
    }
  return {static_cast<double>(dark) / (static_cast<double>(img.width()) * img.height()), colours.size()};
}

// Counter rows' labels of a timeline, one "track name: measured · peak …" line each, from its text items
// in drawing order (the SVG's <text> elements, pdftotext's lines): the value line follows the name's.
std::string counter_labels(const std::vector<std::string>& texts) {
  std::string out;
  for (size_t i = 1; i < texts.size(); ++i) {
    std::string v;
    for (const char c : texts[i])
      if (c != ' ' || (!v.empty() && v.back() != ' ')) v += c;  // pdftotext has one space where the label has two
    if (v.find(" \xC2\xB7 peak ") != std::string::npos &&
        (v.rfind("measured", 0) == 0 || v.rfind("estimated", 0) == 0 || v.rfind("simulated", 0) == 0))
      out += texts[i - 1] + ": " + v + "\n";
  }
  return out;
}

}  // namespace

TEST_CASE("The sample report has every section, complete tables and the sample's kernel and all-reduce counts",
          "[report][cli]") {
  const fs::path dir = test::temp_dir("report-sample");
  const auto gen = run_cli("report " + src(kSample) + " -q -o '" + (dir / "sample.html").string() + "' --csv '" +
                           (dir / "csv").string() + "'");
  INFO(gen.err);
  REQUIRE(gen.exit_code == 0);
  REQUIRE(gen.out.find("sample.html:") != std::string::npos);
  // the file is complete and alone: no temporary left beside it
  REQUIRE(count_files(dir, ".html") == 1);
  for (const auto& e : fs::directory_iterator(dir)) REQUIRE(e.path().filename().string().find(".tmp-") == std::string::npos);

  const test::HtmlReport rep = test::read_html_report((dir / "sample.html").string());
  INFO(rep.error);
  REQUIRE(rep.well_formed);
  REQUIRE(rep.sections == std::vector<std::string>{"metadata", "timeline", "overlap", "links", "roofline", "kernels"});

  // the sample's README: 21 kernels per rank, 3 all-reduces of a 16 MiB fp32 tensor per rank
  const test::HtmlTable& ks = rep.tables.at("kernel_summary");
  REQUIRE(cell_value(ks, *ks.row("rank 0 GPU 0"), "kernels") == 21);
  REQUIRE(cell_value(ks, *ks.row("rank 1 GPU 1"), "kernels") == 21);
  REQUIRE(cell_value(ks, *ks.row("all devices"), "kernels") == 42);
  const test::HtmlTable& coll = rep.tables.at("collectives");
  const auto* ar0 = coll.row("rank 0 GPU 0", "allreduce");
  REQUIRE(ar0);
  REQUIRE(cell_value(coll, *ar0, "count") == 3);
  REQUIRE(cell_value(coll, *ar0, "bytes") == 3.0 * 16 * 1024 * 1024);
  REQUIRE(cell_value(coll, *coll.row("all devices", "allreduce"), "count") == 6);
  // the kernels table lists every name (the HTML is complete; the PDF shows the top rows)
  const test::HtmlTable& kt = rep.tables.at("kernels");
  REQUIRE(kt.declared_rows == static_cast<int>(kt.rows.size()));
  double total = 0;
  for (const auto& row : kt.rows) total += cell_value(kt, row, "count");
  REQUIRE(total == 42);
  // the sample runs matmul, all-reduce and send/recv one after another: nothing is hidden
  const test::HtmlTable& ov = rep.tables.at("overlap");
  for (const char* dev : {"rank 0 GPU 0", "rank 1 GPU 1"}) {
    const auto* row = ov.row(dev, "all");
    REQUIRE(row);
    REQUIRE(cell_value(ov, *row, "communication_ns") > 0);
    REQUIRE(cell_value(ov, *row, "exposed_comm_ns") == cell_value(ov, *row, "communication_ns"));
  }

  // figures: the timeline as an inline PNG with its SVG; charts as inline SVG with PNG and SVG links
  REQUIRE(rep.figures.count("timeline"));
  CHECK(rep.figures.at("timeline").png_image);
  CHECK(rep.figures.at("timeline").svg_link);
  CHECK(rep.figures.at("timeline").image_bytes > 10'000);
  for (const char* id : {"link_chart", "roofline_chart", "topology", "overlap_w1_d0"}) {
    INFO(id);
    REQUIRE(rep.figures.count(id));
    CHECK(rep.figures.at(id).inline_svg);
    CHECK(rep.figures.at(id).png_link);
    CHECK(rep.figures.at(id).svg_link);
  }
  CHECK(rep.figures.at("link_chart").section == "links");
  CHECK(rep.figures.at("roofline_chart").section == "roofline");

  // --csv: one file per table, the same numbers
  REQUIRE(count_files(dir / "csv", ".csv") == rep.tables.size());
  const std::string csv = test::slurp(dir / "csv" / "kernel_summary.csv");
  CHECK(csv.rfind("device,kernels,names,kernel time [ns]\r\n", 0) == 0);  // RFC 4180 line ends
  CHECK(csv.find("\nrank 0 GPU 0,21,") != std::string::npos);
  CHECK(csv.find("\nall devices,42,") != std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("The report lists a trace's warnings in its metadata and its notes in a section of their own", "[report][cli][notes]") {
  // the record sample: 5 warnings, 5 notes (parascope-cli info --json; tests/io/collector_notes_test.cpp)
  const fs::path dir = test::temp_dir("report-notes");
  const auto gen = run_cli("report " + src("resources/samples/record_torch_nccl_2xh200") + " -q -o '" + (dir / "r.html").string() + "'");
  INFO(gen.err);
  REQUIRE(gen.exit_code == 0);
  const test::HtmlReport rep = test::read_html_report((dir / "r.html").string());
  REQUIRE(rep.well_formed);
  REQUIRE(rep.sections.front() == "metadata");
  REQUIRE(rep.sections.back() == "notes");
  const std::string html = test::slurp(dir / "r.html");
  const size_t metadata = html.find("<section id=\"metadata\">"), notes = html.find("<section id=\"notes\">");
  REQUIRE(metadata != std::string::npos);
  REQUIRE(notes != std::string::npos);
  const size_t metadata_end = html.find("</section>", metadata);
  // the warnings, in the metadata section
  const size_t exited = html.find("Warning: " + test::source_path("resources/samples/record_torch_nccl_2xh200") +
                                  "/manifest.json: the recorded command exited with status 1");
  CHECK((exited > metadata && exited < metadata_end));
  // the notes: each once, in the notes section only, none presented as a warning
  const size_t summary = html.find("vm-3445-rnone.pstrace: collector: 237 CUPTI records");
  CHECK(summary > notes);
  CHECK(html.find("vm-3445-rnone.pstrace: collector: 237 CUPTI records", summary + 1) == std::string::npos);
  CHECK(html.find("Warning: " + test::source_path("resources/samples/record_torch_nccl_2xh200") + "/vm-3490-r0.pstrace: nvlink") ==
        std::string::npos);
  size_t warning_lines = 0;
  for (size_t at = html.find("Warning: "); at != std::string::npos; at = html.find("Warning: ", at + 1)) ++warning_lines;
  CHECK(warning_lines == 5);
  fs::remove_all(dir);
}

TEST_CASE("Each rank's clock reads the same in the report, info and the timeline's rank header", "[report][cli][clock]") {
  // issue 18 item 10: the GUI said "clock ±0 ns" where the CLI and the report said the absolute
  // offset; all three now print clock_alignment.h's texts
  const std::string input = "resources/captures/h200x2_2026-11-30/tp_serial_b1";
  const fs::path dir = test::temp_dir("report-clock");
  const auto gen = run_cli("report " + src(input) + " -q -o '" + (dir / "r.html").string() + "'");
  INFO(gen.err);
  REQUIRE(gen.exit_code == 0);
  const std::string html = test::slurp(dir / "r.html");
  const Trace t = load_trace({test::source_path(input)});
  const models::TrackLayout layout(t, models::LayoutOptions{});
  const JsonValue info = json_of("info --json -q " + src(input));
  size_t headers = 0;
  for (const JsonValue& p : info.find("processes")->items()) {
    const JsonValue& clock = *p.find("clock");
    const std::string text = clock.find("text")->text();
    INFO(text);
    CHECK(html.find(text) != std::string::npos);
    const int64_t rank = *p.find("rank")->as_int();
    for (const models::TimelineRow& row : layout.rows()) {
      if (row.kind != models::TimelineRow::Kind::kProcess || t.processes[row.process].rank != rank) continue;
      CHECK(row.details == text);
      CHECK(row.label.size() > clock.find("label")->text().size());
      CHECK(row.label.substr(row.label.size() - clock.find("label")->text().size()) == clock.find("label")->text());
      ++headers;
    }
  }
  CHECK(headers == 2);
  // both files carry baseTimeNanoseconds 1790857026000000000: a date, not "+1790857026 s"
  CHECK(html.find("clock aligned to rank 0, +0 ns: file times + 2026-10-01 12:17:06 UTC (+1790857026000000000 ns)") != std::string::npos);
  CHECK(html.find("1790857026 s") == std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("Exposed communication and kernel counts in the report equal stats --json on the sample and a real capture",
          "[report][cli]") {
  for (const std::string& input : {kSample, kCapture}) {
    INFO(input);
    const fs::path dir = test::temp_dir("report-vs-stats");
    const auto gen = run_cli("report " + src(input) + " -q -o '" + (dir / "r.html").string() + "'");
    INFO(gen.err);
    REQUIRE(gen.exit_code == 0);
    const test::HtmlReport rep = test::read_html_report((dir / "r.html").string());
    REQUIRE(rep.well_formed);
    check_against_stats(rep, json_of("stats --json -q " + src(input)));
    fs::remove_all(dir);
  }
}

TEST_CASE("The capture report with --whatif compares predicted and measured step times as whatif --json does",
          "[report][cli][whatif]") {
  const fs::path dir = test::temp_dir("report-whatif");
  const auto gen = run_cli("report " + src(kCapture) + " -q --whatif comm_stream=side --range 1ms:3ms -o '" +
                           (dir / "cap.html").string() + "'");
  INFO(gen.err);
  REQUIRE(gen.exit_code == 0);
  const test::HtmlReport rep = test::read_html_report((dir / "cap.html").string());
  REQUIRE(rep.well_formed);
  REQUIRE(rep.sections.back() == "whatif");
  const JsonValue w = json_of("whatif -q --json --set comm_stream=side " + src(kCapture));
  const JsonValue& replay = *w.find("replay");
  const JsonValue& pred = *w.find("prediction");
  const test::HtmlTable& cmp = rep.tables.at("whatif_comparison");
  const auto* step = cmp.row("step time (per step)");
  REQUIRE(step);
  CHECK(cell_value(cmp, *step, "measured_ns") == Approx(num(replay, "measured_step_ns")).epsilon(1e-12));
  CHECK(cell_value(cmp, *step, "replay_ns") == Approx(num(replay, "step_ns")).epsilon(1e-12));
  CHECK(cell_value(cmp, *step, "predicted_ns") == Approx(num(pred, "step_ns")).epsilon(1e-12));
  const auto* exposed = cmp.row("exposed communication (whole trace)");
  REQUIRE(exposed);
  CHECK(cell_value(cmp, *exposed, "measured_ns") == num(replay, "measured_exposed_ns"));
  CHECK(cell_value(cmp, *exposed, "predicted_ns") == num(pred, "exposed_ns"));
  // the capture's 4 profiled steps on 2 ranks
  CHECK(rep.tables.at("whatif_steps").rows.size() == 8);
  // the facts name what the knob changed (whatif's own lines) and say per step
  const std::string html = test::slurp(dir / "cap.html");
  CHECK(html.find("changed nothing") == std::string::npos);
  REQUIRE(!pred.find("changes")->items().empty());
  CHECK(html.find(pred.find("changes")->items().front().text()) != std::string::npos);
  CHECK(html.find("), per step") != std::string::npos);
  // the chosen range and the predicted run as timelines
  REQUIRE(rep.figures.count("range1"));
  CHECK(rep.figures.at("range1").png_image);
  REQUIRE(rep.figures.count("whatif_timeline"));
  CHECK(rep.figures.at("whatif_timeline").png_image);
  CHECK(rep.figures.at("whatif_timeline").section == "whatif");
  fs::remove_all(dir);
}

TEST_CASE("The report's what-if runs on the machine whatif picks, also when the trace needs a bigger preset",
          "[report][cli][whatif]") {
  // the collector sample: each of the 2 processes sees both GPUs, so the what-if graph has 4 and the
  // 2-GPU h200x2 preset is too small; `whatif` then takes the smallest H200 preset with enough GPUs
  const std::string input = "resources/samples/record_torch_nccl_2xh200";
  const fs::path dir = test::temp_dir("report-whatif-machine");
  const auto gen = run_cli("report " + src(input) + " -q --whatif comm_stream=side -o '" + (dir / "r.html").string() + "'");
  INFO(gen.err);
  REQUIRE(gen.exit_code == 0);
  const test::HtmlReport rep = test::read_html_report((dir / "r.html").string());
  REQUIRE(rep.well_formed);
  const JsonValue w = json_of("whatif -q --json --set comm_stream=side " + src(input));
  const test::HtmlTable& cmp = rep.tables.at("whatif_comparison");
  const auto* step = cmp.row("GPU step time (per step)");
  REQUIRE(step);
  CHECK(cell_value(cmp, *step, "measured_ns") == Approx(num(*w.find("replay"), "measured_gpu_step_ns")).epsilon(1e-12));
  CHECK(cell_value(cmp, *step, "predicted_ns") == Approx(num(*w.find("prediction"), "gpu_step_ns")).epsilon(1e-12));
  CHECK(test::slurp(dir / "r.html").find(w.find("prediction")->find("topology")->text()) != std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("The PDF report's first pages render with pdftoppm and are not blank", "[report][cli][pdf]") {
  const fs::path dir = test::temp_dir("report-pdf");
  const auto gen = run_cli("report " + src(kCapture) + " -q --whatif comm_stream=side -o '" + (dir / "cap.pdf").string() + "'");
  INFO(gen.err);
  REQUIRE(gen.exit_code == 0);
  const std::string pdf = test::slurp(dir / "cap.pdf");
  REQUIRE(pdf.rfind("%PDF-", 0) == 0);
  REQUIRE(pdf.find("%%EOF") != std::string::npos);
  if (test::run_command("command -v pdftoppm").exit_code != 0) {
    fs::remove_all(dir);
    PARASCOPE_SKIP("pdftoppm not found (Debian: poppler-utils, in scripts/debian-packages.txt): the PDF's pages are not rendered");
  }
  REQUIRE(test::run_command("pdftoppm -r 40 -f 1 -l 3 -png '" + (dir / "cap.pdf").string() + "' '" + (dir / "page").string() + "'")
              .exit_code == 0);
  std::vector<fs::path> pages;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".png") pages.push_back(e.path());
  std::sort(pages.begin(), pages.end());
  REQUIRE(pages.size() == 3);
  for (size_t i = 0; i < pages.size(); ++i) {
    INFO(pages[i].string());
    const QImage img(QString::fromStdString(pages[i].string()));
    REQUIRE(!img.isNull());
    // A4 landscape at 40 dpi: 468 x 331
    CHECK(img.width() > img.height());
    const auto [share, colours] = ink(img);
    CHECK(share > 0.01);
    CHECK(colours > 8);
    // page 2 holds the whole-trace timeline (too tall to share page 1 with the metadata)
    if (i == 1) {
      CHECK(share > 0.15);
      CHECK(colours > 100);
    }
  }
  fs::remove_all(dir);
}

TEST_CASE("The report's timelines label a Kineto memory counter in bytes, in the HTML and in the PDF",
          "[report][cli][pdf][counter]") {
  // issue 18 item 1: the [memory] counters of dp_step (both ranks: CUDA allocated peaks at 1947305472
  // bytes, counter_label_test) read "peak 2 GB/s" in the report's timelines. The HTML's timeline is a
  // PNG; its text is in the SVG beside it. dp_step has no link counters: no timeline label is per second.
  const std::string rank =
      "memory allocated: measured \xC2\xB7 peak 1.947 GB\n"
      "memory reserved: measured \xC2\xB7 peak 2.504 GB\n"
      "host memory allocated: measured \xC2\xB7 peak 8 B\n"
      "host memory reserved: measured \xC2\xB7 peak 0 B\n";
  const std::string both = rank + rank;  // rank 0, rank 1
  const std::string input = "resources/captures/h200x2_2026-11-30/dp_step";
  REQUIRE(fs::is_directory(test::source_path(input)));
  const fs::path dir = test::temp_dir("report-counter-units");

  const auto html = run_cli("report " + src(input) + " -q -o '" + (dir / "dp.html").string() + "'");
  INFO(html.err);
  REQUIRE(html.exit_code == 0);
  const test::HtmlReport rep = test::read_html_report((dir / "dp.html").string());
  REQUIRE(rep.well_formed);
  REQUIRE(rep.figures.count("timeline"));
  std::vector<std::string> svg_texts;
  QXmlStreamReader svg(QByteArray::fromStdString(rep.figures.at("timeline").svg));
  while (!svg.atEnd())
    if (svg.readNext() == QXmlStreamReader::StartElement && svg.name() == QLatin1String("text"))
      svg_texts.push_back(svg.readElementText().toStdString());
  REQUIRE(!svg.hasError());
  CHECK(counter_labels(svg_texts) == both);

  const auto pdf = run_cli("report " + src(input) + " -q -o '" + (dir / "dp.pdf").string() + "'");
  INFO(pdf.err);
  REQUIRE(pdf.exit_code == 0);
  if (test::run_command("command -v pdftotext").exit_code != 0) {
    fs::remove_all(dir);
    PARASCOPE_SKIP("pdftotext not found (Debian: poppler-utils, in scripts/debian-packages.txt): the PDF timeline's labels are not read");
  }
  const auto text = test::run_command("pdftotext '" + (dir / "dp.pdf").string() + "' -");
  REQUIRE(text.exit_code == 0);
  std::vector<std::string> lines;
  for (size_t a = 0, b; a < text.out.size(); a = b + 1) {
    b = text.out.find('\n', a);
    if (b == std::string::npos) b = text.out.size();
    lines.push_back(text.out.substr(a, b - a));
  }
  CHECK(counter_labels(lines) == both);  // the whole-trace timeline; dp_step has no ranges or what-if
  fs::remove_all(dir);
}

TEST_CASE("report refuses unknown knobs, other extensions and unwritable paths without leaving files", "[report][cli]") {
  const fs::path dir = test::temp_dir("report-errors");
  const auto knob = run_cli("report " + src(kSample) + " -q --whatif comm_stream_x=side -o '" + (dir / "r.html").string() + "'");
  CHECK(knob.exit_code == 2);
  CHECK(knob.err.find("comm_stream_x") != std::string::npos);
  const auto ext = run_cli("report " + src(kSample) + " -q -o '" + (dir / "r.docx").string() + "'");
  CHECK(ext.exit_code == 2);
  CHECK(ext.err.find(".html or .pdf") != std::string::npos);
  const auto missing = run_cli("report " + src(kSample) + " -q -o '" + (dir / "no" / "such" / "r.pdf").string() + "'");
  CHECK(missing.exit_code == 1);
  CHECK(missing.err.find("r.pdf") != std::string::npos);
  CHECK(fs::is_empty(dir));
  fs::remove_all(dir);
}

TEST_CASE("File, Export Report writes the same report from the window, with the selected range", "[report][gui]") {
  test::qt_app();
  gui::MainWindow w;
  w.set_interactive(false);
  w.resize(1400, 850);
  w.show();
  QSignalSpy loaded(&w, &gui::MainWindow::trace_loaded);
  const test::SampleCopy copy("gui-report");
  w.open_inputs({QString::fromStdString(copy.path().string())});
  REQUIRE(loaded.wait(30000));
  // the action is in the File menu
  bool found = false;
  for (QAction* a : w.menuBar()->actions())
    if (a->menu())
      for (QAction* b : a->menu()->actions()) found = found || b->text() == "Export &Report…";
  REQUIRE(found);
  const auto [start, end] = w.timeline()->trace()->time_span();
  w.timeline()->set_range(start + (end - start) / 4, start + (end - start) / 2);
  const fs::path dir = test::temp_dir("gui-report-out");
  REQUIRE(w.export_report(QString::fromStdString((dir / "gui.html").string())).isEmpty());
  const test::HtmlReport rep = test::read_html_report((dir / "gui.html").string());
  REQUIRE(rep.well_formed);
  REQUIRE(rep.sections == std::vector<std::string>{"metadata", "timeline", "overlap", "links", "roofline", "kernels"});
  const test::HtmlTable& ks = rep.tables.at("kernel_summary");
  CHECK(cell_value(ks, *ks.row("rank 0 GPU 0"), "kernels") == 21);
  CHECK(cell_value(ks, *ks.row("all devices"), "kernels") == 42);
  CHECK(rep.figures.count("range1"));
  CHECK(rep.figures.count("overlap_w1_d0"));
  // a PDF too, and an error for a path it cannot write
  REQUIRE(w.export_report(QString::fromStdString((dir / "gui.pdf").string())).isEmpty());
  CHECK(test::slurp(dir / "gui.pdf").rfind("%PDF-", 0) == 0);
  CHECK(!w.export_report(QString::fromStdString((dir / "missing" / "x.html").string())).isEmpty());
  fs::remove_all(dir);
}
