#include "trace/core/analysis/link_stats.h"

#include <algorithm>

#include "trace/core/analysis/link_traffic.h"

namespace parascope {

namespace {

__extension__ typedef __int128 Int128;  // products of two int64 ns counts

struct Piece {
  double value;
  TimeNs ns;
};

// The pieces of the step function inside the window, in time order.
template <typename F>
void for_each_piece(std::span<const TimeNs> time, std::span<const double> value, Interval w, F&& f) {
  if (w.end <= w.start || time.empty()) return;
  const size_t n = std::min(time.size(), value.size());
  size_t i = static_cast<size_t>(std::lower_bound(time.begin(), time.begin() + static_cast<std::ptrdiff_t>(n), w.start) - time.begin());
  if (i > 0) {  // the sample holding at the window's start
    const TimeNs to = i < n ? std::min(time[i], w.end) : w.end;
    if (to > w.start) f(value[i - 1], w.start, to, false);
  }
  for (; i < n && time[i] < w.end; ++i) {
    const TimeNs to = i + 1 < n ? std::min(time[i + 1], w.end) : w.end;
    f(value[i], time[i], to, true);
  }
}

double percentile(std::vector<Piece>& pieces, TimeNs covered, int q) {
  if (pieces.empty() || covered <= 0) return 0;
  // smallest v with time(value <= v) >= q% of covered, in integers: cum * 100 >= q * covered
  TimeNs cum = 0;
  for (const Piece& p : pieces) {
    cum += p.ns;
    if (static_cast<Int128>(cum) * 100 >= static_cast<Int128>(q) * covered) return p.value;
  }
  return pieces.back().value;
}

}  // namespace

CounterStats counter_stats(std::span<const TimeNs> time, std::span<const double> value, Interval window) {
  CounterStats s;
  std::vector<Piece> pieces;
  bool any = false;
  for_each_piece(time, value, window, [&](double v, TimeNs from, TimeNs to, bool inside) {
    if (inside) ++s.samples;
    const TimeNs ns = to - from;
    if (ns <= 0) return;
    s.covered_ns += ns;
    if (v > 0) s.active_ns += ns;
    s.integral += v * static_cast<double>(ns) * 1e-9;
    s.peak = any ? std::max(s.peak, v) : v;
    any = true;
    pieces.push_back({v, ns});
  });
  if (s.covered_ns > 0) s.mean = s.integral / (static_cast<double>(s.covered_ns) * 1e-9);
  std::sort(pieces.begin(), pieces.end(), [](const Piece& a, const Piece& b) { return a.value < b.value; });
  s.p50 = percentile(pieces, s.covered_ns, 50);
  s.p90 = percentile(pieces, s.covered_ns, 90);
  s.p99 = percentile(pieces, s.covered_ns, 99);
  return s;
}

std::vector<MinMax> decimate_min_max(std::span<const TimeNs> time, std::span<const double> value, Interval window,
                                     size_t buckets) {
  std::vector<MinMax> out(buckets);
  if (buckets == 0 || window.end <= window.start) return out;
  const TimeNs len = window.end - window.start;
  auto bucket_start = [&](size_t b) {
    return window.start + static_cast<TimeNs>(static_cast<Int128>(len) * static_cast<Int128>(b) / static_cast<Int128>(buckets));
  };
  for_each_piece(time, value, window, [&](double v, TimeNs from, TimeNs to, bool) {
    if (to <= from) return;
    // buckets [b0, b1] overlap [from, to): b0 holds `from`, b1 holds to - 1
    auto bucket_of = [&](TimeNs t) {
      size_t b = static_cast<size_t>(static_cast<Int128>(t - window.start) * static_cast<Int128>(buckets) / static_cast<Int128>(len));
      b = std::min(b, buckets - 1);
      while (b + 1 < buckets && bucket_start(b + 1) <= t) ++b;  // integer rounding of the starts
      while (b > 0 && bucket_start(b) > t) --b;
      return b;
    };
    const size_t b0 = bucket_of(from), b1 = bucket_of(to - 1);
    for (size_t b = b0; b <= b1; ++b) {
      MinMax& m = out[b];
      if (!m.covered) {
        m = {v, v, true};
      } else {
        m.min = std::min(m.min, v);
        m.max = std::max(m.max, v);
      }
    }
  });
  return out;
}

std::string medium_label(Medium m) {
  switch (m) {
    case Medium::kNvLink: return "NVLink";
    case Medium::kPcie: return "PCIe";
    case Medium::kInfiniBand: return "InfiniBand";
    case Medium::kEthernet: return "Ethernet";
    case Medium::kHostLink: return "host link";
    case Medium::kInternal: return "internal";
  }
  return "link";
}

std::string device_label(const Trace& trace, uint16_t device) {
  if (device == kNoDevice || device >= trace.devices.size()) return "fabric";
  const Device& d = trace.devices[device];
  std::string who;
  if (d.process < trace.processes.size()) {
    const Process& p = trace.processes[d.process];
    who = p.rank >= 0 ? "rank " + std::to_string(p.rank) : "pid " + std::to_string(p.pid);
  }
  return (who.empty() ? "" : who + " ") + "GPU " + std::to_string(d.ordinal);
}

std::vector<LinkCounter> link_counters(const Trace& trace, bool estimates) {
  std::vector<LinkCounter> out;
  bool has_estimated = false;
  for (size_t ti = 0; ti < trace.tracks.size(); ++ti) {
    const Track& t = trace.tracks[ti];
    if (t.key.kind != TrackKind::kLink || t.key.id < 0 || static_cast<size_t>(t.key.id) >= trace.links.size()) continue;
    LinkCounter c;
    c.link = trace.links[static_cast<size_t>(t.key.id)];
    c.source = t.counter_source;
    c.track = static_cast<int32_t>(ti);
    const bool tx = c.link.direction == LinkDirection::kTx;
    c.name = device_label(trace, c.link.src_device) + (tx ? " \xE2\x86\x92 " : " \xE2\x86\x90 ") +
             device_label(trace, c.link.dst_device) + " (" + medium_label(c.link.medium) + (tx ? " tx" : " rx");
    if (c.link.port >= 0 && !trace.str(t.name).empty()) c.name += ", " + std::string(trace.str(t.name));
    c.name += ")";
    c.time = t.counter.time;
    c.bytes_per_s = t.counter.value;
    has_estimated |= c.source == CounterSource::kEstimated;
    out.push_back(std::move(c));
  }
  if (estimates && !has_estimated) {
    LinkTraffic traffic = estimate_link_traffic(trace);
    for (LinkSeries& s : traffic.links) {
      LinkCounter c;
      c.link = s.link;
      c.source = CounterSource::kEstimated;
      c.name = s.name + " (estimated)";
      c.time = std::move(s.time);
      c.bytes_per_s = std::move(s.bytes_per_s);
      out.push_back(std::move(c));
    }
  }
  return out;
}

std::vector<LinkStats> link_stats(const std::vector<LinkCounter>& counters, Interval window,
                                  const std::vector<LinkCapacity>& capacities) {
  std::vector<LinkStats> out;
  out.reserve(counters.size());
  for (size_t i = 0; i < counters.size(); ++i) {
    LinkStats s;
    s.counter = i;
    s.stats = counter_stats(counters[i].time, counters[i].bytes_per_s, window);
    if (i < capacities.size()) {
      s.capacity_bytes_per_s = capacities[i].bytes_per_s;
      s.capacity_source = capacities[i].source;
    } else {
      s.capacity_bytes_per_s = counters[i].link.capacity_bytes_per_s;
      if (s.capacity_bytes_per_s > 0) s.capacity_source = "the trace's link record";
    }
    out.push_back(std::move(s));
  }
  return out;
}

DataTable link_stats_table(const std::vector<LinkCounter>& counters, const std::vector<LinkStats>& stats) {
  DataTable t;
  t.id = "link_stats";
  t.title = "Link utilization";
  t.note = "bytes/s per link and direction, time-weighted over the window (p50/p90/p99: the load was at or below it that share of the time)";
  t.column("link").column("source").column("capacity", "bytes/s", true).column("capacity from").column("peak", "bytes/s", true)
      .column("mean", "bytes/s", true).column("p50", "bytes/s", true).column("p90", "bytes/s", true)
      .column("p99", "bytes/s", true).column("peak util", "fraction", true).column("mean util", "fraction", true)
      .column("bytes", "bytes", true).column("active", "ns", true);
  for (const LinkStats& s : stats) {
    const LinkCounter& c = counters[s.counter];
    const bool cap = s.capacity_bytes_per_s > 0;
    t.add_row({text_cell(c.name), text_cell(std::string(to_string(c.source))),
               cap ? rate_cell(s.capacity_bytes_per_s) : text_cell("?"), text_cell(cap ? s.capacity_source : "unknown"),
               rate_cell(s.stats.peak), rate_cell(s.stats.mean),
               rate_cell(s.stats.p50), rate_cell(s.stats.p90), rate_cell(s.stats.p99),
               cap ? percent_cell(s.peak_utilization()) : text_cell("?"), cap ? percent_cell(s.mean_utilization()) : text_cell("?"),
               bytes_cell(s.stats.integral), duration_cell(s.stats.active_ns)});
  }
  return t;
}

}  // namespace parascope
