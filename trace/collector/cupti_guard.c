/* libparascope_cupti_guard.so: see cupti_guard.h. Plain C, libc and libdl only: it is preloaded
   into every process of a recorded command (launchers and shells too) and must cost nothing
   where CUPTI is never called. */
#define _GNU_SOURCE
#include "cupti_guard.h"

#include <cupti.h>
#include <dlfcn.h>
#include <pthread.h>
#include <string.h>
#include <time.h>

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static struct parascope_guard_call g_calls[PARASCOPE_GUARD_MAX_CALLS];
static int g_count;

/* The real function: the next definition after ours in the global scope, else the libcupti the
   process loaded (a library opened with RTLD_LOCAL, as Python opens torch, keeps its libcupti out
   of the global scope, where RTLD_NEXT does not look). */
static void* real(const char* name) {
  void* f = dlsym(RTLD_NEXT, name);
  if (f) return f;
  void* h = dlopen("libcupti.so.13", RTLD_NOW | RTLD_NOLOAD);
  return h ? dlsym(h, name) : NULL;
}

static const char* base_name(const char* path) {
  const char* slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

static void note(const char* function, const void* return_address, int result, int argument) {
  Dl_info info;
  const char* caller = "?";
  if (dladdr(return_address, &info) && info.dli_fname && info.dli_fname[0]) caller = info.dli_fname;
  const char* base = base_name(caller);
  if (strncmp(base, "libcupti", 8) == 0 || strncmp(base, "libparascope_cupti", 18) == 0) return;
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  pthread_mutex_lock(&g_lock);
  int i = 0;
  for (; i < g_count; ++i)
    if (g_calls[i].result == result && g_calls[i].argument == argument && strcmp(g_calls[i].function, function) == 0 &&
        strncmp(g_calls[i].caller, caller, sizeof g_calls[i].caller - 1) == 0)
      break;
  if (i < g_count) {
    ++g_calls[i].calls;
  } else if (g_count < PARASCOPE_GUARD_MAX_CALLS) {
    struct parascope_guard_call* c = &g_calls[g_count++];
    strncpy(c->function, function, sizeof c->function - 1);
    strncpy(c->caller, caller, sizeof c->caller - 1);
    c->result = result;
    c->argument = argument;
    c->calls = 1;
    c->first_unix_ns = (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
  }
  pthread_mutex_unlock(&g_lock);
}

int parascope_cupti_guard_calls(struct parascope_guard_call* out, int max) {
  pthread_mutex_lock(&g_lock);
  const int n = g_count;
  for (int i = 0; i < n && i < max; ++i) out[i] = g_calls[i];
  pthread_mutex_unlock(&g_lock);
  return n;
}

CUptiResult CUPTIAPI cuptiSubscribe(CUpti_SubscriberHandle* subscriber, CUpti_CallbackFunc callback, void* userdata) {
  CUptiResult (*f)(CUpti_SubscriberHandle*, CUpti_CallbackFunc, void*) = real("cuptiSubscribe");
  const CUptiResult r = f ? f(subscriber, callback, userdata) : CUPTI_ERROR_NOT_INITIALIZED;
  note("cuptiSubscribe", __builtin_return_address(0), (int)r, 0);
  return r;
}

CUptiResult CUPTIAPI cuptiSubscribe_v2(CUpti_SubscriberHandle* subscriber, CUpti_CallbackFunc callback, void* userdata,
                                       CUpti_SubscriberParams* params) {
  CUptiResult (*f)(CUpti_SubscriberHandle*, CUpti_CallbackFunc, void*, CUpti_SubscriberParams*) = real("cuptiSubscribe_v2");
  const CUptiResult r = f ? f(subscriber, callback, userdata, params) : CUPTI_ERROR_NOT_INITIALIZED;
  note("cuptiSubscribe_v2", __builtin_return_address(0), (int)r, 0);
  return r;
}

CUptiResult CUPTIAPI cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc requested,
                                                    CUpti_BuffersCallbackCompleteFunc completed) {
  CUptiResult (*f)(CUpti_BuffersCallbackRequestFunc, CUpti_BuffersCallbackCompleteFunc) = real("cuptiActivityRegisterCallbacks");
  const CUptiResult r = f ? f(requested, completed) : CUPTI_ERROR_NOT_INITIALIZED;
  note("cuptiActivityRegisterCallbacks", __builtin_return_address(0), (int)r, 0);
  return r;
}

CUptiResult CUPTIAPI cuptiActivityEnable(CUpti_ActivityKind kind) {
  CUptiResult (*f)(CUpti_ActivityKind) = real("cuptiActivityEnable");
  const CUptiResult r = f ? f(kind) : CUPTI_ERROR_NOT_INITIALIZED;
  note("cuptiActivityEnable", __builtin_return_address(0), (int)r, (int)kind);
  return r;
}
