#include "trace/collector/driver_api.h"

#include <dlfcn.h>

#include <mutex>

namespace parascope::collector {

namespace {

#define PARASCOPE_STR(x) #x
#define PARASCOPE_XSTR(x) PARASCOPE_STR(x)

DriverApi* g_driver = nullptr;
std::string g_why;

void load_once() {
  void* h = ::dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
  if (!h) {
    g_why = "libcuda.so.1 is not loaded in this process";
    return;
  }
  auto* d = new DriverApi;  // lives as long as the process
  std::string missing;
#define PARASCOPE_DRIVER_RESOLVE(name)                                                  \
  d->name = reinterpret_cast<decltype(&::name)>(::dlsym(h, PARASCOPE_XSTR(name)));      \
  if (!d->name) missing += std::string(missing.empty() ? "" : ", ") + PARASCOPE_XSTR(name);
  PARASCOPE_DRIVER_FUNCTIONS(PARASCOPE_DRIVER_RESOLVE)
#undef PARASCOPE_DRIVER_RESOLVE
  if (!missing.empty()) {
    g_why = "libcuda.so.1 lacks " + missing;
    delete d;
    return;
  }
  g_driver = d;
}

}  // namespace

std::string DriverApi::error(CUresult r) const {
  const char* s = nullptr;
  if (cuGetErrorString) cuGetErrorString(r, &s);
  return std::string(s ? s : "CUDA error") + " (" + std::to_string(static_cast<int>(r)) + ")";
}

const DriverApi* load_driver(std::string* why) {
  // retried until it succeeds: an early caller (NVTX injection before cuInit) may come first
  static std::mutex m;
  std::lock_guard lock(m);
  if (!g_driver) load_once();
  if (!g_driver && why) *why = g_why;
  return g_driver;
}

}  // namespace parascope::collector
