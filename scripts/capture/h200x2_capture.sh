#!/usr/bin/env bash
# One device-machine batch: environment facts, then every capture part, then the NCCL-channel variant.
# Usage (on the 2-GPU machine, from the repo root): scripts/capture/h200x2_capture.sh OUTDIR
set -u
out=${1:?OUTDIR}
mkdir -p "$out/cap"
export PYTHONUNBUFFERED=1 NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
{
  date -u; uname -a; nvidia-smi; nvidia-smi topo -m; nvcc --version; cmake --version | head -1; g++ --version | head -1
  python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "nccl", torch.cuda.nccl.version(), "gpus", torch.cuda.device_count())'
  ls /usr/local/cuda/include | grep -E 'nccl|cupti' ; ls /usr/local/cuda/lib64 | grep -E 'nccl|cupti|cublas'
  python3 -c 'import torch, os; print(os.path.dirname(torch.__file__))'; ls "$(python3 -c 'import torch, os; print(os.path.dirname(torch.__file__))')/lib" | head -50
} > "$out/cap/env.txt" 2>&1
t0=$(date +%s)
torchrun --nproc_per_node=2 scripts/capture/h200x2_capture.py "$out/cap" sample tp dp nccl p2p interference 2>&1 | tee "$out/cap/log_main.txt"
echo "main capture: $(( $(date +%s) - t0 )) s"
t0=$(date +%s)
CAPTURE_LABEL=nch4 NCCL_MAX_NCHANNELS=4 torchrun --nproc_per_node=2 scripts/capture/h200x2_capture.py "$out/cap" tp 2>&1 | tee "$out/cap/log_nch4.txt"
echo "nch4 capture: $(( $(date +%s) - t0 )) s"
du -sh "$out/cap"/* 
