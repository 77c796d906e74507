#include "trace/core/analysis/nvtx_op_name.h"

#include <array>

namespace parascope {

namespace {

enum class Field : uint8_t { kSeq, kStashedSeq, kOpId, kSizes, kInputOpIds };

struct Marker {
  std::string_view text;
  Field field;
};

// Longest first where one marker starts another (", seq = " before ", seq=").
constexpr std::array<Marker, 7> kMarkers = {{{", stashed seq = ", Field::kStashedSeq},
                                             {", stashed seq=", Field::kStashedSeq},
                                             {", seq = ", Field::kSeq},
                                             {", seq=", Field::kSeq},
                                             {", op_id = ", Field::kOpId},
                                             {", sizes = ", Field::kSizes},
                                             {", input_op_ids = ", Field::kInputOpIds}}};

const Marker* marker_at(std::string_view s, size_t at) {
  for (const Marker& m : kMarkers)
    if (s.substr(at, m.text.size()) == m.text) return &m;
  return nullptr;
}

// The first field marker at or after `from` (npos: none); the op name never holds one.
size_t next_marker(std::string_view s, size_t from, const Marker** which) {
  for (size_t at = s.find(", ", from); at != std::string_view::npos; at = s.find(", ", at + 1))
    if ((*which = marker_at(s, at))) return at;
  return std::string_view::npos;
}

// A cursor over the name; every reader returns false when the text does not fit, sets `cut` when
// the name ended first.
struct Reader {
  std::string_view s;
  size_t at = 0;
  bool cut = false;

  bool end() const { return at >= s.size(); }
  bool eat(char c) {
    if (end()) return !(cut = true);
    if (s[at] != c) return false;
    ++at;
    return true;
  }
  bool eat_separator() {  // ", " or "," (PyTorch writes "(5,0)"; some tools "(5, 0)")
    if (!eat(',')) return false;
    if (!end() && s[at] == ' ') ++at;
    return true;
  }
  // A number ending the name is taken whole: a cut inside one cannot be told from its end.
  bool integer(int64_t& v) {
    if (end()) return !(cut = true);
    const bool neg = s[at] == '-';
    if (neg) ++at;
    const size_t first = at;
    uint64_t x = 0;
    while (!end() && s[at] >= '0' && s[at] <= '9') {
      if (x > (UINT64_MAX - 9) / 10) return false;  // not a number PyTorch could print
      x = x * 10 + static_cast<uint64_t>(s[at++] - '0');
    }
    if (at == first) {
      if (end()) cut = true;
      return false;
    }
    if (x > static_cast<uint64_t>(INT64_MAX)) return false;
    v = neg ? -static_cast<int64_t>(x) : static_cast<int64_t>(x);
    return true;
  }
  // [[1, 2], [], [3]]
  bool sizes(std::vector<std::vector<int64_t>>& out) {
    if (!eat('[')) return false;
    if (!end() && s[at] == ']') return ++at, true;
    for (;;) {
      std::vector<int64_t> dims;
      if (!eat('[')) return false;
      if (!end() && s[at] == ']') {
        ++at;
      } else {
        for (;;) {
          int64_t d = 0;
          if (!integer(d)) return false;
          dims.push_back(d);
          if (!end() && s[at] == ']') {
            ++at;
            break;
          }
          if (!eat_separator()) return false;
        }
      }
      out.push_back(std::move(dims));
      if (end()) return !(cut = true);
      if (s[at] == ']') return ++at, true;
      if (!eat_separator()) return false;
    }
  }
  // [(5,0), (0,-1)]
  bool op_ids(std::vector<std::pair<uint64_t, int32_t>>& out) {
    if (!eat('[')) return false;
    if (!end() && s[at] == ']') return ++at, true;
    for (;;) {
      int64_t id = 0, nr = 0;
      if (!eat('(') || !integer(id) || !eat_separator() || !integer(nr) || !eat(')')) return false;
      if (id < 0 || nr < INT32_MIN || nr > INT32_MAX) return false;
      out.emplace_back(static_cast<uint64_t>(id), static_cast<int32_t>(nr));
      if (end()) return !(cut = true);
      if (s[at] == ']') return ++at, true;
      if (!eat_separator()) return false;
    }
  }
};

}  // namespace

std::optional<NvtxOpName> parse_nvtx_op_name(std::string_view name) {
  const Marker* m = nullptr;
  const size_t at = next_marker(name, 0, &m);  // 0: the legacy form without a name
  if (at == std::string_view::npos) return std::nullopt;
  NvtxOpName out;
  out.op = name.substr(0, at);
  Reader r{name, at};
  while (m && !r.end()) {
    r.at += m->text.size();
    bool ok = false;
    switch (m->field) {
      case Field::kSeq:
      case Field::kStashedSeq: {
        int64_t v = -1;
        if ((ok = r.integer(v))) out.seq = v, out.stashed_seq = m->field == Field::kStashedSeq;
        break;
      }
      case Field::kOpId: {
        int64_t v = 0;
        if ((ok = r.integer(v)) && v > 0) out.op_id = static_cast<uint64_t>(v);
        break;
      }
      case Field::kSizes: {
        std::vector<std::vector<int64_t>> sizes;
        if ((ok = r.sizes(sizes))) out.sizes = std::move(sizes), out.has_sizes = true;
        break;
      }
      case Field::kInputOpIds: {
        std::vector<std::pair<uint64_t, int32_t>> ids;
        if ((ok = r.op_ids(ids))) out.input_op_ids = std::move(ids);
        break;
      }
    }
    if (r.cut) {
      out.cut = true;
      break;
    }
    if (!ok) {  // a field we cannot read: skip to the next one we know
      const size_t next = next_marker(name, r.at, &m);
      if (next == std::string_view::npos) break;
      r.at = next;
      continue;
    }
    if (r.end()) break;
    m = marker_at(name, r.at);
    if (!m) {  // a field a newer PyTorch may add: skip it
      const size_t next = next_marker(name, r.at, &m);
      if (next == std::string_view::npos) break;
      r.at = next;
    }
  }
  return out;
}

}  // namespace parascope
