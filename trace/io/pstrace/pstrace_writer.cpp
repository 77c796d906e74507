#include "trace/io/pstrace/pstrace_writer.h"

#include <algorithm>
#include <bit>
#include <stdexcept>

namespace parascope {

namespace {

using pstrace::kNoDetailBit;
using pstrace::kTextIdBase;

bool has_detail_table(SliceKind k) {
  switch (k) {
    case SliceKind::kKernel:
    case SliceKind::kMemcpy:
    case SliceKind::kMemset:
    case SliceKind::kSync:
    case SliceKind::kNvtxRange:
    case SliceKind::kCpuOp:
    case SliceKind::kRuntimeApi:
    case SliceKind::kSmSpan: return true;
    default: return false;
  }
}

size_t detail_table_size(const Trace& t, SliceKind k) {
  switch (k) {
    case SliceKind::kKernel: return t.kernels.size();
    case SliceKind::kMemcpy: return t.memcpys.size();
    case SliceKind::kMemset: return t.memsets.size();
    case SliceKind::kSync: return t.syncs.size();
    case SliceKind::kNvtxRange: return t.nvtx.size();
    case SliceKind::kCpuOp: return t.cpu_ops.size();
    case SliceKind::kRuntimeApi: return t.api_calls.size();
    case SliceKind::kSmSpan: return t.sm_spans.size();
    default: return 0;
  }
}

uint64_t plus_one_device(uint16_t d) { return d == kNoDevice ? 0 : uint64_t{d} + 1; }
uint64_t plus_one32(uint32_t v) { return v == kNone32 ? 0 : uint64_t{v} + 1; }

}  // namespace

PstraceWriter::PstraceWriter(const std::string& path, PstraceWriteOptions options)
    : chunks_(path, options.chunk), options_(options) {
  if (options_.slices_per_chunk == 0) options_.slices_per_chunk = 1;
}

PstraceWriter::~PstraceWriter() {
  if (options_.chunk.atomic) return;  // not closed: a failed export, which ChunkWriter discards
  try {
    close();
  } catch (...) {
  }
}

void PstraceWriter::set_metadata(std::string key, std::string value) {
  metadata_.emplace_back(std::move(key), std::move(value));
}

uint32_t PstraceWriter::add_process(const Process& p) {
  pending_.processes.push_back(p);
  return static_cast<uint32_t>(pending_.processes.size() - 1);
}

uint32_t PstraceWriter::add_device(const Device& d) {
  pending_.devices.push_back(d);
  return static_cast<uint32_t>(pending_.devices.size() - 1);
}

uint32_t PstraceWriter::add_link(const Link& l) {
  pending_.links.push_back(l);
  return static_cast<uint32_t>(pending_.links.size() - 1);
}

uint32_t PstraceWriter::add_track(const TrackDecl& d) {
  Track t;
  t.key = d.key;
  t.name = intern(d.name);
  t.parent = d.parent;
  t.simulated = d.simulated;
  t.counter_source = d.counter_source;
  t.unit = intern(d.unit);
  pending_.tracks.push_back(std::move(t));
  rows_written_.push_back(0);
  return static_cast<uint32_t>(pending_.tracks.size() - 1);
}

void PstraceWriter::set_topology(const Topology& t) {
  pending_.topology = t;
  topology_written_ = false;
}

void PstraceWriter::add_warning(std::string message) { pending_.warnings.push_back(std::move(message)); }
void PstraceWriter::add_note(std::string message) { pending_.notes.push_back(std::move(message)); }

EventRef PstraceWriter::push_slice(uint32_t track, TimeNs start, TimeNs dur, StringId name, SliceRef ref,
                                   std::span<const Arg> args) {
  if (track >= pending_.tracks.size())
    throw std::out_of_range(path() + ": slice on undeclared track " + std::to_string(track));
  SliceColumns& s = pending_.tracks[track].slices;
  const uint64_t row = rows_written_[track] + s.size();
  if (row >= UINT32_MAX) throw std::length_error(path() + ": too many slices on one track (limit 4 G)");
  s.start.push_back(start);
  s.dur.push_back(dur);
  s.name.push_back(name);
  s.ref.push_back(ref);
  if (!args.empty() || !s.args.empty()) {
    if (s.args.empty()) s.args.assign(s.size() - 1, kNone32);
    // no dedup lookup: it costs more than the few bytes an identical set stored twice takes
    s.args.push_back(pending_.args.append(args));
  }
  ++buffered_;
  maybe_flush();
  return EventRef{track, static_cast<uint32_t>(row)};
}

EventRef PstraceWriter::add_slice(uint32_t track, TimeNs start, TimeNs dur, StringId name, SliceKind kind,
                                  std::span<const Arg> args) {
  return push_slice(track, start, dur, name, SliceRef(kind, SliceRef::kNoDetail), args);
}

namespace {
template <class T>
SliceRef push_detail(std::vector<T>& table, const T& v, SliceKind kind) {
  table.push_back(v);
  return SliceRef(kind, static_cast<uint32_t>(table.size() - 1));
}
}  // namespace

EventRef PstraceWriter::add_kernel(uint32_t track, TimeNs start, TimeNs dur, StringId name, const KernelInfo& k,
                                   const LaunchConfig* config, std::span<const Arg> args) {
  KernelInfo info = k;
  info.launch_config = kNone32;
  if (config) {
    uint64_t h = 0;
    const auto* words = reinterpret_cast<const uint32_t*>(config);
    for (size_t i = 0; i < sizeof(LaunchConfig) / 4; ++i) h = h * 1000003ull + words[i];
    auto& bucket = config_index_[h];
    for (uint32_t idx : bucket)
      if (pending_.launch_configs[idx] == *config) info.launch_config = idx;
    if (info.launch_config == kNone32) {
      pending_.launch_configs.push_back(*config);
      info.launch_config = static_cast<uint32_t>(pending_.launch_configs.size() - 1);
      bucket.push_back(info.launch_config);
    }
  }
  return push_slice(track, start, dur, name, push_detail(pending_.kernels, info, SliceKind::kKernel), args);
}

EventRef PstraceWriter::add_memcpy(uint32_t track, TimeNs start, TimeNs dur, StringId name, const MemcpyInfo& m,
                                   std::span<const Arg> args) {
  return push_slice(track, start, dur, name, push_detail(pending_.memcpys, m, SliceKind::kMemcpy), args);
}
EventRef PstraceWriter::add_memset(uint32_t track, TimeNs start, TimeNs dur, StringId name, const MemsetInfo& m,
                                   std::span<const Arg> args) {
  return push_slice(track, start, dur, name, push_detail(pending_.memsets, m, SliceKind::kMemset), args);
}
EventRef PstraceWriter::add_sync(uint32_t track, TimeNs start, TimeNs dur, StringId name, const SyncInfo& s,
                                 std::span<const Arg> args) {
  return push_slice(track, start, dur, name, push_detail(pending_.syncs, s, SliceKind::kSync), args);
}
EventRef PstraceWriter::add_nvtx(uint32_t track, TimeNs start, TimeNs dur, StringId name, const NvtxInfo& n,
                                 std::span<const Arg> args) {
  return push_slice(track, start, dur, name, push_detail(pending_.nvtx, n, SliceKind::kNvtxRange), args);
}
EventRef PstraceWriter::add_cpu_op(uint32_t track, TimeNs start, TimeNs dur, StringId name, const CpuOpInfo& c,
                                   std::span<const Arg> args) {
  return push_slice(track, start, dur, name, push_detail(pending_.cpu_ops, c, SliceKind::kCpuOp), args);
}
EventRef PstraceWriter::add_api_call(uint32_t track, TimeNs start, TimeNs dur, StringId name, const ApiInfo& a,
                                     std::span<const Arg> args) {
  return push_slice(track, start, dur, name, push_detail(pending_.api_calls, a, SliceKind::kRuntimeApi), args);
}
EventRef PstraceWriter::add_sm_span(uint32_t track, TimeNs start, TimeNs dur, StringId name, const SmSpanInfo& s,
                                    std::span<const Arg> args) {
  return push_slice(track, start, dur, name, push_detail(pending_.sm_spans, s, SliceKind::kSmSpan), args);
}

void PstraceWriter::add_counter_sample(uint32_t track, TimeNs t, double value) {
  if (track >= pending_.tracks.size())
    throw std::out_of_range(path() + ": counter sample on undeclared track " + std::to_string(track));
  auto& c = pending_.tracks[track].counter;
  c.time.push_back(t);
  c.value.push_back(value);
  ++buffered_;
  maybe_flush();
}

void PstraceWriter::add_flow(EventRef from, EventRef to, FlowKind kind) {
  Flow f;
  f.from = from;
  f.to = to;
  f.kind = kind;
  pending_.flows.push_back(f);
  ++buffered_;
  maybe_flush();
}

void PstraceWriter::add_collective(const CollectiveInfo& c) {
  pending_.collectives.push_back(c);
  ++buffered_;
  maybe_flush();
}

void PstraceWriter::maybe_flush() {
  if (buffered_ >= options_.max_buffered_events) flush();
}

void PstraceWriter::emit(ChunkType type) {
  chunk_.clear();
  local_.write(chunk_);
  chunk_.raw(body_.bytes().data(), body_.size());
  chunks_.append(type, chunk_.bytes(), options_.codec);
}

void PstraceWriter::write_declarations(const Trace& src, size_t processes_from, size_t devices_from,
                                       size_t links_from, size_t tracks_from) {
  if (processes_from < src.processes.size()) {
    local_.begin(src.strings);
    body_.clear();
    body_.varint(src.processes.size() - processes_from);
    for (size_t i = processes_from; i < src.processes.size(); ++i) {
      const Process& p = src.processes[i];
      body_.varint(i);
      body_.svarint(p.rank);
      body_.svarint(p.pid);
      body_.varint(local_.local_text(p.host));
      body_.varint(local_.local_text(p.name));
      body_.varint(local_.local_text(p.source));
      body_.svarint(p.clock_offset_ns);
      body_.varint(local_.local_text(p.clock_offset_reason));
    }
    emit(ChunkType::kProcesses);
  }
  if (devices_from < src.devices.size()) {
    local_.begin(src.strings);
    body_.clear();
    body_.varint(src.devices.size() - devices_from);
    for (size_t i = devices_from; i < src.devices.size(); ++i) {
      const Device& d = src.devices[i];
      body_.varint(i);
      body_.varint(d.process);
      body_.svarint(d.ordinal);
      body_.varint(local_.local_text(d.name));
      body_.varint(local_.local_text(d.pci_bus_id));
      body_.varint(local_.local_text(d.uuid));
      body_.varint(d.sm_count);
      body_.varint(d.compute_major);
      body_.varint(d.compute_minor);
      body_.varint(d.memory_bytes);
      body_.svarint(d.topology_gpu);
    }
    emit(ChunkType::kDevices);
  }
  if (links_from < src.links.size()) {
    local_.begin(src.strings);
    body_.clear();
    body_.varint(src.links.size() - links_from);
    for (size_t i = links_from; i < src.links.size(); ++i) {
      const Link& l = src.links[i];
      body_.varint(i);
      body_.varint(plus_one_device(l.src_device));
      body_.varint(plus_one_device(l.dst_device));
      body_.u8(static_cast<uint8_t>(l.direction));
      body_.u8(static_cast<uint8_t>(l.medium));
      body_.svarint(l.port);
      body_.f64(l.capacity_bytes_per_s);
    }
    emit(ChunkType::kLinks);
  }
  for (size_t from = tracks_from; from < src.tracks.size(); from += options_.slices_per_chunk) {
    const size_t to = std::min(src.tracks.size(), from + options_.slices_per_chunk);
    local_.begin(src.strings);
    body_.clear();
    body_.varint(to - from);
    for (size_t i = from; i < to; ++i) {
      const Track& t = src.tracks[i];
      body_.varint(i);
      body_.u8(static_cast<uint8_t>(t.key.kind));
      body_.varint(t.key.process);
      body_.svarint(t.key.device);
      const bool text = t.key.id >= kTextIdBase && static_cast<uint64_t>(t.key.id - kTextIdBase) < src.strings.size();
      body_.u8(text ? 1 : 0);
      if (text) body_.varint(local_.local(static_cast<StringId>(t.key.id - kTextIdBase)));
      else body_.svarint(t.key.id);
      body_.varint(local_.local(t.name));
      body_.svarint(t.parent);
      body_.u8(t.simulated ? 1 : 0);
      body_.u8(static_cast<uint8_t>(t.counter_source));
      body_.varint(local_.local(t.unit));
    }
    emit(ChunkType::kTracks);
  }
}

void PstraceWriter::write_track_data(const Trace& src, uint32_t ti, uint64_t first_row) {
  const Track& t = src.tracks[ti];
  const SliceColumns& s = t.slices;
  const size_t per = options_.slices_per_chunk;
  std::vector<uint32_t>& config_order = config_order_;
  std::vector<uint32_t>& set_order = set_order_;
  for (size_t b = 0; b < s.size(); b += per) {
    const size_t e = std::min(s.size(), b + per);
    local_.begin(src.strings);
    body_.clear();
    body_.varint(ti);
    body_.varint(first_row + b);
    body_.varint(e - b);
    // tables first: the launch configs and argument sets this run uses
    config_order.clear();
    set_order.clear();
    config_slots_.begin(src.launch_configs.size());
    set_slots_.begin(src.args.set_count());
    const bool has_args = !s.args.empty();
    const size_t set_count = src.args.set_count(), config_count = src.launch_configs.size();
    local_args_.clear();
    local_configs_.clear();
    for (size_t i = b; i < e; ++i) {
      const SliceRef r = s.ref[i];
      uint32_t cfg = 0;
      if (r.kind() == SliceKind::kKernel && r.has_detail() && r.index() < src.kernels.size()) {
        const uint32_t c = src.kernels[r.index()].launch_config;
        if (c < config_count) cfg = config_slots_.local(c, config_order) + 1;
      }
      local_configs_.push_back(cfg);
      uint32_t set = 0;
      if (has_args && s.args[i] < set_count) set = set_slots_.local(s.args[i], set_order) + 1;
      local_args_.push_back(set);
    }
    body_.varint(config_order.size());
    for (uint32_t c : config_order) {
      const LaunchConfig& lc = src.launch_configs[c];
      for (uint32_t v : lc.grid) body_.varint(v);
      for (uint32_t v : lc.block) body_.varint(v);
      body_.varint(lc.registers_per_thread);
      body_.varint(lc.static_smem);
      body_.varint(lc.dynamic_smem);
    }
    write_arg_sets(src, set_order);
    body_.u8(has_args ? 1 : 0);
    body_.svarint(s.start[b]);
    for (size_t i = b + 1; i < e; ++i) body_.svarint(s.start[i] - s.start[i - 1]);
    for (size_t i = b; i < e; ++i) body_.varint(static_cast<uint64_t>(s.dur[i]));
    for (size_t i = b; i < e; ++i) body_.varint(local_.local(s.name[i]));
    for (size_t i = b; i < e; ++i) {
      const SliceRef r = s.ref[i];
      const bool detail = has_detail_table(r.kind()) && r.has_detail() && r.index() < detail_table_size(src, r.kind());
      body_.u8(static_cast<uint8_t>(static_cast<uint8_t>(r.kind()) | (detail ? 0 : kNoDetailBit)));
    }
    if (has_args)
      for (size_t i = b; i < e; ++i) body_.varint(local_args_[i - b]);
    int64_t prev_corr = 0;
    uint64_t prev_ext = 0;
    auto corr = [&](uint32_t c) {
      body_.svarint(static_cast<int64_t>(c) - prev_corr);
      prev_corr = c;
    };
    for (size_t i = b; i < e; ++i) {
      const SliceRef r = s.ref[i];
      if (!has_detail_table(r.kind()) || !r.has_detail() || r.index() >= detail_table_size(src, r.kind())) continue;
      switch (r.kind()) {
        case SliceKind::kKernel: {
          const KernelInfo& k = src.kernels[r.index()];
          body_.varint(local_configs_[i - b]);
          corr(k.correlation);
          body_.varint(k.graph_id);
          body_.varint(k.graph_node_id.get());
          break;
        }
        case SliceKind::kMemcpy: {
          const MemcpyInfo& m = src.memcpys[r.index()];
          body_.varint(m.bytes.get());
          corr(m.correlation);
          body_.varint(plus_one_device(m.src_device));
          body_.varint(plus_one_device(m.dst_device));
          body_.u8(static_cast<uint8_t>(m.copy_kind));
          body_.u8(static_cast<uint8_t>(m.mechanism));
          body_.u8(static_cast<uint8_t>(m.src_memory));
          body_.u8(static_cast<uint8_t>(m.dst_memory));
          break;
        }
        case SliceKind::kMemset: {
          const MemsetInfo& m = src.memsets[r.index()];
          body_.varint(m.bytes.get());
          corr(m.correlation);
          body_.varint(m.value);
          body_.u8(static_cast<uint8_t>(m.memory));
          break;
        }
        case SliceKind::kSync: {
          const SyncInfo& y = src.syncs[r.index()];
          corr(y.correlation);
          body_.varint(plus_one32(y.event_id));
          body_.svarint(y.stream);
          body_.u8(static_cast<uint8_t>(y.kind));
          break;
        }
        case SliceKind::kNvtxRange: {
          const NvtxInfo& n = src.nvtx[r.index()];
          body_.varint(local_.local(n.domain));
          body_.varint(local_.local(n.category));
          body_.varint(n.color_argb);
          body_.varint(n.payload.get());
          body_.u8(n.payload_type);
          break;
        }
        case SliceKind::kCpuOp: {
          const CpuOpInfo& c = src.cpu_ops[r.index()];
          const uint64_t ext = c.external_id.get();
          body_.svarint(static_cast<int64_t>(ext - prev_ext));
          prev_ext = ext;
          body_.varint(c.flops.get());
          body_.varint(plus_one32(c.sequence));
          break;
        }
        case SliceKind::kRuntimeApi: {
          const ApiInfo& a = src.api_calls[r.index()];
          corr(a.correlation);
          body_.varint(a.cbid);
          body_.svarint(a.result);
          break;
        }
        case SliceKind::kSmSpan: {
          const SmSpanInfo& m = src.sm_spans[r.index()];
          body_.varint(m.block);
          body_.varint(m.tag);
          body_.varint(m.launch_id);
          pstrace::write_ref(body_, m.kernel);
          body_.u8(m.warp);
          body_.u8(static_cast<uint8_t>(m.role));
          break;
        }
        default: break;
      }
    }
    emit(ChunkType::kSlices);
  }
  const CounterColumns& c = t.counter;
  for (size_t b = 0; b < c.size(); b += per) {
    const size_t e = std::min(c.size(), b + per);
    local_.begin(src.strings);
    body_.clear();
    body_.varint(ti);
    body_.varint(e - b);
    body_.svarint(c.time[b]);
    for (size_t i = b + 1; i < e; ++i) body_.svarint(c.time[i] - c.time[i - 1]);
    for (size_t i = b; i < e; ++i) body_.f64(c.value[i]);
    emit(ChunkType::kCounters);
  }
}

// Sets sharing their keys and types (a "shape": every kernel of a Kineto trace has the same six
// args) store the shape once and then only values, integers as deltas per field.
void PstraceWriter::write_arg_sets(const Trace& src, const std::vector<uint32_t>& sets) {
  shapes_.clear();
  shape_fields_.assign(1, 0);
  shape_index_.clear();
  set_shape_.clear();
  ++chunk_stamp_;
  if (store_shape_.size() < src.args.shape_count()) store_shape_.resize(src.args.shape_count(), {0, 0});
  for (uint32_t set : sets) {
    // sets of one store shape have the same keys and types: one lookup per store shape and chunk
    const uint32_t ss = src.args.shape_of_set(set);
    if (ss < store_shape_.size() && store_shape_[ss].first == chunk_stamp_) {
      set_shape_.push_back(store_shape_[ss].second);
      continue;
    }
    const auto args = src.args.get(set);
    uint64_t h = args.size();
    for (const Arg& a : args) h = (h * 0x100000001b3ull) ^ ((uint64_t{a.key} << 8) | static_cast<uint8_t>(a.value.type));
    auto& bucket = shape_index_[h];
    uint32_t found = kNone32;
    for (uint32_t shape : bucket) {
      const uint32_t b = shape_fields_[shape], e = shape_fields_[shape + 1];
      if (e - b != args.size()) continue;
      bool same = true;
      for (uint32_t f = b; f < e && same; ++f)
        same = shapes_[f].first == args[f - b].key && shapes_[f].second == static_cast<uint8_t>(args[f - b].value.type);
      if (same) found = shape;
    }
    if (found == kNone32) {
      found = static_cast<uint32_t>(shape_fields_.size() - 1);
      for (const Arg& a : args) shapes_.emplace_back(a.key, static_cast<uint8_t>(a.value.type));
      shape_fields_.push_back(static_cast<uint32_t>(shapes_.size()));
      bucket.push_back(found);
    }
    if (ss < store_shape_.size()) store_shape_[ss] = {chunk_stamp_, found};
    set_shape_.push_back(found);
  }
  const size_t shape_count = shape_fields_.size() - 1;
  body_.varint(shape_count);
  for (size_t sh = 0; sh < shape_count; ++sh) {
    body_.varint(shape_fields_[sh + 1] - shape_fields_[sh]);
    for (uint32_t f = shape_fields_[sh]; f < shape_fields_[sh + 1]; ++f) {
      body_.varint(local_.local(shapes_[f].first));
      body_.u8(shapes_[f].second);
    }
  }
  prev_values_.assign(shapes_.size(), 0);
  body_.varint(sets.size());
  for (size_t i = 0; i < sets.size(); ++i) {
    const uint32_t sh = set_shape_[i];
    body_.varint(sh);
    const auto args = src.args.get(sets[i]);
    for (size_t f = 0; f < args.size(); ++f) {
      const uint64_t v = args.bits(f);  // int/uint as is, double's bits, bool 0/1, string id
      int64_t& prev = prev_values_[shape_fields_[sh] + f];
      switch (args.type(f)) {
        case ArgValue::Type::kInt:
        case ArgValue::Type::kUInt:
          body_.svarint(static_cast<int64_t>(v - static_cast<uint64_t>(prev)));
          prev = static_cast<int64_t>(v);
          break;
        case ArgValue::Type::kDouble: body_.f64(std::bit_cast<double>(v)); break;
        case ArgValue::Type::kBool: body_.u8(v != 0 ? 1 : 0); break;
        case ArgValue::Type::kString:
        case ArgValue::Type::kJson: body_.varint(local_.local(static_cast<StringId>(v))); break;
      }
    }
  }
}

void PstraceWriter::write_relations(const Trace& src) {
  const size_t per = options_.slices_per_chunk;
  for (size_t b = 0; b < src.flows.size(); b += per) {
    const size_t e = std::min(src.flows.size(), b + per);
    local_.begin(src.strings);
    body_.clear();
    body_.varint(e - b);
    for (size_t i = b; i < e; ++i) {
      pstrace::write_ref(body_, src.flows[i].from);
      pstrace::write_ref(body_, src.flows[i].to);
      body_.u8(static_cast<uint8_t>(src.flows[i].kind));
    }
    emit(ChunkType::kFlows);
  }
  for (size_t b = 0; b < src.collectives.size(); b += per) {
    const size_t e = std::min(src.collectives.size(), b + per);
    local_.begin(src.strings);
    body_.clear();
    body_.varint(e - b);
    for (size_t i = b; i < e; ++i) {
      const CollectiveInfo& c = src.collectives[i];
      body_.u8(static_cast<uint8_t>(c.op));
      body_.u8(c.dtype_bytes);
      body_.varint(c.channels);
      body_.svarint(c.rank);
      body_.svarint(c.group_size);
      body_.varint(local_.local(c.dtype));
      body_.varint(local_.local(c.group));
      body_.varint(local_.local(c.group_ranks));
      body_.varint(local_.local(c.algorithm));
      body_.varint(local_.local(c.protocol));
      body_.svarint(c.sequence);
      body_.varint(c.in_elements);
      body_.varint(c.out_elements);
      pstrace::write_ref(body_, c.kernel);
      pstrace::write_ref(body_, c.cpu_op);
      body_.svarint(c.peer);
    }
    emit(ChunkType::kCollectives);
  }
}

void PstraceWriter::write_metadata_warnings_notes(const Trace& src) {
  if (!metadata_.empty()) {
    local_.begin(src.strings);
    body_.clear();
    body_.varint(metadata_.size());
    for (const auto& [k, v] : metadata_) {
      body_.varint(local_.local_text(k));
      body_.varint(local_.local_text(v));
    }
    emit(ChunkType::kMetadata);
    metadata_.clear();
  }
  if (!topology_written_ && src.topology) {
    ByteWriter w;
    pstrace::write_topology(w, *src.topology);
    chunks_.append(ChunkType::kTopology, w.bytes(), options_.codec);
    topology_written_ = true;
  }
  auto lines = [&](ChunkType type, const std::vector<std::string>& list) {
    if (list.empty()) return;
    ByteWriter w;
    for (const std::string& m : list) w.str(m);
    chunks_.append(type, w.bytes(), options_.codec);
  };
  lines(ChunkType::kWarnings, src.warnings);
  lines(ChunkType::kNotes, src.notes);
}

void PstraceWriter::flush() {
  if (!chunks_.is_open()) return;
  write_declarations(pending_, processes_written_, devices_written_, links_written_, tracks_written_);
  processes_written_ = pending_.processes.size();
  devices_written_ = pending_.devices.size();
  links_written_ = pending_.links.size();
  tracks_written_ = pending_.tracks.size();
  write_metadata_warnings_notes(pending_);
  for (uint32_t t = 0; t < pending_.tracks.size(); ++t) {
    Track& track = pending_.tracks[t];
    if (track.slices.empty() && track.counter.size() == 0) continue;
    write_track_data(pending_, t, rows_written_[t]);
    rows_written_[t] += track.slices.size();
    track.slices = SliceColumns{};
    track.counter = CounterColumns{};
  }
  write_relations(pending_);
  pending_.warnings.clear();
  pending_.notes.clear();
  pending_.flows.clear();
  pending_.collectives.clear();
  pending_.launch_configs.clear();
  pending_.kernels.clear();
  pending_.memcpys.clear();
  pending_.memsets.clear();
  pending_.syncs.clear();
  pending_.nvtx.clear();
  pending_.cpu_ops.clear();
  pending_.api_calls.clear();
  pending_.sm_spans.clear();
  pending_.args = ArgStore{};
  config_index_.clear();
  buffered_ = 0;
  chunks_.flush();
}

void PstraceWriter::append_raw(ChunkType type, std::span<const uint8_t> payload, Codec codec) {
  flush();
  chunks_.append(type, payload, codec);
}

void PstraceWriter::close() {
  if (!chunks_.is_open()) return;
  flush();
  chunks_.close();
}

void write_pstrace(const Trace& trace, const std::string& path, const PstraceWriteOptions& options) {
  PstraceWriter w(path, options);
  w.set_metadata("tool", "parascope");
  if (!trace.source_format.empty()) w.set_metadata("source_format", trace.source_format);
  for (const std::string& f : trace.source_files) w.set_metadata("source_file", f);
  w.topology_written_ = false;
  w.write_declarations(trace, 0, 0, 0, 0);
  w.write_metadata_warnings_notes(trace);
  for (uint32_t t = 0; t < trace.tracks.size(); ++t) w.write_track_data(trace, t, 0);
  w.write_relations(trace);
  w.close();
}

void write_pstrace(const Trace& trace, const std::string& path) {
  PstraceWriteOptions o;
  o.chunk.atomic = true;
  write_pstrace(trace, path, o);
}

}  // namespace parascope
