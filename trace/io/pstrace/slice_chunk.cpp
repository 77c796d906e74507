#include "trace/io/pstrace/slice_chunk.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "trace/io/pstrace/pstrace_codec.h"

namespace parascope {

namespace {

using pstrace::kNoDetailBit;
using pstrace::local_string;
using pstrace::read_enum;
using pstrace::read_ref;

// Decodes a column of n varints with one bound check per value while 10 bytes remain (a varint
// is at most 10 bytes), then value by value through `checked(i)` (ByteReader's checked path). A
// malformed value, or one of `limit` or more, ends the fast loop with `r` at its start, so the
// checked path reads it again and reports it at the same offset as reading value by value.
template <class Put, class Checked>
void varint_column(ByteReader& r, uint64_t n, uint64_t limit, Put&& put, Checked&& checked) {
  const uint8_t* const begin = r.raw(0);
  const uint8_t* p = begin;
  const uint8_t* const fast_end = r.remaining() >= 10 ? begin + (r.remaining() - 9) : begin;
  uint64_t i = 0;
  for (; i < n && p < fast_end; ++i) {
    const uint8_t* const at = p;
    uint64_t v = 0;
    if (!decode_varint(p, v) || v >= limit) [[unlikely]] {
      p = at;
      break;
    }
    put(i, v);
  }
  r.raw(static_cast<size_t>(p - begin));
  for (; i < n; ++i) checked(i);
}

// The argument sets of a slices chunk (see parse_slice_chunk) decoded from a raw pointer, with one
// bound check per set while a whole set (at most 10 bytes per value and for its shape) fits, and
// the chunk's tables held in locals (stores through the uint8_t `same` would otherwise make the
// compiler reload every vector's data pointer per value). Returns how many sets it decoded, with
// `r` after them. Anything unusual (a long varint, a shape or string out of range, values past the
// room) returns 0 with `r`, `prev`, `used` and the per-shape tallies as they were, so the checked
// loop decodes everything again and reports the problem at the same offset.
uint64_t fast_sets(ByteReader& r, SliceChunk& out, std::vector<int64_t>& prev, uint32_t widest, size_t room, size_t& used) {
  const uint64_t k = out.k;
  const uint64_t h = out.shape_fields.size() - 1;
  const size_t per_set = 10 + size_t{widest} * 10;
  const uint8_t* const begin = r.raw(0);
  const uint8_t* const end = begin + r.remaining();
  const uint8_t* p = begin;
  const uint32_t* const fields = out.shape_fields.data();
  const ArgValue::Type* const types = out.shape_types.data();
  uint32_t* const shape_sets = out.shape_sets.data();
  uint32_t* const set_shapes = out.set_shapes.data();
  uint64_t* const first_bits = out.first_bits.data();
  uint8_t* const same = out.same.data();
  uint64_t* const bits = out.bits.get();
  int64_t* const pv = prev.data();
  const uint64_t strings = out.local.size();
  size_t u = used;
  uint64_t i = 0;
  bool ok = true;
  for (; i < k && static_cast<size_t>(end - p) >= per_set; ++i) {
    uint64_t sh = 0;
    if (!decode_varint(p, sh) || sh >= h) {
      ok = false;
      break;
    }
    const uint32_t fb = fields[sh], fe = fields[sh + 1];
    if (u + (fe - fb) > room) {
      ok = false;
      break;
    }
    const bool first = shape_sets[sh]++ == 0;
    for (uint32_t f = fb; f < fe && ok; ++f) {
      uint64_t v = 0;
      switch (types[f]) {
        case ArgValue::Type::kInt:
        case ArgValue::Type::kUInt: {
          uint64_t z = 0;
          ok = decode_varint(p, z);
          pv[f] = static_cast<int64_t>(static_cast<uint64_t>(pv[f]) + zigzag_decode(z));
          v = static_cast<uint64_t>(pv[f]);
          break;
        }
        case ArgValue::Type::kDouble:
          std::memcpy(&v, p, 8);
          p += 8;
          break;
        case ArgValue::Type::kBool: v = *p++ != 0; break;
        case ArgValue::Type::kString:
        case ArgValue::Type::kJson: ok = decode_varint(p, v) && v < strings; break;
      }
      bits[u++] = v;
      if (first) first_bits[f] = v;
      else same[f] &= first_bits[f] == v;
    }
    if (!ok) break;
    set_shapes[i] = static_cast<uint32_t>(sh);
  }
  if (!ok) {  // start over on the checked path
    std::fill(prev.begin(), prev.end(), 0);
    std::fill(out.shape_sets.begin(), out.shape_sets.end(), 0);
    std::fill(out.first_bits.begin(), out.first_bits.end(), 0);
    std::fill(out.same.begin(), out.same.end(), 1);
    return 0;
  }
  r.raw(static_cast<size_t>(p - begin));
  used = u;
  return i;
}

// The chunk's local strings (pstrace::read_local_strings, without interning): views into the
// payload, and the identity table that local_string checks indexes against.
void read_strings(ByteReader& r, SliceChunk& out) {
  const uint64_t ns = r.count(1, "string");
  out.strings.resize(ns);
  for (uint64_t i = 0; i < ns; ++i) out.strings[i] = r.str();
  const size_t had = out.local.size();
  out.local.resize(ns + 1);
  for (size_t i = had; i < out.local.size(); ++i) out.local[i] = static_cast<StringId>(i);
}

void read_launch_configs(ByteReader& r, SliceChunk& out) {
  out.configs.clear();
  const uint64_t m = r.count(9, "launch config");
  for (uint64_t i = 0; i < m; ++i) {
    LaunchConfig c;
    for (uint32_t& v : c.grid) v = static_cast<uint32_t>(r.varint());
    for (uint32_t& v : c.block) v = static_cast<uint32_t>(r.varint());
    c.registers_per_thread = static_cast<uint32_t>(r.varint());
    c.static_smem = static_cast<uint32_t>(r.varint());
    c.dynamic_smem = static_cast<uint32_t>(r.varint());
    out.configs.push_back(c);
  }
}

void read_arg_shapes(ByteReader& r, SliceChunk& out) {
  const std::vector<StringId>& strs = out.local;
  out.shape_keys.clear();
  out.shape_types.clear();
  out.shape_fields.assign(1, 0);
  const uint64_t h = r.count(1, "argument shape");
  for (uint64_t i = 0; i < h; ++i) {
    const uint64_t cnt = r.count(2, "argument");
    for (uint64_t j = 0; j < cnt; ++j) {
      out.shape_keys.push_back(local_string(r, strs));
      const uint8_t type = r.u8();
      if (type > static_cast<uint8_t>(ArgValue::Type::kJson)) r.fail("argument type " + std::to_string(type) + " out of range");
      out.shape_types.push_back(static_cast<ArgValue::Type>(type));
    }
    out.shape_fields.push_back(static_cast<uint32_t>(out.shape_keys.size()));
  }
}

// Sets [from, k) value by value through ByteReader's checked reads: what fast_sets declined, with
// every problem reported at its offset.
void checked_sets(ByteReader& r, SliceChunk& out, std::vector<int64_t>& prev, uint64_t from, size_t room, size_t& used) {
  const std::vector<StringId>& strs = out.local;
  const uint64_t h = out.shape_fields.size() - 1;
  uint64_t* const bits = out.bits.get();
  for (uint64_t i = from; i < out.k; ++i) {
    const uint64_t sh = r.varint();
    if (sh >= h) r.fail("argument shape " + std::to_string(sh) + " outside the chunk's " + std::to_string(h));
    const uint32_t fb = out.shape_fields[sh], fe = out.shape_fields[sh + 1];
    if (used + (fe - fb) > room) r.fail("argument set past the end of the chunk");
    const bool first = out.shape_sets[sh]++ == 0;
    for (uint32_t f = fb; f < fe; ++f) {
      uint64_t v = 0;
      switch (out.shape_types[f]) {
        case ArgValue::Type::kInt:
        case ArgValue::Type::kUInt: {
          int64_t& p = prev[f];
          p = static_cast<int64_t>(static_cast<uint64_t>(p) + static_cast<uint64_t>(r.svarint()));
          v = static_cast<uint64_t>(p);
          break;
        }
        case ArgValue::Type::kDouble: {
          const double d = r.f64();
          std::memcpy(&v, &d, 8);
          break;
        }
        case ArgValue::Type::kBool: v = r.u8() != 0; break;
        case ArgValue::Type::kString:
        case ArgValue::Type::kJson: v = local_string(r, strs); break;
      }
      bits[used++] = v;
      if (first) out.first_bits[f] = v;
      else out.same[f] &= out.first_bits[f] == v;
    }
    out.set_shapes[i] = static_cast<uint32_t>(sh);
  }
}

// The argument sets: values decoded into `bits` (bounded by the bytes present: each value takes at
// least one), noting per shape field whether every set of the chunk has the same value. Such fields
// become shared values of the store's shape (when the shape has at least two sets here), so only
// the values that differ are stored per set.
void read_arg_sets(ByteReader& r, SliceChunk& out) {
  const uint64_t h = out.shape_fields.size() - 1;
  const size_t fields = out.shape_keys.size();
  std::vector<int64_t> prev(fields, 0);  // integers are deltas against the field's previous value
  const uint64_t k = r.count(1, "argument set");
  out.k = k;
  uint32_t widest = 0;
  for (uint64_t i = 0; i < h; ++i) widest = std::max(widest, out.shape_fields[i + 1] - out.shape_fields[i]);
  const size_t room = k ? static_cast<size_t>(std::min<uint64_t>(r.remaining(), k * widest)) : 0;
  if (out.bits_room < room) {
    out.bits = std::make_unique_for_overwrite<uint64_t[]>(room);
    out.bits_room = room;
  }
  out.first_bits.assign(fields, 0);
  out.same.assign(fields, 1);
  out.shape_sets.assign(h, 0);
  out.set_shapes.resize(k);
  size_t used = 0;
  const uint64_t decoded = fast_sets(r, out, prev, widest, room, used);
  checked_sets(r, out, prev, decoded, room, used);
  out.used = used;
}

// The per-slice columns: starts (first start, then zig-zag deltas, wrapping as the writer's),
// durations, names, kind bytes and, when the chunk has arguments, set numbers.
void read_columns(ByteReader& r, SliceChunk& out) {
  const std::vector<StringId>& strs = out.local;
  const uint64_t n = out.n, k = out.k;
  out.start.resize(n);
  out.dur.resize(n);
  out.name.resize(n);
  out.kind.resize(n);
  uint64_t t = 0;
  TimeNs* const start = out.start.data();
  auto put_start = [&](uint64_t i, uint64_t z) {
    t += zigzag_decode(z);
    start[i] = static_cast<TimeNs>(t);
  };
  varint_column(r, n, UINT64_MAX, put_start, [&](uint64_t i) { put_start(i, r.varint()); });
  TimeNs* const dur = out.dur.data();
  varint_column(r, n, UINT64_MAX, [&](uint64_t i, uint64_t v) { dur[i] = static_cast<TimeNs>(v); },
                [&](uint64_t i) { dur[i] = static_cast<TimeNs>(r.varint()); });
  StringId* const name = out.name.data();
  varint_column(r, n, strs.size(), [&](uint64_t i, uint64_t v) { name[i] = static_cast<StringId>(v); },
                [&](uint64_t i) { name[i] = local_string(r, strs); });
  if (n) std::memcpy(out.kind.data(), r.raw(n), n);
  if (out.has_args) {
    out.set.resize(n);
    uint32_t* const set = out.set.data();
    varint_column(r, n, k + 1, [&](uint64_t i, uint64_t v) { set[i] = static_cast<uint32_t>(v); },
                  [&](uint64_t i) {
                    const uint64_t s = r.varint();
                    if (s > k) r.fail("argument set " + std::to_string(s) + " outside the chunk's " + std::to_string(k));
                    set[i] = static_cast<uint32_t>(s);
                  });
  }
}

// The detail records, one per slice whose kind byte lacks kNoDetailBit, in slice order; correlation
// and External ids are deltas against the previous record's.
void read_details(ByteReader& r, SliceChunk& out) {
  const std::vector<StringId>& strs = out.local;
  const uint64_t n = out.n;
  out.kernels.clear();
  out.memcpys.clear();
  out.memcpy_devices.clear();
  out.memsets.clear();
  out.syncs.clear();
  out.nvtx.clear();
  out.cpu_ops.clear();
  out.apis.clear();
  out.sm_spans.clear();
  out.sm_span_kernels.clear();
  int64_t prev_corr = 0;
  uint64_t prev_ext = 0;
  auto corr = [&]() {
    prev_corr += r.svarint();
    return static_cast<uint32_t>(prev_corr);
  };
  for (uint64_t i = 0; i < n; ++i) {
    const uint8_t kb = out.kind[i];
    if ((kb & 0x0F) >= static_cast<uint8_t>(SliceKind::kCount) || (kb & 0xE0))
      r.fail("slice kind byte " + std::to_string(kb) + " out of range");
    if (kb & kNoDetailBit) continue;
    const auto kind = static_cast<SliceKind>(kb & 0x0F);
    switch (kind) {
      case SliceKind::kKernel: {
        KernelInfo ki;
        const uint64_t c = r.varint();
        if (c > out.configs.size()) r.fail("launch config " + std::to_string(c) + " outside the chunk's table");
        ki.launch_config = static_cast<uint32_t>(c);
        ki.correlation = corr();
        ki.graph_id = static_cast<uint32_t>(r.varint());
        ki.graph_node_id = U64Split(r.varint());
        out.kernels.push_back(ki);
        break;
      }
      case SliceKind::kMemcpy: {
        MemcpyInfo mi;
        mi.bytes = U64Split(r.varint());
        mi.correlation = corr();
        const uint64_t src = r.varint();
        const uint64_t dst = r.varint();
        out.memcpy_devices.emplace_back(src, dst);
        mi.copy_kind = read_enum<CopyKind>(r, 6, "copy kind");
        mi.mechanism = read_enum<Mechanism>(r, 6, "mechanism");
        mi.src_memory = read_enum<MemoryKind>(r, 6, "memory kind");
        mi.dst_memory = read_enum<MemoryKind>(r, 6, "memory kind");
        out.memcpys.push_back(mi);
        break;
      }
      case SliceKind::kMemset: {
        MemsetInfo mi;
        mi.bytes = U64Split(r.varint());
        mi.correlation = corr();
        mi.value = static_cast<uint32_t>(r.varint());
        mi.memory = read_enum<MemoryKind>(r, 6, "memory kind");
        out.memsets.push_back(mi);
        break;
      }
      case SliceKind::kSync: {
        SyncInfo si;
        si.correlation = corr();
        const uint64_t ev = r.varint();
        si.event_id = ev == 0 ? kNone32 : static_cast<uint32_t>(ev - 1);
        si.stream = r.svarint();
        si.kind = read_enum<SyncKind>(r, 6, "sync kind");
        out.syncs.push_back(si);
        break;
      }
      case SliceKind::kNvtxRange: {
        NvtxInfo ni;
        ni.domain = local_string(r, strs);
        ni.category = local_string(r, strs);
        ni.color_argb = static_cast<uint32_t>(r.varint());
        ni.payload = U64Split(r.varint());
        ni.payload_type = r.u8();
        out.nvtx.push_back(ni);
        break;
      }
      case SliceKind::kCpuOp: {
        CpuOpInfo ci;
        prev_ext += static_cast<uint64_t>(r.svarint());
        ci.external_id = U64Split(prev_ext);
        ci.flops = U64Split(r.varint());
        const uint64_t seq = r.varint();
        ci.sequence = seq == 0 ? kNone32 : static_cast<uint32_t>(seq - 1);
        out.cpu_ops.push_back(ci);
        break;
      }
      case SliceKind::kRuntimeApi: {
        ApiInfo ai;
        ai.correlation = corr();
        ai.cbid = static_cast<uint32_t>(r.varint());
        ai.result = static_cast<int32_t>(r.svarint());
        out.apis.push_back(ai);
        break;
      }
      case SliceKind::kSmSpan: {
        SmSpanInfo si;
        si.block = static_cast<uint32_t>(r.varint());
        si.tag = static_cast<uint32_t>(r.varint());
        si.launch_id = static_cast<uint32_t>(r.varint());
        out.sm_span_kernels.push_back(read_ref(r));
        si.warp = r.u8();
        si.role = read_enum<SmRole>(r, kSmRoleCount, "SM role");
        out.sm_spans.push_back(si);
        break;
      }
      default: r.fail("slice kind " + std::string(to_string(kind)) + " has no detail record");
    }
  }
}

}  // namespace

void parse_slice_chunk(ByteReader& r, SliceChunk& out) {
  out.error = nullptr;
  read_strings(r, out);
  out.file_track = r.varint();
  out.first_row = r.varint();
  out.n = r.count(4, "slice");
  read_launch_configs(r, out);
  read_arg_shapes(r, out);
  read_arg_sets(r, out);
  out.has_args = r.u8() != 0;
  read_columns(r, out);
  read_details(r, out);
}

}  // namespace parascope
