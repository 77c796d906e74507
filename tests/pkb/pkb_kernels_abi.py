"""libparascope_pkb_kernels.so's C interface without a GPU, through ctypes as the PKB solutions use
it: the ABI version, the SyncArea size, and the argument checks that answer before any CUDA call."""
import ctypes
import sys

lib = ctypes.CDLL(sys.argv[1])
lib.parascope_pkb_sync_bytes.restype = ctypes.c_uint64
lib.parascope_pkb_last_error.restype = ctypes.c_char_p
u64 = ctypes.c_uint64
assert lib.parascope_pkb_abi_version() == 1
# SyncArea: 15 channels of (4 x 264 x 8 flags + 264 epochs + 64 x 8 counters + 64 x 8 waits) u32, + 2 u32
assert lib.parascope_pkb_sync_bytes() == (15 * (4 * 264 * 8 + 264 + 64 * 8 * 2) + 2) * 4, lib.parascope_pkb_sync_bytes()
assert lib.parascope_pkb_all_gather(3, 2, None, None, None, u64(64), 0, u64(0)) == -1
assert lib.parascope_pkb_last_error() == b"rank 3 outside 0..1"
assert lib.parascope_pkb_reduce_scatter(0, 9, None, None, None, 1, u64(64), 0, u64(0)) == -1
assert lib.parascope_pkb_last_error() == b"nranks 9 outside 1..8"
assert lib.parascope_pkb_all_to_all(0, 2, None, None, None, u64(40), 0, u64(0)) == -1
assert lib.parascope_pkb_last_error() == b"bytes 40 is not a positive multiple of 16 x nranks"
assert lib.parascope_pkb_all_reduce(5, 0, 1, None, None, None, None, 1, u64(64), 0, u64(0)) == -1
assert lib.parascope_pkb_last_error() == b"all-reduce algo 5 (0: one-shot pull, 1: two-shot LD/ST)"
print("ok")
