#include "trace/io/pstrace/pstrace_codec.h"

namespace parascope::pstrace {

void LocalStrings::begin(const StringTable& table) {
  table_ = &table;
  order_.clear();
  text_.clear();
  if (++generation_ == 0) {  // wrapped: forget every stamp
    std::fill(gen_.begin(), gen_.end(), 0u);
    generation_ = 1;
  }
}

uint32_t LocalStrings::local(StringId id) {
  if (id == kEmptyString) return 0;
  if (id >= slot_.size()) {
    const size_t n = std::max<size_t>(table_->size(), size_t{id} + 1);
    slot_.resize(n, 0);
    gen_.resize(n, 0);
  }
  if (gen_[id] == generation_) return slot_[id];
  order_.push_back(table_->view(id));
  gen_[id] = generation_;
  slot_[id] = static_cast<uint32_t>(order_.size());
  return slot_[id];
}

uint32_t LocalStrings::local_text(std::string_view s) {
  if (s.empty()) return 0;
  auto [it, inserted] = text_.try_emplace(std::string(s), 0u);
  if (inserted) {
    order_.push_back(it->first);
    it->second = static_cast<uint32_t>(order_.size());
  }
  return it->second;
}

void LocalStrings::write(ByteWriter& w) const {
  w.varint(order_.size());
  for (const std::string_view s : order_) w.str(s);
}

void bad_local_string(const ByteReader& r, uint64_t i, size_t table_size) {
  r.fail("string index " + std::to_string(i) + " outside the chunk's table of " + std::to_string(table_size));
}

void read_local_strings(ByteReader& r, StringTable& table, std::vector<StringId>& out) {
  const uint64_t n = r.count(1, "string");
  out.resize(n + 1);
  out[0] = kEmptyString;
  for (uint64_t i = 1; i <= n; ++i) out[i] = table.intern(r.str());
}

namespace {

void write_sm_model(ByteWriter& w, const SmTransferModel& m) {
  w.f64(m.per_sm_bytes_per_s);
  w.f64(m.cap_bytes_per_s);
  w.f64(m.setup_ns);
}
SmTransferModel read_sm_model(ByteReader& r) {
  SmTransferModel m;
  m.per_sm_bytes_per_s = r.f64();
  m.cap_bytes_per_s = r.f64();
  m.setup_ns = r.f64();
  return m;
}

}  // namespace

void write_topology(ByteWriter& w, const Topology& t) {
  w.str(t.name);
  w.str(t.description);
  w.u8(static_cast<uint8_t>(t.calibration));
  w.str(t.calibration_source);
  w.varint(t.nodes.size());
  for (const TopoNode& n : t.nodes) {
    w.str(n.name);
    w.u8(static_cast<uint8_t>(n.kind));
    w.svarint(n.host);
    w.svarint(n.gpu_index);
    w.f64(n.nic_bytes_per_s);
    w.u8(static_cast<uint8_t>((n.gpu ? 1 : 0) | (n.sw ? 2 : 0)));
    if (n.gpu) {
      const GpuSpec& g = *n.gpu;
      w.str(g.model);
      w.varint(g.sm_count);
      w.f64(g.hbm_bytes_per_s);
      w.f64(g.bf16_flops);
      w.f64(g.fp32_flops);
      w.varint(g.memory_bytes);
      w.varint(g.copy_engine.count);
      w.f64(g.copy_engine.setup_ns);
      w.f64(g.copy_engine.rate_bytes_per_s);
      write_sm_model(w, g.tma);
      write_sm_model(w, g.ldst);
      write_sm_model(w, g.multimem);
      w.f64(g.comm_interference);
    }
    if (n.sw) {
      w.u8(static_cast<uint8_t>((n.sw->multicast ? 1 : 0) | (n.sw->in_switch_reduction ? 2 : 0)));
      w.f64(n.sw->crossbar_bytes_per_s);
    }
  }
  w.varint(t.links.size());
  for (const TopoLink& l : t.links) {
    w.varint(l.a);
    w.varint(l.b);
    w.u8(static_cast<uint8_t>(l.medium));
    w.varint(l.lanes);
    w.f64(l.bandwidth_bytes_per_s);
    w.f64(l.latency_ns);
    w.str(l.name);
  }
}

Topology read_topology(ByteReader& r) {
  Topology t;
  t.name = std::string(r.str());
  t.description = std::string(r.str());
  t.calibration = read_enum<Calibration>(r, 2, "calibration");
  t.calibration_source = std::string(r.str());
  const uint64_t nodes = r.count(13, "topology node");
  t.nodes.reserve(nodes);
  for (uint64_t i = 0; i < nodes; ++i) {
    TopoNode n;
    n.name = std::string(r.str());
    n.kind = read_enum<NodeKind>(r, 6, "node kind");
    n.host = static_cast<int32_t>(r.svarint());
    n.gpu_index = static_cast<int32_t>(r.svarint());
    n.nic_bytes_per_s = r.f64();
    const uint8_t has = r.u8();
    if (has & 1) {
      GpuSpec g;
      g.model = std::string(r.str());
      g.sm_count = static_cast<uint32_t>(r.varint());
      g.hbm_bytes_per_s = r.f64();
      g.bf16_flops = r.f64();
      g.fp32_flops = r.f64();
      g.memory_bytes = r.varint();
      g.copy_engine.count = static_cast<uint32_t>(r.varint());
      g.copy_engine.setup_ns = r.f64();
      g.copy_engine.rate_bytes_per_s = r.f64();
      g.tma = read_sm_model(r);
      g.ldst = read_sm_model(r);
      g.multimem = read_sm_model(r);
      g.comm_interference = r.f64();
      n.gpu = std::move(g);
    }
    if (has & 2) {
      SwitchSpec s;
      const uint8_t f = r.u8();
      s.multicast = f & 1;
      s.in_switch_reduction = f & 2;
      s.crossbar_bytes_per_s = r.f64();
      n.sw = s;
    }
    t.nodes.push_back(std::move(n));
  }
  const uint64_t links = r.count(21, "topology link");
  t.links.reserve(links);
  for (uint64_t i = 0; i < links; ++i) {
    TopoLink l;
    l.a = static_cast<uint32_t>(r.varint());
    l.b = static_cast<uint32_t>(r.varint());
    l.medium = read_enum<Medium>(r, 6, "medium");
    l.lanes = static_cast<uint32_t>(r.varint());
    l.bandwidth_bytes_per_s = r.f64();
    l.latency_ns = r.f64();
    l.name = std::string(r.str());
    if (l.a >= t.nodes.size() || l.b >= t.nodes.size()) r.fail("topology link names a node that does not exist");
    t.links.push_back(std::move(l));
  }
  return t;
}

}  // namespace parascope::pstrace
