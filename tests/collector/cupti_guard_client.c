/* A second CUPTI client for cupti_guard_test: a shared library linked against the real
   libcupti.so.13 (its calls go through the dynamic linker, as Kineto's in libtorch_cuda.so do),
   opened RTLD_LOCAL by cupti_guard_probe the way Python opens torch. */
#include <cupti.h>

static void CUPTIAPI on_callback(void* userdata, CUpti_CallbackDomain domain, CUpti_CallbackId id, const void* data) {
  (void)userdata, (void)domain, (void)id, (void)data;
}
static void CUPTIAPI on_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = 0;
  *size = 0;
  *max_records = 0;
}
static void CUPTIAPI on_completed(CUcontext ctx, uint32_t stream, uint8_t* buffer, size_t size, size_t valid) {
  (void)ctx, (void)stream, (void)buffer, (void)size, (void)valid;
}

/* Subscribes twice, registers activity buffers, enables kernel activity: the results it got. */
__attribute__((visibility("default"))) void guard_test_client_run(int results[4]) {
  CUpti_SubscriberHandle a = 0, b = 0;
  results[0] = (int)cuptiSubscribe(&a, on_callback, 0);
  results[1] = (int)cuptiSubscribe(&b, on_callback, 0);
  results[2] = (int)cuptiActivityRegisterCallbacks(on_requested, on_completed);
  results[3] = (int)cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
}
