/* The C interface of libparascope_pkb_kernels.so: Parascope's collective kernels
 * (kernels/collectives/collectives.h) for programs where each rank is its own process and peer memory
 * comes from elsewhere, such as ParallelKernelBench's "cuda" backend (torch symmetric memory gives
 * every rank's device address of a buffer). Each call enqueues the calling rank's kernel on
 * `stream`; every rank calls the same function with the same sizes, in the same order. Pointer
 * arrays hold `nranks` device addresses, index = rank. `sync`: each rank's SyncArea, a zeroed
 * peer-visible buffer of parascope_pkb_sync_bytes() bytes. Returns 0, or -1 with
 * parascope_pkb_last_error() saying why. `pkb solutions` writes the Python that calls these. */
#ifndef PARASCOPE_PKB_KERNELS_H
#define PARASCOPE_PKB_KERNELS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PARASCOPE_PKB_ABI_VERSION 1

int parascope_pkb_abi_version(void);
uint64_t parascope_pkb_sync_bytes(void);
const char* parascope_pkb_last_error(void);
/* Loads every kernel now (never lazily while a peer's kernel spins). */
int parascope_pkb_preload(void);

/* dtype: 0 float32, 1 bfloat16. max_sms: block limit (0: all SMs). */
/* all-reduce of `bytes` per rank. algo 0: one-shot pull (in symmetric, out local), 1: two-shot
 * LD/ST (in, out and scratch symmetric, scratch >= bytes). */
int parascope_pkb_all_reduce(int algo, int rank, int nranks, const uint64_t* in, const uint64_t* out,
                             const uint64_t* scratch, const uint64_t* sync, int dtype, uint64_t bytes, int max_sms,
                             uint64_t stream);
/* all-gather (LD/ST push): in local (bytes / nranks), out symmetric (`bytes`, the gathered output). */
int parascope_pkb_all_gather(int rank, int nranks, const uint64_t* in, const uint64_t* out, const uint64_t* sync,
                             uint64_t bytes, int max_sms, uint64_t stream);
/* reduce-scatter (pull): in symmetric (`bytes`, the whole input), out local (bytes / nranks). */
int parascope_pkb_reduce_scatter(int rank, int nranks, const uint64_t* in, const uint64_t* out, const uint64_t* sync,
                                 int dtype, uint64_t bytes, int max_sms, uint64_t stream);
/* all-to-all (LD/ST push): in local, out symmetric, `bytes` per rank (nranks blocks). */
int parascope_pkb_all_to_all(int rank, int nranks, const uint64_t* in, const uint64_t* out, const uint64_t* sync,
                             uint64_t bytes, int max_sms, uint64_t stream);

#ifdef __cplusplus
}
#endif

#endif
