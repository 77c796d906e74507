#include "trace/collector/chunk_payloads.h"

#include <unordered_map>

namespace parascope::collector {

std::vector<uint8_t> encode_metadata(const Metadata& kv) {
  // local string table: every distinct non-empty string once, referenced by index (0 = "")
  std::vector<std::string> strings;
  std::unordered_map<std::string, uint64_t> index;
  auto intern = [&](const std::string& s) -> uint64_t {
    if (s.empty()) return 0;
    auto [it, inserted] = index.emplace(s, strings.size() + 1);
    if (inserted) strings.push_back(s);
    return it->second;
  };
  std::vector<std::pair<uint64_t, uint64_t>> refs;
  for (const auto& [k, v] : kv) refs.emplace_back(intern(k), intern(v));
  ByteWriter w;
  w.varint(strings.size());
  for (const auto& s : strings) w.str(s);
  w.varint(refs.size());
  for (auto [k, v] : refs) w.varint(k), w.varint(v);
  return std::move(w.bytes());
}

Metadata decode_metadata(ByteReader& r) {
  const uint64_t n = r.count(1, "metadata string");
  std::vector<std::string> strings(1);
  strings.reserve(n + 1);
  for (uint64_t i = 0; i < n; ++i) strings.emplace_back(r.str());
  const uint64_t m = r.count(2, "metadata entry");
  Metadata kv;
  kv.reserve(m);
  for (uint64_t i = 0; i < m; ++i) {
    const uint64_t k = r.varint(), v = r.varint();
    if (k >= strings.size() || v >= strings.size()) r.fail("metadata string index out of range");
    kv.emplace_back(strings[k], strings[v]);
  }
  return kv;
}

std::string metadata_value(const Metadata& kv, const std::string& key) {
  std::string v;
  for (const auto& [k, val] : kv)
    if (k == key) v = val;
  return v;
}

std::vector<uint8_t> encode_lines(const std::vector<std::string>& lines) {
  ByteWriter w;
  for (const auto& s : lines) w.str(s);
  return std::move(w.bytes());
}

std::vector<std::string> decode_lines(ByteReader& r) {
  std::vector<std::string> out;
  while (!r.done()) out.emplace_back(r.str());
  return out;
}

}  // namespace parascope::collector
