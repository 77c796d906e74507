// `parascope-bench devices`: what the harness will run on — each GPU's name, SMs, memory, PCI bus
// id and the peer-access matrix (with native atomics), as a table or --json.
#include <cstdio>
#include <string>
#include <vector>

#include "bench/commands.h"
#include "device/cuda_check.h"

namespace parascope::bench {

int cmd_devices(const std::vector<std::string>& args) {
  const bool json = !args.empty() && args[0] == "--json";
  int n = 0;
  PS_CUDA_CHECK(cudaGetDeviceCount(&n));
  if (json) std::printf("{\"schema_version\": 1, \"devices\": [");
  for (int d = 0; d < n; ++d) {
    cudaDeviceProp p{};
    PS_CUDA_CHECK(cudaGetDeviceProperties(&p, d));
    char bus[32];
    PS_CUDA_CHECK(cudaDeviceGetPCIBusId(bus, sizeof bus, d));
    if (json) {
      std::printf("%s{\"index\": %d, \"name\": \"%s\", \"sms\": %d, \"memory_bytes\": %zu, \"pci_bus_id\": \"%s\", \"peers\": [",
                  d ? ", " : "", d, p.name, p.multiProcessorCount, p.totalGlobalMem, bus);
    } else {
      std::printf("GPU %d  %s  %d SMs  %.1f GiB  %s  cc %d.%d\n", d, p.name, p.multiProcessorCount,
                  static_cast<double>(p.totalGlobalMem) / (1 << 30), bus, p.major, p.minor);
    }
    for (int e = 0; e < n; ++e) {
      int access = 0, atomics = 0;
      if (e != d) {
        PS_CUDA_CHECK(cudaDeviceCanAccessPeer(&access, d, e));
        PS_CUDA_CHECK(cudaDeviceGetP2PAttribute(&atomics, cudaDevP2PAttrNativeAtomicSupported, d, e));
      }
      if (json) std::printf("%s{\"peer\": %d, \"access\": %d, \"native_atomics\": %d}", e ? ", " : "", e, access, atomics);
      else if (e != d) std::printf("  -> GPU %d: peer access %s, native atomics %s\n", e, access ? "yes" : "no", atomics ? "yes" : "no");
    }
    if (json) std::printf("]}");
  }
  if (json) std::printf("]}\n");
  return 0;
}

}  // namespace parascope::bench
