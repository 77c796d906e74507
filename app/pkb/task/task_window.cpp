#include "pkb/task/task_window.h"

#include <algorithm>
#include <map>
#include <unordered_map>

namespace parascope::pkb {

namespace {

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

bool is_gpu_op(const Trace& t, EventRef r) {
  const SliceKind k = t.tracks[r.track].slices.ref[r.index].kind();
  return k == SliceKind::kKernel || k == SliceKind::kMemcpy || k == SliceKind::kMemset;
}

struct ApiCall {
  uint32_t row;
  TimeNs start, end;
  enum Kind : uint8_t { kOther, kCreate, kRecord, kElapsed, kDeviceSync, kDestroy } kind;
};

std::vector<ApiCall> api_calls(const Trace& t, const Track& tr) {
  std::vector<ApiCall> out;
  const SliceColumns& s = tr.slices;
  for (uint32_t i = 0; i < s.size(); ++i) {
    if (s.ref[i].kind() != SliceKind::kRuntimeApi) continue;
    const std::string_view n = t.str(s.name[i]);
    ApiCall::Kind k = ApiCall::kOther;
    if (starts_with(n, "cudaEventCreate")) k = ApiCall::kCreate;
    else if (starts_with(n, "cudaEventRecord")) k = ApiCall::kRecord;
    else if (starts_with(n, "cudaEventElapsedTime")) k = ApiCall::kElapsed;
    else if (starts_with(n, "cudaDeviceSynchronize")) k = ApiCall::kDeviceSync;
    else if (starts_with(n, "cudaEventDestroy")) k = ApiCall::kDestroy;
    out.push_back({i, s.start[i], s.end(i), k});
  }
  return out;  // the track is sorted by start
}

}  // namespace

std::vector<TaskWindow> find_task_windows(const Trace& t, int want_iterations) {
  // launch flows by source track: API row -> GPU ops
  std::unordered_map<uint32_t, std::multimap<uint32_t, EventRef>> launched;
  for (const Flow& f : t.flows)
    if (f.kind == FlowKind::kLaunch && f.from.valid() && f.to.valid() && is_gpu_op(t, f.to))
      launched[f.from.track].emplace(f.from.index, f.to);

  std::vector<TaskWindow> out;
  for (uint32_t p = 0; p < t.processes.size(); ++p) {
    TaskWindow best;
    best.process = p;
    bool any_gpu = false;
    size_t best_launches = 0;
    for (uint32_t ti = 0; ti < t.tracks.size(); ++ti) {
      const Track& tr = t.tracks[ti];
      if (tr.key.kind != TrackKind::kCpuThread || tr.key.process != p) continue;
      auto lit = launched.find(ti);
      if (lit == launched.end()) continue;
      any_gpu = true;
      // the thread that launched most is the worker's main thread
      if (lit->second.size() <= best_launches) continue;
      best_launches = lit->second.size();
      const auto& launches = lit->second;
      TaskWindow w;
      w.process = p;
      w.thread_track = ti;
      const std::vector<ApiCall> calls = api_calls(t, tr);
      auto ops_between = [&](TimeNs from, TimeNs to) {  // GPU ops launched by calls starting in [from, to)
        std::vector<EventRef> ops;
        for (const ApiCall& c : calls) {
          if (c.start < from) continue;
          if (c.start >= to) break;
          auto [a, b] = launches.equal_range(c.row);
          for (auto it = a; it != b; ++it) ops.push_back(it->second);
        }
        return ops;
      };
      // the end of the first call: the first synchronise after a launch (the shape hook's
      // emit_nvtx synchronises once at start-up, before anything was launched)
      bool launched_any = false;
      for (const ApiCall& c : calls) {
        if (launches.count(c.row)) launched_any = true;
        if (c.kind == ApiCall::kDeviceSync && launched_any) {
          w.first_sync_end = c.end;
          break;
        }
      }
      if (w.first_sync_end) w.first_call_ops = ops_between(tr.slices.start.empty() ? 0 : tr.slices.start[0], w.first_sync_end);
      // the last run of elapsed-time calls: other calls (torch's device guards) may sit between
      // them; a launch or an event create/record ends a run
      int run = 0, last_run = 0;
      size_t run_start = 0, last_run_start = 0, last_run_end = 0;
      for (size_t i = 0; i < calls.size(); ++i) {
        if (calls[i].kind == ApiCall::kElapsed) {
          if (run++ == 0) run_start = i;
          last_run = run;
          last_run_start = run_start;
          last_run_end = i;
        } else if (calls[i].kind == ApiCall::kCreate || calls[i].kind == ApiCall::kRecord || launches.count(calls[i].row)) {
          run = 0;
        }
      }
      if (last_run < 2) {
        w.note = "no run of cudaEventElapsedTime calls (PKB's timing loop) on the launching thread";
        best = w;
        continue;
      }
      // PKB's perf file and the trace agree on the count (iterations + 1 elapsed-time calls); when
      // they do not, the trace's own count delimits the loop and the note says so
      const int iters = last_run - 1;
      if (want_iterations > 0 && last_run != want_iterations + 1)
        w.note = std::to_string(last_run) + " elapsed-time calls, expected " + std::to_string(want_iterations + 1) +
                 " (PKB's iterations + 1): the trace's count is used";
      const size_t run_first = last_run_start;
      // the last iters + 1 create→record pairs before the run; torch's device guards
      // (cudaGetDevice, cudaSetDevice, ...) may sit between the two calls of a pair
      auto created_by = [&](size_t i) -> size_t {  // the create this record follows, or npos
        for (size_t j = i; j-- > 0;) {
          if (calls[j].kind == ApiCall::kCreate) return j;
          if (calls[j].kind != ApiCall::kOther || launches.count(calls[j].row)) break;
        }
        return std::string::npos;
      };
      // an event destroyed right after its record is not PKB's (PKB keeps its events for the
      // elapsed-time calls): c10d's ProcessGroupNCCL creates, records and destroys one per
      // collective inside the loop (seen at world 1 on the H200), which would count as iterations
      auto destroyed_after = [&](size_t i) {
        for (size_t j = i + 1; j < calls.size(); ++j) {
          if (calls[j].kind == ApiCall::kDestroy) return true;
          if (calls[j].kind != ApiCall::kOther || launches.count(calls[j].row)) return false;
        }
        return false;
      };
      auto pkb_like = [&](size_t i) {  // a record right after its create, its event kept
        return calls[i].kind == ApiCall::kRecord && created_by(i) != std::string::npos && !destroyed_after(i);
      };
      const size_t want = static_cast<size_t>(iters) + 1;
      std::vector<size_t> records;
      // PKB's loop lies between the synchronise that ends the warm-up and the one before the
      // elapsed-time calls: its first record there is event 0 and its last event `iters`. Other
      // events that are kept (c10d's work events, a task's own stream events) come a fixed number
      // per call, so with k records per iteration every k-th is PKB's.
      size_t sync_after = std::string::npos, sync_before = std::string::npos;
      for (size_t i = run_first; i-- > 0;) {
        if (calls[i].kind != ApiCall::kDeviceSync) continue;
        if (sync_after == std::string::npos) {
          sync_after = i;
        } else {
          sync_before = i;
          break;
        }
      }
      std::vector<size_t> between;
      if (sync_after != std::string::npos)
        for (size_t i = sync_before == std::string::npos ? 0 : sync_before + 1; i < sync_after; ++i)
          if (pkb_like(i)) between.push_back(i);
      if (between.size() == want) {
        records = between;
      } else if (between.size() > want && (between.size() - 1) % static_cast<size_t>(iters) == 0) {
        const size_t k = (between.size() - 1) / static_cast<size_t>(iters);
        for (size_t j = 0; j < want; ++j) records.push_back(between[j * k]);
        w.note += std::string(w.note.empty() ? "" : "; ") + std::to_string(k) +
                  " kept event records per iteration between the loop's synchronises: every " + std::to_string(k) +
                  "th is PKB's";
      } else if (between.size() > want) {
        // kept records that are not a fixed number per call (the caching allocator's stream
        // events, a work event now and then): the loop still runs from the first record after the
        // warm-up's synchronise (event 0) to the last before the loop's (event `iters`); the
        // iterations between are split at the records nearest to equal steps of host time
        const TimeNs t0 = calls[between.front()].start, t1 = calls[between.back()].start;
        records.push_back(between.front());
        size_t pos = 0;
        for (size_t j = 1; j < want - 1; ++j) {
          const TimeNs target = t0 + static_cast<TimeNs>(static_cast<double>(t1 - t0) * static_cast<double>(j) / iters);
          const size_t last_allowed = between.size() - 1 - (want - 1 - j);  // leave one per later boundary
          size_t best_pos = pos + 1;
          for (size_t q = pos + 1; q <= last_allowed; ++q) {
            const auto d = [&](size_t x) { const TimeNs ts = calls[between[x]].start; return ts > target ? ts - target : target - ts; };
            if (d(q) < d(best_pos)) best_pos = q;
            if (calls[between[q]].start > target) break;
          }
          pos = best_pos;
          records.push_back(between[pos]);
        }
        records.push_back(between.back());
        w.note += std::string(w.note.empty() ? "" : "; ") + std::to_string(between.size()) +
                  " kept event records between the loop's synchronises, not 1 + a multiple of " + std::to_string(iters) +
                  ": the loop from the first to the last, its iterations split by host time";
      } else {
        // a task that synchronises inside its call leaves fewer between the last two: the last
        // iters + 1 before the elapsed-time calls, whatever sits between them
        for (size_t i = run_first; i-- > 0;) {
          if (!pkb_like(i)) continue;
          records.push_back(i);
          if (records.size() == want) break;
        }
        std::reverse(records.begin(), records.end());
      }
      std::vector<size_t> creates;
      for (size_t r : records) creates.push_back(created_by(r));
      if (records.size() != want) {
        w.note = "found " + std::to_string(records.size()) + " timing event records before the elapsed-time calls, expected " +
                 std::to_string(iters + 1);
        best = w;
        continue;
      }
      w.loop_host_start = calls[creates.front()].start;
      w.loop_end = calls[last_run_end].end;
      for (size_t k = 0; k + 1 < records.size(); ++k) {
        Iteration it;
        it.host_start = calls[records[k]].start;
        it.host_end = calls[records[k + 1]].start;
        it.gpu_ops = ops_between(it.host_start, it.host_end);
        for (const EventRef& r : it.gpu_ops) {
          const Track& g = t.tracks[r.track];
          const TimeNs s = g.slices.start[r.index], e = g.slices.end(r.index);
          if (it.gpu_start == 0 && it.gpu_end == 0) it.gpu_start = s, it.gpu_end = e;
          it.gpu_start = std::min(it.gpu_start, s);
          it.gpu_end = std::max(it.gpu_end, e);
        }
        w.iterations.push_back(std::move(it));
      }
      w.gpu_start = calls[records.front()].end;
      w.gpu_end = w.gpu_start;
      for (const Iteration& it : w.iterations) w.gpu_end = std::max(w.gpu_end, it.gpu_end);
      w.found = true;
      best = w;
    }
    if (any_gpu) out.push_back(std::move(best));
  }
  return out;
}

std::vector<std::pair<TimeNs, TimeNs>> kept_ranges(const Trace& t, const std::vector<TaskWindow>& windows) {
  std::vector<std::pair<TimeNs, TimeNs>> r;
  const auto [t0, t1] = t.time_span();
  TimeNs first = 0;
  for (const TaskWindow& w : windows) {
    if (!w.found) return {{t0, t1}};
    first = std::max(first, w.first_sync_end);
  }
  if (first) r.push_back({t0, first});
  for (const TaskWindow& w : windows) r.push_back({w.loop_host_start, std::max(w.loop_end, w.gpu_end)});
  std::sort(r.begin(), r.end());
  std::vector<std::pair<TimeNs, TimeNs>> merged;
  for (const auto& x : r) {
    if (!merged.empty() && x.first <= merged.back().second) merged.back().second = std::max(merged.back().second, x.second);
    else merged.push_back(x);
  }
  return merged;
}

}  // namespace parascope::pkb
