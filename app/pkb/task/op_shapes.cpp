#include "pkb/task/op_shapes.h"

#include "trace/core/analysis/nvtx_op_name.h"
#include "trace/core/analysis/roofline.h"
#include "trace/core/json.h"

#include <algorithm>
#include <vector>

namespace parascope::pkb {

std::optional<OpShape> parse_nvtx_op(std::string_view name) {
  const auto n = parse_nvtx_op_name(name);
  if (!n || !n->has_sizes || n->op.empty()) return std::nullopt;
  OpShape s;
  s.op = std::string(n->op);
  // as PyTorch writes them, a JSON array for op_shape_work
  s.sizes.push_back('[');
  for (size_t i = 0; i < n->sizes.size(); ++i) {
    if (i) s.sizes.append(", ");
    s.sizes.push_back('[');
    for (size_t d = 0; d < n->sizes[i].size(); ++d) {
      if (d) s.sizes.append(", ");
      s.sizes.append(std::to_string(n->sizes[i][d]));
    }
    s.sizes.push_back(']');
  }
  s.sizes.push_back(']');
  return s;
}

double dtype_bytes(const std::string& d) {
  if (d == "bfloat16" || d == "float16" || d == "half") return 2;
  if (d == "float32" || d == "float") return 4;
  if (d == "float64" || d == "double") return 8;
  return 0;
}

namespace {
std::string torch_type_name(const std::string& d) {
  if (d == "bfloat16") return "c10::BFloat16";
  if (d == "float16" || d == "half") return "c10::Half";
  if (d == "float32" || d == "float") return "float";
  if (d == "float64" || d == "double") return "double";
  return {};
}

double numel(const JsonValue& d) {
  double e = 1;
  for (const JsonValue& x : d.items()) e *= x.is_number() ? x.as_double() : 0;
  return e;
}

// Gathers read the rows they pick, not the table they pick from (68_gnn_sparse_feature_fetch_projection's
// aten::index on a [55500000, 256] table with 20000 indices reads 10 MB, not 28 GB: counted as read once,
// its "bound" was 4.6x PKB's measured time). Bytes: the picked elements read and written, plus int64
// indices; nullopt for ops that are not gathers.
std::optional<double> gather_bytes(const std::string& op, const JsonValue::Array& in, double es) {
  std::vector<const JsonValue*> t;  // the tensor inputs, in order (scalars, dims and Nones left out)
  for (const JsonValue& d : in)
    if (d.is_array() && !d.items().empty()) t.push_back(&d);
  if (t.size() < 2) return std::nullopt;
  const JsonValue& table = *t[0];
  const double table_elems = numel(table);
  auto rows_of = [&](size_t first_dim) {  // elements in one entry of table[first_dim:]
    double e = 1;
    for (size_t i = first_dim; i < table.items().size(); ++i) e *= table.items()[i].as_double();
    return e;
  };
  double picked = 0, index_elems = 0;
  if (op == "aten::index" || op == "aten::index.Tensor") {  // table[i0, i1, ...]: k index tensors, broadcast
    for (size_t i = 1; i < t.size(); ++i) index_elems = std::max(index_elems, numel(*t[i]));
    picked = index_elems * rows_of(std::min(t.size() - 1, table.items().size()));
  } else if (op == "aten::embedding" || op == "aten::index_select") {  // whole rows (index_select: dim 0 assumed)
    index_elems = numel(*t.back());
    picked = index_elems * rows_of(1);
  } else if (op == "aten::gather" || op == "aten::take") {  // one element per index
    index_elems = numel(*t.back());
    picked = index_elems;
  } else {
    return std::nullopt;
  }
  picked = std::min(picked, table_elems);
  return 2 * picked * es + 8 * index_elems;
}
}  // namespace

void compute_op_work(OpShape& s, const std::string& dtype) {
  const std::string t = torch_type_name(dtype);
  KernelWork w;
  if (!t.empty() && op_shape_work(s.op, s.sizes, "[\"" + t + "\"]", w) && w.flops > 0) {
    s.flops = w.flops;
    s.hbm_bytes = w.hbm_bytes;
    s.work_source = "op shapes";
    // 2-D GEMM dims for the fused designs
    try {
      const JsonValue dims = parse_json(s.sizes, "sizes");
      const JsonValue::Array& in = dims.items();
      const size_t a = s.op == "aten::addmm" ? 1 : 0;
      if (in.size() > a + 1 && in[a].is_array() && in[a + 1].is_array() && in[a].items().size() == 2 &&
          in[a + 1].items().size() == 2) {
        s.m = in[a].items()[0].as_int().value_or(0);
        s.k = in[a].items()[1].as_int().value_or(0);
        s.n = in[a + 1].items()[1].as_int().value_or(0);
        s.gemm = s.m > 0 && s.n > 0 && s.k > 0 && s.op != "aten::linear";
      }
    } catch (const std::exception&) {
    }
    return;
  }
  const double es = dtype_bytes(dtype);
  if (es <= 0) return;
  try {
    const JsonValue dims = parse_json(s.sizes, "sizes");
    if (const auto g = gather_bytes(s.op, dims.items(), es)) {
      s.hbm_bytes = *g;
      s.work_source = "rows gathered";
      return;
    }
    double bytes = 0;
    for (const JsonValue& d : dims.items())
      if (d.is_array() && !d.items().empty()) bytes += numel(d) * es;  // scalars and non-tensors left out
    s.hbm_bytes = bytes;
    s.work_source = "inputs read once";
  } catch (const std::exception&) {
  }
}

}  // namespace parascope::pkb
