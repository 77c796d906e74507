"""NCCL all-reduce (64 MiB bf16) alone and beside GEMMs on another stream, 2 x H200.

Run under torchrun --nproc_per_node=2, with NCCL_MAX_NCHANNELS set (or unset: NCCL's default).
The all-reduce is launched first on one stream (it gets its SMs), then 4 GEMMs on a second stream,
so it runs beside a GEMM for its whole time. GEMMs: 8192^3, and the TP captures' NNT (8192x4096 @
4096x8192) and TNT (8192x8192 @ (4096x8192)^T). CUDA events on each stream (they include the
launch and the peers' skew, ~100-200 us), medians of 12. Rank 0 prints one JSON line per GEMM.
"""
import json,os,statistics,sys,torch,torch.distributed as dist
l=int(os.environ["LOCAL_RANK"]);torch.cuda.set_device(l);dev=torch.device("cuda",l)
dist.init_process_group("nccl",device_id=dev);r=dist.get_rank()
side,comp=torch.cuda.Stream(),torch.cuda.Stream();E=lambda:torch.cuda.Event(enable_timing=True)
R=lambda *s:torch.randn(*s,device=dev,dtype=torch.bfloat16)
shapes={"sq8192":(R(8192,8192),R(8192,8192)),"tp_nnt":(R(8192,4096),R(4096,8192)),"tp_tnt":(R(8192,8192),R(4096,8192).t())}
buf=R(32<<20)
for nm,(a,b) in shapes.items():
  for _ in range(3): dist.all_reduce(buf);a@b
  torch.cuda.synchronize();al,bs,ga,gb=[],[],[],[]
  for _ in range(12):
    for mode in (0,1,2):
      dist.barrier();torch.cuda.synchronize();e0,e1,g0,g1=E(),E(),E(),E()
      if mode!=1:
        with torch.cuda.stream(side): e0.record(side);dist.all_reduce(buf);e1.record(side)
      if mode!=0:
        with torch.cuda.stream(comp):
          g0.record(comp)
          for _ in range(4): a@b
          g1.record(comp)
      torch.cuda.synchronize()
      if mode==0: al.append(e0.elapsed_time(e1)*1e3)
      if mode==1: ga.append(g0.elapsed_time(g1)*1e3)
      if mode==2: bs.append(e0.elapsed_time(e1)*1e3);gb.append(g0.elapsed_time(g1)*1e3)
  m=statistics.median
  if r==0: print(json.dumps({"nch":os.environ.get("NCCL_MAX_NCHANNELS","default"),"gemm":nm,"ar_alone":m(al),"ar_beside":m(bs),"ratio":m(bs)/m(al),"gemm4_alone":m(ga),"gemm4_beside":m(gb)}),flush=True)
dist.destroy_process_group()
