// `parascope-cli window INPUT... --from T --to T`: what the GUI shows for a box-selected range —
// what is inside it (range_summary.h) and, per GPU, the overlap dock's numbers: each SM's time
// computing / communicating / waiting and, per stream and device, communication hidden under
// compute vs exposed (window_activity.h + overlap.h). `--find NAME` lists the slices the GUI's
// find bar steps through (slice_search.h). Times are relative to the trace start unless
// --absolute; they take a unit (ns, us, ms, s; default ns).
#include <cinttypes>
#include <cmath>
#include <cstdio>

#include "cli/cli_args.h"
#include "cli/load_inputs.h"
#include "cli/text_table.h"
#include "cli/verbs.h"
#include "trace/core/analysis/range_summary.h"
#include "trace/core/analysis/window_overlap.h"
#include "trace/core/json.h"
#include "trace/core/slice_search.h"

namespace parascope::cli {

namespace {

const std::vector<OptionSpec> kOptions = {
    {"--from", true, false, "window start (relative to the trace start unless --absolute), e.g. 1.5ms", ""},
    {"--to", true, false, "window end; default: the trace end", ""},
    {"--absolute", false, false, "--from/--to are on the trace clock, not relative to its start", ""},
    {"--device", true, false, "only this trace device index for the per-GPU sections (default: all)", ""},
    {"--find", true, false, "list the slices whose name contains this text (case-insensitive)", ""},
    {"--regex", false, false, "--find is an ECMAScript regular expression", ""},
    {"--top", true, false, "names / matches to list (default 10)", ""},
    {"--json", false, false, "machine-readable output (with schema_version)", ""},
    {"--lenient", false, false, "skip malformed input events and report how many", ""},
    {"--quiet", false, false, "no progress bar", "-q"},
    {"--help", false, false, "this help", "-h"},
};

constexpr int kWindowSchemaVersion = 1;

JsonValue num(int64_t v) { return JsonValue::number(v); }
std::string pct(double share) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%.1f%%", 100.0 * share);
  return buf;
}

}  // namespace

