// Per-link traffic over time, estimated from what a trace says moved: peer copies (MemcpyInfo with
// two different devices: `bytes` from src to dst over the copy's duration) and collective
// annotations (each rank pushes S × busbw-factor bytes — collective_bandwidth.h — over its
// kernel's duration). A collective whose match (collective_matcher.h) has exactly two ranks goes on
// the link between their devices; otherwise it goes on the device's egress to the fabric (dst =
// kNoDevice), because which peer a ring step used is not in the trace. Bytes are spread evenly
// over each transfer's duration; concurrent transfers add up.
// Everything here is an estimate (CounterSource::kEstimated), never a measurement.
#pragma once

#include <string>
#include <vector>

#include "trace/core/trace.h"

namespace parascope {

struct LinkTrafficOptions {
  bool peer_copies = true;
  bool collectives = true;
  // Link capacity per direction in bytes/s for utilization; 0: from the trace's Link entries or
  // its topology (a direct link, or the two GPUs' links into one switch; the sum of a GPU's
  // NVLink bandwidth for fabric egress), else unknown.
  double capacity_bytes_per_s = 0;
};

struct LinkSeries {
  Link link;               // direction kTx, as seen from src_device
  std::string name;        // "rank 0 GPU 0 → rank 1 GPU 1", "rank 0 GPU 0 → fabric"
  // Step function: bytes_per_s[i] holds from time[i] until time[i + 1]; the last sample is 0.
  std::vector<TimeNs> time;
  std::vector<double> bytes_per_s;
  uint64_t bytes = 0;
  int64_t transfers = 0;
  TimeNs active_ns = 0;    // time with at least one transfer in flight
  double peak_bytes_per_s = 0;
  double capacity_bytes_per_s = 0;  // 0: unknown
  // utilization(t) = bytes_per_s(t) / capacity. Mean over active time and peak; 0 when unknown.
  double mean_active_utilization() const;
  double peak_utilization() const;
};

struct LinkTraffic {
  std::vector<LinkSeries> links;      // sorted by (src, dst)
  int64_t peer_copies = 0;            // transfers counted, by source
  int64_t collectives = 0;
  int64_t unsized_collectives = 0;    // annotated, but without element counts/size or group size
  int64_t unannotated_comm_kernels = 0;  // communication kernels with no size at all (e.g. bare SendRecv)
};

LinkTraffic estimate_link_traffic(const Trace& trace, const LinkTrafficOptions& options = {});

// Appends one counter track per series (TrackKind::kLink, unit "bytes/s", CounterSource::kEstimated,
// named "<series name> (estimated)"), registering its Link in trace.links. A link that already has
// a kLink track (a measured one) gets a kCounter track instead, so measurements are never mixed
// with estimates. Only counter tracks with sorted samples are added: the trace's slice invariants
// and every EventRef stay valid. Returns the number of tracks added.
size_t append_link_counter_tracks(Trace& trace, const LinkTraffic& traffic);

}  // namespace parascope
