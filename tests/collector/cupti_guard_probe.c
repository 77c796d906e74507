/* cupti_guard_probe CLIENT.so: opens the client library RTLD_LOCAL, runs it, and prints what the
   client got from CUPTI ("client I RESULT") and what the CUPTI guard noted, when it was preloaded
   ("guard FUNCTION CALLER RESULT ARGUMENT CALLS", CALLER's file name only; "no guard" otherwise). */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "trace/collector/cupti_guard.h"

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  void* client = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!client) {
    printf("cannot open %s: %s\n", argv[1], dlerror());
    return 1;
  }
  void (*run)(int*) = (void (*)(int*))dlsym(client, "guard_test_client_run");
  if (!run) return 1;
  int results[4];
  run(results);
  for (int i = 0; i < 4; ++i) printf("client %d %d\n", i, results[i]);
  parascope_cupti_guard_calls_fn calls = (parascope_cupti_guard_calls_fn)dlsym(RTLD_DEFAULT, "parascope_cupti_guard_calls");
  if (!calls) {
    printf("no guard\n");
    return 0;
  }
  struct parascope_guard_call c[PARASCOPE_GUARD_MAX_CALLS];
  const int n = calls(c, PARASCOPE_GUARD_MAX_CALLS);
  for (int i = 0; i < n; ++i) {
    const char* slash = strrchr(c[i].caller, '/');
    printf("guard %s %s %d %d %llu\n", c[i].function, slash ? slash + 1 : c[i].caller, c[i].result, c[i].argument, c[i].calls);
  }
  return 0;
}