int run_window(const VerbArgs& argv) {
  const Args args(kOptions, argv);
  if (args.flag("--help")) {
    std::printf("usage: parascope-cli window INPUT... --from T [--to T] [options]\n%s", options_help(kOptions).c_str());
    return 0;
  }
  if (!args.value("--from") && !args.value("--find")) throw UsageError("give a window (--from, --to) or --find");
  const auto top = static_cast<size_t>(args.integer("--top", 10));
  const Trace t = load_inputs(args);
  const SliceClassifier classify(t);
  const auto [span_start, span_end] = t.time_span();
  const TimeWindow tw = parse_window(args, span_start, span_end, args.flag("--absolute"));
  const TimeNs from = tw.start, to = tw.end;
  std::vector<uint32_t> devices;
  if (args.value("--device")) {
    devices.push_back(static_cast<uint32_t>(args.integer("--device", 0, 0, static_cast<int64_t>(t.devices.size()) - 1)));
  } else {
    for (uint32_t d = 0; d < t.devices.size(); ++d) devices.push_back(d);
  }
  const Interval w{from, to};
  const RangeSummary rs = summarize_range(t, classify, w, {}, top);
  std::vector<WindowOverlap> per_device;
  for (uint32_t d : devices) per_device.push_back(window_overlap(t, classify, d, w));
  std::optional<SliceSearch> search;
  if (auto f = args.value("--find")) search.emplace(t, *f, args.flag("--regex") ? MatchMode::kRegex : MatchMode::kSubstring);
  if (search && !search->error().empty()) throw UsageError("--find: " + search->error());
  std::vector<EventRef> matches;
  if (search)
    for (EventRef r = search->first_at_or_after(INT64_MIN); r.valid() && matches.size() < top; r = search->next(r)) matches.push_back(r);

  if (args.flag("--json")) {
    JsonValue cats = JsonValue::array();
    for (size_t c = 0; c < rs.count.size(); ++c)
      if (rs.count[c])
        cats.push(JsonValue::object({{"category", JsonValue::string(std::string(to_string(static_cast<Category>(c))))},
                                     {"slices", num(rs.count[c])},
                                     {"top_level_ns", num(rs.time_ns[c])}}));
    JsonValue names = JsonValue::array();
    for (const auto& n : rs.top_names)
      names.push(JsonValue::object({{"name", JsonValue::string(std::string(t.str(n.name)))},
                                    {"category", JsonValue::string(std::string(to_string(n.category)))},
                                    {"count", num(n.count)},
                                    {"ns", num(n.time_ns)}}));
    JsonValue devs = JsonValue::array();
    for (const auto& r : per_device) {
      JsonValue streams = JsonValue::array();
      for (const auto& s : r.overlap.streams)
        streams.push(JsonValue::object({{"stream", num(s.stream)},
                                        {"communication_ns", num(s.communication_ns)},
                                        {"hidden_ns", num(s.comm_under_compute_ns)},
                                        {"exposed_ns", num(s.communication_ns - s.comm_under_compute_ns)},
                                        {"compute_ns", num(s.compute_ns)}}));
      JsonValue sms = JsonValue::array();
      for (const auto& s : r.sms)
        sms.push(JsonValue::object({{"sm", num(s.sm)},
                                    {"compute_ns", num(s.compute_ns)},
                                    {"communicate_ns", num(s.communicate_ns)},
                                    {"wait_ns", num(s.wait_ns)},
                                    {"other_ns", num(s.other_ns)},
                                    {"idle_ns", num(s.idle_ns)}}));
      const auto& o = r.overlap.totals;
      devs.push(JsonValue::object({{"device", num(r.device)},
                                   {"rank", num(t.processes[t.devices[r.device].process].rank)},
                                   {"ordinal", num(t.devices[r.device].ordinal)},
                                   {"compute_ns", num(o.compute_ns)},
                                   {"communication_ns", num(o.communication_ns)},
                                   {"hidden_ns", num(o.overlap_ns)},
                                   {"exposed_ns", num(o.communication_ns - o.overlap_ns)},
                                   {"spans_only", JsonValue::boolean(r.spans_only)},
                                   {"streams", std::move(streams)},
                                   {"sm_lanes", std::move(sms)}}));
    }
    JsonValue found = JsonValue::array();
    for (EventRef r : matches) {
      const auto& s = t.tracks[r.track].slices;
      found.push(JsonValue::object({{"name", JsonValue::string(std::string(t.str(s.name[r.index])))},
                                    {"track", JsonValue::string(std::string(t.str(t.tracks[r.track].name)))},
                                    {"start_ns", num(s.start[r.index])},
                                    {"dur_ns", num(s.dur[r.index])}}));
    }
    JsonValue doc = JsonValue::object({{"schema_version", num(kWindowSchemaVersion)},
                                       {"start_ns", num(from)},
                                       {"end_ns", num(to)},
                                       {"slices", num(rs.slices)},
                                       {"tracks", num(rs.tracks)},
                                       {"categories", std::move(cats)},
                                       {"top_names", std::move(names)},
                                       {"devices", std::move(devs)}});
    if (search) {
      doc.set("find_matches", num(search->count()));
      doc.set("found", std::move(found));
    }
    std::printf("%s\n", to_json(doc, 2).c_str());
    return 0;
  }

  std::printf("window   %s .. %s after the trace start (%s)\n", format_duration(from - span_start).c_str(),
              format_duration(to - span_start).c_str(), format_duration(to - from).c_str());
  std::printf("inside   %" PRId64 " slices on %" PRId64 " tracks\n", rs.slices, rs.tracks);
  TextTable cats({{"category", TextTable::Align::kLeft}, {"slices"}, {"top-level time"}});
  for (size_t c = 0; c < rs.count.size(); ++c)
    if (rs.count[c]) cats.add({std::string(to_string(static_cast<Category>(c))), std::to_string(rs.count[c]), format_duration(rs.time_ns[c])});
  std::printf("%s", cats.render().c_str());
  if (!rs.top_names.empty()) {
    std::printf("\nmost time inside\n");
    TextTable names({{"time"}, {"count"}, {"name", TextTable::Align::kLeft, 80}});
    for (const auto& n : rs.top_names) names.add({format_duration(n.time_ns), std::to_string(n.count), std::string(t.str(n.name))});
    std::printf("%s", names.render().c_str());
  }
  for (const auto& r : per_device) {
    const Device& dev = t.devices[r.device];
    const auto& o = r.overlap.totals;
    std::printf("\nrank %d GPU %d: communication %s, hidden under compute %s, exposed %s\n",
                t.processes[dev.process].rank, dev.ordinal, format_duration(o.communication_ns).c_str(),
                format_duration(o.overlap_ns).c_str(), format_duration(o.communication_ns - o.overlap_ns).c_str());
    if (r.spans_only)
      std::printf("  (no kernel records here: the GPU's SM-lane spans alone; compute on SMs without probes is not seen, so exposed is at most this)\n");
    TextTable streams({{"stream"}, {"communication"}, {"hidden"}, {"exposed"}, {"compute"}});
    for (const auto& s : r.overlap.streams)
      streams.add({std::to_string(s.stream), format_duration(s.communication_ns), format_duration(s.comm_under_compute_ns),
                   format_duration(s.communication_ns - s.comm_under_compute_ns), format_duration(s.compute_ns)});
    if (!streams.empty()) std::printf("%s", streams.render().c_str());
    if (!r.sms.empty())
      std::printf("  %zu SM lanes: compute %s, communicate %s, wait %s, idle %s of SM time\n", r.sms.size(), pct(r.compute).c_str(),
                  pct(r.communicate).c_str(), pct(r.wait).c_str(), pct(r.idle).c_str());
  }
  if (search) {
    std::printf("\nfind: %" PRId64 " matches%s\n", search->count(), search->count() > static_cast<int64_t>(matches.size()) ? " (first ones)" : "");
    TextTable found({{"start"}, {"duration"}, {"track", TextTable::Align::kLeft, 30}, {"name", TextTable::Align::kLeft, 70}});
    for (EventRef r : matches) {
      const auto& s = t.tracks[r.track].slices;
      found.add({format_duration(s.start[r.index] - span_start), format_duration(s.dur[r.index]),
                 std::string(t.str(t.tracks[r.track].name)), std::string(t.str(s.name[r.index]))});
    }
    std::printf("%s", found.render().c_str());
  }
  return 0;
}

}  // namespace parascope::cli
