#include "trace/core/analysis/nvtx_op_work.h"

#include <algorithm>

namespace parascope {

namespace {

uint64_t key(EventRef r) { return (static_cast<uint64_t>(r.track) << 32) | r.index; }

}  // namespace

const NvtxOpName* NvtxOpWork::parsed(EventRef row) {
  auto [it, fresh] = names_.try_emplace(key(row));
  if (fresh) {
    const SliceColumns& s = trace_.tracks[row.track].slices;
    if (s.ref[row.index].kind() == SliceKind::kNvtxRange) it->second = parse_nvtx_op_name(trace_.str(s.name[row.index]));
  }
  return it->second ? &*it->second : nullptr;
}

// For each op_id on the track, the dims of its first result as the first later op that took it
// lists them (input_op_ids and sizes line up one to one; ops where they do not are skipped).
const std::unordered_map<uint64_t, TensorDims>& NvtxOpWork::consumed_on(uint32_t track) {
  auto [it, fresh] = consumed_.try_emplace(track);
  if (!fresh) return it->second;
  const SliceColumns& s = trace_.tracks[track].slices;
  for (uint32_t i = 0; i < s.size(); ++i) {
    if (s.ref[i].kind() != SliceKind::kNvtxRange) continue;
    const auto op = parse_nvtx_op_name(trace_.str(s.name[i]));
    if (!op || !op->has_sizes || op->input_op_ids.size() != op->sizes.size()) continue;
    for (size_t j = 0; j < op->sizes.size(); ++j) {
      const auto [producer, output] = op->input_op_ids[j];
      if (producer > 0 && output == 0 && !op->sizes[j].empty()) it->second.try_emplace(producer, op->sizes[j]);
    }
  }
  return it->second;
}

std::optional<TensorDims> NvtxOpWork::output_of(EventRef op_range, const NvtxOpName& op) {
  // the op and the convolution ops around it that returned its result (conv2d → convolution →
  // _convolution → cudnn_convolution), innermost first
  std::vector<uint64_t> ids;
  if (op.op_id) ids.push_back(op.op_id);
  const SliceColumns& s = trace_.tracks[op_range.track].slices;
  int depth = s.depth_of(op_range.index);
  const TimeNs at = s.start[op_range.index], end = s.end(op_range.index);
  for (uint32_t i = op_range.index; i-- > 0 && depth > 0;) {
    if (s.depth_of(i) >= depth || s.end(i) < end || s.start[i] > at) continue;
    depth = s.depth_of(i);
    const NvtxOpName* outer = parsed({op_range.track, i});
    if (!outer) continue;
    if (!op_flops_needs_output(outer->op)) break;
    if (outer->op_id) ids.push_back(outer->op_id);
  }
  const auto& consumed = consumed_on(op_range.track);
  for (uint64_t id : ids)
    if (const auto it = consumed.find(id); it != consumed.end()) return it->second;
  return std::nullopt;
}

std::unordered_map<uint64_t, OpRangeWork> NvtxOpWork::attribute() {
  std::unordered_map<uint64_t, OpRangeWork> out;
  std::unordered_map<uint64_t, std::vector<size_t>> by_op;  // op range → its kernels, in the order added
  for (size_t i = 0; i < kernels_.size(); ++i) by_op[key(kernels_[i].op_range)].push_back(i);
  for (const auto& [range_key, members] : by_op) {
    const EventRef range = kernels_[members.front()].op_range;
    const NvtxOpName* op = parsed(range);
    OpRangeWork w;
    w.op = op ? op->op : std::string_view();
    if (op && op->has_sizes) {
      std::optional<TensorDims> output;
      if (op_flops_needs_output(op->op)) output = output_of(range, *op);
      const OpFlops f = op_flops(op->op, op->sizes, output ? &*output : nullptr);
      w.outcome = f.status == OpFlopsStatus::kCounted     ? OpRangeOutcome::kCounted
                  : f.status == OpFlopsStatus::kNoFormula ? OpRangeOutcome::kNoFormula
                                                          : OpRangeOutcome::kShapesDoNotFit;
      w.flops = f.flops;
    }
    if (w.outcome != OpRangeOutcome::kCounted) {
      for (size_t i : members) out.emplace(key(kernels_[i].kernel), w);
      continue;
    }
    auto dur = [&](size_t i) { return trace_.tracks[kernels_[i].kernel.track].slices.dur[kernels_[i].kernel.index]; };
    auto launched_first = [&](size_t i, size_t j) {
      const SliceColumns &a = trace_.tracks[kernels_[i].kernel.track].slices, &b = trace_.tracks[kernels_[j].kernel.track].slices;
      const TimeNs sa = a.start[kernels_[i].kernel.index], sb = b.start[kernels_[j].kernel.index];
      return sa != sb ? sa < sb : kernels_[i].kernel < kernels_[j].kernel;
    };
    const size_t longest = *std::min_element(members.begin(), members.end(), [&](size_t i, size_t j) {
      return dur(i) != dur(j) ? dur(i) > dur(j) : launched_first(i, j);
    });
    for (size_t i : members) {
      OpRangeWork k = w;
      if (i != longest) k.outcome = OpRangeOutcome::kOnLongerKernel, k.flops = 0;
      out.emplace(key(kernels_[i].kernel), k);
    }
  }
  return out;
}

}  // namespace parascope
