#include "trace/collector/cupti_api.h"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>
#include <vector>

namespace parascope::collector {

namespace {

std::string loaded_path(void* symbol) {
  Dl_info info{};
  if (symbol && ::dladdr(symbol, &info) && info.dli_fname) return info.dli_fname;
  return {};
}

std::string dl_error() {
  const char* e = ::dlerror();
  return e ? e : "unknown dlopen error";
}

CuptiApi* g_api = nullptr;
std::string g_why;

void load_once() {
  // Another CUPTI major already in the process would be a second tool interface client with other
  // record layouts: refuse rather than corrupt both.
  for (const char* other : {"libcupti.so.12", "libcupti.so.11", "libcupti.so.14"}) {
    if (void* h = ::dlopen(other, RTLD_LAZY | RTLD_NOLOAD)) {
      g_why = std::string("the process already loaded ") + other +
              " (a framework built for another CUDA major?); this collector needs libcupti.so.13";
      ::dlclose(h);
      return;
    }
  }
  struct Try {
    std::string name;
    int flags;
    std::string source;
  };
  std::vector<Try> tries;
  tries.push_back({"libcupti.so.13", RTLD_NOW | RTLD_NOLOAD, "already loaded by the process"});
  if (const char* p = std::getenv("PARASCOPE_CUPTI_LIB"); p && *p) tries.push_back({p, RTLD_NOW, "PARASCOPE_CUPTI_LIB"});
  tries.push_back({"libcupti.so.13", RTLD_NOW, "library search path"});
#ifdef PARASCOPE_CUPTI_BUILD_PATH
  tries.push_back({PARASCOPE_CUPTI_BUILD_PATH, RTLD_NOW, "the CUPTI the collector was built with"});
#endif
  void* handle = nullptr;
  std::string source, errors;
  for (const auto& t : tries) {
    ::dlerror();
    handle = ::dlopen(t.name.c_str(), t.flags);
    if (handle) {
      source = t.source;
      break;
    }
    if (!(t.flags & RTLD_NOLOAD)) errors += "\n  " + t.name + ": " + dl_error();
  }
  if (!handle) {
    g_why = "no libcupti.so.13 found:" + errors + "\n  (set PARASCOPE_CUPTI_LIB to its path)";
    return;
  }
  auto* api = new CuptiApi;  // lives as long as the process
  api->handle = handle;
  api->source = source;
  std::string missing;
#define PARASCOPE_CUPTI_RESOLVE(name, required)                                                   \
  api->name = reinterpret_cast<decltype(&::name)>(::dlsym(handle, #name));                         \
  if (!api->name && (required)) missing += std::string(missing.empty() ? "" : ", ") + #name;
  PARASCOPE_CUPTI_FUNCTIONS(PARASCOPE_CUPTI_RESOLVE)
#undef PARASCOPE_CUPTI_RESOLVE
  api->InitializeInjectionNvtx2 = reinterpret_cast<int (*)(const void*)>(::dlsym(handle, "InitializeInjectionNvtx2"));
  api->path = loaded_path(reinterpret_cast<void*>(api->cuptiActivityEnable));
  if (!missing.empty()) {
    g_why = api->path + " lacks " + missing;
    delete api;
    return;
  }
  api->cuptiGetVersion(&api->runtime_version);
  g_api = api;
}

}  // namespace

std::string CuptiApi::error(CUptiResult r) const {
  const char* s = nullptr;
  if (cuptiGetResultString) cuptiGetResultString(r, &s);
  return std::string(s ? s : "CUPTI error") + " (" + std::to_string(static_cast<int>(r)) + ")";
}

const CuptiApi* load_cupti(std::string* why) {
  static std::once_flag once;
  std::call_once(once, load_once);
  if (!g_api && why) *why = g_why;
  return g_api;
}

}  // namespace parascope::collector
