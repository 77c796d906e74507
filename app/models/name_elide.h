// Names shortened to fit a width without making different kernels look alike. A demangled kernel
// name ("void ns::kernel<float, 4>(Args<4096ul>)") first loses its return type, then its argument
// list ("(…)"), then its namespace qualifiers, then its template arguments ("<…>"); only what is
// left is cut at the right with "…", so the distinguishing head, the function's own name, stays.
// Any other name (an API call, a memcpy, an NVTX range) is only cut at the right. Qt-free: the
// caller says how wide text is (pixels of a font, or characters); the GUI's tables, the timeline's
// labels and the report's tables all shorten names here.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace parascope::models {

// The width of a piece of UTF-8 text, in the caller's units.
using TextWidth = std::function<double(std::string_view)>;

// The forms a name may be shown in, longest first: the name itself, and for a demangled function
// signature (or a name starting with "void ") without the return type, with "(…)" for the
// arguments, without namespace qualifiers, with "<…>" for the template arguments. Forms that would
// repeat the one before are left out.
std::vector<std::string> name_forms(std::string_view name);

// `name` as it fits in `max_width`: the first of name_forms() that fits, else the last one cut at
// the right. Empty when not even "…" fits.
std::string elide_name(std::string_view name, double max_width, const TextWidth& width);

// The longest start of `text` (whole UTF-8 characters) that fits with "…" after it; `text` itself
// when it fits; empty when not even "…" fits.
std::string elide_right(std::string_view text, double max_width, const TextWidth& width);

// A TextWidth counting characters (UTF-8 code points): widths for fixed-width text.
double char_count(std::string_view utf8);

}  // namespace parascope::models
