"""L1's cycles for a gather (counters.l1_gather_waves): the lines a request touches four a
cycle, or its bank conflicts, whichever is more; measured on the H100 with lanes 128 bytes
apart (one bank: 32 cycles for 32 lines) and 132 bytes apart (32 banks: 8.6), bytes and
words alike (docs/results/timing_investigation/l1gather/)."""
from pathlib import Path

import numpy as np
import pytest

from kernels_cuda.backend import EmulatorBackend

SRC = str(Path(__file__).resolve().parents[1] / "docs/results/timing_investigation/l1gather/l1gather.cu")
L = np.arange(32)


@pytest.mark.parametrize("kernel, off, active, cycles", [
    ("gather_f", L * 128, 32, 32),                       # 32 lines, one bank
    ("gather_f", L * 132, 32, 8),                        # 32 lines, 32 banks: tags, 4 a cycle
    ("gather_f", L * 128 + 4 * (L // 4), 32, 8),         # 32 lines, 4 lanes a bank
    ("gather_f", (L // 2) * 128 + (L % 2) * 64, 32, 16),  # 16 lines, banks 0 and 16
    ("gather_f", L * 132, 16, 4),                        # 16 lanes, 16 lines, 16 banks
    ("gather_b", L * 128, 32, 32),                       # bytes, one bank
    ("gather_b", L * 33, 32, 2),                         # bytes 33 apart: 8 lines, 32 banks
    ("gather_b", L * 32, 32, 8),                         # bytes 32 apart: 8 lines, 4 banks
])
def test_a_gathers_l1_cycles_are_its_tags_or_its_bank_conflicts(kernel, off, active, cycles):
    be = EmulatorBackend(seed=0, sanitize=False)
    table = be.to_device(np.ones(4096, np.float32) if kernel == "gather_f" else np.ones(16384, np.uint8))
    reps = 8
    be.launch(SRC, kernel, 1, 256, [table, be.to_device(off.astype(np.int32)), be.zeros(1, np.float32),
                                    np.int32(reps), np.int32(active)])
    m = be.launches[-1].metrics
    lines = len(set((off[:active] // 128).tolist()))
    loop = m["simt__l1_wavefronts_ld.sum"] - 8            # less the 8 warps' one-line load of off[]
    assert loop == 8 * reps * cycles
    assert m["simt__l1_lines_ld.sum"] - 8 == 8 * reps * lines
