"""Run one timing probe (kernels_cuda.timing_probes) in the emulator at a small size, with
the sanitizer on, for the tests that check a probe computes what it says.  The launches
skip the timing model's per-lane clocks and the memory counters (``track_time=False``,
``count_memory=False``): these tests check outputs and the sanitizer's findings, and the
model's inputs are checked where predictions are made (tests/test_timing.py,
tests/test_counters.py)."""
from dataclasses import replace

import numpy as np

from kernels_cuda import timing_probes
from kernels_cuda.backend import EmulatorBackend


def launch(pid, n, seed=0, policy="lockstep", count_memory=False):
    """Run probe `pid` at size n; (host inputs, host arrays after, symbols, result);
    ``count_memory=True`` for a test of the memory counters (bank conflicts, sectors)."""
    p = timing_probes.get(pid)
    rng = np.random.default_rng(seed)
    host = p.args(n, rng)
    syms = p.symbols(n, rng) if p.symbols else {}
    after, res = _run(p, host, syms, n, seed, policy, count_memory)
    return host, after, syms, res


def run(pid, host, n, policy="lockstep", symbols=None, grid=None):
    """Probe pid's kernel on hand-made arguments host, its grid sized for n (or ``grid``,
    e.g. ``(1, 1)`` for its first block alone), with the sanitizer on (as ``launch``): the
    host arrays after."""
    p = timing_probes.get(pid)
    if grid is not None:
        p = replace(p, grid=lambda _n: grid)
    return _run(p, host, symbols or {}, n, 0, policy)[0]


def _run(p, host, syms, n, seed, policy, count_memory=False):
    be = EmulatorBackend(seed=seed, policy=policy, sanitize=True, track_time=False, count_memory=count_memory)
    dev = p.launch(be, host, syms, n)
    after = [be.to_host(d) if isinstance(a, np.ndarray) and a.ndim > 0 else a for a, d in zip(host, dev)]
    res = be.launches[-1]
    assert res.sanitizer == [], [f.as_dict() for f in res.sanitizer]      # no race, no bad access
    return after, res


def conv_same(img: np.ndarray, filt: np.ndarray) -> np.ndarray:
    """The k x k correlation of a square image with zeros outside it, in float64 (the
    reference of the tiled convolution probes)."""
    k = filt.shape[0]
    n = img.shape[0]
    P = np.pad(img.astype(np.float64), k // 2)
    out = np.zeros((n, n))
    for dy in range(k):
        for dx in range(k):
            out += filt[dy, dx] * P[dy:dy + n, dx:dx + n]
    return out
