#include <catch2/catch.hpp>

#include <set>

#include "models/name_elide.h"

using namespace parascope::models;

namespace {

// the three collectives of an NCCL trace: the PDF roofline table showed each as
// 'ncclDevKerne…age<4096ul>)' (Qt::ElideMiddle), three identical rows
const char* kNccl[] = {
    "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
    "ncclDevKernel_ReduceScatter_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
    "ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
};

const char* kFill =
    "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, std::array<char*, 1ul> >"
    "(int, at::native::FillFunctor<float>, std::array<char*, 1ul>)";

double chars(std::string_view s) { return char_count(s); }

}  // namespace

TEST_CASE("A kernel name loses return type, arguments, namespaces, template arguments, in that order", "[app][names]") {
  const std::vector<std::string> f = name_forms(kFill);
  REQUIRE(f.size() == 5);
  CHECK(f[0] == kFill);
  CHECK(f[1] == "at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, std::array<char*, 1ul> >"
                "(int, at::native::FillFunctor<float>, std::array<char*, 1ul>)");
  CHECK(f[2] == "at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, std::array<char*, 1ul> >(…)");
  CHECK(f[3] == "vectorized_elementwise_kernel<4, FillFunctor<float>, array<char*, 1ul> >(…)");
  CHECK(f[4] == "vectorized_elementwise_kernel<…>(…)");

  SECTION("the anonymous namespace goes with the others") {
    const auto g = name_forms("void at::native::(anonymous namespace)::distribution_kernel<float, 4>(long, float)");
    REQUIRE(g.size() == 5);
    CHECK(g[1] == "at::native::(anonymous namespace)::distribution_kernel<float, 4>(long, float)");
    CHECK(g[3] == "distribution_kernel<float, 4>(…)");
    CHECK(g[4] == "distribution_kernel<…>(…)");
  }
  SECTION("no return type, no template: only the arguments go") {
    const auto g = name_forms(kNccl[0]);
    REQUIRE(g.size() == 2);
    CHECK(g[1] == "ncclDevKernel_AllReduce_Sum_f32_RING_LL(…)");
  }
  SECTION("an empty argument list stays") {
    CHECK(name_forms("void ns::k<1>()") == std::vector<std::string>{"void ns::k<1>()", "ns::k<1>()", "k<1>()", "k<…>()"});
  }
  SECTION("names that are not signatures have one form") {
    CHECK(name_forms("Memcpy HtoD (Pageable -> Device)").size() == 1);
    CHECK(name_forms("aten::mm").size() == 1);
    CHECK(name_forms("nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT").size() == 1);
    CHECK(name_forms("").size() == 1);
  }
  SECTION("unbalanced brackets (an operator<) keep the template arguments") {
    // ("operator<" before "(" does not read as a function name: "void " alone marks it)
    CHECK(name_forms("void ns::operator<(int)") == std::vector<std::string>{"void ns::operator<(int)", "ns::operator<(int)", "operator<(int)"});
  }
}

TEST_CASE("elide_name keeps the distinguishing head of kernels", "[app][names]") {
  SECTION("a name that fits is unchanged") {
    CHECK(elide_name(kNccl[0], 200, chars) == kNccl[0]);
    CHECK(elide_name("aten::mm", 8, chars) == "aten::mm");
  }
  SECTION("the three NCCL collectives stay distinct at every width that shows a character") {
    // AllReduce and AllGather share "ncclDevKernel_All" (17 characters): 18 and "…" tell them apart
    for (int w = 19; w <= 80; ++w) {
      std::set<std::string> shown;
      for (const char* n : kNccl) {
        const std::string s = elide_name(n, w, chars);
        CHECK(char_count(s) <= w);
        CHECK(s.rfind("ncclDevKernel_", 0) == 0);
        shown.insert(s);
      }
      INFO("width " << w);
      CHECK(shown.size() == 3);
    }
    CHECK(elide_name(kNccl[1], 46, chars) == "ncclDevKernel_ReduceScatter_Sum_f32_RING_LL(…)");
    CHECK(elide_name(kNccl[0], 30, chars) == "ncclDevKernel_AllReduce_Sum_f…");
  }
  SECTION("each step is taken only when the one before does not fit") {
    CHECK(elide_name(kFill, 80, chars) == "vectorized_elementwise_kernel<4, FillFunctor<float>, array<char*, 1ul> >(…)");
    CHECK(elide_name(kFill, 40, chars) == "vectorized_elementwise_kernel<…>(…)");
    CHECK(elide_name(kFill, 20, chars) == "vectorized_elementw…");
  }
  SECTION("other names are cut at the right") {
    CHECK(elide_name("Memcpy HtoD (Pageable -> Device)", 12, chars) == "Memcpy HtoD…");
    CHECK(elide_name("communication", 13, chars) == "communication");
  }
}

TEST_CASE("elide_right cuts whole UTF-8 characters and gives up below one ellipsis", "[app][names]") {
  CHECK(elide_right("abcdef", 6, chars) == "abcdef");
  CHECK(elide_right("abcdef", 5, chars) == "abcd…");
  CHECK(elide_right("abcdef", 1, chars) == "…");
  CHECK(elide_right("abcdef", 0.5, chars) == "");
  CHECK(elide_right("rank 0 · GPU 1 · stream 7", 9, chars) == "rank 0 ·…");  // '·' is two bytes
  CHECK(char_count("·…") == 2);
  // a measure that is not per character (a proportional font): the result fits it
  auto wide_m = [](std::string_view s) {
    double w = 0;
    for (char c : s) w += c == 'm' ? 3 : 1;
    return w;
  };
  // "…" is 3 bytes, 1 each: "mm…" is 3 + 3 + 3
  CHECK(elide_right("mmmaaa", 9, wide_m) == "mm…");
  CHECK(elide_right("mmmaaa", 8, wide_m) == "m…");
}
