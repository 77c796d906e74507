#include "pkb/task/task_ops.h"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "trace/core/analysis/collective_bandwidth.h"

namespace parascope::pkb {

namespace {

uint64_t key(EventRef r) { return (static_cast<uint64_t>(r.track) << 32) | r.index; }

std::string_view op_name(const Trace& t, EventRef r) { return t.str(t.tracks[r.track].slices.name[r.index]); }

// The innermost NVTX op range with sizes enclosing each first-call op's launch, on its thread.
std::vector<std::optional<OpShape>> first_call_shapes(const Trace& t, const TaskWindow& w, const std::string& dtype) {
  std::unordered_map<uint64_t, EventRef> launch;  // GPU op -> API call
  for (const Flow& f : t.flows)
    if (f.kind == FlowKind::kLaunch && f.from.valid() && f.to.valid()) launch.emplace(key(f.to), f.from);
  struct Range {
    TimeNs start, end;
    uint8_t depth;
    OpShape shape;
    uint32_t id;
  };
  std::unordered_map<uint32_t, std::vector<Range>> ranges;  // by track
  auto ranges_of = [&](uint32_t track) -> const std::vector<Range>& {
    auto it = ranges.find(track);
    if (it != ranges.end()) return it->second;
    std::vector<Range>& v = ranges[track];
    const SliceColumns& s = t.tracks[track].slices;
    for (uint32_t i = 0; i < s.size() && s.start[i] < w.first_sync_end; ++i) {
      if (s.ref[i].kind() != SliceKind::kNvtxRange) continue;
      if (auto sh = parse_nvtx_op(t.str(s.name[i]))) v.push_back({s.start[i], s.end(i), s.depth_of(i), std::move(*sh), i});
    }
    return v;
  };
  std::vector<std::optional<OpShape>> out;
  std::vector<uint32_t> used;  // NVTX rows whose work was counted already (one op, several kernels)
  for (const EventRef& op : w.first_call_ops) {
    auto it = launch.find(key(op));
    if (it == launch.end()) {
      out.emplace_back();
      continue;
    }
    const EventRef api = it->second;
    const SliceColumns& s = t.tracks[api.track].slices;
    const TimeNs a0 = s.start[api.index], a1 = s.end(api.index);
    const Range* best = nullptr;
    for (const Range& r : ranges_of(api.track))
      if (r.start <= a0 && r.end >= a1 && (!best || r.depth > best->depth || (r.depth == best->depth && r.start > best->start)))
        best = &r;
    if (!best) {
      out.emplace_back();
      continue;
    }
    OpShape sh = best->shape;
    const bool counted = std::find(used.begin(), used.end(), best->id) != used.end();
    if (!counted) {
      compute_op_work(sh, dtype);
      used.push_back(best->id);
    } else {
      sh.work_source = "counted with the op's first kernel";
    }
    out.push_back(std::move(sh));
  }
  return out;
}

}  // namespace

TaskOps task_ops(const Trace& t, const TaskWindow& w, const SliceClassifier& classify, const std::string& dtype) {
  TaskOps r;
  r.iterations = static_cast<int>(w.iterations.size());
  if (w.iterations.empty()) {
    r.note = "no timed iterations";
    return r;
  }
  std::unordered_map<uint64_t, size_t> coll_of;
  for (size_t i = 0; i < t.collectives.size(); ++i)
    if (t.collectives[i].kernel.valid()) coll_of.emplace(key(t.collectives[i].kernel), i);

  // positions: the same op names in the same order every iteration, else group by name
  const auto& first = w.iterations.front().gpu_ops;
  for (const Iteration& it : w.iterations) {
    if (it.gpu_ops.size() != first.size()) {
      r.by_position = false;
      break;
    }
    for (size_t p = 0; p < first.size() && r.by_position; ++p)
      if (op_name(t, it.gpu_ops[p]) != op_name(t, first[p])) r.by_position = false;
    if (!r.by_position) break;
  }
  if (!r.by_position) r.note = "iterations launch different GPU ops; grouped by name";
  std::map<std::string, int> pos_by_name;
  std::vector<EventRef> example;  // first instance per position
  std::vector<double> sum_ns;
  for (const Iteration& it : w.iterations) {
    for (size_t p = 0; p < it.gpu_ops.size(); ++p) {
      const EventRef op = it.gpu_ops[p];
      int pos;
      if (r.by_position) {
        pos = static_cast<int>(p);
      } else {
        auto [iter, fresh] = pos_by_name.emplace(std::string(op_name(t, op)), static_cast<int>(r.ops.size()));
        pos = iter->second;
      }
      if (pos >= static_cast<int>(r.ops.size())) {
        IterationOp o;
        o.name = std::string(op_name(t, op));
        o.kind = t.tracks[op.track].slices.ref[op.index].kind();
        o.category = classify.category(op);
        r.ops.push_back(std::move(o));
        example.push_back(op);
        sum_ns.push_back(0);
      }
      IterationOp& o = r.ops[static_cast<size_t>(pos)];
      ++o.count;
      sum_ns[static_cast<size_t>(pos)] += static_cast<double>(t.tracks[op.track].slices.dur[op.index]);
    }
  }
  for (size_t p = 0; p < r.ops.size(); ++p) r.ops[p].mean_ns = sum_ns[p] / std::max(1, r.iterations);

  // collectives, in iteration order
  for (size_t p = 0; p < r.ops.size(); ++p) {
    auto it = coll_of.find(key(example[p]));
    if (it == coll_of.end()) continue;
    const CollectiveInfo& c = t.collectives[it->second];
    CollectiveUse u;
    u.op = c.op;
    u.position = static_cast<int>(p);
    u.order = static_cast<int>(r.collectives.size());
    u.in_elements = c.in_elements;
    u.out_elements = c.out_elements;
    u.dtype_bytes = c.dtype_bytes;
    u.bytes = collective_bytes(c);
    u.input_bytes = c.in_elements * c.dtype_bytes;
    u.wire_bytes = collective_wire_bytes(t, c);
    u.group_size = collective_group_size(t, c);
    u.group = std::string(t.str(c.group));
    u.dtype = std::string(t.str(c.dtype));
    u.algorithm = std::string(t.str(c.algorithm));
    u.protocol = std::string(t.str(c.protocol));
    u.channels = c.channels;
    u.mean_ns = r.ops[p].mean_ns;
    r.ops[p].collective = static_cast<int>(r.collectives.size());
    r.world = std::max(r.world, u.group_size);
    r.collectives.push_back(std::move(u));
  }

  // shapes: the first call's last ops are the iteration's ops when their names agree; else by name
  const std::vector<std::optional<OpShape>> shapes = first_call_shapes(t, w, dtype);
  const auto& fc = w.first_call_ops;
  bool tail = r.by_position && fc.size() >= first.size() && !first.empty();
  for (size_t p = 0; tail && p < first.size(); ++p)
    if (op_name(t, fc[fc.size() - first.size() + p]) != op_name(t, first[p])) tail = false;
  for (size_t p = 0; p < r.ops.size(); ++p) {
    if (tail) {
      r.ops[p].shape = shapes[fc.size() - first.size() + p];
      continue;
    }
    std::optional<OpShape> found;
    bool unique = true;
    for (size_t i = 0; i < fc.size(); ++i) {
      if (op_name(t, fc[i]) != r.ops[p].name || !shapes[i]) continue;
      if (found && (found->op != shapes[i]->op || found->sizes != shapes[i]->sizes)) unique = false;
      if (!found) found = shapes[i];
    }
    if (unique) r.ops[p].shape = found;
  }
  // a collective's bytes are its own (CollectiveUse), not HBM work of its framework op
  for (IterationOp& o : r.ops)
    if (o.category == Category::kCommunication && o.shape) {
      o.shape->flops = o.shape->hbm_bytes = 0;
      o.shape->work_source = "communication: see its collective";
    }
  // copies and memsets know their bytes: a device copy reads and writes them
  for (size_t p = 0; p < r.ops.size(); ++p) {
    IterationOp& o = r.ops[p];
    if (o.category == Category::kCommunication || (o.shape && o.shape->hbm_bytes > 0)) continue;
    const SliceRef ref = t.tracks[example[p].track].slices.ref[example[p].index];
    if (!ref.has_detail()) continue;
    double bytes = 0;
    if (ref.kind() == SliceKind::kMemcpy) {
      const MemcpyInfo& m = t.memcpys[ref.index()];
      bytes = static_cast<double>(m.bytes.get()) * (m.copy_kind == CopyKind::kDtoD ? 2 : 1);
    } else if (ref.kind() == SliceKind::kMemset) {
      bytes = static_cast<double>(t.memsets[ref.index()].bytes.get());
    }
    if (bytes <= 0) continue;
    OpShape sh = o.shape.value_or(OpShape{});
    if (sh.op.empty()) sh.op = o.name;
    sh.hbm_bytes = bytes;
    sh.work_source = "copy bytes";
    o.shape = std::move(sh);
  }
  for (const IterationOp& o : r.ops) {
    if (o.category == Category::kCommunication) continue;
    const bool has = o.shape && (o.shape->flops > 0 || o.shape->hbm_bytes > 0);
    (has ? r.with_shapes : r.without_shapes)++;
    if (has) {
      r.flops += o.shape->flops;
      r.hbm_bytes += o.shape->hbm_bytes;
    }
  }
  return r;
}

}  // namespace parascope::pkb
