"""Cycles a step of dependent 64-bit integer chains (mont64.cu), on the GPU (--real: one
block on one SM, 1, 4 and 16 warps, clock64 around the loop) and in simt's emulator (the
warp's cycles over the same loop, simt__warp_cycles.mean, minus a 0-step launch).  From the
repository root:
    python docs/results/timing_investigation/mont64/mont64.py [--real]"""
import sys
import numpy as np
import simt

SRC = "docs/results/timing_investigation/mont64/mont64.cu"
N = (1 << 63) + 12345 * 2 + 1           # an odd 64-bit modulus
INV = N
for _ in range(6):
    INV = (INV * (2 - N * INV)) % (1 << 64)
NINV = (-INV) % (1 << 64)
ARGS = {"chain_mont": (N, NINV), "chain_mul64": (6364136223846793005, 1442695040888963407),
        "chain_mulhi64": (0x9E3779B97F4A7C15, 0x1234567)}
STEPS = 256


def emulated(kernel, warps):
    mod = simt.Module.from_file(SRC)
    out = {}
    for steps in (0, STEPS):
        dev = simt.Device()
        x = dev.to_device(np.arange(1, 32 * warps + 1, dtype=np.uint64) * 7919)
        cyc = dev.zeros(warps, np.int64)
        a, b = ARGS[kernel]
        r = mod.get_function(kernel).launch(dev, simt.LaunchConfig.of(1, 32 * warps),
                                            [x, np.uint64(a), np.uint64(b), np.int32(steps), cyc], sanitize=False)
        out[steps] = r.metrics["simt__warp_cycles.mean"]
    return (out[STEPS] - out[0]) / STEPS


def real(kernel, warps):
    import cupy as cp
    mod = cp.RawModule(code=open(SRC).read(), options=("-std=c++17",))
    f = mod.get_function(kernel)
    x = cp.arange(1, 32 * warps + 1, dtype=cp.uint64) * 7919
    cyc = cp.zeros(warps, cp.int64)
    a, b = ARGS[kernel]
    got = []
    for _ in range(5):
        f((1,), (32 * warps,), (x, cp.uint64(a), cp.uint64(b), cp.int32(STEPS), cyc))
        cp.cuda.Device().synchronize()
        got.append(float(cyc.get().mean()) / STEPS)
    return float(np.median(got))


if __name__ == "__main__":
    use_real = "--real" in sys.argv
    for k in ARGS:
        for w in (1, 4, 16):
            row = f"{k:14s} warps {w:2d}  simt {emulated(k, w):7.1f} cycles a step"
            if use_real:
                row += f"  GPU {real(k, w):7.1f}"
            print(row, flush=True)
