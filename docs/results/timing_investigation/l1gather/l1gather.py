"""l1gather.cu on the present GPU: 132 x 8 blocks of 256 threads, 4096 trips each, per
pattern of lane offsets (lines and sectors a request touches, active lanes, word or byte).
python l1gather.py [PATTERN ...] > l1gather_<gpu>.jsonl"""
import json
import sys
from pathlib import Path
import numpy as np
import cupy as cp

mod = cp.RawModule(code=(Path(__file__).parent / "l1gather.cu").read_text())
props = cp.cuda.runtime.getDeviceProperties(0)
SMS = props["multiProcessorCount"]
REPS = 4096
L = np.arange(32)
PATTERNS = {        # name: (kernel, byte offset a lane, active lanes)
    "word_32lines": ("gather_f", L * 128, 32),
    "word_16lines_2sectors": ("gather_f", (L // 2) * 128 + (L % 2) * 64, 32),
    "word_8lines_4sectors": ("gather_f", (L // 4) * 128 + (L % 4) * 32, 32),
    "word_16lanes_16lines": ("gather_f", L * 128, 16),
    "word_8lanes_8lines": ("gather_f", L * 128, 8),
    "byte_32lines": ("gather_b", L * 128, 32),
    "byte_8lines_32sectors": ("gather_b", L * 32, 32),
    "byte_33apart": ("gather_b", L * 33, 32),
    "byte_16lanes_16lines": ("gather_b", L * 128, 16),
    # (second run: the same lines, the lanes in different banks)
    "word_32lines_32banks": ("gather_f", L * 132, 32),
    "word_32lines_2way": ("gather_f", L * 128 + 4 * (L // 2), 32),
    "word_32lines_4way": ("gather_f", L * 128 + 4 * (L // 4), 32),
    "byte_32lines_32banks": ("gather_b", L * 132, 32),
    "word_16lanes_16banks": ("gather_f", L * 132, 16),
    "word_1line": ("gather_f", L * 4, 32),
}


def main():
    print(json.dumps({"device": props["name"].decode(), "sms": SMS, "reps": REPS}), flush=True)
    table_f, table_b = cp.ones(4096, cp.float32), cp.ones(16384, cp.uint8)
    out = cp.zeros(SMS * 8, cp.float32)
    only = sys.argv[1:]
    for name, (kern, off, active) in PATTERNS.items():
        if only and name not in only:
            continue
        k = mod.get_function(kern)
        offs = cp.asarray(off.astype(np.int32))
        args = (table_f if kern == "gather_f" else table_b, offs, out, np.int32(REPS), np.int32(active))
        k((SMS * 8,), (256,), args); cp.cuda.Device().synchronize()
        ts = []
        for _ in range(7):
            a, b = cp.cuda.Event(), cp.cuda.Event()
            a.record(); k((SMS * 8,), (256,), args); b.record(); b.synchronize()
            ts.append(cp.cuda.get_elapsed_time(a, b))
        ms = float(np.median(ts))
        lines = len(set((off[:active] // 128).tolist()))
        sectors = len(set((off[:active] // 32).tolist()))
        req = SMS * 8 * 8 * REPS
        print(json.dumps({"pattern": name, "lines": lines, "sectors": sectors, "active": active, "ms": round(ms, 5),
                          "cycles_per_request": round(ms * 1.98e6 * SMS / req, 3)}), flush=True)


if __name__ == "__main__":
    main()
