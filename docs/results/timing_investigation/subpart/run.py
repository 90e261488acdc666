"""Time subpart.cu's busy kernel on the GPU: the same 16 busy warps an SM, each running the
same trips, placed as different warps of their blocks.  If the SM spread warps over its
four sub-partitions whatever their place in the block, every case would take the same
time; if a warp's sub-partition is its warp index mod 4 (its slot), a block whose only busy
warp is warp 0 puts all of them on one or two sub-partitions.  Prints each case's median
of 20 CUDA-event timings and its ratio to the case of one-warp blocks.  On the GPU machine:

    python docs/results/timing_investigation/subpart/run.py > docs/results/timing_investigation/subpart/h200.txt"""
import pathlib, statistics
import cupy as cp

HERE = pathlib.Path(__file__).parent
CASES = [  # (name, threads per block, blocks an SM, busy mask): 16 busy warps an SM each
    ("32-thread blocks (warp 0 busy)", 32, 16, 0b1),
    ("64-thread blocks, warp 0 busy", 64, 16, 0b1),
    ("64-thread blocks, warps 0-1 busy", 64, 8, 0b11),
    ("128-thread blocks, warps 0 and 2 busy", 128, 8, 0b0101),
    ("128-thread blocks, warps 0 and 1 busy", 128, 8, 0b0011),
    ("128-thread blocks, warp 0 busy", 128, 16, 0b0001),
    ("128-thread blocks, warps 0-3 busy", 128, 4, 0b1111),
    ("256-thread blocks, warps 0 and 4 busy", 256, 8, 0b00010001),
    ("256-thread blocks, warps 0-3 busy", 256, 4, 0b00001111),
]


def main():
    fn = cp.RawModule(code=(HERE / "subpart.cu").read_text(), options=("--std=c++17",)).get_function("busy")
    sms = cp.cuda.Device().attributes["MultiProcessorCount"]
    ITERS = 20000
    out = cp.zeros(sms * 16 * 128, cp.float32)
    res = {}
    for name, tpb, per_sm, mask in CASES:
        grid = sms * per_sm
        args = (out, cp.int32(ITERS), cp.uint32(mask))
        for _ in range(3):
            fn((grid,), (tpb,), args)
        ts = []
        for _ in range(20):
            s, e = cp.cuda.Event(), cp.cuda.Event()
            s.record(); fn((grid,), (tpb,), args); e.record(); e.synchronize()
            ts.append(cp.cuda.get_elapsed_time(s, e))
        res[name] = statistics.median(ts)
    base = res[CASES[0][0]]
    print(f"{cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}, {sms} SMs, {ITERS} trips of 8 FMAs a busy warp, 16 busy warps an SM")
    for name, tpb, per_sm, mask in CASES:
        print(f"{name:42s} {tpb:4d} x {per_sm:2d} an SM, mask {mask:#06b}: {res[name]:.4f} ms  {res[name] / base:.2f}x")


if __name__ == "__main__":
    main()
