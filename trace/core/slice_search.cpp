#include "trace/core/slice_search.h"

#include <algorithm>
#include <cctype>
#include <regex>
#include <tuple>

namespace parascope {

namespace {

std::string lower(std::string_view s) {
  std::string o(s);
  for (char& c : o) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return o;
}

using Key = std::tuple<TimeNs, uint32_t, uint32_t>;

}  // namespace

SliceSearch::SliceSearch(const Trace& trace, std::string_view pattern, MatchMode mode) : trace_(trace) {
  const size_t n = trace.strings.size();
  match_.assign(n, 0);
  if (pattern.empty()) return;
  if (mode == MatchMode::kRegex) {
    try {
      const std::regex re(std::string(pattern), std::regex::ECMAScript | std::regex::icase | std::regex::optimize);
      for (StringId i = 1; i < n; ++i) {
        const std::string_view s = trace.strings.view(i);
        match_[i] = std::regex_search(s.begin(), s.end(), re);
      }
    } catch (const std::regex_error& e) {
      error_ = "invalid regular expression: " + std::string(e.what());
      return;
    }
  } else if (mode == MatchMode::kExact) {
    const StringId id = trace.strings.find(pattern);
    if (id < n && id != kEmptyString) match_[id] = 1;
  } else {
    const std::string p = lower(pattern);
    for (StringId i = 1; i < n; ++i) match_[i] = lower(trace.strings.view(i)).find(p) != std::string::npos;
  }
  for (uint32_t t = 0; t < trace.tracks.size(); ++t) {
    int64_t c = 0;
    for (StringId id : trace.tracks[t].slices.name) c += match_[id];
    if (c) tracks_.push_back(t);
    count_ += c;
  }
}

EventRef SliceSearch::next(EventRef from) const {
  const bool any = from.valid() && from.track < trace_.tracks.size() && from.index < trace_.tracks[from.track].slices.size();
  const Key key = any ? Key{trace_.tracks[from.track].slices.start[from.index], from.track, from.index}
                      : Key{INT64_MIN, 0, 0};
  EventRef best;
  Key best_key{INT64_MAX, UINT32_MAX, UINT32_MAX};
  for (uint32_t t : tracks_) {
    const auto& s = trace_.tracks[t].slices;
    auto i = static_cast<uint32_t>(std::lower_bound(s.start.begin(), s.start.end(), std::get<0>(key)) - s.start.begin());
    for (; i < s.size(); ++i) {
      const Key k{s.start[i], t, i};
      if (k >= best_key) break;
      if (any && k <= key) continue;
      if (!match_[s.name[i]]) continue;
      best = {t, i};
      best_key = k;
      break;
    }
  }
  return best;
}

EventRef SliceSearch::previous(EventRef from) const {
  const bool any = from.valid() && from.track < trace_.tracks.size() && from.index < trace_.tracks[from.track].slices.size();
  const Key key = any ? Key{trace_.tracks[from.track].slices.start[from.index], from.track, from.index}
                      : Key{INT64_MAX, UINT32_MAX, UINT32_MAX};
  EventRef best;
  Key best_key{INT64_MIN, 0, 0};
  bool found = false;
  for (uint32_t t : tracks_) {
    const auto& s = trace_.tracks[t].slices;
    auto end = static_cast<uint32_t>(std::upper_bound(s.start.begin(), s.start.end(), std::get<0>(key)) - s.start.begin());
    for (uint32_t i = end; i-- > 0;) {
      const Key k{s.start[i], t, i};
      if (found && k <= best_key) break;
      if (any && k >= key) continue;
      if (!match_[s.name[i]]) continue;
      best = {t, i};
      best_key = k;
      found = true;
      break;
    }
  }
  return best;
}

int64_t SliceSearch::position(EventRef r) const {
  if (!r.valid() || r.track >= trace_.tracks.size() || r.index >= trace_.tracks[r.track].slices.size()) return 0;
  if (!match_[trace_.tracks[r.track].slices.name[r.index]]) return 0;
  const Key key{trace_.tracks[r.track].slices.start[r.index], r.track, r.index};
  int64_t before = 0;
  for (uint32_t t : tracks_) {
    const auto& s = trace_.tracks[t].slices;
    for (uint32_t i = 0; i < s.size() && s.start[i] <= std::get<0>(key); ++i)
      if (match_[s.name[i]] && Key{s.start[i], t, i} < key) ++before;
  }
  return before + 1;
}

EventRef SliceSearch::first_at_or_after(TimeNs t) const {
  // the match after a virtual position just before t
  EventRef best;
  Key best_key{INT64_MAX, UINT32_MAX, UINT32_MAX};
  for (uint32_t tr : tracks_) {
    const auto& s = trace_.tracks[tr].slices;
    for (auto i = static_cast<uint32_t>(std::lower_bound(s.start.begin(), s.start.end(), t) - s.start.begin()); i < s.size(); ++i) {
      const Key k{s.start[i], tr, i};
      if (k >= best_key) break;
      if (!match_[s.name[i]]) continue;
      best = {tr, i};
      best_key = k;
      break;
    }
  }
  return best;
}

}  // namespace parascope
