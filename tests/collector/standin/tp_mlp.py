# A Megatron-style tensor-parallel MLP step written with plain collectives (works on torch 1.13
# and 2.x): column-parallel fc1 (hidden 64 split over the TP group), row-parallel fc2, the
# forward all-reduce of fc2's partial output, the backward all-reduce of the input gradient, and
# a data-parallel all-reduce of the gradients over the DP group. World 4 = TP 2 x DP 2:
# TP groups [0, 1], [2, 3]; DP groups [0, 2], [1, 3].
import torch
import torch.distributed as dist

dist.init_process_group("gloo")
world, rank = dist.get_world_size(), dist.get_rank()
tp = 2
tp_groups = [dist.new_group(list(range(i, i + tp))) for i in range(0, world, tp)]
dp_groups = [dist.new_group(list(range(j, world, tp))) for j in range(tp)]
tp_group = tp_groups[rank // tp]
dp_group = dp_groups[rank % tp]


class AllReduceBackward(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x

    @staticmethod
    def backward(ctx, g):
        g = g.contiguous()
        dist.all_reduce(g, group=tp_group)
        return g


class AllReduceForward(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        x = x.contiguous()
        dist.all_reduce(x, group=tp_group)
        return x

    @staticmethod
    def backward(ctx, g):
        return g


torch.manual_seed(0)
fc1 = torch.nn.Linear(16, 64 // tp)            # column parallel: 32 outputs here
fc2 = torch.nn.Linear(64 // tp, 16, bias=False)  # row parallel
x = torch.randn(8, 16, requires_grad=True)
h = torch.relu(fc1(AllReduceBackward.apply(x)))
y = AllReduceForward.apply(fc2(h))
y.sum().backward()
for p in list(fc1.parameters()) + list(fc2.parameters()):
    dist.all_reduce(p.grad, group=dp_group)
dist.destroy_process_group()
