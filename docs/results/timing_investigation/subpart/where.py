"""Run where.cu for run.py's cases and print, per case: blocks per SM (least, most over the
SMs), and over the busy warps the most and the mean per (SM, slot mod 4): 4 when busy
warps spread evenly over the sub-partitions of 16 an SM, 8 or 16 if they pile up.  On the GPU
machine:  python docs/results/timing_investigation/subpart/where.py"""
import pathlib, collections
import numpy as np
import cupy as cp

HERE = pathlib.Path(__file__).parent
fn = cp.RawModule(code=(HERE / "where.cu").read_text(), options=("--std=c++17",)).get_function("where")
sms = cp.cuda.Device().attributes["MultiProcessorCount"]
from run import CASES  # noqa: E402  (the same cases, beside this file)
for name, tpb, per_sm, mask in CASES:
    grid = sms * per_sm
    wpb = tpb // 32
    smid = cp.zeros(grid * wpb, cp.uint32); slot = cp.zeros(grid * wpb, cp.uint32)
    fn((grid,), (tpb,), (smid, slot, cp.zeros(grid, cp.float32), cp.int32(2000), cp.uint32(mask)))
    s, k = smid.get().reshape(grid, wpb), slot.get().reshape(grid, wpb)
    blocks = collections.Counter(s[:, 0].tolist())
    busy = [(int(s[b, w]), int(k[b, w]) % 4) for b in range(grid) for w in range(wpb) if (mask >> w) & 1]
    per = collections.Counter(busy)
    print(f"{name:42s} blocks/SM {min(blocks.values())}-{max(blocks.values())} on {len(blocks)} SMs; "
          f"busy warps per sub-partition: max {max(per.values())}, mean {np.mean(list(per.values())):.1f} "
          f"over {len(per)} (SM, slot%4); slot%4 of warp 0s: {collections.Counter(k[:, 0] % 4).most_common()}")
