#include "models/name_elide.h"

#include <algorithm>
#include <cctype>
#include <map>

namespace parascope::models {

namespace {

constexpr std::string_view kEllipsis = "\u2026";
constexpr std::string_view kAnonymous = "(anonymous namespace)::";

bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$'; }

// The '(' that opens the argument list ending the name, or npos.
size_t args_open(std::string_view s) {
  if (s.empty() || s.back() != ')') return std::string_view::npos;
  int depth = 0;
  for (size_t i = s.size(); i-- > 0;) {
    if (s[i] == ')') ++depth;
    else if (s[i] == '(' && --depth == 0) return i;
  }
  return std::string_view::npos;
}

// "void ns::f<int>" -> "ns::f<int>": after the last space outside brackets (a return type, if any).
std::string_view without_return_type(std::string_view head) {
  int depth = 0;
  size_t cut = 0;
  for (size_t i = 0; i < head.size(); ++i) {
    const char c = head[i];
    if (c == '<' || c == '(' || c == '{' || c == '[') ++depth;
    else if ((c == '>' && (i == 0 || head[i - 1] != '-')) || c == ')' || c == '}' || c == ']') --depth;
    else if (c == ' ' && depth == 0) cut = i + 1;
  }
  return cut < head.size() ? head.substr(cut) : head;
}

// "at::native::(anonymous namespace)::f<at::Half>" -> "f<Half>"
std::string strip_namespaces(std::string_view s) {
  std::string out;
  size_t i = 0;
  while (i < s.size()) {
    if (s.substr(i, kAnonymous.size()) == kAnonymous) {
      i += kAnonymous.size();
      continue;
    }
    if (ident_char(s[i])) {
      size_t j = i;
      while (j < s.size() && ident_char(s[j])) ++j;
      if (s.substr(j, 2) == "::" && j + 2 < s.size()) {
        i = j + 2;  // a qualifier: dropped
        continue;
      }
      out.append(s.substr(i, j - i));
      i = j;
      continue;
    }
    out.push_back(s[i++]);
  }
  return out;
}

// "f<float, Args<4> >" -> "f<…>"; unbalanced brackets (an operator<) leave the name as it is.
std::string replace_template_args(std::string_view s) {
  std::string out;
  int depth = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '<') {
      if (depth++ == 0) {
        out.push_back('<');
        out.append(kEllipsis);
      }
    } else if (c == '>' && depth > 0 && s[i - 1] != '-') {
      if (--depth == 0) out.push_back('>');
    } else if (depth == 0) {
      out.push_back(c);
    }
  }
  return depth == 0 ? out : std::string(s);
}

bool utf8_start(char c) { return (static_cast<unsigned char>(c) & 0xc0) != 0x80; }

// The five forms of name_forms() by level, repeats kept (level 0: the name; 4: the shortest), so
// names of one column can be compared at the same level. A name that is no signature has one form.
std::vector<std::string> name_levels(std::string_view name) {
  const size_t open = args_open(name);
  const std::string_view before = open == std::string_view::npos ? std::string_view() : name.substr(0, open);
  // a function's argument list follows its name or its template arguments (not "Memcpy HtoD (…)")
  const bool signature = open != std::string_view::npos && open > 0 &&
                         (ident_char(name[open - 1]) || name[open - 1] == '>' ||
                          (before.size() >= 10 && before.substr(before.size() - 10) == "operator()"));
  if (!signature && name.substr(0, 5) != "void ") return std::vector<std::string>(5, std::string(name));
  const std::string_view head = signature ? before : name;
  const std::string_view args = signature ? name.substr(open) : std::string_view();
  const std::string_view function = without_return_type(head);
  const std::string short_args = args.empty() ? "" : args == "()" ? "()" : "(" + std::string(kEllipsis) + ")";
  const std::string unqualified = strip_namespaces(function);
  return {std::string(name), std::string(function) + std::string(args), std::string(function) + short_args,
          unqualified + short_args, replace_template_args(unqualified) + short_args};
}

size_t common_prefix(std::string_view a, std::string_view b) {
  size_t n = 0;
  while (n < a.size() && n < b.size() && a[n] == b[n]) ++n;
  return n;
}

}  // namespace

std::vector<std::string> name_forms(std::string_view name) {
  std::vector<std::string> forms;
  for (std::string& f : name_levels(name))
    if (forms.empty() || (!f.empty() && f != forms.back())) forms.push_back(std::move(f));
  return forms;
}

