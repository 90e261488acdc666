"""One launch of each pstore.cu case, for Nsight Compute (run.sh)."""
from pathlib import Path
import numpy as np
import cupy as cp

mod = cp.RawModule(code=(Path(__file__).parent / "pstore.cu").read_text())
N = 1 << 25
for name, dt in (("st_u8", cp.uint8), ("st_u32", cp.uint32)):
    out = cp.zeros(N, dt)
    for per in (1, 4, 8, 32, 128):
        grid = -(-(N // per) // 256)
        mod.get_function(name)((grid,), (256,), (out, np.int32(N), np.int32(per)))
cp.cuda.Device().synchronize()
