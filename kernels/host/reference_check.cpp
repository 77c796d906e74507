#include "host/reference_check.h"

#include <cmath>
#include <cstdio>

namespace parascope::bench {

double rel_l2(const ErrorStats& s) {
  if (s.sum_sq_ref <= 0) return s.sum_sq_err > 0 ? INFINITY : 0.0;
  return std::sqrt(s.sum_sq_err / s.sum_sq_ref);
}

void merge(ErrorStats& into, const ErrorStats& from) {
  into.sum_sq_err += from.sum_sq_err;
  into.sum_sq_ref += from.sum_sq_ref;
  if (from.max_abs_err > into.max_abs_err) into.max_abs_err = from.max_abs_err;
  into.elements += from.elements;
  into.nonfinite += from.nonfinite;
  into.mismatches += from.mismatches;
}

CheckVerdict judge(const ErrorStats& s, DType t, CheckKind kind, uint64_t expected_elements) {
  CheckVerdict v;
  v.rel_l2 = rel_l2(s);
  v.mismatches = s.mismatches;
  char buf[160];
  if (s.elements != expected_elements) {
    std::snprintf(buf, sizeof buf, "checked %llu elements, expected %llu", s.elements,
                  static_cast<unsigned long long>(expected_elements));
    v.problem = buf;
  } else if (s.nonfinite) {
    std::snprintf(buf, sizeof buf, "%llu NaN/Inf outputs (unwritten poison?)", s.nonfinite);
    v.problem = buf;
  } else if (is_copy_kind(kind) && s.mismatches) {
    std::snprintf(buf, sizeof buf, "%llu of %llu elements differ from the source", s.mismatches, s.elements);
    v.problem = buf;
  } else if (!(v.rel_l2 <= tolerance(t))) {
    std::snprintf(buf, sizeof buf, "rel L2 error %.3g > %.0e", v.rel_l2, tolerance(t));
    v.problem = buf;
  }
  v.ok = v.problem.empty();
  return v;
}

ErrorStats check_output_host(CheckKind kind, DType t, uint64_t seed, int rank, int nranks, uint64_t c, int aux,
                             const void* out, uint64_t count) {
  ErrorStats s;
  for (uint64_t i = 0; i < count; ++i) {
    double o;
    if (t == DType::kF32) {
      float f;
      std::memcpy(&f, static_cast<const char*>(out) + 4 * i, 4);
      o = f;
    } else {
      uint16_t b;
      std::memcpy(&b, static_cast<const char*>(out) + 2 * i, 2);
      o = bf16_bits_to_float(b);
    }
    accumulate(s, t, o, expected_exact(kind, t, seed, rank, nranks, c, aux, i));
  }
  return s;
}

void fill_input_host(DType t, uint64_t seed, int rank, void* out, uint64_t count) {
  for (uint64_t i = 0; i < count; ++i) {
    const float v = raw_value(seed, static_cast<uint32_t>(rank), i);
    if (t == DType::kF32) {
      std::memcpy(static_cast<char*>(out) + 4 * i, &v, 4);
    } else {
      const uint16_t b = bf16_bits_from_float(v);
      std::memcpy(static_cast<char*>(out) + 2 * i, &b, 2);
    }
  }
}

}  // namespace parascope::bench