std::string elide_right(std::string_view text, double max_width, const TextWidth& width) {
  if (width(text) <= max_width) return std::string(text);
  if (width(kEllipsis) > max_width) return {};
  // the longest fitting start, by bisection over character boundaries
  std::vector<size_t> ends;  // byte offsets where a character ends
  for (size_t i = 1; i <= text.size(); ++i)
    if (i == text.size() || utf8_start(text[i])) ends.push_back(i);
  size_t lo = 0, hi = ends.size();  // starts of lo characters fit (0 always does), of hi do not
  std::string probe;
  while (hi - lo > 1) {
    const size_t mid = (lo + hi) / 2;
    probe.assign(text.substr(0, ends[mid - 1]));
    probe.append(kEllipsis);
    (width(probe) <= max_width ? lo : hi) = mid;
  }
  std::string out(text.substr(0, lo ? ends[lo - 1] : 0));
  // a cut right after an elided part ("f<…") says so already: "f<…", not "f<……"
  if (out.size() < kEllipsis.size() || out.compare(out.size() - kEllipsis.size(), kEllipsis.size(), kEllipsis) != 0) out.append(kEllipsis);
  return out;
}

std::string elide_name(std::string_view name, double max_width, const TextWidth& width) {
  if (width(name) <= max_width) return std::string(name);  // the common case: one measurement
  const std::vector<std::string> forms = name_forms(name);
  for (size_t i = 1; i < forms.size(); ++i)
    if (width(forms[i]) <= max_width) return forms[i];
  return elide_right(forms.back(), max_width, width);
}

