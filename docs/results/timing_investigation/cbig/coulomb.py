"""probe/coulomb-grid-const's own kernel (kernels_cuda/probes71.cu, coulomb_grid: nvcc reads
the __constant__ float4 atoms with ULDC.64) over the first natoms atoms of its table, a
64^3 grid of 16 x 16 blocks: cycles a warp-atom on an SM against the bytes the loop reads.
python coulomb.py > coulomb_GPU.jsonl on the GPU."""
import json
from pathlib import Path

import numpy as np

SRC = (Path(__file__).resolve().parents[4] / "kernels_cuda" / "probes71.cu").read_text()


def main():
    import cupy as cp
    mod = cp.RawModule(code=SRC, options=("-I" + str(Path(cp.__file__).parent / "_core" / "include"),))
    tab = mod.get_global("c_atoms")
    rng = np.random.default_rng(0)
    atoms = np.concatenate([rng.random((4000, 3)) * 40, rng.choice([-0.8, 0.4], (4000, 1))], 1).astype(np.float32)
    cp.ndarray((4000, 4), cp.float32, memptr=tab).set(atoms)
    f = mod.get_function("coulomb_grid")
    n = 64
    pot = cp.zeros(n ** 3, cp.float32)
    s, e = cp.cuda.Event(), cp.cuda.Event()
    print(json.dumps({"gpu": cp.cuda.runtime.getDeviceProperties(0)["name"].decode()}), flush=True)
    for natoms in (64, 128, 256, 512, 1024, 2048, 3900):
        args = (pot, np.float32(0.6), np.int32(natoms), np.int32(n), np.int32(n), np.int32(n))
        for _ in range(2):
            f((n // 16, n // 16, n), (16, 16), args)
        ts = []
        for _ in range(7):
            s.record(); f((n // 16, n // 16, n), (16, 16), args); e.record(); e.synchronize()
            ts.append(cp.cuda.get_elapsed_time(s, e))
        ms = float(np.median(ts))
        print(json.dumps({"natoms": natoms, "bytes": natoms * 16, "ms": ms,
                          "cycles_per_warp_atom_sm": ms * 1.98e6 / (n ** 3 / 32 / 132 * natoms)}), flush=True)


if __name__ == "__main__":
    main()
