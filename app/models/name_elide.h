// Names shortened to fit a width without making different kernels look alike. A demangled kernel
// name ("void ns::kernel<float, 4>(Args<4096ul>)") first loses its return type, then its argument
// list ("(…)"), then its namespace qualifiers, then its template arguments ("<…>"); only what is
// left is cut at the right with "…", so the distinguishing head, the function's own name, stays;
// names of one column that would still read alike keep where they differ (elide_names). Any other name (an API call, a memcpy, an NVTX range) is only cut at the right. Qt-free: the
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

// Names shown together (the rows of one table column), each as elide_name() shows it in
// `max_width`, except where different names would read the same: those are compared at the
// shortest level of name_forms() at which they differ, and keep the part where they differ — their
// own start when it reaches that far, else a head cut short, "…", and the text from where the
// group's names part (or, when that is too long, from where each parts from its nearest) past the
// word that tells it apart. So three HTA kernels that each read "split_embedding_backward_codegen_
// rowwise_adagra…" read "split_embeddin…unweighted_kernel_cta_per_row_1<…", "…warp_per_row_1…", and
// "vectorized_elementwise_kernel<…>(…)" ×4 reads "vectorized_elementwise_…<4, FillFunctor<int>, A…".
// A name repeated in several rows reads the same in each. Best effort: where a difference does not
// fit in `max_width`, or texts would still read alike, the names are shown as elide_name() shows them.
std::vector<std::string> elide_names(const std::vector<std::string_view>& names, double max_width, const TextWidth& width);

// The longest start of `text` (whole UTF-8 characters) that fits with "…" after it; `text` itself
// when it fits; empty when not even "…" fits.
std::string elide_right(std::string_view text, double max_width, const TextWidth& width);

// A TextWidth counting characters (UTF-8 code points): widths for fixed-width text.
double char_count(std::string_view utf8);

}  // namespace parascope::models