std::vector<std::string> elide_names(const std::vector<std::string_view>& names, double max_width, const TextWidth& width) {
  std::vector<std::string> shown;
  shown.reserve(names.size());
  for (std::string_view n : names) shown.push_back(elide_name(n, max_width, width));
  // rows that read alike, by their shown text; a name repeated in several rows is one name
  std::map<std::string_view, std::vector<std::string_view>> alike;
  for (size_t i = 0; i < names.size(); ++i) alike[shown[i]].push_back(names[i]);
  std::map<std::string_view, std::string> better;  // name -> its distinguishable text
  for (auto& [text, group] : alike) {
    std::sort(group.begin(), group.end());
    group.erase(std::unique(group.begin(), group.end()), group.end());
    if (group.size() < 2) continue;
    // the shortest level of name_forms() at which the names still differ (level 0, the names, always does)
    std::vector<std::vector<std::string>> levels;
    for (std::string_view n : group) levels.push_back(name_levels(n));
    int level = 4;
    for (; level > 0; --level) {
      std::vector<std::string_view> at;
      for (const auto& l : levels) at.push_back(l[static_cast<size_t>(level)]);
      std::sort(at.begin(), at.end());
      if (std::adjacent_find(at.begin(), at.end()) == at.end()) break;
    }
    // sorted, the nearest text to each is a neighbour; the group parts where the first and last do
    std::vector<std::pair<std::string_view, std::string_view>> texts;  // (form at that level, name)
    for (size_t k = 0; k < group.size(); ++k) texts.emplace_back(levels[k][static_cast<size_t>(level)], group[k]);
    std::sort(texts.begin(), texts.end());
    size_t from = common_prefix(texts.front().first, texts.back().first);
    const std::string_view first = texts.front().first;
    while (from > 0 && from < first.size() && !utf8_start(first[from])) --from;
    while (from > 0 && std::isalnum(static_cast<unsigned char>(first[from - 1]))) --from;  // the word it parts in
    bool bracket = false;  // it parts right inside a template or argument list
    while (from > 0 && (first[from - 1] == '<' || first[from - 1] == '(' || first[from - 1] == ',' || first[from - 1] == ' ')) {
      bracket = bracket || first[from - 1] == '<' || first[from - 1] == '(';
      --from;
    }
    // "FillFunctor<int>" rather than "<int>": a short name before that bracket, unless the text starts there
    size_t word = from;
    while (bracket && word > 0 && ident_char(first[word - 1])) --word;
    if (word > 0 && from - word <= 24) from = word;
    // each text must show at least up to `to` (past the word where it parts from its nearest)
    std::vector<size_t> to(texts.size()), near(texts.size());
    std::vector<std::string> tail(texts.size());
    // the head gets at most half the width, and as little as a quarter where the differences need the room
    double head_width = max_width / 2;
    for (size_t k = 0; k < texts.size(); ++k) {
      const std::string_view t = texts[k].first;
      size_t nearest = 0;
      if (k > 0) nearest = std::max(nearest, common_prefix(texts[k - 1].first, t));
      if (k + 1 < texts.size()) nearest = std::max(nearest, common_prefix(t, texts[k + 1].first));
      to[k] = std::min(nearest + 1, t.size());
      while (to[k] < t.size() && (!utf8_start(t[to[k]]) || ident_char(t[to[k]]))) ++to[k];  // the whole word it differs in
      tail[k] = to[k] < t.size() ? std::string(kEllipsis) : std::string();
      // where it parts from its nearest, back to the start of that part ("lambda()#6}", "direct_copy_kernel_cuda(")
      near[k] = std::max(from, std::min(nearest, t.size()));
      while (near[k] > from && (!utf8_start(t[near[k]]) || std::string_view("{<(, :").find(t[near[k] - 1]) == std::string_view::npos))
        --near[k];
      const double left = max_width - width(std::string(t.substr(from, to[k] - from)) + tail[k]);
      head_width = std::min(head_width, std::max(left, max_width / 4));
    }
    const std::string head = elide_right(first.substr(0, from), head_width, width);  // one head for the group
    const bool cut = head.size() < from;  // the head ends in "…"
    for (size_t k = 0; k < texts.size(); ++k) {
      const std::string_view t = texts[k].first;
      std::string out;
      if (width(std::string(t.substr(0, to[k])) + tail[k]) <= max_width) {
        out = elide_right(t, max_width, width);  // its own start reaches the difference
      } else if (cut && width(head + std::string(t.substr(from, to[k] - from)) + tail[k]) <= max_width) {
        out = head + elide_right(t.substr(from), max_width - width(head), width);  // from where the group parts
      } else {
        const std::string skip = cut ? head : head + std::string(kEllipsis);
        if (width(skip + std::string(t.substr(near[k], to[k] - near[k])) + tail[k]) <= max_width)
          out = skip + elide_right(t.substr(near[k]), max_width - width(skip), width);  // from where it parts from its nearest
      }
      if (!out.empty()) better[texts[k].second] = std::move(out);
    }
    // names whose texts came out alike (each was cut where it parts from a neighbour that is not the
    // other: "…sum_functor<float…" twice) are cut again against each other only
    std::map<std::string, std::vector<size_t>> same;
    for (size_t k = 0; k < texts.size(); ++k)
      if (const auto it = better.find(texts[k].second); it != better.end()) same[it->second].push_back(k);
    for (const auto& [text, ks] : same) {
      if (ks.size() < 2) continue;
      for (size_t k : ks) {
        const std::string_view t = texts[k].first;
        size_t nearest = 0;
        for (size_t j : ks)
          if (j != k) nearest = std::max(nearest, common_prefix(t, texts[j].first));
        size_t end = std::min(nearest + 1, t.size());
        while (end < t.size() && (!utf8_start(t[end]) || ident_char(t[end]))) ++end;
        const std::string more = end < t.size() ? std::string(kEllipsis) : std::string();
        size_t start = std::min(nearest, t.size());
        while (start > 0 && (!utf8_start(t[start]) || std::string_view("{<(, :").find(t[start - 1]) == std::string_view::npos)) --start;
        std::string out;
        if (width(std::string(t.substr(0, end)) + more) <= max_width)
          out = elide_right(t, max_width, width);
        else if (width(std::string(kEllipsis) + std::string(t.substr(start, end - start)) + more) <= max_width)
          out = std::string(kEllipsis) + elide_right(t.substr(start), max_width - width(std::string(kEllipsis)), width);
        if (!out.empty()) better[texts[k].second] = std::move(out);
      }
    }
    // a difference that could not be shown, or texts that still read alike: as they were
    std::map<std::string, int> uses;  // own copies: erasing from `better` below frees its texts
    for (std::string_view n : group)
      if (const auto it = better.find(n); it != better.end()) ++uses[it->second];
    for (std::string_view n : group)
      if (const auto it = better.find(n); it != better.end() && uses[it->second] > 1) better.erase(it);
  }
  if (!better.empty())
    for (size_t i = 0; i < names.size(); ++i)
      if (const auto it = better.find(names[i]); it != better.end()) shown[i] = it->second;
  return shown;
}

double char_count(std::string_view utf8) {
  double n = 0;
  for (char c : utf8) n += utf8_start(c) ? 1 : 0;
  return n;
}

}  // namespace parascope::models
