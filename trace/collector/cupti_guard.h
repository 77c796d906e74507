/* The CUPTI guard, libparascope_cupti_guard.so: `parascope-cli record` preloads it (LD_PRELOAD)
   into the traced program so that another CUPTI client in the same process (torch.profiler's
   Kineto, a second tracer) is noticed. It defines cuptiSubscribe, cuptiSubscribe_v2,
   cuptiActivityRegisterCallbacks and cuptiActivityEnable: a client calling them through the
   dynamic linker reaches the guard first, which notes the call (function, calling library,
   result) and passes it to the real libcupti unchanged. The collector calls CUPTI through dlsym
   on libcupti's own handle, so its calls never pass here; calls from libcupti itself or from the
   collector library are not noted. The collector reads the notes with
   parascope_cupti_guard_calls (found by dlsym(RTLD_DEFAULT); absent when not preloaded). */
#ifndef PARASCOPE_CUPTI_GUARD_H
#define PARASCOPE_CUPTI_GUARD_H

#ifdef __cplusplus
extern "C" {
#endif

#define PARASCOPE_GUARD_MAX_CALLS 32

/* One distinct (function, caller, result, argument) seen; repeats only raise `calls`. */
struct parascope_guard_call {
  char function[40];          /* "cuptiSubscribe", ... */
  char caller[160];           /* file name of the calling library (dladdr of the return address) */
  int result;                 /* the CUptiResult the real function returned to the caller */
  int argument;               /* cuptiActivityEnable: the activity kind; otherwise 0 */
  unsigned long long calls;   /* how many times */
  unsigned long long first_unix_ns;  /* CLOCK_REALTIME of the first */
};

/* Copies up to `max` distinct calls (first seen first) into `out`; returns how many distinct calls
   there are (may be more than max; at most PARASCOPE_GUARD_MAX_CALLS are kept). */
int parascope_cupti_guard_calls(struct parascope_guard_call* out, int max);
typedef int (*parascope_cupti_guard_calls_fn)(struct parascope_guard_call* out, int max);

#ifdef __cplusplus
}
#endif

#endif
