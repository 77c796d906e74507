// libparascope_cupti.so entry point. CUDA calls InitializeInjection() when CUDA_INJECTION64_PATH
// names this library. This first version subscribes to CONCURRENT_KERNEL, MEMCPY and MEMSET
// activity and appends every completed CUPTI buffer, flattened by collector_records.h, as one
// kCuptiRecords chunk of PARASCOPE_OUTPUT (default ./parascope-<pid>.pstrace); the file is closed
// at exit. Dropped records are counted into a warnings chunk. The full collector (writer thread,
// periodic flush, NVTX, graphs, NCCL plugin, probes) grows from here.
#include <cupti.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>

#include "trace/collector/cupti_records.h"
#include "trace/io/collector/collector_records.h"
#include "trace/io/pstrace/chunk_writer.h"

namespace {

using parascope::ByteWriter;
using parascope::ChunkType;
using parascope::ChunkWriter;
using namespace parascope::collector;

constexpr size_t kBufferBytes = 8 << 20;

std::mutex g_mutex;
std::unique_ptr<ChunkWriter> g_writer;
std::atomic<uint64_t> g_dropped{0};
std::atomic<uint64_t> g_records{0};

void report(const char* what, CUptiResult r) {
  const char* msg = nullptr;
  cuptiGetResultString(r, &msg);
  std::fprintf(stderr, "parascope collector: %s failed: %s\n", what, msg ? msg : "?");
}

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, kBufferBytes));
  *size = *buffer ? kBufferBytes : 0;
  *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  ByteWriter w;
  CUpti_Activity* rec = nullptr;
  uint64_t n = 0;
  while (cuptiActivityGetNextRecord(buffer, valid, &rec) == CUPTI_SUCCESS) {
    CollectedActivity a;
    switch (rec->kind) {
      case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
        const auto* k = reinterpret_cast<const KernelRecord*>(rec);
        a.kind = RecordKind::kKernel;
        a.start_ns = k->start;
        a.end_ns = k->end;
        a.device = k->deviceId;
        a.context = k->contextId;
        a.stream = k->streamId;
        a.correlation = k->correlationId;
        a.name = k->name ? k->name : "";
        a.grid[0] = k->gridX, a.grid[1] = k->gridY, a.grid[2] = k->gridZ;
        a.block[0] = k->blockX, a.block[1] = k->blockY, a.block[2] = k->blockZ;
        a.registers = k->registersPerThread;
        a.static_smem = static_cast<uint32_t>(k->staticSharedMemory);
        a.dynamic_smem = static_cast<uint32_t>(k->dynamicSharedMemory);
        a.graph_id = k->graphId;
        a.graph_node_id = k->graphNodeId;
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMCPY: {
        const auto* m = reinterpret_cast<const MemcpyRecord*>(rec);
        a.kind = RecordKind::kMemcpy;
        a.start_ns = m->start;
        a.end_ns = m->end;
        a.device = m->deviceId;
        a.context = m->contextId;
        a.stream = m->streamId;
        a.correlation = m->correlationId;
        a.bytes = m->bytes;
        a.copy_kind = m->copyKind;
        a.src_device = a.dst_device = m->deviceId;
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMSET: {
        const auto* m = reinterpret_cast<const MemsetRecord*>(rec);
        a.kind = RecordKind::kMemset;
        a.start_ns = m->start;
        a.end_ns = m->end;
        a.device = m->deviceId;
        a.context = m->contextId;
        a.stream = m->streamId;
        a.correlation = m->correlationId;
        a.bytes = m->bytes;
        a.value = m->value;
        break;
      }
      default: continue;
    }
    encode(w, a);
    ++n;
  }
  size_t dropped = 0;
  cuptiActivityGetNumDroppedRecords(nullptr, 0, &dropped);
  g_dropped += dropped;
  g_records += n;
  std::free(buffer);
  if (n == 0) return;
  std::lock_guard lock(g_mutex);
  if (!g_writer) return;
  try {
    g_writer->append(ChunkType::kCuptiRecords, w.bytes());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "parascope collector: %s\n", e.what());
  }
}

void at_exit() {
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  std::lock_guard lock(g_mutex);
  if (!g_writer) return;
  try {
    ByteWriter w;
    w.str("records=" + std::to_string(g_records.load()) + " dropped=" + std::to_string(g_dropped.load()));
    g_writer->append(ChunkType::kWarnings, w.bytes());
    g_writer->close();
    std::fprintf(stderr, "parascope collector: wrote %s (%llu records, %llu dropped)\n", g_writer->path().c_str(),
                 static_cast<unsigned long long>(g_records.load()), static_cast<unsigned long long>(g_dropped.load()));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "parascope collector: %s\n", e.what());
  }
  g_writer.reset();
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int InitializeInjection() {
  const char* out = std::getenv("PARASCOPE_OUTPUT");
  const std::string path = out && *out ? out : "parascope-" + std::to_string(::getpid()) + ".pstrace";
  try {
    g_writer = std::make_unique<ChunkWriter>(path);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "parascope collector: %s\n", e.what());
    return 0;
  }
  if (CUptiResult r = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed); r != CUPTI_SUCCESS) {
    report("cuptiActivityRegisterCallbacks", r);
    return 0;
  }
  for (CUpti_ActivityKind k : {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMSET})
    if (CUptiResult r = cuptiActivityEnable(k); r != CUPTI_SUCCESS) report("cuptiActivityEnable", r);
  std::atexit(at_exit);
  return 1;
}
