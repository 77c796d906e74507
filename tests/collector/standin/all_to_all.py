# Expert-parallel style exchange on a world of 4: the split sizes first (an all_to_all_single of
# one int64 per peer), then the tokens with uneven splits, then the reverse exchange, async with
# an explicit wait. Rank 0 sends 1, 2, 3, 4 rows of 8 float32 to ranks 0..3.
import torch
import torch.distributed as dist

dist.init_process_group("gloo")
world, rank = dist.get_world_size(), dist.get_rank()
send_counts = torch.tensor([1 + i for i in range(world)], dtype=torch.int64)
recv_counts = torch.empty(world, dtype=torch.int64)
dist.all_to_all_single(recv_counts, send_counts)
# the stand-in gave us our own counts back (outputs of at most 64 KiB hold this rank's data)
assert recv_counts.tolist() == send_counts.tolist(), recv_counts
tokens = torch.randn(int(send_counts.sum()), 8)
received = torch.empty(int(recv_counts.sum()), 8)
dist.all_to_all_single(received, tokens, recv_counts.tolist(), send_counts.tolist())
back = torch.empty_like(tokens)
work = dist.all_to_all_single(back, received, send_counts.tolist(), recv_counts.tolist(), async_op=True)
work.wait()
dist.destroy_process_group()
