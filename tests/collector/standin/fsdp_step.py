# One FSDP2 training step (torch.distributed.fsdp.fully_shard, torch >= 2.6) of a three-layer MLP
# on the CPU: what the stand-in must record (check_standin.py). World 4; every Linear is its own
# FSDP unit (the root holds no parameters), all dimension-0 sizes divisible by 4 so no padding:
#   fc1 16x32 + 32 = 544 floats (136 per rank), fc2 32x32 + 32 = 1056 (264), fc3 32x8 + 8 = 264 (66).
# Two steps: each all-gathers every unit before its forward (and again before its backward
# where it was resharded) and reduce-scatters every unit's gradient once.
import torch
import torch.distributed as dist
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.fsdp import fully_shard

dist.init_process_group("gloo")
mesh = init_device_mesh("cpu", (dist.get_world_size(),))
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 32), torch.nn.ReLU(),
                            torch.nn.Linear(32, 8))
for i in (0, 2, 4):
    fully_shard(model[i], mesh=mesh)
fully_shard(model, mesh=mesh)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for _ in range(2):
    model(torch.randn(4, 16)).sum().backward()
    opt.step()
    opt.zero_grad()
dist.destroy_process_group()
