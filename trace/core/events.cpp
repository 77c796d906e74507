#include "trace/core/events.h"

#include <algorithm>
#include <cctype>
#include <string>

#include "trace/core/track.h"

namespace parascope {

std::string_view to_string(SliceKind k) {
  switch (k) {
    case SliceKind::kGeneric: return "slice";
    case SliceKind::kKernel: return "kernel";
    case SliceKind::kMemcpy: return "memcpy";
    case SliceKind::kMemset: return "memset";
    case SliceKind::kSync: return "sync";
    case SliceKind::kNvtxRange: return "nvtx";
    case SliceKind::kCpuOp: return "cpu_op";
    case SliceKind::kRuntimeApi: return "runtime_api";
    case SliceKind::kGpuAnnotation: return "gpu_annotation";
    case SliceKind::kSmSpan: return "sm_span";
    case SliceKind::kOverhead: return "overhead";
    case SliceKind::kInstant: return "instant";
    case SliceKind::kCount: break;
  }
  return "?";
}

std::string_view to_string(Category c) {
  switch (c) {
    case Category::kCompute: return "compute";
    case Category::kCommunication: return "communication";
    case Category::kMemory: return "memory";
    case Category::kSync: return "sync";
    case Category::kHost: return "host";
    case Category::kAnnotation: return "annotation";
    case Category::kIdle: return "idle";
    case Category::kOther: return "other";
  }
  return "?";
}

std::string_view to_string(CopyKind k) {
  switch (k) {
    case CopyKind::kUnknown: return "unknown";
    case CopyKind::kHtoD: return "HtoD";
    case CopyKind::kDtoH: return "DtoH";
    case CopyKind::kDtoD: return "DtoD";
    case CopyKind::kHtoH: return "HtoH";
    case CopyKind::kPtoP: return "PtoP";
  }
  return "?";
}

std::string_view to_string(Mechanism m) {
  switch (m) {
    case Mechanism::kUnknown: return "unknown";
    case Mechanism::kCopyEngine: return "ce";
    case Mechanism::kTma: return "tma";
    case Mechanism::kLdSt: return "ldst";
    case Mechanism::kMultimem: return "multimem";
    case Mechanism::kNic: return "nic";
  }
  return "?";
}

std::string_view to_string(SyncKind k) {
  switch (k) {
    case SyncKind::kUnknown: return "sync";
    case SyncKind::kEventSync: return "event_sync";
    case SyncKind::kStreamWaitEvent: return "stream_wait_event";
    case SyncKind::kStreamSync: return "stream_sync";
    case SyncKind::kContextSync: return "context_sync";
    case SyncKind::kDeviceSync: return "device_sync";
  }
  return "?";
}

std::string_view to_string(SmRole r) {
  switch (r) {
    case SmRole::kCompute: return "compute";
    case SmRole::kCommunicate: return "communicate";
    case SmRole::kWait: return "wait";
    case SmRole::kOther: return "other";
  }
  return "?";
}

std::string_view to_string(CollectiveOp op) {
  switch (op) {
    case CollectiveOp::kUnknown: return "unknown";
    case CollectiveOp::kAllReduce: return "allreduce";
    case CollectiveOp::kAllGather: return "allgather";
    case CollectiveOp::kReduceScatter: return "reducescatter";
    case CollectiveOp::kBroadcast: return "broadcast";
    case CollectiveOp::kReduce: return "reduce";
    case CollectiveOp::kAllToAll: return "alltoall";
    case CollectiveOp::kSend: return "send";
    case CollectiveOp::kRecv: return "recv";
    case CollectiveOp::kSendRecv: return "sendrecv";
    case CollectiveOp::kBarrier: return "barrier";
    case CollectiveOp::kGather: return "gather";
    case CollectiveOp::kScatter: return "scatter";
  }
  return "?";
}

CollectiveOp collective_op_from_name(std::string_view name) {
  std::string n;
  n.reserve(name.size());
  for (char c : name)
    if (c != '_' && c != ' ' && c != '-') n.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  // PyTorch names: allreduce, allreduce_coalesced, _allgather_base, all_gather_into_tensor,
  // reduce_scatter_tensor, alltoall_base, send, recv, broadcast, barrier; NCCL: AllReduce, SendRecv
  auto starts = [&](std::string_view p) { return n.compare(0, p.size(), p) == 0; };
  if (starts("allreduce")) return CollectiveOp::kAllReduce;
  if (starts("allgather")) return CollectiveOp::kAllGather;
  if (starts("reducescatter")) return CollectiveOp::kReduceScatter;
  if (starts("alltoall")) return CollectiveOp::kAllToAll;
  if (starts("broadcast")) return CollectiveOp::kBroadcast;
  if (starts("reduce")) return CollectiveOp::kReduce;
  if (starts("sendrecv")) return CollectiveOp::kSendRecv;
  if (starts("send")) return CollectiveOp::kSend;
  if (starts("recv")) return CollectiveOp::kRecv;
  if (starts("barrier")) return CollectiveOp::kBarrier;
  if (starts("gather")) return CollectiveOp::kGather;
  if (starts("scatter")) return CollectiveOp::kScatter;
  return CollectiveOp::kUnknown;
}

std::string_view to_string(FlowKind k) {
  switch (k) {
    case FlowKind::kLaunch: return "launch";
    case FlowKind::kSendRecv: return "send_recv";
    case FlowKind::kSignalWait: return "signal_wait";
    case FlowKind::kCollective: return "collective";
    case FlowKind::kDependency: return "dependency";
    case FlowKind::kGeneric: return "flow";
  }
  return "?";
}

std::string_view to_string(TrackKind k) {
  switch (k) {
    case TrackKind::kCpuThread: return "thread";
    case TrackKind::kGpuStream: return "stream";
    case TrackKind::kGpuAnnotation: return "gpu_annotation";
    case TrackKind::kSmLane: return "sm";
    case TrackKind::kCopyEngine: return "copy_engine";
    case TrackKind::kLink: return "link";
    case TrackKind::kCounter: return "counter";
    case TrackKind::kNvtx: return "nvtx";
    case TrackKind::kCollective: return "collective";
    case TrackKind::kAsync: return "async";
    case TrackKind::kCount: break;
  }
  return "?";
}

std::string stream_label(const TrackKey& key) {
  if (key.id >= kStandInStreamBase) return "stand-in collectives (group " + std::to_string(key.id - kStandInStreamBase) + ")";
  return key.id < 0 ? std::string("stream (none)") : "stream " + std::to_string(key.id);
}

std::string_view to_string(CounterSource s) {
  switch (s) {
    case CounterSource::kMeasured: return "measured";
    case CounterSource::kEstimated: return "estimated";
    case CounterSource::kSimulated: return "simulated";
  }
  return "?";
}

}  // namespace parascope
