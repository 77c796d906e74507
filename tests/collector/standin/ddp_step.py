# One DDP training step of a two-layer MLP on the CPU: what the stand-in must record exactly
# (check_standin.py). Parameters: 16x32 + 32 + 32x8 + 8 = 808 float32, one gradient bucket.
import torch
import torch.distributed as dist

dist.init_process_group("gloo")
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 8))
ddp = torch.nn.parallel.DistributedDataParallel(model)
opt = torch.optim.SGD(ddp.parameters(), lr=0.1)
loss = ddp(torch.randn(4, 16)).sum()
loss.backward()
opt.step()
dist.destroy_process_group()
