#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <set>

#include "models/name_elide.h"
#include "skip.h"
#include "test_paths.h"
#include "trace/core/analysis/kernel_stats.h"
#include "trace/io/load_trace.h"

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

namespace {

// tests/data/names/hta_kernel_names.txt: 10 kernel names of HTA's timeline_analysis trace, sorted:
// [0, 1] split_embedding_…_{unweighted,weighted}_find_long_segments(…), [2..5] vectorized_elementwise_kernel
// of FillFunctor<float> (vec 2), <float>, <int>, <long> (vec 4), [6..9] void split_embedding_…_{unweighted,
// weighted}_kernel_{cta,warp}_per_row_1<…>(…)
std::vector<std::string> hta_names() {
  std::ifstream f(parascope::test::data_path("names/hta_kernel_names.txt"));
  std::vector<std::string> out;
  for (std::string line; std::getline(f, line);)
    if (!line.empty() && line[0] != '#') out.push_back(line);
  return out;
}

std::vector<std::string> column(const std::vector<std::string>& names, double width) {
  return elide_names(std::vector<std::string_view>(names.begin(), names.end()), width, chars);
}

}  // namespace

TEST_CASE("Names of one column that would read alike keep where they differ (HTA's kernels)", "[app][names]") {
  const std::vector<std::string> names = hta_names();
  REQUIRE(names.size() == 10);
  SECTION("48 characters (the Kernel column at 1280 px): each name alone reads as three others do") {
    // issue 18 item 7: the kernels differ only after ~50 characters of the same name
    for (size_t i : {0, 1, 6, 7, 8, 9}) CHECK(elide_name(names[i], 48, chars) == "split_embedding_backward_codegen_rowwise_adagra…");
    for (size_t i : {2, 3, 4, 5}) CHECK(elide_name(names[i], 48, chars) == "vectorized_elementwise_kernel<…>(…)");
    const std::vector<std::string> shown = column(names, 48);
    // the split_embedding group parts at "unweighted"/"weighted" (after "…adagrad_"): a 14-character
    // head, then from there past the word each parts from its nearest in ("find_long_segments",
    // "cta_per_row_1", "warp_per_row_1"), the template arguments still short
    CHECK(shown[0] == "split_embeddin…unweighted_find_long_segments(…)");
    CHECK(shown[1] == "split_embeddin…weighted_find_long_segments(…)");
    CHECK(shown[6] == "split_embeddin…unweighted_kernel_cta_per_row_1<…");
    CHECK(shown[7] == "split_embeddin…unweighted_kernel_warp_per_row_1…");
    CHECK(shown[8] == "split_embeddin…weighted_kernel_cta_per_row_1<…>…");
    CHECK(shown[9] == "split_embeddin…weighted_kernel_warp_per_row_1<…");  // one "…" where the cut meets "<…>"
    // vectorized_elementwise_kernel: its template arguments, without namespaces; "<2" parts from
    // the "<4" ones at once, so its own start reaches it
    CHECK(shown[2] == "vectorized_elementwise_kernel<2, FillFunctor<fl…");
    CHECK(shown[3] == "vectorized_elementwise_…<4, FillFunctor<float>,…");
    CHECK(shown[4] == "vectorized_elementwise_…<4, FillFunctor<int>, A…");
    CHECK(shown[5] == "vectorized_elementwise_…<4, FillFunctor<long>, …");
    CHECK(std::set<std::string>(shown.begin(), shown.end()).size() == 10);
    for (const std::string& s : shown) CHECK(chars(s) <= 48);
  }
  SECTION("70 characters: the names read apart already and are shown as elide_name shows them") {
    const std::vector<std::string> shown = column(names, 70);
    for (size_t i = 0; i < names.size(); ++i) {
      if (i >= 2 && i <= 5) continue;  // the vectorized ones still read "vectorized_elementwise_kernel<…>(…)" alone
      CHECK(shown[i] == elide_name(names[i], 70, chars));
    }
    CHECK(shown[4] == "vectorized_elementwise_kernel<4, FillFunctor<int>, Array<char*, 1> >(…");
    CHECK(std::set<std::string>(shown.begin(), shown.end()).size() == 10);
  }
  SECTION("30 characters: a difference that does not fit is left as it was, the others still part") {
    const std::vector<std::string> shown = column(names, 30);
    // "unweighted_kernel_warp_per_row_1…" alone is 33 characters
    for (size_t i : {0, 1, 6, 7, 8, 9}) CHECK(shown[i] == "split_embedding_backward_code…");
    CHECK(shown[4] == "vectori…<4, FillFunctor<int>,…");
    CHECK(shown[5] == "vectori…<4, FillFunctor<long>…");
  }
  SECTION("a name in several rows reads the same in each; a name alone keeps its own form") {
    std::vector<std::string> rows = {names[4], names[5], names[4], "ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)"};
    const std::vector<std::string> shown = column(rows, 48);
    // these two part inside FillFunctor's argument: shown from the functor's name on
    CHECK(shown[0] == "vectorized_elementwise_…FillFunctor<int>, Array…");
    CHECK(shown[2] == shown[0]);
    CHECK(shown[1] == "vectorized_elementwise_…FillFunctor<long>, Arra…");
    CHECK(shown[3] == elide_name(rows[3], 48, chars));
  }
}

TEST_CASE("Every kernel of HTA's timeline_analysis trace reads apart in a 48-character column", "[app][names][real]") {
  const std::string path = parascope::test::shared_path("external/hta_testdata/timeline_analysis__sampled_rank-0.json.gz");
  if (!std::filesystem::exists(path)) PARASCOPE_SKIP("../shared/external/hta_testdata is not present");
  const parascope::Trace t = parascope::load_trace({path});
  const parascope::KernelStats stats = parascope::kernel_stats(t);
  std::vector<std::string> names;
  for (const parascope::KernelStat& k : stats.overall.rows) names.emplace_back(t.str(k.name));
  const std::set<std::string> distinct(names.begin(), names.end());
  REQUIRE(distinct.size() == names.size());
  std::set<std::string> alone, together;
  for (const std::string& n : names) alone.insert(elide_name(n, 48, chars));
  for (const std::string& s : column(names, 48)) together.insert(s);
  INFO(names.size() << " kernels, " << alone.size() << " texts alone, " << together.size() << " in a column");
  // each alone: 194 kernels in 54 texts (53 cutlass GEMMs all read "Kernel<…>(…)"); in a column, 194
  CHECK(alone.size() == 54);
  CHECK(together.size() == names.size());
}
