# The functional collectives (torch.distributed._functional_collectives, torch >= 2.1) on the CPU,
# each waited through wait_tensor: what the stand-in must record exactly (check_standin.py).
# World 4, rank 0, the world group.
import torch
import torch.distributed as dist
import torch.distributed._functional_collectives as funcol

dist.init_process_group("gloo")
group = dist.group.WORLD
x = torch.ones(8, 4)
funcol.wait_tensor(funcol.all_reduce(x, "sum", group))                           # 32 -> 32
funcol.wait_tensor(funcol.all_gather_tensor(x, 0, group))                        # 32 -> 128
funcol.wait_tensor(funcol.reduce_scatter_tensor(torch.ones(16, 4), "sum", 0, group))  # 64 -> 16
# uneven all-to-all: rows 1, 2, 3, 4 of 8 floats to ranks 0..3, one row from each
funcol.wait_tensor(funcol.all_to_all_single(torch.ones(10, 8), [1, 1, 1, 1], [1, 2, 3, 4], group))  # 80 -> 32
dist.destroy_process_group()
