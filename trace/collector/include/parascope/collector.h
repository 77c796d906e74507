/* parascope/collector.h: optional control of the Parascope collector from inside a program.
 * Header-only C/C++. Nothing to link: the functions find the collector that `parascope-cli record`
 * injected (libparascope_cupti.so, already loaded) and do nothing, returning 0, when the program
 * runs without it. Thread-safe; cheap after the first call (the lookup is cached).
 *
 *   parascope_collector_start("step 10")   record from here (with PARASCOPE_START=api / --start api)
 *   parascope_collector_stop("step 20")    stop recording (CUPTI activity off; a range mark stays)
 *   parascope_collector_name_rank(r, "tp0") name this process's rank (renames the trace file)
 *   parascope_collector_submit_probes(dev, buf, bytes, "kernel", corr)
 *        hand over a probe buffer (ProbeBufferHeader + ProbeRecords, trace/core/probe_record.h)
 *        copied back to host memory; the collector aligns %globaltimer to the CUPTI clock and
 *        stores it. Returns 0 when no collector took it (write your own .pstrace then).
 *   parascope_collector_status()            0 not traced, 1 recording, 2 blocked by another tool
 */
#ifndef PARASCOPE_COLLECTOR_H_
#define PARASCOPE_COLLECTOR_H_

#include <dlfcn.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  int (*status)(void);
  int (*start)(const char*);
  int (*stop)(const char*);
  int (*name_rank)(int, const char*);
  int (*submit_probes)(int, const void*, size_t, const char*, unsigned);
} parascope_collector_fns;

/* Resolved once; all members NULL when the collector is not in the process. */
static inline const parascope_collector_fns* parascope_collector_lookup(void) {
  static parascope_collector_fns fns;
  static volatile int state = 0; /* 0 not looked up, 1 done */
  if (!state) {
    void* h = dlopen("libparascope_cupti.so", RTLD_LAZY | RTLD_NOLOAD);
    if (h) {
      fns.status = (int (*)(void))dlsym(h, "parascope_collector_impl_status");
      fns.start = (int (*)(const char*))dlsym(h, "parascope_collector_impl_start");
      fns.stop = (int (*)(const char*))dlsym(h, "parascope_collector_impl_stop");
      fns.name_rank = (int (*)(int, const char*))dlsym(h, "parascope_collector_impl_name_rank");
      fns.submit_probes = (int (*)(int, const void*, size_t, const char*, unsigned))dlsym(
          h, "parascope_collector_impl_submit_probes");
    }
    state = 1;
  }
  return &fns;
}

static inline int parascope_collector_status(void) {
  const parascope_collector_fns* f = parascope_collector_lookup();
  return f->status ? f->status() : 0;
}
static inline int parascope_collector_start(const char* label) {
  const parascope_collector_fns* f = parascope_collector_lookup();
  return f->start ? f->start(label) : 0;
}
static inline int parascope_collector_stop(const char* label) {
  const parascope_collector_fns* f = parascope_collector_lookup();
  return f->stop ? f->stop(label) : 0;
}
static inline int parascope_collector_name_rank(int rank, const char* name) {
  const parascope_collector_fns* f = parascope_collector_lookup();
  return f->name_rank ? f->name_rank(rank, name) : 0;
}
static inline int parascope_collector_submit_probes(int device, const void* host_buffer, size_t bytes,
                                                    const char* kernel_name, unsigned correlation) {
  const parascope_collector_fns* f = parascope_collector_lookup();
  return f->submit_probes ? f->submit_probes(device, host_buffer, bytes, kernel_name, correlation) : 0;
}

#ifdef __cplusplus
}
#endif

#endif /* PARASCOPE_COLLECTOR_H_ */
