#include <catch2/catch.hpp>

#include "cli/text_table.h"

using namespace parascope;
using cli::TextTable;

TEST_CASE("CLI tables shorten kernel names as the GUI does, keeping the distinguishing head", "[cli][text_table]") {
  // issue 18: cut in the middle, AllReduce, ReduceScatter and AllGather read 'ncclDevKerne…age<4096ul>)' alike
  TextTable t({{"kernel", TextTable::Align::kLeft, 40}, {"count"}});
  t.add({"ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)", "8"});
  t.add({"ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)", "8"});
  t.add({"ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)", "8"});
  t.add({"void at::native::vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl>(int, at::native::Functor, "
         "at::detail::Array<char*, 2>)",
         "4"});
  t.add({"Memcpy HtoD (Pageable -> Device) of a long description that goes on", "1"});
  const std::string out = t.render();
  INFO(out);
  // the arguments go first; a name still too long is cut at its end, after the distinguishing head
  CHECK_THAT(out, Catch::Contains("  ncclDevKernel_AllGather_RING_LL(…)  "));
  CHECK_THAT(out, Catch::Contains("  ncclDevKernel_AllReduce_Sum_bf16_RING_L…  "));
  CHECK_THAT(out, Catch::Contains("  ncclDevKernel_ReduceScatter_Sum_bf16_RI…  "));
  // return type, namespaces and template arguments go too
  CHECK_THAT(out, Catch::Contains("  vectorized_elementwise_kernel<…>(…)  "));
  CHECK_THAT(out, Catch::Contains("Memcpy HtoD (Pageable -> Device) of a l…"));  // not a signature: cut at the right
  CHECK_THAT(out, !Catch::Contains("age<4096ul>)"));
  // every line fits: 2 indent + 40 + 2 + 5 columns
  size_t start = 0;
  while (start < out.size()) {
    const size_t end = out.find('\n', start);
    CHECK(cli::display_width(out.substr(start, end - start)) <= 2 + 40 + 2 + 5);
    start = end + 1;
  }
}

TEST_CASE("CLI tables leave what fits alone and cut other text at the right", "[cli][text_table]") {
  TextTable t({{"name", TextTable::Align::kLeft, 8}, {"value"}});
  t.add({"short", "1"});
  t.add({"a long plain cell", "2"});
  const std::string out = t.render("");
  CHECK(out == "name      value\nshort         1\na long …      2\n");
}

TEST_CASE("CLI tables keep apart names of a column that would read alike when cut", "[cli][text_table]") {
  // issue 18 item 7: two FillFunctor kernels of HTA's timeline_analysis trace read
  // "vectorized_elementwise_kernel<…>(…)" alike at 40 characters; the column keeps where they differ
  TextTable t({{"kernel", TextTable::Align::kLeft, 40}, {"count"}});
  t.add({"void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<int>, at::detail::Array<char*, 1> >"
         "(int, at::native::FillFunctor<int>, at::detail::Array<char*, 1>)",
         "16"});
  t.add({"void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<long>, at::detail::Array<char*, 1> >"
         "(int, at::native::FillFunctor<long>, at::detail::Array<char*, 1>)",
         "4"});
  const std::string out = t.render("");
  INFO(out);
  // models::elide_names at 40 characters: the shared start cut to half the width, then from the functor on
  CHECK(out == "kernel                                    count\n"
               "vectorized_elementw…FillFunctor<int>, A…     16\n"
               "vectorized_elementw…FillFunctor<long>, …      4\n");
}
