// The NCCL profiler plugin ABI, version 5 (NCCL 2.28; NCCL looks up the exported symbol
// `ncclProfiler_v5`). Declared here from NCCL's ext-profiler documentation because NCCL installs
// no header for it; field order and types must match NCCL's byte for byte, so this file is the
// only place that knows them. A newer NCCL that drops v5 simply does not load the plugin.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>

namespace parascope::collector::nccl_abi {

using Result = int;  // ncclResult_t: 0 success; init may fail to disable the plugin
inline constexpr Result kSuccess = 0;
inline constexpr Result kInternalError = 3;

using Logger = void (*)(int level, unsigned long flags, const char* file, int line, const char* fmt, ...);

// Event types (descriptor `type`, and bits of the activation mask the plugin returns from init).
enum : uint64_t {
  kGroup = 1u << 0,
  kColl = 1u << 1,
  kP2p = 1u << 2,
  kProxyOp = 1u << 3,
  kProxyStep = 1u << 4,
  kProxyCtrl = 1u << 5,
  kKernelCh = 1u << 6,
  kNetPlugin = 1u << 7,
  kGroupApi = 1u << 8,
  kCollApi = 1u << 9,
  kP2pApi = 1u << 10,
  kKernelLaunch = 1u << 11,
};

struct EventDescrV5 {
  uint64_t type;
  void* parent;  // the plugin's own handle of the parent event (Coll → CollApi → GroupApi)
  int rank;
  union {
    struct {
      bool graph_captured;
      int group_depth;
    } group_api;
    struct {
      const char* func;
      size_t count;
      const char* datatype;
      int root;
      void* stream;
      bool graph_captured;
    } coll_api;
    struct {
      const char* func;
      size_t count;
      const char* datatype;
      void* stream;
      bool graph_captured;
    } p2p_api;
    struct {
      void* stream;
    } kernel_launch;
    struct {
      uint64_t seq_number;
      const char* func;
      const void* send_buff;
      void* recv_buff;
      size_t count;
      int root;
      const char* datatype;
      uint8_t channels;
      uint8_t warps;
      const char* algo;
      const char* proto;
      void* parent_group;
    } coll;
    struct {
      const char* func;
      void* buff;
      const char* datatype;
      size_t count;
      int peer;
      uint8_t channels;
      void* parent_group;
    } p2p;
    struct {
      pid_t pid;
      uint8_t channel_id;
      int peer;
      int steps;
      int chunk_size;
      int is_send;
    } proxy_op;
    struct {
      int step;
    } proxy_step;
    struct {
      uint8_t channel_id;
      uint64_t ptimer;
    } kernel_ch;
    struct {
      int64_t id;
      void* data;
    } net_plugin;
  };
};
static_assert(offsetof(EventDescrV5, rank) == 16);
static_assert(offsetof(EventDescrV5, coll) == 24);
static_assert(sizeof(EventDescrV5) == 24 + 88, "the coll member (the largest) ends the descriptor");

union StateArgsV5 {
  struct {
    size_t trans_size;
  } proxy_step;
  struct {
    int appended_proxy_ops;
  } proxy_ctrl;
  struct {
    void* data;
  } net_plugin;
  struct {
    uint64_t ptimer;
  } kernel_ch;
};

using EventState = int;

struct ProfilerV5 {
  const char* name;
  Result (*init)(void** context, uint64_t comm_id, int* activation_mask, const char* comm_name, int nnodes,
                 int nranks, int rank, Logger log);
  Result (*start_event)(void* context, void** handle, EventDescrV5* descr);
  Result (*stop_event)(void* handle);
  Result (*record_event_state)(void* handle, EventState state, StateArgsV5* args);
  Result (*finalize)(void* context);
};

}  // namespace parascope::collector::nccl_abi
