#include "models/name_elide.h"

#include <cctype>

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

}  // namespace

std::vector<std::string> name_forms(std::string_view name) {
  std::vector<std::string> forms{std::string(name)};
  auto add = [&](std::string f) {
    if (!f.empty() && f != forms.back()) forms.push_back(std::move(f));
  };
  const size_t open = args_open(name);
  const std::string_view before = open == std::string_view::npos ? std::string_view() : name.substr(0, open);
  // a function's argument list follows its name or its template arguments (not "Memcpy HtoD (…)")
  const bool signature = open != std::string_view::npos && open > 0 &&
                         (ident_char(name[open - 1]) || name[open - 1] == '>' ||
                          (before.size() >= 10 && before.substr(before.size() - 10) == "operator()"));
  if (!signature && name.substr(0, 5) != "void ") return forms;
  const std::string_view head = signature ? before : name;
  const std::string_view args = signature ? name.substr(open) : std::string_view();
  const std::string_view function = without_return_type(head);
  add(std::string(function) + std::string(args));
  const std::string short_args = args.empty() ? "" : args == "()" ? "()" : "(" + std::string(kEllipsis) + ")";
  add(std::string(function) + short_args);
  const std::string unqualified = strip_namespaces(function);
  add(unqualified + short_args);
  add(replace_template_args(unqualified) + short_args);
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
  out.append(kEllipsis);
  return out;
}

std::string elide_name(std::string_view name, double max_width, const TextWidth& width) {
  if (width(name) <= max_width) return std::string(name);  // the common case: one measurement
  const std::vector<std::string> forms = name_forms(name);
  for (size_t i = 1; i < forms.size(); ++i)
    if (width(forms[i]) <= max_width) return forms[i];
  return elide_right(forms.back(), max_width, width);
}

double char_count(std::string_view utf8) {
  double n = 0;
  for (char c : utf8) n += utf8_start(c) ? 1 : 0;
  return n;
}

}  // namespace parascope::models
