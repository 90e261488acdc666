"""Kernels outside the catalog, at large sizes, for checking the timing model.

The catalog's entries are what the timing model was built against; these launches are
not.  They reuse ``probes.cu`` (written for the counter cross-check) at sizes where the
GPU is busy for tens of microseconds or more: transposes (naive, tiled, padded), strided
and scattered loads, a stencil, a shuffle reduction, shared and global atomics,
divergence.  Families ``probe-unseen`` to ``probe-unseen4`` (``probes2.cu`` to
``probes5.cu``) were written after the model changes they test, the last three with their
predictions committed before their first GPU run
(docs/results/timing_investigation/unseen2/ to unseen4/), as were ``probe-unseen5`` to
``probe-unseen8`` (``probes6.cu`` to ``probes9.cu``), ``probe-unseen9`` (``probes10.cu``:
``__constant__`` and ``__device__`` variables) and ``probe-unseen10`` (``probes11.cu``:
structs, ``switch`` and an enum), ``probe-unseen11`` (``probes12.cu``: function
templates, deduced template calls, C++ casts) and ``probe-unseen12`` (``probes13.cu``:
memory touched at random around and beyond L2's size).
``python -m kernels_cuda.timing_check measure --probes`` times them on the GPU and
``predict`` puts the model's figure beside each, as for catalog entries.

Each probe quacks like a catalog entry for ``timing_check``: ``id``, ``family``,
``sizes``, ``block``, ``inputs(n, seed)`` and ``run(backend, inputs)``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

SOURCE = "probes.cu"
TILE, ROWS, STENCIL_BLOCK = 32, 8, 128       # as #defined in probes.cu


@dataclass(frozen=True)
class TimingProbe:
    id: str
    family: str
    kernel: str
    n: int
    block: int | tuple
    grid: Callable[[int], int | tuple]
    args: Callable[[int, np.random.Generator], list]
    note: str = ""
    source: str = SOURCE
    # the module's __constant__/__device__ variables the host sets before the launch
    # (cudaMemcpyToSymbol): name -> values, drawn after the arguments
    symbols: Callable[[int, np.random.Generator], dict] | None = None
    shared: int = 0               # dynamic shared memory per block, bytes

    @property
    def sizes(self) -> list[int]:
        return [self.n]

    @property
    def default_n(self) -> int:
        return self.n

    def inputs(self, n: int | None = None, seed: int = 0) -> dict:
        n = int(n or self.n)
        rng = np.random.default_rng(seed)
        host = self.args(n, rng)
        out = {f"arg{k}": a for k, a in enumerate(host)}
        out["n"] = n                 # the grid is sized for the n the arrays were drawn at
        if self.symbols is not None:
            out.update({f"symbol:{k}": v for k, v in self.symbols(n, rng).items()})
        return out

    def run(self, backend, inp: dict) -> dict:
        self.launch(backend, [v for k, v in inp.items() if k.startswith("arg")],
                    {k[7:]: v for k, v in inp.items() if k.startswith("symbol:")},
                    int(inp.get("n", self.n)))
        return {}

    def launch(self, backend, host: list, symbols: dict, n: int) -> list:
        """Set the ``symbols``, copy the ``host`` arguments over and launch at size ``n``;
        the arguments as the kernel got them (device arrays for the arrays)."""
        for k, v in symbols.items():
            backend.get_global(self.source, k, v.shape, v.dtype).set(v)
        dev = [backend.to_device(a) if isinstance(a, np.ndarray) and a.ndim > 0 else a for a in host]
        backend.launch(self.source, self.kernel, self.grid(n), self.block, dev, self.shared)
        return dev


def _f32(n, rng):
    return rng.standard_normal(int(n)).astype(np.float32)


def _i32(n):
    return np.int32(n)


def _u32(n, rng):
    """n uniform random 32-bit unsigned ints."""
    return rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)


def _cas(pid, nslots, hashed, val, n):
    """CAS-add loops on nslots words: val 0 never retries, val 1 contends (a grid that
    fits the GPU at once for 2^17 threads, many waves for 2^22)."""
    return TimingProbe(pid, "probe-cas", "cas_slots", n, 256, lambda n: -(-n // 256),
                       lambda n, rng: [np.zeros(nslots, np.int32), np.uint32(nslots - 1),
                                       np.int32(hashed), np.int32(val), _i32(n)])


N = 1 << 24
NT = 4096                      # transposes: 4096 x 4096 floats


def _transpose(kind):
    return TimingProbe(
        id=f"probe/transpose-{kind}", family="probe-transpose", kernel=f"transpose_{kind}",
        n=NT, block=(TILE, ROWS), grid=lambda n: (n // TILE, n // TILE),
        args=lambda n, rng: [_f32(n * n, rng), np.zeros(n * n, np.float32), _i32(n)])


def _strided(stride):
    n = 1 << 22
    return TimingProbe(
        id=f"probe/load-stride{stride}", family="probe-stride", kernel="global_ld_f32",
        n=n, block=256, grid=lambda n: n // 256,
        args=lambda n, rng: [_f32(n * stride, rng), np.zeros(n, np.float32), np.int32(stride)])


PROBES = [
    _transpose("naive"), _transpose("tiled"), _transpose("padded"),
    _strided(1), _strided(4), _strided(16),
    TimingProbe("probe/gather", "probe-gather", "global_gather", N, 256, lambda n: -(-n // 256),
                lambda n, rng: [_f32(n, rng), rng.integers(0, n, n).astype(np.int32),
                                np.zeros(n, np.float32), _i32(n)]),
    TimingProbe("probe/char-copy-off1", "probe-bytes", "char_copy", N, 256, lambda n: -(-n // 256),
                lambda n, rng: [rng.integers(0, 127, n + 64).astype(np.int8), np.zeros(n, np.int8),
                                np.int32(1), _i32(n)]),
    TimingProbe("probe/stencil1d", "probe-stencil", "stencil1d", N, STENCIL_BLOCK,
                lambda n: n // STENCIL_BLOCK,
                lambda n, rng: [_f32(n, rng), np.zeros(n, np.float32), _i32(n)]),
    TimingProbe("probe/shuffle-reduce", "probe-reduce", "warp_shuffle_reduce", N, 256,
                lambda n: n // 256,
                lambda n, rng: [_f32(n, rng), np.zeros(n // 256, np.float32), _i32(n)]),
    TimingProbe("probe/shared-atomics", "probe-atomics", "atomic_shared", N, 256, lambda n: n // 256,
                lambda n, rng: [rng.integers(0, 1 << 20, n).astype(np.int32), np.zeros(32, np.int32),
                                _i32(n)]),
    TimingProbe("probe/global-atomics-4", "probe-atomics", "atomic_red4", N, 256, lambda n: n // 256,
                lambda n, rng: [np.zeros(4, np.int32)]),
    TimingProbe("probe/divergent-branch", "probe-divergence", "divergent_branch", N, 256,
                lambda n: n // 256,
                lambda n, rng: [rng.integers(0, 100, n).astype(np.int32), np.zeros(n, np.int32), _i32(n)]),
    TimingProbe("probe/divergent-loop", "probe-divergence", "divergent_loop", N, 256,
                lambda n: n // 256,
                lambda n, rng: [rng.integers(0, 100, n).astype(np.int32), np.zeros(n, np.int32), _i32(n)]),
    _cas("probe/cas-packed64-free", 64, 0, 0, N),
    _cas("probe/cas-packed64", 64, 0, 1, 1 << 17),
    _cas("probe/cas-hashed4096", 4096, 1, 1, 1 << 22),
]
# written after the DRAM-latency and queueing changes to the model (probes2.cu), measured
# once they were committed
MM, IMG = 1024, 4096
UNSEEN = [
    TimingProbe("probe/matmul-naive", "probe-unseen", "matmul_naive", MM, (16, 16),
                lambda n: (n // 16, n // 16),
                lambda n, rng: [_f32(n * n, rng), _f32(n * n, rng), np.zeros(n * n, np.float32), _i32(n)],
                source="probes2.cu"),
    TimingProbe("probe/matmul-tiled", "probe-unseen", "matmul_tiled", MM, (16, 16),
                lambda n: (n // 16, n // 16),
                lambda n, rng: [_f32(n * n, rng), _f32(n * n, rng), np.zeros(n * n, np.float32), _i32(n)],
                source="probes2.cu"),
    TimingProbe("probe/saxpy", "probe-unseen", "saxpy", N, 256, lambda n: n // 256,
                lambda n, rng: [np.float32(2.5), _f32(n, rng), _f32(n, rng), _i32(n)], source="probes2.cu"),
    TimingProbe("probe/vecadd-gridstride", "probe-unseen", "vecadd_gridstride", N, 256, lambda n: 132 * 8,
                lambda n, rng: [_f32(n, rng), _f32(n, rng), np.zeros(n, np.float32), _i32(n)],
                source="probes2.cu"),
    TimingProbe("probe/block-sum", "probe-unseen", "block_sum", N, 256, lambda n: n // 256,
                lambda n, rng: [_f32(n, rng), np.zeros(1, np.float32), _i32(n)], source="probes2.cu"),
    TimingProbe("probe/box3x3", "probe-unseen", "box3x3", IMG, (16, 16), lambda n: (n // 16, n // 16),
                lambda n, rng: [_f32(n * n, rng), np.zeros(n * n, np.float32), _i32(n), _i32(n)],
                source="probes2.cu"),
]
PROBES += UNSEEN
# written in session 6 after the model's last change (probes3.cu); predicted and committed
# before they were first measured
SM_ROWS, GEMV_N = 4096, 4096
UNSEEN2 = [
    TimingProbe("probe/softmax-rows", "probe-unseen2", "softmax_rows", SM_ROWS, 256, lambda n: n,
                lambda n, rng: [_f32(n * n, rng), np.zeros(n * n, np.float32), _i32(n)],
                source="probes3.cu"),
    TimingProbe("probe/gemv-warp", "probe-unseen2", "gemv_warp", GEMV_N, 256, lambda n: n // 8,
                lambda n, rng: [_f32(n * n, rng), _f32(n, rng), np.zeros(n, np.float32), _i32(n)],
                source="probes3.cu"),
    TimingProbe("probe/conv5x5", "probe-unseen2", "conv5x5", IMG, (16, 16), lambda n: (n // 16, n // 16),
                lambda n, rng: [_f32(n * n, rng), _f32(25, rng), np.zeros(n * n, np.float32), _i32(n), _i32(n)],
                source="probes3.cu"),
    TimingProbe("probe/warp-max", "probe-unseen2", "warp_max", N, 256, lambda n: n // 256,
                lambda n, rng: [rng.integers(-(1 << 30), 1 << 30, n).astype(np.int32),
                                np.full(1, -(1 << 31) + 1, np.int32), _i32(n)],
                source="probes3.cu"),
    TimingProbe("probe/bitonic-step", "probe-unseen2", "bitonic_step", N, 256, lambda n: n // 256,
                lambda n, rng: [rng.integers(0, 1 << 30, n).astype(np.int32), np.int32(16),
                                np.int32(1 << 13), _i32(n)],
                source="probes3.cu"),
    TimingProbe("probe/rgb-to-grey", "probe-unseen2", "rgb_to_grey", N, 256, lambda n: n // 256,
                lambda n, rng: [rng.integers(0, 256, 3 * n).astype(np.uint8), np.zeros(n, np.uint8), _i32(n)],
                source="probes3.cu"),
]
PROBES += UNSEEN2
# written in session 6 after the math library's costs went into the model (probes4.cu);
# predicted and committed before they were first measured
UNSEEN3 = [
    TimingProbe("probe/black-scholes", "probe-unseen3", "black_scholes", N, 128, lambda n: n // 128,
                lambda n, rng: [rng.uniform(5, 30, n).astype(np.float32), rng.uniform(1, 100, n).astype(np.float32),
                                rng.uniform(0.25, 10, n).astype(np.float32), np.zeros(n, np.float32),
                                np.zeros(n, np.float32), np.float32(0.02), np.float32(0.3), _i32(n)],
                source="probes4.cu"),
    TimingProbe("probe/sin-series", "probe-unseen3", "sin_series", 1 << 20, 256, lambda n: n // 256,
                lambda n, rng: [rng.uniform(-1, 1, n).astype(np.float32), np.zeros(n, np.float32), _i32(n)],
                source="probes4.cu"),
]
PROBES += UNSEEN3
# written late in session 6 (probes5.cu); predicted and committed before they were first
# measured
ROWS_RS, COLS_RS, ELL_ROWS, ELL_K = 1 << 16, 256, 1 << 22, 8
UNSEEN4 = [
    TimingProbe("probe/stencil2d-shared", "probe-unseen4", "stencil2d_shared", IMG, (16, 16),
                lambda n: (n // 16, n // 16),
                lambda n, rng: [_f32(n * n, rng), np.zeros(n * n, np.float32), _i32(n), _i32(n)],
                source="probes5.cu"),
    TimingProbe("probe/warp-scan", "probe-unseen4", "warp_scan", N, 256, lambda n: n // 256,
                lambda n, rng: [rng.integers(0, 100, n).astype(np.int32), np.zeros(n, np.int32), _i32(n)],
                source="probes5.cu"),
    TimingProbe("probe/daxpy", "probe-unseen4", "daxpy", N, 256, lambda n: n // 256,
                lambda n, rng: [np.float64(2.5), rng.standard_normal(n), rng.standard_normal(n), _i32(n)],
                source="probes5.cu"),
    TimingProbe("probe/atomic-spread-f32", "probe-unseen4", "atomic_spread_f32", N, 256, lambda n: n // 256,
                lambda n, rng: [_f32(n, rng), np.zeros(1024, np.float32), _i32(n)], source="probes5.cu"),
    TimingProbe("probe/row-sum-naive", "probe-unseen4", "row_sum_naive", ROWS_RS, 256, lambda n: n // 256,
                lambda n, rng: [_f32(n * COLS_RS, rng), np.zeros(n, np.float32), _i32(n), _i32(COLS_RS)],
                source="probes5.cu"),
    TimingProbe("probe/spmv-ell", "probe-unseen4", "spmv_ell", ELL_ROWS, 256, lambda n: n // 256,
                lambda n, rng: [rng.integers(0, n, n * ELL_K).astype(np.int32), _f32(n * ELL_K, rng),
                                _f32(n, rng), np.zeros(n, np.float32), _i32(n), _i32(ELL_K)],
                source="probes5.cu"),
]
PROBES += UNSEEN4
# written in session 7 (probes6.cu): course-typical kernels, predicted and committed before
# they were first measured
MANDEL, NBODY, LIFE = 2048, 8192, 4096
UNSEEN5 = [
    TimingProbe("probe/mandelbrot", "probe-unseen5", "mandelbrot", MANDEL, (16, 16),
                lambda n: (n // 16, n // 16),
                lambda n, rng: [np.zeros(n * n, np.int32), _i32(n), _i32(n), _i32(256)],
                source="probes6.cu"),
    TimingProbe("probe/nbody", "probe-unseen5", "nbody_accel", NBODY, 128, lambda n: n // 128,
                lambda n, rng: [np.concatenate([rng.standard_normal((n, 3)), rng.uniform(0.5, 1, (n, 1))],
                                               axis=1).astype(np.float32).ravel(),
                                np.zeros(4 * n, np.float32), _i32(n)],
                source="probes6.cu"),
    TimingProbe("probe/life", "probe-unseen5", "life_step", LIFE, (32, 8), lambda n: (n // 32, n // 8),
                lambda n, rng: [rng.integers(0, 2, n * n).astype(np.int32), np.zeros(n * n, np.int32),
                                _i32(n), _i32(n)],
                source="probes6.cu"),
    TimingProbe("probe/dot-cbe", "probe-unseen5", "dot_cbe", N, 256, lambda n: 32,
                lambda n, rng: [_f32(n, rng), _f32(n, rng), np.zeros(1, np.float32), _i32(n)],
                source="probes6.cu"),
    TimingProbe("probe/hillis-steele", "probe-unseen5", "hillis_steele_scan", N, 512, lambda n: n // 512,
                lambda n, rng: [rng.integers(0, 100, n).astype(np.int32), np.zeros(n, np.int32), _i32(n)],
                source="probes6.cu"),
    TimingProbe("probe/compact-ballot", "probe-unseen5", "compact_ballot", N, 256, lambda n: n // 256,
                lambda n, rng: [rng.integers(-100, 100, n).astype(np.int32), np.zeros(n, np.int32),
                                np.zeros(1, np.int32), _i32(n)],
                source="probes6.cu"),
]
PROBES += UNSEEN5

# session 8: six more course-typical kernels (probes7.cu), predictions committed before
# they were first measured
MC_THREADS, SOBEL, BFS_N, FLOYD = 1 << 20, 4096, 1 << 20, 4096


def _csr_graph(n, rng):
    """A random graph: 0 to 16 out-edges a vertex (8 on average) to uniform targets."""
    deg = rng.integers(0, 17, n)
    row_ptr = np.concatenate([[0], np.cumsum(deg)]).astype(np.int32)
    return row_ptr, rng.integers(0, n, int(row_ptr[-1])).astype(np.int32)


def _bfs_args(n, rng):
    row_ptr, cols = _csr_graph(n, rng)
    return [row_ptr, cols, (rng.random(n) < 0.1).astype(np.int32), np.zeros(n, np.int32),
            (rng.random(n) < 0.3).astype(np.int32), np.zeros(n, np.int32), _i32(n)]


def _floyd_args(n, rng):
    d = rng.integers(1, 1000, (n, n)).astype(np.int32)
    np.fill_diagonal(d, 0)
    return [d.ravel(), _i32(n), _i32(1234)]


UNSEEN6 = [
    TimingProbe("probe/monte-carlo-pi", "probe-unseen6", "monte_carlo_pi", MC_THREADS, 256,
                lambda n: n // 256, lambda n, rng: [np.zeros(1, np.int32), np.uint32(12345), _i32(256)],
                source="probes7.cu"),
    TimingProbe("probe/sobel-u8", "probe-unseen6", "sobel_u8", SOBEL, (32, 8), lambda n: (n // 32, n // 8),
                lambda n, rng: [rng.integers(0, 256, n * n).astype(np.uint8), np.zeros(n * n, np.uint8),
                                _i32(n), _i32(n)],
                source="probes7.cu"),
    TimingProbe("probe/radix-count", "probe-unseen6", "radix_count", N, 256, lambda n: n // 256,
                lambda n, rng: [_u32(n, rng),
                                np.zeros(n // 256 * 16, np.int32), _i32(n), _i32(4)],
                source="probes7.cu"),
    TimingProbe("probe/norm2-double", "probe-unseen6", "norm2_double", N, 256, lambda n: n // 256,
                lambda n, rng: [rng.standard_normal(n), np.zeros(1, np.float64), _i32(n)],
                source="probes7.cu"),
    TimingProbe("probe/bfs-level", "probe-unseen6", "bfs_level", BFS_N, 256, lambda n: n // 256,
                _bfs_args, source="probes7.cu"),
    TimingProbe("probe/floyd-step", "probe-unseen6", "floyd_step", FLOYD, (32, 8),
                lambda n: (n // 32, n // 8), _floyd_args, source="probes7.cu"),
]
PROBES += UNSEEN6

# session 9: six more (probes8.cu), predictions committed before they were first measured
SEARCH_N, SEARCH_M, PRIMES, HASH_N, RESIZE = 1 << 22, 1 << 20, 1 << 20, 1 << 22, 2048
EMPTY = np.uint32(0xFFFFFFFF)


def _search_args(n, rng):
    table = np.sort(rng.integers(0, 1 << 30, SEARCH_M)).astype(np.int32)
    return [table, _i32(SEARCH_M), rng.integers(0, 1 << 30, n).astype(np.int32),
            np.zeros(n, np.int32), _i32(n)]


def _hash_args(n, rng):
    keys = np.unique(rng.integers(0, 0xFFFFFFFF, n + n // 8, dtype=np.uint64).astype(np.uint32))
    keys = rng.permutation(keys)[:n]
    return [keys, np.full(2 * n, EMPTY, np.uint32), np.uint32(2 * n), _i32(n)]


UNSEEN7 = [
    TimingProbe("probe/vec4-add", "probe-unseen7", "vec4_add", N, 256, lambda n: n // 4 // 256,
                lambda n, rng: [_f32(n, rng), _f32(n, rng), np.zeros(n, np.float32), _i32(n // 4)],
                source="probes8.cu"),
    TimingProbe("probe/search-sorted", "probe-unseen7", "search_sorted", SEARCH_N, 256,
                lambda n: n // 256, _search_args, source="probes8.cu"),
    TimingProbe("probe/prime-flags", "probe-unseen7", "prime_flags", PRIMES, 256, lambda n: n // 256,
                lambda n, rng: [np.zeros(n, np.uint8), np.uint32(n)], source="probes8.cu"),
    TimingProbe("probe/hash-insert", "probe-unseen7", "hash_insert", HASH_N, 256, lambda n: n // 256,
                _hash_args, source="probes8.cu"),
    TimingProbe("probe/resize-bilinear", "probe-unseen7", "resize_bilinear", RESIZE, (32, 8),
                lambda n: (2 * n // 32, 2 * n // 8),
                lambda n, rng: [_f32(n * n, rng), np.zeros(4 * n * n, np.float32), _i32(n), _i32(n)],
                source="probes8.cu"),
    TimingProbe("probe/poly-horner", "probe-unseen7", "poly_horner", N, 256, lambda n: n // 256,
                lambda n, rng: [rng.uniform(-1, 1, n).astype(np.float32),
                                (rng.standard_normal(16) / np.arange(1, 17)).astype(np.float32),
                                np.zeros(n, np.float32), _i32(n)],
                source="probes8.cu"),
]
PROBES += UNSEEN7

# session 9, later: six more (probes9.cu), predictions committed before they were first measured
DGEMM, BF_V, BF_E, HEAT, FA_ROWS, FA_COLS, TRD = 1024, 1 << 20, 1 << 22, 4096, 8192, 4096, 4096
INF = 0x3FFFFFFF


def _bf_args(m, rng):
    dist = np.where(rng.random(BF_V) < 0.1, rng.integers(0, 1000, BF_V), INF).astype(np.int32)
    return [rng.integers(0, BF_V, m).astype(np.int32), rng.integers(0, BF_V, m).astype(np.int32),
            rng.integers(1, 100, m).astype(np.int32), dist, _i32(m)]


UNSEEN8 = [
    TimingProbe("probe/dgemm-tiled", "probe-unseen8", "dgemm_tiled", DGEMM, (16, 16),
                lambda n: (n // 16, n // 16),
                lambda n, rng: [rng.standard_normal(n * n), rng.standard_normal(n * n),
                                np.zeros(n * n), _i32(n)],
                source="probes9.cu"),
    TimingProbe("probe/bellman-ford", "probe-unseen8", "bellman_ford_relax", BF_E, 256,
                lambda n: n // 256, _bf_args, source="probes9.cu"),
    TimingProbe("probe/heat2d-double", "probe-unseen8", "heat2d_double", HEAT, (32, 8),
                lambda n: (n // 32, n // 8),
                lambda n, rng: [rng.random(n * n), np.zeros(n * n), _i32(n), np.float64(0.2)],
                source="probes9.cu"),
    TimingProbe("probe/hist-u64", "probe-unseen8", "hist_u64", N, 256, lambda n: n // 256,
                lambda n, rng: [_u32(n, rng),
                                _u32(n, rng),
                                np.zeros(1024, np.uint64), _i32(n)],
                source="probes9.cu"),
    TimingProbe("probe/first-above", "probe-unseen8", "first_above", FA_ROWS, 256,
                lambda n: n * 32 // 256,
                lambda n, rng: [rng.random(n * FA_COLS, np.float32), np.zeros(n, np.int32), _i32(n),
                                _i32(FA_COLS), np.float32(0.999)],
                source="probes9.cu"),
    TimingProbe("probe/transpose-double", "probe-unseen8", "transpose_double", TRD, (32, 8),
                lambda n: (n // 32, n // 32),
                lambda n, rng: [rng.standard_normal(n * n), np.zeros(n * n), _i32(n)],
                source="probes9.cu"),
]
PROBES += UNSEEN8

# probe-unseen9 (probes10.cu, session 10): __constant__ and __device__ variables
FT_BLOCKS = 1024                  # sum_threadfence's grid: 4 blocks per SM's worth
UNSEEN9 = [
    TimingProbe("probe/conv1d-const", "probe-unseen9", "conv1d_const", N, 256, lambda n: n // 256,
                lambda n, rng: [_f32(n, rng), np.zeros(n, np.float32), _i32(n)],
                source="probes10.cu"),
    TimingProbe("probe/lut-const", "probe-unseen9", "lut_const", N, 256, lambda n: n // 256,
                lambda n, rng: [rng.integers(0, 256, n, dtype=np.uint8), np.zeros(n, np.float32),
                                _i32(n)],
                source="probes10.cu",
                symbols=lambda n, rng: {"c_lut": rng.random(256, np.float32)}),
    TimingProbe("probe/kmeans-assign", "probe-unseen9", "kmeans_assign", N, 256, lambda n: n // 256,
                lambda n, rng: [rng.random(n, np.float32), rng.random(n, np.float32),
                                np.zeros(n, np.int32), _i32(n)],
                source="probes10.cu"),
    TimingProbe("probe/sum-threadfence", "probe-unseen9", "sum_threadfence", N, 256,
                lambda n: FT_BLOCKS,
                lambda n, rng: [_f32(n, rng), np.zeros(FT_BLOCKS, np.float32),
                                np.zeros(1, np.float32), _i32(n)],
                source="probes10.cu"),
    TimingProbe("probe/compact-atomic", "probe-unseen9", "compact_atomic", 1 << 22, 256,
                lambda n: n // 256,
                lambda n, rng: [rng.random(n, np.float32), np.zeros(n, np.float32), _i32(n),
                                np.float32(0.5)],
                source="probes10.cu"),
    TimingProbe("probe/stencil3d7", "probe-unseen9", "stencil3d7", 256, (32, 8),
                lambda n: (n // 32, n // 8, n),
                lambda n, rng: [_f32(n ** 3, rng), np.zeros(n ** 3, np.float32), _i32(n)],
                source="probes10.cu"),
]
PROBES += UNSEEN9


def _particles(n, rng):
    dt = np.dtype({"names": ["x", "y", "z", "vx", "vy", "vz"], "formats": ["<f4"] * 6,
                   "offsets": [0, 4, 8, 12, 16, 20], "itemsize": 24})
    p = np.zeros(n, dt)
    for f in dt.names:
        p[f] = rng.standard_normal(n, dtype=np.float32)
    return p


# probe-unseen10 (probes11.cu, session 10): structs and switch
UNSEEN10 = [
    TimingProbe("probe/particles-aos", "probe-unseen10", "particles_aos", 1 << 22, 256,
                lambda n: n // 256, lambda n, rng: [_particles(n, rng), np.float32(0.01), _i32(n)],
                source="probes11.cu"),
    TimingProbe("probe/particles-soa", "probe-unseen10", "particles_soa", 1 << 22, 256,
                lambda n: n // 256,
                lambda n, rng: [_f32(n, rng) for _ in range(6)] + [np.float32(0.01), _i32(n)],
                source="probes11.cu"),
    TimingProbe("probe/opcode-switch", "probe-unseen10", "opcode_switch", N, 256, lambda n: n // 256,
                lambda n, rng: [rng.integers(0, 256, n, dtype=np.uint8), rng.random(n, np.float32),
                                rng.random(n, np.float32), np.zeros(n, np.float32), _i32(n)],
                source="probes11.cu"),
    TimingProbe("probe/quadrant-count", "probe-unseen10", "quadrant_count", N, 256, lambda n: n // 256,
                lambda n, rng: [_f32(n, rng), _f32(n, rng), np.zeros(4, np.uint32), _i32(n)],
                source="probes11.cu"),
]
PROBES += UNSEEN10

# probe-unseen11 (probes12.cu, session 11): template instances, deduced calls, C++ casts
_P12 = "probes12.cu"
UNSEEN11 = [
    TimingProbe("probe/reduce6-256", "probe-unseen11", "reduce6<256>", 1 << 24, 256, lambda n: 2048,
                lambda n, rng: [_f32(n, rng), np.zeros(2048, np.float32), np.uint32(n)], source=_P12),
    TimingProbe("probe/reduce6-64", "probe-unseen11", "reduce6<64>", 1 << 24, 64, lambda n: 2048,
                lambda n, rng: [_f32(n, rng), np.zeros(2048, np.float32), np.uint32(n)], source=_P12),
    TimingProbe("probe/scale-vec4", "probe-unseen11", "scale_vec<4>", 1 << 24, 256, lambda n: n // 1024,
                lambda n, rng: [_f32(n, rng), np.zeros(n, np.float32), np.float32(1.5), _i32(n)],
                source=_P12),
    TimingProbe("probe/scale-vec1", "probe-unseen11", "scale_vec<1>", 1 << 24, 256, lambda n: n // 256,
                lambda n, rng: [_f32(n, rng), np.zeros(n, np.float32), np.float32(1.5), _i32(n)],
                source=_P12),
    TimingProbe("probe/dot-template", "probe-unseen11", "dot_t<float>", 1 << 24, 256, lambda n: 1024,
                lambda n, rng: [_f32(n, rng), _f32(n, rng), np.zeros(1, np.float32), _i32(n)],
                source=_P12),
    TimingProbe("probe/hist-template", "probe-unseen11", "hist_t<unsigned char, 64>", 1 << 24, 256,
                lambda n: 1024,
                lambda n, rng: [rng.integers(0, 256, n, dtype=np.uint8), np.zeros(64, np.uint32), _i32(n)],
                source=_P12),
]
PROBES += UNSEEN11

# probe-unseen12 (probes13.cu, session 12): memory touched at random around and beyond L2
_P13 = "probes13.cu"
EMBED_ROWS, EMBED_DIM, EMBED_BAG = 1 << 20, 64, 8      # a 256 MiB table, 8 rows a bag
SPMV_X, SPMV_NNZ = 1 << 25, 8                           # a 128 MiB x, 8 entries a row


def _perm_args(n, rng):
    return [_f32(n, rng), rng.permutation(n).astype(np.int32), np.zeros(n, np.float32), _i32(n)]


def _hist_args(bins):
    return lambda n, rng: [_u32(n, rng),
                           np.zeros(bins, np.uint32), np.uint32(bins - 1), _i32(n)]


def _embed_args(n, rng):
    return [_f32(EMBED_ROWS * EMBED_DIM, rng), rng.integers(0, EMBED_ROWS, n * EMBED_BAG).astype(np.int32),
            np.zeros(n * EMBED_DIM, np.float32), _i32(EMBED_DIM), _i32(EMBED_BAG)]


def _spmv_args(n, rng):
    nnz = n * SPMV_NNZ
    return [np.arange(0, nnz + 1, SPMV_NNZ, dtype=np.int32), rng.integers(0, SPMV_X, nnz).astype(np.int32),
            _f32(nnz, rng), _f32(SPMV_X, rng), np.zeros(n, np.float32), _i32(n)]


def _chase_args(n, rng):
    size = 1 << 24                                      # a 64 MiB cycle
    perm = rng.permutation(size).astype(np.int32)
    nxt = np.empty(size, np.int32)
    nxt[perm] = np.roll(perm, -1)
    return [nxt, np.zeros(n, np.int32), _i32(8), _i32(n)]


UNSEEN12 = [
    TimingProbe("probe/permute-gather", "probe-unseen12", "permute_gather", 1 << 24, 256, lambda n: n // 256,
                _perm_args, source=_P13),
    TimingProbe("probe/permute-scatter", "probe-unseen12", "permute_scatter", 1 << 24, 256, lambda n: n // 256,
                _perm_args, source=_P13),
    TimingProbe("probe/hist-wide-16m", "probe-unseen12", "hist_wide", 1 << 24, 256, lambda n: n // 256,
                _hist_args(1 << 22), source=_P13, note="4 Mi bins: 16 MiB, in L2"),
    TimingProbe("probe/hist-wide-128m", "probe-unseen12", "hist_wide", 1 << 24, 256, lambda n: n // 256,
                _hist_args(1 << 25), source=_P13, note="32 Mi bins: 128 MiB, mostly not"),
    TimingProbe("probe/embed-bag", "probe-unseen12", "embed_bag", 1 << 16, EMBED_DIM, lambda n: n,
                _embed_args, source=_P13),
    TimingProbe("probe/spmv-random-cols", "probe-unseen12", "spmv_random_cols", 1 << 21, 256,
                lambda n: n // 256, _spmv_args, source=_P13),
    TimingProbe("probe/chase-many", "probe-unseen12", "chase_many", 1 << 20, 256, lambda n: n // 256,
                _chase_args, source=_P13),
]
PROBES += UNSEEN12

# probe-unseen13 (session 13): cooperative groups
_P14 = "probes14.cu"
GRID_SUM_BLOCKS = 1056                                   # 8 blocks of 256 per SM on an H100


def _filter_args(n, rng):
    return [rng.integers(-50, 50, n).astype(np.int32), np.zeros(n, np.int32), np.zeros(1, np.int32), _i32(n)]


UNSEEN13 = [
    TimingProbe("probe/cg-block-sum", "probe-unseen13", "cg_block_sum", 1 << 24, 256, lambda n: n // 256,
                lambda n, rng: [_f32(n, rng), np.zeros(1, np.float32), _i32(n)], source=_P14),
    TimingProbe("probe/cg-block-sum-small", "probe-unseen13", "cg_block_sum", 1 << 16, 256,
                lambda n: n // 256, lambda n, rng: [_f32(n, rng), np.zeros(1, np.float32), _i32(n)],
                source=_P14),
    TimingProbe("probe/cg-filter", "probe-unseen13", "cg_filter", 1 << 24, 256, lambda n: n // 256,
                _filter_args, source=_P14, note="half the elements pass"),
    TimingProbe("probe/cg-tile-scan", "probe-unseen13", "cg_tile_scan", 1 << 24, 256, lambda n: n // 256,
                lambda n, rng: [rng.integers(0, 100, n).astype(np.int32), np.zeros(n, np.int32), _i32(n)],
                source=_P14),
    TimingProbe("probe/cg-grid-sum", "probe-unseen13", "cg_grid_sum", 1 << 24, 256,
                lambda n: GRID_SUM_BLOCKS, lambda n, rng: [_f32(n, rng), np.zeros(1, np.float32), _i32(n)],
                source=_P14, note="1056 blocks, 62 elements a thread"),
]
PROBES += UNSEEN13

# probe-unseen14 (session 14): C++ from samples and courses (SharedMemory<T>, references,
# auto, enum class, struct ?:, a struct by value, __reduce_*_sync)
_P15 = "probes15.cu"
SUM_BLOCKS = 1024
ADAM = np.dtype({"names": ["lr", "beta1", "beta2", "eps", "c1", "c2"], "formats": ["<f4"] * 6})
SOFTMAX_COLS = 1024


def _adam_args(n, rng):
    h = np.zeros((), ADAM)
    b1, b2, t = 0.9, 0.999, 10
    h["lr"], h["beta1"], h["beta2"], h["eps"] = 1e-3, b1, b2, 1e-8
    h["c1"], h["c2"] = 1 / (1 - b1 ** t), 1 / (1 - b2 ** t)
    return [_f32(n, rng), _f32(n, rng), _f32(n, rng) * 0.1, np.abs(_f32(n, rng)) * 0.01, h[()], _i32(n)]


def _combine_args(n, rng):
    return [rng.integers(-1000, 1000, n).astype(np.int32), np.zeros(1, np.int32), _i32(n)]


UNSEEN14 = [
    TimingProbe("probe/smem-sum-double", "probe-unseen14", "block_sum_smem<double, 256>", 1 << 24, 256,
                lambda n: SUM_BLOCKS, lambda n, rng: [rng.standard_normal(n), np.zeros(SUM_BLOCKS), np.uint32(n)],
                source=_P15, shared=256 * 8, note="SharedMemory<double>, 1024 blocks"),
    TimingProbe("probe/smem-sum-float512", "probe-unseen14", "block_sum_smem<float, 512>", 1 << 24, 512,
                lambda n: 2 * SUM_BLOCKS,
                lambda n, rng: [_f32(n, rng), np.zeros(2 * SUM_BLOCKS, np.float32), np.uint32(n)],
                source=_P15, shared=512 * 4, note="SharedMemory<float>, 2048 blocks of 512"),
    TimingProbe("probe/argmax-struct", "probe-unseen14", "argmax_blocks", 1 << 24, 256, lambda n: SUM_BLOCKS,
                lambda n, rng: [_f32(n, rng), np.zeros(2 * SUM_BLOCKS, np.int32), _i32(n)], source=_P15,
                note="the ArgMax structs written into an int array"),
    TimingProbe("probe/adam-step", "probe-unseen14", "adam_step", 1 << 24, 256, lambda n: n // 1024,
                _adam_args, source=_P15, note="4 elements a thread"),
    TimingProbe("probe/warp-combine-sum", "probe-unseen14", "warp_combine<Combine::Sum>", 1 << 24, 256,
                lambda n: SUM_BLOCKS, _combine_args, source=_P15),
    TimingProbe("probe/warp-combine-max", "probe-unseen14", "warp_combine<Combine::Max>", 1 << 24, 256,
                lambda n: SUM_BLOCKS, _combine_args, source=_P15),
    TimingProbe("probe/softmax-warp-rows", "probe-unseen14", "softmax_warp_rows", 1 << 24, 256,
                lambda n: n // SOFTMAX_COLS // 8,
                lambda n, rng: [_f32(n, rng), np.zeros(n, np.float32), _i32(n // SOFTMAX_COLS),
                                _i32(SOFTMAX_COLS)], source=_P15, note="16384 rows of 1024, a warp a row"),
]
PROBES += UNSEEN14

# probe-unseen15 (session 15): kernels that read their data twice (or three times) in
# the shapes course code writes them; whether the second read finds it in L2 depends on
# what the GPU touched in between (timing.retouch_miss)
_P16 = "probes16.cu"
LN_COLS, LNB_COLS, RMS_COLS, SM3_COLS, CENTER_COLS = 2048, 4096, 512, 8192, 4096


def _ln_warp_args(n, rng):
    return [_f32(n, rng), _f32(LN_COLS, rng), _f32(LN_COLS, rng), np.zeros(n, np.float32),
            _i32(n // LN_COLS), _i32(LN_COLS), np.float32(1e-5)]


UNSEEN15 = [
    TimingProbe("probe/layernorm-warp", "probe-unseen15", "layernorm_warp", 1 << 24, 256,
                lambda n: n // LN_COLS // 8, _ln_warp_args, source=_P16,
                note="8192 rows of 2048, a warp a row"),
    TimingProbe("probe/layernorm-warp-small", "probe-unseen15", "layernorm_warp", 1 << 22, 256,
                lambda n: n // LN_COLS // 8, _ln_warp_args, source=_P16,
                note="2048 rows of 2048: the launch fits L2"),
    TimingProbe("probe/layernorm-block", "probe-unseen15", "layernorm_block<256>", 1 << 24, 256,
                lambda n: n // LNB_COLS,
                lambda n, rng: [_f32(n, rng), np.zeros(n, np.float32), _i32(LNB_COLS), np.float32(1e-5)],
                source=_P16, note="4096 rows of 4096, a block of 256 a row"),
    TimingProbe("probe/rmsnorm-warp", "probe-unseen15", "rmsnorm_warp", 1 << 24, 256,
                lambda n: n // RMS_COLS // 8,
                lambda n, rng: [_f32(n, rng), _f32(RMS_COLS, rng), np.zeros(n, np.float32),
                                _i32(n // RMS_COLS), _i32(RMS_COLS), np.float32(1e-6)],
                source=_P16, note="32768 rows of 512, a warp a row, __restrict__"),
    TimingProbe("probe/softmax3-block", "probe-unseen15", "softmax3_block", 1 << 24, 512,
                lambda n: n // SM3_COLS,
                lambda n, rng: [_f32(n, rng), np.zeros(n, np.float32), _i32(SM3_COLS)],
                source=_P16, note="2048 rows of 8192, a block of 512 a row, three passes"),
    TimingProbe("probe/center-columns", "probe-unseen15", "center_columns", 1 << 24, 256,
                lambda n: CENTER_COLS // 256,
                lambda n, rng: [_f32(n, rng), np.zeros(n, np.float32), _i32(n // CENTER_COLS),
                                _i32(CENTER_COLS)],
                source=_P16, note="4096 x 4096, a thread a column, 16 blocks"),
]
PROBES += UNSEEN15

# probe-unseen16 (session 15): half precision (__half, __half2, conversions, float
# accumulators), as course code writes it
_P17 = "probes17.cu"
HGEMV_COLS, HSOFTMAX_COLS, GRID_STRIDE_BLOCKS = 4096, 1024, 1056


def _f16(n, rng):
    return rng.random(n, dtype=np.float32).astype(np.float16)


UNSEEN16 = [
    TimingProbe("probe/haxpy", "probe-unseen16", "haxpy", 1 << 24, 256, lambda n: n // 256,
                lambda n, rng: [_i32(n), np.float16(0.5), _f16(n, rng), _f16(n, rng)], source=_P17),
    TimingProbe("probe/h2axpy", "probe-unseen16", "h2axpy", 1 << 24, 256, lambda n: n // 2 // 256,
                lambda n, rng: [_i32(n // 2), np.float16(0.5), _f16(n, rng), _f16(n, rng)], source=_P17,
                note="__half2: two elements a thread"),
    TimingProbe("probe/to-half", "probe-unseen16", "to_half", 1 << 24, 256, lambda n: GRID_STRIDE_BLOCKS,
                lambda n, rng: [_f32(n, rng), np.zeros(n, np.float16), _i32(n)], source=_P17,
                note="1056 blocks, grid-stride"),
    TimingProbe("probe/hsum", "probe-unseen16", "hsum", 1 << 24, 256, lambda n: GRID_STRIDE_BLOCKS,
                lambda n, rng: [_f16(n, rng), np.zeros(1, np.float32), _i32(n)], source=_P17,
                note="1056 blocks, float accumulation, a shared-memory tree"),
    TimingProbe("probe/hgemv-warp", "probe-unseen16", "hgemv_warp", 1 << 24, 256,
                lambda n: n // HGEMV_COLS // 8,
                lambda n, rng: [_f16(n, rng), _f32(HGEMV_COLS, rng), np.zeros(n // HGEMV_COLS, np.float32),
                                _i32(n // HGEMV_COLS), _i32(HGEMV_COLS)], source=_P17,
                note="4096 x 4096 halves, a warp a row"),
    TimingProbe("probe/hsoftmax-warp", "probe-unseen16", "hsoftmax_warp", 1 << 24, 256,
                lambda n: n // HSOFTMAX_COLS // 8,
                lambda n, rng: [_f16(n, rng), np.zeros(n, np.float16), _i32(n // HSOFTMAX_COLS),
                                _i32(HSOFTMAX_COLS)], source=_P17,
                note="16384 rows of 1024 halves, three passes"),
    TimingProbe("probe/hhist", "probe-unseen16", "hhist", 1 << 24, 256, lambda n: GRID_STRIDE_BLOCKS,
                lambda n, rng: [_f16(n, rng), np.zeros(256, np.uint32), _i32(n)], source=_P17,
                note="256 bins, shared atomics, 1056 blocks"),
]
PROBES += UNSEEN16

# probe-unseen17 (session 16): loops that end with a flush to global atomics (privatized
# histograms, counts, reductions), and a per-thread struct with an array member
_P18 = "probes18.cu"


def _u8(n, rng):
    return rng.integers(0, 256, n, dtype=np.uint8)


def _ints(n, rng, hi=1 << 30):
    return rng.integers(0, hi, n, dtype=np.int32)


UNSEEN17 = [
    TimingProbe("probe/hist64-u8", "probe-unseen17", "hist64_u8", 1 << 24, 256, lambda n: GRID_STRIDE_BLOCKS,
                lambda n, rng: [_u8(n, rng), np.zeros(64, np.uint32), _i32(n)], source=_P18,
                note="64 shared bins of bytes, 1056 blocks, 64 global atomics a block"),
    TimingProbe("probe/hist1024-i32", "probe-unseen17", "hist1024_i32", 1 << 24, 256, lambda n: GRID_STRIDE_BLOCKS,
                lambda n, rng: [_ints(n, rng), np.zeros(1024, np.uint32), _i32(n)], source=_P18,
                note="1024 shared bins, 1056 blocks, 1024 global atomics a block"),
    TimingProbe("probe/hist128-weighted", "probe-unseen17", "hist128_weighted", 1 << 24, 256,
                lambda n: GRID_STRIDE_BLOCKS,
                lambda n, rng: [_ints(n, rng), _f32(n, rng), np.zeros(128, np.float32), _i32(n)], source=_P18,
                note="128 float bins, float shared and global atomics"),
    TimingProbe("probe/count-above", "probe-unseen17", "count_above", 1 << 24, 256, lambda n: GRID_STRIDE_BLOCKS,
                lambda n, rng: [_f32(n, rng), np.zeros(1, np.uint32), np.float32(0.5), _i32(n)], source=_P18,
                note="one atomicAdd a thread on one word, at the end"),
    TimingProbe("probe/dot-warp-atomic", "probe-unseen17", "dot_warp_atomic", 1 << 24, 256,
                lambda n: GRID_STRIDE_BLOCKS,
                lambda n, rng: [_f32(n, rng), _f32(n, rng), np.zeros(1, np.float32), _i32(n)], source=_P18,
                note="one atomicAdd a warp on one word, at the end"),
    TimingProbe("probe/minmax-block", "probe-unseen17", "minmax_block", 1 << 24, 256, lambda n: GRID_STRIDE_BLOCKS,
                lambda n, rng: [_ints(n, rng), np.array([0x7fffffff, -0x7fffffff - 1], np.int32), _i32(n)],
                source=_P18, note="a block's shared tree, atomicMin/atomicMax a block"),
    TimingProbe("probe/quarter-sums", "probe-unseen17", "quarter_sums", 1 << 24, 256, lambda n: GRID_STRIDE_BLOCKS,
                lambda n, rng: [_f32(n, rng), np.zeros(4 * GRID_STRIDE_BLOCKS * 256, np.float32), _i32(n)],
                source=_P18, note="a struct with a float[4] member per thread, four streams"),
]
PROBES += UNSEEN17

# probe-unseen18 (session 17): kernel kinds no probe had tried (a register-tiled SGEMM,
# run-time integer division, a data-dependent while loop, 64-bit integer work, byte
# outputs, double atomics on global bins, 16-byte loads of text, double exp/log)
_P19 = "probes19.cu"
SGEMM, NCHW = 1024, (8, 24, 223, 223)


def _nchw_args(n, rng):
    N_, C_, H_, W_ = NCHW
    return [_f32(N_ * C_ * H_ * W_, rng), np.zeros(N_ * C_ * H_ * W_, np.float32)] + [_i32(d) for d in NCHW]


def _text(nvec, rng):
    """16 nvec bytes of text: lower-case letters and spaces, a newline about every 40."""
    alphabet = np.frombuffer(b"abcdefghijklmnopqrstuvwxyz     \n", np.uint8)
    p = np.full(len(alphabet), (1 - 1 / 40) / (len(alphabet) - 1))
    p[-1] = 1 / 40
    return rng.choice(alphabet, size=16 * nvec, p=p)


UNSEEN18 = [
    TimingProbe("probe/sgemm-reg4x4", "probe-unseen18", "sgemm_reg4x4", SGEMM, (16, 16),
                lambda n: (n // 64, n // 64),
                lambda n, rng: [_f32(n * n, rng), _f32(n * n, rng), np.zeros(n * n, np.float32), _i32(n)],
                source=_P19, note="1024^3, 64 x 64 tiles, 4 x 4 outputs a thread"),
    TimingProbe("probe/nchw-to-nhwc", "probe-unseen18", "nchw_to_nhwc", int(np.prod(NCHW)), 256,
                lambda n: GRID_STRIDE_BLOCKS, _nchw_args, source=_P19,
                note="8 x 24 x 223 x 223 floats, dimensions passed at run time"),
    TimingProbe("probe/collatz", "probe-unseen18", "collatz_steps", 1 << 22, 256, lambda n: n // 256,
                lambda n, rng: [rng.integers(1, 1 << 20, n).astype(np.uint32), np.zeros(n, np.uint32), _i32(n)],
                source=_P19, note="starts below 2^20, 64-bit values, a while loop"),
    TimingProbe("probe/hamming-u64", "probe-unseen18", "hamming_u64", 1 << 24, 256, lambda n: n // 256,
                lambda n, rng: [rng.integers(0, 1 << 63, n, dtype=np.uint64), np.uint64(0x0123456789ABCDEF),
                                np.zeros(n, np.uint8), _i32(n)],
                source=_P19, note="__popcll of a 64-bit xor, one byte out"),
    TimingProbe("probe/splitmix", "probe-unseen18", "splitmix_fill", 1 << 24, 256, lambda n: GRID_STRIDE_BLOCKS,
                lambda n, rng: [np.zeros(n, np.uint32), np.uint64(12345), _i32(n)],
                source=_P19, note="three 64-bit multiplies a thread, grid-stride"),
    TimingProbe("probe/hist-double-direct", "probe-unseen18", "hist_double_direct", 1 << 24, 256,
                lambda n: n // 256,
                lambda n, rng: [_ints(n, rng), rng.random(n), np.zeros(1024, np.float64), _i32(n)],
                source=_P19, note="atomicAdd(double) on 1024 global bins, one a thread"),
    TimingProbe("probe/count-newlines", "probe-unseen18", "count_newlines_vec", 1 << 22, 256,
                lambda n: GRID_STRIDE_BLOCKS,
                lambda n, rng: [_text(n, rng), np.zeros(1, np.uint32), _i32(n)],
                source=_P19, note="64 MiB of text as uint4, one atomicAdd a warp"),
    TimingProbe("probe/softplus-double", "probe-unseen18", "softplus_double", 1 << 22, 256, lambda n: n // 256,
                lambda n, rng: [rng.standard_normal(n) * 4, np.zeros(n, np.float64), _i32(n)],
                source=_P19, note="log1p(exp(.)) in double"),
]
PROBES += UNSEEN18

# probe-unseen19 (session 18): a Blelloch scan, a scalar CSR SpMV of skewed rows, a
# shared-memory bitonic sort, a GEMV with one thread a row, an insertion sort in local
# memory, a byte pattern search, batched Thomas solves, Box-Muller (sincosf)
_P20 = "probes20.cu"
GEMV_ROWS, GEMV_COLS = 65536, 512
THOMAS_M = 64


def _csr_args(rows, rng):
    lens = np.minimum(rng.geometric(1 / 16, rows), 4096)
    rp = np.concatenate([[0], np.cumsum(lens)]).astype(np.int32)
    nnz = int(rp[-1])
    return [rp, rng.integers(0, rows, nnz, dtype=np.int32), _f32(nnz, rng), _f32(rows, rng),
            np.zeros(rows, np.float32), _i32(rows)]


def _thomas_args(ns, rng):
    m = THOMAS_M * ns
    z = np.zeros(m, np.float32)
    return [rng.uniform(-1, 1, m).astype(np.float32), (4 + rng.uniform(0, 1, m)).astype(np.float32),
            rng.uniform(-1, 1, m).astype(np.float32), _f32(m, rng), z, z.copy(), z.copy(),
            _i32(THOMAS_M), _i32(ns)]


UNSEEN19 = [
    TimingProbe("probe/blelloch-scan", "probe-unseen19", "blelloch_scan", 1 << 24, 512, lambda n: n // 1024,
                lambda n, rng: [rng.integers(-100, 100, n, dtype=np.int32), np.zeros(n, np.int32), _i32(n)],
                source=_P20, note="1024 ints a block, up- and down-sweep, no padding"),
    TimingProbe("probe/spmv-csr-scalar", "probe-unseen19", "spmv_csr_scalar", 1 << 20, 256,
                lambda n: n // 256, _csr_args, source=_P20,
                note="2^20 rows of geometric lengths (mean 16), random columns, a thread a row"),
    TimingProbe("probe/bitonic-sort-1024", "probe-unseen19", "bitonic_sort_1024", 1 << 24, 512,
                lambda n: n // 1024,
                lambda n, rng: [_u32(n, rng)],
                source=_P20, note="1024 keys a block sorted in shared memory, 55 steps"),
    TimingProbe("probe/gemv-row-thread", "probe-unseen19", "gemv_row_thread", GEMV_ROWS, 256,
                lambda n: n // 256,
                lambda n, rng: [_f32(n * GEMV_COLS, rng), _f32(GEMV_COLS, rng), np.zeros(n, np.float32),
                                _i32(n), _i32(GEMV_COLS)],
                source=_P20, note="65536 x 512 floats, each lane walks its own row"),
    TimingProbe("probe/insertion-sort16", "probe-unseen19", "insertion_sort16", 1 << 20, 256,
                lambda n: n // 256, lambda n, rng: [_f32(16 * n, rng), _i32(n)],
                source=_P20, note="16 floats a thread in a local array indexed at run time"),
    TimingProbe("probe/pattern-count", "probe-unseen19", "pattern_count", 1 << 26, 256, lambda n: n // 256,
                lambda n, rng: [_text(n // 16, rng), np.frombuffer(b"ab ", np.uint8).copy(), _i32(3),
                                _i32(n), np.zeros(1, np.uint32)],
                source=_P20, note="64 MiB of text, a 3-byte pattern at every position"),
    TimingProbe("probe/thomas-batch", "probe-unseen19", "thomas_batch", 1 << 16, 256, lambda n: n // 256,
                _thomas_args, source=_P20, note="2^16 tridiagonal systems of 64, a thread each"),
    TimingProbe("probe/box-muller", "probe-unseen19", "box_muller", 1 << 23, 256, lambda n: n // 256,
                lambda n, rng: [_u32(2 * n, rng),
                                np.zeros(2 * n, np.float32), _i32(n)],
                source=_P20, note="2^24 normals: logf, sqrtf, sincosf"),
]
PROBES += UNSEEN19

# probe-unseen20 (session 19): 64-bit CAS adds in lane order and hashed, an interleaved
# shared reduction in an unrolled loop, a padded Blelloch scan, a radix digit histogram,
# an odd-even transposition sort, k-means assignment from __constant__ centroids, a
# transpose of doubles through shared memory
_P21 = "probes21.cu"


def _f64(n, rng):
    return rng.random(int(n))


UNSEEN20 = [
    TimingProbe("probe/cas-f64-lane128", "probe-unseen20", "cas_add_f64_lane", 1 << 20, 256,
                lambda n: n // 256, lambda n, rng: [_f64(n, rng), np.zeros(128), _i32(n)],
                source=_P21, note="double atomicAdd from 64-bit atomicCAS on sums[i % 128], ~4 waves"),
    TimingProbe("probe/cas-f64-hashed256", "probe-unseen20", "cas_add_f64_hashed", 1 << 20, 256,
                lambda n: n // 256,
                lambda n, rng: [_f64(n, rng), rng.integers(0, 256, n, dtype=np.int32), np.zeros(256), _i32(n)],
                source=_P21, note="the same on 256 bins drawn at random"),
    TimingProbe("probe/reduce-interleaved256", "probe-unseen20", "reduce_interleaved256", 1 << 24, 256,
                lambda n: n // 256, lambda n, rng: [_f32(n, rng), np.zeros(n // 256, np.float32)],
                source=_P21, note="index = 2 d tid, constant trips (unrolled, predicated), bank conflicts"),
    TimingProbe("probe/blelloch-padded", "probe-unseen20", "blelloch_padded", 1 << 24, 512,
                lambda n: n // 1024,
                lambda n, rng: [rng.integers(-100, 100, n, dtype=np.int32), np.zeros(n, np.int32)],
                source=_P21, note="1024 ints a block, a word of padding every 32"),
    TimingProbe("probe/radix-digit-hist", "probe-unseen20", "radix_digit_hist", 1 << 24, 256,
                lambda n: n // (256 * 16),
                lambda n, rng: [_u32(n, rng),
                                np.zeros(16, np.uint32), _i32(n), _i32(4)],
                source=_P21, note="16 shared counters, 16 keys a thread, 16 global atomics a block"),
    TimingProbe("probe/odd-even-sort512", "probe-unseen20", "odd_even_sort512", 1 << 22, 256,
                lambda n: n // 512, lambda n, rng: [rng.integers(-(1 << 30), 1 << 30, n, dtype=np.int32)],
                source=_P21, note="512 keys a block, 512 phases of a barrier each"),
    TimingProbe("probe/kmeans-assign32", "probe-unseen20", "kmeans_assign", 1 << 22, 256,
                lambda n: n // 256,
                lambda n, rng: [_f32(n, rng), _f32(n, rng), np.zeros(n, np.int32), _i32(n)],
                source=_P21, note="nearest of 32 centroids in __constant__ memory",
                symbols=lambda n, rng: {"c_cx": _f32(32, rng), "c_cy": _f32(32, rng)}),
    TimingProbe("probe/transpose-f64", "probe-unseen20", "transpose_f64", NT, (32, 8),
                lambda n: (n // 32, n // 32),
                lambda n, rng: [rng.standard_normal(n * n), np.zeros(n * n), _i32(n)],
                source=_P21, note="4096 x 4096 doubles, 32 x 33 tiles"),
]
PROBES += UNSEEN20

# probe-unseen21 (session 19): a merge-path merge, RGBA alpha blending through uchar4, a
# counting-sort scatter, a shared-memory FFT, running sums a thread a row, rule 110 on
# packed bits, a segmented sum by key with shuffles
_P22 = "probes22.cu"
ROWS_I, COLS_I = 16384, 1024


def _merge_args(n, rng):
    h = n // 2
    return [np.sort(rng.integers(0, 1 << 30, h, dtype=np.int32)), np.sort(rng.integers(0, 1 << 30, h, dtype=np.int32)),
            np.zeros(n, np.int32), _i32(h), _i32(h)]


def _scatter_args(n, rng):
    keys = _u32(n, rng)
    counts = np.bincount(keys & 255, minlength=256)
    offs = (np.cumsum(counts) - counts).astype(np.uint32)
    return [keys, offs, np.zeros(n, np.uint32), _i32(n)]


def _segment_args(n, rng):
    runs = rng.geometric(1 / 8, n)
    keys = np.repeat(np.arange(len(runs), dtype=np.int32), runs)[:n]
    nk = int(keys[-1]) + 1
    return [keys, _f32(n, rng), np.zeros(nk, np.float32), _i32(n)]


UNSEEN21 = [
    TimingProbe("probe/merge-path", "probe-unseen21", "merge_path", 1 << 24, 256, lambda n: n // 8 // 256,
                _merge_args, source=_P22, note="two sorted 2^23-int arrays, 8 outputs a thread after a binary search"),
    TimingProbe("probe/alpha-blend-rgba", "probe-unseen21", "alpha_blend", 1 << 24, 256, lambda n: n // 256,
                lambda n, rng: [_u8(4 * n, rng), _u8(4 * n, rng), np.zeros(4 * n, np.uint8), np.float32(0.3), _i32(n)],
                source=_P22, note="2^24 RGBA pixels through uchar4"),
    TimingProbe("probe/counting-scatter", "probe-unseen21", "counting_scatter", 1 << 22, 256, lambda n: n // 256,
                _scatter_args, source=_P22, note="atomicAdd with its result on 256 digit offsets, scattered stores"),
    TimingProbe("probe/fft1024-shared", "probe-unseen21", "fft1024", 1 << 24, 512, lambda n: n // 1024,
                lambda n, rng: [_f32(2 * n, rng)], source=_P22,
                note="2^14 FFTs of 1024 complex floats in shared memory, 10 stages"),
    TimingProbe("probe/integral-rows", "probe-unseen21", "integral_rows", ROWS_I, 256, lambda n: n // 256,
                lambda n, rng: [_f32(n * COLS_I, rng), np.zeros(n * COLS_I, np.float32), _i32(n), _i32(COLS_I)],
                source=_P22, note="16384 rows of 1024 floats, a thread a row (64 blocks)"),
    TimingProbe("probe/rule110-bits", "probe-unseen21", "rule110", 1 << 24, 256, lambda n: n // 256,
                lambda n, rng: [_u32(n, rng),
                                np.zeros(n, np.uint32), _i32(n)],
                source=_P22, note="2^29 cells packed 32 a word, one step"),
    TimingProbe("probe/segmented-sum", "probe-unseen21", "segmented_sum", 1 << 24, 256, lambda n: n // 256,
                _segment_args, source=_P22, note="sorted keys in runs of mean 8, shuffle scan, an atomic a run"),
]
PROBES += UNSEEN21
_P23 = "probes23.cu"


def _runs_u8(n, rng, switch=1 / 8):
    """Bytes 0..3 in runs: a new value after each element with probability `switch`."""
    starts = rng.random(n) < switch
    return (np.cumsum(starts) * 7 % 4).astype(np.uint8)


def _coo_args(nnz, rng, rows=1 << 20):
    row = np.sort(rng.integers(0, rows, nnz, dtype=np.int32))
    col = rng.integers(0, rows, nnz, dtype=np.int32)
    return [row, col, _f32(nnz, rng), _f32(rows, rng), np.zeros(rows, np.float32), _i32(nnz)]


def _spheres(n, rng):
    z = rng.uniform(3, 8, 32).astype(np.float32)
    return {"sph_x": (rng.uniform(-0.5, 0.5, 32) * z).astype(np.float32),
            "sph_y": (rng.uniform(-0.5, 0.5, 32) * z).astype(np.float32),
            "sph_z": z, "sph_r": rng.uniform(0.1, 0.6, 32).astype(np.float32)}


GEMV8_COLS4 = 2048
UNSEEN22 = [
    TimingProbe("probe/label-runs", "probe-unseen22", "label_runs", 1 << 24, 256, lambda n: n // 256,
                lambda n, rng: [_runs_u8(n, rng), np.zeros(n, np.int32), _i32(n)], source=_P23,
                note="runs of equal bytes labelled in shared memory, rounds until __syncthreads_or is 0"),
    TimingProbe("probe/count-votes", "probe-unseen22", "count_votes", 1 << 24, 256, lambda n: n // 256 // 64,
                lambda n, rng: [_f32(n, rng), np.float32(1.0), np.zeros(1, np.uint32), _i32(n)], source=_P23,
                note="a __syncthreads_count a trip, 64 trips a block, one atomic a block"),
    TimingProbe("probe/gemv-dp4a", "probe-unseen22", "gemv_dp4a", 8192, 256, lambda n: n * 32 // 256,
                lambda n, rng: [rng.integers(-2**31, 2**31, n * GEMV8_COLS4, dtype=np.int64).astype(np.int32),
                                rng.integers(-2**31, 2**31, GEMV8_COLS4, dtype=np.int64).astype(np.int32),
                                np.zeros(n, np.int32), _i32(n), _i32(GEMV8_COLS4)],
                source=_P23, note="8192 x 8192 int8 matrix times an int8 vector, __dp4a, a warp a row"),
    TimingProbe("probe/chacha20", "probe-unseen22", "chacha20", 1 << 21, 256, lambda n: n // 256,
                lambda n, rng: [_u32(8, rng),
                                np.zeros(16 * n, np.uint32), _i32(n)],
                source=_P23, note="2^21 ChaCha20 blocks, a thread each, rotations by __funnelshift_l"),
    TimingProbe("probe/matadd-rows-x", "probe-unseen22", "matadd_rows_x", 4096, (16, 16), lambda n: (n // 16, n // 16),
                lambda n, rng: [_f32(n * n, rng), _f32(n * n, rng), np.zeros(n * n, np.float32), _i32(n)],
                source=_P23, note="4096^2 float sum with threadIdx.x along the rows (16 rows a warp)"),
    TimingProbe("probe/maxpool2x2", "probe-unseen22", "maxpool2", 4096, (32, 8), lambda n: (n // 32, n // 8),
                lambda n, rng: [_f32(4 * n * n, rng), np.zeros(n * n, np.float32), _i32(n)],
                source=_P23, note="8192^2 floats pooled 2 x 2 to 4096^2"),
    TimingProbe("probe/raycast-spheres", "probe-unseen22", "raycast", 2048, (16, 16), lambda n: (n // 16, n // 16),
                lambda n, rng: [np.zeros(n * n, np.float32), _i32(n), _i32(n), _i32(32)],
                source=_P23, symbols=_spheres, note="2048^2 rays against 32 spheres in __constant__ memory"),
    TimingProbe("probe/coo-spmv", "probe-unseen22", "coo_spmv", 1 << 24, 256, lambda n: n // 256,
                _coo_args, source=_P23, note="2^24 nonzeros sorted by row over 2^20 rows, a float atomicAdd each"),
    TimingProbe("probe/reverse-dynsmem", "probe-unseen22", "reverse_blocks", 1 << 24, 1024, lambda n: n // 1024,
                lambda n, rng: [_ints(n, rng), np.zeros(n, np.int32)], source=_P23, shared=4096,
                note="2^24 ints reversed, each block's chunk through extern __shared__"),
]
PROBES += UNSEEN22
_P24 = "probes24.cu"
MIP_NZ = 256


def _seg_args(n, rng):
    seg = np.sort(rng.integers(0, 1024, n, dtype=np.int32))
    return [seg, rng.integers(-2**31, 2**31 - 1, n, dtype=np.int64).astype(np.int32),
            np.full(1024, np.iinfo(np.int32).min, np.int32), _i32(n)]


UNSEEN23 = [
    TimingProbe("probe/lut-gather16k", "probe-unseen23", "lut_gather", 1 << 24, 256, lambda n: n // 256,
                lambda n, rng: [_u32(n, rng), _f32(4096, rng),
                                np.zeros(n, np.float32), _i32(n)],
                source=_P24, note="2^24 lookups at random in a 16 KiB table in global memory"),
    TimingProbe("probe/gemv-colmajor", "probe-unseen23", "gemv_colmajor", 4096, 256, lambda n: n // 256,
                lambda n, rng: [_f32(n * n, rng), _f32(n, rng), np.zeros(n, np.float32), _i32(n)],
                source=_P24, note="4096 x 4096 column-major matrix times a vector, a thread a row"),
    TimingProbe("probe/mip-z", "probe-unseen23", "mip_z", 512, (32, 8), lambda n: (n // 32, n // 8),
                lambda n, rng: [_f32(n * n * MIP_NZ, rng), np.zeros(n * n, np.float32), _i32(n), _i32(n),
                                _i32(MIP_NZ)],
                source=_P24, note="maximum of 256 slices of 512 x 512 floats, a thread a pixel"),
    TimingProbe("probe/blur-cols", "probe-unseen23", "blur_cols", 4096, (32, 8), lambda n: (n // 32, n // 8),
                lambda n, rng: [_f32(n * n, rng), np.zeros(n * n, np.float32), _i32(n), _i32(n)],
                source=_P24, note="9-tap vertical blur of 4096^2 floats, rows clamped"),
    TimingProbe("probe/warp-bitonic32", "probe-unseen23", "warp_bitonic32", 1 << 24, 256, lambda n: n // 256,
                lambda n, rng: [_ints(n, rng), np.zeros(n, np.int32), _i32(n)],
                source=_P24, note="2^24 ints sorted 32 at a time inside each warp by __shfl_xor_sync"),
    TimingProbe("probe/axpy-float2", "probe-unseen23", "axpy_float2", 1 << 23, 256, lambda n: n // 256,
                lambda n, rng: [np.float32(0.75), _f32(2 * n, rng), _f32(2 * n, rng), _i32(n)],
                source=_P24, note="y = a x + y on 2^23 float2 pairs"),
    TimingProbe("probe/seg-max", "probe-unseen23", "seg_max", 1 << 24, 256, lambda n: n // 256,
                _seg_args, source=_P24, note="atomicMax of 2^24 values into 1024 sorted segments"),
]
PROBES += UNSEEN23
_P25 = "probes25.cu"


def _v3_args(n, rng):
    return [rng.standard_normal(3 * n, dtype=np.float32), _i32(n)]


UNSEEN24 = [
    TimingProbe("probe/normalize-float3", "probe-unseen24", "normalize_float3", 1 << 24, 256, lambda n: n // 256,
                _v3_args, source=_P25, note="2^24 float3 vectors (12 bytes each) normalised in place"),
    TimingProbe("probe/upsample2x", "probe-unseen24", "upsample2x", 4096, (32, 8), lambda n: (n // 32, n // 8),
                lambda n, rng: [_f32(n * n, rng), np.zeros(4 * n * n, np.float32), _i32(n), _i32(n)],
                source=_P25, note="4096^2 floats repeated 2 x 2 into 8192^2, a thread an input pixel"),
    TimingProbe("probe/quantize-i8", "probe-unseen24", "quantize_i8", 1 << 24, 256, lambda n: n // 256,
                lambda n, rng: [rng.standard_normal(n, dtype=np.float32), np.zeros(n, np.int8),
                                np.float32(40.0), _i32(n)],
                source=_P25, note="2^24 floats rounded to signed bytes, clamped"),
    TimingProbe("probe/gelu-tanh", "probe-unseen24", "gelu_tanh", 1 << 24, 256, lambda n: n // 256,
                lambda n, rng: [rng.standard_normal(n, dtype=np.float32), np.zeros(n, np.float32), _i32(n)],
                source=_P25, note="GELU (tanh form) of 2^24 floats"),
    TimingProbe("probe/ssd8x8", "probe-unseen24", "ssd8x8", 2048, (32, 8), lambda n: (n // 32, n // 8),
                lambda n, rng: [_f32(n * n, rng), _f32(64, rng), np.zeros(n * n, np.float32), _i32(n), _i32(n)],
                source=_P25, note="8x8 sum of squared differences at every position of a 2048^2 image"),
    TimingProbe("probe/list-push", "probe-unseen24", "list_push", 1 << 24, 256, lambda n: n // 256,
                lambda n, rng: [_u32(n, rng),
                                np.full(4096, -1, np.int32), np.zeros(n, np.int32), _i32(n)],
                source=_P25, note="2^24 pushes onto 4096 linked lists by atomicExch of the head"),
    TimingProbe("probe/brev-permute", "probe-unseen24", "brev_permute", 1 << 24, 256, lambda n: n // 256,
                lambda n, rng: [_f32(n, rng), np.zeros(n, np.float32), _i32(int(n).bit_length() - 1), _i32(n)],
                source=_P25, note="bit-reversal permutation of 2^24 floats (__brev)"),
]
PROBES += UNSEEN24

_P26 = "probes26.cu"
UNSEEN25 = [
    TimingProbe("probe/rank1-update", "probe-unseen25", "rank1_update", 4096, (32, 8), lambda n: (n // 32, n // 8),
                lambda n, rng: [_f32(n * n, rng), _f32(n, rng), _f32(n, rng), _i32(n)],
                source=_P26, note="A -= u v^T on a 4096^2 float matrix, a thread an element"),
    TimingProbe("probe/transpose-inplace", "probe-unseen25", "transpose_inplace", 4096, (32, 8),
                lambda n: (n // 32, n // 8), lambda n, rng: [_f32(n * n, rng), _i32(n)],
                source=_P26, note="4096^2 floats transposed in place: threads above the diagonal swap a pair"),
    TimingProbe("probe/matmul-bt", "probe-unseen25", "matmul_bt", 1024, (32, 8), lambda n: (n // 32, n // 8),
                lambda n, rng: [_f32(n * n, rng), _f32(n * n, rng), np.zeros(n * n, np.float32), _i32(n)],
                source=_P26, note="C = A B^T for 1024^2 floats, a thread an output, no shared memory"),
    TimingProbe("probe/argmin-u64", "probe-unseen25", "argmin_u64", 1 << 24, 256, lambda n: n // 256,
                lambda n, rng: [rng.random(n, dtype=np.float32), np.full(1, 2**64 - 1, np.uint64), _i32(n)],
                source=_P26, note="argmin of 2^24 floats: warp shuffles, then a 64-bit atomicMin a warp on one word"),
    TimingProbe("probe/rational-double", "probe-unseen25", "rational_double", 1 << 24, 256, lambda n: n // 256,
                lambda n, rng: [rng.uniform(0.0, 2.0, n), np.zeros(n, np.float64), _i32(n)],
                source=_P26, note="P(x) / Q(x), degree 6 over 6, for 2^24 doubles"),
]
PROBES += UNSEEN25


def _crc_table() -> np.ndarray:
    """zlib's CRC-32 table (the reflected polynomial 0xEDB88320)."""
    t = np.arange(256, dtype=np.uint32)
    for _ in range(8):
        t = np.where(t & 1, (t >> 1) ^ np.uint32(0xEDB88320), t >> 1).astype(np.uint32)
    return t


def _attention_args(n, rng):
    nk = 1024
    return [_f32(n * 16, rng), _f32(nk * 16, rng), _f32(nk * 16, rng), np.zeros(n * 16, np.float32),
            _i32(n), _i32(nk), np.float32(0.25)]


def _invert_args(n, rng):
    a = rng.uniform(-1.0, 1.0, (n, 4, 4)).astype(np.float32) + 4.0 * np.eye(4, dtype=np.float32)
    return [a.ravel(), np.zeros(n * 16, np.float32), _i32(n)]


_P27 = "probes27.cu"
UNSEEN26 = [
    TimingProbe("probe/attention-naive", "probe-unseen26", "attention_naive", 16384, 256, lambda n: n // 256,
                _attention_args, source=_P27,
                note="one attention head of width 16, a thread each of 16384 queries, online softmax over 1024 keys"),
    TimingProbe("probe/rgb-to-hsv", "probe-unseen26", "rgb_to_hsv", 1 << 24, 256, lambda n: n // 256,
                lambda n, rng: [rng.integers(0, 256, (n, 4), dtype=np.uint8).ravel(), np.zeros(n * 4, np.float32),
                                _i32(n)],
                source=_P27, note="2^24 RGBA pixels to HSV floats (a branch on the largest channel)"),
    TimingProbe("probe/crc32-chunks", "probe-unseen26", "crc32_chunks", 1 << 20, 256, lambda n: n // 256,
                lambda n, rng: [_u32(n * 16, rng), _crc_table(),
                                np.zeros(n, np.uint32), _i32(n)],
                source=_P27, note="CRC-32 of 2^20 64-byte chunks, a thread a chunk, the table in shared memory"),
    TimingProbe("probe/conv2d-layer", "probe-unseen26", "conv2d_layer", 1024, (32, 8), lambda n: (n // 32, n // 8, 16),
                lambda n, rng: [_f32(8 * n * n, rng), np.zeros(16 * n * n, np.float32), _i32(n), _i32(n)],
                source=_P27, symbols=lambda n, rng: {"c_w": _f32(16 * 8 * 9, rng)},
                note="3x3 convolution, 8 -> 16 channels of 1024^2, weights in __constant__ memory"),
    TimingProbe("probe/invert4x4", "probe-unseen26", "invert4x4", 1 << 20, 256, lambda n: n // 256,
                _invert_args, source=_P27, note="2^20 4x4 float matrices inverted by Gauss-Jordan, a thread each"),
    TimingProbe("probe/fir64-shared", "probe-unseen26", "fir64_shared", 1 << 24, 256, lambda n: n // 256,
                lambda n, rng: [_f32(n, rng), np.zeros(n, np.float32), _i32(n)],
                source=_P27, symbols=lambda n, rng: {"c_fir": _f32(64, rng)},
                note="a 64-tap FIR filter over 2^24 floats, a shared-memory tile, taps in __constant__"),
]
PROBES += UNSEEN26


def _nw_args(n, rng):
    a = rng.integers(0, 4, n * 32, dtype=np.uint8)
    b = a.copy()
    mut = rng.random(n * 32) < 0.3                  # related sequences: 30% of positions differ
    b[mut] = rng.integers(0, 4, int(mut.sum()), dtype=np.uint8)
    return [a, b, np.zeros(n, np.int32), _i32(n)]


def _knn_args(n, rng):
    m = 1024
    return [rng.random(2 * m, dtype=np.float32), rng.random(2 * n, dtype=np.float32),
            np.zeros(n * 8, np.int32), _i32(m), _i32(n)]


_P28 = "probes28.cu"
UNSEEN27 = [
    TimingProbe("probe/median3x3-u8", "probe-unseen27", "median3x3_u8", 4096, (32, 8), lambda n: (n // 32, n // 8),
                lambda n, rng: [rng.integers(0, 256, n * n, dtype=np.uint8), np.zeros(n * n, np.uint8),
                                _i32(n), _i32(n)],
                source=_P28, note="3x3 median of a 4096^2 8-bit image, a 19-exchange network in registers"),
    TimingProbe("probe/nw-batch", "probe-unseen27", "nw_batch", 1 << 17, 32, lambda n: n,
                _nw_args, source=_P28,
                note="Needleman-Wunsch scores of 2^17 pairs of 32-base sequences, a block of 32 threads a pair"),
    TimingProbe("probe/tri-mv-rows", "probe-unseen27", "tri_mv_rows", 4096, 64, lambda n: n // 64,
                lambda n, rng: [_f32(n * n, rng), _f32(n, rng), np.zeros(n, np.float32), _i32(n)],
                source=_P28, note="lower-triangular 4096^2 matrix times a vector, a thread a row"),
    TimingProbe("probe/knn-top8", "probe-unseen27", "knn_top8", 1 << 14, 256, lambda n: n // 256,
                _knn_args, source=_P28,
                note="the 8 nearest of 1024 points for each of 2^14 queries, a sorted array indexed at run time"),
    TimingProbe("probe/cumsum-rows-thread", "probe-unseen27", "cumsum_rows_thread", 1 << 16, 256,
                lambda n: n // 256,
                lambda n, rng: [_f32(n * 256, rng), np.zeros(n * 256, np.float32), _i32(n), _i32(256)],
                source=_P28, note="running sums along 2^16 rows of 256 floats, a thread a row"),
    TimingProbe("probe/index-add-rows", "probe-unseen27", "index_add_rows", 1 << 16, 256, lambda n: n * 64 // 256,
                lambda n, rng: [_f32(n * 64, rng), rng.integers(0, 4096, n, dtype=np.int32),
                                np.zeros(4096 * 64, np.float32), _i32(n)],
                source=_P28, note="index_add of 2^16 rows of 64 floats into 4096 rows picked at random (float atomics)"),
]
PROBES += UNSEEN27
def _bilateral_syms(n, rng):
    g = np.exp(-(np.arange(-2, 3)[:, None] ** 2 + np.arange(-2, 3)[None, :] ** 2) / 4.0)
    return {"c_space": g.astype(np.float32).ravel()}


_P29 = "probes29.cu"
UNSEEN28 = [
    TimingProbe("probe/modpow-u64", "probe-unseen28", "modpow_u64", 1 << 20, 256, lambda n: n // 256,
                lambda n, rng: [_u32(n, rng), np.zeros(n, np.uint32), _u32(1, rng)[0],
                                np.uint64(4294967291), _i32(n)],
                source=_P29, note="x^e mod p for 2^20 words, 32 square-and-multiply steps of 64-bit % by a parameter"),
    TimingProbe("probe/digit-sum-u32", "probe-unseen28", "digit_sum_u32", 1 << 24, 256, lambda n: n // 256,
                lambda n, rng: [_u32(n, rng) >> rng.integers(0, 32, n).astype(np.uint32),
                                np.zeros(n, np.int32), _i32(n)],
                source=_P29, note="decimal digit sums of 2^24 words of 1 to 10 digits (/ 10 and % 10 a digit)"),
    TimingProbe("probe/integral-cols", "probe-unseen28", "integral_cols", 4096, 128, lambda n: n // 128,
                lambda n, rng: [_f32(n * n, rng), np.zeros(n * n, np.float32), _i32(n), _i32(n)],
                source=_P29, note="running sums down the 4096 columns of a 4096^2 float image, a thread a column"),
    TimingProbe("probe/bilateral5x5", "probe-unseen28", "bilateral5x5", 2048, (32, 8), lambda n: (n // 32, n // 8),
                lambda n, rng: [rng.random(n * n, dtype=np.float32), np.zeros(n * n, np.float32), _i32(n),
                                _i32(n), np.float32(50.0)],
                source=_P29, symbols=_bilateral_syms,
                note="5x5 bilateral filter of a 2048^2 float image, 25 expf a pixel, spatial weights in __constant__"),
    TimingProbe("probe/rgba-to-planar", "probe-unseen28", "rgba_to_planar", 1 << 24, 256, lambda n: n // 256,
                lambda n, rng: [_u32(n, rng), np.zeros(n, np.uint8), np.zeros(n, np.uint8),
                                np.zeros(n, np.uint8), _i32(n)],
                source=_P29, note="2^24 RGBA pixels (uchar4) split into r, g and b byte planes"),
    TimingProbe("probe/bucket-of", "probe-unseen28", "bucket_of", 1 << 22, 256, lambda n: n // 256,
                lambda n, rng: [_f32(n, rng), np.sort(_f32(1024, rng)), np.zeros(n, np.int32), _i32(n)],
                source=_P29, note="bucket of 2^22 keys among 1024 sorted splitters, binary search in shared memory"),
]
PROBES += UNSEEN28


def _persist_grid(n):
    return min(2 * 132, max(1, n // (16 * 4096)))        # 2 blocks an SM, 16 chunks a block or more


def _persist_args(n, rng):
    return [_f32(n, rng), np.zeros(1, np.uint32), np.zeros(_persist_grid(n), np.float32), np.uint32(n // 4096)]


def _pcr_args(n, rng):
    """Implicit diffusion steps (b = 1 + |a| + |c|, couplings of 500 to 1000): far rows
    still matter after seven of the eight reductions."""
    a = -rng.uniform(500.0, 1000.0, (n, 256))
    c = -rng.uniform(500.0, 1000.0, (n, 256))
    a[:, 0] = 0.0
    c[:, -1] = 0.0
    b = 1.0 - a - c
    return [a.astype(np.float32).ravel(), b.astype(np.float32).ravel(), c.astype(np.float32).ravel(),
            _f32(n * 256, rng), np.zeros(n * 256, np.float32)]


def _bf16_args(n, rng):
    u = _f32(n, rng).view(np.uint32)
    u[::61] = (u[::61] & np.uint32(0xFFFF0000)) | np.uint32(0x8000)      # ties
    u[::997] = np.uint32(0x7FC00000) | (u[::997] & np.uint32(0x8000FFFF))  # quiet NaNs
    u[::1999] = np.uint32(0x7F800001) | (u[::1999] & np.uint32(0x80000000))  # signalling NaNs
    u[::4001] = np.uint32(0x7F7FFFFF)                                      # rounds up to inf
    return [u.view(np.float32), np.zeros(n, np.uint16), _i32(n)]


_P30 = "probes30.cu"
UNSEEN29 = [
    TimingProbe("probe/morton3d", "probe-unseen29", "morton3d", 1 << 24, 256, lambda n: n // 256,
                lambda n, rng: [rng.random(3 * n, dtype=np.float32), np.zeros(n, np.uint32), _i32(n)],
                source=_P30, note="30-bit Morton codes of 2^24 float3 points in [0,1)^3, bits spread by shifts and masks"),
    TimingProbe("probe/persistent-chunks", "probe-unseen29", "persistent_chunks", 1 << 25, 256, _persist_grid,
                _persist_args, source=_P30,
                note="264 persistent blocks take 4096-float chunks of 2^25 from an atomicAdd counter, summing squares"),
    TimingProbe("probe/cic-deposit", "probe-unseen29", "cic_deposit", 1 << 20, 256, lambda n: n // 256,
                lambda n, rng: [rng.random(2 * n, dtype=np.float32) * np.float32(512),
                                rng.uniform(0.5, 1.5, n).astype(np.float32), np.zeros(512 * 512, np.float32),
                                _i32(n), _i32(512)],
                source=_P30, note="cloud-in-cell deposit of 2^20 particles on a 512^2 grid, four float atomicAdd each"),
    TimingProbe("probe/pcr-tridiag", "probe-unseen29", "pcr_tridiag", 1 << 14, 256, lambda n: n,
                _pcr_args, source=_P30,
                note="parallel cyclic reduction of 2^14 tridiagonal systems of 256 unknowns, a block each, in shared memory"),
    TimingProbe("probe/trilinear3d", "probe-unseen29", "trilinear3d", 1 << 22, 256, lambda n: n // 256,
                lambda n, rng: [rng.random(128 ** 3, dtype=np.float32), (rng.random(3 * n) * 127).astype(np.float32),
                                np.zeros(n, np.float32), _i32(n), _i32(128)],
                source=_P30, note="trilinear samples of a 128^3 float volume at 2^22 random points (8 gathers, 7 lerps)"),
    TimingProbe("probe/to-bf16-rne", "probe-unseen29", "to_bf16_rne", 1 << 25, 256, lambda n: n // 256,
                _bf16_args, source=_P30,
                note="2^25 floats to bfloat16, round to nearest even in integer ops (NaNs kept, quiet), 2-byte stores"),
]
PROBES += UNSEEN29


def _sha256_k():
    """SHA-256's round constants: the first 32 bits of the fractional parts of the cube
    roots of the first 64 primes."""
    primes = [p for p in range(2, 312) if all(p % q for q in range(2, int(p ** 0.5) + 1))][:64]
    out = []
    for p in primes:
        x = p << 96
        r = int(round(x ** (1.0 / 3.0)))
        while r ** 3 > x:
            r -= 1
        while (r + 1) ** 3 <= x:
            r += 1
        out.append(r & 0xFFFFFFFF)
    return np.array(out, np.uint32)


def _sha256_args(n, rng):
    """n messages of 0 to 55 random bytes, each padded by SHA-256's rules to one 64-byte
    block, as 16 big-endian words."""
    length = rng.integers(0, 56, n)
    b = rng.integers(0, 256, (n, 64), dtype=np.uint8)
    pos = np.arange(64)[None, :]
    b[pos >= length[:, None]] = 0
    b[np.arange(n), length] = 0x80
    bits = length * 8
    b[:, 62] = bits >> 8
    b[:, 63] = bits & 0xFF
    words = b.view(">u4").astype(np.uint32).ravel()
    return [words, np.zeros(n * 8, np.uint32), _i32(n)]


IM2COL_C = 64


def _graph_csr(n, rng):
    """An undirected graph on n vertices, mean degree about 16: each vertex draws 4 edges
    to vertices within 32 ids of it (so there are triangles) and 4 anywhere; self-loops
    and duplicates dropped, each edge stored both ways.  (row_ptr, col, src), sorted."""
    u = np.repeat(np.arange(n, dtype=np.int64), 8)
    near = (u + rng.integers(-32, 33, u.size)) % n
    far = rng.integers(0, n, u.size)
    v = np.where(np.arange(u.size) % 8 < 4, near, far)
    keep = u != v
    u, v = u[keep], v[keep]
    key = np.sort(np.concatenate([u * n + v, v * n + u]))
    key = key[np.r_[True, key[1:] != key[:-1]]]         # (np.unique is much slower here)
    src, col = (key // n).astype(np.int32), (key % n).astype(np.int32)
    row_ptr = np.zeros(n + 1, np.int32)
    np.cumsum(np.bincount(src, minlength=n), out=row_ptr[1:])
    return row_ptr, col, src


def _triangle_args(n, rng):
    row_ptr, col, src = _graph_csr(n, rng)
    return [row_ptr, col, src, np.zeros(1, np.uint64), _i32(col.size)]


def _jacobi_args(n, rng):
    """A grid part way to the solution: smooth, with a hot top edge and some noise."""
    y = np.linspace(0.0, 1.0, n)[:, None]
    u = (1.0 - y) ** 2 + 0.05 * np.sin(np.linspace(0.0, 20.0, n))[None, :] * y
    u = u + 0.01 * rng.random((n, n))
    return [u.astype(np.float32).ravel(), np.zeros(n * n, np.float32), np.zeros(1, np.float32), _i32(n)]


def _spmm_args(n, rng):
    """n sparse rows of 4 to 28 nonzeros (columns uniform over n), x of n rows of 32."""
    lens = rng.integers(4, 29, n)
    row_ptr = np.zeros(n + 1, np.int32)
    np.cumsum(lens, out=row_ptr[1:])
    nnz = int(row_ptr[-1])
    return [row_ptr, rng.integers(0, n, nnz, dtype=np.int32), _f32(nnz, rng), _f32(n * 32, rng),
            np.zeros(n * 32, np.float32), _i32(n)]


def _star_polygon(n, rng):
    """A 64-vertex star: radii alternating 1 and 0.45 (slightly jittered)."""
    a = np.arange(64) * (2 * np.pi / 64)
    r = np.where(np.arange(64) % 2 == 0, 1.0, 0.45) * rng.uniform(0.95, 1.05, 64)
    return {"c_px": (r * np.cos(a)).astype(np.float32), "c_py": (r * np.sin(a)).astype(np.float32)}


_P31 = "probes31.cu"
UNSEEN30 = [
    TimingProbe("probe/sha256-msgs", "probe-unseen30", "sha256_msgs", 1 << 20, 256, lambda n: n // 256,
                _sha256_args, source=_P31, symbols=lambda n, rng: {"c_k": _sha256_k()},
                note="SHA-256 of 2^20 one-block messages, a thread each: 64 rounds, W[64] local, K in __constant__"),
    TimingProbe("probe/im2col3x3", "probe-unseen30", "im2col3x3", 128, 256,
                lambda n: -(-IM2COL_C * 9 * n * n // 256),
                lambda n, rng: [_f32(IM2COL_C * n * n, rng), np.zeros(IM2COL_C * 9 * n * n, np.float32),
                                _i32(IM2COL_C), _i32(n), _i32(n)],
                source=_P31, note="im2col of 64 x 128^2 floats for a 3x3 convolution, a thread an output (/ and %)"),
    TimingProbe("probe/triangle-count", "probe-unseen30", "triangle_count", 1 << 20, 256,
                lambda n: -(-n * 16 // 256), _triangle_args, source=_P31,
                note="triangles of a 2^20-vertex graph of degree ~16, a thread an edge, merge walk of sorted lists"),
    TimingProbe("probe/jacobi-residual", "probe-unseen30", "jacobi_residual", 4096, (32, 8),
                lambda n: (n // 32, n // 8), _jacobi_args, source=_P31,
                note="one Jacobi sweep of a 4096^2 grid, max abs(change) by xor shuffles and an int atomicMax a warp"),
    TimingProbe("probe/spmm-csr-warp", "probe-unseen30", "spmm_csr_warp", 1 << 18, 256, lambda n: n * 32 // 256,
                _spmm_args, source=_P31,
                note="CSR (2^18 rows, 4-28 nonzeros) times a dense 32-column matrix, a warp a row, a lane a column"),
    TimingProbe("probe/point-in-polygon", "probe-unseen30", "point_in_polygon", 1 << 22, 256, lambda n: n // 256,
                lambda n, rng: [rng.uniform(-1.05, 1.05, 2 * n).astype(np.float32), np.zeros(n, np.uint8), _i32(n)],
                source=_P31, symbols=_star_polygon,
                note="even-odd test of 2^22 points against a 64-vertex star polygon in __constant__ memory"),
]
PROBES += UNSEEN30

_P32 = "probes32.cu"


def _curand(pid, kernel, note, out=np.float32):
    return TimingProbe(f"probe/{pid}", "probe-curand", kernel, 1 << 20, 256, lambda n: n // 256,
                       lambda n, rng: [np.zeros(1 if out is np.uint32 else n, out), np.uint64(1234), _i32(n)],
                       source=_P32, note=note)


CURAND = [
    _curand("curand-init-id", "curand_init_id", "XORWOW curand_init of 2^20 threads, subsequence = thread id"),
    _curand("curand-init-deep", "curand_init_deep", "XORWOW curand_init with 60 skip-ahead steps a thread"),
    _curand("xorwow-draws64", "xorwow_draws64", "64 XORWOW uniforms a thread after an init without skip-ahead"),
    _curand("philox-draws64", "philox_draws64", "64 Philox4_32_10 uniforms a thread, subsequence = thread id"),
    _curand("xorwow-normals32", "xorwow_normals32", "32 XORWOW normals a thread, subsequence = thread id"),
    _curand("mc-pi", "mc_pi", "Monte Carlo pi: 64 points a thread, one atomicAdd of its count", np.uint32),
]
PROBES += CURAND

_P33 = "probes33.cu"
FA_HEADS = 16
FA_D = 32
B64 = np.frombuffer(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/", np.int8).copy()


def _fa_args(n, rng):
    """q, k, v of 16 heads of n rows of 32, scale 1/sqrt(32)."""
    q, k, v = (_f32(FA_HEADS * n * FA_D, rng) for _ in range(3))
    return [q, k, v, np.zeros(FA_HEADS * n * FA_D, np.float32), _i32(n), np.float32(FA_D ** -0.5)]


def _fft_args(n, rng):
    """n complex points (float pairs), the stage's output, tw[m] = exp(-2 pi i m / n) for
    m < n / 2, span 1024 (or n / 2 when smaller)."""
    tw = np.exp(-2j * np.pi * np.arange(n // 2) / n).astype(np.complex64)
    return [_f32(2 * n, rng), np.zeros(2 * n, np.float32), tw.view(np.float32).copy(), _i32(n),
            _i32(min(1024, n // 2))]


def _nms_args(n, rng):
    """n boxes (x1, y1, x2, y2) in a 1024-pixel square, in n / 16 clusters of jittered
    boxes 16-64 pixels wide, so that many pairs overlap; the mask n x n/64 words; 0.5."""
    c = rng.uniform(0, 960, (max(1, n // 16), 2))[rng.integers(0, max(1, n // 16), n)]
    xy = c + rng.normal(0, 6, (n, 2))
    wh = rng.uniform(16, 64, (n, 2))
    boxes = np.concatenate([xy, xy + wh], axis=1).astype(np.float32)
    return [boxes.ravel(), np.zeros(n * (-(-n // 64)), np.uint64), _i32(n), np.float32(0.5)]


UNSEEN31 = [
    TimingProbe("probe/bloom-insert", "probe-unseen31", "bloom_insert", 1 << 22, 256, lambda n: -(-n // 256),
                lambda n, rng: [_u32(n, rng), np.zeros(1 << 19, np.uint32), _i32(n), np.uint32((1 << 24) - 1)],
                source=_P33, note="Bloom filter: 2^22 keys, 4 atomicOr each into 2^24 bits (2 MiB), results unused"),
    TimingProbe("probe/flash-attn-rows", "probe-unseen31", "flash_attn_rows", 512, 128,
                lambda n: (n // 128, FA_HEADS), _fa_args, source=_P33,
                note="attention with an online softmax, 16 heads of 512 queries and keys, d 32, a thread a query"),
    TimingProbe("probe/base64-encode", "probe-unseen31", "base64_encode", 1 << 22, 256, lambda n: -(-n // 256),
                lambda n, rng: [rng.integers(0, 256, 3 * n, dtype=np.uint8), np.zeros(4 * n, np.int8), _i32(n)],
                source=_P33, symbols=lambda n, rng: {"c_b64": B64},
                note="base64 of 12 MiB: 3 byte loads, 4 lookups in a __constant__ alphabet and a char4 store a thread"),
    TimingProbe("probe/fft-stage", "probe-unseen31", "fft_stage", 1 << 22, 256, lambda n: -(-n // 512),
                _fft_args, source=_P33,
                note="a radix-2 stage (span 1024) of a 2^22-point cuComplex FFT, twiddles gathered at stride 2048"),
    TimingProbe("probe/nms-mask", "probe-unseen31", "nms_mask", 8192, 64,
                lambda n: (-(-n // 64), -(-n // 64)), _nms_args, source=_P33,
                note="NMS IoU masks of 8192 clustered boxes, a block a 64 x 64 tile, the upper triangle only"),
    TimingProbe("probe/redux-count", "probe-unseen31", "redux_count", 1 << 24, 256, lambda n: 1024,
                lambda n, rng: [rng.integers(-1000, 1000, n, dtype=np.int32), np.zeros(1024 * 8, np.uint32),
                                _i32(n), _i32(250)],
                source=_P33, note="count above a threshold: a grid-stride loop of 2^24 ints, __reduce_add_sync a trip"),
]
PROBES += UNSEEN31

_P34 = "probes34.cu"


def _dct_matrix() -> np.ndarray:
    """The orthonormal 8-point DCT-II matrix, C[u, x] = alpha(u) cos((2x + 1) u pi / 16)."""
    u, x = np.meshgrid(np.arange(8), np.arange(8), indexing="ij")
    c = np.cos((2 * x + 1) * u * np.pi / 16) * np.where(u == 0, np.sqrt(1 / 8), np.sqrt(2 / 8))
    return c.astype(np.float32)


def _records(n, rng):
    """n 16-byte ASCII records: integers of 1 to 13 digits, a third negative, right-aligned
    after spaces (the records as uint32 words, and the values)."""
    digits = rng.integers(1, 14, n)
    v = (rng.random(n) * 10.0 ** digits).astype(np.int64)
    v = np.where(rng.random(n) < 1 / 3, -v, v)
    out = np.full((n, 16), ord(" "), np.uint8)
    a = np.abs(v)
    nd = 1 + sum((a >= 10 ** k).astype(np.int64) for k in range(1, 15))
    for k in range(15, 0, -1):
        put = 15 - k < nd
        out[put, k] = (ord("0") + (a[put] // 10 ** (15 - k)) % 10).astype(np.uint8)
    neg = np.nonzero(v < 0)[0]
    out[neg, 15 - nd[neg]] = ord("-")
    return out.ravel().view(np.uint32).copy(), v


def _rot_args(n, rng):
    a = np.deg2rad(30.0)
    return [rng.integers(0, 256, n * n, dtype=np.uint8), np.zeros(n * n, np.uint8), _i32(n), _i32(n),
            np.float32(np.cos(a)), np.float32(np.sin(a))]


UNSEEN32 = [
    TimingProbe("probe/newton-cubic", "probe-unseen32", "newton_cubic", 1 << 22, 256, lambda n: -(-n // 256),
                lambda n, rng: [rng.uniform(0.1, 3.0, n).astype(np.float32),
                                rng.uniform(-100.0, 100.0, n).astype(np.float32),
                                np.zeros(n, np.float32), np.zeros(n, np.int32), _i32(n)],
                source=_P34, note="Newton's method on x^3 + a x + b a thread, a division a step, 2^22 cubics"),
    TimingProbe("probe/dct8x8", "probe-unseen32", "dct8x8", 2048, 64, lambda n: (n // 8, n // 8),
                lambda n, rng: [_f32(n * n, rng), np.zeros(n * n, np.float32), _i32(n)],
                source=_P34, symbols=lambda n, rng: {"c_dct": _dct_matrix().ravel()},
                note="8x8 DCT of a 2048^2 float image, a block a tile, the DCT matrix in __constant__"),
    TimingProbe("probe/warp-radix-sort32", "probe-unseen32", "warp_radix_sort32", 1 << 22, 256,
                lambda n: n // 256, lambda n, rng: [_u32(n, rng), np.zeros(n, np.uint32)],
                source=_P34, note="every warp sorts its 32 keys: 32 ballot splits through shared memory"),
    TimingProbe("probe/atoi-fixed16", "probe-unseen32", "atoi_fixed16", 1 << 22, 256, lambda n: -(-n // 256),
                lambda n, rng: [_records(n, rng)[0], np.zeros(n, np.int64), _i32(n)],
                source=_P34, note="2^22 16-byte decimal records to int64: a uint4 load, 16 bytes a thread"),
    TimingProbe("probe/rotate-nearest", "probe-unseen32", "rotate_nearest", 4096, (32, 8),
                lambda n: (n // 32, n // 8), _rot_args, source=_P34,
                note="a 4096^2 byte image rotated 30 degrees, nearest source pixel"),
    TimingProbe("probe/triad-double2", "probe-unseen32", "triad_double2", 1 << 22, 256, lambda n: -(-n // 256),
                lambda n, rng: [np.zeros(2 * n), rng.standard_normal(2 * n), rng.standard_normal(2 * n),
                                np.float64(3.0), _i32(n)],
                source=_P34, note="STREAM triad on 2^22 double2 (64 MiB an array)"),
]
PROBES += UNSEEN32

_P35 = "probes35.cu"


def _bitmap_args(n, rng):
    """a 2^25-bit bitmap (a third of the bits set), its per-word prefix counts, n queries."""
    words = 1 << 20
    bits = (rng.integers(0, 1 << 32, words, dtype=np.uint64) & rng.integers(0, 1 << 32, words, dtype=np.uint64)
            | (rng.random(words) < 0.1)).astype(np.uint32)
    counts = np.unpackbits(bits.view(np.uint8)).reshape(words, 32).sum(axis=1)
    prefix = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.uint32)
    return [bits, prefix, rng.integers(0, words * 32, n, dtype=np.int64).astype(np.uint32),
            np.zeros(n, np.uint32), _i32(n)]


def _nbody_args(n, rng):
    b = np.concatenate([rng.standard_normal((n, 3)), rng.uniform(0.5, 1.5, (n, 1))], axis=1)
    return [b.astype(np.float32).ravel(), np.zeros(4 * n, np.float32), _i32(n), np.float32(0.01)]


UNSEEN33 = [
    TimingProbe("probe/mandelbrot-double", "probe-unseen33", "mandelbrot_double", 2048, (32, 8),
                lambda n: (n // 32, n // 8), lambda n, rng: [np.zeros(n * n, np.int32), _i32(n), _i32(n), _i32(256)],
                source=_P35, note="Mandelbrot set on 2048^2 points in double precision, at most 256 steps"),
    TimingProbe("probe/rgb565-unpack", "probe-unseen33", "rgb565_unpack", 1 << 24, 256, lambda n: -(-n // 256),
                lambda n, rng: [rng.integers(0, 1 << 16, n, dtype=np.uint16), np.zeros(3 * n, np.uint8), _i32(n)],
                source=_P35, note="2^24 RGB565 pixels to 8-bit RGB: a 16-bit load, three byte stores a thread"),
    TimingProbe("probe/warp-transpose32", "probe-unseen33", "warp_transpose32", 1 << 24, 256,
                lambda n: n // 32 // 256, lambda n, rng: [rng.integers(-1000, 1000, n, dtype=np.int32),
                                                         np.zeros(n, np.int32)],
                source=_P35, note="32x32 int tiles transposed a warp each by 32 shuffles of a local array"),
    TimingProbe("probe/bitmap-rank", "probe-unseen33", "bitmap_rank", 1 << 22, 256, lambda n: -(-n // 256),
                _bitmap_args, source=_P35, note="2^22 rank queries on a 2^25-bit bitmap: a prefix and a popcount"),
    TimingProbe("probe/kmeans-update16", "probe-unseen33", "kmeans_update16", 1 << 22, 256, lambda n: -(-n // 256),
                lambda n, rng: [_f32(2 * n, rng), rng.integers(0, 16, n, dtype=np.int32), np.zeros(48, np.float32),
                                _i32(n)],
                source=_P35, note="k-means sums: 2^22 points, three float atomicAdd each onto 16 x 3 words"),
    TimingProbe("probe/nbody-tiled", "probe-unseen33", "nbody_tiled", 16384, 128, lambda n: n // 128,
                _nbody_args, source=_P35, note="an n-body step over 16384 float4 bodies, tiles of 128 in shared memory"),
]
PROBES += UNSEEN33

_P36 = "probes36.cu"


def _lbm_args(n, rng):
    w = np.array([4 / 9] + [1 / 9] * 4 + [1 / 36] * 4)
    f = w[:, None] * (1.0 + 0.05 * rng.standard_normal((9, n * n)))
    return [f.astype(np.float32).ravel(), np.zeros(9 * n * n, np.float32), _i32(n), _i32(n), np.float32(1.2)]


def _xnor_args(n, rng):
    kw = 16
    return [rng.integers(0, 1 << 64, n * kw, dtype=np.uint64), rng.integers(0, 1 << 64, n * kw, dtype=np.uint64),
            np.zeros(n * n, np.int32), _i32(n), _i32(n), _i32(kw)]


def _ising_symbols(n, rng):
    beta = 0.44
    return {"c_boltz": np.array([1.0, 1.0, 1.0, np.exp(-4 * beta), np.exp(-8 * beta)], np.float32)}


def _perm_dims(n):
    """(d0, d1, d2, d3) of probe/permute4d's input: 8 x d1 x 128 x 128 for a large n, 8 x d1 x 8 x 8
    for a test's small one."""
    d = 128 if n >= 1 << 20 else 8
    return 8, n // (8 * d * d), d, d


def _jacobi_args(n, rng):
    """2^k-point right-hand sides, 256 a block, each block's scaled so its vote ends after 3 to
    1000 sweeps (tolerance 1e-5)."""
    blocks = n // 256
    scale = 2e-5 * 10.0 ** rng.uniform(-0.3, 0.8, blocks)
    rhs = (scale[:, None] * rng.standard_normal((blocks, 256))).astype(np.float32).ravel()
    return [rhs, np.zeros(n, np.float32), np.zeros(blocks, np.int32), _i32(1000), np.float32(1e-5)]


UNSEEN34 = [
    TimingProbe("probe/lbm-d2q9", "probe-unseen34", "lbm_d2q9", 2048, (32, 8), lambda n: (n // 32, n // 8),
                _lbm_args, source=_P36, note="a D2Q9 lattice-Boltzmann step on a periodic 2048^2 grid, nine float planes"),
    TimingProbe("probe/hog-cells", "probe-unseen34", "hog_cells", 2048, (8, 8), lambda n: (n // 8, n // 8),
                lambda n, rng: [rng.integers(0, 256, n * n, dtype=np.uint8), np.zeros((n // 8) ** 2 * 9, np.float32),
                                _i32(n), _i32(n)],
                source=_P36, note="HOG histograms of a 2048^2 byte image: atan2f, 9 shared float bins a 8x8 cell"),
    TimingProbe("probe/xnor-gemm", "probe-unseen34", "xnor_gemm", 2048, (32, 8), lambda n: (n // 32, n // 8),
                _xnor_args, source=_P36, note="a 2048 x 2048 binary matrix product over 1024 bits: 16 popcounts of 64-bit xors"),
    TimingProbe("probe/ising-checker", "probe-unseen34", "ising_checker", 4096, (32, 8),
                lambda n: (n // 64, n // 8),
                lambda n, rng: [rng.choice(np.array([-1, 1], np.int8), n * n), _i32(n), _i32(0), np.uint32(12345)],
                source=_P36, symbols=_ising_symbols,
                note="a Metropolis half-sweep of a 4096^2 Ising lattice of byte spins (beta 0.44)"),
    TimingProbe("probe/permute4d", "probe-unseen34", "permute4d", 1 << 23, 256, lambda n: min(2048, -(-n // 256)),
                lambda n, rng: [_f32(n, rng), np.zeros(n, np.float32), *map(_i32, _perm_dims(n))],
                source=_P36, note="transpose(1, 0, 3, 2) of an 8 x 64 x 128 x 128 float tensor, indices by int division"),
    TimingProbe("probe/jacobi-converge", "probe-unseen34", "jacobi_converge", 1 << 21, 256, lambda n: n // 256,
                _jacobi_args, source=_P36,
                note="8192 blocks each run Jacobi sweeps on 256 points until a __syncthreads_count vote says done"),
]
PROBES += UNSEEN34

_P37 = "probes37.cu"
# a complete prefix code (Kraft sum 1): 2 symbols of 2 bits, 2 of 3, 1 of 4, 4 of 5, 16 of 8
_HUFF_LENS = np.array([2] * 2 + [3] * 2 + [4] + [5] * 4 + [8] * 16)


def _huffman_code():
    """Canonical codes for _HUFF_LENS and the 256-entry table (symbol << 4 | length) that
    the next 8 bits of the stream look up."""
    codes, code, prev = np.zeros(len(_HUFF_LENS), np.int64), 0, _HUFF_LENS[0]
    for s, ln in enumerate(_HUFF_LENS):
        code <<= int(ln - prev)
        codes[s], prev = code, ln
        code += 1
    lut = np.zeros(256, np.uint16)
    for s, (c, ln) in enumerate(zip(codes, _HUFF_LENS)):
        lo = int(c) << (8 - int(ln))
        lut[lo:lo + (1 << (8 - int(ln)))] = (s << 4) | int(ln)
    return codes, lut


def _huffman_args(n, rng, per=32):
    """n chunks of `per` symbols drawn with probability 2^-length, encoded MSB-first."""
    codes, lut = _huffman_code()
    sym = rng.choice(len(_HUFF_LENS), n * per, p=0.5 ** _HUFF_LENS.astype(float))
    ln = _HUFF_LENS[sym].astype(np.int32)
    ends = np.cumsum(ln, dtype=np.int64)
    pos = ends - ln
    j = np.arange(8, dtype=np.int32)
    bit = ((codes.astype(np.int32)[sym][:, None] >> np.maximum(0, ln[:, None] - 1 - j)) & 1).astype(np.uint8)
    keep = j < ln[:, None]
    total = int(ends[-1])
    arr = np.zeros((total + 95) // 32 * 32 + 32, np.uint8)        # a spare word past the end
    arr[(pos[:, None] + j)[keep & (bit == 1)]] = 1
    words = np.frombuffer(np.packbits(arr).tobytes(), ">u4").astype(np.uint32)
    start = pos[::per].astype(np.uint32)
    return [words, start, lut, np.zeros(n * per, np.uint8), _i32(n), _i32(per)]


def _pagerank_args(n, rng):
    """a graph of n vertices whose in-degrees follow a heavy tail (1 to 512, mean about 8),
    sources uniform: CSR by destination, ranks, out-degrees."""
    deg = np.minimum(512, np.maximum(1, (rng.pareto(1.6, n) * 4).astype(np.int64) + 1)).astype(np.int32)
    rowptr = np.concatenate([[0], np.cumsum(deg)]).astype(np.int32)
    src = rng.integers(0, n, int(rowptr[-1]), dtype=np.int32)
    outdeg = np.bincount(src, minlength=n).astype(np.int32)
    rank = rng.uniform(0.5, 1.5, n).astype(np.float32) / n
    return [rowptr, src, rank, outdeg, np.zeros(n, np.float32), _i32(n), np.float32(0.85)]


def _sddmm_args(n, rng):
    """n nonzeros, 16 a row in row order over n / 16 rows of a, columns uniform over
    2^16 rows of b (a test's small n: n / 16 of them); 64 floats a row."""
    rows, cols = n // 16, min(1 << 16, max(64, n // 16))
    return [_f32(rows * 64, rng), _f32(cols * 64, rng), np.repeat(np.arange(rows, dtype=np.int32), 16),
            rng.integers(0, cols, n, dtype=np.int32), np.zeros(n, np.float32), _i32(n)]


def _lz77_args(n, rng):
    """a text that repeats a 4 KiB block with 1% of its bytes changed; half the offsets
    4096 (long matches), half uniform in 1..4096 (mostly none)."""
    block = rng.integers(0, 256, 4096, dtype=np.uint8)
    text = np.resize(block, n)
    hit = rng.random(n) < 0.01
    text[hit] = rng.integers(0, 256, int(hit.sum()), dtype=np.uint8)
    off = np.where(rng.random(n) < 0.5, 4096, rng.integers(1, 4097, n)).astype(np.int32)
    return [text, off, np.zeros(n, np.uint8), _i32(n)]


UNSEEN35 = [
    TimingProbe("probe/huffman-decode", "probe-unseen35", "huffman_decode", 1 << 20, 256,
                lambda n: -(-n // 256), _huffman_args, source=_P37,
                note="2^20 chunks of 32 prefix-coded symbols (2 to 8 bits), a thread a chunk, a shared 256-entry table"),
    TimingProbe("probe/pagerank-pull", "probe-unseen35", "pagerank_pull", 1 << 20, 256, lambda n: -(-n // 256),
                _pagerank_args, source=_P37,
                note="a PageRank pull step on 2^20 vertices, heavy-tailed in-degrees, a division an edge"),
    TimingProbe("probe/sddmm-rows", "probe-unseen35", "sddmm_rows", 1 << 22, 256, lambda n: -(-n // 256),
                _sddmm_args, source=_P37,
                note="SDDMM: 2^22 nonzeros, a 64-float dot product of two gathered rows each, float4 loads"),
    TimingProbe("probe/lz77-match", "probe-unseen35", "lz77_match", 1 << 24, 256, lambda n: -(-n // 256),
                _lz77_args, source=_P37, note="LZ77 match lengths (at most 32) at 2^24 positions of a repetitive text"),
    TimingProbe("probe/xent-loss", "probe-unseen35", "xent_loss", 1 << 22, 256, lambda n: -(-n // 256),
                lambda n, rng: [(3 * _f32(10 * n, rng)), rng.integers(0, 10, n, dtype=np.int32),
                                np.zeros(1, np.float32), _i32(n)],
                source=_P37, note="cross-entropy of 2^22 rows of 10 logits: expf, logf, a float atomicAdd a warp on one word"),
    TimingProbe("probe/uchar4-scan", "probe-unseen35", "uchar4_scan", 1 << 24, 256, lambda n: -(-n // 4 // 256),
                lambda n, rng: [rng.integers(0, 256, n, dtype=np.uint8), np.zeros(n, np.uint32), _i32(n // 4)],
                source=_P37, note="block scans of 2^24 bytes read as uchar4, 1024 a block, into uint4"),
]
PROBES += UNSEEN35

_P38 = "probes38.cu"


def _cdf_args(n, rng):
    w = rng.pareto(1.2, 1024) + 0.01
    cdf = np.cumsum(w) / w.sum()
    cdf[-1] = 1.0
    return [cdf.astype(np.float32), rng.random(n).astype(np.float32), np.zeros(n, np.int32), _i32(n)]


def _hash_table(slots, keys):
    """keys placed by linear probing from (key * 2654435761) mod slots; 0 marks empty."""
    table = np.zeros(slots, np.uint32)
    home = ((keys.astype(np.uint64) * 2654435761) & (slots - 1)).astype(np.int64)
    for k, h in zip(keys.tolist(), home.tolist()):
        while table[h]:
            h = (h + 1) & (slots - 1)
        table[h] = k
    return table


def _hash_probe_args(n, rng):
    """n queries, half of them present, in a table of 2n slots at load factor 0.7 (at most 2^20)."""
    slots = 1 << max(6, min(20, int(n).bit_length()))
    keys = np.unique(rng.integers(1, 1 << 31, int(slots * 0.75), dtype=np.uint32))[:int(slots * 0.7)]
    rng.shuffle(keys)
    table = _hash_table(slots, keys)
    present = rng.random(n) < 0.5
    q = np.where(present, keys[rng.integers(0, len(keys), n)], rng.integers(1, 1 << 31, n, dtype=np.uint32) | 1 << 31)
    return [table, np.uint32(slots - 1), q.astype(np.uint32), np.zeros(n, np.int32), _i32(n)]


UNSEEN36 = [
    TimingProbe("probe/warp-scan-u64", "probe-unseen36", "warp_scan_u64", 1 << 24, 256, lambda n: -(-n // 256),
                lambda n, rng: [rng.integers(0, 1 << 40, n, dtype=np.uint64), np.zeros(n, np.uint64), _i32(n)],
                source=_P38, note="warp scans of 2^24 64-bit ints by __shfl_up_sync (two shuffles a step)"),
    TimingProbe("probe/cdf-sample", "probe-unseen36", "cdf_sample", 1 << 22, 256, lambda n: -(-n // 256),
                _cdf_args, source=_P38, note="2^22 inverse-CDF samples by binary search in a shared 1024-entry table"),
    TimingProbe("probe/kahan-dot", "probe-unseen36", "kahan_dot", 1 << 24, 256, lambda n: 1024,
                lambda n, rng: [_f32(n, rng), _f32(n, rng), np.zeros(1024 * 256, np.float32), _i32(n)],
                source=_P38, note="Kahan-summed dot products of 2^24 floats, 64 a thread, 1024 blocks"),
    TimingProbe("probe/warp-hash-probe", "probe-unseen36", "warp_hash_probe", 1 << 20, 256, lambda n: -(-n // 256),
                _hash_probe_args, source=_P38,
                note="2^20 lookups (half present) in a 2^20-slot linear-probing table, a warp a key, 32 slots a ballot"),
    TimingProbe("probe/downsample2x", "probe-unseen36", "downsample2x", 4096, (32, 8),
                lambda n: (n // 64, n // 16),
                lambda n, rng: [rng.integers(0, 256, 4 * n * n, dtype=np.uint8).view(np.uint32).copy(),
                                np.zeros(n * n // 4, np.uint32), _i32(n), _i32(n)],
                source=_P38, note="2x2 box downsample of a 4096^2 uchar4 image"),
    TimingProbe("probe/estrin-double", "probe-unseen36", "estrin_double", 1 << 22, 256, lambda n: -(-n // 256),
                lambda n, rng: [rng.uniform(-1.0, 1.0, n), rng.standard_normal(16) / np.arange(1, 17),
                                np.zeros(n), _i32(n)],
                source=_P38, note="a degree-15 polynomial at 2^22 points by Estrin's scheme, in double precision"),
]
PROBES += UNSEEN36

_P39 = "probes39.cu"


def _hough_args(n, rng):
    """an n x n edge map: 3% of the pixels at random and 8 straight lines."""
    img = (rng.random((n, n)) < 0.03)
    for _ in range(8):
        x0, y0, x1, y1 = rng.integers(0, n, 4)
        t = np.linspace(0, 1, 2 * n)
        img[(y0 + t * (y1 - y0)).astype(int), (x0 + t * (x1 - x0)).astype(int)] = True
    nrho = 2 * int(np.ceil(np.sqrt(2) * n)) + 3
    return [img.astype(np.uint8).ravel(), _i32(n), _i32(n), np.zeros(180 * nrho, np.int32), _i32(nrho)]


def _hough_symbols(n, rng):
    t = np.deg2rad(np.arange(180))
    return {"c_cos": np.cos(t).astype(np.float32), "c_sin": np.sin(t).astype(np.float32)}


def _text_args(n, rng):
    """n bytes of mixed-case ASCII text with spaces and digits."""
    alphabet = np.frombuffer(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 .,", np.uint8)
    return [alphabet[rng.integers(0, len(alphabet), n)].copy(), np.zeros(n, np.uint8), _i32(n // 4)]


UNSEEN37 = [
    TimingProbe("probe/hough-vote", "probe-unseen37", "hough_vote", 1024, (32, 8), lambda n: (n // 32, n // 8),
                _hough_args, source=_P39, symbols=_hough_symbols,
                note="Hough voting of a 1024^2 edge map (3% noise, 8 lines): 180 atomicAdd an edge pixel"),
    TimingProbe("probe/bicubic-resize", "probe-unseen37", "bicubic_resize", 2048, (32, 8),
                lambda n: (-(-3 * n // 2 // 32), -(-3 * n // 2 // 8)),
                lambda n, rng: [_f32(n * n, rng), _i32(n), _i32(n), np.zeros(9 * n * n // 4, np.float32),
                                _i32(3 * n // 2), _i32(3 * n // 2)],
                source=_P39, note="a 2048^2 float image resized to 3072^2 by Catmull-Rom, 16 taps a pixel"),
    TimingProbe("probe/haar2d", "probe-unseen37", "haar2d", 4096, (32, 8), lambda n: (n // 64, n // 16),
                lambda n, rng: [_f32(n * n, rng), np.zeros(n * n, np.float32), _i32(n)],
                source=_P39, note="one level of the 2-D Haar transform of a 4096^2 float image into four quadrants"),
    TimingProbe("probe/stencil-rows4", "probe-unseen37", "stencil_rows4", 4096, (32, 8), lambda n: (n // 32, n // 32),
                lambda n, rng: [_f32(n * n, rng), np.zeros(n * n, np.float32), _i32(n)],
                source=_P39, note="a 5-point stencil on 4096^2 floats, four rows a thread kept in registers"),
    TimingProbe("probe/upper-char4", "probe-unseen37", "upper_char4", 1 << 24, 256, lambda n: -(-n // 4 // 256),
                _text_args, source=_P39, note="2^24 bytes of ASCII upper-cased four a thread as char4"),
    TimingProbe("probe/dist-matrix", "probe-unseen37", "dist_matrix", 4096, (16, 16), lambda n: (n // 16, n // 16),
                lambda n, rng: [np.concatenate([rng.standard_normal((n, 3)), np.zeros((n, 1))], axis=1)
                                .astype(np.float32).ravel(), np.zeros(n * n, np.float32), _i32(n)],
                source=_P39, note="the 4096^2 distance matrix of 3-D points, 16 x 16 tiles through shared memory"),
]
PROBES += UNSEEN37

_P40 = "probes40.cu"


def _gray_scott_args(n, rng):
    u = np.ones(n * n, np.float32)
    v = np.zeros(n * n, np.float32)
    seed = rng.random(n * n) < 0.1
    u[seed], v[seed] = 0.5, 0.25
    return [u, v, np.zeros(n * n, np.float32), np.zeros(n * n, np.float32), _i32(n),
            np.float32(0.16), np.float32(0.08), np.float32(0.035), np.float32(0.065), np.float32(1.0)]


UNSEEN38 = [
    TimingProbe("probe/bitmat-transpose", "probe-unseen38", "bitmat_transpose", 1 << 24, 256,
                lambda n: -(-n // 256), lambda n, rng: [_u32(n, rng), np.zeros(n, np.uint32), _i32(n)],
                source=_P40, note="2^24 words as 32x32 bit matrices, each transposed by a warp's 32 ballots"),
    TimingProbe("probe/gray-scott", "probe-unseen38", "gray_scott", 4096, (32, 8), lambda n: (n // 32, n // 8),
                _gray_scott_args, source=_P40, note="a Gray-Scott reaction-diffusion step on two 4096^2 float fields"),
    TimingProbe("probe/rgb-to-yuv420", "probe-unseen38", "rgb_to_yuv420", 4096, (32, 8),
                lambda n: (n // 64, n // 16),
                lambda n, rng: [rng.integers(0, 256, 3 * n * n, dtype=np.uint8), np.zeros(n * n, np.uint8),
                                np.zeros(n * n // 4, np.uint8), np.zeros(n * n // 4, np.uint8), _i32(n), _i32(n)],
                source=_P40, note="a 4096^2 RGB image to planar YUV 4:2:0, a thread a 2x2 block"),
    TimingProbe("probe/trapz-integrate", "probe-unseen38", "trapz_integrate", 1 << 24, 256, lambda n: 1024,
                lambda n, rng: [np.zeros(1), _i32(n), np.float32(20.0)],
                source=_P40, note="the trapezoid rule for sinf(x) expf(-x) over 2^24 intervals, a double atomicAdd a block"),
    TimingProbe("probe/col-softmax", "probe-unseen38", "col_softmax", 1 << 16, 256, lambda n: -(-n // 256),
                lambda n, rng: [_f32(256 * n, rng), np.zeros(256 * n, np.float32), _i32(256), _i32(n)],
                source=_P40, note="softmax down each column of a 256 x 2^16 matrix, a thread a column"),
]
PROBES += UNSEEN38

_P41 = "probes41.cu"


def _xtime(b):
    return ((b << 1) ^ (0x1B if b & 0x80 else 0)) & 0xFF


def aes_sbox() -> list[int]:
    """AES's S-box from GF(2^8) inverses (powers of the generator 3) and the affine map."""
    exp, log, x = [0] * 255, [0] * 256, 1
    for i in range(255):
        exp[i], log[x] = x, i
        x ^= _xtime(x)
    rotl = lambda b, k: ((b << k) | (b >> (8 - k))) & 0xFF
    sbox = [0x63] * 256
    for a in range(1, 256):
        v = exp[(255 - log[a]) % 255]
        sbox[a] = v ^ rotl(v, 1) ^ rotl(v, 2) ^ rotl(v, 3) ^ rotl(v, 4) ^ 0x63
    return sbox


def aes_round_keys(key: bytes) -> np.ndarray:
    """AES-128's 44 expanded key words, big-endian."""
    sb = aes_sbox()
    w = [int.from_bytes(key[4 * i:4 * i + 4], "big") for i in range(4)]
    rcon = 1
    for i in range(4, 44):
        t = w[i - 1]
        if i % 4 == 0:
            t = ((t << 8) | (t >> 24)) & 0xFFFFFFFF
            t = int.from_bytes(bytes(sb[b] for b in t.to_bytes(4, "big")), "big") ^ (rcon << 24)
            rcon = _xtime(rcon)
        w.append(w[i - 4] ^ t)
    return np.array(w, np.uint32)


def _aes_args(n, rng):
    sb = aes_sbox()
    te0 = np.array([(_xtime(s) << 24) | (s << 16) | (s << 8) | (_xtime(s) ^ s) for s in sb], np.uint32)
    return [rng.integers(0, 256, 16 * n, dtype=np.uint8), np.zeros(16 * n, np.uint8), te0,
            np.array(sb, np.uint32), _i32(n)]


ROPE_HEADS, ROPE_D, DW_CHANNELS = 32, 128, 32


def _rope_args(n, rng):
    tokens = n // (ROPE_HEADS * ROPE_D // 2)
    return [_f32(2 * n, rng), _i32(tokens), _i32(ROPE_HEADS), _i32(ROPE_D), np.float32(10000.0)]


def _cc_args(m, rng):
    v = max(m // 4, 1)
    lab = rng.permutation(v).astype(np.int32)
    return [rng.integers(0, v, m, dtype=np.int32), rng.integers(0, v, m, dtype=np.int32), lab, lab.copy(), _i32(m)]


def _match_keys(n, rng):
    """Keys of 1024 bins that drift slowly along the array, as an image's do: a base value
    a run of 64 elements plus noise of 0-3, so a warp holds a few distinct keys."""
    base = (np.arange(n) // 64 * 37) % 1021
    return (base + rng.integers(0, 4, n)).astype(np.uint32)


UNSEEN39 = [
    TimingProbe("probe/gcd-pairs", "probe-unseen39", "gcd_pairs", 1 << 22, 256, lambda n: -(-n // 256),
                lambda n, rng: [rng.integers(1, 1 << 31, n, dtype=np.uint32), rng.integers(1, 1 << 31, n, dtype=np.uint32),
                                np.zeros(n, np.uint32), _i32(n)],
                source=_P41, note="Euclid's gcd of 2^22 pairs of random 31-bit ints by unsigned remainders"),
    TimingProbe("probe/aes128-ttable", "probe-unseen39", "aes128_ttable", 1 << 20, 256, lambda n: -(-n // 256),
                _aes_args, source=_P41,
                symbols=lambda n, rng: {"c_rk": aes_round_keys(bytes(rng.integers(0, 256, 16, dtype=np.uint8)))},
                note="AES-128 ECB over 2^20 16-byte blocks, one T-table and the S-box in shared memory"),
    TimingProbe("probe/rope-pairs", "probe-unseen39", "rope_pairs", 1 << 23, 256, lambda n: -(-n // 256),
                _rope_args, source=_P41, note="rotary embeddings on 4096 tokens x 32 heads x 128, powf and sincosf a pair"),
    TimingProbe("probe/depthwise3x3", "probe-unseen39", "depthwise3x3", 512, (32, 8),
                lambda n: (-(-n // 32), -(-n // 8), DW_CHANNELS),
                lambda n, rng: [_f32(DW_CHANNELS * n * n, rng), _f32(9 * DW_CHANNELS, rng),
                                np.zeros(DW_CHANNELS * n * n, np.float32), _i32(n), _i32(n)],
                source=_P41, note="a depthwise 3x3 convolution of 32 channels of 512^2, zero padded"),
    TimingProbe("probe/cc-min-pass", "probe-unseen39", "cc_min_pass", 1 << 22, 256, lambda n: -(-n // 256),
                _cc_args, source=_P41, note="a min-label pass over 2^22 random edges of 2^20 vertices, atomicMin"),
    TimingProbe("probe/match-hist", "probe-unseen39", "match_hist", 1 << 24, 256, lambda n: n // 256,
                lambda n, rng: [_match_keys(n, rng), np.zeros(1024, np.uint32), _i32(n)],
                source=_P41, note="a 1024-bin histogram of 2^24 drifting keys, warps aggregating by __match_any_sync"),
]
PROBES += UNSEEN39

_P42 = "probes42.cu"
CUCKOO_EMPTY = np.uint32(0xFFFFFFFF)


def _list_args(n, rng):
    """One random linked list over n nodes: next[] in a random order, the tail pointing at
    itself, rank 1 a node (0 at the tail)."""
    order = rng.permutation(n).astype(np.int32)
    nxt = np.empty(n, np.int32)
    nxt[order[:-1]] = order[1:]
    nxt[order[-1]] = order[-1]
    rank = np.ones(n, np.int32)
    rank[order[-1]] = 0
    return [nxt, rank, np.zeros(n, np.int32), np.zeros(n, np.int32), _i32(n)]


def _rbk_args(n, rng):
    """Sorted keys in runs of 1-40 (a mean of about 20), and random values."""
    runs = rng.integers(1, 41, n // 8 + 64)
    keys = np.repeat(np.arange(runs.size, dtype=np.int32), runs)[:n]
    return [keys, _f32(n, rng), np.zeros(int(keys[-1]) + 1, np.float32), _i32(n)]


def cuckoo_h1(q, mask):
    return (q.astype(np.uint64) * 2654435761 % (1 << 32)).astype(np.uint32) & np.uint32(mask)


def cuckoo_h2(q, mask):
    m = ((q ^ np.uint32(0x5BD1E995)).astype(np.uint64) * 0x27D4EB2F % (1 << 32)).astype(np.uint32)
    return (m >> np.uint32(7)) & np.uint32(mask)


def _cuckoo_args(n, rng):
    """A table of n (key, value) slots about 40% full: each key in its first slot where that
    is free, else in its second; n queries, half of them stored keys."""
    mask = n - 1
    keys = np.unique(rng.integers(0, 1 << 31, int(0.45 * n), dtype=np.uint32))
    rng.shuffle(keys)
    table = np.full((n, 2), CUCKOO_EMPTY, np.uint32)
    s1 = cuckoo_h1(keys, mask)
    _, first = np.unique(s1, return_index=True)
    table[s1[first], 0], table[s1[first], 1] = keys[first], first.astype(np.uint32)
    rest = np.setdiff1d(np.arange(keys.size), first)
    s2 = cuckoo_h2(keys[rest], mask)
    free = table[s2, 0] == CUCKOO_EMPTY
    _, once = np.unique(s2, return_index=True)
    ok = np.intersect1d(np.flatnonzero(free), once)
    table[s2[ok], 0], table[s2[ok], 1] = keys[rest[ok]], rest[ok].astype(np.uint32)
    stored = table[table[:, 0] != CUCKOO_EMPTY, 0]
    q = np.where(rng.random(n) < 0.5, rng.choice(stored, n), rng.integers(0, 1 << 31, n, dtype=np.uint32))
    return [q.astype(np.uint32), table.ravel(), np.zeros(n, np.int32), _i32(n), np.uint32(mask)]


DROPOUT_COLS = 4096


UNSEEN40 = [
    TimingProbe("probe/pointer-jump", "probe-unseen40", "pointer_jump", 1 << 22, 256, lambda n: -(-n // 256),
                _list_args, source=_P42, note="one pointer-jumping step of list ranking over a random list of 2^22 nodes"),
    TimingProbe("probe/kmer-count", "probe-unseen40", "kmer_count", 1 << 24, 256, lambda n: -(-(n - 7) // 256),
                lambda n, rng: [rng.integers(0, 4, n, dtype=np.uint8), np.zeros(1 << 16, np.uint32), _i32(n)],
                source=_P42, note="8-mer counts of 2^24 random bases into 4^8 bins by atomicAdd"),
    TimingProbe("probe/reduce-by-key", "probe-unseen40", "reduce_by_key", 1 << 24, 256, lambda n: -(-n // 256),
                _rbk_args, source=_P42, note="sums of 2^24 values by sorted keys (runs of 1-40), a warp's segmented scan"),
    TimingProbe("probe/batched-gemm8", "probe-unseen40", "batched_gemm8", 1 << 16, 64, lambda n: n,
                lambda n, rng: [_f32(64 * n, rng), _f32(64 * n, rng), np.zeros(64 * n, np.float32), _i32(n)],
                source=_P42, note="2^16 products of 8x8 float matrices, 64 threads a product through shared memory"),
    TimingProbe("probe/cuckoo-lookup", "probe-unseen40", "cuckoo_lookup", 1 << 22, 256, lambda n: -(-n // 256),
                _cuckoo_args, source=_P42, note="2^22 cuckoo-hash lookups in a 2^22-slot table of (key, value) pairs"),
    TimingProbe("probe/bias-relu-dropout", "probe-unseen40", "bias_relu_dropout", 1 << 24, 256,
                lambda n: -(-n // 256),
                lambda n, rng: [_f32(n, rng), _f32(DROPOUT_COLS, rng), np.zeros(n, np.float32), np.zeros(n, np.uint8),
                                _i32(n), _i32(DROPOUT_COLS), np.uint32(0x1234567)],
                source=_P42, note="bias + ReLU + dropout (keep 7/8 by an integer hash) over 2^24 floats, 4096 columns"),
]
PROBES += UNSEEN40

_P43 = "probes43.cu"
def grid_side(n: int) -> int:
    """grid-neighbors' cells a side: about 8 particles a cell (32 at 2^18 particles)."""
    return max(2, round((n / 8) ** (1 / 3)))


def _jfa_args(n, rng):
    """A mid-run jump-flooding state: 70% of pixels hold one of 4000 seeds, the rest none."""
    seeds = rng.integers(0, n, (4000, 2), dtype=np.int32)
    cur = seeds[rng.integers(0, 4000, n * n)]
    cur[rng.random(n * n) >= 0.7] = -1
    return [cur.ravel(), np.zeros(2 * n * n, np.int32), _i32(n), _i32(16)]


def _strings_args(n, rng):
    lens = rng.integers(1, 65, n)
    off = np.concatenate([[0], np.cumsum(lens)]).astype(np.int32)
    return [rng.integers(32, 127, int(off[-1]), dtype=np.uint8), off, np.zeros(n, np.uint32), _i32(n)]


def _stereo_args(n, rng):
    left = rng.integers(0, 256, (n, n), dtype=np.uint8)
    right = np.roll(left, -7, axis=1) ^ rng.integers(0, 4, (n, n), dtype=np.uint8)
    return [left.ravel(), right.ravel(), np.zeros(n * n, np.uint8), _i32(n), _i32(n)]


def sobol_directions(rng) -> np.ndarray:
    """32 direction numbers a dimension for 4 dimensions: van der Corput's (bit 31 - k)
    for the first, random words for the others."""
    first = (np.uint64(1) << (np.uint64(31) - np.arange(32, dtype=np.uint64))).astype(np.uint32)
    return np.concatenate([first, _u32(3 * 32, rng)])


def _grid_args(n, rng):
    """n particles in the unit cube sorted by cell of a g^3 grid, each cell's range."""
    g = grid_side(n)
    pos = rng.random((n, 3), dtype=np.float32)
    cell = _grid_cells(pos, g)
    order = np.argsort(cell, kind="stable")
    pos, cell = pos[order], cell[order]
    start = np.searchsorted(cell, np.arange(g ** 3), "left").astype(np.int32)
    end = np.searchsorted(cell, np.arange(g ** 3), "right").astype(np.int32)
    p4 = np.zeros((n, 4), np.float32)
    p4[:, :3] = pos
    return [p4.ravel(), start, end, np.zeros(n, np.int32), _i32(n), _i32(g), np.float32((1.0 / g) ** 2)]


def _grid_cells(pos, g):
    c = np.minimum((pos * g).astype(np.int64), g - 1)
    return (c[:, 2] * g + c[:, 1]) * g + c[:, 0]


POLY_P = 2147483647


UNSEEN41 = [
    TimingProbe("probe/jump-flood", "probe-unseen41", "jump_flood", 2048, (32, 8), lambda n: (-(-n // 32), -(-n // 8)),
                _jfa_args, source=_P43, note="a jump-flooding step (k = 16) of a 2048^2 Voronoi diagram of 4000 seeds"),
    TimingProbe("probe/fnv-strings", "probe-unseen41", "fnv_strings", 1 << 20, 256, lambda n: -(-n // 256),
                _strings_args, source=_P43, note="FNV-1a of 2^20 strings of 1-64 bytes, a lane a string"),
    TimingProbe("probe/stereo-sad", "probe-unseen41", "stereo_sad", 1024, (32, 8), lambda n: (-(-n // 32), -(-n // 8)),
                _stereo_args, source=_P43, note="3x3 SAD stereo matching over 32 disparities on 1024^2 bytes"),
    TimingProbe("probe/sobol-points", "probe-unseen41", "sobol_points", 1 << 22, 256, lambda n: (-(-n // 256), 4),
                lambda n, rng: [np.zeros(4 * n, np.uint32), _i32(n)], source=_P43,
                symbols=lambda n, rng: {"c_sobol": sobol_directions(rng)},
                note="2^22 4-D Sobol points by Gray code, __ffs and __constant__ direction numbers"),
    TimingProbe("probe/grid-neighbors", "probe-unseen41", "grid_neighbors", 1 << 18, 256, lambda n: -(-n // 256),
                _grid_args, source=_P43, note="neighbour counts of 2^18 particles sorted into a 32^3 grid, 27 cells each"),
    TimingProbe("probe/polymul-mod", "probe-unseen41", "polymul_mod", 4096, 256, lambda n: -(-(2 * n - 1) // 256),
                lambda n, rng: [rng.integers(0, POLY_P, n, dtype=np.uint32), rng.integers(0, POLY_P, n, dtype=np.uint32),
                                np.zeros(2 * n - 1, np.uint32), _i32(n), np.uint32(POLY_P)],
                source=_P43, note="the product of two 4096-term polynomials mod 2^31 - 1, a 64-bit % a term"),
]
PROBES += UNSEEN41

_P44 = "probes44.cu"
SMB_COLS, DIA_OFFSETS = 1024, (-1024, -32, -1, 0, 1, 32, 1024)


def _smb_args(rows, rng):
    y = rng.random((rows, SMB_COLS), dtype=np.float32)
    y /= y.sum(axis=1, keepdims=True)
    return [y.ravel(), _f32(rows * SMB_COLS, rng), np.zeros(rows * SMB_COLS, np.float32), _i32(rows), _i32(SMB_COLS)]


def _dia_args(n, rng):
    k = len(DIA_OFFSETS)
    return [_f32(k * n, rng), np.array(DIA_OFFSETS, np.int32), _i32(k), _f32(n, rng), np.zeros(n, np.float32), _i32(n)]


def _bigint_args(count, rng):
    a, b = _u32(32 * count, rng), _u32(32 * count, rng)
    ones = rng.random(count) < 0.25                    # a quarter of the pairs: long carry chains
    b.reshape(count, 32)[ones] = ~a.reshape(count, 32)[ones]
    b.reshape(count, 32)[ones, rng.integers(0, 8)] += np.uint32(1)
    return [a, b, np.zeros(32 * count, np.uint32), np.zeros(count, np.uint32), _i32(count)]


def _key16_args(n, rng, nkeys=1 << 20):
    keys = rng.integers(0, 1 << 32, (nkeys, 4), dtype=np.uint64).astype(np.uint32)
    keys[:, 0] &= np.uint32(0xFF)                      # a shared high word: ties go on to the next
    keys = keys[np.lexsort(keys.T[::-1])]
    q = keys[rng.integers(0, nkeys, n)].copy()
    q[rng.random(n) < 0.5, 3] ^= np.uint32(1)          # half of the queries absent
    return [keys.ravel(), _i32(nkeys), q.ravel(), np.zeros(n, np.int32), _i32(n)]


def _quat_args(n, rng):
    q = rng.standard_normal((n, 4)).astype(np.float32)
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    return [q.ravel(), _f32(4 * n, rng), np.zeros(4 * n, np.float32), _i32(n)]


UNSEEN42 = [
    TimingProbe("probe/softmax-backward", "probe-unseen42", "softmax_backward", 16384, 256,
                lambda n: -(-n * 32 // 256), _smb_args, source=_P44,
                note="a softmax's backward pass over 16384 rows of 1024, a warp a row"),
    TimingProbe("probe/dia-spmv", "probe-unseen42", "dia_spmv", 1 << 22, 256, lambda n: -(-n // 256),
                _dia_args, source=_P44, note="SpMV of a 2^22-row matrix in DIA format, 7 diagonals"),
    TimingProbe("probe/laplace3d-zmarch", "probe-unseen42", "laplace3d_zmarch", 256, (32, 8),
                lambda n: (-(-n // 32), -(-n // 8)), lambda n, rng: [_f32(n ** 3, rng), np.zeros(n ** 3, np.float32), _i32(n)],
                source=_P44, note="a 7-point Laplacian of a 256^3 grid, a thread a column marching along z"),
    TimingProbe("probe/bigint-add", "probe-unseen42", "bigint_add", 1 << 17, 256, lambda n: -(-n * 32 // 256),
                _bigint_args, source=_P44, note="2^17 additions of 1024-bit integers, a warp each, carries by ballots"),
    TimingProbe("probe/key16-search", "probe-unseen42", "key16_search", 1 << 22, 256, lambda n: -(-n // 256),
                _key16_args, source=_P44, note="2^22 binary searches over 2^20 sorted 16-byte keys"),
    TimingProbe("probe/quat-rotate", "probe-unseen42", "quat_rotate", 1 << 23, 256, lambda n: -(-n // 256),
                _quat_args, source=_P44, note="2^23 float4 points rotated by their own unit quaternions"),
]
PROBES += UNSEEN42

_P45 = "probes45.cu"
SAT_R, BMH_CHUNK, BMH_PATTERN = 7, 256, b"tgcatgca"
VOXELS = 1 << 18


def _chol_args(n, rng):
    """n SPD 4x4 matrices B B^T + I (B standard normal), row-major."""
    b = rng.standard_normal((n, 4, 4)).astype(np.float32)
    a = np.einsum("nij,nkj->nik", b, b) + np.eye(4, dtype=np.float32)
    return [a.astype(np.float32).ravel(), np.zeros(16 * n, np.float32), _i32(n)]


def sat_of(img: np.ndarray) -> np.ndarray:
    """The (h+1) x (w+1) summed-area table of a u8 image, zero first row and column, mod 2^32."""
    h, w = img.shape
    s = np.zeros((h + 1, w + 1), np.int64)
    s[1:, 1:] = img.astype(np.int64).cumsum(0).cumsum(1)
    return (s & 0xFFFFFFFF).astype(np.uint32)


def _sat_args(n, rng):
    """An n x n random u8 image's summed-area table."""
    img = rng.integers(0, 256, (n, n), dtype=np.uint8)
    return [sat_of(img).ravel(), np.zeros(n * n, np.uint8), _i32(n), _i32(n), _i32(SAT_R)]


def _bmh_args(n, rng):
    """n bytes of random lowercase letters, one of 8 the pattern's (so the skips are short),
    with the pattern planted about every 1000 bytes."""
    alpha = np.frombuffer(b"acgtuvwxyz", np.uint8)
    text = alpha[rng.integers(0, alpha.size, n)]
    m = len(BMH_PATTERN)
    at = rng.integers(0, n - m + 1, max(1, n // 1000))
    text[at[:, None] + np.arange(m)] = np.frombuffer(BMH_PATTERN, np.uint8)
    nchunks = -(-(n - m + 1) // BMH_CHUNK)
    return [text, _i32(n), np.frombuffer(BMH_PATTERN, np.uint8).copy(), _i32(m), np.zeros(nchunks, np.int32)]


def _voxel_args(n, rng):
    """n points in random cells of VOXELS (a quarter of n at small n) with float4 features."""
    cells = min(VOXELS, max(1, n // 4))
    return [rng.integers(0, cells, n, dtype=np.int32), _f32(4 * n, rng),
            np.full(4 * cells, -np.inf, np.float32), _i32(n)]


UNSEEN43 = [
    TimingProbe("probe/cholesky4-batch", "probe-unseen43", "cholesky4_batch", 1 << 22, 256, lambda n: -(-n // 256),
                _chol_args, source=_P45, note="Cholesky factors of 2^22 SPD 4x4 float matrices, a thread each (rsqrtf)"),
    TimingProbe("probe/sat-box-filter", "probe-unseen43", "sat_box_filter", 4096, (32, 8),
                lambda n: (-(-n // 32), -(-n // 8)), _sat_args, source=_P45,
                note="a 15x15 box mean of a 4096^2 u8 image by four summed-area-table lookups a pixel"),
    TimingProbe("probe/daub4-step", "probe-unseen43", "daub4_step", 1 << 24, 256, lambda n: -(-n // 256),
                lambda n, rng: [_f32(2 * n, rng), np.zeros(n, np.float32), np.zeros(n, np.float32), _i32(n)],
                source=_P45, note="one Daubechies-4 wavelet level of 2^25 floats, the next pair by shuffles"),
    TimingProbe("probe/bmh-count", "probe-unseen43", "bmh_count", 1 << 26, 256,
                lambda n: -(-(-(-(n - len(BMH_PATTERN) + 1) // BMH_CHUNK)) // 256), _bmh_args, source=_P45,
                note="Boyer-Moore-Horspool counts of an 8-byte pattern in 2^26 bytes, a thread a 256-byte chunk"),
    TimingProbe("probe/poisson-knuth", "probe-unseen43", "poisson_knuth", 1 << 23, 256, lambda n: -(-n // 256),
                lambda n, rng: [(0.5 + 31.5 * rng.random(n)).astype(np.float32), np.zeros(n, np.uint32), _i32(n),
                                np.uint32(0x2545F491)],
                source=_P45, note="2^23 Poisson samples (lambda 0.5-32) by Knuth's product of uniforms"),
    TimingProbe("probe/voxel-max", "probe-unseen43", "voxel_max", 1 << 22, 256, lambda n: -(-n // 256),
                _voxel_args, source=_P45,
                note="max-pooling of 2^22 points' float4 features into 2^18 voxels by int atomicMax / atomicMin"),
]
PROBES += UNSEEN43

_P46 = "probes46.cu"
BSR_GAP, BIN_STEPS = 16, 512


def _expm_args(n, rng):
    """n 3x3 double matrices, standard normal scaled by 0.1-3 (0 to 5 squarings)."""
    a = rng.standard_normal((n, 9)) * (0.1 + 2.9 * rng.random((n, 1)))
    return [a.ravel(), np.zeros(9 * n, np.float64), _i32(n)]


def _bsr_args(nb, rng):
    """A BSR matrix of nb block rows with 4-12 4x4 blocks each at increasing block columns
    (gaps of 1-16, from about the diagonal, wrapping), and x."""
    cnt = rng.integers(4, 13, nb)
    rowptr = np.concatenate([[0], np.cumsum(cnt)]).astype(np.int32)
    gaps = rng.integers(1, BSR_GAP + 1, int(rowptr[-1]))
    first = np.repeat(np.arange(nb) - 2 * BSR_GAP, cnt)
    within = np.cumsum(gaps) - np.repeat(np.cumsum(gaps)[rowptr[:-1]] - gaps[rowptr[:-1]], cnt)
    bcol = ((first + within) % nb).astype(np.int32)
    return [rowptr, bcol, _f32(16 * rowptr[-1], rng), _f32(4 * nb, rng), np.zeros(4 * nb, np.float32), _i32(nb)]


def varint_encode(vals: np.ndarray) -> np.ndarray:
    """The unsigned LEB128 bytes of the u32 values, one after another."""
    v = vals.astype(np.uint64)
    lens = np.ones(v.size, np.int64)
    for k in range(1, 5):
        lens += v >= (1 << (7 * k))
    off = np.concatenate([[0], np.cumsum(lens)])
    out = np.zeros(int(off[-1]), np.uint8)
    for k in range(5):
        has = lens > k
        byte = (v[has] >> np.uint64(7 * k)) & np.uint64(0x7F)
        more = (lens[has] > k + 1).astype(np.uint64) << np.uint64(7)
        out[off[:-1][has] + k] = (byte | more).astype(np.uint8)
    return out


def _varint_args(n, rng):
    """About n bytes of varints: values of 7, 14, 21, 28 or 32 bits (weights 8:4:2:1:1),
    cut at n bytes on a value's end; base = the values ending before each 32-byte window."""
    nvals = n // 2 + n // 8 + 64                       # about 1.2 n bytes, cut to n
    bits = np.array([7, 14, 21, 28, 32])[rng.choice(5, nvals, p=[0.5, 0.25, 0.125, 0.0625, 0.0625])]
    vals = (rng.integers(0, 1 << 32, nvals, dtype=np.uint64) & ((np.uint64(1) << bits.astype(np.uint64)) - np.uint64(1)))
    enc = varint_encode(vals)[:n]
    ends = np.flatnonzero(enc < 0x80)
    enc = enc[:ends[-1] + 1] if ends.size else enc[:0]
    nw = -(-n // 32)
    is_end = np.zeros(32 * nw, np.int64)
    is_end[:enc.size] = enc < 0x80
    base = np.concatenate([[0], np.cumsum(is_end.reshape(nw, 32).sum(1))[:-1]]).astype(np.int32)
    return [enc, base, np.zeros(int(is_end.sum()), np.uint32), _i32(enc.size)]


def _binom_args(n, rng):
    return [(5 + 25 * rng.random(n)).astype(np.float32), (1 + 99 * rng.random(n)).astype(np.float32),
            (0.25 + 9.75 * rng.random(n)).astype(np.float32), np.float32(0.02), np.float32(0.30),
            np.zeros(n, np.float32)]


def _negbin_args(n, rng):
    r = (0.5 + 19.5 * rng.random(n)).astype(np.float32)
    p = (0.05 + 0.9 * rng.random(n)).astype(np.float32)
    k = rng.negative_binomial(r.astype(np.float64), p.astype(np.float64)).astype(np.int32)
    return [k, r, p, np.zeros(n, np.float32), _i32(n)]


UNSEEN44 = [
    TimingProbe("probe/expm3-double", "probe-unseen44", "expm3_double", 1 << 21, 128, lambda n: -(-n // 128),
                _expm_args, source=_P46,
                note="2^21 exponentials of 3x3 double matrices, Taylor degree 10 after 0-5 halvings, then squarings"),
    TimingProbe("probe/bsr-spmv4", "probe-unseen44", "bsr_spmv4", 1 << 19, 256, lambda n: -(-4 * n // 256),
                _bsr_args, source=_P46, note="BSR SpMV, 2^19 block rows of 4-12 4x4 float blocks, a thread a scalar row"),
    TimingProbe("probe/redblack-gs", "probe-unseen44", "redblack_gs", 4096, (32, 8),
                lambda n: (-(-n // 64), -(-n // 8)),
                lambda n, rng: [_f32(n * n, rng), _f32(n * n, rng), _i32(n), _i32(1), np.float32(1.0 / (n * n))],
                source=_P46, note="one colour's red-black Gauss-Seidel half-step on a 4096^2 float grid, in place"),
    TimingProbe("probe/binomial-option", "probe-unseen44", "binomial_option", 2048, 256, lambda n: n,
                _binom_args, source=_P46,
                note="2048 European calls on 512-step binomial trees, a 256-thread block each, two barriers a step"),
    TimingProbe("probe/varint-decode", "probe-unseen44", "varint_decode", 1 << 25, 256, lambda n: -(-n // 256),
                _varint_args, source=_P46,
                note="LEB128 varints in 2^25 bytes (1-5 bytes each), a warp a 32-byte window, slots by ballot and popc"),
    TimingProbe("probe/negbin-logpmf", "probe-unseen44", "negbin_logpmf", 1 << 24, 256, lambda n: -(-n // 256),
                _negbin_args, source=_P46,
                note="negative-binomial log-pmfs of 2^24 counts: three lgammaf, a logf and a log1pf each"),
]
PROBES += UNSEEN44

_P47 = "probes47.cu"
HIST_GRID, HEAT_STEPS, HEAT_TILE = 1056, 16, 256


def matmul_rect_dims(m: int) -> tuple[int, int, int]:
    """(M, N, K) of probe/matmul-rect at size m: none a multiple of 16 or 32 but M."""
    return m, 3 * m // 4 + 5, m // 2 + 9


def _mr_args(m, rng):
    M, N, K = matmul_rect_dims(m)
    return [_f32(M * K, rng), _f32(K * N, rng), np.zeros(M * N, np.float32), _i32(M), _i32(N), _i32(K)]


def _hist_bytes_args(n, rng):
    """n bytes (a multiple of 4) like an image's: most near 100 (normal, sd 12), a tenth
    anywhere, read as n / 4 words."""
    b = np.clip(np.rint(100 + 12 * rng.standard_normal(n)), 0, 255).astype(np.uint8)
    anywhere = rng.random(n) < 0.1
    b[anywhere] = rng.integers(0, 256, int(anywhere.sum()), dtype=np.uint8)
    return [b.view(np.uint32), _i32(n // 4), np.zeros(256, np.uint32)]


UNSEEN45 = [
    TimingProbe("probe/matmul-rect", "probe-unseen45", "matmul_rect", 2048, (16, 16),
                lambda m: (-(-matmul_rect_dims(m)[1] // 16), -(-m // 16)), _mr_args, source=_P47,
                note="C = A B for 2048 x 1033 times 1033 x 1541 floats, 16 x 32 and 32 x 16 shared tiles"),
    TimingProbe("probe/hist256-warp-private", "probe-unseen45", "hist256_warp_private", 1 << 27, 256,
                lambda n: min(HIST_GRID, -(-n // 4096)), _hist_bytes_args, source=_P47,
                note="a 256-bin histogram of 128 MiB of image-like bytes, a shared sub-histogram a warp"),
    TimingProbe("probe/conv7x7-tiled", "probe-unseen45", "conv7x7_tiled", 4096, (16, 16),
                lambda n: (-(-n // 10), -(-n // 10)),
                lambda n, rng: [_f32(n * n, rng), np.zeros(n * n, np.float32), _i32(n), _i32(n)], source=_P47,
                symbols=lambda n, rng: {"c_filt7": (rng.random(49, dtype=np.float32) / 24.5).astype(np.float32)},
                note="7x7 convolution of a 4096^2 float image, __constant__ filter, 16^2 input tiles, 10^2 outputs"),
    TimingProbe("probe/reduce-modulo", "probe-unseen45", "reduce_modulo", 1 << 24, 256, lambda n: -(-n // 256),
                lambda n, rng: [rng.integers(-1000, 1001, n, dtype=np.int32), np.zeros(-(-n // 256), np.int32), _i32(n)],
                source=_P47, note="Harris's reduction #1 of 2^24 ints, a block of 256 each: tid % (2 s), divergent"),
    TimingProbe("probe/gemv-block-row", "probe-unseen45", "gemv_block_row", 16384, 256, lambda n: n,
                lambda n, rng: [_f32(n * 4096, rng), _f32(4096, rng), np.zeros(n, np.float32), _i32(4096)],
                source=_P47, note="16384 x 4096 floats times a vector, a block of 256 a row, a shared tree"),
    TimingProbe("probe/heat1d-multistep", "probe-unseen45", "heat1d_multistep", 1 << 24, HEAT_TILE,
                lambda n: -(-n // (HEAT_TILE - 2 * HEAT_STEPS)),
                lambda n, rng: [_f32(n, rng), np.zeros(n, np.float32), _i32(n), np.float32(0.25)], source=_P47,
                note="16 steps of the 1-D heat equation on 2^24 floats in one launch, 256-cell shared tiles"),
]
PROBES += UNSEEN45

_P48 = "probes48.cu"
RS_N, INTERP_K = 1024, 256


def gather_shape(n: int) -> tuple[int, int]:
    """(rows, cols) of the matrix probe/gather-ldg walks by columns at size n."""
    rows = 1 << ((int(n).bit_length() - 1) // 2)
    return rows, -(-n // rows)


def _gather_args(n, rng):
    rows, cols = gather_shape(n)
    i = np.arange(n, dtype=np.int64)
    return [_f32(rows * cols, rng), ((i % rows) * cols + i // rows).astype(np.int32), np.zeros(n, np.float32), _i32(n)]


def _interp_args(n, rng):
    """256 distinct increasing breakpoints in [0, 1) (values a random walk), x uniform on
    [-0.02, 1.02)."""
    xs = (np.sort(rng.choice(1 << 24, INTERP_K, replace=False)) / float(1 << 24)).astype(np.float32)
    ys = np.cumsum(rng.standard_normal(INTERP_K)).astype(np.float32)
    x = (-0.02 + 1.04 * rng.random(n)).astype(np.float32)
    return [xs, ys, x, np.zeros(n, np.float32), _i32(n)]


UNSEEN46 = [
    TimingProbe("probe/atomic-sum-naive", "probe-unseen46", "atomic_sum_naive", 1 << 21, 256, lambda n: -(-n // 256),
                lambda n, rng: [rng.integers(0, 4, n).astype(np.float32), np.zeros(1, np.float32), _i32(n)],
                source=_P48, note="the sum of 2^21 floats by an atomicAdd a thread on one word"),
    TimingProbe("probe/rank-sort1024", "probe-unseen46", "rank_sort1024", 1 << 20, 256, lambda n: -(-n // RS_N),
                lambda n, rng: [rng.integers(0, 5000, n, dtype=np.int32), np.zeros(n, np.int32), _i32(n)],
                source=_P48, note="2^20 ints sorted 1024 a block by rank, 1024 shared broadcast reads a key"),
    TimingProbe("probe/ripple", "probe-unseen46", "ripple", 4096, (16, 16), lambda n: (-(-n // 16), -(-n // 16)),
                lambda n, rng: [np.zeros(4 * n * n, np.uint8), _i32(n), _i32(37)], source=_P48,
                note="CUDA by Example's ripple on a 4096^2 uchar4 image: sqrtf, cosf and a division a pixel"),
    TimingProbe("probe/grad3d-mag", "probe-unseen46", "grad3d_mag", 256, (8, 8, 4),
                lambda n: (-(-n // 8), -(-n // 8), -(-n // 4)),
                lambda n, rng: [_f32(n ** 3, rng), np.zeros(n ** 3, np.float32), _i32(n)], source=_P48,
                note="gradient magnitude of a 256^3 float volume, 8 x 8 x 4 blocks on a 3-D grid"),
    TimingProbe("probe/gather-ldg", "probe-unseen46", "gather_ldg", 1 << 24, 256, lambda n: -(-n // 256),
                _gather_args, source=_P48,
                note="2^24 floats gathered by __ldg through an index array walking a 4096^2 matrix by columns"),
    TimingProbe("probe/interp-scan", "probe-unseen46", "interp_scan", 1 << 22, 256, lambda n: -(-n // 256),
                _interp_args, source=_P48,
                note="piecewise-linear interpolation of 2^22 points, 256 shared breakpoints by a linear scan with break"),
]
PROBES += UNSEEN46

_P49 = "probes49.cu"
FW_N, EQ_GRID = 1024, 1056


def jds_matrix(rows: int, rng) -> tuple:
    """A sparse rows x rows matrix in JDS format: row lengths 1 + Poisson(11) (at most 64),
    columns within 4096 of the diagonal (wrapping), values standard normal.  (jd_ptr,
    perm, cols, vals): perm[r] the original row of sorted row r (lengths decreasing),
    jagged diagonal d at jd_ptr[d] + r for the sorted rows r < jd_ptr[d+1] - jd_ptr[d]."""
    lens = np.minimum(1 + rng.poisson(11, rows), 64)
    perm = np.argsort(-lens, kind="stable")
    sl = lens[perm]
    counts = (sl[None, :] > np.arange(int(sl[0]))[:, None]).sum(1)
    jd_ptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int32)
    nnz = int(jd_ptr[-1])
    r = np.repeat(np.arange(rows), sl)
    d = np.arange(nnz) - np.repeat(np.cumsum(sl) - sl, sl)
    pos = jd_ptr[d] + r
    cols = np.zeros(nnz, np.int32)
    cols[pos] = (perm[r] + rng.integers(-4096, 4097, nnz)) % rows
    vals = np.zeros(nnz, np.float32)
    vals[pos] = rng.standard_normal(nnz).astype(np.float32)
    return jd_ptr, perm.astype(np.int32), cols, vals


def _jds_args(rows, rng):
    jd_ptr, perm, cols, vals = jds_matrix(rows, rng)
    return [jd_ptr, perm, cols, vals, _f32(rows, rng), np.zeros(rows, np.float32), _i32(rows),
            _i32(jd_ptr.size - 1)]


def _equalize_args(n, rng):
    """n image-like bytes (a multiple of 4; as for probe/hist256-warp-private) and their
    cumulative histogram; cdf_min its smallest nonzero entry."""
    b = np.clip(np.rint(100 + 12 * rng.standard_normal(n)), 0, 255).astype(np.uint8)
    anywhere = rng.random(n) < 0.1
    b[anywhere] = rng.integers(0, 256, int(anywhere.sum()), dtype=np.uint8)
    cdf = np.cumsum(np.bincount(b, minlength=256)).astype(np.uint32)
    return [cdf, np.uint32(cdf[cdf > 0][0]), b, np.zeros(n, np.uint8), _i32(n // 4)]


def _atomics9_init(n):
    return np.array([0, 10 * n + 12345, 0, 0xFFFFFFFF, 0, 0, 0xFFFFFFFF, 0, 0x12345678], np.uint32)


UNSEEN47 = [
    TimingProbe("probe/matmul-t32-rows4", "probe-unseen47", "matmul_t32_rows4", 4096, (32, 8),
                lambda n: (n // 32, n // 32),
                lambda n, rng: [_f32(n * (n // 8), rng), _f32(n // 8 * n, rng), np.zeros(n * n, np.float32), _i32(n),
                                _i32(n // 8)],
                source=_P49,
                note="C = A B, 4096 x 512 times 512 x 4096 floats, 32 x 32 shared tiles, 32 x 8 threads, 4 outputs each"),
    TimingProbe("probe/spmv-jds", "probe-unseen47", "spmv_jds", 1 << 21, 256, lambda n: -(-n // 256),
                _jds_args, source=_P49,
                note="SpMV in JDS format, 2^21 rows of 1-64 nonzeros (mean 12) near the diagonal, a thread a sorted row"),
    TimingProbe("probe/equalize-lut-u8", "probe-unseen47", "equalize_lut_u8", 1 << 27, 256,
                lambda n: min(EQ_GRID, -(-n // 1024)), _equalize_args, source=_P49,
                note="histogram equalization of 128 MiB of image-like bytes through a shared 256-entry table, uchar4"),
    TimingProbe("probe/fwht1024-shared", "probe-unseen47", "fwht1024_shared", 1 << 25, 256, lambda n: n // FW_N,
                lambda n, rng: [_f32(n, rng), np.zeros(n, np.float32)], source=_P49,
                note="Walsh-Hadamard transforms of 2^15 blocks of 1024 floats in shared memory, NVIDIA's radix-4 stages"),
    TimingProbe("probe/lane-switch4", "probe-unseen47", "lane_switch4", 1 << 23, 256, lambda n: -(-n // 256),
                lambda n, rng: [_f32(n, rng), np.zeros(n, np.float32), _i32(n)], source=_P49,
                note="a switch on threadIdx.x % 4 into four different 32-step loops, 2^23 threads"),
    TimingProbe("probe/atomic-intrinsics9", "probe-unseen47", "atomic_intrinsics9", 1 << 20, 256,
                lambda n: -(-n // 256), lambda n, rng: [_atomics9_init(n), _i32(n)], source=_P49,
                note="simpleAtomicIntrinsics by 2^20 threads: add, sub, max, min, inc, dec, and, or, xor on nine words"),
]
PROBES += UNSEEN47

_P50 = "probes50.cu"
SAXPY_GRID, SB_N, DFT_BLOCK = 264, 32, 128


def _sturm_args(nmat, rng):
    """nmat symmetric tridiagonal 32 x 32 matrices: diagonals uniform on [-4, 4),
    off-diagonals standard normal (the 32nd of each unused)."""
    return [(-4 + 8 * rng.random(SB_N * nmat)).astype(np.float32), _f32(SB_N * nmat, rng),
            np.zeros(SB_N * nmat, np.float32), _i32(nmat)]


UNSEEN48 = [
    TimingProbe("probe/saxpy-gridstride264", "probe-unseen48", "saxpy_gridstride", 1 << 25, 256,
                lambda n: SAXPY_GRID, lambda n, rng: [np.float32(1.5), _f32(n, rng), _f32(n, rng), _i32(n)],
                source=_P50, note="SAXPY on 2^25 floats by a grid-stride loop, 264 blocks of 256 (two an SM)"),
    TimingProbe("probe/cbrt-even-only", "probe-unseen48", "cbrt_even_only", 1 << 24, 256, lambda n: -(-n // 256),
                lambda n, rng: [_f32(n, rng), np.zeros(n, np.float32), _i32(n)], source=_P50,
                note="odd threads return at once, even ones take 16 Newton steps of a cube root, 2^24 threads"),
    TimingProbe("probe/dft-naive", "probe-unseen48", "dft_naive", 4096, DFT_BLOCK, lambda n: -(-n // DFT_BLOCK),
                lambda n, rng: [_f32(2 * n, rng), np.zeros(2 * n, np.float32), _i32(n)], source=_P50,
                note="the naive DFT of 4096 complex floats, a thread a frequency (32 blocks of 128), sincosf a term"),
    TimingProbe("probe/sturm-bisect32", "probe-unseen48", "sturm_bisect32", 1 << 15, 256, lambda n: -(-n // 8),
                _sturm_args, source=_P50,
                note="eigenvalues of 2^15 tridiagonal 32 x 32 matrices by 24 Sturm-count bisections, a warp a matrix"),
    TimingProbe("probe/blur5x5-u8", "probe-unseen48", "blur_u8", 4096, (16, 16), lambda n: (-(-n // 16), -(-n // 16)),
                lambda n, rng: [rng.integers(0, 256, n * n, dtype=np.uint8), np.zeros(n * n, np.uint8), _i32(n),
                                _i32(n)],
                source=_P50, note="PMPP's blur of a 4096^2 byte image: the in-image pixels of a 5 x 5 window, an int division"),
    TimingProbe("probe/conv5x5-cached-halo", "probe-unseen48", "conv5x5_cached_halo", 4096, (16, 16),
                lambda n: (-(-n // 16), -(-n // 16)),
                lambda n, rng: [_f32(n * n, rng), np.zeros(n * n, np.float32), _i32(n), _i32(n)], source=_P50,
                symbols=lambda n, rng: {"c_filt5": (rng.random(25, dtype=np.float32) / 12.5).astype(np.float32)},
                note="5x5 convolution of a 4096^2 float image, 16^2 shared tiles, the halo read from global memory"),
]
PROBES += UNSEEN48

_P51 = "probes51.cu"
GT_ROWS, GT_COLS, PT_BUCKETS, PT_STRIDE, BM_BINS, RSA_LEN, IIR_H, IIR_SIGMA = 128, 512, 8, 32, 4096, 4096, 1024, 8.0


def _u49_gemv_args(rows, rng):
    return [_f32(rows * GT_COLS, rng), _f32(GT_COLS, rng), np.zeros(rows, np.float32), _i32(rows), _i32(GT_COLS)]


def _u49_partition_args(n, rng):
    """n uniform random keys, the start of each bucket k & 7's range (the exclusive prefix
    sum of the bucket counts), the bucket cursors at 0 (bucket b's at word 32 b), out
    zeroed."""
    keys = _u32(n, rng)
    counts = np.bincount(keys & (PT_BUCKETS - 1), minlength=PT_BUCKETS)
    start = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.uint32)
    return [keys, start, np.zeros(PT_BUCKETS * PT_STRIDE, np.uint32), np.zeros(n, np.uint32), _i32(n)]


def _u49_binmax_args(n, rng):
    return [_f32(n, rng), rng.integers(0, BM_BINS, n, dtype=np.int32), np.full(BM_BINS, -np.inf, np.float32),
            _i32(n)]


def _u49_sorted_args(rows, rng):
    """rows x RSA_LEN ints, each row non-decreasing (steps 0-2 from a random start) except in
    a random half of the rows, where one element at a uniform position drops below its left
    neighbour."""
    a = rng.integers(0, 3, (rows, RSA_LEN), dtype=np.int32)
    a[:, 0] = rng.integers(-1 << 20, 1 << 20, rows, dtype=np.int32)
    a = np.cumsum(a, axis=1, dtype=np.int32)
    bad = np.flatnonzero(rng.random(rows) < 0.5)
    p = rng.integers(0, RSA_LEN - 1, bad.size)
    a[bad, p + 1] = a[bad, p] - 1
    return [a.reshape(-1), np.full(rows, -1, np.int32), _i32(RSA_LEN)]


def _u49_deriche_coefs(sigma: float) -> list:
    """(a0, a1, a2, a3, b1, b2, coefp, coefn) of the CUDA Samples' recursiveGaussian, order 0,
    as float32."""
    alpha = 1.695 / max(sigma, 0.1)
    ema, ema2 = np.exp(-alpha), np.exp(-2 * alpha)
    b1, b2 = -2 * ema, ema2
    k = (1 - ema) * (1 - ema) / (1 + 2 * alpha * ema - ema2)
    a0, a1, a2, a3 = k, k * (alpha - 1) * ema, k * (alpha + 1) * ema, -k * ema2
    return [np.float32(c) for c in (a0, a1, a2, a3, b1, b2, (a0 + a1) / (1 + b1 + b2), (a2 + a3) / (1 + b1 + b2))]


def _u49_iir_args(w, rng):
    return [rng.random(w * IIR_H, dtype=np.float32), np.zeros(w * IIR_H, np.float32), _i32(w), _i32(IIR_H),
            *_u49_deriche_coefs(IIR_SIGMA)]


UNSEEN49 = [
    TimingProbe("probe/gemv-tile32", "probe-unseen49", "gemv_tile32", 1 << 17, GT_ROWS, lambda n: -(-n // GT_ROWS),
                _u49_gemv_args, source=_P51,
                note="y = A x, 2^17 x 512 floats staged through an unpadded [128][32] shared tile, a thread its row"),
    TimingProbe("probe/partition8-atomic", "probe-unseen49", "partition8_atomic", 1 << 21, 256,
                lambda n: -(-n // 256), _u49_partition_args, source=_P51,
                note="2^21 keys split into 8 buckets, an atomicAdd a key on its bucket's cursor (a 128-byte line each)"),
    TimingProbe("probe/partition8-match", "probe-unseen49", "partition8_match", 1 << 21, 256,
                lambda n: -(-n // 256), _u49_partition_args, source=_P51,
                note="the same split by warp-aggregated atomics: __match_any_sync groups, an atomicAdd a group"),
    TimingProbe("probe/bin-max-cas", "probe-unseen49", "bin_max_cas", 1 << 22, 256, lambda n: -(-n // 256),
                _u49_binmax_args, source=_P51,
                note="per-bin max of 2^22 floats in 4096 random bins by an atomicCAS loop on the float's bits"),
    TimingProbe("probe/rows-sorted-and", "probe-unseen49", "rows_sorted_and", 1 << 14, 256, lambda n: n,
                _u49_sorted_args, source=_P51,
                note="are 2^14 rows of 4096 ints sorted? a block a row, leaving at the first failed __syncthreads_and"),
    TimingProbe("probe/recursive-gaussian", "probe-unseen49", "recursive_gaussian", 1 << 14, 64,
                lambda n: -(-n // 64), _u49_iir_args, source=_P51,
                note="CUDA Samples' recursiveGaussian down the columns of a 16384 x 1024 float image, a thread a column"),
]
PROBES += UNSEEN49

_P52 = "probes52.cu"
MOE_E, GN_C, GN_G, JH_GRID, LG_K, LG_NOUT, GS_N, GS_C = 64, 256, 32, 264, 64, 256, 4, 32


def _u50_moe_args(ntok, rng):
    """ntok tokens' router logits over 64 experts (standard normal); outputs int2, float2."""
    return [_f32(ntok * MOE_E, rng), np.zeros(2 * ntok, np.int32), np.zeros(2 * ntok, np.float32), _i32(ntok)]


def group_norm_shape(n: int) -> tuple[int, int, int, int]:
    """(N, C, G, HW) of probe/group-norm at size n: HW = n, a batch of n // 128 (1 to 32),
    256 channels in 32 groups."""
    return max(1, min(32, n // 128)), GN_C, GN_G, n


def _u50_gn_args(n, rng):
    N, C, G, HW = group_norm_shape(n)
    x = (0.5 + 2.0 * rng.standard_normal(N * C * HW)).astype(np.float32)
    return [x, (1.0 + 0.1 * rng.standard_normal(C)).astype(np.float32), _f32(C, rng),
            np.zeros(N * C * HW, np.float32), _i32(C), _i32(HW), _i32(G), np.float32(1e-5)]


def _u50_jh_args(n, rng):
    """Two correlated byte images of n pixels (a multiple of 4): a near 128 (normal, sd 40),
    b = a + normal noise (sd 6), both clipped to [0, 255]."""
    a = np.clip(np.rint(128 + 40 * rng.standard_normal(n)), 0, 255)
    b = np.clip(np.rint(a + 6 * rng.standard_normal(n)), 0, 255)
    return [a.astype(np.uint8), b.astype(np.uint8), np.zeros(64 * 64, np.uint32), _i32(n // 4)]


def _u50_lg_args(m, rng):
    """m rows of 64 inputs (standard normal), the 64 x 256 weights (normal, sd 1/8) and the
    bias (normal, sd 1/2)."""
    return [_f32(m * LG_K, rng), (rng.standard_normal(LG_K * LG_NOUT) / 8).astype(np.float32),
            (rng.standard_normal(LG_NOUT) / 2).astype(np.float32), np.zeros(m * LG_NOUT, np.float32), _i32(m),
            _i32(LG_NOUT)]


def grid_sample_grid(N: int, side: int) -> np.ndarray:
    """probe/grid-sample-bilinear's sampling grid (N x side x side float2, x then y): the
    output pixels' normalized centres rotated by 0.3 + 0.05 k radians (sample k), scaled
    by 1.1 and rippled by 0.02 sin, about a tenth of them falling outside [-1, 1]."""
    u = (2 * np.arange(side) + 1) / side - 1
    X, Y = np.meshgrid(u, u)
    out = np.empty((N, side, side, 2), np.float32)
    for k in range(N):
        th = 0.3 + 0.05 * k
        gx = 1.1 * (np.cos(th) * X - np.sin(th) * Y) + 0.02 * np.sin(9 * Y)
        gy = 1.1 * (np.sin(th) * X + np.cos(th) * Y) + 0.02 * np.sin(7 * X)
        out[k, :, :, 0], out[k, :, :, 1] = gx, gy
    return out.ravel()


def _u50_gs_args(side, rng):
    return [_f32(GS_N * GS_C * side * side, rng), grid_sample_grid(GS_N, side),
            np.zeros(GS_N * GS_C * side * side, np.float32), _i32(GS_N), _i32(GS_C), _i32(side), _i32(side),
            _i32(side), _i32(side)]


UNSEEN50 = [
    TimingProbe("probe/moe-top2-thread", "probe-unseen50", "moe_top2_thread", 1 << 20, 256, lambda n: -(-n // 256),
                _u50_moe_args, source=_P52,
                note="MoE router top-2 of 64 logits for 2^20 tokens, a thread a token (its own 256-byte row)"),
    TimingProbe("probe/moe-top2-warp", "probe-unseen50", "moe_top2_warp", 1 << 20, 256, lambda n: -(-n // 8),
                _u50_moe_args, source=_P52,
                note="MoE router top-2 of 64 logits for 2^20 tokens, a warp a token: float2 lanes, 2 shuffle maxima, ballots"),
    TimingProbe("probe/group-norm", "probe-unseen50", "group_norm", 4096, 256,
                lambda n: group_norm_shape(n)[0] * GN_G, _u50_gn_args, source=_P52,
                note="GroupNorm of a 32 x 256 x 64 x 64 float batch in 32 groups, a block a (sample, group), two passes"),
    TimingProbe("probe/joint-hist64", "probe-unseen50", "joint_hist64", 1 << 26, 256, lambda n: JH_GRID,
                _u50_jh_args, source=_P52,
                note="64 x 64-bin joint histogram of two correlated 64 MiB byte images, shared atomics, 264 blocks"),
    TimingProbe("probe/linear-bias-gelu", "probe-unseen50", "linear_bias_gelu", 1 << 16, (16, 16),
                lambda m: (LG_NOUT // 64, -(-m // 16)), _u50_lg_args, source=_P52,
                note="Y = gelu(X W + b), 2^16 x 64 times 64 x 256, 16 x 64 tiles with K whole in shared, erff epilogue"),
    TimingProbe("probe/grid-sample-bilinear", "probe-unseen50", "grid_sample_bilinear", 512, 256,
                lambda n: -(-GS_N * n * n // 256), _u50_gs_args, source=_P52,
                note="bilinear grid_sample of a 4 x 32 x 512 x 512 batch through a rotated, rippled grid, zeros outside"),
]
PROBES += UNSEEN50

_P53 = "probes53.cu"
GB_KEYS, GB_GRID, L2_COLS = 1024, 264, 256


def _u51_box_grid(block):
    """A 3-D grid covering the n^3 volume with 3-D blocks of shape ``block``."""
    return lambda n: tuple(-(-n // b) for b in block)


def _u51_box_args(n, rng):
    return [_f32(n ** 3, rng), np.zeros(n ** 3, np.float32), _i32(n), _i32(n), _i32(n)]


def _u51_groupby_args(n, rng):
    """n keys uniform in [0, 1024) and n standard normal values; sums (double) and counts
    (unsigned long long) zeroed."""
    return [rng.integers(0, GB_KEYS, n, dtype=np.int32), _f32(n, rng), np.zeros(GB_KEYS, np.float64),
            np.zeros(GB_KEYS, np.uint64), _i32(GB_KEYS), _i32(n)]


def _u51_l2norm_args(dtype):
    def args(rows, rng):
        return [rng.standard_normal(rows * L2_COLS).astype(dtype), np.zeros(rows * L2_COLS, dtype), _i32(rows),
                _i32(L2_COLS)]
    return args


def _u51_fingerprints(n, rng):
    """n 1024-bit words (32 u32 each), a bit set with probability 1/8 (the AND of three
    uniform words)."""
    w = rng.integers(0, 1 << 32, n, dtype=np.uint32)
    w &= rng.integers(0, 1 << 32, n, dtype=np.uint32)
    w &= rng.integers(0, 1 << 32, n, dtype=np.uint32)
    return w


def _u51_tanimoto_args(nfp, rng):
    return [_u51_fingerprints(nfp * 32, rng), _u51_fingerprints(32, rng), np.zeros(nfp, np.float32), _i32(nfp)]


UNSEEN51 = [
    TimingProbe("probe/box27-b32x4x4", "probe-unseen51", "box27_3d", 256, (32, 4, 4), _u51_box_grid((32, 4, 4)),
                _u51_box_args, source=_P53,
                note="27-point box mean of a 256^3 float volume, __ldg, 3-D blocks of 32 x 4 x 4 (a warp 32 x in a row)"),
    TimingProbe("probe/box27-b4x4x32", "probe-unseen51", "box27_3d", 256, (4, 4, 32), _u51_box_grid((4, 4, 32)),
                _u51_box_args, source=_P53,
                note="the same box mean with blocks of 4 x 4 x 32: a warp 4 x by 4 y by 2 z, eight 16-byte pieces a load"),
    TimingProbe("probe/groupby-aos-dyn", "probe-unseen51", "groupby_aos_dyn", 1 << 24, 256, lambda n: GB_GRID,
                _u51_groupby_args, source=_P53, shared=GB_KEYS * 8,
                note="group-by sum and count of 2^24 floats on 1024 keys: {float, unsigned} structs in extern "
                     "__shared__, shared atomics, double and u64 global atomicAdds"),
    TimingProbe("probe/l2norm-rows16-float", "probe-unseen51", "l2norm_rows16<float>", 1 << 17, 256,
                lambda n: -(-n // 16), _u51_l2norm_args(np.float32), source=_P53,
                note="template instance: 2^17 rows of 256 floats to unit L2 norm, a tiled_partition<16> a row"),
    TimingProbe("probe/l2norm-rows16-double", "probe-unseen51", "l2norm_rows16<double>", 1 << 17, 256,
                lambda n: -(-n // 16), _u51_l2norm_args(np.float64), source=_P53,
                note="the double instance of the same template: 2^17 rows of 256 doubles, twice the bytes"),
    TimingProbe("probe/tanimoto-redux", "probe-unseen51", "tanimoto_redux", 1 << 21, 256, lambda n: -(-n // 8),
                _u51_tanimoto_args, source=_P53,
                note="Tanimoto similarity of a query to 2^21 1024-bit fingerprints, a warp each, 2 __reduce_add_sync"),
]
PROBES += UNSEEN51
_P54 = "probes54.cu"
DQ_GROUP, HV_NREF, HT_BATCH, COO_NNZ_PER_ROW = 64, 64, 6, 16     # as in probes54.cu (the first two)


def _u52_dequant_args(nw, rng):
    """nw words of eight uniform 4-bit codes and a __half scale a group of 64 weights (in
    [0.005, 0.02)); the 8 nw floats out zeroed."""
    return [_u32(nw, rng), (0.005 + 0.015 * rng.random(-(-8 * nw // DQ_GROUP))).astype(np.float16),
            np.zeros(8 * nw, np.float32), _i32(nw)]


def eytzinger_size(n: int) -> int:
    """probe/eytzinger-search's tree for n queries: the perfect tree of about 16 n keys."""
    return (1 << (4 + max(n - 1, 1).bit_length())) - 1


def eytzinger_layout(keys: np.ndarray) -> np.ndarray:
    """The sorted keys (2^h - 1 of them) in BFS order, 1-based: node k at depth d = floor(log2 k),
    p = k - 2^d along its level, holds in-order rank (2p + 1) 2^(h-1-d) - 1; slot 0 a spare."""
    nt = len(keys)
    h = nt.bit_length()
    k = np.arange(1, nt + 1)
    d = np.floor(np.log2(k)).astype(np.int64)
    rank = (2 * (k - (1 << d)) + 1) * (1 << (h - 1 - d)) - 1
    out = np.zeros(nt + 1, np.int32)
    out[1:] = keys[rank]
    return out


def _u52_eytz_args(n, rng):
    """eytzinger_size(n) distinct sorted keys (gaps 1 to 8) in Eytzinger order, n queries
    uniform over [0, the largest key + 64) (some above every key)."""
    nt = eytzinger_size(n)
    keys = np.cumsum(rng.integers(1, 9, nt)).astype(np.int32)
    return [eytzinger_layout(keys), rng.integers(0, int(keys[-1]) + 64, n, dtype=np.int32),
            np.zeros(n, np.int32), _i32(nt), _i32(n)]


def gauss_weights(r=4, sigma=2.0) -> np.ndarray:
    """c_gauss: the normalized 2r + 1 Gaussian taps, zero after them (17 floats)."""
    t = np.exp(-0.5 * (np.arange(-r, r + 1) / sigma) ** 2)
    out = np.zeros(17, np.float32)
    out[:2 * r + 1] = t / t.sum()
    return out


def coo_rows(nnz: int, nrows: int, rng) -> np.ndarray:
    """nnz row indices uniform over [0, nrows), sorted, without a sort: the uniform order
    statistics are the partial sums of nnz + 1 exponential spacings over their total."""
    s = np.cumsum(rng.exponential(size=nnz + 1))
    return np.minimum((nrows * s[:-1] / s[-1]).astype(np.int64), nrows - 1).astype(np.int32)


def _u52_coo_args(nnz, rng):
    """nnz entries on nnz / 16 sorted rows, values normal with mean 2 (about two rows in three
    all positive: both branches of the float atomic minimum decide some rows)."""
    nrows = max(nnz // COO_NNZ_PER_ROW, 1)
    return [coo_rows(nnz, nrows, rng), _f32(nnz, rng) + np.float32(2), np.zeros(nrows, np.int32),
            np.full(nrows, np.inf, np.float32), _i32(nnz)]


def geo_refs(rng) -> np.ndarray:
    """HV_NREF GeoRef structs (lat, lon, cos lat, 0) as 4 floats each: latitudes uniform in
    [-1.3, 1.3], longitudes in [-pi, pi)."""
    lat = rng.uniform(-1.3, 1.3, HV_NREF)
    lon = rng.uniform(-np.pi, np.pi, HV_NREF)
    return np.stack([lat, lon, np.cos(lat), np.zeros(HV_NREF)], 1).astype(np.float32).ravel()


def _u52_hav_args(n, rng):
    pts = np.stack([rng.uniform(-1.4, 1.4, n), rng.uniform(-np.pi, np.pi, n)], 1).astype(np.float32).ravel()
    return [pts, geo_refs(rng), np.zeros(n, np.int32), np.zeros(n, np.float32), _i32(n)]


def _u52_herm_args(n, rng):
    """HT_BATCH complex double matrices of n x 3n/2 (re, im interleaved, standard normal),
    room for their 3n/2 x n conjugate transposes, rows n, cols 3n/2."""
    m = HT_BATCH * n * (3 * n // 2)
    return [rng.standard_normal(2 * m), np.zeros(2 * m), _i32(n), _i32(3 * n // 2)]


UNSEEN52 = [
    TimingProbe("probe/dequant-int4", "probe-unseen52", "dequant_int4", 1 << 23, 128, lambda n: -(-n // 128),
                _u52_dequant_args, source=_P54,
                note="2^26 4-bit weights (eight a u32) to float with a __half scale a group of 64: 32 MiB in, "
                     "256 MiB out by two float4 stores a thread"),
    TimingProbe("probe/eytzinger-search", "probe-unseen52", "eytzinger_lower_bound", 1 << 20, 256,
                lambda n: 264, _u52_eytz_args, source=_P54,
                note="lower bound of 2^20 queries in a 2^24-key Eytzinger tree (64 MiB): 24 dependent loads a "
                     "query, ~16 queries a thread of a 264-block grid-stride loop, __ffs"),
    TimingProbe("probe/gauss-sep-fused", "probe-unseen52", "gauss_sep_fused<4>", 4096, (32, 8),
                lambda n: (-(-n // 32), -(-n // 32)), lambda n, rng: [_f32(n * n, rng), np.zeros(n * n, np.float32),
                                                                      _i32(n), _i32(n)],
                source=_P54, symbols=lambda n, rng: {"c_gauss": gauss_weights()},
                note="9-tap separable Gaussian of a 4096^2 float image fused in one kernel: a 40 x 40 haloed "
                     "tile and a 40 x 32 row-pass tile in __shared__ 2-D arrays, weights in __constant__, "
                     "template on the radius"),
    TimingProbe("probe/coo-row-stats", "probe-unseen52", "coo_row_stats", 1 << 24, 256, lambda n: -(-n // 256),
                _u52_coo_args, source=_P54,
                note="COO to CSR row lengths and row minima of 2^24 entries on 2^20 sorted rows: an atomicAdd and "
                     "a float-as-int atomicMin/atomicMax an entry, two or three addresses a warp"),
    TimingProbe("probe/haversine-nearest", "probe-unseen52", "haversine_nearest", 1 << 20, 192,
                lambda n: -(-n // 192), _u52_hav_args, source=_P54,
                note="nearest of 64 references to each of 2^20 points by haversine distance, 2 sinf, an asinf "
                     "and a sqrtf a pair, blocks of 192, references as structs in shared"),
    TimingProbe("probe/herm-transpose-z", "probe-unseen52", "herm_transpose_batched", 1024, (32, 8),
                lambda n: (-(-(3 * n // 2) // 32), -(-n // 32), HT_BATCH), _u52_herm_args, source=_P54,
                note="conjugate transpose of 6 complex double 1024 x 1536 matrices (144 MiB each way), a 3-D grid, "
                     "a 32 x 33 double2 shared tile"),
]
PROBES += UNSEEN52

_P55 = "probes55.cu"
RT_K, WIN_CH, ILP_GRID, CHASE_GRID, CHASE_BLOCK, CHASE_STEPS = 256, 19456, 66, 132, 32, 2048
SMIX_WORDS, SMIX_ITERS, DFMA_ITERS = 4096, 1024, 512


def _u53_regtile_args(n, rng):
    """A (n x RT_K) and B (RT_K x n) standard normal floats, C zeroed; M = N = n."""
    return [_f32(n * RT_K, rng), _f32(RT_K * n, rng), np.zeros(n * n, np.float32), _i32(n), _i32(n), _i32(RT_K)]


def _u53_window_args(n, rng):
    return [_f32(n, rng), np.zeros(n, np.float32), _i32(n), _i32(WIN_CH)]


def _u53_ilp4_args(n, rng):
    """n floats as four streams of n // 4; a float4 of sums for each of the grid's threads."""
    return [_f32(n, rng), np.zeros(ILP_GRID * 256 * 4, np.float32), _i32(n // 4)]


def _u53_chase_cycle(size, rng) -> np.ndarray:
    """next[] of one random cycle through all size indices."""
    perm = rng.permutation(size).astype(np.int32)
    nxt = np.empty(size, np.int32)
    nxt[perm] = np.roll(perm, -1)
    return nxt


def _u53_chase_args(steps):
    def args(size, rng):
        return [_u53_chase_cycle(size, rng), np.zeros(CHASE_GRID * CHASE_BLOCK, np.int32), _i32(steps), _i32(size)]
    return args


def _u53_smix_args(n, rng):
    """n threads (blocks of 256), 4096 random words a block."""
    return [_u32(n // 256 * SMIX_WORDS, rng), np.zeros(n, np.uint32), _i32(SMIX_ITERS)]


def _u53_dfma_args(n, rng):
    return [rng.standard_normal(n), np.zeros(n, np.float64), np.zeros(n, np.uint32), _i32(n), _i32(DFMA_ITERS)]


UNSEEN53 = [
    TimingProbe("probe/regtile8x8-lb", "probe-unseen53", "regtile8x8_lb", 2560, 256,
                lambda n: (-(-n // 128), -(-n // 128)), _u53_regtile_args, source=_P55,
                note="SGEMM 2560 x 256 times 256 x 2560, __launch_bounds__(256, 2), a thread an 8 x 8 register "
                     "tile (64 scalar accumulators) of a 128 x 128 block tile, float4 shared reads: 2 blocks an SM "
                     "by registers, so the 400 blocks take two rounds"),
    TimingProbe("probe/smem-window-76k", "probe-unseen53", "smem_window_dyn", 1 << 25, 256,
                lambda n: -(-n // WIN_CH), _u53_window_args, source=_P55, shared=WIN_CH * 4,
                note="17-tap clamped window sum over 2^25 floats in chunks of 19456 staged in 76 KiB of dynamic "
                     "shared memory: 2 blocks an SM with the 1 KiB a block reserves (3 without)"),
    TimingProbe("probe/stream-ilp4-66blk", "probe-unseen53", "stream_ilp4_few", 1 << 25, 256,
                lambda n: ILP_GRID, _u53_ilp4_args, source=_P55,
                note="66 blocks (half the SMs) of 256 threads summing four 32 MiB streams, four independent "
                     "loads a thread an iteration: DRAM rate set by the loads in flight"),
    TimingProbe("probe/chase-l2-32m", "probe-unseen53", "chase_l2_few", 1 << 23, CHASE_BLOCK,
                lambda n: CHASE_GRID, _u53_chase_args(CHASE_STEPS), source=_P55,
                note="one warp an SM (132 x 32 threads) each chasing 2048 steps of a random cycle of 2^23 ints "
                     "(32 MiB, inside L2 on the whole): dependent-load latency"),
    TimingProbe("probe/smem-stride-mix", "probe-unseen53", "smem_stride_mix", 1056 * 256, 256,
                lambda n: n // 256, _u53_smix_args, source=_P55,
                note="1056 blocks whose 8 warps read shared words at strides 1, 2, 3, 4, 8, 16, 32, 33 for 1024 "
                     "dependent rounds: 65 bank wavefronts a block-round, the shared pipe the limit"),
    TimingProbe("probe/dfma-imix", "probe-unseen53", "dfma_imix", 1056 * 256, 256, lambda n: -(-n // 256),
                _u53_dfma_args, source=_P55,
                note="512 rounds of eight independent double FMA chains stepped twice beside a 32-bit xorshift a "
                     "thread (16 DFMAs to 6 integer operations), 270336 threads: the FP64 pipe's 64 lanes a "
                     "clock an SM"),
]
PROBES += UNSEEN53

_P57 = "probes57.cu"
U55_CHASE_SIZE, U55_CHASE_STEPS, U55_TAIL_ITERS, U55_BINS, U55_ROW, U55_XYZ_GRID = 1 << 21, 192, 3000, 4096, 1024, 1056


def _u55_chase_args(steps):
    def args(nblk, rng):
        """next[] of one random cycle through U55_CHASE_SIZE ints (8 MiB), 32 ints out a block."""
        perm = rng.permutation(U55_CHASE_SIZE).astype(np.int32)
        nxt = np.empty(U55_CHASE_SIZE, np.int32)
        nxt[perm] = np.roll(perm, -1)
        return [nxt, np.zeros(nblk * 32, np.int32), _i32(steps), _i32(U55_CHASE_SIZE)]
    return args


def _u55_tail_args(iters):
    def args(nblk, rng):
        return [rng.uniform(-1.0, 1.0, nblk * 1024).astype(np.float32), np.zeros(nblk * 1024, np.float32),
                _i32(iters)]
    return args


def _u55_atomic_args(n, rng):
    """n bin indices uniform over U55_BINS and n values 0 .. 3 (float sums exact in any order)."""
    return [rng.integers(0, U55_BINS, n).astype(np.int32), rng.integers(0, 4, n).astype(np.float32),
            np.zeros(U55_BINS, np.float32), _i32(n)]


def _u55_xyz_args(n, rng):
    return [_f32(3 * n, rng), np.zeros(U55_XYZ_GRID, np.float32), _i32(n)]


UNSEEN55 = [
    TimingProbe("probe/chase-warp-blocks32", "probe-unseen55", "chase_warp_blocks", 132 * 32 * 4, 32, lambda n: n,
                _u55_chase_args(U55_CHASE_STEPS), source=_P57,
                note="16896 blocks of one warp (32 an SM by the blocks limit: 4 waves), each warp following 192 "
                     "steps of a random cycle of 2^21 ints (8 MiB, in L2) with all lanes on one word: L2 latency"),
    TimingProbe("probe/fma-tail-133", "probe-unseen55", "fma_tail", 133, 1024, lambda n: n,
                _u55_tail_args(U55_TAIL_ITERS), source=_P57,
                note="133 blocks of 1024 threads, 3000 rounds of eight independent FMA chains a thread: one SM "
                     "runs two blocks (a one-block tail), so twice the time of 132 blocks, FP32 issue-bound"),
    TimingProbe("probe/atomic-f32-rand4096", "probe-unseen55", "atomic_f32_rand", 1 << 24, 256,
                lambda n: -(-n // 256), _u55_atomic_args, source=_P57,
                note="2^24 float atomicAdds (RED) at random addresses among 4096 bins (16 KiB), a warp's lanes on "
                     "~32 sectors: L2's atomic units"),
    TimingProbe("probe/butterfly-center1024", "probe-unseen55", "butterfly_center1024", 1 << 14, 1024,
                lambda n: n, lambda n, rng: [_f32(n * U55_ROW, rng), np.zeros(n * U55_ROW, np.float32)],
                source=_P57,
                note="2^14 rows of 1024 floats centred by a block of 1024 threads each, the row sum by a "
                     "butterfly in shared memory: 21 __syncthreads() a row (barrier latency at 32 warps a block)"),
    TimingProbe("probe/xyz-sum-x", "probe-unseen55", "xyz_sum_x", 1 << 24, 256, lambda n: U55_XYZ_GRID,
                _u55_xyz_args, source=_P57,
                note="sum of the x of 2^24 xyz float triples (192 MiB) by 1056 blocks of 256 grid-striding: a load "
                     "every 12 bytes, every sector moved for a third of it used (DRAM)"),
    TimingProbe("probe/axpy-block32", "probe-unseen55", "axpy_b32", 1 << 22, 32, lambda n: -(-n // 32),
                lambda n, rng: [np.float32(1.5), _f32(n, rng), _f32(n, rng), _i32(n)], source=_P57,
                note="y = a x + y over 2^22 floats in 2^17 blocks of 32 threads, one element a thread: the rate "
                     "blocks start at, 32 an SM"),
]
PROBES += UNSEEN55

# probe-unseen54 (probes56.cu): kernels as a CUDA course's students write them in weeks 6-10,
# predicted before their first GPU run
_P56 = "probes56.cu"
U54_TILE, U54_ROWS, U54_NQ_MAXD = 32, 8, 32          # TU_TILE, TU_ROWS, NQ_MAXD in probes56.cu
U54_SELL_C, U54_SELL_SIGMA, U54_NQ_DEPTH, U54_MERGE_W = 32, 256, 5, 32
_U54_CACHE: dict = {}          # (what, size) -> the host data of _u54_nq_prefixes / _u54_bfs_state


def _u54_transpose_args(n, rng):
    """An n x 3n/2 uint8 image (uniform bytes) and room for its transpose."""
    c = 3 * n // 2
    return [rng.integers(0, 256, n * c, dtype=np.uint8), np.zeros(n * c, np.uint8), _i32(n), _i32(c)]


def _u54_life_args(n, rng):
    """An n x n Life board (n a multiple of 32), each cell alive with probability 1/2, packed
    32 cells a word."""
    return [_u32(n * (n // 32), rng), np.zeros(n * (n // 32), np.uint32), _i32(n), _i32(n // 32)]


def _u54_sell_csr(n, rng):
    """probe/spmv-sell32-sigma's matrix as (row lengths, columns, values) in row order: rows
    of 4 to 36 entries, one in 64 of 64 to 128; three entries in four within 64 columns of
    the diagonal, the rest anywhere."""
    L = rng.integers(4, 37, n)
    long_ = rng.random(n) < 1 / 64
    L[long_] = rng.integers(64, 129, int(long_.sum()))
    nnz = int(L.sum())
    row_of = np.repeat(np.arange(n), L)
    near = rng.random(nnz) < 0.75
    cols = np.where(near, np.clip(row_of + rng.integers(-64, 65, nnz), 0, n - 1), rng.integers(0, n, nnz))
    return L, cols.astype(np.int32), _f32(nnz, rng)


def _u54_sell_args(n, rng):
    """The CSR of _u54_sell_csr in SELL-32-sigma (rows sorted longest first within windows
    of 256, slices of 32 padded with value 0 and column 0), x standard normal, y zeroed."""
    L, cols, vals = _u54_sell_csr(n, rng)
    rowstart = np.concatenate([[0], np.cumsum(L)[:-1]])
    row_of = np.repeat(np.arange(n), L)
    jj = np.arange(len(cols)) - rowstart[row_of]
    perm = np.lexsort((-L, np.arange(n) // U54_SELL_SIGMA))
    slot = np.empty(n, np.int64)
    slot[perm] = np.arange(n)
    nsl = -(-n // U54_SELL_C)
    Ls = np.zeros(nsl * U54_SELL_C, np.int64)
    Ls[:n] = L[perm]
    slice_len = Ls.reshape(nsl, U54_SELL_C).max(1)
    slice_ptr = np.concatenate([[0], np.cumsum(U54_SELL_C * slice_len)])
    s = slot[row_of]
    k = slice_ptr[s // U54_SELL_C] + jj * U54_SELL_C + s % U54_SELL_C
    C = np.zeros(int(slice_ptr[-1]), np.int32)
    V = np.zeros(int(slice_ptr[-1]), np.float32)
    C[k], V[k] = cols, vals
    return [slice_ptr.astype(np.int32), slice_len.astype(np.int32), C, V, perm.astype(np.int32), _f32(n, rng),
            np.zeros(n, np.float32), _i32(n)]


def _u54_nq_prefixes(nboard: int, depth: int = U54_NQ_DEPTH):
    """Every valid placement of the first depth rows of an nboard-queens board, in
    lexicographic order of the rows' lowest-bit-first choices, as the next row's masks
    (occupied columns, left diagonals, right diagonals: uint32 arrays; kept, not to copy)."""
    key = ("nq", nboard, depth)
    if key not in _U54_CACHE:
        _U54_CACHE[key] = _u54_nq_build(nboard, depth)
    return _U54_CACHE[key]


def _u54_nq_build(nboard: int, depth: int):
    full = (1 << nboard) - 1
    out = []

    def rec(d, c, l, r):
        if d == depth:
            out.append((c, l, r))
            return
        avail = full & ~(c | l | r)
        while avail:
            b = avail & -avail
            avail ^= b
            rec(d + 1, c | b, ((l | b) << 1) & full, (r | b) >> 1)
    rec(0, 0, 0, 0)
    a = np.array(out, np.uint32).reshape(-1, 3)
    return a[:, 0].copy(), a[:, 1].copy(), a[:, 2].copy()


def _u54_nq_args(n, rng):
    c, l, r = _u54_nq_prefixes(n)
    return [c, l, r, np.zeros(len(c), np.uint32), np.zeros(1, np.uint64), _i32(n), _i32(len(c))]


def _u54_bfs_state(n: int):
    """probe/bfs-queue-expand's graph and BFS state, the same for a given n (its own seed):
    n vertices of out-degree 2 to 14, neighbours uniform; a BFS from vertex 0 run to the
    level whose expansion finds the most vertices; (row_ptr, adj, frontier shuffled,
    dist with -1 beyond that level, the level), the last size's kept (not to copy)."""
    key = ("bfs", n)
    if key not in _U54_CACHE:
        for k in [k for k in _U54_CACHE if k[0] == "bfs"]:
            del _U54_CACHE[k]
        _U54_CACHE[key] = _u54_bfs_build(n)
    return _U54_CACHE[key]


def _u54_bfs_build(n: int):
    rng = np.random.default_rng(5454 + n)
    deg = rng.integers(2, 15, n)
    row_ptr = np.concatenate([[0], np.cumsum(deg)]).astype(np.int64)
    adj = rng.integers(0, n, int(row_ptr[-1])).astype(np.int32)
    dist = np.full(n, -1, np.int32)
    dist[0] = 0
    levels, front = [], np.array([0], np.int64)
    while front.size:
        levels.append(front)
        cnt = row_ptr[front + 1] - row_ptr[front]
        idx = np.repeat(row_ptr[front] - np.cumsum(cnt) + cnt, cnt) + np.arange(int(cnt.sum()))
        nb = np.unique(adj[idx])
        front = nb[dist[nb] < 0]
        dist[front] = len(levels)
    lev = int(np.argmax([len(f) for f in levels[1:]]))      # levels[lev + 1] the largest found
    d0 = np.where((dist >= 0) & (dist <= lev), dist, -1).astype(np.int32)
    frontier = rng.permutation(levels[lev]).astype(np.int32)
    return row_ptr.astype(np.int32), adj, frontier, d0, lev


def _u54_bfs_args(n, rng):
    row_ptr, adj, frontier, d0, lev = _u54_bfs_state(n)
    return [row_ptr, adj, frontier, _i32(len(frontier)), d0.copy(), np.zeros(n, np.int32), np.zeros(1, np.int32),
            _i32(lev)]


def _u54_merge_args(n, rng):
    """n ints in [0, 2^20) (ties), sorted in runs of 32 (the last one shorter where 32 does not
    divide n)."""
    a = rng.integers(0, 1 << 20, n, dtype=np.int32)
    m = n // U54_MERGE_W * U54_MERGE_W
    a[:m] = np.sort(a[:m].reshape(-1, U54_MERGE_W), axis=1).ravel()
    a[m:] = np.sort(a[m:])
    return [a, np.zeros(n, np.int32), _i32(n), _i32(U54_MERGE_W)]


UNSEEN54 = [
    TimingProbe("probe/transpose-u8-rect", "probe-unseen54", "transpose_u8_rect", 6000, (U54_TILE, U54_ROWS),
                lambda n: (-(-(3 * n // 2) // U54_TILE), -(-n // U54_TILE)), _u54_transpose_args, source=_P56,
                note="transpose of a 6000 x 9000 uint8 image through a 32 x 33-byte shared tile (partial tiles at "
                     "both edges; 2-way bank conflicts on three column reads in four), 32 bytes a warp access"),
    TimingProbe("probe/life-bits-popc", "probe-unseen54", "life_bits_popc", 16384, (32, 8),
                lambda n: (-(-(n // 32) // 32), -(-n // 8)), _u54_life_args, source=_P56,
                note="one Life step of a 16384^2 board packed 32 cells a word, a thread a word, 96 __popc of 3-bit "
                     "windows of its rows widened to 34 bits: the POPC pipe and integer issue"),
    TimingProbe("probe/spmv-sell32-sigma", "probe-unseen54", "spmv_sell32", 1 << 20, 256, lambda n: -(-n // 256),
                _u54_sell_args, source=_P56,
                note="SpMV in SELL-32-sigma (sigma 256), 2^20 rows of 4-36 entries and one in 64 of 64-128 padding "
                     "its slice, 3/4 of columns within 64 of the diagonal: values and columns streamed, x gathered"),
    TimingProbe("probe/nqueens-prefix", "probe-unseen54", "nqueens_prefix", 13, 256,
                lambda n: -(-len(_u54_nq_prefixes(n)[0]) // 256), _u54_nq_args, source=_P56,
                note="13-queens counted from its 31100 five-row prefixes (122 blocks), a thread each, iterative "
                     "bitmask backtracking with its stack in local memory: divergent trip counts, local stores "
                     "of lanes at different depths in different lines"),
    TimingProbe("probe/bfs-queue-expand", "probe-unseen54", "bfs_queue_expand", 1 << 21, 256,
                lambda n: -(-len(_u54_bfs_state(n)[2]) // 256), _u54_bfs_args, source=_P56,
                note="the largest level of a queue-based BFS of a 2^21-vertex random graph (out-degree 2-14): "
                     "atomicCAS on dist a neighbour, atomicAdd on one queue tail a vertex found"),
    TimingProbe("probe/merge-pass-w32", "probe-unseen54", "merge_pass", 1 << 24, 256,
                lambda n: -(-n // (2 * U54_MERGE_W * 256)), _u54_merge_args, source=_P56,
                note="a bottom-up merge-sort pass over 2^24 ints, a thread merging two runs of 32: lanes 256 bytes "
                     "apart, 32 lines a warp access, data-dependent loop exits"),
]
PROBES += UNSEEN54
# probe-unseen56 (probes58.cu): an HPC course's homework set on irregular and memory-bound
# kernels as a competent graduate student writes it, predicted before its first GPU run
_P58 = "probes58.cu"
U56_SG_WARPS, U56_SG_HASH, U56_SG_MINLEN, U56_SG_MAXLEN, U56_SG_BAND = 8, 256, 4, 12, 512
U56_AC_BLOCK, U56_AC_CHUNK, U56_AC_NPAT, U56_AC_MINLEN, U56_AC_MAXLEN = 256, 128, 64, 4, 8
U56_AC_TILE = U56_AC_BLOCK * U56_AC_CHUNK                 # text bytes a block
U56_AC_CODE = {ord("A"): 0, ord("C"): 1, ord("T"): 2, ord("G"): 3}    # ac_code in probes58.cu
U56_RW_STEPS, U56_RW_SEED, U56_RW_RESTART, U56_RW_DANGLING = 32, 0x2545F491, 38, 0.03
U56_LJ_A = (1.0 / 0.8442) ** (1.0 / 3.0)                 # lattice spacing at density 0.8442
U56_LJ_CUT, U56_LJ_SKIN, U56_LJ_JITTER, U56_LJ_BLOCK = 2.5, 0.3, 0.15, 128


def _u56_distinct(keys):
    """The distinct values of an int64 array, sorted (np.unique, by one sort)."""
    k = np.sort(keys)
    return k[np.concatenate([[True], k[1:] != k[:-1]])] if len(k) else k


def _u56_csr(n, rng):
    """An n x n CSR matrix: rows of 4 to 12 distinct sorted columns (a few fewer where a draw
    repeats), three in four within U56_SG_BAND of the diagonal (cyclically), the rest
    anywhere; values +-1 .. +-4 (float sums of their products exact in any order)."""
    L = rng.integers(U56_SG_MINLEN, U56_SG_MAXLEN + 1, n)
    row = np.repeat(np.arange(n, dtype=np.int64), L)
    m = len(row)
    near = rng.random(m) < 0.75
    col = np.where(near, (row + rng.integers(-U56_SG_BAND, U56_SG_BAND + 1, m)) % n, rng.integers(0, n, m))
    key = _u56_distinct(row * n + col)
    row, col = key // n, key % n
    ptr = np.concatenate([[0], np.cumsum(np.bincount(row, minlength=n))]).astype(np.int32)
    val = (rng.integers(1, 5, len(col)) * rng.choice([-1, 1], len(col))).astype(np.float32)
    return ptr, col.astype(np.int32), val


def _u56_products(ptr, col, val):
    """Every product A[r, k] A[k, j] of A A as (r, j, value) arrays (A in CSR)."""
    n = len(ptr) - 1
    ptr = ptr.astype(np.int64)
    row_a = np.repeat(np.arange(n, dtype=np.int64), np.diff(ptr))
    cnt = ptr[col + 1] - ptr[col]                     # entries of row k, for each entry (r, k)
    first = np.repeat(ptr[col] - (np.cumsum(cnt) - cnt), cnt) + np.arange(int(cnt.sum()))
    return np.repeat(row_a, cnt), col[first].astype(np.int64), np.repeat(val, cnt) * val[first]


def _u56_spgemm_args(n, rng):
    """A (_u56_csr), C's row offsets (the symbolic phase: distinct columns a row of A A) and
    C's columns and values zeroed."""
    ptr, col, val = _u56_csr(n, rng)
    r, j, _ = _u56_products(ptr, col, val)
    u = _u56_distinct(r * n + j)
    c_ptr = np.concatenate([[0], np.cumsum(np.bincount(u // n, minlength=n))]).astype(np.int32)
    nnz = int(c_ptr[-1])
    return [ptr, col, val, c_ptr, np.zeros(nnz, np.int32), np.zeros(nnz, np.float32), _i32(n)]


def _u56_nedges(m):
    return 3 * m * m - 4 * m + 1


def _u56_mesh(m, rng):
    """An m x m grid of points jittered by up to 0.2, each square split by one diagonal, the
    vertices numbered at random: the edges (i, j) with i < j sorted by i then j (int32, E x
    2) and their dual faces' normals (float32, E x 2), along the edge from i to j, of length
    0.4 to 0.8."""
    perm = rng.permutation(m * m)
    yy, xx = np.divmod(np.arange(m * m), m)
    pts = np.stack([xx, yy], 1) + rng.uniform(-0.2, 0.2, (m * m, 2))
    g = np.arange(m * m).reshape(m, m)
    a = np.concatenate([g[:, :-1].ravel(), g[:-1, :].ravel(), g[:-1, :-1].ravel()])
    b = np.concatenate([g[:, 1:].ravel(), g[1:, :].ravel(), g[1:, 1:].ravel()])
    d = pts[b] - pts[a]
    nrm = d * (rng.uniform(0.4, 0.8, len(a)) / np.hypot(d[:, 0], d[:, 1]))[:, None]
    i, j = perm[a], perm[b]
    flip = i > j
    i, j = np.where(flip, j, i), np.where(flip, i, j)
    nrm[flip] *= -1.0
    order = np.lexsort((j, i))
    return np.stack([i, j], 1)[order].astype(np.int32), nrm[order].astype(np.float32)


def _u56_flux_args(m, rng):
    """_u56_mesh, u standard normal at the m^2 vertices, the residual zeroed."""
    edges, nrm = _u56_mesh(m, rng)
    return [edges, nrm, _f32(m * m, rng), np.zeros(m * m, np.float32), _i32(len(edges))]


def _u56_ac_patterns(rng):
    """U56_AC_NPAT distinct random DNA patterns (bytes) of U56_AC_MINLEN to U56_AC_MAXLEN bases."""
    out: list[bytes] = []
    while len(out) < U56_AC_NPAT:
        p = bytes(rng.choice(np.frombuffer(b"ACGT", np.uint8), int(rng.integers(U56_AC_MINLEN, U56_AC_MAXLEN + 1))))
        if p not in out:
            out.append(p)
    return out


def _u56_ac_automaton(pats):
    """The Aho-Corasick automaton of pats: (go (states x 4, the transitions with the failure
    links resolved), term (the pattern ending at a state, -1 none), dlink (the nearest proper
    suffix state ending a pattern, -1 none)), int32, states in trie insertion order."""
    go, term = [[-1] * 4], [-1]
    for pid, p in enumerate(pats):
        s = 0
        for ch in p:
            c = U56_AC_CODE[ch]
            if go[s][c] < 0:
                go[s][c] = len(go)
                go.append([-1] * 4)
                term.append(-1)
            s = go[s][c]
        term[s] = pid
    fail, dlink, queue = [0] * len(go), [-1] * len(go), []
    for c in range(4):
        if go[0][c] < 0:
            go[0][c] = 0
        else:
            queue.append(go[0][c])
    for s in queue:                                   # breadth first: queue grows as it is read
        f = fail[s]
        dlink[s] = f if term[f] >= 0 else dlink[f]
        for c in range(4):
            t = go[s][c]
            if t < 0:
                go[s][c] = go[f][c]
            else:
                fail[t] = go[f][c]
                queue.append(t)
    return np.array(go, np.int32), np.array(term, np.int32), np.array(dlink, np.int32)


def _u56_ac_args(n, rng):
    """The automaton of _u56_ac_patterns and n random bases (ASCII, n a multiple of
    U56_AC_TILE) as little-endian 32-bit words; the per-pattern and per-chunk counts zeroed."""
    go, term, dlink = _u56_ac_automaton(_u56_ac_patterns(rng))
    text = np.frombuffer(b"ACGT", np.uint8)[rng.integers(0, 4, n)]
    return [text.view(np.uint32), go, term, dlink, _i32(len(term)), np.zeros(U56_AC_NPAT, np.uint32),
            np.zeros(n // U56_AC_CHUNK, np.uint32), _i32(n // 4)]


def _u56_rw_graph(n, rng):
    """A random directed graph in CSR: out-degrees 1 + floor(5 Lomax(1.8)) up to 1024 (mean
    about 7), 3% of the vertices dangling (none); neighbours uniform."""
    deg = np.minimum(1 + np.floor(rng.pareto(1.8, n) * 5).astype(np.int64), 1024)
    deg[rng.random(n) < U56_RW_DANGLING] = 0
    ptr = np.concatenate([[0], np.cumsum(deg)]).astype(np.int32)
    return ptr, rng.integers(0, n, int(ptr[-1])).astype(np.int32)


def _u56_rw_args(n, rng):
    """_u56_rw_graph and n walkers at random starts; ends, lengths and visits zeroed."""
    ptr, adj = _u56_rw_graph(n, rng)
    return [ptr, adj, rng.integers(0, n, n).astype(np.int32), np.zeros(n, np.int32), np.zeros(n, np.int32),
            np.zeros(n, np.uint32), _i32(n), _i32(U56_RW_STEPS), np.uint32(U56_RW_SEED),
            np.uint32(U56_RW_RESTART)]


def _u56_lj_system(m, rng):
    """m^3 atoms on a simple cubic lattice of spacing U56_LJ_A (x fastest), each coordinate
    jittered by up to U56_LJ_JITTER spacings, in a periodic box of side m U56_LJ_A; and the
    Verlet list within cutoff + skin, built from the lattice offsets that can reach it:
    (positions N x 4 float32 (w 0), neighbours maxnn x N (neigh[k, i] atom i's k-th, in
    offset order; 0 past its count), counts, box)."""
    a, N = U56_LJ_A, m ** 3
    box = m * a
    z, y, x = (c.ravel() for c in np.meshgrid(np.arange(m), np.arange(m), np.arange(m), indexing="ij"))
    pos = np.zeros((N, 4), np.float32)
    pos[:, :3] = (np.stack([x, y, z], 1) + rng.uniform(-U56_LJ_JITTER, U56_LJ_JITTER, (N, 3))) * a
    p = pos[:, :3].astype(np.float64)
    rl = U56_LJ_CUT + U56_LJ_SKIN
    reach = rl / a + 2 * np.sqrt(3) * U56_LJ_JITTER
    k = int(reach)
    offs = [(ox, oy, oz) for oz in range(-k, k + 1) for oy in range(-k, k + 1) for ox in range(-k, k + 1)
            if 0 < ox * ox + oy * oy + oz * oz <= reach * reach]
    assert m > 2 * k, "each neighbour once: offsets distinct mod m"
    nbr = np.empty((len(offs), N), np.int32)
    keep = np.empty((len(offs), N), bool)
    for o, (ox, oy, oz) in enumerate(offs):
        j = (((z + oz) % m) * m + (y + oy) % m) * m + (x + ox) % m
        d = p - p[j]
        d -= box * np.rint(d / box)
        nbr[o], keep[o] = j, (d * d).sum(1) < rl * rl
    cnt = keep.sum(0).astype(np.int32)
    slot = np.cumsum(keep, 0, dtype=np.int32) - 1
    neigh = np.zeros((int(cnt.max()), N), np.int32)
    neigh[slot[keep], np.nonzero(keep)[1]] = nbr[keep]
    return pos, neigh, cnt, box


def _u56_lj_args(m, rng):
    pos, neigh, cnt, box = _u56_lj_system(m, rng)
    return [pos, neigh, cnt, np.zeros_like(pos), _i32(m ** 3), np.float32(box), np.float32(U56_LJ_CUT ** 2)]


def _u56_su3(nmat, rng):
    """nmat random SU(3) matrices (nmat x 3 x 3 complex64): rows 0 and 1 complex normal,
    orthonormalised, row 2 the conjugate of their cross product."""
    z = rng.standard_normal((nmat, 2, 3)) + 1j * rng.standard_normal((nmat, 2, 3))
    r0 = z[:, 0] / np.linalg.norm(z[:, 0], axis=1, keepdims=True)
    r1 = z[:, 1] - (np.conj(r0) * z[:, 1]).sum(1, keepdims=True) * r0
    r1 /= np.linalg.norm(r1, axis=1, keepdims=True)
    return np.stack([r0, r1, np.conj(np.cross(r0, r1))], 1).astype(np.complex64)


def _u56_dslash_args(L, rng):
    """L^4 sites: 4 SU(3) links a site (site-major, then mu), a complex normal colour vector
    a site, out zeroed; complex as float pairs."""
    vol = L ** 4
    U = _u56_su3(4 * vol, rng)
    chi = (rng.standard_normal((vol, 3)) + 1j * rng.standard_normal((vol, 3))).astype(np.complex64)
    return [U.view(np.float32).ravel(), chi.view(np.float32).ravel(), np.zeros(6 * vol, np.float32), _i32(L)]


UNSEEN56 = [
    TimingProbe("probe/spgemm-hash-warp", "probe-unseen56", "spgemm_hash_warp", 1 << 18, 256,
                lambda n: -(-n // U56_SG_WARPS), _u56_spgemm_args, source=_P58,
                note="numeric phase of SpGEMM C = A A, 2^18 rows of 4-12 entries (3/4 within 512 of the diagonal): "
                     "a warp a row, its ~64 products into 256 shared hash slots (atomicCAS, linear probing, float "
                     "atomicAdd), compacted by ballots"),
    TimingProbe("probe/edge-flux-scatter", "probe-unseen56", "edge_flux", 1024, 256,
                lambda n: -(-_u56_nedges(n) // 256), _u56_flux_args, source=_P58,
                note="finite-volume edge loop on a 1024^2-vertex triangulated mesh numbered at random (3.1M edges "
                     "sorted by first vertex): two gathers, a Rusanov flux and two float atomicAdds an edge"),
    TimingProbe("probe/aho-corasick-dna", "probe-unseen56", "aho_corasick_dna", 1 << 26, U56_AC_BLOCK,
                lambda n: n // U56_AC_TILE, _u56_ac_args, source=_P58,
                note="64 DNA patterns of 4-8 bases counted in 2^26 bases by an Aho-Corasick automaton in shared "
                     "memory, a thread 128 bases of a padded shared tile, output links followed on a match"),
    TimingProbe("probe/random-walk-restart", "probe-unseen56", "random_walk_restart", 1 << 20, 256,
                lambda n: -(-n // 256), _u56_rw_args, source=_P58,
                note="2^20 random walks with restart (15%) of up to 32 steps on a 2^20-vertex power-law graph "
                     "(3% dangling: walks end early), dependent CSR gathers, a modulo and a visit atomicAdd a step"),
    TimingProbe("probe/lj-verlet-forces", "probe-unseen56", "lj_forces", 80, U56_LJ_BLOCK,
                lambda n: -(-n ** 3 // U56_LJ_BLOCK), _u56_lj_args, source=_P58,
                note="Lennard-Jones forces of 80^3 atoms (a jittered lattice at density 0.8442) from a transposed "
                     "Verlet list of 72-86 neighbours (cutoff 2.5, skin 0.3): float4 gathers, minimum image, a "
                     "division a pair in the cutoff"),
    TimingProbe("probe/staggered-dslash", "probe-unseen56", "staggered_dslash", 32, 256,
                lambda n: -(-n ** 4 // 256), _u56_dslash_args, source=_P58,
                note="staggered Dirac operator on a 32^4 periodic lattice, a thread a site: 8 SU(3) links (72-byte "
                     "float2 structs, 288 MiB) and 8 neighbour colour vectors, phases from the coordinates"),
]
PROBES += UNSEEN56

# probe-unseen57 (probes59.cu): a computer-graphics and game-physics course's CUDA assignments as
# a student who knows CUDA basics writes them, predicted before their first GPU run
_P59 = "probes59.cu"
U57_ZB_W, U57_ZB_H, U57_ZB_R, U57_ZB_SNAP, U57_ZB_TILE = 1920, 1080, 4.0, 16, 16
U57_SK_BONES = 64
U57_CL_DT, U57_CL_DRAG = 1e-3, 0.99
U57_SPH_RHO0, U57_SPH_K, U57_SPH_VISC, U57_SPH_H, U57_SPH_JITTER = 1000.0, 3.0, 0.5, 0.05, 0.1
U57_SAP_SCAN, U57_SAP_YZ, U57_SAP_HALF = 32, 24.0, (0.5, 1.5)
U57_PCF_SM, U57_PCF_R, U57_PCF_BIAS, U57_PCF_NEAR, U57_PCF_FAR = 2048, 2, 1e-3, 10.0, 500.0
U57_PCF_BOXES, U57_PCF_SIDE, U57_PCF_HEIGHT = 2000, (4, 40), 6.0


def _u57_zb_args(n, rng):
    """n small triangles on a U57_ZB_W x U57_ZB_H screen, in mesh-like order (sorted by the
    U57_ZB_TILE-pixel tile of their centre, tiles row by row): centres uniform, vertices up
    to U57_ZB_R pixels away snapped to 1/U57_ZB_SNAP pixel (so the edge functions are exact
    in float32), about half clockwise (culled); depths 0.05-0.95 a triangle, +-0.02 a vertex.
    verts (3 n float3 as 9 n floats) and the z-buffer cleared to all ones."""
    W, H, T = U57_ZB_W, U57_ZB_H, U57_ZB_TILE
    c = rng.random((n, 2)) * [W, H]
    c = c[np.argsort((c[:, 1] // T) * (W // T + 1) + c[:, 0] // T, kind="stable")]
    xy = np.round((c[:, None, :] + rng.uniform(-U57_ZB_R, U57_ZB_R, (n, 3, 2))) * U57_ZB_SNAP) / U57_ZB_SNAP
    z = rng.uniform(0.05, 0.95, (n, 1)) + rng.uniform(-0.02, 0.02, (n, 3))
    verts = np.concatenate([xy, z[..., None]], 2).astype(np.float32)
    return [verts.ravel(), np.full(W * H, np.iinfo(np.uint64).max, np.uint64), _i32(n), _i32(W), _i32(H)]


def _u57_rot(m, rng):
    """m random rotation matrices (m x 3 x 3, float64) from unit quaternions."""
    q = rng.standard_normal((m, 4))
    w, x, y, z = (q / np.linalg.norm(q, axis=1, keepdims=True)).T
    return np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y),
                     2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
                     2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)], 1).reshape(m, 3, 3)


def _u57_skin_args(n, rng):
    """n vertices of a mesh ordered along its skeleton: vertex v's first bone v 64 / n, three
    more within 2 of it (clamped), weights random (the first largest), a third of the vertices
    with two bones only, summing to 1; positions in [-1, 1]^3, unit normals; 64 bones, a
    rotation and a translation in [-0.5, 0.5]^3 each (3 x 4 row-major); outputs zeroed."""
    nb = U57_SK_BONES
    first = np.arange(n, dtype=np.int64) * nb // n
    idx = np.clip(first[:, None] + rng.integers(-2, 3, (n, 4)), 0, nb - 1)
    idx[:, 0] = first
    w = rng.random((n, 4)) ** 2
    w[:, 0] += 1.0
    w[rng.random(n) < 1 / 3, 2:] = 0.0
    w /= w.sum(1, keepdims=True)
    nrm = rng.standard_normal((n, 3))
    nrm /= np.linalg.norm(nrm, axis=1, keepdims=True)
    bones = np.concatenate([_u57_rot(nb, rng), rng.uniform(-0.5, 0.5, (nb, 3, 1))], 2)
    return [rng.uniform(-1, 1, 3 * n).astype(np.float32), nrm.astype(np.float32).ravel(),
            idx.astype(np.int32).ravel(), w.astype(np.float32).ravel(), bones.astype(np.float32).ravel(),
            np.zeros(3 * n, np.float32), np.zeros(3 * n, np.float32), _i32(n)]


def _u57_cloth_params(m):
    """(rest, ks, kd, dt, mass) of an m x m cloth of 1 m x 1 m and 1 kg: ks dt^2 / mass = 0.05,
    kd dt / mass = 0.1."""
    mass, dt = 1.0 / (m * m), U57_CL_DT
    return 1.0 / (m - 1), 0.05 * mass / (dt * dt), 0.1 * mass / dt, dt, mass


def _u57_cloth_args(m, rng):
    """An m x m cloth lying in the plane y = 1 (x and z in [-0.5, 0.5], x fastest), every
    particle moved by up to 5% of the rest length, the previous positions up to 1% of it
    further (random velocities of up to 10 rest lengths a second); float4 with w 1, out zeroed."""
    rest, ks, kd, dt, mass = _u57_cloth_params(m)
    zz, xx = np.divmod(np.arange(m * m), m)
    pos = np.ones((m * m, 4))
    pos[:, 0], pos[:, 2] = xx * rest - 0.5, zz * rest - 0.5
    pos[:, :3] += rng.uniform(-0.05, 0.05, (m * m, 3)) * rest
    prev = pos.copy()
    prev[:, :3] += rng.uniform(-0.01, 0.01, (m * m, 3)) * rest
    return [pos.astype(np.float32).ravel(), prev.astype(np.float32).ravel(), np.zeros(4 * m * m, np.float32),
            _i32(m), _i32(m), np.float32(rest), np.float32(ks), np.float32(kd), np.float32(dt), np.float32(mass)]


def _u57_sph_hash(cx, cy, cz, mask):
    """cell_hash in probes59.cu for int64 cell coordinates (negative ones wrap as unsigned)."""
    M = 0xFFFFFFFF
    return (((cx * 73856093) & M) ^ ((cy * 19349663) & M) ^ ((cz * 83492791) & M)) & mask


def _u57_sph_args(g, rng):
    """A block of fluid 2g x g x g cells of side h: 16 g^3 particles on a lattice of spacing h/2
    jittered by up to U57_SPH_JITTER spacings, sorted by the hash of their cell (stable), the
    table the power of two at least the particles (8 buckets a cell, a tenth of the cells
    sharing one); bucket b's [start, end) (start
    -1 when empty); velocities normal 0.1 m/s, densities rho0 (1 + 0.02 N(0, 1)), pressures
    k (rho - rho0); mass rho0 (h/2)^3; acc zeroed."""
    h = U57_SPH_H
    a = h / 2
    z, y, x = (c.ravel() for c in np.meshgrid(np.arange(2 * g), np.arange(2 * g), np.arange(4 * g), indexing="ij"))
    n = len(x)
    pos = np.zeros((n, 4), np.float32)
    pos[:, :3] = (np.stack([x, y, z], 1) + 0.5 + rng.uniform(-U57_SPH_JITTER, U57_SPH_JITTER, (n, 3))) * a
    cell = np.floor(pos[:, :3] / np.float32(h)).astype(np.int64)
    mask = (1 << int(np.ceil(np.log2(n)))) - 1
    hsh = _u57_sph_hash(cell[:, 0], cell[:, 1], cell[:, 2], mask)
    order = np.argsort(hsh, kind="stable")
    pos, hsh = pos[order], hsh[order]
    cnt = np.bincount(hsh, minlength=mask + 1)
    end = np.cumsum(cnt).astype(np.int32)
    start = np.where(cnt > 0, end - cnt, -1).astype(np.int32)
    vel = np.zeros((n, 4), np.float32)
    vel[:, :3] = rng.normal(0.0, 0.1, (n, 3))
    rho = (U57_SPH_RHO0 * (1 + 0.02 * rng.standard_normal(n))).astype(np.float32)
    prs = (U57_SPH_K * (rho.astype(np.float64) - U57_SPH_RHO0)).astype(np.float32)
    return [pos.ravel(), vel.ravel(), rho, prs, start, end, np.zeros(4 * n, np.float32), _i32(n),
            np.float32(h), np.float32(U57_SPH_RHO0 * a ** 3), np.float32(U57_SPH_VISC), np.uint32(mask)]


def _u57_sap_args(n, rng):
    """n boxes of half-extents U57_SAP_HALF (uniform) centred uniformly in a level
    n 2 / U57_SAP_SCAN long (x) and U57_SAP_YZ across (y, z): U57_SAP_SCAN boxes on average
    start within a box's x interval after its start, about one in 36 of them overlaps it in y
    and z; sorted by lo.x, as structs (lo, hi) of 6 floats; pairs (int2) for 2 n, the counter
    zeroed."""
    L = n * 2.0 / U57_SAP_SCAN
    c = rng.random((n, 3)) * [L, U57_SAP_YZ, U57_SAP_YZ]
    e = rng.uniform(*U57_SAP_HALF, (n, 3))
    b = np.concatenate([c - e, c + e], 1).astype(np.float32)
    b = b[np.argsort(b[:, 0], kind="stable")]
    return [b.ravel(), _i32(n), np.zeros(4 * n, np.int32), np.zeros(1, np.int32), _i32(2 * n)]


def _u57_look_at(eye, target, up):
    """A right-handed view matrix (4 x 4, float64) looking from eye at target."""
    f = np.subtract(target, eye, dtype=np.float64)
    f /= np.linalg.norm(f)
    s = np.cross(f, up)
    s /= np.linalg.norm(s)
    u = np.cross(s, f)
    V = np.eye(4)
    V[0, :3], V[1, :3], V[2, :3] = s, u, -f
    V[:3, 3] = -V[:3, :3] @ np.asarray(eye, np.float64)
    return V


def _u57_perspective(fovy, aspect, near, far):
    """An OpenGL projection matrix (NDC z in [-1, 1])."""
    t = 1.0 / np.tan(np.radians(fovy) / 2)
    return np.array([[t / aspect, 0, 0, 0], [0, t, 0, 0],
                     [0, 0, (far + near) / (near - far), 2 * far * near / (near - far)], [0, 0, -1, 0]])


def _u57_light_vp():
    """The spot light's view-projection: from (-30, 60, 20) at (0, 0, 50), 90 degrees."""
    return _u57_perspective(90.0, 1.0, U57_PCF_NEAR, U57_PCF_FAR) @ _u57_look_at((-30, 60, 20), (0, 0, 50), (0, 1, 0))


def _u57_pcf_scene(w, h, sm, rng):
    """The G-buffer of a w x h view of the ground plane y = 0 from a camera at (0, 8, -10)
    looking at (0, 0, 40) (60 degrees): world positions (x, 0, z, 1), the sky (above the
    horizon or beyond 300 m) w = 0; and the spot light's sm x sm shadow map: the ground's NDC
    depth (mapped to [0, 1]) at each texel centre, U57_PCF_BOXES flat roofs (rectangles of
    U57_PCF_SIDE texels a side at random) U57_PCF_HEIGHT nearer the light along its axis; texels whose ray
    misses the ground between the light's near and far planes at depth 1."""
    P = _u57_perspective(60.0, w / h, 0.1, 500.0)
    V = _u57_look_at((0, 8, -10), (0, 0, 40), (0, 1, 0))
    inv = np.linalg.inv(P @ V)
    x = (2 * (np.arange(w) + 0.5) / w - 1)[None, :]
    y = (1 - 2 * (np.arange(h) + 0.5) / h)[:, None]
    ndc = np.stack(np.broadcast_arrays(x, y, np.ones((h, w)), np.ones((h, w))), -1)
    far = ndc @ inv.T
    d = far[..., :3] / far[..., 3:] - np.array([0, 8, -10.0])
    down = d[..., 1] < 0
    t = np.where(down, -8.0 / np.where(down, d[..., 1], -1.0), 0.0)
    hit = down & (t * np.linalg.norm(d, axis=-1) < 300.0)
    g = np.zeros((h, w, 4))
    g[..., 0], g[..., 2], g[..., 3] = t * d[..., 0], -10 + t * d[..., 2], 1.0
    g[~hit] = 0.0
    # the shadow map: the ground under each texel centre, by the light's inverse
    Vl = _u57_look_at((-30, 60, 20), (0, 0, 50), (0, 1, 0))
    Li = np.linalg.inv(_u57_light_vp())
    tc = 2 * (np.arange(sm) + 0.5) / sm - 1
    ones = np.ones((sm, sm))
    with np.errstate(divide="ignore", invalid="ignore"):     # rays that never reach the ground
        ray = []
        for zn in (-1.0, 1.0):
            q = np.stack(np.broadcast_arrays(tc[None, :], tc[:, None], zn * ones, ones), -1) @ Li.T
            ray.append(q[..., :3] / q[..., 3:])
        a, b = ray
        s = a[..., 1] / (a[..., 1] - b[..., 1])               # where the near-far segment meets y = 0
        gp = a + s[..., None] * (b - a)
        ze = -(gp @ Vl[2, :3] + Vl[2, 3])                       # distance along the light's axis
        for _ in range(U57_PCF_BOXES):
            r0, c0 = rng.integers(0, sm, 2)
            hh, ww = rng.integers(U57_PCF_SIDE[0], U57_PCF_SIDE[1] + 1, 2)
            ze[r0:r0 + hh, c0:c0 + ww] -= U57_PCF_HEIGHT
        n_, f_ = U57_PCF_NEAR, U57_PCF_FAR
        depth = 0.5 * ((f_ + n_) / (f_ - n_) - 2 * f_ * n_ / ((f_ - n_) * ze)) + 0.5
        valid = (s > 0) & (s < 1)
        depth = np.where(valid, depth, 1.0)
    return g.astype(np.float32).reshape(-1), depth.astype(np.float32).reshape(-1)


def _u57_pcf_args(w, rng):
    """A w x (9 w / 16) view (_u57_pcf_scene), its visibility zeroed; U57_PCF_SM^2 shadow map."""
    h = w * 9 // 16
    gpos, depth = _u57_pcf_scene(w, h, U57_PCF_SM, rng)
    return [gpos, depth, np.zeros(w * h, np.float32), _i32(w), _i32(h), _i32(U57_PCF_SM), np.float32(U57_PCF_BIAS)]


UNSEEN57 = [
    TimingProbe("probe/zbuffer-raster", "probe-unseen57", "zbuffer_raster", 1 << 21, 256,
                lambda n: -(-n // 256), _u57_zb_args, source=_P59,
                note="z-buffer rasterization of 2^21 small triangles (vertices within 4 px, half back-facing) on "
                     "1920x1080, a thread a triangle: bounding-box loop with edge functions, depth test by a 64-bit "
                     "atomicMin on (depth << 32 | id) a covered pixel"),
    TimingProbe("probe/lbs-skinning", "probe-unseen57", "lbs_skin", 1 << 22, 256,
                lambda n: -(-n // 256), _u57_skin_args, source=_P59,
                note="linear blend skinning of 2^22 vertices, a thread a vertex: 4 of 64 bone matrices (3x4, "
                     "palette in shared memory) blended, position and normal (rsqrtf) transformed; float3 "
                     "arrays, int4 indices, float4 weights"),
    TimingProbe("probe/cloth-spring-step", "probe-unseen57", "cloth_step", 2048, (16, 16),
                lambda n: (-(-n // 16), -(-n // 16)), _u57_cloth_args, source=_P59,
                note="mass-spring cloth step on a 2048^2 grid, a thread a particle: 8 structural and shear springs "
                     "(float4 gathers of two buffers, a sqrt and three divisions each), Verlet into a third buffer, "
                     "two corners pinned"),
    TimingProbe("probe/sph-hash-forces", "probe-unseen57", "sph_forces", 32, 256,
                lambda n: -(-16 * n ** 3 // 256), _u57_sph_args, source=_P59,
                note="SPH pressure and viscosity forces of 2^19 particles (8 a cell of side h, ~33 within h), "
                     "sorted by a spatial hash into 2^19 buckets: 27 hashed buckets a particle, spiky gradient "
                     "and viscosity Laplacian (sqrt, division) a neighbour"),
    TimingProbe("probe/sap-broadphase", "probe-unseen57", "sap_pairs", 1 << 20, 256,
                lambda n: -(-n // 256), _u57_sap_args, source=_P59,
                note="sweep-and-prune broad phase of 2^20 boxes sorted on x, a thread a box scanning ~32 forward "
                     "while x overlaps (24-byte structs), ~1 pair a box appended by atomicAdd on one counter"),
    TimingProbe("probe/shadow-pcf5x5", "probe-unseen57", "shadow_pcf", 3840, (16, 16),
                lambda n: (-(-n // 16), -(-(n * 9 // 16) // 16)), _u57_pcf_args, source=_P59,
                symbols=lambda n, rng: {"c_light_vp": _u57_light_vp().astype(np.float32).ravel()},
                note="shadow-map lookup with 5x5 PCF for a 3840x2160 G-buffer of ground (39% sky), a thread a "
                     "pixel: light matrix from __constant__, 25 clamped gathers and depth compares in a 2048^2 "
                     "float map (perspective spot light, 2000 occluders)"),
]
PROBES += UNSEEN57

# probe-unseen58 (probes60.cu): a computer-vision course's CUDA assignments as a student who
# knows CUDA basics writes them, predicted before their first GPU run
_P60 = "probes60.cu"
U58_HARRIS_K = 0.04
U58_RECTS, U58_NOISE = 400, 4             # the scene: rectangles, +- noise in 1/256 steps
U58_LK_SHIFT, U58_LK_BLOBS, U58_LK_MIN_DET = (0.4, -0.3), 1500, 1e-8
U58_UF_BLOBS, U58_UF_RADIUS = 0.004, (2, 12)
U58_WARP_ROT, U58_WARP_SCALE, U58_WARP_PERSP = 8.0, 0.85, (0.25, 0.15)


def _u58_h(w):
    """The height of a w-wide 16:9 image."""
    return w * 9 // 16


def _u58_scene(w, h, rng):
    """A w x h test card in multiples of 1/256 within [0.1, 0.6]: a diagonal ramp,
    U58_RECTS rectangles a 1920 x 1080 (8-200 px a side at that width, in proportion) of
    random grey levels over it and +- U58_NOISE/256 noise, float64 (h x w)."""
    yy, xx = np.mgrid[0:h, 0:w]
    img = 0.2 + 0.1 * (xx / w + yy / h)
    for _ in range(max(20, U58_RECTS * w * h // (1920 * 1080))):
        x0, y0 = rng.integers(0, w), rng.integers(0, h)
        sw, sh = rng.integers(8, 201, 2) * max(w, 64) // 1920 + 2
        img[y0:y0 + sh, x0:x0 + sw] = rng.uniform(0.1, 0.6)
    img = np.round(img * 256) + rng.integers(-U58_NOISE, U58_NOISE + 1, (h, w))
    return np.clip(img, 26, 154) / 256.0


def _u58_harris_args(w, rng):
    """A w x (9 w / 16) test card (_u58_scene) as float32; the response zeroed; k."""
    h = _u58_h(w)
    return [_u58_scene(w, h, rng).astype(np.float32).ravel(), np.zeros(w * h, np.float32), _i32(w), _i32(h),
            np.float32(U58_HARRIS_K)]


def _u58_lk_frames(w, h, rng):
    """Two frames of a smooth scene (U58_LK_BLOBS Gaussian blobs a 1920 x 1080, at least 40,
    sigma 3-20 px, over a ramp) moved
    by U58_LK_SHIFT pixels between them, each rounded to a multiple of 1/256 in [0, 1]."""
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float64)
    m = max(40, U58_LK_BLOBS * w * h // (1920 * 1080))
    cx, cy = rng.uniform(0, w, m), rng.uniform(0, h, m)
    s, a = rng.uniform(3, 20, m), rng.uniform(-0.3, 0.3, m)
    frames = []
    for du, dv in ((0.0, 0.0), U58_LK_SHIFT):
        f = 0.4 + 0.1 * (xx / w - yy / h)
        for k in range(m):
            # only the blob's +-4 sigma box: the rest is below 1/256
            r = int(4 * s[k]) + 1
            x0, x1 = max(int(cx[k]) - r, 0), min(int(cx[k]) + r, w)
            y0, y1 = max(int(cy[k]) - r, 0), min(int(cy[k]) + r, h)
            if x0 >= x1 or y0 >= y1:
                continue
            X, Y = xx[y0:y1, x0:x1] - du - cx[k], yy[y0:y1, x0:x1] - dv - cy[k]
            f[y0:y1, x0:x1] += a[k] * np.exp(-(X * X + Y * Y) / (2 * s[k] ** 2))
        frames.append(np.clip(np.round(f * 256), 0, 256) / 256.0)
    return frames


def _u58_lk_args(w, rng):
    """Frames 0 and 1 (_u58_lk_frames, w x (9 w / 16), float32), u and v zeroed, min_det."""
    h = _u58_h(w)
    f0, f1 = _u58_lk_frames(w, h, rng)
    return [f0.astype(np.float32).ravel(), f1.astype(np.float32).ravel(), np.zeros(w * h, np.float32),
            np.zeros(w * h, np.float32), _i32(w), _i32(h), np.float32(U58_LK_MIN_DET)]


def _u58_census_args(w, rng):
    """A w x (9 w / 16) uint8 test card (_u58_scene times 256, so many ties), signatures zeroed."""
    h = _u58_h(w)
    return [np.round(_u58_scene(w, h, rng) * 256).astype(np.uint8).ravel(), np.zeros(w * h, np.uint32),
            _i32(w), _i32(h)]


def _u58_sobel(img):
    """Sobel gx, gy (y down) of an h x w float image, zero on the border, float64."""
    gx, gy = np.zeros_like(img), np.zeros_like(img)
    h, w = img.shape

    def p(dy, dx):
        return img[1 + dy:h - 1 + dy, 1 + dx:w - 1 + dx]
    gx[1:-1, 1:-1] = (p(-1, 1) + 2 * p(0, 1) + p(1, 1)) - (p(-1, -1) + 2 * p(0, -1) + p(1, -1))
    gy[1:-1, 1:-1] = (p(1, -1) + 2 * p(1, 0) + p(1, 1)) - (p(-1, -1) + 2 * p(-1, 0) + p(-1, 1))
    return gx, gy


def _u58_nms_args(w, rng):
    """The Sobel magnitude and direction (atan2(gy, gx)) of a w x (9 w / 16) test card,
    float32; the output zeroed."""
    h = _u58_h(w)
    gx, gy = _u58_sobel(_u58_scene(w, h, rng))
    return [np.hypot(gx, gy).astype(np.float32).ravel(), np.arctan2(gy, gx).astype(np.float32).ravel(),
            np.zeros(w * h, np.float32), _i32(w), _i32(h)]


def _u58_uf_fg(w, h, rng):
    """A w x h binary image (uint8 0/1): discs of radius U58_UF_RADIUS px centred at
    U58_UF_BLOBS a pixel, XOR a 2% speckle, so blobs merge into irregular components (about
    half the pixels foreground) and isolated pixels appear."""
    yy, xx = np.mgrid[0:h, 0:w]
    fg = np.zeros((h, w), bool)
    m = max(1, int(U58_UF_BLOBS * w * h))
    for cx, cy, r in zip(rng.uniform(0, w, m), rng.uniform(0, h, m), rng.uniform(*U58_UF_RADIUS, m)):
        x0, x1, y0, y1 = max(int(cx - r), 0), min(int(cx + r) + 1, w), max(int(cy - r), 0), min(int(cy + r) + 1, h)
        if x0 < x1 and y0 < y1:
            fg[y0:y1, x0:x1] |= (xx[y0:y1, x0:x1] - cx) ** 2 + (yy[y0:y1, x0:x1] - cy) ** 2 <= r * r
    fg ^= rng.random((h, w)) < 0.02
    return fg.astype(np.uint8)


def _u58_uf_args(w, rng):
    """A w x (9 w / 16) binary image (_u58_uf_fg) and its labels before the first pass:
    each foreground pixel its own parent, the background -1."""
    h = _u58_h(w)
    fg = _u58_uf_fg(w, h, rng).ravel()
    return [fg, np.where(fg != 0, np.arange(w * h), -1).astype(np.int32), _i32(w), _i32(h)]


def _u58_homography(w, h):
    """The destination -> source homography of a w x h image (3 x 3, float64): the source
    rotated U58_WARP_ROT degrees and scaled by U58_WARP_SCALE about its centre, then tilted
    by U58_WARP_PERSP (in half-widths); a quarter or so of the destination maps outside."""
    t = np.radians(U58_WARP_ROT)
    s = U58_WARP_SCALE
    A = np.array([[s * np.cos(t), -s * np.sin(t), 0], [s * np.sin(t), s * np.cos(t), 0],
                  [U58_WARP_PERSP[0], U58_WARP_PERSP[1], 1.0]])
    N = np.array([[2.0 / w, 0, -1], [0, 2.0 / w, -h / w], [0, 0, 1]])       # pixels -> centred, half-widths
    fwd = np.linalg.inv(N) @ A @ N                                          # source -> destination
    return np.linalg.inv(fwd)


def _u58_warp_args(w, rng):
    """A w x (9 w / 16) RGBA source (uint8, 4 a pixel: the test card, its transpose-ish
    ramp, noise, 255), the destination of the same size zeroed."""
    h = _u58_h(w)
    card = np.round(_u58_scene(w, h, rng) * 256)
    yy, xx = np.mgrid[0:h, 0:w]
    src = np.stack([card, (xx * 7 + yy * 3) % 256, rng.integers(0, 256, (h, w)), np.full((h, w), 255)], -1)
    return [src.astype(np.uint8).ravel(), np.zeros(4 * w * h, np.uint8), _i32(w), _i32(h), _i32(w), _i32(h)]


def _u58_grid(w):
    return (-(-w // 16), -(-_u58_h(w) // 16))


UNSEEN58 = [
    TimingProbe("probe/harris-response", "probe-unseen58", "harris_response", 1920, (16, 16), _u58_grid,
                _u58_harris_args, source=_P60,
                note="Harris corner response on a 1920x1080 float image, a thread a pixel: Sobel gradients at the "
                     "25 pixels of its 5x5 window straight from global memory (200 loads), R = det - k tr^2"),
    TimingProbe("probe/lucas-kanade-flow", "probe-unseen58", "lk_flow", 1920, (16, 16), _u58_grid,
                _u58_lk_args, source=_P60,
                note="Lucas-Kanade optical flow on two 1920x1080 float frames, a thread a pixel: central-difference "
                     "gradients and It over a 5x5 window (150 loads), the 2x2 system by Cramer's rule (two divisions) "
                     "where textured enough (~half the pixels)"),
    TimingProbe("probe/census5x5", "probe-unseen58", "census5x5", 3840, (16, 16), _u58_grid,
                _u58_census_args, source=_P60,
                note="5x5 census transform of a 3840x2160 uint8 image: 20x20 byte tile with clamped halo in shared "
                     "memory (strided load loop), 24 compares a pixel packed into a uint32"),
    TimingProbe("probe/canny-nms", "probe-unseen58", "canny_nms", 4096, (16, 16), _u58_grid,
                _u58_nms_args, source=_P60,
                note="Canny non-maximum suppression on 4096x2304 float magnitude and direction images, a thread a "
                     "pixel: 4-sector branch on the angle, two neighbour gathers along it"),
    TimingProbe("probe/uf-ccl-link", "probe-unseen58", "uf_link", 4096, (16, 16), _u58_grid,
                _u58_uf_args, source=_P60,
                note="first union-find labelling pass on a 4096x2304 binary image (~half foreground: discs + "
                     "speckle), a thread a pixel: root finding through int parents for itself, left and up, "
                     "linked by atomicMin"),
    TimingProbe("probe/warp-perspective", "probe-unseen58", "warp_perspective", 3840, (16, 16), _u58_grid,
                _u58_warp_args, source=_P60,
                symbols=lambda n, rng: {"c_homog": _u58_homography(n, _u58_h(n)).astype(np.float32).ravel()},
                note="perspective warp of a 3840x2160 uchar4 image, homography in __constant__ (a division a "
                     "pixel), 4 bilinear uchar4 gathers, out-of-bounds pixels zeroed"),
]
PROBES += UNSEEN58

# probe-unseen59 (probes61.cu): a bioinformatics course's CUDA assignments as a student who
# knows CUDA basics writes them, predicted before their first GPU run
_P61 = "probes61.cu"
U59_ISO, U59_ISO_GC = 1 << 16, (0.34, 0.48)     # the background's GC fraction: a level every 64 kb
U59_ALU_LEN, U59_ALU_GC, U59_ALU_COVER = 300, 0.55, 0.09
U59_L1_LEN, U59_L1_GC, U59_L1_COVER, U59_L1_FRAG = 6000, 0.38, 0.05, (200, 2000)
U59_MICRO_EVERY, U59_MICRO_UNITS, U59_MICRO_LEN = 5000, ("CA", "A", "GATA", "TTC"), (20, 60)
U59_NGAP_EVERY, U59_NGAP_MAX = 4_000_000, 10_000       # N runs in the ASCII genomes
U59_PWM_MOTIF = "CCACCAGGGGGC"                          # a CTCF-like core
U59_PWM_CONS = (0.60, 0.85, 0.70, 0.90, 0.95, 0.80, 0.90, 0.95, 0.95, 0.90, 0.70, 0.55)
U59_PWM_BG = (0.295, 0.205, 0.205, 0.295)               # A C G T
U59_PWM_SITES = 2000                                    # a planted motif site every 2 kb
U59_SW_LEN, U59_SW_MATCH, U59_SW_MISMATCH, U59_SW_OPEN, U59_SW_EXTEND = 48, 2, -3, 5, 2
U59_READ_LEN, U59_COV_REF, U59_ERR = 100, 8, 0.01       # the reference: 8 bases a read (~12x)
U59_QT_MAXLEN, U59_QT_MINLEN, U59_QT_THR = 150, 35, 20
U59_GC_WIN, U59_GC_BLOCK = 1000, 256


def _u59_bases(m, gc, rng, seg=None):
    """m random base codes (uint8, A C G T = 0 1 2 3): over bases k seg .. (k + 1) seg - 1
    the GC fraction gc[k] (a scalar gc: all m), rounded to 1/128, C and G alike, A and T
    alike (a byte a base through a 256-entry table)."""
    u = rng.integers(0, 256, m, dtype=np.uint8)
    levels = np.atleast_1d(gc)
    seg = seg or m
    out = np.empty(m, np.uint8)
    for k, g in enumerate(levels):
        c = int(round(g * 128))                 # table entries of C (and of G)
        lut = np.repeat(np.arange(4, dtype=np.uint8), [128 - c, c, c, 128 - c])
        out[k * seg:(k + 1) * seg] = lut[u[k * seg:(k + 1) * seg]]
    return out


def _u59_paste(seq, mask, cons, starts, offs, lens, rc, rate, rng):
    """Copy cons[offs : offs + lens] (reverse-complemented where rc) to seq at starts, each
    copy's bases mutated to random ones with its probability rate, dropping what falls past
    the end; mask is set over the copies."""
    lens = lens.astype(np.int64)
    tot = int(lens.sum())
    if tot == 0:
        return
    k = np.arange(tot) - np.repeat(np.cumsum(lens) - lens, lens)
    dst = np.repeat(starts.astype(np.int64), lens) + k
    r = np.repeat(rc, lens)
    src = np.where(r, np.repeat(offs + lens - 1, lens) - k, np.repeat(offs, lens) + k)
    b = np.where(r, 3 - cons[src], cons[src]).astype(np.uint8)
    mut = rng.random(tot) < np.repeat(rate, lens)
    b[mut] = rng.integers(0, 4, int(mut.sum()))
    keep = dst < len(seq)
    seq[dst[keep]] = b[keep]
    mask[dst[keep]] = True


def _u59_genome(n, rng):
    """n bases of a genome, as codes (uint8, A C G T = 0 1 2 3) and its repeat mask (bool):
    a background drawn base by base with a GC fraction drawn in U59_ISO_GC for every 64 kb
    (isochores, 41% on average), then interspersed repeats: copies of a 300-base GC-rich
    'Alu' consensus (5'-truncated to 150-300 bases) over ~9% of it and 5'-truncated
    fragments (200-2000 bases) of a 6000-base AT-rich 'L1' over ~5%, either strand, 5-15% of
    each copy's bases mutated; and microsatellites ((CA)n, (A)n, (GATA)n, (TTC)n of 20-60
    bases, 2% mutated) one every ~5 kb."""
    seq = _u59_bases(n, rng.uniform(*U59_ISO_GC, -(-n // U59_ISO)), rng, U59_ISO)
    mask = np.zeros(n, bool)
    alu = _u59_bases(U59_ALU_LEN, U59_ALU_GC, rng)
    l1 = _u59_bases(U59_L1_LEN, U59_L1_GC, rng)
    for cons, cover, lo, hi in ((alu, U59_ALU_COVER, U59_ALU_LEN // 2, U59_ALU_LEN),
                                (l1, U59_L1_COVER, *U59_L1_FRAG)):
        m = max(1, int(cover * n / ((lo + hi) / 2)))
        lens = rng.integers(lo, hi + 1, m)
        _u59_paste(seq, mask, cons, rng.integers(0, n, m), len(cons) - lens, lens, rng.random(m) < 0.5,
                   rng.uniform(0.05, 0.15, m), rng)
    code = {"A": 0, "C": 1, "G": 2, "T": 3}
    lo, hi = U59_MICRO_LEN
    units = np.array([[code[c] for c in (u * hi)[:hi]] for u in U59_MICRO_UNITS], np.uint8).ravel()
    m = max(1, n // U59_MICRO_EVERY)
    _u59_paste(seq, mask, units, rng.integers(0, n, m), hi * rng.integers(0, len(U59_MICRO_UNITS), m),
               rng.integers(lo, hi + 1, m), np.zeros(m, bool), np.full(m, 0.02), rng)
    return seq, mask


def _u59_ascii(seq, mask, rng):
    """The genome as FASTA text would hold it (uint8 ASCII): ACGT, lower case over the
    repeats (soft-masked), and runs of N (assembly gaps, up to U59_NGAP_MAX long, at least
    one) every ~U59_NGAP_EVERY bases."""
    n = len(seq)
    txt = np.frombuffer(b"ACGT", np.uint8)[seq]
    txt[mask] |= 0x20
    for _ in range(max(1, n // U59_NGAP_EVERY)):
        g = int(rng.integers(1, max(2, min(U59_NGAP_MAX, n // 20))))
        s = int(rng.integers(0, n - g))
        txt[s:s + g] = ord("N")
    return txt


def _u59_pack_args(n, rng):
    """An n-base ASCII genome (_u59_genome, _u59_ascii) padded with N to a multiple of 16
    (as uint8: the kernel reads it as uint4), the packed words zeroed."""
    nw = -(-n // 16)
    txt = np.full(16 * nw, ord("N"), np.uint8)
    txt[:n] = _u59_ascii(*_u59_genome(n, rng), rng)
    return [txt, np.zeros(nw, np.uint32), _i32(nw)]


def _u59_pwm_probs():
    """The motif's base probabilities (12 x 4, A C G T): U59_PWM_CONS on U59_PWM_MOTIF's
    base at each position, the rest shared equally by the other three."""
    p = np.repeat(((1.0 - np.array(U59_PWM_CONS)) / 3)[:, None], 4, 1)
    p[np.arange(12), ["ACGT".index(c) for c in U59_PWM_MOTIF]] = U59_PWM_CONS
    return p


def _u59_pwm():
    """The motif's log-odds scores log2(p / background) (12 x 4, float64), rounded to
    multiples of 1/64 (so every sum of 12 is exact in float32, in any order)."""
    return np.round(np.log2(_u59_pwm_probs() / np.array(U59_PWM_BG)) * 64) / 64


def _u59_pwm_args(n, rng):
    """An n-base genome as codes (_u59_genome) with a motif site drawn from the motif's
    probabilities planted every ~U59_PWM_SITES bases (either strand), the scores zeroed."""
    seq, mask = _u59_genome(n, rng)
    m = max(1, n // U59_PWM_SITES)
    p = _u59_pwm_probs()
    sites = np.minimum((rng.random((m, 12, 1)) > np.cumsum(p, 1)[None]).sum(2), 3).astype(np.uint8)   # m x 12
    _u59_paste(seq, mask, sites.ravel(), rng.integers(0, n, m), 12 * np.arange(m), np.full(m, 12),
               rng.random(m) < 0.5, np.zeros(m), rng)
    return [seq, np.zeros(n, np.float32), _i32(n)]


def _u59_sw_args(n, rng):
    """n (query, target) pairs of 48 base codes each (uint8, pair-major), scores zeroed.  A
    target is a 48-base window of a genome (_u59_genome, 64 bases a pair); three in four
    queries come from the same locus shifted by -8 .. 8 bases, with 3% substitutions and, in
    a third of them, an insertion or a deletion of 1-4 bases at a random point (a read
    against its candidate locus); the rest from random loci (false candidates)."""
    L = U59_SW_LEN
    g, _ = _u59_genome(64 * n + 4 * L, rng)
    t0 = rng.integers(L, 64 * n + L, n)
    j = np.arange(L)[None, :]
    target = g[t0[:, None] + j]
    hom = rng.random(n) < 0.75
    q0 = np.where(hom, t0 + rng.integers(-8, 9, n), rng.integers(L, 64 * n + L, n))
    kind = np.where(hom & (rng.random(n) < 1 / 3), rng.choice([-1, 1], n), 0)    # -1 deletion, 1 insertion
    at, d = rng.integers(0, L, n)[:, None], rng.integers(1, 5, n)[:, None]
    idx = np.where((kind[:, None] < 0) & (j >= at), j + d, j)                    # deleted: skip d bases
    idx = np.where((kind[:, None] > 0) & (j >= at + d), j - d, idx)              # inserted: d new bases
    query = g[q0[:, None] + idx]
    new = (kind[:, None] > 0) & (j >= at) & (j < at + d)
    sub = new | (rng.random((n, L)) < 0.03)
    query[sub] = rng.integers(0, 4, int(sub.sum()))
    return [query.astype(np.uint8).ravel(), target.astype(np.uint8).ravel(), np.zeros(n, np.int32), _i32(n)]


def _u59_cov_args(n, rng):
    """n reads of 100 bases on a reference of 8 n bases (_u59_genome; ~12x coverage), in the
    aligner's output order (unsorted): start positions uniform up to 30 bases before the
    end (so reads overhang it), bases the reference's (random past its end) with 1%
    substitution errors, as codes (uint8, read-major); the counts (4 a position) zeroed."""
    ref_len = U59_COV_REF * n
    g, _ = _u59_genome(ref_len, rng)
    start = rng.integers(0, ref_len - 30, n)
    pos = start[:, None] + np.arange(U59_READ_LEN)[None, :]
    inside = pos < ref_len
    b = np.where(inside, g[np.minimum(pos, ref_len - 1)], rng.integers(0, 4, pos.shape)).astype(np.uint8)
    err = rng.random(pos.shape) < U59_ERR
    b[err] = (b[err] + rng.integers(1, 4, int(err.sum()))) % 4
    return [b.ravel(), start.astype(np.int32), np.zeros(4 * ref_len, np.int32), _i32(n), _i32(ref_len)]


def _u59_gc_args(n, rng):
    """An n-base ASCII genome (_u59_genome, _u59_ascii: soft-masked repeats, N gaps), the
    n - 999 window fractions zeroed."""
    return [_u59_ascii(*_u59_genome(n, rng), rng), np.zeros(n - U59_GC_WIN + 1, np.float32), _i32(n)]


def _u59_qt_args(n, rng):
    """n reads' Phred+33 qualities (uint8, 150 bytes a read, 0 past a read's end), their
    lengths (int32: 150, or 20-149 for one in six, adapter-clipped), the kept lengths
    zeroed and the threshold U59_QT_THR.  A read's qualities decline from ~37 towards the
    3' end (by ~14 at base 150), with a per-read offset (sd 3) and per-base noise (sd 4),
    and one read in seven ends in an Illumina Q2 tail ('#') from a point in its second
    half; all within 2-41."""
    M = U59_QT_MAXLEN
    lens = np.where(rng.random(n) < 1 / 6, rng.integers(20, M, n), M)
    pos = np.arange(M)[None, :]
    q = 37 - 14 * (pos / M) ** 2.5 + rng.normal(0, 3, (n, 1)) + rng.normal(0, 4, (n, M))
    tail = np.where(rng.random(n) < 1 / 7, rng.integers(M // 2, M, n), M)[:, None]
    q = np.where(pos >= tail, 2, np.clip(np.round(q), 2, 41))
    q = np.where(pos < lens[:, None], q + 33, 0).astype(np.uint8)
    return [q.ravel(), lens.astype(np.int32), np.zeros(n, np.int32), _i32(n), _i32(U59_QT_THR)]


UNSEEN59 = [
    TimingProbe("probe/dna-pack-2bit", "probe-unseen59", "dna_pack_2bit", 1 << 27, 256,
                lambda n: -(-n // (16 * 256)), _u59_pack_args, source=_P61,
                note="2-bit packing of a 2^27-base ASCII genome (soft-masked, N gaps), a thread a uint4 of 16 "
                     "bases: upper-casing, a compare chain a base, shifts and ORs into one uint32 store"),
    TimingProbe("probe/pwm-scan", "probe-unseen59", "pwm_scan", 1 << 26, 256, lambda n: -(-n // 256),
                _u59_pwm_args, source=_P61,
                symbols=lambda n, rng: {"c_pwm": _u59_pwm().astype(np.float32).ravel()},
                note="12-long PWM motif scan of a 2^26-base byte-coded genome, a thread a position: 24 byte loads "
                     "(overlapping neighbours') indexing a __constant__ float[12][4] by the base (divergent "
                     "constant addresses), both strands, a float score a position"),
    TimingProbe("probe/sw-affine-batch", "probe-unseen59", "sw_affine_batch", 1 << 17, 128,
                lambda n: -(-n // 128), _u59_sw_args, source=_P61,
                note="Smith-Waterman with affine gaps on 131072 pairs of 48 x 48 byte-coded bases, a thread a "
                     "pair (128 a block): 2304 cells of integer max chains, H and F rows in 49-int local "
                     "arrays, the target byte reloaded a cell (48-byte stride across a warp)"),
    TimingProbe("probe/coverage-pileup", "probe-unseen59", "coverage_pileup", 1 << 19, 256,
                lambda n: -(-n * U59_READ_LEN // 256), _u59_cov_args, source=_P61,
                note="pileup of 524288 unsorted 100-base reads on a 4.2 Mbase reference (~12x), a thread a "
                     "base: an int division, then an atomicAdd into 16 MB of (position, base) counts, runs of "
                     "100 neighbouring positions a read"),
    TimingProbe("probe/gc-window", "probe-unseen59", "gc_window", 1 << 26, U59_GC_BLOCK,
                lambda n: -(-(n - U59_GC_WIN + 1) // U59_GC_BLOCK), _u59_gc_args, source=_P61,
                note="GC fraction of every 1000-base window of a 2^26-base ASCII genome, 256 windows a block: a "
                     "1280-byte tile (5x the block's bases) staged as flags in shared memory, 5-flag sums, an "
                     "8-step Hillis-Steele scan (16 barriers), a prefix array, a float division a window"),
    TimingProbe("probe/quality-trim", "probe-unseen59", "quality_trim", 1 << 19, 256, lambda n: -(-n // 8),
                _u59_qt_args, source=_P61,
                note="BWA 3' quality trimming of 524288 reads of up to 150 Phred+33 bytes, a warp a read: rounds "
                     "of 32 positions from the 3' end, a 5-step __shfl_up_sync scan, a ballot for the stop, a "
                     "10-shuffle arg-max; 86% of the reads stop in the first round, the Q2-tailed run on to 4"),
]
PROBES += UNSEEN59

# probe-unseen60 (probes62.cu): a wireless-communications course's CUDA assignments as a
# student who knows CUDA basics writes them, predicted before their first GPU run
_P62 = "probes62.cu"
U60_QAM_SNR_DB = 12.0                     # qam16-demap: Es / N0
U60_VIT_STEPS, U60_VIT_EBN0_DB, U60_VIT_PM_LOW = 64, 4.0, -1000.0
U60_VIT_G = (0o171, 0o133)
U60_LDPC_DEG, U60_LDPC_DEG_P, U60_LDPC_VDEG = (6, 7, 8), (0.25, 0.5, 0.25), 3
U60_LDPC_SCALE, U60_LDPC_ESN0_DB = 0.75, 2.0
U60_OFDM_N, U60_OFDM_CP, U60_OFDM_TAPS, U60_OFDM_SNR_DB, U60_OFDM_EST_DB = 4096, 288, 16, 20.0, 30.0
U60_RS_N, U60_RS_K, U60_RS_POLY, U60_RS_ERRS = 255, 223, 0x11D, 3.0
U60_CFO_FRAME, U60_CFO_FFT, U60_CFO_EPS, U60_CFO_SNR_DB = 30720, 2048, 0.5, 15.0


def _u60_cnoise(shape, var, rng):
    """Circular complex Gaussian noise of variance var (var / 2 a dimension), complex128."""
    return np.sqrt(var / 2) * (rng.standard_normal(shape) + 1j * rng.standard_normal(shape))


def _u60_c2f(z):
    """Complex values as interleaved float32 (float2: re, im)."""
    z = np.ascontiguousarray(z, np.complex64)
    return z.view(np.float32).ravel()


def _u60_qam16_points():
    """16-QAM's points by their 4-bit labels b0 b1 b2 b3 (b0 the most significant), Gray
    mapped as TS 38.211: (1 - 2 b0)(2 - (1 - 2 b2)) + j (1 - 2 b1)(2 - (1 - 2 b3)), over
    sqrt(10) (unit mean energy); complex128."""
    lab = np.arange(16)
    b = [(lab >> (3 - k)) & 1 for k in range(4)]
    return ((1 - 2 * b[0]) * (2 - (1 - 2 * b[2])) + 1j * (1 - 2 * b[1]) * (2 - (1 - 2 * b[3]))) / np.sqrt(10)


def _u60_qam_args(n, rng):
    """n 16-QAM symbols of uniform random labels through an AWGN channel at Es/N0 =
    U60_QAM_SNR_DB (interleaved float32), the 4 n LLRs zeroed, n, the noise variance N0."""
    n0 = 10 ** (-U60_QAM_SNR_DB / 10)
    y = _u60_qam16_points()[rng.integers(0, 16, n)] + _u60_cnoise(n, n0, rng)
    return [_u60_c2f(y), np.zeros(4 * n, np.float32), _i32(n), np.float32(n0)]


def _u60_qam_symbols(n, rng):
    pts = _u60_qam16_points()
    return {"c_qam_re": pts.real.astype(np.float32), "c_qam_im": pts.imag.astype(np.float32)}


def _u60_conv_encode(bits):
    """The K = 7 rate-1/2 code (U60_VIT_G, bit 6 the newest input) of each row of a uint8
    0/1 array (codewords x steps) from the zero state: (codewords x steps x 2) 0/1."""
    ncw, T = bits.shape
    reg = np.zeros(ncw, np.int64)
    out = np.zeros((ncw, T, 2), np.uint8)
    par = np.array([bin(v).count("1") & 1 for v in range(128)], np.uint8)
    for t in range(T):
        reg = (bits[:, t].astype(np.int64) << 6) | (reg >> 1)     # bits 0-5: the state before
        out[:, t, 0], out[:, t, 1] = par[reg & U60_VIT_G[0]], par[reg & U60_VIT_G[1]]
    return out


def _u60_vit_args(ncw, rng):
    """ncw codewords of U60_VIT_STEPS random bits (the last 6 zero, so the trellis ends in
    state 0) encoded by the K = 7 code, BPSK (0 -> +1) through AWGN at Eb/N0 =
    U60_VIT_EBN0_DB: the received float32 soft values, 2 a step; the path metrics before
    the first step (0 for state 0, U60_VIT_PM_LOW for the others), those after zeroed, the
    decisions (uint64 a step) zeroed, the step count."""
    T = U60_VIT_STEPS
    bits = rng.integers(0, 2, (ncw, T)).astype(np.uint8)
    bits[:, T - 6:] = 0
    code = _u60_conv_encode(bits)
    sigma = np.sqrt(1 / (2 * 0.5 * 10 ** (U60_VIT_EBN0_DB / 10)))
    rx = (1.0 - 2.0 * code) + sigma * rng.standard_normal(code.shape)
    pm = np.full((ncw, 64), U60_VIT_PM_LOW, np.float32)
    pm[:, 0] = 0
    return [rx.astype(np.float32).ravel(), pm.ravel(), np.zeros(64 * ncw, np.float32),
            np.zeros(ncw * T, np.uint64), _i32(T)]


def _u60_ldpc_graph(m, rng):
    """A random regular-ish Tanner graph of m check nodes: check degrees from U60_LDPC_DEG
    (probabilities U60_LDPC_DEG_P), each edge's variable node from a random permutation of
    the sockets of variables of degree U60_LDPC_VDEG (so multiple edges may occur); the CSR
    row pointers (int32, m + 1) and the edges' variables (int64)."""
    deg = rng.choice(U60_LDPC_DEG, m, p=U60_LDPC_DEG_P)
    row_ptr = np.zeros(m + 1, np.int64)
    np.cumsum(deg, out=row_ptr[1:])
    ne = int(row_ptr[-1])
    nvar = -(-ne // U60_LDPC_VDEG)
    col = rng.permutation(np.repeat(np.arange(nvar), U60_LDPC_VDEG))[:ne]
    return row_ptr.astype(np.int32), col


def _u60_ldpc_args(m, rng):
    """A Tanner graph of m checks (_u60_ldpc_graph) and the first iteration's
    variable-to-check messages: each edge the channel LLR 2 y / sigma^2 of its variable,
    the all-zero codeword's BPSK (+1) through AWGN at Es/N0 = U60_LDPC_ESN0_DB (~4% of them
    negative), float32 in CSR order; c2v zeroed; m; the scaling factor."""
    row_ptr, col = _u60_ldpc_graph(m, rng)
    sigma2 = 1 / (2 * 10 ** (U60_LDPC_ESN0_DB / 10))
    nvar = int(col.max()) + 1
    llr = 2 * (1 + np.sqrt(sigma2) * rng.standard_normal(nvar)) / sigma2
    return [row_ptr, llr[col].astype(np.float32), np.zeros(len(col), np.float32), _i32(m),
            np.float32(U60_LDPC_SCALE)]


def _u60_ofdm_channel(N, rng):
    """A Rayleigh multipath channel's frequency response on N subcarriers (complex128):
    U60_OFDM_TAPS complex Gaussian taps, one a sample, of an exponential power delay profile
    (each tap 1 dB below the one before), unit total power."""
    p = 10 ** (-np.arange(U60_OFDM_TAPS) / 10)
    taps = _u60_cnoise(U60_OFDM_TAPS, 1.0, rng) * np.sqrt(p / p.sum())
    return np.fft.fft(taps, N)


def _u60_ofdm_args(nsym, rng):
    """nsym OFDM symbols of U60_OFDM_N subcarriers: random QPSK data through one Rayleigh
    channel (_u60_ofdm_channel) with noise at U60_OFDM_SNR_DB, each symbol's frequency-domain
    values after the U60_OFDM_CP slots of its row of N + CP (which hold unit-power noise, the
    stale time-domain prefix), interleaved float32; the channel estimates (the response plus
    estimation noise U60_OFDM_EST_DB below it); the equalized output zeroed; nsym, N, CP."""
    N, cp = U60_OFDM_N, U60_OFDM_CP
    H = _u60_ofdm_channel(N, rng)
    X = ((1 - 2 * rng.integers(0, 2, (nsym, N))) + 1j * (1 - 2 * rng.integers(0, 2, (nsym, N)))) / np.sqrt(2)
    rx = np.empty((nsym, N + cp), np.complex64)
    rx[:, :cp] = _u60_cnoise((nsym, cp), 1.0, rng)
    rx[:, cp:] = H * X + _u60_cnoise((nsym, N), 10 ** (-U60_OFDM_SNR_DB / 10), rng)
    Hest = H + _u60_cnoise(N, 10 ** (-U60_OFDM_EST_DB / 10), rng)
    return [_u60_c2f(rx), _u60_c2f(Hest), np.zeros(2 * nsym * N, np.float32), _i32(nsym), _i32(N), _i32(cp)]


def _u60_gf_tables():
    """GF(256) by U60_RS_POLY (alpha = 2): the log table (uint8, 256, log[0] = 0 unused)
    and the antilog table (uint8, 510: alpha^i for i < 510, so log a + log b needs no
    reduction)."""
    exp = np.zeros(510, np.uint8)
    log = np.zeros(256, np.uint8)
    x = 1
    for i in range(510):
        exp[i] = x
        if i < 255:
            log[x] = i
        x <<= 1
        if x & 0x100:
            x ^= U60_RS_POLY
    return log, exp


def _u60_rs_encode(msg):
    """Systematic RS(255, 223) codewords of the rows of a uint8 array (codewords x 223):
    the message then the remainder of msg(x) x^32 by g(x) = (x - alpha)(x - alpha^2) ...
    (x - alpha^32), highest degree first (uint8, codewords x 255)."""
    log, exp = _u60_gf_tables()
    lg, ex = log.astype(np.int64), exp.astype(np.int64)
    mul = np.zeros((256, 256), np.uint8)                     # the full product table
    a = np.arange(1, 256)
    mul[1:, 1:] = ex[(lg[a][:, None] + lg[a][None, :])]
    g = np.array([1], np.uint8)                              # g's coefficients, highest first
    for i in range(1, U60_RS_N - U60_RS_K + 1):
        g = np.concatenate([g, [0]]) ^ np.concatenate([[0], mul[g, exp[i]]])
    nk = U60_RS_N - U60_RS_K
    par = np.zeros((msg.shape[0], nk), np.uint8)
    for i in range(U60_RS_K):
        fb = msg[:, i] ^ par[:, 0]
        par = np.concatenate([par[:, 1:], np.zeros((msg.shape[0], 1), np.uint8)], 1) ^ mul[fb][:, g[1:]]
    return np.concatenate([msg, par], 1)


def _u60_rs_args(ncw, rng):
    """ncw RS(255, 223) codewords of random messages (_u60_rs_encode), each with a Poisson
    (mean U60_RS_ERRS, at most 16) number of byte errors of random nonzero values at random
    places (~5% error-free), uint8; the GF(256) log and antilog tables; the 32 ncw
    syndromes zeroed; ncw."""
    cw = _u60_rs_encode(rng.integers(0, 256, (ncw, U60_RS_K), dtype=np.uint8))
    nerr = np.minimum(rng.poisson(U60_RS_ERRS, ncw), 16)
    pos = np.argsort(rng.random((ncw, U60_RS_N)), axis=1)[:, :16]        # 16 distinct places a codeword
    val = rng.integers(1, 256, (ncw, 16), dtype=np.uint8)
    val[np.arange(16)[None, :] >= nerr[:, None]] = 0
    np.bitwise_xor.at(cw, (np.repeat(np.arange(ncw), 16), pos.ravel()), val.ravel())
    log, exp = _u60_gf_tables()
    return [cw.ravel(), log, exp, np.zeros(32 * ncw, np.uint8), _i32(ncw)]


def _u60_cfo_symbols(L, fft):
    """Where the OFDM symbols lie in a frame of L samples, LTE's way at an FFT of fft: slots
    of 7 symbols, the first with a cyclic prefix of fft * 160 / 2048 samples, the others
    fft * 144 / 2048, one after the other (the last cut off at L): (start, cp) a symbol."""
    out, k, j = [], 0, 0
    while k < L:
        cp = fft * (160 if j % 7 == 0 else 144) // 2048
        out.append((k, cp))
        k += cp + fft
        j += 1
    return out


def _u60_cfo_args(n, rng):
    """n complex samples in frames of U60_CFO_FRAME (the last partial), each frame OFDM
    symbols laid out by _u60_cfo_symbols at an FFT of U60_CFO_FFT: QPSK on the 75 / 256
    of the subcarriers each side of DC (1200 of 2048, as LTE's 20 MHz), DC empty, unit power,
    the cyclic prefixes copied; rotated by exp(j 2 pi eps n / U60_CFO_FFT), eps the frame's offset uniform
    within +-U60_CFO_EPS subcarrier spacings, n the sample's index in its frame, plus noise
    at U60_CFO_SNR_DB; interleaved float32; the offsets (float32, a frame); the output
    zeroed; n, the frame length, the FFT size."""
    L, N = U60_CFO_FRAME, U60_CFO_FFT
    nf = -(-n // L)
    lay = _u60_cfo_symbols(L, N)
    used = np.r_[1:N * 75 // 256 + 1, N - N * 75 // 256:N]              # 1200 of 2048, DC empty
    F = np.zeros((nf * len(lay), N), np.complex128)
    qpsk = 1 - 2 * rng.integers(0, 2, (2, len(F), len(used)))
    F[:, used] = qpsk[0] + 1j * qpsk[1]
    t = np.fft.ifft(F, axis=1) * (N / np.sqrt(2 * len(used)))              # unit power
    frame = np.empty((nf, L), np.complex128)
    for j, (k, cp) in enumerate(lay):
        sym = np.concatenate([t[j::len(lay), N - cp:], t[j::len(lay)]], axis=1)
        m = min(cp + N, L - k)
        frame[:, k:k + m] = sym[:, :m]
    eps = rng.uniform(-U60_CFO_EPS, U60_CFO_EPS, nf)
    x = frame.ravel()[:n] * np.exp(2j * np.pi * np.repeat(eps, L)[:n] * (np.arange(n) % L) / N)
    x += _u60_cnoise(n, 10 ** (-U60_CFO_SNR_DB / 10), rng)
    return [_u60_c2f(x), eps.astype(np.float32), np.zeros(2 * n, np.float32), _i32(n), _i32(L), _i32(N)]


UNSEEN60 = [
    TimingProbe("probe/qam16-demap-llr", "probe-unseen60", "qam16_demap", 1 << 23, 256, lambda n: -(-n // 256),
                _u60_qam_args, source=_P62, symbols=_u60_qam_symbols,
                note="max-log 16-QAM demapping of 2^23 noisy symbols (12 dB), a thread a float2 symbol: 16 "
                     "constellation points from __constant__ (two float tables), a distance and 4 fminf into one "
                     "of two minima each, 4 float LLRs stored apart, a reciprocal"),
    TimingProbe("probe/viterbi-acs", "probe-unseen60", "viterbi_acs", 1 << 15, 64, lambda n: n,
                _u60_vit_args, source=_P62,
                note="Viterbi add-compare-select of the K=7 rate-1/2 code over 64 steps for 2^15 codewords, a "
                     "block of 64 threads a codeword: shared double-buffered path metrics, broadcast soft-value "
                     "loads, a ballot and two __syncthreads a step, one uint64 of decisions a step"),
    TimingProbe("probe/ldpc-minsum-check", "probe-unseen60", "ldpc_check_minsum", 1 << 21, 256,
                lambda n: -(-n // 256), _u60_ldpc_args, source=_P62,
                note="min-sum LDPC check-node update for 2^21 checks of degree 6-8 (CSR, ~14.7M edges), a "
                     "thread a check: two passes over its contiguous float messages (min, second min, sign "
                     "parity), scaled by 0.75"),
    TimingProbe("probe/ofdm-equalize", "probe-unseen60", "ofdm_equalize_zf", 4096, 256,
                lambda n: -(-(n * U60_OFDM_N) // 256), _u60_ofdm_args, source=_P62,
                note="zero-forcing equalization of 4096 OFDM symbols of 4096 subcarriers, a thread a "
                     "(symbol, subcarrier): float2 load past a 288-slot cyclic prefix, channel estimate "
                     "(32 KiB, cached), integer div/mod, two divisions"),
    TimingProbe("probe/rs-syndromes", "probe-unseen60", "rs_syndromes", 1 << 16, 256, lambda n: -(-n // 8),
                _u60_rs_args, source=_P62,
                note="RS(255,223) syndromes of 2^16 byte codewords, a block 8 codewords, a thread a syndrome: "
                     "GF(256) log/antilog tables copied to shared bytes, 255 serial Horner steps of 3 shared "
                     "lookups, a branch and a broadcast byte load"),
    TimingProbe("probe/cfo-correct-rotate", "probe-unseen60", "cfo_correct", 1 << 24, 256,
                lambda n: -(-n // 256), _u60_cfo_args, source=_P62,
                note="carrier-frequency-offset correction of 2^24 complex samples (LTE-like OFDM frames of "
                     "30720), a thread a sample: per-frame eps gather, integer div/mod, sincosf of phases up to "
                     "~47 rad, a complex rotation"),
]
PROBES += UNSEEN60

# probe-unseen61 (probes63.cu): a text-processing course's CUDA assignments as a student
# who knows CUDA basics writes them, predicted before their first GPU run
_P63 = "probes63.cu"
U61_WORDS = tuple((
    "the of and to a in is it you that he was for on are with as I his they be at one have this "
    "from or had by not word but what some we can out other were all there when up use your how "
    "said an each she which do their time if will way about many then them write would like so "
    "these her long make thing see him two has look more day could go come did number sound no "
    "most people my over know water than call first who may down side been now find any new work "
    "part take get place made live where after back little only round man year came show every "
    "good me give our under name very through just form sentence great think say help low line "
    "differ turn cause much mean before move right boy old too same tell does set three want air "
    "well also play small end put home read hand port large spell add even land here must big "
    "high such follow act why ask men change went light kind off need house picture try us again "
    "animal point mother world near build self earth father head stand own page should country "
    "found answer school grow study still learn plant cover food sun four between state keep eye "
    "never last let thought city tree cross farm hard start might story saw far sea draw left late "
    "run while press close night real life few north open seem together next white children begin "
    "got walk example ease paper group always music those both mark often letter until mile river "
    "car feet care second book carry took science eat room friend began idea fish mountain stop "
    "once base hear horse cut sure watch color face wood main enough plain girl usual young ready "
    "above ever red list though feel talk bird soon body dog family direct pose leave song measure "
    "door product black short numeral class wind question happen complete ship area half rock "
    "order fire south problem piece told knew pass since top whole king space heard best hour "
    "better true during hundred five remember step early hold west ground interest reach fast "
    "verb sing listen six table travel less morning ten simple several vowel toward war lay "
    "against pattern slow center love person money serve appear road map rain rule govern pull "
    "cold notice voice unit power town fine certain fly fall lead cry dark machine note wait plan "
    "figure star box noun field rest correct able pound done beauty drive stood contain front "
    "teach week final gave green oh quick develop ocean warm free minute strong special mind "
    "behind clear tail produce fact street inch multiply nothing course stay wheel full force "
    "blue object decide surface deep moon island foot system busy test record boat common gold "
    "possible plane stead dry wonder laugh thousand ago ran check game shape equate hot miss "
    "brought heat snow tire bring yes distant fill east paint language among Monday London Paris "
    "Alice Bob Mr Mrs Dr 1999 2024 42 3.5 100 12 7 OK e.g. i.e. don't it's I'm can't you're"
).split())
U61_LATIN1 = ("café", "naïve", "façade", "résumé", "über", "Müller", "Zürich", "señor", "año", "jalapeño",
              "déjà", "fiancée", "crème", "brûlée", "São", "Málaga", "Köln", "Ångström", "smörgåsbord",
              "piñata", "Bjørn", "Genève", "Düsseldorf", "garçon", "rôle", "élan", "¥500", "£20", "½", "©")
U61_CJK = ("東京", "日本語", "北京", "中文", "漢字", "学生", "大学", "電車", "寿司", "你好", "谢谢", "上海",
           "ありがとう", "カタカナ", "ひらがな", "한국어", "서울", "東京都渋谷区", "中华人民共和国", "「こんにちは」")
U61_EMOJI = ("😀", "👍", "🎉", "❤️", "🚀", "🙂", "👋🏽", "🇫🇷", "☕", "✨", "😂", "🤔", "🔥", "👨‍👩‍👧", "𝄞")
U61_WORD_P = (0.955, 0.03, 0.01, 0.005)       # a word: English, Latin-1, CJK, emoji
U61_SEPS = ((" ", 0.80), (", ", 0.07), (". ", 0.055), ("? ", 0.006), ("! ", 0.004), ("; ", 0.004),
            (": ", 0.004), (" - ", 0.004), (".  ", 0.01), (".\n", 0.02), (".\n\n\t", 0.012),
            (" (", 0.004), (") ", 0.004), ("\"", 0.003))
U61_UTF8_CHUNK, U61_UTF8_BAD_EVERY = 64, 1 << 16      # a corrupted place every 64 KiB
U61_UTF8_BAD = (b"\xe9", b"\x80", b"\xbf\xbf", b"\xc0\xaf", b"\xe0\x80\xaf", b"\xe0\x82\xa9",
                b"\xf0\x8f\xbf\xbf", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xff", b"\xfe",
                b"\xf8\x88\x80\x80\x80", b"\xe4\xb8 ", b"\xf0\x9f\x98 ", b"\xc3 ")
U61_DATE_RE = r"[12][0-9]{3}-[01][0-9]-[0-3][0-9]"      # dfa-regex-lines: an ISO date
U61_DFA_WORDS_A_LINE, U61_DFA_LOG_P, U61_DFA_DATE_P, U61_DFA_NEAR_P = 14, 0.3, 0.008, 0.012
U61_DFA_NEAR = ("2024/03/15", "15.03.2024", "03-15-2024", "555-867-5309", "2024-3-15", "1999-2003",
                "978-0-13-110362-7", "2021-22", "v2024-13-A", "1234-5678", "12:30", "10-4", "4-2-1",
                "2023-1Q", "1040-EZ")
U61_CSV_FIRST = ("James", "Mary", "John", "Patricia", "Robert", "Jennifer", "Michael", "Linda", "David",
                 "Elizabeth", "William", "Barbara", "Richard", "Susan", "Joseph", "Jessica", "Thomas", "Sarah",
                 "Wei", "Priya", "Carlos", "Fatima", "Hiroshi", "Olga", "Ahmed", "Ana", "Luca", "Chloe",
                 "Mohammed", "Sofia", "Noah", "Emma", "Liam", "Olivia", "Mateo", "Aisha", "Ivan", "Yuki")
U61_CSV_LAST = ("Smith", "Johnson", "Williams", "Brown", "Jones", "Garcia", "Miller", "Davis", "Rodriguez",
                "Martinez", "Hernandez", "Lopez", "Gonzalez", "Wilson", "Anderson", "Thomas", "Taylor",
                "Moore", "Jackson", "Martin", "Lee", "Perez", "Thompson", "White", "Harris", "Sanchez",
                "Clark", "Ramirez", "Lewis", "Robinson", "Walker", "Young", "Allen", "King", "Wright",
                "Nguyen", "Chen", "Patel", "Kim", "Okafor", "Kowalski", "Rossi", "Muller", "Tanaka", "Ivanova")
U61_CSV_CITY = ("New York", "Los Angeles", "Chicago", "Houston", "Phoenix", "Philadelphia", "San Antonio",
                "San Diego", "Dallas", "Austin", "Seattle", "Denver", "Boston", "Portland", "Atlanta", "Miami",
                "Toronto", "London", "Berlin", "Madrid", "Lyon", "Osaka", "Sydney", "Nairobi", "Lima")
U61_CSV_PRODUCT = ("USB-C cable 2m", "wireless mouse", "mechanical keyboard", "27in monitor", "laptop stand",
                   "webcam HD", "noise cancelling headphones", "desk lamp", "office chair", "notebook A5",
                   "ballpoint pens (10)", "external SSD 1TB", "HDMI adapter", "phone case", "coffee mug",
                   "water bottle", "backpack", "power bank 20000mAh", "smart plug", "printer paper")
U61_CSV_STATUS = ("shipped", "delivered", "pending", "cancelled", "returned", "processing")
U61_CSV_HEADER = "order_id,order_date,customer,city,product,quantity,unit_price,discount,status,rating,comment"
U61_CSV_DISCOUNT = ("0", "0", "0", "0.05", "0.1", "0.15", "0.2", "0.25")
U61_LEV_MAX = 32
U61_LEV_KIND_P = (0.55, 0.30, 0.12, 0.03)      # levenshtein-short: words, names, addresses, one string empty
U61_LEV_STREETS = ("Maple", "Oak", "Pine", "Cedar", "Elm", "Washington", "Lincoln", "Jefferson", "Lake",
                   "Hill", "Park", "Sunset", "Riverside", "Highland", "Church", "Mill", "Spring", "Meadow")
U61_LEV_SUFFIX = ("Street", "Avenue", "Road", "Boulevard", "Lane", "Drive", "Court", "Place", "Terrace")
U61_LEV_DIRS = ("", "", "North ", "South ", "East ", "West ")
U61_LEV_RELATED, U61_LEV_EDITS = 0.7, 4       # 70% of the pairs an edited copy (up to 4 edits)
U61_RLE_PALETTE = 16                          # rle-encode-runs: palette indices 0 .. 15
U61_RLE_KINDS = ((0.55, 1, 4), (0.35, 5, 40), (0.10, 60, 600))   # (share of runs, shortest, longest)


def _u61_pool(strings):
    """Byte strings (str as UTF-8) packed for _u61_join: (the bytes (uint8), the start and
    the length (int64) of each)."""
    bs = [s.encode() if isinstance(s, str) else bytes(s) for s in strings]
    ln = np.array([len(b) for b in bs], np.int64)
    off = np.zeros(len(bs), np.int64)
    np.cumsum(ln[:-1], out=off[1:])
    return np.frombuffer(b"".join(bs), np.uint8), off, ln


def _u61_join(pool, ids):
    """The concatenation of the pool's (_u61_pool) strings ids (uint8)."""
    blob, off, ln = pool
    lens = ln[ids]
    ends = np.cumsum(lens)
    tot = int(ends[-1]) if len(ends) else 0
    it = np.int32 if tot < (1 << 31) else np.int64
    return blob[np.arange(tot, dtype=it) + np.repeat((off[ids] - (ends - lens)).astype(it), lens)]


def _u61_zipf(m):
    """Zipf-Mandelbrot probabilities over m ranks, p ~ 1 / (rank + 2.7)."""
    p = 1.0 / (np.arange(m) + 2.7)
    return p / p.sum()


def _u61_word_vocab(intl=True):
    """The words of the natural text and their probabilities: English words (Zipf by their
    order in U61_WORDS), then, with intl, Latin-1 words, CJK words and emoji
    (U61_WORD_P: 95.5 / 3 / 1 / 0.5 %, Zipf within each)."""
    groups = (U61_WORDS, U61_LATIN1, U61_CJK, U61_EMOJI) if intl else (U61_WORDS,)
    share = U61_WORD_P if intl else (1.0,)
    words = [w for g in groups for w in g]
    p = np.concatenate([s * _u61_zipf(len(g)) for g, s in zip(groups, share)])
    return words, p / p.sum()


def _u61_prose_vocab(intl, seps):
    """The words of _u61_word_vocab, the same capitalised, then the separators seps; the
    words' probabilities; which separators end a sentence."""
    words, pw = _u61_word_vocab(intl)
    caps = [w[:1].upper() + w[1:] for w in words]
    ends = np.array([x.rstrip(" \n\t").endswith((".", "?", "!")) for x in seps])
    return words + caps + list(seps), pw, ends


def _u61_prose(m, rng, pw, ps, ends):
    """m words and the separators after them as ids into a _u61_prose_vocab (int64 each):
    the words drawn by pw, capitalised at the start and after a sentence's end, the
    separators by ps."""
    nw = len(pw)
    w = rng.choice(nw, m, p=pw)
    s = rng.choice(len(ps), m, p=ps)
    return w + nw * np.r_[True, ends[s[:-1]]], 2 * nw + s


def _u61_text(nbytes, rng, intl=True):
    """nbytes of natural-looking UTF-8 text (uint8): Zipf-drawn words (_u61_word_vocab: with
    intl ~4.5% of them Latin-1, CJK or emoji), capitalised where a sentence starts, between
    separators drawn from U61_SEPS (spaces, commas, full stops with one or two spaces, the
    odd bracket or quote, line ends, paragraph breaks indented by a tab); cut at a
    character boundary, padded with spaces to nbytes."""
    seps = [s for s, _ in U61_SEPS]
    ps = np.array([p for _, p in U61_SEPS])
    ps /= ps.sum()
    vocab, pw, ends = _u61_prose_vocab(intl, seps)
    pool = _u61_pool(vocab)
    per = float(pw @ pool[2][:len(pw)] + ps @ pool[2][2 * len(pw):])
    parts, have = [], 0
    while have < nbytes:
        m = int((nbytes - have) / per * 1.03) + 16
        tok = np.empty(2 * m, np.int64)
        tok[0::2], tok[1::2] = _u61_prose(m, rng, pw, ps, ends)
        parts.append(_u61_join(pool, tok))
        have += len(parts[-1])
    t = np.concatenate(parts)[:nbytes].copy()
    k = nbytes
    while k > 0 and (t[k - 1] & 0xC0) == 0x80:      # a character cut off at the end: blank it
        k -= 1
    if k > 0 and t[k - 1] >= 0xC0:
        k -= 1
    t[k:] = ord(" ")
    return t


def _u61_utf8_corrupt(t, nbad, rng):
    """Overwrite nbad random places of the text t (in place) with one of U61_UTF8_BAD: a raw
    Latin-1 byte, stray continuation bytes, overlong forms ('/' in 2 and 3 bytes, an e-acute
    in 3, U+FFFF in 4), an encoded surrogate, a code point past U+10FFFF, bytes never in
    UTF-8 (FE, FF, a 5-byte form), sequences cut short by a space or the text's end; a place
    may cut a character it lands in, leaving its other bytes stray too.  The places (int64,
    sorted)."""
    pos = np.sort(rng.integers(0, len(t), nbad))
    for p in pos:
        b = U61_UTF8_BAD[int(rng.integers(0, len(U61_UTF8_BAD)))]
        m = min(len(b), len(t) - int(p))
        t[p:p + m] = np.frombuffer(b[:m], np.uint8)
    return pos


def _u61_utf8_args(n, rng):
    """n bytes of text (_u61_text, Latin-1, CJK and emoji among mostly ASCII) with a
    corrupted place (_u61_utf8_corrupt) every ~U61_UTF8_BAD_EVERY bytes (at least 2), n,
    the ceil(n / 64) chunk flags zeroed, the chunk count."""
    t = _u61_text(n, rng)
    _u61_utf8_corrupt(t, max(2, n // U61_UTF8_BAD_EVERY), rng)
    nch = -(-n // U61_UTF8_CHUNK)
    return [t, _i32(n), np.zeros(nch, np.uint8), _i32(nch)]


def _u61_regex_items(pat):
    """The regular expression pat of a small subset (literals, backslash escapes, \\d, \\w,
    [classes] with ranges and ^, ., quantifiers ? * + {m} {m,} {m,n}; no groups or
    alternation) as (the set of the 128 ASCII codes it takes (bool), fewest, most (None:
    unbounded)) an item."""
    def esc(ch):
        named = {"d": "0123456789", "w": "0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"}
        s = np.zeros(128, bool)
        s[[ord(c) for c in named.get(ch, ch)]] = True
        return s
    items, i = [], 0
    while i < len(pat):
        if pat[i] == "\\":
            s, i = esc(pat[i + 1]), i + 2
        elif pat[i] == "[":
            j, s = i + 1, np.zeros(128, bool)
            neg = pat[j] == "^"
            j += neg
            first = True
            while first or pat[j] != "]":
                first = False
                if pat[j] == "\\":
                    s |= esc(pat[j + 1])
                    j += 2
                elif pat[j + 1] == "-" and pat[j + 2] != "]":
                    s[ord(pat[j]):ord(pat[j + 2]) + 1] = True
                    j += 3
                else:
                    s[ord(pat[j])] = True
                    j += 1
            if neg:
                s = ~s
                s[10] = False
            i = j + 1
        elif pat[i] == ".":
            s, i = np.ones(128, bool), i + 1
            s[10] = False
        else:
            s, i = esc(pat[i]), i + 1
        lo, hi = 1, 1
        if i < len(pat) and pat[i] in "?*+":
            lo, hi = {"?": (0, 1), "*": (0, None), "+": (1, None)}[pat[i]]
            i += 1
        elif i < len(pat) and pat[i] == "{":
            j = pat.index("}", i)
            a = pat[i + 1:j].split(",")
            lo = int(a[0])
            hi = lo if len(a) == 1 else (int(a[1]) if a[1] else None)
            i = j + 1
        items.append((s, lo, hi))
    return items


def _u61_dfa(pat):
    """The DFA that finds pat (_u61_regex_items) anywhere in a line, by subset construction
    over the positions of the items written out (an item {m,n} as m required copies and
    n - m optional ones, {m,} as m and a repeated one): a state is the set of positions
    reached, position 0 kept in every set (the match may start at any byte), and every set
    holding the end merged into one absorbing accepting state.  (The transition table
    (uint8, states x 128, state 0 the start), the accepting flags (uint8, states).)"""
    elems = []
    for s, lo, hi in _u61_regex_items(pat):
        elems += [(s, "one")] * lo + ([(s, "star")] if hi is None else [(s, "opt")] * (hi - lo))
    end = len(elems)

    def close(S):
        S, stack = set(S), list(S)
        while stack:
            i = stack.pop()
            if i < end and elems[i][1] != "one" and i + 1 not in S:
                S.add(i + 1)
                stack.append(i + 1)
        return frozenset(S)

    acc = frozenset([-1])
    states = [close({0})]
    index = {states[0]: 0}
    table = []
    k = 0
    while k < len(states):
        S, row = states[k], []
        for c in range(128):
            if S == acc:
                T = acc
            else:
                T = close({0} | {i if elems[i][1] == "star" else i + 1 for i in S if i < end and elems[i][0][c]})
                T = acc if end in T else T
            if T not in index:
                index[T] = len(states)
                states.append(T)
            row.append(index[T])
        table.append(row)
        k += 1
    return np.array(table, np.uint8), np.array([S == acc for S in states], np.uint8)


def _u61_dfa_text(nlines, rng):
    """nlines lines of mixed text (uint8, each ending in '\\n') and their offsets (int32,
    nlines + 1: line i is text[off[i] : off[i + 1] - 1]): ASCII words (_u61_prose)
    between U61_SEPS separators and a line end after a word with probability
    1 / U61_DFA_WORDS_A_LINE (lines of 0 to a few hundred bytes, geometric in words; the
    paragraph breaks leave empty lines); U61_DFA_LOG_P of the lines start with a log
    timestamp ('2023-07-14 09:12:55 INFO'), U61_DFA_DATE_P of the other words are ISO
    dates and U61_DFA_NEAR_P near misses (U61_DFA_NEAR: other date formats, phone and ISBN
    numbers, ranges)."""
    seps = [s.replace("\t", "") for s, _ in U61_SEPS]
    ps = np.array([p for _, p in U61_SEPS])
    ps = (1 - 1 / U61_DFA_WORDS_A_LINE) * ps / ps.sum()
    ps[seps.index(".\n")] += 1 / U61_DFA_WORDS_A_LINE
    eol = np.array([x.endswith("\n") for x in seps])
    nd = 4000
    day = rng.integers(0, 365 * 40, nd)
    dates = [str(np.datetime64("1990-01-01") + int(d)) for d in day]
    logs = [f"{d} {int(h):02d}:{int(m):02d}:{int(s):02d} {lv}" for d, h, m, s, lv in
            zip(dates, rng.integers(0, 24, nd), rng.integers(0, 60, nd), rng.integers(0, 60, nd),
                rng.choice(["INFO", "WARN", "ERROR", "DEBUG"], nd, p=[0.6, 0.2, 0.05, 0.15]))]
    prose, pw, ends = _u61_prose_vocab(False, seps)
    vocab = prose + dates + logs + list(U61_DFA_NEAR)
    pool = _u61_pool(vocab)
    s0, d0, l0, q0 = 2 * len(pw), len(prose), len(prose) + nd, len(prose) + 2 * nd
    parts, lines = [], 0
    while lines < nlines:
        m = int((nlines - lines) * U61_DFA_WORDS_A_LINE * 1.1) + 64
        w, s = _u61_prose(m, rng, pw, ps, ends)
        u = rng.random(m)
        w = np.where(u < U61_DFA_DATE_P, d0 + rng.integers(0, nd, m), w)
        w = np.where((u >= U61_DFA_DATE_P) & (u < U61_DFA_DATE_P + U61_DFA_NEAR_P),
                     q0 + rng.integers(0, len(U61_DFA_NEAR), m), w)
        first = np.r_[True, eol[s[:-1] - s0]]               # the word starts a line
        w = np.where(first & (rng.random(m) < U61_DFA_LOG_P), l0 + rng.integers(0, nd, m), w)
        tok = np.empty(2 * m, np.int64)
        tok[0::2], tok[1::2] = w, s
        parts.append(_u61_join(pool, tok))
        lines += int((parts[-1] == 10).sum())
    t = np.concatenate(parts)
    nl = np.flatnonzero(t == 10)[:nlines]
    t = t[:nl[-1] + 1]
    off = np.zeros(nlines + 1, np.int32)
    off[1:] = nl + 1
    return t, off


def _u61_dfa_args(nlines, rng):
    """nlines lines (_u61_dfa_text), the offsets, nlines, the ISO date's DFA (_u61_dfa of
    U61_DATE_RE: 27 states), its accepting flags, the state count, the match flags zeroed."""
    t, off = _u61_dfa_text(nlines, rng)
    delta, acc = _u61_dfa(U61_DATE_RE)
    return [t, off, _i32(nlines), delta.ravel(), acc, _i32(len(acc)), np.zeros(nlines, np.uint8)]


def _u61_csv(nbytes, rng):
    """The first nbytes (uint8) of an orders export: the header U61_CSV_HEADER, then rows of
    an order number (from 1000001 on), an ISO date (2019-2024), a customer ('First Last'),
    a city, a product (some with spaces or brackets), a quantity (1-12, mostly small), a
    unit price (0.99-999.99, log-uniform, 2 decimals), a discount, a status, a rating (1-5,
    empty for 40%) and a free-text comment (0-12 ASCII words, empty for 60%); no field
    quoted (the text has no commas), the last row cut short."""
    words, pw = _u61_word_vocab(False)
    days = [str(np.datetime64("2019-01-01") + d) for d in range(6 * 365)]
    cust = [f"{a} {b}" for a in U61_CSV_FIRST for b in U61_CSV_LAST]
    cols = [[str(k) for k in range(1000, 10000)], [f"{k:03d}" for k in range(1000)], days, cust,
            list(U61_CSV_CITY), list(U61_CSV_PRODUCT), [str(k) for k in range(1, 13)],
            [f"{k // 100}.{k % 100:02d}" for k in range(99, 100000)], list(U61_CSV_DISCOUNT),
            list(U61_CSV_STATUS), [""] + [str(k) for k in range(1, 6)], words, [",", "\n", " ", ""]]
    base = np.cumsum([0] + [len(c) for c in cols])
    pool = _u61_pool([s for c in cols for s in c])
    comma, nl, sp, empty = base[12], base[12] + 1, base[12] + 2, base[12] + 3
    rows = int(nbytes / 75) + 32
    while True:
        r = np.arange(rows)
        price = np.clip(np.round(np.exp(rng.uniform(np.log(0.99), np.log(999.99), rows)) * 100), 99, 99999)
        qty = np.minimum(rng.geometric(0.45, rows), 12)
        rating = np.where(rng.random(rows) < 0.4, 0, rng.choice(5, rows, p=[0.05, 0.07, 0.15, 0.33, 0.40]) + 1)
        nw = np.where(rng.random(rows) < 0.6, 0, rng.integers(1, 13, rows))
        fields = [base[0] + (1000001 + r) // 1000 - 1000, base[1] + (1000001 + r) % 1000,
                  base[2] + rng.integers(0, len(days), rows), base[3] + rng.integers(0, len(cust), rows),
                  base[4] + rng.integers(0, len(U61_CSV_CITY), rows),
                  base[5] + rng.choice(len(U61_CSV_PRODUCT), rows, p=_u61_zipf(len(U61_CSV_PRODUCT))),
                  base[6] + qty - 1, base[7] + price.astype(np.int64) - 99,
                  base[8] + rng.integers(0, len(U61_CSV_DISCOUNT), rows),
                  base[9] + rng.choice(len(U61_CSV_STATUS), rows, p=[0.35, 0.45, 0.08, 0.05, 0.04, 0.03]),
                  base[10] + rating]
        seps = [empty, empty] + [comma] * 9               # the order number's two parts joined
        tok = np.empty((rows, 2 * len(fields) + 2 * 12 + 1), np.int64)
        for k, (f, s) in enumerate(zip(fields, seps)):
            tok[:, 2 * k], tok[:, 2 * k + 1] = s, f
        c0 = 2 * len(fields)
        tok[:, c0] = comma
        for k in range(12):                               # the comment: nw words, spaces between
            here = k < nw
            tok[:, c0 + 1 + 2 * k] = np.where(here, base[11] + rng.choice(len(words), rows, p=pw), empty)
            tok[:, c0 + 2 + 2 * k] = np.where(here & (k + 1 < nw), sp, empty)
        tok[:, -1] = nl
        head = np.frombuffer((U61_CSV_HEADER + "\n").encode(), np.uint8)
        t = np.concatenate([head, _u61_join(pool, tok.ravel())])
        if len(t) >= nbytes:
            return t[:nbytes].copy()
        rows *= 2


def _u61_csv_args(n, rng):
    """The first n bytes of an orders CSV (_u61_csv), n, the field-start positions zeroed
    (as many as there are: the host counted them), the counter zeroed."""
    t = _u61_csv(n, rng)
    nf = 1 + int(np.count_nonzero((t[:-1] == ord(",")) | (t[:-1] == ord("\n"))))
    return [t, _i32(n), np.zeros(nf, np.int32), np.zeros(1, np.int32)]


def _u61_wc_args(n, rng):
    """n bytes of text (_u61_text: mostly ASCII words, some Latin-1, CJK and emoji, double
    spaces, line and paragraph breaks, tabs), n, the counter zeroed (uint32)."""
    return [_u61_text(n, rng), _i32(n), np.zeros(1, np.uint32)]


def _u61_lev_pools(rng):
    """The strings the pairs come from, ASCII (uint8, rows of U61_LEV_MAX padded with 0)
    with their lengths, for the three kinds: English words (U61_WORDS, Zipf), names
    ('First Last', 'F. Last' or 'First M. Last' of the CSV's names) and street addresses
    ('1234 North Maple Avenue Apt 5', cut to 32 bytes); and each pool's Zipf probabilities."""
    addr = []
    for _ in range(3000):
        a = f"{int(rng.integers(1, 10000))} {rng.choice(U61_LEV_DIRS)}{rng.choice(U61_LEV_STREETS)} " \
            f"{rng.choice(U61_LEV_SUFFIX)}"
        if rng.random() < 0.4:
            a += f" Apt {int(rng.integers(1, 400))}{rng.choice(['', 'B', 'C'])}"
        addr.append(a[:U61_LEV_MAX])
    names = [f"{a} {b}" for a in U61_CSV_FIRST for b in U61_CSV_LAST]
    names += [f"{a[0]}. {b}" for a in U61_CSV_FIRST for b in U61_CSV_LAST[:15]]
    names += [f"{a} {c}. {b}" for a in U61_CSV_FIRST for b, c in zip(U61_CSV_LAST[:15], "ABCDEFGHJKLMNPR")]
    out = []
    for pool, zipf in ((U61_WORDS, True), (names, False), (addr, False)):
        m = np.zeros((len(pool), U61_LEV_MAX), np.uint8)
        ln = np.array([len(s) for s in pool], np.int64)
        for k, s in enumerate(pool):
            m[k, :len(s)] = np.frombuffer(s.encode(), np.uint8)
        p = _u61_zipf(len(pool)) if zipf else np.full(len(pool), 1 / len(pool))
        out.append((m, ln, p))
    return out


def _u61_lev_edit(m, ln, rng):
    """One random edit of each row of m (strings, padded) in place, lengths ln updated: a
    substitution (40%), a deletion (20%), an insertion (20%: not past U61_LEV_MAX) or a
    swap of two neighbours (20%), of a random lower-case letter where one goes in; rows of
    length 0 get an insertion."""
    rows, L = m.shape
    j = np.arange(L)[None, :]
    kind = rng.choice(4, rows, p=[0.4, 0.2, 0.2, 0.2])
    kind = np.where(ln == 0, 2, kind)
    kind = np.where((kind == 2) & (ln >= L), 0, kind)
    pos = (rng.random(rows) * np.maximum(ln, 1)).astype(np.int64)
    pos = np.where(kind == 2, (rng.random(rows) * (ln + 1)).astype(np.int64), pos)
    letter = rng.integers(ord("a"), ord("z") + 1, rows).astype(np.uint8)
    r = np.arange(rows)
    sub = kind == 0
    m[r[sub], pos[sub]] = letter[sub]
    dele = (kind == 1) & (ln > 0)
    src = np.where(dele[:, None] & (j >= pos[:, None]), np.minimum(j + 1, L - 1), j)
    ins = kind == 2
    src = np.where(ins[:, None] & (j > pos[:, None]), j - 1, src)
    new = m[r[:, None], src]
    new[r[ins], pos[ins]] = letter[ins]
    ln += ins.astype(np.int64) - dele.astype(np.int64)
    new[j >= ln[:, None]] = 0
    swp = (kind == 3) & (pos + 1 < ln)
    a, b = new[r[swp], pos[swp]].copy(), new[r[swp], pos[swp] + 1].copy()
    new[r[swp], pos[swp]], new[r[swp], pos[swp] + 1] = b, a
    m[:] = new


def _u61_lev_args(n, rng):
    """n string pairs as a spelling corrector and a record linker make them (ASCII, a row of
    32 bytes a string, 0 past its length; lengths int32 0-32): a string a word, a name or an
    address (_u61_lev_pools, U61_LEV_KIND_P: 55 / 30 / 12 %) and in 70% of the pairs its
    partner a copy with 0 to 4 random edits (_u61_lev_edit), in the rest another string of
    the same kind; in 3% one of the two is empty.  The pairs in random order, the distances
    zeroed, n."""
    pools = _u61_lev_pools(rng)
    kind = rng.choice(4, n, p=U61_LEV_KIND_P)
    src = np.where(kind == 3, rng.integers(0, 3, n), kind)
    A = np.zeros((n, U61_LEV_MAX), np.uint8)
    la = np.zeros(n, np.int64)
    B, lb = A.copy(), la.copy()
    for k, (m, ln, p) in enumerate(pools):
        sel = np.flatnonzero(src == k)
        ia, ib = rng.choice(len(ln), len(sel), p=p), rng.choice(len(ln), len(sel), p=p)
        A[sel], la[sel], B[sel], lb[sel] = m[ia], ln[ia], m[ib], ln[ib]
    rel = rng.random(n) < U61_LEV_RELATED
    B[rel], lb[rel] = A[rel], la[rel]
    ne = np.where(rel, rng.integers(0, U61_LEV_EDITS + 1, n), 0)
    for e in range(1, U61_LEV_EDITS + 1):
        sel = np.flatnonzero(ne >= e)
        m, ln = B[sel], lb[sel]
        _u61_lev_edit(m, ln, rng)
        B[sel], lb[sel] = m, ln
    empty = kind == 3
    side = rng.random(n) < 0.5
    A[empty & side], la[empty & side] = 0, 0
    B[empty & ~side], lb[empty & ~side] = 0, 0
    return [A.ravel(), la.astype(np.int32), B.ravel(), lb.astype(np.int32), np.zeros(n, np.int32), _i32(n)]


def _u61_rle_stream(n, rng):
    """n bytes of palette indices (uint8, 0 .. U61_RLE_PALETTE - 1) in runs, as a paletted
    bitmap's raster stream: runs of 1-4 (55%: dithering and edges), 5-40 (35%: strokes)
    and 60-600 (10%: flat areas) bytes, log-uniform within each class, each run a colour
    other than the run before's (the background colour 0 a third of the time)."""
    parts, have = [], 0
    shares = np.array([s for s, _, _ in U61_RLE_KINDS])
    while have < n:
        m = int((n - have) / 40) + 16
        k = rng.choice(len(shares), m, p=shares)
        lo = np.array([a for _, a, _ in U61_RLE_KINDS])[k]
        hi = np.array([b for _, _, b in U61_RLE_KINDS])[k]
        ln = np.floor(np.exp(rng.uniform(np.log(lo), np.log(hi + 1)))).astype(np.int64)
        parts.append(ln)
        have += int(ln.sum())
    ln = np.concatenate(parts)
    P = U61_RLE_PALETTE
    want = np.where(rng.random(len(ln)) < 1 / 3, 0, rng.integers(1, P, len(ln)))
    while True:                           # a run's colour differs from the one before
        same = np.flatnonzero(want[1:] == want[:-1]) + 1
        if len(same) == 0:
            break
        want[same] = (want[same] + rng.integers(1, P, len(same))) % P
    return np.repeat(want.astype(np.uint8), ln)[:n].copy()


def _u61_rle_args(n, rng):
    """An n-byte run stream (_u61_rle_stream), the exclusive prefix sum of its run-start
    flags (int32, the host's scan), n, the run values (uint8) and lengths (int32) zeroed,
    as many as there are runs."""
    s = _u61_rle_stream(n, rng)
    start = np.r_[True, s[1:] != s[:-1]]
    idx = (np.cumsum(start) - start).astype(np.int32)
    nr = int(start.sum())
    return [s, idx, _i32(n), np.zeros(nr, np.uint8), np.zeros(nr, np.int32)]


UNSEEN61 = [
    TimingProbe("probe/utf8-validate", "probe-unseen61", "utf8_validate", 1 << 26, 256,
                lambda n: -(-n // (U61_UTF8_CHUNK * 256)), _u61_utf8_args, source=_P63,
                note="UTF-8 validation of 64 MiB of mostly-ASCII text (Latin-1, CJK, emoji, ~1000 corrupted "
                     "places), a thread a 64-byte chunk: a byte loop (64-byte stride across a warp), a branchy "
                     "decoder of 2-4 byte sequences reading past the chunk's end, a look-back at the chunk's start"),
    TimingProbe("probe/dfa-regex-lines", "probe-unseen61", "dfa_match_lines", 1 << 20, 256,
                lambda n: -(-n // 256), _u61_dfa_args, source=_P63,
                note="an ISO-date regex's 27-state DFA over 2^20 text lines (0-560 bytes, ~47 on average, 10% "
                     "empty, ~31% matching), a thread a line: the uint8 [27][128] table copied to shared memory, "
                     "a byte load from a different line a lane and a dependent shared lookup a step, stopping at "
                     "a match"),
    TimingProbe("probe/csv-field-starts", "probe-unseen61", "csv_field_starts", 1 << 26, 256,
                lambda n: -(-n // (32 * 8 * 8)), _u61_csv_args, source=_P63,
                note="field starts of a 64 MiB orders CSV (~11 fields a row), a warp a 256-byte segment in 8 "
                     "rounds: two byte loads a lane, __ballot_sync and __popc, one atomicAdd a warp on one "
                     "counter (262144 in all), the positions stored compacted"),
    TimingProbe("probe/word-count-warp", "probe-unseen61", "word_count_warp", 1 << 25, 256,
                lambda n: -(-n // 256), _u61_wc_args, source=_P63,
                note="word count of 32 MiB of text, a thread a byte: two byte loads, space tests, a 5-step "
                     "__shfl_down_sync reduction, one atomicAdd a warp on one counter (2^20 in all)"),
    TimingProbe("probe/levenshtein-short", "probe-unseen61", "levenshtein_short", 1 << 18, 256,
                lambda n: -(-n // 256), _u61_lev_args, source=_P63,
                note="Levenshtein distance of 2^18 pairs of words, names and addresses (0-32 bytes), a thread a "
                     "pair: the two-row DP in int[33] local arrays (dynamic indices), a byte reload a cell, "
                     "divergent trip counts (a warp runs its longest pair)"),
    TimingProbe("probe/rle-encode-runs", "probe-unseen61", "rle_encode_runs", 1 << 25, 256,
                lambda n: -(-n // 256), _u61_rle_args, source=_P63,
                note="run-length encoding of a 32 MiB paletted raster stream (runs of 1-600, ~30 bytes on "
                     "average), a thread a byte: two byte loads, the run starts (~3%) scan forward to the run's "
                     "end (a warp waits for its longest run), gather their index from an int prefix array"),
]
PROBES += UNSEEN61

# probe-unseen62 (probes64.cu): a computational-finance course's CUDA assignments as a
# student who knows CUDA basics writes them, predicted before their first GPU run
_P64 = "probes64.cu"
U62_R = 0.04                                       # the risk-free rate (continuous), all probes
U62_GREEK_EXPIRIES = (7, 14, 30, 60, 91, 182, 273, 365, 548, 730)     # bs-greeks-fd: days
U62_MC_S0, U62_MC_K, U62_MC_VOL, U62_MC_T, U62_MC_STEPS = 100.0, 100.0, 0.3, 0.25, 63
U62_MC_SEED = 20240601
U62_TREE_STEPS = 1024                              # as #defined in probes64.cu
U62_BB_DAYS, U62_BB_WINDOW, U62_BB_K = 2048, 20, 2.0
U62_PF_FACTORS, U62_PF_SHORT = 20, 0.2             # portfolio-variance: factors, share of shorts
U62_OB_MID, U62_OB_LEVELS, U62_OB_DIST = 10000, 2048, 25.0
U62_OB_CANCEL, U62_OB_ODD, U62_OB_FAR = 0.08, 0.2, 0.015


def _u62_chain(n, rng):
    """n listed options on a few hundred underlyings (float32 each): spots log-uniform
    over 5-500, strikes at log-moneyness N(0, 0.15) (clipped to +-0.6) rounded to 0.5,
    expiries from U62_GREEK_EXPIRIES (days), volatilities a base of 15-60% plus a smile
    (0.25 times the squared log-moneyness over the square root of the expiry in years)."""
    nu = max(1, min(400, n // 8))
    spot = np.exp(rng.uniform(np.log(5.0), np.log(500.0), nu))
    base = rng.uniform(0.15, 0.6, nu)
    u = rng.integers(0, nu, n)
    S = spot[u]
    m = np.clip(rng.normal(0.0, 0.15, n), -0.6, 0.6)
    K = np.maximum(np.round(S * np.exp(m) * 2) / 2, 0.5)
    T = rng.choice(np.array(U62_GREEK_EXPIRIES, np.float64), n) / 365.0
    vol = base[u] + 0.25 * np.log(K / S) ** 2 / np.sqrt(T)
    return [a.astype(np.float32) for a in (S, K, T, np.minimum(vol, 1.5))]


def _u62_greeks_args(n, rng):
    """n options (_u62_chain), half of them puts (uint8 flags), the rate, the price and
    the four Greeks zeroed (float32), n."""
    S, K, T, vol = _u62_chain(n, rng)
    put = (rng.random(n) < 0.5).astype(np.uint8)
    return [S, K, T, vol, put, np.float32(U62_R)] + [np.zeros(n, np.float32) for _ in range(5)] + [_i32(n)]


def _u62_mc_args(n, rng):
    """The Asian call's terms (U62_MC_*: at the money, 30% volatility, a quarter's 63
    daily fixings), the seed, the blocks' sums and sums of squares zeroed (ceil(n / 256)),
    n paths."""
    nb = -(-n // 256)
    return [np.float32(U62_MC_S0), np.float32(U62_MC_K), np.float32(U62_R), np.float32(U62_MC_VOL),
            np.float32(U62_MC_T), _i32(U62_MC_STEPS), np.uint32(U62_MC_SEED),
            np.zeros(nb, np.float32), np.zeros(nb, np.float32), _i32(n)]


def _u62_tree_args(n, rng):
    """n American puts (float32 each): spots 20-200 (log-uniform), strikes at 0.8-1.25 of
    the spot rounded to 1, expiries 0.1-2 years, volatilities 15-60%; the rate; the prices
    zeroed; n."""
    S = np.exp(rng.uniform(np.log(20.0), np.log(200.0), n))
    K = np.maximum(np.round(S * np.exp(rng.uniform(np.log(0.8), np.log(1.25), n))), 1.0)
    T = rng.uniform(0.1, 2.0, n)
    vol = rng.uniform(0.15, 0.6, n)
    return [S.astype(np.float32), K.astype(np.float32), T.astype(np.float32), vol.astype(np.float32),
            np.float32(U62_R), np.zeros(n, np.float32), _i32(n)]


def _u62_prices(nseries, ndays, rng):
    """nseries daily close series of ndays (float64, series x days), in cents: starts
    log-uniform over 5-500, annual volatilities 15-70%, drifts N(6%, 10%), Student-t (4
    degrees of freedom) daily shocks scaled to the volatility."""
    s0 = np.exp(rng.uniform(np.log(5.0), np.log(500.0), nseries))
    vol = rng.uniform(0.15, 0.7, nseries)[:, None] / np.sqrt(252)
    mu = rng.normal(0.06, 0.1, nseries)[:, None] / 252
    z = rng.standard_t(4, (nseries, ndays)) / np.sqrt(2.0)
    z[:, 0] = 0
    logp = np.log(s0)[:, None] + np.cumsum(mu - 0.5 * vol ** 2 + vol * z, axis=1)
    return np.maximum(np.round(np.exp(logp) * 100) / 100, 0.01)


def _u62_bb_args(n, rng):
    """n closes (float32): ceil(n / U62_BB_DAYS) series (_u62_prices) one after the other,
    the last cut short; the days a series, n; the middle, upper and lower bands zeroed
    (float32), the signals zeroed (int8)."""
    ns = -(-n // U62_BB_DAYS)
    px = _u62_prices(ns, U62_BB_DAYS, rng).ravel()[:n].astype(np.float32)
    return [px, _i32(U62_BB_DAYS), _i32(n), np.zeros(n, np.float32), np.zeros(n, np.float32),
            np.zeros(n, np.float32), np.zeros(n, np.int8)]


def _u62_cov(n, rng):
    """A factor model's annual covariance of n assets (float32, n x n, row-major): loadings
    on U62_PF_FACTORS factors (the market's N(1, 0.3), the others' N(0, 0.5)), factor
    volatilities 18% (the market) and 4-10%, specific volatilities 15-45% on the diagonal."""
    B = rng.normal(0.0, 0.5, (n, U62_PF_FACTORS))
    B[:, 0] = rng.normal(1.0, 0.3, n)
    f = np.r_[0.18, rng.uniform(0.04, 0.10, U62_PF_FACTORS - 1)]
    Bf = (B * f).astype(np.float32)
    cov = Bf @ Bf.T
    cov[np.diag_indices(n)] += (rng.uniform(0.15, 0.45, n) ** 2).astype(np.float32)
    return cov


def _u62_pf_args(n, rng):
    """n assets' covariance (_u62_cov) flattened, the weights (float32: gamma-distributed
    sizes, U62_PF_SHORT of them short, summing to 1), n, (cov w) zeroed, the variance zeroed."""
    cov = _u62_cov(n, rng)
    w = rng.gamma(0.5, 1.0, n) * np.where(rng.random(n) < U62_PF_SHORT, -1.0, 1.0)
    w /= w.sum()
    return [cov.ravel(), w.astype(np.float32), _i32(n), np.zeros(n, np.float32), np.zeros(1, np.float32)]


def _u62_orders(n, rng):
    """n limit orders (int32 price ticks, int32 sizes, uint8 sides 0 bid / 1 ask) around a
    mid of U62_OB_MID ticks: bids 1 + Exp(U62_OB_DIST) ticks below it (floored), asks as
    far above, U62_OB_FAR of them at a stale price uniform over half to one and a half
    times the mid; sizes round lots (100 x Geometric(0.45)), U62_OB_ODD odd lots of 1-99
    shares, U62_OB_CANCEL zero (cancelled)."""
    side = (rng.random(n) < 0.5).astype(np.uint8)
    dist = 1 + np.floor(rng.exponential(U62_OB_DIST, n)).astype(np.int64)
    price = np.where(side == 1, U62_OB_MID + dist, U62_OB_MID - dist)
    far = rng.random(n) < U62_OB_FAR
    price[far] = rng.integers(U62_OB_MID // 2, U62_OB_MID * 3 // 2, int(far.sum()))
    u = rng.random(n)
    qty = np.where(u < U62_OB_CANCEL, 0,
                   np.where(u < U62_OB_CANCEL + U62_OB_ODD, rng.integers(1, 100, n),
                            100 * rng.geometric(0.45, n)))
    return price.astype(np.int32), qty.astype(np.int32), side


def _u62_ob_args(n, rng):
    """n orders (_u62_orders), n, the book's lowest tick (U62_OB_LEVELS / 2 below the mid)
    and its level count, the depths (uint64, 2 x levels) and order counts (uint32) zeroed,
    the dropped counter zeroed."""
    price, qty, side = _u62_orders(n, rng)
    L = U62_OB_LEVELS
    return [price, qty, side, _i32(n), _i32(U62_OB_MID - L // 2), _i32(L), np.zeros(2 * L, np.uint64),
            np.zeros(2 * L, np.uint32), np.zeros(1, np.uint32)]


UNSEEN62 = [
    TimingProbe("probe/bs-greeks-fd", "probe-unseen62", "bs_greeks_fd", 1 << 22, 256, lambda n: -(-n // 256),
                _u62_greeks_args, source=_P64,
                note="Black-Scholes price and finite-difference Greeks of 2^22 calls and puts, a thread an "
                     "option: six inlined closed-form prices (logf, sqrtf, expf, two erff each, a divergent "
                     "call/put branch), 4 coalesced float loads and a byte, 5 float stores"),
    TimingProbe("probe/asian-mc-xorshift", "probe-unseen62", "asian_call_mc", 1 << 20, 256,
                lambda n: -(-n // 256), _u62_mc_args, source=_P64,
                note="Monte Carlo arithmetic Asian call, 2^20 paths of 63 daily fixings, a thread a path: "
                     "xorshift32 and Box-Muller (logf, sqrtf, cosf) and an expf a step, no memory in the loop, "
                     "then a two-array shared tree reduction (9 barriers) and two stores a block"),
    TimingProbe("probe/american-put-tree", "probe-unseen62", "american_put_binomial", 2048, 256, lambda n: n,
                _u62_tree_args, source=_P64,
                note="American puts on a 1024-step CRR binomial tree, 2048 options, a 256-thread block an "
                     "option: ping-pong float columns in shared memory (8 KiB), one barrier a step, each node a "
                     "shared pair load, an expf for its spot and an fmaxf against early exercise"),
    TimingProbe("probe/bollinger-bands", "probe-unseen62", "bollinger_bands", 1 << 24, 256,
                lambda n: -(-n // 256), _u62_bb_args, source=_P64,
                note="20-day Bollinger bands of 2^24 closes (8192 series of 2048 days), a thread a close: "
                     "integer modulo, 20 overlapping float loads (L1 hits) summed with squares, a sqrtf, three "
                     "float stores and a byte signal"),
    TimingProbe("probe/portfolio-variance-warp", "probe-unseen62", "portfolio_variance_warp", 8192, 256,
                lambda n: -(-n // 8), _u62_pf_args, source=_P64,
                note="portfolio variance w^T Sigma w over an 8192 x 8192 float covariance (256 MiB), a warp "
                     "a row: 256 coalesced row loads and weight loads (L1/L2) a lane, a 5-step "
                     "__shfl_xor_sync sum, one float atomicAdd a warp on one address (8192 in all)"),
    TimingProbe("probe/orderbook-depth", "probe-unseen62", "orderbook_depth", 1 << 24, 256,
                lambda n: -(-n // 256), _u62_ob_args, source=_P64,
                note="order-book depth of 2^24 limit orders into 2 x 2048 price levels, a thread an order: "
                     "three loads, a uint64 and a uint32 global atomicAdd on skewed levels (exponential in "
                     "the distance from the mid), ~1.5% dropped to one counter, 8% cancelled"),
]
PROBES += UNSEEN62

# probe-unseen63 (probes65.cu): an audio / signal-processing course's CUDA assignments as a
# student who knows CUDA basics writes them, predicted before their first GPU run
_P65 = "probes65.cu"
U63_FS = 48000                                     # the audio's sample rate, Hz
U63_SEG = 4096                                     # _u63_audio: samples a segment (tone, noise or silence)
U63_FIR_TAPS, U63_FIR_CUTOFF = 63, 4000.0          # fir-const-tile: as #defined; the low-pass cutoff, Hz
U63_BQ_SAMPLES, U63_BQ_SECTIONS = 256, 4           # biquad-cascade: samples a channel; NSEC
U63_FFT_N = 256                                    # fft256-shared: points a frame
U63_RMS_FRAME, U63_RMS_HOP = 1024, 512             # frame-rms-hann: as #defined
U63_ZCR_FRAME = 512                                # zcr-ballot: as #defined
U63_MEL_FS, U63_MEL_BINS, U63_MEL_BANDS = 16000, 513, 64   # mel-filterbank: a 1024-point FFT's bins


def _u63_audio(n, rng):
    """n samples (float32, within +-1) of segments of U63_SEG: 50% voiced tones (a
    fundamental of 80-400 Hz and its 2nd and 3rd harmonics, amplitudes 0.05-0.8, a little
    noise), 30% noise (white, 0.02-0.3 rms), 20% near-silence (1e-4 rms noise)."""
    nseg = -(-n // U63_SEG)
    kind = rng.choice(3, nseg, p=[0.5, 0.3, 0.2])
    f0 = rng.uniform(80.0, 400.0, nseg)
    amp = np.where(kind == 0, rng.uniform(0.05, 0.8, nseg), 0.0)
    nsd = np.choose(kind, [0.005 * np.ones(nseg), rng.uniform(0.02, 0.3, nseg), 1e-4 * np.ones(nseg)])
    seg = np.arange(n) // U63_SEG
    ph = 2 * np.pi * np.repeat(f0 / U63_FS, U63_SEG)[:n] * np.arange(n)
    x = np.repeat(amp, U63_SEG)[:n] * (0.6 * np.sin(ph) + 0.25 * np.sin(2 * ph + 1.0) + 0.15 * np.sin(3 * ph + 2.0))
    x += nsd[seg] * rng.standard_normal(n)
    return np.clip(x, -1.0, 1.0).astype(np.float32)


def _u63_fir_taps():
    """A Hamming-windowed sinc low-pass of U63_FIR_TAPS taps, cutoff U63_FIR_CUTOFF at
    U63_FS, unit gain at DC (float32)."""
    m = np.arange(U63_FIR_TAPS) - (U63_FIR_TAPS - 1) / 2
    fc = U63_FIR_CUTOFF / U63_FS
    h = 2 * fc * np.sinc(2 * fc * m) * np.hamming(U63_FIR_TAPS)
    return (h / h.sum()).astype(np.float32)


def _u63_fir_args(n, rng):
    """n samples of audio (_u63_audio), the output zeroed, n."""
    return [_u63_audio(n, rng), np.zeros(n, np.float32), _i32(n)]


def _u63_peaking(f0, gain_db, q, fs=U63_FS):
    """RBJ's peaking-EQ biquads (arrays of centre frequencies, gains in dB, Qs): (..., 5)
    float64 b0, b1, b2, a1, a2, normalized by a0."""
    A = 10 ** (gain_db / 40)
    w0 = 2 * np.pi * f0 / fs
    alpha = np.sin(w0) / (2 * q)
    cw = np.cos(w0)
    a0 = 1 + alpha / A
    return np.stack([(1 + alpha * A) / a0, -2 * cw / a0, (1 - alpha * A) / a0, -2 * cw / a0,
                     (1 - alpha / A) / a0], axis=-1)


def _u63_bq_args(n, rng):
    """n // U63_BQ_SAMPLES channels of U63_BQ_SAMPLES samples (float32, interleaved: sample
    t of channel c at t * nch + c), each a tone of 50-5000 Hz (amplitude 0.1-0.5) plus noise
    (0.01-0.1 rms); each channel's U63_BQ_SECTIONS peaking EQs (centres 60-12000 Hz
    log-uniform, gains -12..12 dB, Qs 0.5-4) flattened (float32, channel x section x 5);
    the output zeroed; nch, the samples a channel."""
    nch, ns = n // U63_BQ_SAMPLES, U63_BQ_SAMPLES
    f = np.exp(rng.uniform(np.log(50.0), np.log(5000.0), nch))
    a = rng.uniform(0.1, 0.5, nch)
    ph = rng.uniform(0, 2 * np.pi, nch)
    t = np.arange(ns)[:, None]
    x = a * np.sin(2 * np.pi * f / U63_FS * t + ph) + rng.uniform(0.01, 0.1, nch) * rng.standard_normal((ns, nch))
    sh = (nch, U63_BQ_SECTIONS)
    sos = _u63_peaking(np.exp(rng.uniform(np.log(60.0), np.log(12000.0), sh)), rng.uniform(-12.0, 12.0, sh),
                       rng.uniform(0.5, 4.0, sh))
    return [x.astype(np.float32).ravel(), sos.astype(np.float32).ravel(), np.zeros(ns * nch, np.float32),
            _i32(nch), _i32(ns)]


def _u63_fft_args(n, rng):
    """n complex points (interleaved float32: a stereo pair of _u63_audio, left the real
    parts and right the imaginary ones), the output zeroed (2n floats), n // U63_FFT_N frames."""
    x = np.empty(2 * n, np.float32)
    x[0::2] = _u63_audio(n, rng)
    x[1::2] = _u63_audio(n, rng)
    return [x, np.zeros(2 * n, np.float32), _i32(n // U63_FFT_N)]


def _u63_rms_frames(n):
    return max(0, (n - U63_RMS_FRAME) // U63_RMS_HOP + 1)


def _u63_rms_args(n, rng):
    """n samples of audio (_u63_audio), the frames (U63_RMS_FRAME long, U63_RMS_HOP apart)
    that fit, the RMS and dB levels zeroed (float32)."""
    nf = _u63_rms_frames(n)
    return [_u63_audio(n, rng), _i32(nf), np.zeros(nf, np.float32), np.zeros(nf, np.float32)]


def _u63_zcr_args(n, rng):
    """n samples of audio (_u63_audio), n // U63_ZCR_FRAME frames, their rates zeroed."""
    nf = n // U63_ZCR_FRAME
    return [_u63_audio(n, rng), _i32(nf), np.zeros(nf, np.float32)]


def _u63_mel_bank():
    """The U63_MEL_BANDS triangular mel filters (HTK's mel scale, 0 to U63_MEL_FS / 2,
    unit peaks) on U63_MEL_BINS bins, sparse: first bins, lengths and offsets (int32) and
    the packed weights (float32)."""
    mel = lambda f: 2595 * np.log10(1 + f / 700)
    imel = lambda m: 700 * (10 ** (m / 2595) - 1)
    edges = imel(np.linspace(0, mel(U63_MEL_FS / 2), U63_MEL_BANDS + 2)) / (U63_MEL_FS / 2) * (U63_MEL_BINS - 1)
    start, length, off, w = [], [], [], []
    for m in range(U63_MEL_BANDS):
        lo, c, hi = edges[m:m + 3]
        k = np.arange(int(np.floor(lo)) + 1, int(np.ceil(hi)))
        wk = np.where(k <= c, (k - lo) / (c - lo), (hi - k) / (hi - c))
        start.append(k[0])
        length.append(len(k))
        off.append(sum(length[:-1]))
        w.append(wk)
    return (np.array(start, np.int32), np.array(length, np.int32), np.array(off, np.int32),
            np.concatenate(w).astype(np.float32))


def _u63_mel_args(n, rng):
    """n // U63_MEL_BANDS frames' power spectra (float32, frame x U63_MEL_BINS): a spectral
    tilt (1 + k / 8)^-1.5 times a frame gain log-uniform over 1e-6-1 times exponential
    (chi-squared, 2 degrees of freedom) fluctuations; the filterbank (_u63_mel_bank); the
    log-mel energies zeroed (n), n."""
    nf = n // U63_MEL_BANDS
    tilt = (1 + np.arange(U63_MEL_BINS) / 8.0) ** -1.5
    g = np.exp(rng.uniform(np.log(1e-6), 0.0, nf)).astype(np.float32)
    P = rng.standard_exponential((nf, U63_MEL_BINS), np.float32) * tilt.astype(np.float32) * g[:, None]
    return [P.ravel(), *_u63_mel_bank(), np.zeros(n, np.float32), _i32(n)]


UNSEEN63 = [
    TimingProbe("probe/fir-const-tile", "probe-unseen63", "fir_const_tile", 1 << 23, 256, lambda n: -(-n // 256),
                _u63_fir_args, source=_P65, symbols=lambda n, rng: {"c_taps": _u63_fir_taps()},
                note="63-tap FIR low-pass over 2^23 samples, a thread an output: a 318-float shared tile (1-2 "
                     "coalesced loads a thread, one barrier), then 63 FMAs each with a uniform __constant__ tap "
                     "and a conflict-free shared load, one coalesced store"),
    TimingProbe("probe/biquad-cascade", "probe-unseen63", "biquad_cascade", 1 << 23, 256,
                lambda n: -(-(n // U63_BQ_SAMPLES) // 256), _u63_bq_args, source=_P65,
                note="8th-order IIR equalizer (4 biquads, transposed DF-II) on 32768 channels of 256 samples, a "
                     "thread a channel (128 blocks, under one wave): 20 coefficients in registers, a sequential "
                     "loop of a coalesced load, a 4-section dependent FMA chain and a store a sample"),
    TimingProbe("probe/fft256-shared", "probe-unseen63", "fft256_shared", 1 << 24, 128, lambda n: n // U63_FFT_N,
                _u63_fft_args, source=_P65,
                note="256-point complex FFTs of 2^24 float2 points (65536 frames), a 128-thread block a frame: "
                     "a bit-reversed (__brev) scatter into shared memory, 8 radix-2 stages of one butterfly a "
                     "thread (sincosf twiddle, integer div/mod, 2 float2 shared loads and stores, a barrier)"),
    TimingProbe("probe/frame-rms-hann", "probe-unseen63", "frame_rms_hann", 1 << 25, 256, _u63_rms_frames,
                _u63_rms_args, source=_P65,
                note="short-time RMS / dBFS of 2^25 samples in Hann-windowed 1024-sample frames at a 512 hop "
                     "(65535 frames), a 256-thread block a frame: 4 cosf-windowed squares a thread (each sample "
                     "read twice, the second often from L2), an 8-barrier shared tree, sqrtf and log10f"),
    TimingProbe("probe/zcr-ballot", "probe-unseen63", "zcr_ballot", 1 << 26, 256,
                lambda n: -(-(n // U63_ZCR_FRAME) // 8), _u63_zcr_args, source=_P65,
                note="zero-crossing rate of 2^26 samples in 512-sample frames, a warp a frame: 16 steps of two "
                     "coalesced float loads (the second shifted by one, mostly L1 hits), a sign compare, "
                     "__ballot_sync and __popc; one store a warp"),
    TimingProbe("probe/mel-filterbank", "probe-unseen63", "mel_filterbank", 1 << 23, 256, lambda n: -(-n // 256),
                _u63_mel_args, source=_P65,
                note="64-band log-mel energies of 131072 power spectra of 513 bins (268 MiB), a thread a "
                     "(frame, band): the band's start/length/offset loads, a loop of 3-42 weight x bin products "
                     "(trip counts diverging across a warp's 32 bands), a logf and one store"),
]
PROBES += UNSEEN63

# probe-unseen64 (probes66.cu): a databases / query-processing course's GPU operators as a
# student who knows CUDA basics writes them, predicted before their first GPU run
_P66 = "probes66.cu"
U64_QTY_MAX, U64_DISC_MAX = 50, 10                 # select-q6-ballot: quantity 1..50, discount 0..10 (%)
U64_SEL_QMAX, U64_SEL_DLO, U64_SEL_DHI = 24, 5, 7  # quantity < 24, discount within 5..7 (~12.5% kept)
U64_KEY_RANGE = 1 << 30                            # build keys: distinct in [0, 2^30); misses above
U64_PROBE_RATIO, U64_MATCH = 4, 0.5                # hash-probe-count: probe rows a build row; the share matching
U64_NGROUPS, U64_ZIPF_S = 64, 1.1                  # groupby64-smem: NGROUPS; the groups' Zipf exponent
U64_GB_BLOCKS = 1024                               # its grid's cap (a grid-stride loop beyond)
U64_RP_BUCKETS, U64_RP_TILE = 256, 4096            # radix-part-hist: as #defined
U64_BM_VALUES = 16                                 # bitmap-index-or: BM_VALUES


def _u64_hash(k):
    """The murmur3 finalizer of each key (as hash32 in probes66.cu): uint32."""
    h = np.asarray(k).astype(np.uint32)
    h ^= h >> np.uint32(16)
    h *= np.uint32(0x85EBCA6B)
    h ^= h >> np.uint32(13)
    h *= np.uint32(0xC2B2AE35)
    h ^= h >> np.uint32(16)
    return h


def _u64_cap(nbuild):
    """The hash table's slots for nbuild keys: the power of two >= 2 nbuild (load <= 1/2)."""
    return 1 << max(1, int(2 * nbuild - 1).bit_length())


def _u64_keys(m, rng):
    """m distinct keys drawn uniformly from [0, U64_KEY_RANGE), in random order (int32)."""
    return rng.choice(U64_KEY_RANGE, int(m), replace=False).astype(np.int32)


def _u64_table(keys, cap):
    """The linear-probing table (tkeys, tvals: int32, cap slots, -1 empty) of the distinct
    keys, tvals the keys' row ids, built in rounds: every unplaced key tries its current
    slot, the lowest row among those trying a free slot takes it, the rest move on one."""
    mask = cap - 1
    tk = np.full(cap, -1, np.int32)
    tv = np.full(cap, -1, np.int32)
    h = (_u64_hash(keys) & np.uint32(mask)).astype(np.int64)
    pend = np.arange(len(keys))
    while len(pend):
        slot = h[pend]
        free = np.flatnonzero(tk[slot] == -1)
        _, first = np.unique(slot[free], return_index=True)
        won = free[first]
        tk[slot[won]] = keys[pend[won]]
        tv[slot[won]] = pend[won]
        left = np.ones(len(pend), bool)
        left[won] = False
        pend = pend[left]
        h[pend] = (h[pend] + 1) & mask
    return tk, tv


def _u64_sel_args(n, rng):
    """A lineitem-like table of n rows: quantity uniform 1..U64_QTY_MAX and discount
    uniform 0..U64_DISC_MAX (int32); the row ids out (n, zeroed), the counter; the bounds."""
    qty = rng.integers(1, U64_QTY_MAX + 1, n).astype(np.int32)
    disc = rng.integers(0, U64_DISC_MAX + 1, n).astype(np.int32)
    return [qty, disc, np.zeros(n, np.int32), np.zeros(1, np.int32), _i32(U64_SEL_QMAX), _i32(U64_SEL_DLO),
            _i32(U64_SEL_DHI), _i32(n)]


def _u64_build_args(n, rng):
    """n distinct build keys (_u64_keys), the empty table (_u64_cap(n) slots of keys and
    row ids, -1), its mask, n."""
    cap = _u64_cap(n)
    return [_u64_keys(n, rng), np.full(cap, -1, np.int32), np.full(cap, -1, np.int32), _i32(cap - 1), _i32(n)]


def _u64_probe_args(n, rng):
    """n probe keys against the table (_u64_table) of max(1, n // U64_PROBE_RATIO) build
    keys: a share U64_MATCH of them a build key drawn uniformly (foreign keys), the rest
    from [U64_KEY_RANGE, 2^31 - 1) (no match); the table, its mask; the match ids (n,
    zeroed), the counter; n."""
    nb = max(1, n // U64_PROBE_RATIO)
    bkeys = _u64_keys(nb, rng)
    cap = _u64_cap(nb)
    tk, tv = _u64_table(bkeys, cap)
    hit = rng.random(n) < U64_MATCH
    keys = np.where(hit, bkeys[rng.integers(0, nb, n)], rng.integers(U64_KEY_RANGE, 2 ** 31 - 1, n))
    return [keys.astype(np.int32), tk, tv, _i32(cap - 1), np.zeros(n, np.int32), np.zeros(1, np.uint32), _i32(n)]


def _u64_zipf_groups(n, rng):
    """n group ids in 0..U64_NGROUPS-1, Zipf-distributed (the rank-r group's weight
    r^-U64_ZIPF_S, the hottest ~25% of the rows), the ranks shuffled over the ids (int32)."""
    w = np.arange(1, U64_NGROUPS + 1, dtype=np.float64) ** -U64_ZIPF_S
    ids = rng.permutation(U64_NGROUPS)
    return ids[rng.choice(U64_NGROUPS, n, p=w / w.sum())].astype(np.int32)


def _u64_gb_args(n, rng):
    """n rows: the group ids (_u64_zipf_groups) and prices in cents uniform 1..100000
    (int32); the sums (uint64) and counts (uint32) of the U64_NGROUPS groups zeroed; n."""
    return [_u64_zipf_groups(n, rng), rng.integers(1, 100001, n).astype(np.int32),
            np.zeros(U64_NGROUPS, np.uint64), np.zeros(U64_NGROUPS, np.uint32), _i32(n)]


def _u64_rp_grid(n):
    return -(-n // U64_RP_TILE)


def _u64_rp_args(n, rng):
    """n hashed join keys (_u64_hash of random ints below 2^30: uniform 32-bit), the
    bucket x block histogram matrix zeroed (uint32), n."""
    keys = _u64_hash(rng.integers(0, U64_KEY_RANGE, n))
    return [keys, np.zeros(U64_RP_BUCKETS * _u64_rp_grid(n), np.uint32), _i32(n)]


def _u64_bm_args(n, rng):
    """A low-cardinality column of n rows (values 0..U64_BM_VALUES-1, value v's weight
    0.7^v, rows in random order: int32); the U64_BM_VALUES bitmaps of ceil(n / 32) words
    zeroed (uint32), the words a bitmap, n."""
    w = 0.7 ** np.arange(U64_BM_VALUES)
    nw = -(-n // 32)
    return [rng.choice(U64_BM_VALUES, n, p=w / w.sum()).astype(np.int32),
            np.zeros(U64_BM_VALUES * nw, np.uint32), _i32(nw), _i32(n)]


UNSEEN64 = [
    TimingProbe("probe/select-q6-ballot", "probe-unseen64", "select_ballot", 1 << 24, 256, lambda n: -(-n // 256),
                _u64_sel_args, source=_P66,
                note="TPC-H Q6-style selection over 2^24 rows of two int columns (~12.5% kept), a thread a row: "
                     "two coalesced loads, __ballot_sync, one atomicAdd a warp on a single counter (shfl'd), "
                     "the kept row ids stored packed at __popc offsets"),
    TimingProbe("probe/hash-build-cas", "probe-unseen64", "hash_build", 1 << 22, 256, lambda n: -(-n // 256),
                _u64_build_args, source=_P66,
                note="hash-join build of 2^22 distinct int keys into a 2^23-slot open-addressing table (load "
                     "1/2, 32 MiB of keys and row ids), a thread a key: murmur3 hash, atomicCAS at scattered "
                     "slots with linear probing (~1.5 tries), a scattered store of the row id"),
    TimingProbe("probe/hash-probe-count", "probe-unseen64", "hash_probe", 1 << 24, 256, lambda n: -(-n // 256),
                _u64_probe_args, source=_P66,
                note="hash-join probe of 2^24 int keys (half matching) against a host-built 2^23-slot table of "
                     "2^22 keys, a thread a key: dependent scattered loads along its linear-probing chain "
                     "(lengths diverging in a warp), the match id stored, a ballot + one atomicAdd a warp"),
    TimingProbe("probe/groupby64-smem", "probe-unseen64", "groupby_sum", 1 << 24, 256,
                lambda n: min(-(-n // 256), U64_GB_BLOCKS), _u64_gb_args, source=_P66,
                note="group-by SUM/COUNT of 2^24 rows into 64 Zipf-skewed groups (the hottest ~25% of rows), "
                     "1024 blocks grid-striding: a 64-bit and a 32-bit shared atomicAdd a row (same-address "
                     "conflicts in a warp), then 2 global atomics a group a block"),
    TimingProbe("probe/radix-part-hist", "probe-unseen64", "radix_part_hist", 1 << 24, 256, _u64_rp_grid,
                _u64_rp_args, source=_P66,
                note="radix-partition histogram pass over 2^24 uniform hashed keys, a block a 4096-key tile: 16 "
                     "coalesced loads and shared atomicAdds on 256 top-byte buckets a thread, the block's "
                     "histogram stored uncombined as a column of a 256 x 4096 matrix (stride 4096 words)"),
    TimingProbe("probe/bitmap-index-or", "probe-unseen64", "bitmap_index", 1 << 24, 256, lambda n: -(-n // 256),
                _u64_bm_args, source=_P66,
                note="bitmap-index build over a 2^24-row column of 16 skewed values (0.7^v), a thread a row: "
                     "one coalesced load and a global atomicOr on its value's 32-bit word (a warp's 32 atomics "
                     "on ~8 words), 16 bitmaps of 2^19 words"),
]
PROBES += UNSEEN64

# probe-unseen65 (probes67.cu): a robotics course's CUDA assignments (localization, mapping,
# manipulation) as a student who knows CUDA basics writes them, predicted before their first
# GPU run
_P67 = "probes67.cu"
U65_PF_LM = 32                                     # pf-landmark-weight: PF_LM landmarks, one measurement each
U65_PF_WORLD = 20.0                                # landmarks uniform in [0, 20 m)^2
U65_PF_POSE = (8.0, 11.0, 0.7)                     # the robot's true pose (m, m, rad)
U65_PF_NOISE = (0.05, 0.01)                        # the measurements' noise (range m, bearing rad)
U65_PF_SIG_R, U65_PF_SIG_B = 0.2, 0.05             # the sensor model's (inflated) widths (m, rad)
U65_PF_SPREAD = (0.15, 0.15, 0.03)                 # the particles' spread about the true pose
U65_RS_SIG = (0.05, 0.05, 0.01)                    # pf-systematic-resample: the weights' likelihood widths
U65_OG_RES, U65_OG_SIDE = 0.05, 1024               # occgrid-bresenham-atomic: 5 cm cells, a 1024^2 grid
U65_OG_ORIGIN = -25.6                              # the grid's corner (x and y, m): it spans [-25.6, 25.6)
U65_OG_BEAMS = 1024                                # beams a scan, over 360 degrees
U65_OG_ROOM = (10.0, 7.0)                          # the room's half extents (m)
U65_OG_PATH = (6.0, 3.5)                           # the scans' poses on an ellipse of these semi-axes
U65_OG_NOISE = 0.01                                # range noise (m)
U65_OG_FREE, U65_OG_OCC = -4, 9                    # OG_FREE, OG_OCC as #defined
U65_ICP_TILE = 256                                 # icp-nn-shared: ICP_TILE (== the block)
U65_ICP_ROT, U65_ICP_SHIFT = 3.0, (0.10, -0.05, 0.02)  # the source's offset: degrees about z, metres
U65_ROOM = (4.0, 3.0, 2.5)                         # room clouds: half length, half width, height (m)
U65_CLOUD_NOISE = 0.005                            # their noise (m)
U65_VOX_LEAF = 0.05                                # voxel-downsample-atomic: 5 cm voxels
U65_FK_DOF = 7                                     # fk-jacobian-7dof: FK_DOF
# the KUKA LBR iiwa 7 R800's standard DH table (a, d in m; alpha in rad) and joint limits (deg)
U65_FK_A = (0.0,) * 7
U65_FK_D = (0.34, 0.0, 0.40, 0.0, 0.40, 0.0, 0.126)
U65_FK_ALPHA = (-np.pi / 2, np.pi / 2, np.pi / 2, -np.pi / 2, -np.pi / 2, np.pi / 2, 0.0)
U65_FK_LIMITS = (170, 120, 170, 120, 170, 120, 175)


def _u65_wrap(a):
    """Angles wrapped into [-pi, pi)."""
    return (np.asarray(a) + np.pi) % (2 * np.pi) - np.pi


def _u65_particles(n, rng, spread=U65_PF_SPREAD):
    """n particles (x, y, theta: float32 each) drawn about U65_PF_POSE with spreads
    `spread`, theta wrapped into [-pi, pi)."""
    x0, y0, t0 = U65_PF_POSE
    px = x0 + spread[0] * rng.standard_normal(n)
    py = y0 + spread[1] * rng.standard_normal(n)
    pth = _u65_wrap(t0 + spread[2] * rng.standard_normal(n))
    return px.astype(np.float32), py.astype(np.float32), pth.astype(np.float32)


def _u65_pf_args(n, rng):
    """n particles (_u65_particles), the weights out (n) and their sum (1) zeroed, the
    inverse variances of range and bearing, n."""
    px, py, pth = _u65_particles(n, rng)
    return [px, py, pth, np.zeros(n, np.float32), np.zeros(1, np.float32),
            np.float32(1 / U65_PF_SIG_R ** 2), np.float32(1 / U65_PF_SIG_B ** 2), _i32(n)]


def _u65_pf_symbols(n, rng):
    """U65_PF_LM landmarks uniform in the world and their range and bearing from the true
    pose with Gaussian noise U65_PF_NOISE (bearings wrapped): c_lm_x, c_lm_y, c_z_r, c_z_b
    (float32)."""
    lx, ly = rng.uniform(0, U65_PF_WORLD, (2, U65_PF_LM))
    x0, y0, t0 = U65_PF_POSE
    r = np.hypot(lx - x0, ly - y0) + U65_PF_NOISE[0] * rng.standard_normal(U65_PF_LM)
    b = _u65_wrap(np.arctan2(ly - y0, lx - x0) - t0 + U65_PF_NOISE[1] * rng.standard_normal(U65_PF_LM))
    return {"c_lm_x": lx.astype(np.float32), "c_lm_y": ly.astype(np.float32),
            "c_z_r": r.astype(np.float32), "c_z_b": b.astype(np.float32)}


def _u65_rs_args(n, rng):
    """n particles (_u65_particles) and their weights' CDF (float32; the weights a
    Gaussian likelihood of their offsets from the true pose, widths U65_RS_SIG: an
    effective sample size of ~8% of n), the new set and parent ids out (zeroed), u0
    uniform in [0, 1), n."""
    px, py, pth = _u65_particles(n, rng)
    x0, y0, t0 = U65_PF_POSE
    s = U65_RS_SIG
    ll = ((px - x0) / s[0]) ** 2 + ((py - y0) / s[1]) ** 2 + (_u65_wrap(pth - t0) / s[2]) ** 2
    w = np.exp(-0.5 * (ll.astype(np.float64) - ll.min()))
    cdf = np.cumsum(w) / w.sum()
    return [cdf.astype(np.float32), px, py, pth, np.zeros(n, np.float32), np.zeros(n, np.float32),
            np.zeros(n, np.float32), np.zeros(n, np.int32), np.float32(rng.random()), _i32(n)]


def _u65_og_pillars():
    """The room's 14 round pillars (x, y, radius), off the scans' path: 6 on an inner
    ellipse, 8 on an outer one."""
    a = np.arange(6) * np.pi / 3 + 0.3
    b = np.arange(8) * np.pi / 4 + 0.2
    x = np.r_[3.0 * np.cos(a), 8.3 * np.cos(b)]
    y = np.r_[1.5 * np.sin(a), 5.5 * np.sin(b)]
    r = np.r_[np.full(6, 0.4), np.full(8, 0.3)]
    return x, y, r


def _u65_og_cast(px, py, ang):
    """The range from (px, py) along angles ang to the nearest wall of the room (half
    extents U65_OG_ROOM, centred on 0) or pillar (_u65_og_pillars)."""
    c, s = np.cos(ang), np.sin(ang)
    X, Y = U65_OG_ROOM
    with np.errstate(divide="ignore"):
        tx = np.where(c > 0, (X - px) / c, np.where(c < 0, (-X - px) / c, np.inf))
        ty = np.where(s > 0, (Y - py) / s, np.where(s < 0, (-Y - py) / s, np.inf))
    t = np.minimum(tx, ty)
    for cx, cy, r in zip(*_u65_og_pillars()):
        ux, uy = cx - px, cy - py
        bb = ux * c + uy * s
        disc = bb * bb - (ux * ux + uy * uy - r * r)
        th = bb - np.sqrt(np.maximum(disc, 0.0))
        t = np.where((disc >= 0) & (th > 0), np.minimum(t, th), t)
    return t


def _u65_og_scans(n, rng):
    """n lidar beams (float32 x, y pairs of their hits, world coordinates) of ceil(n /
    U65_OG_BEAMS) scans taken along the path ellipse (the sensor's positions: float32
    pairs), each scan's U65_OG_BEAMS beams evenly over 360 degrees from a random heading,
    ranges to the room's walls and pillars with Gaussian noise U65_OG_NOISE."""
    ns = -(-n // U65_OG_BEAMS)
    phi = np.sort(rng.uniform(0, 2 * np.pi, ns))
    sx = U65_OG_PATH[0] * np.cos(phi) + 0.2 * rng.standard_normal(ns)
    sy = U65_OG_PATH[1] * np.sin(phi) + 0.2 * rng.standard_normal(ns)
    scan = np.arange(n) // U65_OG_BEAMS
    ang = rng.uniform(0, 2 * np.pi, ns)[scan] + (np.arange(n) % U65_OG_BEAMS) * (2 * np.pi / U65_OG_BEAMS)
    r = _u65_og_cast(sx[scan], sy[scan], ang) + U65_OG_NOISE * rng.standard_normal(n)
    hit = np.stack([sx[scan] + r * np.cos(ang), sy[scan] + r * np.sin(ang)], 1)
    return hit.astype(np.float32).ravel(), np.stack([sx, sy], 1).astype(np.float32).ravel()


def _u65_og_args(n, rng):
    """n beams' hits and their scans' sensor positions (_u65_og_scans), the grid's log-odds
    (U65_OG_SIDE^2 int32) zeroed, beams a scan, the grid's corner, cells a metre, its
    width and height, n."""
    hit, org = _u65_og_scans(n, rng)
    return [hit, org, np.zeros(U65_OG_SIDE * U65_OG_SIDE, np.int32), _i32(U65_OG_BEAMS),
            np.float32(U65_OG_ORIGIN), np.float32(U65_OG_ORIGIN), np.float32(1 / U65_OG_RES),
            _i32(U65_OG_SIDE), _i32(U65_OG_SIDE), _i32(n)]


def _u65_room_cloud(m, rng):
    """m points (float32, m x 3) of a depth scan of a room: its floor, four walls (half
    extents U65_ROOM[:2], height U65_ROOM[2], centred on 0) and a 1 m cube on the floor at
    (1.5, 1), sampled uniformly by area, with Gaussian noise U65_CLOUD_NOISE, in random order."""
    X, Y, H = U65_ROOM
    # (origin, edge u, edge v) of each face
    faces = [((-X, -Y, 0), (2 * X, 0, 0), (0, 2 * Y, 0)),
             ((-X, -Y, 0), (2 * X, 0, 0), (0, 0, H)), ((-X, Y, 0), (2 * X, 0, 0), (0, 0, H)),
             ((-X, -Y, 0), (0, 2 * Y, 0), (0, 0, H)), ((X, -Y, 0), (0, 2 * Y, 0), (0, 0, H)),
             ((1.0, 0.5, 1.0), (1, 0, 0), (0, 1, 0)),
             ((1.0, 0.5, 0), (1, 0, 0), (0, 0, 1)), ((1.0, 1.5, 0), (1, 0, 0), (0, 0, 1)),
             ((1.0, 0.5, 0), (0, 1, 0), (0, 0, 1)), ((2.0, 0.5, 0), (0, 1, 0), (0, 0, 1))]
    o, u, v = (np.array([f[k] for f in faces], np.float64) for k in range(3))
    area = np.linalg.norm(np.cross(u, v), axis=1)
    f = rng.choice(len(faces), m, p=area / area.sum())
    st = rng.random((m, 2))
    p = o[f] + st[:, :1] * u[f] + st[:, 1:] * v[f] + U65_CLOUD_NOISE * rng.standard_normal((m, 3))
    return p.astype(np.float32)


def _u65_icp_args(n, rng):
    """n source points (a room cloud, _u65_room_cloud, turned U65_ICP_ROT degrees about z
    and shifted U65_ICP_SHIFT: the scan before alignment) and as many target points (another
    cloud of the room), flattened float32; nearest ids and squared distances out (zeroed)."""
    a = np.radians(U65_ICP_ROT)
    rot = np.array([[np.cos(a), -np.sin(a), 0], [np.sin(a), np.cos(a), 0], [0, 0, 1]])
    src = _u65_room_cloud(n, rng).astype(np.float64) @ rot.T + np.array(U65_ICP_SHIFT)
    dst = _u65_room_cloud(n, rng)
    return [src.astype(np.float32).ravel(), _i32(n), dst.ravel(), _i32(n), np.zeros(n, np.int32),
            np.zeros(n, np.float32)]


def _u65_vox_grid(pts):
    """The voxel grid of a cloud (m x 3 float32): its lower corner (the points' minima,
    float32) and the voxels a side (gx, gy, gz) of U65_VOX_LEAF covering the points."""
    lo = pts.min(axis=0)
    inv = np.float32(1 / U65_VOX_LEAF)
    dims = np.floor((pts.max(axis=0) - lo) * inv).astype(np.int64) + 1
    return lo, tuple(int(d) for d in dims)


def _u65_vox_args(n, rng):
    """n points of a room cloud (_u65_room_cloud, flattened); the voxel sums (x, y, z:
    float32) and counts (int32) of its grid (_u65_vox_grid, ~1.1 M voxels) zeroed; the
    grid's corner, voxels a metre, dimensions; n."""
    pts = _u65_room_cloud(n, rng)
    lo, (gx, gy, gz) = _u65_vox_grid(pts)
    nv = gx * gy * gz
    return [pts.ravel(), np.zeros(nv, np.float32), np.zeros(nv, np.float32), np.zeros(nv, np.float32),
            np.zeros(nv, np.int32), lo[0], lo[1], lo[2], np.float32(1 / U65_VOX_LEAF), _i32(gx), _i32(gy),
            _i32(gz), _i32(n)]


def _u65_fk_args(n, rng):
    """n joint configurations uniform within the joint limits (n x 7 float32, radians,
    flattened); the poses (n x 12) and Jacobians (n x 42) out zeroed; n."""
    lim = np.radians(np.array(U65_FK_LIMITS, np.float64))
    q = rng.uniform(-lim, lim, (n, U65_FK_DOF))
    return [q.astype(np.float32).ravel(), np.zeros(12 * n, np.float32), np.zeros(42 * n, np.float32), _i32(n)]


def _u65_fk_symbols(n, rng):
    """The DH table: c_dh_a, c_dh_d, c_dh_ca, c_dh_sa (float32; cos and sin of alpha rounded
    to 0 and +-1 where they are)."""
    al = np.array(U65_FK_ALPHA)
    return {"c_dh_a": np.array(U65_FK_A, np.float32), "c_dh_d": np.array(U65_FK_D, np.float32),
            "c_dh_ca": np.round(np.cos(al), 12).astype(np.float32),
            "c_dh_sa": np.round(np.sin(al), 12).astype(np.float32)}


UNSEEN65 = [
    TimingProbe("probe/pf-landmark-weight", "probe-unseen65", "pf_weight", 1 << 20, 256, lambda n: -(-n // 256),
                _u65_pf_args, source=_P67, symbols=_u65_pf_symbols,
                note="particle-filter measurement update of 2^20 particles (SoA x, y, theta) against 32 landmarks "
                     "in __constant__ memory, a thread a particle: a sqrtf, an atan2f and a bearing wrapped by "
                     "while loops a landmark, one expf; the weights summed by 5 __shfl_down_sync a warp and one "
                     "float atomicAdd a warp on a single word"),
    TimingProbe("probe/pf-systematic-resample", "probe-unseen65", "systematic_resample", 1 << 22, 256,
                lambda n: -(-n // 256), _u65_rs_args, source=_P67,
                note="systematic resampling of 2^22 particles, a thread an output particle: a 22-step binary "
                     "search of (u0 + i) / n in the weights' 16 MiB CDF (dependent loads, the top levels shared by "
                     "every thread), then 3 gathers of the chosen particle's x, y, theta (a few heavy particles "
                     "chosen by many neighbouring threads) and 4 coalesced stores"),
    TimingProbe("probe/occgrid-bresenham-atomic", "probe-unseen65", "occgrid_update", 1 << 17, 256,
                lambda n: -(-n // 256), _u65_og_args, source=_P67,
                note="occupancy-grid update from 128 lidar scans of 1024 beams in a 20 x 14 m room with pillars, "
                     "a thread a beam: Bresenham's line from the sensor's cell to the hit's over a 1024^2 int "
                     "log-odds grid (5 cm cells, ~125 cells a beam, lengths diverging in a warp), an int atomicAdd "
                     "a cell (a warp's lanes mostly on the same cell near the sensor)"),
    TimingProbe("probe/icp-nn-shared", "probe-unseen65", "icp_nearest", 1 << 14, 256, lambda n: -(-n // 256),
                _u65_icp_args, source=_P67,
                note="ICP correspondences: brute-force nearest neighbour of 2^14 source points among 2^14 target "
                     "points (float3), a thread a source point, the targets staged through shared memory 256 at "
                     "a time: 3 broadcast shared loads, 3 subtracts, a dot and a compare-select a pair (2^28 pairs)"),
    TimingProbe("probe/voxel-downsample-atomic", "probe-unseen65", "voxel_accumulate", 1 << 22, 256,
                lambda n: -(-n // 256), _u65_vox_args, source=_P67,
                note="voxel-grid downsample of a 2^22-point room cloud (float3, random order) into 5 cm voxels "
                     "of a dense 161 x 121 x 51 grid (1 M voxels), a thread a point: 3 floorf, then 3 float and 1 "
                     "int global atomicAdd on its voxel's sums and count (~50 K voxels hit, ~85 points each)"),
    TimingProbe("probe/fk-jacobian-7dof", "probe-unseen65", "fk_jacobian", 1 << 20, 256, lambda n: -(-n // 256),
                _u65_fk_args, source=_P67, symbols=_u65_fk_symbols,
                note="forward kinematics and geometric Jacobian of a 7-DOF arm (KUKA iiwa DH table in __constant__) "
                     "for 2^20 joint configurations, a thread one: 7 sincosf and 3x3 rotation products, 7 cross "
                     "products; strided stores of a 3x4 pose and a 6x7 Jacobian a thread (216 B, uncoalesced)"),
]
PROBES += UNSEEN65

# probe-unseen66 (probes68.cu): a computational-neuroscience course's spiking and rate
# network kernels as a student who knows CUDA basics writes them, predicted before their
# first GPU run
_P68 = "probes68.cu"
U66_LIF_DT_TAU = 0.05                              # lif-euler-refrac: dt 0.5 ms over tau_m 10 ms
U66_LIF_VREST, U66_LIF_VRESET, U66_LIF_VTH = -65.0, -70.0, -50.0   # mV
U66_LIF_RM, U66_LIF_TREF = 1.0, 4                  # R_m (I in mV); refractory steps (2 ms)
U66_LIF_I_MEAN, U66_LIF_I_SD = 25.0, 8.0           # the input currents' normal law
U66_LIF_REFRAC = 0.1                               # the share of neurons refractory (1 .. t_ref steps left)
U66_IZ_EXC = 0.8                                   # izhikevich-ballot: the excitatory share (the first ones)
U66_IZ_UPSTROKE = 0.03                             # the share caught on a spike's upstroke (v in -45 .. 25)
U66_HH_PARAMS = (120.0, 36.0, 0.3, 50.0, -77.0, -54.387, 1.0, 0.01)  # c_hh: gNa gK gL ENa EK EL Cm dt
U66_HH_I_MEAN, U66_HH_I_SD = 10.0, 3.0             # hh-expeuler-const: injected currents (uA/cm^2)
U66_HH_POOL, U66_HH_POOL_DT = 128, 0.025           # the neurons and ms step of the host's trajectory pool
U66_FANOUT = 100                                   # syn-csr-atomic, stdp-traces: mean synapses a neuron
U66_SPIKE_P = 0.03                                 # the share of neurons that spiked this step
U66_INH = 0.2                                      # syn-csr-atomic: the inhibitory share (the last ones)
U66_W_EXC, U66_W_INH, U66_W_Q = 0.5, 2.0, 1.0 / 1024   # weights: uniform (0, 0.5] / [-2, 0), multiples of 2^-10
U66_STDP_AP, U66_STDP_AM, U66_STDP_WMAX = 0.01, 0.012, 1.0   # stdp-traces: A+, A-, w_max
U66_STDP_TRACE = 0.2                               # the traces' mean (exponential law)
U66_RN_TILE, U66_RN_G = 256, 1.5                   # ratenet-smem-tile: RN_TILE; W's gain (N(0, g^2 / N))
U66_RN_DT_TAU, U66_RN_GAIN = 0.1, 1.0


def _u66_lif_args(n, rng):
    """n LIF neurons: v uniform in [v_reset, v_th) (float32), a share U66_LIF_REFRAC
    refractory (1 .. t_ref steps left, the rest 0: int32), input currents normal
    (U66_LIF_I_MEAN, U66_LIF_I_SD); the spike flags (uint8, zeroed); the constants, n."""
    v = rng.uniform(U66_LIF_VRESET, U66_LIF_VTH, n).astype(np.float32)
    ref = np.where(rng.random(n) < U66_LIF_REFRAC, rng.integers(1, U66_LIF_TREF + 1, n), 0).astype(np.int32)
    cur = rng.normal(U66_LIF_I_MEAN, U66_LIF_I_SD, n).astype(np.float32)
    return [v, ref, cur, np.zeros(n, np.uint8), np.float32(U66_LIF_DT_TAU), np.float32(U66_LIF_VREST),
            np.float32(U66_LIF_VRESET), np.float32(U66_LIF_VTH), np.float32(U66_LIF_RM), _i32(U66_LIF_TREF),
            _i32(n)]


def _u66_iz_args(n, rng):
    """n Izhikevich neurons as in Izhikevich (2003): the first U66_IZ_EXC of them
    excitatory (regular spiking to chattering, r uniform: a 0.02, b 0.2, c -65 + 15 r^2,
    d 8 - 6 r^2; thalamic input 5 N(0, 1)), the rest inhibitory (a 0.02 + 0.08 r, b 0.25 -
    0.05 r, c -65, d 2; input 2 N(0, 1)); v near rest (N(-65, 3)) but a share
    U66_IZ_UPSTROKE on a spike's upstroke (uniform in -45 .. 25), u = b v; all float32;
    the spike list (n, zeroed) and its counter; n."""
    ne = int(round(n * U66_IZ_EXC))
    exc = np.arange(n) < ne
    r = rng.random(n)
    a = np.where(exc, 0.02, 0.02 + 0.08 * r)
    b = np.where(exc, 0.2, 0.25 - 0.05 * r)
    c = np.where(exc, -65 + 15 * r * r, -65.0)
    d = np.where(exc, 8 - 6 * r * r, 2.0)
    cur = np.where(exc, 5.0, 2.0) * rng.standard_normal(n)
    v = np.where(rng.random(n) < U66_IZ_UPSTROKE, rng.uniform(-45, 25, n), rng.normal(-65, 3, n))
    f = np.float32
    return [v.astype(f), (b * v).astype(f), a.astype(f), b.astype(f), c.astype(f), d.astype(f), cur.astype(f),
            np.zeros(n, np.int32), np.zeros(1, np.int32), _i32(n)]


def _u66_hh_rates(v):
    """The HH rates (alpha_m, beta_m, alpha_h, beta_h, alpha_n, beta_n) at v (mV), as
    hh_step computes them (vtrap), in float64."""
    def vtrap(x, y):
        small = np.abs(x / y) < 1e-6
        return np.where(small, y * (1 - x / y / 2), x / np.expm1(np.where(small, 1.0, x / y)))
    return (0.1 * vtrap(-(v + 40), 10.0), 4 * np.exp(-(v + 65) / 18), 0.07 * np.exp(-(v + 65) / 20),
            1 / (1 + np.exp(-(v + 35) / 10)), 0.01 * vtrap(-(v + 55), 10.0), 0.125 * np.exp(-(v + 65) / 80))


def _u66_hh_sim(v, m, h, nn, cur, dt, steps, params=U66_HH_PARAMS):
    """steps steps of dt of hh_step's scheme on the HH neurons (float64); the states after
    and the upward crossings of 0 mV of each."""
    gna, gk, gl, ena, ek, el, cm = params[:7]
    v, m, h, nn = (np.array(x, np.float64) for x in (v, m, h, nn))
    count = np.zeros(v.shape, np.int64)
    for _ in range(steps):
        am, bm, ah, bh, an, bn = _u66_hh_rates(v)
        m = am / (am + bm) + (m - am / (am + bm)) * np.exp(-dt * (am + bm))
        h = ah / (ah + bh) + (h - ah / (ah + bh)) * np.exp(-dt * (ah + bh))
        nn = an / (an + bn) + (nn - an / (an + bn)) * np.exp(-dt * (an + bn))
        vn = v + dt * (cur - gna * m ** 3 * h * (v - ena) - gk * nn ** 4 * (v - ek) - gl * (v - el)) / cm
        count += (v < 0) & (vn >= 0)
        v = vn
    return v, m, h, nn, count


_U66_HH_POOL = []


def _u66_hh_pool():
    """The states (V, m, h, n, I: float64) of U66_HH_POOL HH neurons (I normal
    (U66_HH_I_MEAN, U66_HH_I_SD), started at rest) every 4 steps of U66_HH_POOL_DT ms
    from 15 ms to 50 ms: snapshots of tonically firing neurons (computed once)."""
    if not _U66_HH_POOL:
        rng = np.random.default_rng(66)
        k = U66_HH_POOL
        cur = rng.normal(U66_HH_I_MEAN, U66_HH_I_SD, k)
        v = np.full(k, -65.0)
        rates = _u66_hh_rates(v)
        m, h, nn = (rates[2 * g] / (rates[2 * g] + rates[2 * g + 1]) for g in range(3))
        snaps = []
        for s in range(int(round(50 / U66_HH_POOL_DT))):
            v, m, h, nn, _ = _u66_hh_sim(v, m, h, nn, cur, U66_HH_POOL_DT, 1)
            if s * U66_HH_POOL_DT >= 15 and s % 4 == 0:
                snaps.append(np.stack([v, m, h, nn, cur]))
        _U66_HH_POOL.append(np.concatenate(snaps, axis=1))
    return _U66_HH_POOL[0]


def _u66_hh_args(n, rng):
    """n HH neurons, each the state (V, m, h, n: float32) and current (I) of a snapshot
    drawn from _u66_hh_pool; the spike counts (int32, zeroed); n."""
    pool = _u66_hh_pool()
    s = pool[:, rng.integers(0, pool.shape[1], n)].astype(np.float32)
    return [s[0].copy(), s[1].copy(), s[2].copy(), s[3].copy(), s[4].copy(), np.zeros(n, np.int32), _i32(n)]


def _u66_hh_syms(n, rng):
    return {"c_hh": np.array(U66_HH_PARAMS, np.float32)}


def _u66_weights(nexc, ninh, rng):
    """nexc excitatory synapses' weights uniform in (0, U66_W_EXC], then ninh inhibitory
    ones' in [-U66_W_INH, 0), multiples of U66_W_Q (sums of a few hundred exact in float32)."""
    q = np.r_[rng.integers(1, int(U66_W_EXC / U66_W_Q) + 1, nexc, dtype=np.int32),
              -rng.integers(1, int(U66_W_INH / U66_W_Q) + 1, ninh, dtype=np.int32)]
    return q.astype(np.float32) * np.float32(U66_W_Q)


def _u66_csr_args(n, rng):
    """n neurons with Poisson (U66_FANOUT) out-degrees, each synapse's target uniform
    (row_ptr int32 n + 1, post int32), weights (_u66_weights: the last U66_INH of the
    neurons inhibitory); spike flags (uint8, a share U66_SPIKE_P set); the input currents
    zeroed (float32); n."""
    deg = rng.poisson(U66_FANOUT, n)
    row_ptr = np.zeros(n + 1, np.int64)
    np.cumsum(deg, out=row_ptr[1:])
    nsyn = int(row_ptr[-1])
    post = rng.integers(0, n, nsyn, dtype=np.int32)
    first_inh = int(row_ptr[n - int(round(n * U66_INH))])
    w = _u66_weights(first_inh, nsyn - first_inh, rng)
    spk = (rng.random(n) < U66_SPIKE_P).astype(np.uint8)
    return [spk, row_ptr.astype(np.int32), post, w, np.zeros(n, np.float32), _i32(n)]


def _u66_stdp_args(n, rng):
    """n synapses among max(1, n // U66_FANOUT) neurons, sorted by source (the sources'
    degrees multinomial: ~Poisson), targets uniform (int32); weights uniform in [0, w_max)
    (float32); pre- and postsynaptic traces exponential (mean U66_STDP_TRACE, float32),
    spike flags (uint8, a share U66_SPIKE_P); A+, A-, w_max, n."""
    nn = max(1, n // U66_FANOUT)
    deg = rng.multinomial(n, np.full(nn, 1.0 / nn))
    pre = np.repeat(np.arange(nn, dtype=np.int32), deg)
    post = rng.integers(0, nn, n, dtype=np.int32)
    w = rng.uniform(0, U66_STDP_WMAX, n).astype(np.float32)
    x = rng.exponential(U66_STDP_TRACE, nn).astype(np.float32)
    y = rng.exponential(U66_STDP_TRACE, nn).astype(np.float32)
    spk = (rng.random(nn) < U66_SPIKE_P).astype(np.uint8)
    return [w, pre, post, x, y, spk, np.float32(U66_STDP_AP), np.float32(U66_STDP_AM), np.float32(U66_STDP_WMAX),
            _i32(n)]


def _u66_rn_args(n, rng):
    """A rate network of n units: W (n x n, row-major) N(0, U66_RN_G^2 / n) (the chaotic
    regime), rates uniform in (-0.5, 0.5), inputs N(0, 0.1^2), all float32; the new rates
    (zeroed); dt/tau, gain, n."""
    W = (rng.standard_normal((n, n), np.float32) * np.float32(U66_RN_G / np.sqrt(n))).ravel()
    r = rng.uniform(-0.5, 0.5, n).astype(np.float32)
    return [W, r, (0.1 * rng.standard_normal(n)).astype(np.float32), np.zeros(n, np.float32),
            np.float32(U66_RN_DT_TAU), np.float32(U66_RN_GAIN), _i32(n)]


UNSEEN66 = [
    TimingProbe("probe/lif-euler-refrac", "probe-unseen66", "lif_step", 1 << 24, 256, lambda n: -(-n // 256),
                _u66_lif_args, source=_P68,
                note="leaky integrate-and-fire update of 2^24 neurons, a thread a neuron: v and the refractory "
                     "counter loaded, the 10% refractory ones reset without loading their input current, the "
                     "rest one Euler FMA step and a threshold test (~2.5% spike), v, counter and a spike byte "
                     "stored"),
    TimingProbe("probe/izhikevich-ballot", "probe-unseen66", "izhikevich_step", 1 << 22, 256,
                lambda n: -(-n // 256), _u66_iz_args, source=_P68,
                note="Izhikevich network update of 2^22 neurons (80% excitatory), a thread a neuron: 7 coalesced "
                     "loads, 4 sub-steps of the quadratic v / linear u Euler updates with a reset branch (~2.5% "
                     "fire), the firing neurons compacted into a spike list by __ballot_sync, one atomicAdd a "
                     "warp and __popc"),
    TimingProbe("probe/hh-expeuler-const", "probe-unseen66", "hh_step", 1 << 20, 256, lambda n: -(-n // 256),
                _u66_hh_args, source=_P68, symbols=_u66_hh_syms,
                note="Hodgkin-Huxley update of 2^20 tonically firing neurons, a thread a neuron: 10 sub-steps of "
                     "exponential Euler on m, h, n (9 expf, 2 vtrap branches and ~13 float divisions a "
                     "sub-step) and forward Euler on V with __constant__ conductances, counting 0 mV crossings "
                     "(~0.6% a step); compute-bound"),
    TimingProbe("probe/syn-csr-atomic", "probe-unseen66", "propagate_csr", 1 << 19, 256, lambda n: -(-n // 256),
                _u66_csr_args, source=_P68,
                note="spike propagation over 2^19 neurons with ~100 random targets each (52M synapses, CSR), a "
                     "thread a neuron: only the ~3% that spiked (about one lane a warp) walk their row serially, "
                     "a target and a weight load (contiguous along the lane's row) and a scattered float "
                     "atomicAdd a synapse"),
    TimingProbe("probe/stdp-traces", "probe-unseen66", "stdp_update", 1 << 24, 256, lambda n: -(-n // 256),
                _u66_stdp_args, source=_P68,
                note="pair-based STDP over 2^24 synapses of 167772 neurons (COO sorted by source), a thread a "
                     "synapse: coalesced pre/post index loads, two byte gathers of spike flags (source runs, "
                     "random targets), then only for the ~6% with a spiking end a weight load, trace gathers, "
                     "FMAs, a clip and a store"),
    TimingProbe("probe/ratenet-smem-tile", "probe-unseen66", "rate_step", 8192, U66_RN_TILE,
                lambda n: -(-n // U66_RN_TILE), _u66_rn_args, source=_P68,
                note="one Euler step of a dense 8192-unit rate network (256 MiB W, row-major), a thread a row "
                     "(32 blocks only): the rates staged through a 256-float shared tile (2 barriers a tile), "
                     "each thread's loads walking its own row (32 rows, 32 lines a warp load), tanhf at the end"),
]
PROBES += UNSEEN66

# probe-unseen67 (probes69.cu): a quantum-computing course's state-vector simulator as a
# student who knows CUDA basics writes it (single-precision complex amplitudes, float2;
# double reductions and sampling table), predicted before its first GPU run
_P69 = "probes69.cu"
U67_GATE_TARGET = 2                                # gate1q-const: the target qubit (partners 32 bytes apart)
U67_CNOT_CONTROL = 0                               # cnot-ctrl-skip: the control qubit (the target: the top one)
U67_HT_LOG = 10                                    # hadamard-smem-tile: HT_LOG (the tile 2^10 amplitudes)
U67_EZ_BLOCK = 256                                 # expect-z-shfl: EZ_BLOCK
U67_EZ_ZSHARE = 0.5                                # the chance a qubit is in the Pauli-Z string
U67_SHOTS_DIV = 16                                 # sample-bsearch: shots = amplitudes / 16
U67_QAOA_DEG, U67_QAOA_GAMMA = 3, 0.8              # qaoa-phase-sincos: a random 3-regular graph; gamma
U67_QAOA_MAX_EDGES = 128                           # QAOA_MAX_EDGES


def _u67_state(n, rng):
    """A random state of n amplitudes (complex normal, normalized: Haar-random) as
    interleaved float32 (cuFloatComplex: re, im)."""
    z = rng.standard_normal(2 * n, np.float32)
    z64 = z.astype(np.float64)
    z /= np.float32(np.sqrt(z64 @ z64))
    return z


def _u67_nq(n):
    """The number of qubits of an n-amplitude state (n a power of 2)."""
    nq = int(n).bit_length() - 1
    assert n == 1 << nq, n
    return nq


def _u67_gate1q_args(n, rng):
    """A random state of n amplitudes; the target qubit U67_GATE_TARGET; n / 2 pairs."""
    return [_u67_state(n, rng), _i32(U67_GATE_TARGET), _i32(n // 2)]


def _u67_u3(theta, phi, lam):
    """The U3(theta, phi, lambda) gate (complex128 2x2)."""
    c, s = np.cos(theta / 2), np.sin(theta / 2)
    return np.array([[c, -np.exp(1j * lam) * s], [np.exp(1j * phi) * s, np.exp(1j * (phi + lam)) * c]])


def _u67_gate1q_syms(n, rng):
    """c_gate_re, c_gate_im: a U3 gate of random angles (theta uniform in (0, pi), phi and
    lambda in (0, 2 pi)), row-major, float32."""
    u = _u67_u3(rng.uniform(0, np.pi), rng.uniform(0, 2 * np.pi), rng.uniform(0, 2 * np.pi)).ravel()
    return {"c_gate_re": u.real.astype(np.float32), "c_gate_im": u.imag.astype(np.float32)}


def _u67_cnot_args(n, rng):
    """A random state of n amplitudes; control qubit U67_CNOT_CONTROL, target the top qubit;
    n / 2 pairs."""
    return [_u67_state(n, rng), _i32(U67_CNOT_CONTROL), _i32(_u67_nq(n) - 1), _i32(n // 2)]


def _u67_ht_args(n, rng):
    """A random state of n amplitudes (n a multiple of the 2^U67_HT_LOG tile)."""
    assert n % (1 << U67_HT_LOG) == 0, n
    return [_u67_state(n, rng)]


def _u67_ez_args(n, rng):
    """A random state of n amplitudes; a Pauli-Z string's mask (each qubit in it with chance
    U67_EZ_ZSHARE, at least one; uint32); the result (float64, zeroed); n."""
    nq = _u67_nq(n)
    bits = rng.random(nq) < U67_EZ_ZSHARE
    bits[rng.integers(0, nq)] = True
    mask = np.uint32(int(np.sum(bits.astype(np.int64) << np.arange(nq))))
    return [_u67_state(n, rng), mask, np.zeros(1, np.float64), _i32(n)]


def _u67_sample_args(n, rng):
    """The inclusive prefix sum (float64) of a random n-amplitude state's probabilities
    (the state float32 as the simulator holds it, |a|^2 summed in float64); n / U67_SHOTS_DIV
    uniform numbers in [0, 1) (float64); the shots (int32, zeroed); n, the shot count."""
    z = _u67_state(n, rng).astype(np.float64)
    cdf = np.cumsum(z[0::2] ** 2 + z[1::2] ** 2)
    ns = max(1, n // U67_SHOTS_DIV)
    return [cdf, rng.random(ns), np.zeros(ns, np.int32), _i32(n), _i32(ns)]


def _u67_regular_graph(nv, deg, rng):
    """A random simple deg-regular graph on nv vertices (the pairing model, redrawn until
    it has no loop and no double edge): its edges (u < v) as an int (E, 2) array."""
    assert nv * deg % 2 == 0 and nv > deg, (nv, deg)
    while True:
        pts = rng.permutation(np.repeat(np.arange(nv), deg)).reshape(-1, 2)
        e = np.sort(pts, axis=1)
        if (e[:, 0] != e[:, 1]).all() and len(np.unique(e[:, 0] * nv + e[:, 1])) == len(e):
            return e


def _u67_qaoa_args(n, rng):
    """A random state of n amplitudes; the edge count of a U67_QAOA_DEG-regular graph on
    the nq qubits; gamma U67_QAOA_GAMMA (float32); n."""
    return [_u67_state(n, rng), _i32(_u67_nq(n) * U67_QAOA_DEG // 2), np.float32(U67_QAOA_GAMMA), _i32(n)]


def _u67_qaoa_syms(n, rng):
    """c_edge_u, c_edge_v: a random U67_QAOA_DEG-regular graph on the nq qubits (int32,
    zero-padded to U67_QAOA_MAX_EDGES)."""
    e = _u67_regular_graph(_u67_nq(n), U67_QAOA_DEG, rng)
    u, v = np.zeros(U67_QAOA_MAX_EDGES, np.int32), np.zeros(U67_QAOA_MAX_EDGES, np.int32)
    u[:len(e)], v[:len(e)] = e[:, 0], e[:, 1]
    return {"c_edge_u": u, "c_edge_v": v}


UNSEEN67 = [
    TimingProbe("probe/qsim-gate1q-const", "probe-unseen67", "apply_gate_1q", 1 << 25, 256,
                lambda n: -(-(n // 2) // 256), _u67_gate1q_args, source=_P69, symbols=_u67_gate1q_syms,
                note="a general single-qubit gate (U3, 2x2 complex in __constant__ re/im arrays) on qubit 2 of "
                     "a 25-qubit float2 state (256 MiB), a thread an amplitude pair: the index with a zero "
                     "inserted at bit 2, two 8-byte loads 32 bytes apart (a warp's two loads covering alternate "
                     "32-byte runs of the same lines), 4 complex multiply-adds, two stores; in place"),
    TimingProbe("probe/qsim-cnot-skip", "probe-unseen67", "apply_cnot", 1 << 25, 256,
                lambda n: -(-(n // 2) // 256), _u67_cnot_args, source=_P69,
                note="CNOT (control qubit 0, target the top qubit 24) on a 25-qubit float2 state, a thread a "
                     "target pair: the even-index half of every warp returns at once, the odd lanes swap two "
                     "amplitudes 128 MiB apart (every other 8 bytes of each line read and written)"),
    TimingProbe("probe/qsim-hadamard-smem-tile", "probe-unseen67", "hadamard_low_tile", 1 << 25,
                (1 << U67_HT_LOG) // 2, lambda n: n >> U67_HT_LOG, _u67_ht_args, source=_P69,
                note="Hadamards on the 10 low qubits of a 25-qubit float2 state in one pass, a block of 512 "
                     "threads a 1024-amplitude tile in shared memory (8 KiB): 10 radix-2 butterfly stages (a "
                     "pair a thread a stage, strides 1 .. 512 amplitudes, 4 multiplies by 1/sqrt 2) each ending "
                     "in a barrier; coalesced load and store of the tile"),
    TimingProbe("probe/qsim-expect-z-shfl", "probe-unseen67", "expect_z", 1 << 25, U67_EZ_BLOCK,
                lambda n: -(-n // U67_EZ_BLOCK), _u67_ez_args, source=_P69,
                note="the expectation value of a Pauli-Z string on a 25-qubit float2 state, a thread an "
                     "amplitude: |a|^2 in double, its sign the parity of __popc(index & mask), a double "
                     "__shfl_down_sync warp sum, warp sums through shared memory, a second warp's shuffle sum "
                     "and one double atomicAdd a block (131072 onto one address)"),
    TimingProbe("probe/qsim-sample-bsearch", "probe-unseen67", "sample_shots", 1 << 24, 256,
                lambda n: -(-max(1, n // U67_SHOTS_DIV) // 256), _u67_sample_args, source=_P69,
                note="2^20 measurement shots of a 24-qubit state, a thread a shot: a 24-step binary search "
                     "of its uniform double in the 128 MiB double prefix sum of the probabilities (dependent "
                     "gathers: the top levels shared by all shots and cached, the deep ones random lines)"),
    TimingProbe("probe/qsim-qaoa-phase-sincos", "probe-unseen67", "qaoa_cost_phase", 1 << 24, 256,
                lambda n: -(-n // 256), _u67_qaoa_args, source=_P69, symbols=_u67_qaoa_syms,
                note="QAOA's MaxCut cost layer on a 24-qubit float2 state (random 3-regular graph, 36 edges in "
                     "__constant__ memory), a thread an amplitude: a 36-trip loop of two uniform constant loads, "
                     "shifts and xors counting the cut edges, sincosf of -gamma cut, a complex multiply; "
                     "compute-bound"),
]
PROBES += UNSEEN67

# probe-unseen68 (probes70.cu): a geospatial / climate-modelling course's raster, terrain,
# advection and column-physics kernels as a student who knows CUDA basics writes them,
# predicted before their first GPU run
_P70 = "probes70.cu"
U68_CS = 30.0                                      # the DEMs' cell size (m)
U68_TERRAIN_SIGMA, U68_TERRAIN_H = 40.0, 0.8       # the terrain's roughness: sd (m) at 1 km spacing, Hurst exponent
U68_SEA = 0.2                                      # the share of a DEM at sea level (0 m, flat)
U68_ZONE_CELLS = 16384                             # zonal-stats-atomic: mean cells a zone (Voronoi regions)
U68_ZONE_BLOCK = 8                                 # the zones' boundaries follow a grid of 8 x 8 cells
U68_NODATA = -9999.0                               # zonal-stats-atomic: the sea cells' value
U68_IDW_NST = 1024                                 # idw-smem-stations: stations
U68_IDW_TILE = 256                                 # IDW_TILE (blocks of 16 x 16)
U68_SL_DT = 300.0                                  # semilag-latlon: the step (s) at 4096 latitudes (scaled as 1 / n)
U68_SL_U0, U68_SL_U1, U68_SL_V0 = 20.0, 15.0, 8.0  # the winds' amplitudes (m/s)
U68_NLEV = 64                                      # satadj-columns: NLEV
U68_PTOP, U68_PSFC = 1000.0, 100000.0              # the top and bottom levels' pressures (Pa)
U68_RH_MEAN, U68_SUPERSAT = 0.8, 0.12              # the levels' relative humidity: mean, share above 1
U68_CLOUDY = 0.25                                  # the share of the levels with RH <= 0.97 holding cloud water
U68_VS_HOBS = 16.618                               # viewshed-ballot: the observer's eye above ground (m): a
                                                   # 15 m tower, not whole metres (no exact line-of-sight ties)


def _u68_up(a, m):
    """The k x k array a resampled bilinearly onto m x m points (the corners kept), float32."""
    k = a.shape[0]
    t = np.linspace(0, k - 1, m, dtype=np.float32)
    i0 = np.minimum(t.astype(np.int64), k - 2)
    w = t - i0.astype(np.float32)
    r = a[:, i0] * (1 - w) + a[:, i0 + 1] * w
    out = r[i0, :]
    out *= (1 - w)[:, None]
    r1 = r[i0 + 1, :]
    r1 *= w[:, None]
    out += r1
    return out


def _u68_terrain(s, rng):
    """An s x s DEM (float32, row-major, whole metres): fractal terrain built coarse to fine
    (4 x 4 points doubled to s x s, each level adding normal noise of sd U68_TERRAIN_SIGMA
    (spacing / 1 km)^U68_TERRAIN_H, at most 400 m), shifted so that a share U68_SEA of it
    lies below 0, that part set to 0 (the sea: flat)."""
    sizes = [s]
    while sizes[-1] > 4:
        sizes.append(-(-sizes[-1] // 2))
    z = np.zeros((sizes[-1], sizes[-1]), np.float32)
    for m in sizes[::-1]:
        if z.shape[0] != m:
            z = _u68_up(z, m)
        sd = min(U68_TERRAIN_SIGMA * (U68_CS * s / m / 1000) ** U68_TERRAIN_H, 400.0)
        z += rng.standard_normal((m, m), np.float32) * np.float32(sd)
    step = max(1, s // 256)
    z -= np.float32(np.quantile(z[::step, ::step], U68_SEA))
    np.maximum(z, 0, out=z)
    return np.rint(z, out=z)


def _u68_horn_args(n, rng):
    """An n x n DEM (_u68_terrain, float32), slope and aspect (float32, zeroed), the cell
    size U68_CS, nx = ny = n."""
    dem = _u68_terrain(n, rng).ravel()
    return [dem, np.zeros(n * n, np.float32), np.zeros(n * n, np.float32), np.float32(U68_CS), _i32(n), _i32(n)]


def _u68_zones(n, nz, rng):
    """n cells' zone ids (int32, 0 .. nz - 1): the first n cells of an s x s raster (s =
    ceil(sqrt n)) cut into the Voronoi regions of nz random seeds, resolved on a grid of
    U68_ZONE_BLOCK x U68_ZONE_BLOCK cells, the ids shuffled."""
    s = int(np.ceil(np.sqrt(n)))
    c = -(-s // U68_ZONE_BLOCK)
    seeds = rng.uniform(0, c, (nz, 2)).astype(np.float32)
    yy, xx = np.mgrid[0:c, 0:c].astype(np.float32) + np.float32(0.5)
    pts = np.c_[yy.ravel(), xx.ravel()]
    zc = np.empty(c * c, np.int32)
    sn = (seeds * seeds).sum(1)
    for a in range(0, c * c, 4096):         # nearest seed: |p|^2 - 2 p.s + |s|^2, |p|^2 dropped
        zc[a:a + 4096] = np.argmin(sn[None, :] - 2 * pts[a:a + 4096] @ seeds.T, axis=1)
    zc = rng.permutation(nz).astype(np.int32)[zc].reshape(c, c)
    z = np.repeat(np.repeat(zc, U68_ZONE_BLOCK, 0), U68_ZONE_BLOCK, 1)[:s, :s]
    return np.ascontiguousarray(z).ravel()[:n]


def _u68_zonal_nz(n):
    return max(4, n // U68_ZONE_CELLS)


def _u68_zonal_args(n, rng):
    """n cells: the elevations of a DEM (_u68_terrain, whole metres, float32) with the sea
    as U68_NODATA, their zones (_u68_zones, n // U68_ZONE_CELLS of them, at least 4), the
    nodata value; per zone the sum (float32, 0), count (int32, 0), min (int32: +inf's
    float bits) and max (int32: 0.0f's bits); n."""
    s = int(np.ceil(np.sqrt(n)))
    dem = _u68_terrain(s, rng).ravel()[:n]
    dem[dem == 0] = np.float32(U68_NODATA)
    nz = _u68_zonal_nz(n)
    zone = _u68_zones(n, nz, rng)
    return [dem, zone, np.float32(U68_NODATA), np.zeros(nz, np.float32), np.zeros(nz, np.int32),
            np.full(nz, 0x7F800000, np.int32), np.zeros(nz, np.int32), _i32(n)]


def _u68_idw_args(n, rng):
    """U68_IDW_NST stations uniform over an n x n grid (x, y in cells, float32), their
    temperatures (a smooth field over the grid plus N(0, 1), float32), their count; the
    grid (float32, zeroed), nx = ny = n."""
    k = U68_IDW_NST
    sx = rng.uniform(0, n, k).astype(np.float32)
    sy = rng.uniform(0, n, k).astype(np.float32)
    val = 12 + 8 * np.sin(2 * np.pi * sx / n) * np.cos(2 * np.pi * sy / n) - 6 * sy / n + rng.standard_normal(k)
    return [sx, sy, val.astype(np.float32), _i32(k), np.zeros(n * n, np.float32), _i32(n), _i32(n)]


def _u68_sl_fields(nlon, nlat):
    """semilag-latlon's tracer and winds on an nlon x nlat grid (float32, row j at latitude
    -90 + (j + 0.5) 180 / nlat, column i at longitude 360 i / nlon): q = 1 + 0.5 cos^2(lat)
    cos(3 lon) + 0.3 sin(2 lat) sin(5 lon); u = cos(lat) (U0 + U1 sin^2(lat) sin(2 lon)), a
    solid-body flow with a wave (u / cos(lat) finite at the poles); v = V0 cos(lat) sin(3 lon)."""
    lat = (-0.5 * np.pi + (np.arange(nlat) + 0.5) * np.pi / nlat)[:, None]
    lon = (np.arange(nlon) * 2 * np.pi / nlon)[None, :]
    f = np.float32
    q = (1 + (0.5 * np.cos(lat) ** 2).astype(f) * np.cos(3 * lon).astype(f)
         + (0.3 * np.sin(2 * lat)).astype(f) * np.sin(5 * lon).astype(f))
    u = np.cos(lat).astype(f) * (U68_SL_U0 + (U68_SL_U1 * np.sin(lat) ** 2).astype(f) * np.sin(2 * lon).astype(f))
    v = (U68_SL_V0 * np.cos(lat)).astype(f) * np.sin(3 * lon).astype(f)
    return q.ravel(), u.ravel(), v.ravel()


def _u68_sl_args(n, rng):
    """A global grid of 2n longitudes x n latitudes: the tracer q, winds u and v
    (_u68_sl_fields, float32), the new tracer (zeroed); the step U68_SL_DT 4096 / n (an
    equatorial Courant number of ~1.2 at any n), nlon, nlat."""
    q, u, v = _u68_sl_fields(2 * n, n)
    return [q, u, v, np.zeros(2 * n * n, np.float32), np.float32(U68_SL_DT * 4096 / n), _i32(2 * n), _i32(n)]


def _u68_plev():
    """The NLEV levels' pressures (Pa, top first: U68_PTOP to U68_PSFC, closer near the
    ground) and masses per area dp / g (kg/m^2), float64."""
    e = (np.arange(U68_NLEV + 1) / U68_NLEV) ** 1.5
    edges = U68_PTOP / 2 + (U68_PSFC - U68_PTOP / 2) * e
    return 0.5 * (edges[1:] + edges[:-1]), np.diff(edges) / 9.80665


def _u68_qsat(t, p):
    """Magnus' saturation specific humidity (kg/kg) at t (K) and p (Pa), as qsat computes it."""
    tc = t - 273.15
    es = 610.94 * np.exp(17.625 * tc / (tc + 243.04))
    return 0.622 * es / (p - 0.378 * es)


def _u68_satadj_args(n, rng):
    """n columns of U68_NLEV levels, level-major (float32): temperatures a dry-adiabatic-ish
    profile Ts (p / ps)^0.19 (Ts uniform 265 .. 305 K a column, at least 205 K) plus N(0,
    1.5^2) K; humidities qv = RH qsat with RH normal about U68_RH_MEAN (a share
    U68_SUPERSAT above 1, within 0.05 .. 1.08); cloud water uniform in (0, 3e-4) on the levels with RH > 0.97 and a
    share U68_CLOUDY of the others (0 elsewhere); the columns' condensation (zeroed); n."""
    p, _ = _u68_plev()
    p = p.astype(np.float32)[:, None]
    ts = rng.uniform(265, 305, n).astype(np.float32)[None, :]
    t = np.maximum(ts * (p / np.float32(U68_PSFC)) ** np.float32(0.19), np.float32(205))
    t += rng.normal(0, 1.5, (U68_NLEV, n)).astype(np.float32)
    from statistics import NormalDist
    sd = (1 - U68_RH_MEAN) / NormalDist().inv_cdf(1 - U68_SUPERSAT)
    rh = np.clip(rng.normal(U68_RH_MEAN, sd, (U68_NLEV, n)), 0.05, 1.08).astype(np.float32)
    qv = rh * _u68_qsat(t, p)
    cloudy = (rh > 0.97) | (rng.random((U68_NLEV, n), np.float32) < U68_CLOUDY)
    qc = np.where(cloudy, rng.uniform(0, 3e-4, (U68_NLEV, n)).astype(np.float32), np.float32(0))
    return [t.ravel(), qv.astype(np.float32).ravel(), qc.ravel(), np.zeros(n, np.float32), _i32(n)]


def _u68_satadj_syms(n, rng):
    p, dpg = _u68_plev()
    return {"c_plev": p.astype(np.float32), "c_dpg": dpg.astype(np.float32)}


def _u68_vs_observer(dem, n):
    """The highest cell of the n x n DEM's central window (n / 4 wide): (ox, oy)."""
    a, b = 3 * n // 8, max(3 * n // 8 + 1, 5 * n // 8)
    win = dem.reshape(n, n)[a:b, a:b]
    oy, ox = np.unravel_index(np.argmax(win), win.shape)
    return int(ox) + a, int(oy) + a


def _u68_vs_args(n, rng):
    """An n x n DEM (_u68_terrain, float32), the visibility flags (uint8, zeroed), the
    visible count (int32, 0); the observer (_u68_vs_observer: a lookout on the central
    hilltop) U68_VS_HOBS above ground, the cell size U68_CS, nx = ny = n."""
    dem = _u68_terrain(n, rng).ravel()
    ox, oy = _u68_vs_observer(dem, n)
    return [dem, np.zeros(n * n, np.uint8), np.zeros(1, np.int32), _i32(ox), _i32(oy), np.float32(U68_VS_HOBS),
            np.float32(U68_CS), _i32(n), _i32(n)]


UNSEEN68 = [
    TimingProbe("probe/horn-slope-aspect", "probe-unseen68", "horn_slope_aspect", 4096, (32, 8),
                lambda n: (-(-n // 32), -(-n // 8)), _u68_horn_args, source=_P70,
                note="slope and aspect of a 4096 x 4096 DEM by Horn's 3x3 method, a thread a cell (32 x 8 "
                     "blocks): 8 neighbour loads (3 rows, L1-shared), 2 float divisions, sqrtf, atanf and "
                     "atan2f with ESRI's aspect branches (20% flat sea cells skip atan2f), two float stores"),
    TimingProbe("probe/zonal-stats-atomic", "probe-unseen68", "zonal_stats", 1 << 24, 256, lambda n: -(-n // 256),
                _u68_zonal_args, source=_P70,
                note="zonal statistics of a 2^24-cell DEM over 1024 Voronoi zones (contiguous, so a warp's "
                     "lanes mostly share a zone), a thread a cell: value and zone loads, the 20% nodata cells "
                     "return, the rest 4 global atomics (float atomicAdd sum, int count, atomicMin/atomicMax "
                     "on the float bits) on a few same addresses a warp"),
    TimingProbe("probe/idw-smem-stations", "probe-unseen68", "idw_grid", 1024, (16, 16),
                lambda n: (-(-n // 16), -(-n // 16)), _u68_idw_args, source=_P70,
                note="inverse-distance-weighted interpolation of 1024 stations onto a 1024 x 1024 grid, a "
                     "thread a cell: the stations staged 256 at a time through shared memory (broadcast "
                     "reads, 2 barriers a tile), a float division and 3 FMAs a station; compute-bound"),
    TimingProbe("probe/semilag-latlon", "probe-unseen68", "semilag_advect", 4096, (32, 8),
                lambda n: (-(-2 * n // 32), -(-n // 8)), _u68_sl_args, source=_P70,
                note="one semi-Lagrangian advection step on a global 8192 x 4096 lat-lon grid, a thread a cell: "
                     "u and v loads, cosf and 2 divisions for the departure point (1-2 cells back: the winds "
                     "vanish at the poles like cos(lat)), periodic wrap and pole clamp, then a 4-point bilinear "
                     "gather of the tracer (2 rows) and a store"),
    TimingProbe("probe/satadj-columns", "probe-unseen68", "satadj_columns", 1 << 19, 256, lambda n: -(-n // 256),
                _u68_satadj_args, source=_P70, symbols=_u68_satadj_syms,
                note="saturation adjustment of 2^19 atmospheric columns of 64 levels (level-major, coalesced), "
                     "a thread a column: per level 3 loads, a __constant__ pressure, Magnus' qsat (expf, a "
                     "division), then divergent branches: ~12% supersaturated levels 2 Newton steps (one "
                     "more expf), ~25% evaporating cloud water, stores only where changed"),
    TimingProbe("probe/viewshed-ballot", "probe-unseen68", "viewshed", 1024, (32, 8),
                lambda n: (-(-n // 32), -(-n // 8)), _u68_vs_args, source=_P70,
                note="viewshed of a hilltop observer on a 1024 x 1024 DEM, a thread a target cell walking its "
                     "line of sight one cell at a time (as many steps as it is far: ~350 on average, a "
                     "warp's lanes within 31 of each other), a DEM gather and a float division a step, the "
                     "visible cells counted by __ballot_sync, __popc and one atomicAdd a warp"),
]
PROBES += UNSEEN68

# probe-unseen70 (probes72.cu): a radar / sensor-array signal-processing course's pulse
# compression, corner turn, Doppler, CFAR, beamforming and covariance kernels as a student
# who knows CUDA basics writes them (complex samples as float2), predicted before their
# first GPU run
_P72 = "probes72.cu"
U70_PC_TAPS = 64                                   # pulse-compress-smem: PC_TAPS (the chirp replica's length)
U70_PC_BW = 0.8                                    # the chirp's swept band over the sample rate
U70_PC_PULSE_DIV = 16                              # pulses = range samples / 16
U70_PC_TARGETS = 24                                # point targets (a delayed, Doppler-shifted chirp each)
U70_PC_AMP_DB = (-10.0, 10.0)                      # their per-sample echo power over the noise (uniform dB)
U70_CT_TILE, U70_CT_ROWS = 32, 8                   # corner-turn-window: CT_TILE, CT_ROWS
U70_CT_PULSE_DIV = 16                              # pulses = range bins / 16
U70_TARGETS = 32                                   # corner-turn-window, doppler-dft-shfl: targets in the cube
U70_SNR_DB = (10.0, 30.0)                          # their range-compressed SNR (uniform dB)
U70_DD_PULSES = 32                                 # doppler-dft-shfl: DD_PULSES (a warp a range bin)
U70_CF_DOPP_DIV = 32                               # cfar-ca-atomic: Doppler bins = range bins / 32
U70_CF_GUARD, U70_CF_TRAIN = 2, 16                 # guard and training cells on each side
U70_CF_PFA = 1e-4                                  # the design false-alarm rate (alpha from it, 2 x train cells)
U70_CF_ALPHA = 2 * U70_CF_TRAIN * (U70_CF_PFA ** (-1.0 / (2 * U70_CF_TRAIN)) - 1)
U70_CF_TARGETS = 64                                # Swerling-1 targets in the map
U70_CF_TSNR_DB = (10.0, 25.0)                      # their mean SNR (uniform dB)
U70_CF_CNR_DB, U70_CF_CSPREAD = 40.0, 1.5          # the zero-Doppler clutter ridge: CNR at range 0, sd (bins)
U70_CF_CRANGE = 0.05                               # the clutter falls as (1 + r / (0.05 nrange))^-3
U70_CF_MAXDET_DIV = 256                            # the detection list's room: cells / 256
U70_CFAR_DTYPE = np.dtype([("guard", "<i4"), ("train", "<i4"), ("alpha", "<f4")])   # struct CfarParams
U70_BF_NCH, U70_BF_NBEAM = 16, 16                  # beamform-const: BF_NCH, BF_NBEAM (half-wavelength ULA)
U70_BF_SOURCES = ((0.3, 0.0), (-0.55, 30.0), (0.72, 25.0))   # (sin angle, element SNR dB): a target, 2 jammers
U70_CV_NCH, U70_CV_NSNAP = 16, 32                  # covariance-smem: CV_NCH, CV_NSNAP
U70_CV_JAMMERS = ((-0.4, 30.0), (0.15, 20.0), (0.6, 25.0))   # (sin angle, JNR dB) of the jammers


def _u70_f32(z):
    """Complex samples as the interleaved float32 (re, im) a cuFloatComplex array holds, flat."""
    return np.ascontiguousarray(z, np.complex64).view(np.float32).ravel()


def _u70_noise(shape, rng):
    """Complex white noise CN(0, 1) of the shape (complex64)."""
    w = rng.standard_normal(tuple(shape) + (2,), np.float32) * np.float32(np.sqrt(0.5))
    return w.view(np.complex64)[..., 0]


def _u70_chirp(taps=U70_PC_TAPS):
    """A linear-FM chirp of taps samples sweeping U70_PC_BW of the band, unit magnitude
    (complex128)."""
    k = np.arange(taps) - (taps - 1) / 2
    return np.exp(1j * np.pi * U70_PC_BW * k * k / taps)


def _u70_pc_shape(n):
    """pulse-compress-smem's cube at size n: (pulses, range samples)."""
    return max(1, n // U70_PC_PULSE_DIV), n


def _u70_pc_args(n, rng):
    """Raw (uncompressed) echoes of max(1, n / 16) pulses of n samples (pulse-major): CN(0, 1)
    noise plus U70_PC_TARGETS chirp echoes, each at a random delay (the last ones cut by
    the pulse's end), amplitude (U70_PC_AMP_DB) and start phase, its phase advancing by a
    random Doppler frequency from pulse to pulse; the chirp replica; the output (zeroed);
    n, pulses.  All cuFloatComplex (interleaved float32)."""
    npulse, nrange = _u70_pc_shape(n)
    x = _u70_noise((npulse, nrange), rng)
    h = _u70_chirp()
    p = np.arange(npulse)
    for _ in range(U70_PC_TARGETS):
        r0 = int(rng.integers(0, max(1, nrange - U70_PC_TAPS // 2)))
        amp = 10 ** (rng.uniform(*U70_PC_AMP_DB) / 20)
        ph = np.exp(1j * (rng.uniform(0, 2 * np.pi) + 2 * np.pi * rng.uniform(-0.5, 0.5) * p))
        m = min(U70_PC_TAPS, nrange - r0)
        x[:, r0:r0 + m] += (amp * ph[:, None] * h[None, :m]).astype(np.complex64)
    return [_u70_f32(x), _u70_f32(h), np.zeros(2 * npulse * nrange, np.float32), _i32(nrange), _i32(npulse)]


def _u70_cube(npulse, nrange, rng):
    """A range-compressed CPI (npulse x nrange, complex64): CN(0, 1) noise plus
    min(U70_TARGETS, nrange) point targets in distinct range bins, each of SNR U70_SNR_DB,
    a random start phase and a Doppler tone across the pulses."""
    z = _u70_noise((npulse, nrange), rng)
    k = min(U70_TARGETS, nrange)
    r = rng.choice(nrange, k, replace=False)
    amp = 10 ** (rng.uniform(*U70_SNR_DB, k) / 20)
    fd = rng.uniform(-0.5, 0.5, k)
    ph = rng.uniform(0, 2 * np.pi, k)
    z[:, r] += (amp * np.exp(1j * (ph + 2 * np.pi * np.outer(np.arange(npulse), fd)))).astype(np.complex64)
    return z


def _u70_ct_shape(n):
    """corner-turn-window's cube at size n: (pulses, range bins)."""
    return max(1, n // U70_CT_PULSE_DIV), n


def _u70_ct_args(n, rng):
    """A range-compressed CPI (_u70_cube) of max(1, n / 16) pulses of n range bins,
    pulse-major; the slow-time Hann window (float32, symmetric); the range-major output
    (zeroed); pulses, n."""
    npulse, nrange = _u70_ct_shape(n)
    return [_u70_f32(_u70_cube(npulse, nrange, rng)), np.hanning(npulse).astype(np.float32),
            np.zeros(2 * npulse * nrange, np.float32), _i32(npulse), _i32(nrange)]


def _u70_dd_args(n, rng):
    """A CPI of U70_DD_PULSES pulses and n range bins (_u70_cube), Hann-windowed in slow
    time and corner-turned (range-major: a range bin's pulses contiguous); the Doppler
    output (zeroed); n."""
    z = _u70_cube(U70_DD_PULSES, n, rng) * np.hanning(U70_DD_PULSES).astype(np.float32)[:, None]
    return [_u70_f32(z.T), np.zeros(2 * U70_DD_PULSES * n, np.float32), _i32(n)]


def _u70_cf_shape(n):
    """cfar-ca-atomic's map at size n: (Doppler bins, range bins)."""
    return max(1, n // U70_CF_DOPP_DIV), n


def _u70_cf_map(ndopp, nrange, rng):
    """A range-Doppler power map (ndopp x nrange, Doppler-major, float32): exponential
    noise (mean 1) plus a zero-Doppler clutter ridge (Gaussian in Doppler, sd
    U70_CF_CSPREAD bins wrapping round, U70_CF_CNR_DB at range 0 falling as (1 + r / (0.05
    nrange))^-3), speckled likewise, plus U70_CF_TARGETS Swerling-1 targets (mean SNR
    U70_CF_TSNR_DB) at random cells, a quarter of each straddling into the next range bin."""
    d = np.arange(ndopp)
    dd = np.minimum(d, ndopp - d)
    ridge = np.exp(-0.5 * (dd / U70_CF_CSPREAD) ** 2)
    fall = (1 + np.arange(nrange) / (U70_CF_CRANGE * nrange)) ** -3.0
    mean = 1 + 10 ** (U70_CF_CNR_DB / 10) * np.outer(ridge, fall).astype(np.float32)
    pw = mean * rng.standard_exponential((ndopp, nrange), np.float32)
    k = U70_CF_TARGETS
    td, tr = rng.integers(0, ndopp, k), rng.integers(0, nrange, k)
    tp = 10 ** (rng.uniform(*U70_CF_TSNR_DB, k) / 10) * rng.standard_exponential(k)
    np.add.at(pw, (td, tr), tp.astype(np.float32))
    ok = tr + 1 < nrange
    np.add.at(pw, (td[ok], tr[ok] + 1), (0.25 * tp[ok]).astype(np.float32))
    return pw.astype(np.float32)


def _u70_cf_args(n, rng):
    """A power map (_u70_cf_map) of max(1, n / 32) Doppler bins by n range bins; the
    detection list (range, Doppler: int32, SNR: float32; room for max(16, cells / 256),
    zeroed), its counter (int32, zeroed), its room; n, the Doppler bins."""
    ndopp, nrange = _u70_cf_shape(n)
    room = max(16, ndopp * nrange // U70_CF_MAXDET_DIV)
    return [_u70_cf_map(ndopp, nrange, rng).ravel(), np.zeros(room, np.int32), np.zeros(room, np.int32),
            np.zeros(room, np.float32), np.zeros(1, np.int32), _i32(room), _i32(nrange), _i32(ndopp)]


def _u70_cfar_params(guard=U70_CF_GUARD, train=U70_CF_TRAIN, alpha=U70_CF_ALPHA):
    """struct CfarParams as a numpy structured scalar (guard, train, alpha)."""
    return np.array((guard, train, alpha), U70_CFAR_DTYPE)


def _u70_cf_syms(n, rng):
    return {"c_cfar": _u70_cfar_params()}


def _u70_ula(u, nch):
    """A half-wavelength uniform linear array's steering vectors toward sin-angles u: (len(u),
    nch) complex128, exp(i pi c u)."""
    return np.exp(1j * np.pi * np.outer(np.atleast_1d(u), np.arange(nch)))


def _u70_bf_args(n, rng):
    """n snapshots of a U70_BF_NCH-element half-wavelength ULA, snapshot-major (a snapshot's
    channels contiguous): CN(0, 1) element noise plus the U70_BF_SOURCES (complex Gaussian
    waveforms at their SNRs) from their directions; the U70_BF_NBEAM beams' outputs
    (beam-major, zeroed); n.  cuFloatComplex."""
    u, snr = np.array(U70_BF_SOURCES).T
    s = _u70_noise((n, len(u)), rng) * (10 ** (snr / 20)).astype(np.float32)
    x = _u70_noise((n, U70_BF_NCH), rng) + (s @ _u70_ula(u, U70_BF_NCH)).astype(np.complex64)
    return [_u70_f32(x), np.zeros(2 * U70_BF_NBEAM * n, np.float32), _i32(n)]


def _u70_bf_steer():
    """The beams' steering weights (U70_BF_NBEAM x U70_BF_NCH, complex128): beam b toward
    sin-angle -1 + (2 b + 1) / U70_BF_NBEAM (evenly in sine space), normalized by 1 / NCH."""
    u = -1 + (2 * np.arange(U70_BF_NBEAM) + 1) / U70_BF_NBEAM
    return _u70_ula(u, U70_BF_NCH) / U70_BF_NCH


def _u70_bf_syms(n, rng):
    """c_steer: _u70_bf_steer as float2 (re, im) pairs, float32 (NBEAM * NCH, 2)."""
    w = _u70_bf_steer().ravel()
    return {"c_steer": np.stack([w.real, w.imag], 1).astype(np.float32)}


def _u70_cv_args(n, rng):
    """n range gates of U70_CV_NSNAP snapshots of a U70_CV_NCH-element half-wavelength ULA
    (each gate channel-major: a channel's snapshots contiguous): CN(0, 1) noise plus the
    U70_CV_JAMMERS (complex Gaussian waveforms at their JNRs); R (n x NCH x NCH, zeroed);
    n.  cuFloatComplex."""
    u, jnr = np.array(U70_CV_JAMMERS).T
    s = _u70_noise((n, len(u), U70_CV_NSNAP), rng) * (10 ** (jnr / 20)).astype(np.float32)[:, None]
    a = _u70_ula(u, U70_CV_NCH).astype(np.complex64)                    # (jammers, channels)
    x = _u70_noise((n, U70_CV_NCH, U70_CV_NSNAP), rng) + np.einsum("kc,gks->gcs", a, s)
    return [_u70_f32(x), np.zeros(2 * n * U70_CV_NCH * U70_CV_NCH, np.float32), _i32(n)]


UNSEEN70 = [
    TimingProbe("probe/radar-pulse-compress-smem", "probe-unseen70", "pulse_compress", 8192, 256,
                lambda n: (-(-n // 256), _u70_pc_shape(n)[0]), _u70_pc_args, source=_P72,
                note="time-domain pulse compression of 512 pulses of 8192 complex samples (pulse-major), a "
                     "thread an output sample: the block copies the 64-tap conjugated chirp replica into shared "
                     "memory (one barrier), then 64 complex multiply-adds of 8-byte input loads sliding along "
                     "the pulse (coalesced, each sample re-read by 64 threads through L1) and broadcast shared "
                     "reads, a bounds test each tap"),
    TimingProbe("probe/radar-corner-turn-window", "probe-unseen70", "corner_turn_window", 16384,
                (U70_CT_TILE, U70_CT_ROWS),
                lambda n: (-(-n // U70_CT_TILE), -(-_u70_ct_shape(n)[0] // U70_CT_TILE)), _u70_ct_args,
                source=_P72,
                note="corner turn of a 1024-pulse x 16384-range-bin complex cube (128 MiB, pulse-major to "
                     "range-major) through a 32 x 33 float2 shared tile (blocks of 32 x 8, 4 samples a thread), "
                     "each sample scaled by its pulse's Hann weight (a float load) on the way in; coalesced "
                     "8-byte loads and stores; memory-bound"),
    TimingProbe("probe/radar-doppler-dft-shfl", "probe-unseen70", "doppler_dft_warp", 1 << 17, 256,
                lambda n: -(-n // 8), _u70_dd_args, source=_P72,
                note="Doppler processing of 2^17 range bins of a 32-pulse CPI (range-major, windowed) as a "
                     "naive DFT, a warp a range bin and lane d Doppler bin d: one coalesced 8-byte load a "
                     "lane, then 32 steps of two __shfl_sync broadcasts of a pulse, a sincosf of -2 pi p d / 32 "
                     "(|angle| up to 190) and a complex multiply-add; compute-bound"),
    TimingProbe("probe/radar-cfar-ca-atomic", "probe-unseen70", "cfar_ca", 16384, 256,
                lambda n: (-(-n // 256), _u70_cf_shape(n)[0]), _u70_cf_args, source=_P72,
                symbols=_u70_cf_syms,
                note="cell-averaging CFAR along range over a 512 x 16384 range-Doppler power map (2^23 cells, "
                     "range contiguous), a thread a cell: a 16-trip loop over the training cells (2 guard, 16 "
                     "each side) with two bounds-tested float loads a trip (L1-shared sliding window), window and "
                     "threshold from a __constant__ struct, a division; the ~0.011% detections (64 targets, the "
                     "rest false alarms at the design rate 1e-4) each append to a list by one global atomicAdd"),
    TimingProbe("probe/radar-beamform-const", "probe-unseen70", "beamform", 1 << 18, 256,
                lambda n: (-(-n // 256), U70_BF_NBEAM), _u70_bf_args, source=_P72, symbols=_u70_bf_syms,
                note="narrowband beamforming of 2^18 snapshots of a 16-element array into 16 beams, a thread a "
                     "(beam, snapshot): 16 complex multiply-adds of conjugated steering weights from a "
                     "__constant__ float2 table (uniform over the block) and channel samples stored snapshot-major "
                     "(8-byte loads 128 bytes apart across lanes, each line used over the channel loop), the 32 "
                     "MiB input re-read by the 16 beams' blocks; a coalesced store"),
    TimingProbe("probe/radar-covariance-smem", "probe-unseen70", "covariance", 8192, (U70_CV_NCH, U70_CV_NCH),
                lambda n: n, _u70_cv_args, source=_P72,
                note="sample covariance matrices R = X X^H / 32 of 8192 range gates (16 channels x 32 snapshots "
                     "each, channel-major), a block of 16 x 16 threads a gate: the gate's 4 KiB of snapshots "
                     "staged in shared memory (one barrier), then a thread an element of R, 32 complex "
                     "multiply-adds reading rows i and j of the tile (the j rows 256 bytes apart: 16-way bank "
                     "conflicts), two divisions, an 8-byte store"),
]
PROBES += UNSEEN70

# probe-unseen69 (probes71.cu): a computational-chemistry / molecular-simulation course's
# kernels (g(r), Lennard-Jones forces over a Verlet list, an Ewald structure factor,
# Metropolis trial moves, a direct Coulomb grid, a harmonic angle term) as a student who
# knows CUDA basics writes them, predicted before their first GPU run
_P71 = "probes71.cu"
U69_RHO = 0.8                                      # the LJ liquid's reduced density (sigma = 1)
U69_JITTER = 0.1                                   # lattice jitter: uniform +- this share of the spacing an axis
U69_RDF_TILE, U69_RDF_BINS = 256, 256              # rdf-smem-hist: RDF_TILE, RDF_BINS (r_max half the box)
U69_LJ_SIGMA = (1.0, 0.95, 1.05, 0.9)              # lj-nlist-const: the four types' sigma, epsilon, shares
U69_LJ_EPS = (1.0, 0.8, 1.2, 0.6)
U69_LJ_SHARE = (0.4, 0.3, 0.2, 0.1)
U69_LJ_RC, U69_LJ_SKIN, U69_LJ_MAXNB = 2.5, 0.3, 128   # the cutoff, the Verlet skin, the slots of a row
U69_WATER_RHO = 0.0334                             # water molecules a cubic angstrom
U69_SPCE_Q = (-0.8476, 0.4238)                     # SPC/E's charges (O, H), O-H (angstrom), H-O-H (degrees)
U69_SPCE_OH, U69_SPCE_HOH = 1.0, 109.47
U69_SK_KCUT, U69_SK_BLOCK = 1.0, 256               # ewald-sk-shfl: |k| <= 1 / angstrom, half k-space; threads
U69_MC_ATOMS, U69_MC_BLOCK = 512, 128              # mc-trial-double: atoms a system (8^3 sites), MC_BLOCK
U69_MC_RC, U69_MC_T, U69_MC_DELTA = 2.5, 1.2, 0.15  # the cutoff, kT (beta = 1 / kT), the largest step an axis
U69_DCS_MAX, U69_DCS_WATERS = 4000, 1300           # coulomb-grid-const: DCS_MAX_ATOMS; the water box's molecules
U69_ANG_CHAIN, U69_ANG_BOND, U69_ANG_RHO = 64, 0.97, 0.85   # angle-harmonic-atomic: beads a chain, bond, density
U69_ANG_K = (20.0, 25.0, 30.0, 40.0)               # the angle types' K (energy / rad^2) and theta0 (degrees)
U69_ANG_THETA0 = (109.5, 115.0, 120.0, 130.0)
U69_ANG_SD = 12.0                                  # the angles' spread about their theta0 (degrees)


def _u69_lattice(n, rng, rho):
    """n atoms on a jittered simple cubic lattice at number density rho (an equilibrated
    liquid's stand-in): n of the m^3 >= n sites chosen at random (kept in site order),
    each atom moved uniformly by up to U69_JITTER of the spacing along each axis; (the
    positions (n, 3) float64 in [0, box), box, m, the atoms' sites)."""
    box = (n / rho) ** (1 / 3)
    m = max(1, int(round(n ** (1 / 3))))
    while m ** 3 < n:
        m += 1
    sites = np.sort(rng.choice(m ** 3, n, replace=False)) if m ** 3 > n else np.arange(n)
    ijk = np.stack([sites // (m * m), sites // m % m, sites % m], 1)
    pos = (ijk + 0.5 + rng.uniform(-U69_JITTER, U69_JITTER, (n, 3))) * (box / m)
    return pos, box, m, sites


def _u69_float4(xyz, w=None):
    """(n, 3) positions and a fourth column (zeros if None) as float4s (float32, flat)."""
    w = np.zeros(len(xyz)) if w is None else w
    return np.c_[xyz, w].astype(np.float32).ravel()


def _u69_rdf_args(n, rng):
    """n atoms of an LJ liquid (_u69_lattice at U69_RHO) as float4 (w 0); the histogram
    (U69_RDF_BINS uint32, zeroed); box, the bins an r unit (r_max = box / 2), r_max^2, n."""
    pos, box, _, _ = _u69_lattice(n, rng, U69_RHO)
    rmax = box / 2
    return [_u69_float4(pos), np.zeros(U69_RDF_BINS, np.uint32), np.float32(box),
            np.float32(U69_RDF_BINS / rmax), np.float32(rmax * rmax), _i32(n)]


def _u69_nlist(pos, box, m, sites, rl, max_nb):
    """The Verlet list of the lattice atoms (_u69_lattice): each atom's neighbours within
    rl (minimum image), found among the sites a lattice offset away that the jitter can
    bring within rl, in the offsets' order; (nlist (n, max_nb) int32, the unused slots 0;
    the counts (n,) int32)."""
    n = len(pos)
    a = box / m
    lim = rl / a + 2 * U69_JITTER * np.sqrt(3)
    reach = int(np.ceil(lim))
    assert m > 2 * reach, "box too small for the list"
    r = np.arange(-reach, reach + 1)
    off = np.stack(np.meshgrid(r, r, r, indexing="ij"), -1).reshape(-1, 3)
    d = np.sqrt((off * off).sum(1))
    off = off[(d > 0) & (d < lim)]
    atom_of = np.full(m ** 3, -1, np.int64)
    atom_of[sites] = np.arange(n)
    ijk = (sites // (m * m), sites // m % m, sites % m)
    xyz = [np.ascontiguousarray(pos[:, d]) for d in range(3)]
    nlist = np.zeros((n, max_nb), np.int32)
    cnt = np.zeros(n, np.int64)
    for o in off:
        j = atom_of[(((ijk[0] + o[0]) % m) * m + (ijk[1] + o[1]) % m) * m + (ijk[2] + o[2]) % m]
        r2 = np.zeros(n)
        for d in range(3):
            dv = xyz[d][j] - xyz[d]
            dv -= box * np.rint(dv / box)
            r2 += dv * dv
        i = np.flatnonzero((j >= 0) & (r2 < rl * rl))
        nlist[i, cnt[i]] = j[i]
        cnt[i] += 1
    assert cnt.max() <= max_nb
    return nlist, cnt.astype(np.int32)


def _u69_lj_args(n, rng):
    """n atoms of a four-type LJ liquid (_u69_lattice at U69_RHO; types drawn with the
    shares U69_LJ_SHARE, stored as floats in w), their Verlet list (_u69_nlist, radius
    cutoff + skin, U69_LJ_MAXNB slots a row, flat) and counts; the forces (float4, zeroed);
    box, the cutoff squared, max_nb, n."""
    pos, box, m, sites = _u69_lattice(n, rng, U69_RHO)
    types = rng.choice(len(U69_LJ_SHARE), n, p=U69_LJ_SHARE)
    nlist, cnt = _u69_nlist(pos, box, m, sites, U69_LJ_RC + U69_LJ_SKIN, U69_LJ_MAXNB)
    return [_u69_float4(pos, types), nlist.ravel(), cnt, np.zeros(4 * n, np.float32), np.float32(box),
            np.float32(U69_LJ_RC ** 2), _i32(U69_LJ_MAXNB), _i32(n)]


def _u69_lj_table():
    """c_lj: (epsilon, sigma^2) of each type pair by Lorentz-Berthelot (float32 structs)."""
    s, e = np.array(U69_LJ_SIGMA), np.array(U69_LJ_EPS)
    t = np.zeros(len(s) ** 2, [("eps", "<f4"), ("sig2", "<f4")])
    t["eps"] = np.sqrt(np.outer(e, e)).ravel()
    t["sig2"] = (((s[:, None] + s[None, :]) / 2) ** 2).ravel()
    return t


def _u69_water(nmol, rng):
    """nmol SPC/E water molecules at U69_WATER_RHO: the oxygens on a jittered lattice
    (_u69_lattice), each molecule turned at random, the atoms (O H H a molecule) wrapped
    into the box; (positions (3 nmol, 3) float64, charges (3 nmol,), box)."""
    o, box, _, _ = _u69_lattice(nmol, rng, U69_WATER_RHO)
    u = rng.standard_normal((nmol, 3))
    u /= np.linalg.norm(u, axis=1, keepdims=True)
    w = rng.standard_normal((nmol, 3))
    w -= (w * u).sum(1, keepdims=True) * u
    w /= np.linalg.norm(w, axis=1, keepdims=True)
    half = np.radians(U69_SPCE_HOH) / 2
    h1 = o + U69_SPCE_OH * (np.cos(half) * u + np.sin(half) * w)
    h2 = o + U69_SPCE_OH * (np.cos(half) * u - np.sin(half) * w)
    xyz = np.mod(np.stack([o, h1, h2], 1).reshape(-1, 3), box)
    xyz[xyz >= box] = 0.0
    q = np.tile([U69_SPCE_Q[0], U69_SPCE_Q[1], U69_SPCE_Q[1]], nmol)
    return xyz, q, box


def _u69_kvecs(box, kcut=U69_SK_KCUT):
    """The k-vectors 2 pi (nx, ny, nz) / box of a cubic box with 0 < |k| <= kcut, one of
    each +-k pair (nx > 0, or nx = 0 and ny > 0, or nx = ny = 0 and nz > 0), by |k|;
    (nk, 3) float64."""
    r = np.arange(-int(kcut * box / (2 * np.pi)) - 1, int(kcut * box / (2 * np.pi)) + 2)
    nv = np.stack(np.meshgrid(r, r, r, indexing="ij"), -1).reshape(-1, 3)
    n2 = (nv * nv).sum(1)
    half = (nv[:, 0] > 0) | ((nv[:, 0] == 0) & ((nv[:, 1] > 0) | ((nv[:, 1] == 0) & (nv[:, 2] > 0))))
    nv = nv[half & (n2 > 0) & (n2 * (2 * np.pi / box) ** 2 <= kcut * kcut)]
    return 2 * np.pi * nv[np.argsort((nv * nv).sum(1), kind="stable")] / box


def _u69_sk_nk(n):
    """ewald-sk-shfl's blocks: the k-vectors of a box of n water molecules."""
    return len(_u69_kvecs((n / U69_WATER_RHO) ** (1 / 3)))


def _u69_sk_args(n, rng):
    """A box of n SPC/E waters (_u69_water): the 3n atoms (x, y, z, q: float4); its
    k-vectors (_u69_kvecs, float4, w 0); S(k) (float2, zeroed); 3n."""
    xyz, q, box = _u69_water(n, rng)
    kv = _u69_kvecs(box)
    return [_u69_float4(xyz, q), _u69_float4(kv), np.zeros(2 * len(kv), np.float32), _i32(3 * n)]


def _u69_mc_args(n, rng):
    """n independent LJ systems of U69_MC_ATOMS atoms (8^3 sites, every one filled, at
    U69_RHO), each jittered on its own (float4, w 0, flat); each system's trial: an atom
    (int32), its new position (float4: the old one moved uniformly by up to U69_MC_DELTA an
    axis, wrapped), a uniform random number (float32); the acceptance counts (int32,
    zeroed); box, the cutoff squared, beta, the atoms a system."""
    na = U69_MC_ATOMS
    m = int(round(na ** (1 / 3)))
    box = (na / U69_RHO) ** (1 / 3)
    a = np.float32(box / m)
    g = np.arange(na)
    ijk = (np.stack([g // (m * m), g // m % m, g % m], 1) + 0.5).astype(np.float32)
    pos = np.empty((n, na, 4), np.float32)
    pos[:, :, :3] = ijk + (rng.random((n, na, 3), np.float32) * np.float32(2 * U69_JITTER)
                           - np.float32(U69_JITTER))
    pos[:, :, :3] *= a
    pos[:, :, 3] = 0
    who = rng.integers(0, na, n).astype(np.int32)
    new = pos[np.arange(n), who, :3].astype(np.float64) + rng.uniform(-U69_MC_DELTA, U69_MC_DELTA, (n, 3))
    new = np.mod(new, box)
    new[new >= box] = 0.0
    return [pos.ravel(), who, _u69_float4(new), rng.random(n, np.float32), np.zeros(n, np.int32),
            np.float32(box), np.float32(U69_MC_RC ** 2), np.float32(1 / U69_MC_T), _i32(na)]


def _u69_dcs_box():
    """coulomb-grid-const's water box side (angstrom)."""
    return (U69_DCS_WATERS / U69_WATER_RHO) ** (1 / 3)


def _u69_dcs_args(n, rng):
    """An n^3 grid over the box of U69_DCS_WATERS waters (spacing box / n): the potential
    (float32, zeroed); the spacing, the atoms (3 U69_DCS_WATERS), n, n, n."""
    return [np.zeros(n ** 3, np.float32), np.float32(_u69_dcs_box() / n), _i32(3 * U69_DCS_WATERS), _i32(n),
            _i32(n), _i32(n)]


def _u69_dcs_table(xyz, q):
    """c_atoms: the atoms (x, y, z, q) as float4 structs, zero past the last."""
    t = np.zeros(U69_DCS_MAX, [("x", "<f4"), ("y", "<f4"), ("z", "<f4"), ("w", "<f4")])
    for k, name in enumerate("xyz"):
        t[name][:len(q)] = xyz[:, k]
    t["w"][:len(q)] = q
    return t


def _u69_dcs_syms(n, rng):
    xyz, q, _ = _u69_water(U69_DCS_WATERS, rng)
    return {"c_atoms": _u69_dcs_table(xyz, q)}


def _u69_polymer(nchains, rng):
    """A melt of nchains random AB copolymer chains of U69_ANG_CHAIN beads (types 0/1 at
    random) at bead density U69_ANG_RHO: each chain a random walk of U69_ANG_BOND bonds
    from a uniform start, the angle at each inner bead drawn about the theta0 of its
    type (the sum of the three beads' types) with spread U69_ANG_SD (clipped to 60 .. 178
    degrees), wrapped into the box; (positions (nchains * chain, 3) float64, the angles
    (nchains * (chain - 2), 4): i, j, k, type; box)."""
    c = U69_ANG_CHAIN
    box = (nchains * c / U69_ANG_RHO) ** (1 / 3)
    bt = rng.integers(0, 2, (nchains, c))
    at = bt[:, :-2] + bt[:, 1:-1] + bt[:, 2:]
    th = np.radians(np.clip(np.array(U69_ANG_THETA0)[at] + U69_ANG_SD * rng.standard_normal(at.shape), 60, 178))
    pos = np.empty((nchains, c, 3))
    pos[:, 0] = rng.uniform(0, box, (nchains, 3))
    b = rng.standard_normal((nchains, 3))
    b /= np.linalg.norm(b, axis=1, keepdims=True)
    pos[:, 1] = pos[:, 0] + U69_ANG_BOND * b
    for t in range(1, c - 1):
        p = rng.standard_normal((nchains, 3))
        p -= (p * b).sum(1, keepdims=True) * b
        p /= np.linalg.norm(p, axis=1, keepdims=True)
        b = -np.cos(th[:, t - 1, None]) * b + np.sin(th[:, t - 1, None]) * p
        pos[:, t + 1] = pos[:, t] + U69_ANG_BOND * b
    pos = np.mod(pos.reshape(-1, 3), box)
    pos[pos >= box] = 0.0
    j = (np.arange(nchains)[:, None] * c + np.arange(1, c - 1)).ravel()
    return pos, np.stack([j - 1, j, j + 1, at.ravel()], 1).astype(np.int32), box


def _u69_ang_args(n, rng):
    """n angles of a copolymer melt (_u69_polymer, the chains needed, the last one's
    angles cut short): the beads (float4, w 0), the angles (int4, flat), the forces (3 a
    bead, float32, zeroed), the angle energies (float32, zeroed); box, n."""
    pos, ang, box = _u69_polymer(-(-n // (U69_ANG_CHAIN - 2)), rng)
    return [_u69_float4(pos), ang[:n].ravel(), np.zeros(3 * len(pos), np.float32), np.zeros(n, np.float32),
            np.float32(box), _i32(n)]


def _u69_ang_table():
    """c_ang: (K, theta0 in radians) of each angle type (float32 structs)."""
    t = np.zeros(len(U69_ANG_K), [("k", "<f4"), ("theta0", "<f4")])
    t["k"] = U69_ANG_K
    t["theta0"] = np.radians(U69_ANG_THETA0)
    return t


UNSEEN69 = [
    TimingProbe("probe/rdf-smem-hist", "probe-unseen69", "rdf_hist", 8192, U69_RDF_TILE,
                lambda n: -(-n // U69_RDF_TILE), _u69_rdf_args, source=_P71,
                note="g(r) histogram of 8192 LJ-liquid atoms, a thread an atom (32 blocks of 256 only): all 8192 "
                     "positions staged through a 256-float4 shared tile (2 barriers a tile), a minimum image by 3 "
                     "rintf a pair, ~52% of the 67M ordered pairs within r_max = box/2 taking sqrtf, a "
                     "float-to-int bin and a shared-memory atomicAdd into 256 bins; the block histogram added to "
                     "the global one at the end"),
    TimingProbe("probe/lj-nlist-const", "probe-unseen69", "lj_nlist", 1 << 19, 128, lambda n: -(-n // 128),
                _u69_lj_args, source=_P71, symbols=lambda n, rng: {"c_lj": _u69_lj_table()},
                note="Lennard-Jones forces of 2^19 atoms of a four-type liquid over a padded Verlet list (128 "
                     "slots a row, row-major, ~78 neighbours listed), a thread an atom: a scattered "
                     "neighbour-index load (rows 512 B apart), a float4 gather, a minimum image by 3 divisions and "
                     "rintf, ~72% within the cutoff taking the type pair's epsilon/sigma^2 from a __constant__ "
                     "struct table (divergent addresses), 2 divisions and ~12 FMAs; a float4 store"),
    TimingProbe("probe/ewald-sk-shfl", "probe-unseen69", "structure_factor", 16384, U69_SK_BLOCK, _u69_sk_nk,
                _u69_sk_args, source=_P71,
                note="Ewald structure factor of a box of 16384 SPC/E waters (49152 atoms, 768 KiB of float4) at "
                     "its 4144 k-vectors with |k| <= 1/A, a block of 256 a k-vector: every block strides over all "
                     "the atoms (L2-resident), a sincosf (phases up to ~140 rad) and 2 FMAs an atom, then "
                     "__shfl_down_sync reductions within warps and across the 8 warps through shared memory; "
                     "trig-bound"),
    TimingProbe("probe/mc-trial-double", "probe-unseen69", "mc_trial", 16384, U69_MC_BLOCK, lambda n: n,
                _u69_mc_args, source=_P71,
                note="one Metropolis trial move in each of 16384 independent 512-atom LJ systems (128 MiB of "
                     "float4), a block of 128 a system: each thread 4 atoms, two minimum-image distances (6 "
                     "divisions, 6 rintf) an atom, the ~10% within the cutoff taking a double division and double "
                     "FMAs, the energy change summed in double and reduced by a shared-memory tree (7 barriers); "
                     "thread 0 tests exp(-beta dE) (double exp, ~33% accepted) and writes the atom and a count"),
    TimingProbe("probe/coulomb-grid-const", "probe-unseen69", "coulomb_grid", 64, (16, 16),
                lambda n: (-(-n // 16), -(-n // 16), n), _u69_dcs_args, source=_P71, symbols=_u69_dcs_syms,
                note="direct Coulomb summation of a 1300-water box (3900 atoms in a __constant__ float4 array) "
                     "onto a 64^3 grid, a thread a point (16x16 blocks, blockIdx.z a plane): 3900 iterations of "
                     "uniform __constant__ loads, 3 subtractions, 3 FMAs, rsqrtf and an FMA, one store a point; "
                     "compute-bound (1.0G interactions)"),
    TimingProbe("probe/angle-harmonic-atomic", "probe-unseen69", "angle_forces", 1 << 22, 256,
                lambda n: -(-n // 256), _u69_ang_args, source=_P71,
                symbols=lambda n, rng: {"c_ang": _u69_ang_table()},
                note="harmonic angle term of 2^22 angles of a bead-spring AB copolymer melt (chains of 64, angles "
                     "in chain order), a thread an angle: an int4 load, 3 float4 gathers of consecutive beads, 6 "
                     "minimum images by division and rintf, 2 sqrtf, acosf, 13 more divisions, K and theta0 from a "
                     "__constant__ struct table by type (4 types), an energy store and 9 scattered float "
                     "atomicAdds (each bead's words hit by three angles)"),
]
PROBES += UNSEEN69

# probe-unseen71 (probes73.cu): an agent-based modelling / computational-epidemiology
# course's lattice, network and agent kernels as a student who knows CUDA basics writes
# them (counter-based hash random numbers), predicted before their first GPU run
_P73 = "probes73.cu"
U71_SIR_P = (0.70, 0.05, 0.25)                     # sir-lattice-hash: the S, I, R shares (uniform over the lattice)
U71_SIR_BETA, U71_SIR_TINF, U71_SIR_OMEGA = 0.15, 7, 0.01   # infection by one neighbour, infectious steps, R -> S
U71_SCH_P = (0.10, 0.45, 0.45)                     # schelling-cas-move: the empty, group 1, group 2 shares
U71_SCH_TOL, U71_SCH_TRIES = 0.375, 4              # happy with >= 3/8 of the occupied neighbours alike; tries
U71_CT_DEG = 16                                    # contact-sir-csr: mean contacts an agent (Poisson)
U71_CT_P = (0.85, 0.05, 0.10)                      # the S, I, R shares
U71_CT_BETA, U71_CT_GAMMA = 0.05, 0.1              # infection a contact, recovery a step
U71_RW_L, U71_RW_STEPS = 1024, 32                  # walkers-hist-atomic: the lattice side, lazy steps a launch
U71_RW_START = 0.5                                 # the walkers start uniform in the central 0.5 L x 0.5 L square
U71_YS_MU, U71_YS_SIGMA = 100.0, 1.0               # yardsale-float-atomic: wealth 1 + floor(lognormal(ln mu, sigma))
U71_YS_FRAC, U71_YS_BLOCK = 0.1, 256               # the stake's share of the poorer one's wealth; YS_BLOCK
U71_FF_P = (0.55, 0.44, 0.01)                      # forestfire-smem-halo: the empty, tree, fire shares
U71_FF_GROW, U71_FF_LIGHT, U71_FF_TILE = 0.01, 1e-4, 16   # p (growth), f (lightning), FF_TILE


def _u71_seed(rng):
    return np.uint32(rng.integers(0, 1 << 32))


def _u71_sir_args(n, rng):
    """An n x n lattice (bytes, row-major): states S / I / R (0 / 1 / 2) drawn with shares
    U71_SIR_P, the infectious cells' timers uniform in 1 .. t_inf (the others 0); the new
    states and timers (zeroed), the new-infection counter; omega, t_inf, a seed (uint32), n."""
    st = rng.choice(3, n * n, p=U71_SIR_P).astype(np.uint8)
    tm = np.where(st == 1, rng.integers(1, U71_SIR_TINF + 1, n * n), 0).astype(np.uint8)
    return [st, tm, np.zeros(n * n, np.uint8), np.zeros(n * n, np.uint8), np.zeros(1, np.int32),
            np.float32(U71_SIR_OMEGA), _i32(U71_SIR_TINF), _u71_seed(rng), _i32(n)]


def _u71_sir_syms(n, rng):
    return {"c_pinf": (1 - (1 - U71_SIR_BETA) ** np.arange(9)).astype(np.float32)}


def _u71_sch_args(n, rng):
    """An n x n Schelling lattice (int32: 0 empty, 1 / 2 the groups, shares U71_SCH_P); the
    claims (-1), the new lattice (a copy), the unhappy counter; tol, tries, a seed, n."""
    g = rng.choice(3, n * n, p=U71_SCH_P).astype(np.int32)
    return [g, np.full(n * n, -1, np.int32), g.copy(), np.zeros(1, np.int32), np.float32(U71_SCH_TOL),
            _i32(U71_SCH_TRIES), _u71_seed(rng), _i32(n)]


def _u71_csr_args(n, rng):
    """n agents with Poisson (U71_CT_DEG) contacts each, uniform (row_ptr int32 n + 1,
    contacts int32); states (uint8) with shares U71_CT_P; the infection flags (int32,
    zeroed), the new states (a copy), the new-infection counter; beta, gamma, a seed, n."""
    deg = rng.poisson(U71_CT_DEG, n)
    row_ptr = np.zeros(n + 1, np.int64)
    np.cumsum(deg, out=row_ptr[1:])
    contacts = rng.integers(0, n, int(row_ptr[-1]), dtype=np.int32)
    st = rng.choice(3, n, p=U71_CT_P).astype(np.uint8)
    return [st, row_ptr.astype(np.int32), contacts, np.zeros(n, np.int32), st.copy(), np.zeros(1, np.int32),
            np.float32(U71_CT_BETA), np.float32(U71_CT_GAMMA), _u71_seed(rng), _i32(n)]


def _u71_rw_args(n, rng):
    """n walkers (x, y: int32) uniform in the central U71_RW_START square of a U71_RW_L
    lattice; its density (int32, zeroed); steps, a seed, L, n."""
    L = U71_RW_L
    lo = int(L * (1 - U71_RW_START) / 2)
    hi = L - lo
    return [rng.integers(lo, hi, n, dtype=np.int32), rng.integers(lo, hi, n, dtype=np.int32),
            np.zeros(L * L, np.int32), _i32(U71_RW_STEPS), _u71_seed(rng), _i32(L), _i32(n)]


def _u71_ys_args(n, rng):
    """n agents' wealths, 1 + floor(lognormal(ln U71_YS_MU, U71_YS_SIGMA)) (whole units in
    float32, so that the atomic sums are exact), the new wealths (a copy), the traded
    volume (float32, zeroed); frac, a seed, n."""
    w = (1 + np.floor(rng.lognormal(np.log(U71_YS_MU), U71_YS_SIGMA, n))).astype(np.float32)
    return [w, w.copy(), np.zeros(1, np.float32), np.float32(U71_YS_FRAC), _u71_seed(rng), _i32(n)]


def _u71_ff_args(n, rng):
    """An n x n forest (bytes: 0 empty, 1 tree, 2 fire, shares U71_FF_P; n a multiple of
    U71_FF_TILE); the next state (zeroed), the fire counter; p, f, a seed, n."""
    st = rng.choice(3, n * n, p=U71_FF_P).astype(np.uint8)
    return [st, np.zeros(n * n, np.uint8), np.zeros(1, np.int32), np.float32(U71_FF_GROW), np.float32(U71_FF_LIGHT),
            _u71_seed(rng), _i32(n)]


UNSEEN71 = [
    TimingProbe("probe/sir-lattice-hash", "probe-unseen71", "sir_lattice_step", 4096, (16, 16),
                lambda n: (-(-n // 16), -(-n // 16)), _u71_sir_args, source=_P73, symbols=_u71_sir_syms,
                note="SIRS step on a 4096^2 periodic byte lattice, 16x16 blocks, a thread a cell: state and timer "
                     "bytes loaded, the 70% susceptible cells loop over 8 neighbours with two % wraps each and "
                     "draw a hash uniform against a __constant__ table (~1/3 of them have an infectious "
                     "neighbour), ~4% of the cells newly infected, each doing one global atomicAdd on a single "
                     "counter, the infectious count down, the recovered hash a waning draw; two bytes stored"),
    TimingProbe("probe/schelling-cas-move", "probe-unseen71", "schelling_step", 4096, (32, 8),
                lambda n: (-(-n // 32), -(-n // 8)), _u71_sch_args, source=_P73,
                note="Schelling step on a 4096^2 periodic int32 lattice (10% empty), 32x8 blocks, a thread a "
                     "cell: 8 wrapped neighbour loads with % and a similarity test, the ~21% unhappy agents "
                     "hashing up to 4 random cells (random gathers) and claiming the first empty one with "
                     "atomicCAS (two scattered stores on success), the unhappy counted by __ballot_sync and one "
                     "atomicAdd a warp"),
    TimingProbe("probe/contact-sir-csr", "probe-unseen71", "contact_sir_step", 1 << 21, 256,
                lambda n: -(-n // 256), _u71_csr_args, source=_P73,
                note="SIR step on a random contact network of 2^21 agents with ~16 contacts each (CSR), a thread "
                     "an agent: only the 5% infectious (under two lanes a warp) walk their contact row serially, "
                     "a random state-byte gather, a hash draw for the ~85% susceptible contacts and an atomicOr "
                     "flag plus a counter atomicAdd for the ~5% infected; a recovery draw"),
    TimingProbe("probe/walkers-hist-atomic", "probe-unseen71", "random_walk_hist", 1 << 22, 256,
                lambda n: -(-n // 256), _u71_rw_args, source=_P73,
                note="2^22 random walkers on a periodic 1024^2 lattice (starting in its central quarter), a thread "
                     "a walker: 32 lazy steps, each two hash32 calls, an unsigned % 5 switch (divergent) and a % "
                     "wrap, then one int atomicAdd into the density (16 walkers a cell on average); "
                     "compute-bound integer work"),
    TimingProbe("probe/yardsale-float-atomic", "probe-unseen71", "yard_sale_step", 1 << 24, U71_YS_BLOCK,
                lambda n: -(-n // U71_YS_BLOCK), _u71_ys_args, source=_P73,
                note="yard-sale wealth exchange over 2^24 agents, a thread an agent: a hash partner (unsigned %), "
                     "a random wealth gather, a floored stake and two float atomicAdds (one coalesced, one "
                     "scattered) onto the new wealths, then a 256-float shared-memory tree sum of the stakes (9 "
                     "barriers) and one float atomicAdd a block"),
    TimingProbe("probe/forestfire-smem-halo", "probe-unseen71", "forest_fire_step", 8192, (U71_FF_TILE, U71_FF_TILE),
                lambda n: (n // U71_FF_TILE, n // U71_FF_TILE), _u71_ff_args, source=_P73,
                note="Drossel-Schwabl forest-fire step on an 8192^2 periodic byte lattice, 16x16 blocks: the tile "
                     "and a wrapped one-cell halo (edge and corner threads' extra byte loads, four % each thread) "
                     "staged in an 18x18 shared byte array, the trees scanning 9 shared bytes (~7.5% catch fire), "
                     "hash draws for the trees and the empty cells, a byte stored, new fires counted by shared "
                     "atomicAdd and one global atomicAdd a block"),
]
PROBES += UNSEEN71

# probe-unseen72 (probes74.cu): a numerical ODE/SDE and optimization course's kernels
# (batched RK4 on Lorenz systems, an adaptive Dormand-Prince integrator in double,
# Euler-Maruyama Ornstein-Uhlenbeck paths, a particle-swarm step with a 64-bit atomicMin
# best, simulated annealing on a QUBO, a knapsack GA generation in shared memory) as a
# student who knows CUDA basics writes them, predicted before their first GPU run
_P74 = "probes74.cu"
U72_L_STEPS, U72_L_DT = 200, 0.005                 # rk4-lorenz: L_STEPS steps of dt (1 time unit)
U72_L_SIGMA, U72_L_BETA = 10.0, 8.0 / 3.0          # the shared Lorenz parameters
U72_L_RHO = (20.0, 32.0)                           # each system's rho, uniform (the sweep)
U72_DP_MAX, U72_DP_TEND, U72_DP_H0, U72_DP_TOL = 5000, 4.0, 0.01, 1e-6   # dopri-vdp: DP_MAX_STEPS, t_end, h0, tol
U72_DP_LOGMU = (-1.0, 1.0)                         # log10 mu uniform: mu 0.1 .. 10
U72_EM_STEPS = 256                                 # em-ou-max: EM_STEPS of dt (1 time unit)
U72_EM_THETA, U72_EM_MU, U72_EM_SIGMA = 2.0, 0.5, 0.4   # dX = theta (mu - X) dt + sigma dW
U72_EM_SEED = 7272
U72_PSO_DIM, U72_PSO_XSD = 16, 1.0                 # pso-rastrigin: PSO_DIM; positions N(0, xsd^2) an axis (mid-run)
U72_PSO_W, U72_PSO_C1, U72_PSO_C2, U72_PSO_VMAX = 0.72, 1.49, 1.49, 1.0   # inertia, pulls, velocity clamp
U72_PSO_SPREAD, U72_PSO_VSD = 0.3, 0.3             # pbest: the better of x and x + N(0, spread^2); v ~ N(0, vsd^2)
U72_PSO_SEED = 1234
U72_SA_N, U72_SA_MOVES = 64, 64                    # sa-qubo: SA_N; the moves a chain (an argument)
U72_SA_Q = 8                                       # Q's entries: integers in [-U72_SA_Q, U72_SA_Q] / 4
U72_SA_T0, U72_SA_ALPHA, U72_SA_SEED = 3.0, 0.95, 99
U72_SA_BLOCK = 128
U72_GA_POP, U72_GA_TOUR, U72_GA_GENES = 128, 4, 64  # ga-knapsack: GA_POP (a block), GA_TOUR, GA_GENES
U72_GA_ITEM = (1, 100)                             # item weights and values: integers uniform in this range
U72_GA_FILL = 115                                  # bits set in the population with probability this / 256
U72_GA_PMUT, U72_GA_SEED = 0.1, 4242


def _u72_hash(x):
    """hash32 (lowbias32) of uint32 x, as probes74.cu computes it."""
    x = np.asarray(x, np.uint32)
    x = x ^ (x >> np.uint32(16))
    x = x * np.uint32(0x7feb352d)
    x = x ^ (x >> np.uint32(15))
    x = x * np.uint32(0x846ca68b)
    return x ^ (x >> np.uint32(16))


def _u72_unif(h):
    """uniform01: the top 24 bits over 2^24 (float64, exact)."""
    return (np.asarray(h, np.uint32) >> np.uint32(8)).astype(np.float64) / 16777216.0


def _u72_lorenz_args(n, rng):
    """n Lorenz systems: x, y uniform in +-15, +-20, z in 5 .. 45, rho uniform in U72_L_RHO
    (all float32); sigma, beta, dt, n."""
    f = np.float32
    return [rng.uniform(-15, 15, n).astype(f), rng.uniform(-20, 20, n).astype(f), rng.uniform(5, 45, n).astype(f),
            rng.uniform(*U72_L_RHO, n).astype(f), f(U72_L_SIGMA), f(U72_L_BETA), f(U72_L_DT), _i32(n)]


def _u72_lorenz_ref(x, y, z, rho, sigma=U72_L_SIGMA, beta=U72_L_BETA, dt=U72_L_DT, steps=U72_L_STEPS):
    """rk4_lorenz's steps in float64: the final x, y, z."""
    x, y, z, r = (np.array(a, np.float64) for a in (x, y, z, rho))
    sigma, beta, dt = float(sigma), float(beta), float(dt)

    def f(x, y, z):
        return sigma * (y - x), x * (r - z) - y, x * y - beta * z
    for _ in range(steps):
        k1 = f(x, y, z)
        k2 = f(*(a + 0.5 * dt * k for a, k in zip((x, y, z), k1)))
        k3 = f(*(a + 0.5 * dt * k for a, k in zip((x, y, z), k2)))
        k4 = f(*(a + dt * k for a, k in zip((x, y, z), k3)))
        x, y, z = (a + dt / 6 * (p + 2 * q + 2 * s + t) for a, p, q, s, t in zip((x, y, z), k1, k2, k3, k4))
    return x, y, z


def _u72_dp_tableau():
    """Dormand-Prince 5(4): a (7 x 7, row-major), b (5th order), e (b minus the 4th-order b*)."""
    a = np.zeros((7, 7))
    a[1, :1] = [1 / 5]
    a[2, :2] = [3 / 40, 9 / 40]
    a[3, :3] = [44 / 45, -56 / 15, 32 / 9]
    a[4, :4] = [19372 / 6561, -25360 / 2187, 64448 / 6561, -212 / 729]
    a[5, :5] = [9017 / 3168, -355 / 33, 46732 / 5247, 49 / 176, -5103 / 18656]
    a[6, :6] = [35 / 384, 0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84]
    b = np.r_[a[6, :6], 0.0]
    bs = np.array([5179 / 57600, 0, 7571 / 16695, 393 / 640, -92097 / 339200, 187 / 2100, 1 / 40])
    return a, b, b - bs


def _u72_dp_syms(n, rng):
    a, b, e = _u72_dp_tableau()
    return {"c_dp_a": a.ravel(), "c_dp_b": b, "c_dp_e": e}


def _u72_vdp_args(n, rng):
    """n Van der Pol oscillators: y0, y1 uniform in +-2, mu log-uniform (U72_DP_LOGMU), all
    float64; the step counters (int32, zeroed); t_end, h0, tol, n."""
    return [rng.uniform(-2, 2, n), rng.uniform(-2, 2, n), 10.0 ** rng.uniform(*U72_DP_LOGMU, n),
            np.zeros(n, np.int32), np.zeros(n, np.int32), np.float64(U72_DP_TEND), np.float64(U72_DP_H0),
            np.float64(U72_DP_TOL), _i32(n)]


def _u72_dopri_ref(y0, y1, mu, t_end=U72_DP_TEND, h0=U72_DP_H0, tol=U72_DP_TOL, max_steps=U72_DP_MAX):
    """dopri_vdp's integration (float64, the systems side by side): y0, y1, accepted and
    rejected steps, and the smallest |err - 1| of any step's error test."""
    a, b, e = _u72_dp_tableau()
    y = np.stack([np.array(y0, np.float64), np.array(y1, np.float64)])
    mu = np.asarray(mu, np.float64)
    k = len(mu)
    t, h = np.zeros(k), np.full(k, float(h0))
    acc, rej = np.zeros(k, np.int64), np.zeros(k, np.int64)
    gap = np.full(k, np.inf)

    def rhs(y, m):
        return np.stack([y[1], m * (1 - y[0] * y[0]) * y[1] - y[0]])
    for _ in range(max_steps):
        on = np.flatnonzero(t < t_end)
        if len(on) == 0:
            break
        hh = np.where(t[on] + h[on] > t_end, t_end - t[on], h[on])
        yy, m = y[:, on], mu[on]
        ks = [rhs(yy, m)]
        for s in range(1, 7):
            ks.append(rhs(yy + hh * sum(a[s, j] * ks[j] for j in range(s)), m))
        yn = yy + hh * sum(b[s] * ks[s] for s in range(7))
        se = sum(e[s] * ks[s] for s in range(7))
        sc = tol + tol * np.maximum(np.abs(yy), np.abs(yn))
        err = np.sqrt((((hh * se) / sc) ** 2).sum(axis=0) / 2)
        ok = err <= 1
        gap[on] = np.minimum(gap[on], np.abs(err - 1))
        t[on[ok]] += hh[ok]
        y[:, on[ok]] = yn[:, ok]
        acc[on[ok]] += 1
        rej[on[~ok]] += 1
        h[on] = hh * np.minimum(5.0, np.maximum(0.2, 0.9 * np.maximum(err, 1e-10) ** -0.2))
    return y[0], y[1], acc, rej, gap


def _u72_em_args(n, rng):
    """n OU paths' starts (float32, N(U72_EM_MU, 0.5^2)); their ends and maxima (zeroed);
    theta, mu, sigma, dt, seed, n."""
    f = np.float32
    return [rng.normal(U72_EM_MU, 0.5, n).astype(f), np.zeros(n, f), np.zeros(n, f), f(U72_EM_THETA), f(U72_EM_MU),
            f(U72_EM_SIGMA), f(1.0 / U72_EM_STEPS), np.uint32(U72_EM_SEED), _i32(n)]


def _u72_em_ref(x0, theta=U72_EM_THETA, mu=U72_EM_MU, sigma=U72_EM_SIGMA, dt=1.0 / U72_EM_STEPS,
                seed=U72_EM_SEED, steps=U72_EM_STEPS):
    """em_ou_max's paths in float64 (the same hashed normals): the ends and maxima."""
    x = np.array(x0, np.float64)
    mx = x.copy()
    i = np.arange(len(x), dtype=np.uint32)
    for k in range(steps):
        c = np.uint32(seed) + np.uint32(2) * (i * np.uint32(steps) + np.uint32(k))
        u1 = ((_u72_hash(c) >> np.uint32(8)).astype(np.float64) + 1) / 16777216.0
        u2 = _u72_unif(_u72_hash(c + np.uint32(1)))
        z = np.sqrt(-2 * np.log(u1)) * np.cos(6.28318531 * u2)
        x = x + theta * (mu - x) * dt + sigma * np.sqrt(dt) * z
        mx = np.maximum(mx, x)
    return x, mx


def _u72_rastrigin(x):
    """Rastrigin's function of the rows of x (n x d), float64."""
    x = np.asarray(x, np.float64)
    return 10.0 * x.shape[-1] + (x * x - 10 * np.cos(2 * np.pi * x)).sum(axis=-1)


def _u72_pso_args(n, rng):
    """A swarm of n particles in U72_PSO_DIM dimensions mid-run: x N(0, U72_PSO_XSD^2),
    personal bests the better (Rastrigin) of x and x + N(0, U72_PSO_SPREAD^2), their
    values, velocities N(0, U72_PSO_VSD^2) (row-major n x dim, float32); the global best
    (the best personal best) and its key (f bits << 32 | index, uint64); w, c1, c2, vmax,
    seed, n."""
    f = np.float32
    d = U72_PSO_DIM
    x = rng.normal(0, U72_PSO_XSD, (n, d)).astype(f)
    pb = (x + rng.normal(0, U72_PSO_SPREAD, (n, d))).astype(f)
    pb = np.where((_u72_rastrigin(pb) < _u72_rastrigin(x))[:, None], pb, x)
    pf = _u72_rastrigin(pb).astype(f)
    v = rng.normal(0, U72_PSO_VSD, (n, d)).astype(f)
    g = int(np.argmin(pf))
    key = np.array([(int(pf[g:g + 1].view(np.uint32)[0]) << 32) | g], np.uint64)
    return [x.ravel(), v.ravel(), pb.ravel(), pf, pb[g].copy(), key, f(U72_PSO_W), f(U72_PSO_C1), f(U72_PSO_C2),
            f(U72_PSO_VMAX), np.uint32(U72_PSO_SEED), _i32(n)]


def _u72_pso_ref(x, v, pb, pf, gbest, key, w=U72_PSO_W, c1=U72_PSO_C1, c2=U72_PSO_C2, vmax=U72_PSO_VMAX,
                 seed=U72_PSO_SEED):
    """pso_rastrigin's step in float64: x, v, pbest, pbest_f, the improved mask and the
    new values."""
    d = U72_PSO_DIM
    x, v, pb = (np.array(a, np.float64).reshape(-1, d) for a in (x, v, pb))
    k = np.arange(x.size, dtype=np.uint32).reshape(-1, d)
    r1 = _u72_unif(_u72_hash(np.uint32(seed) + np.uint32(2) * k))
    r2 = _u72_unif(_u72_hash(np.uint32(seed) + np.uint32(2) * k + np.uint32(1)))
    v = np.clip(w * v + c1 * r1 * (pb - x) + c2 * r2 * (np.asarray(gbest, np.float64) - x), -vmax, vmax)
    x = x + v
    f = 10.0 * d + (x * x - 10 * np.cos(6.28318531 * x)).sum(axis=1)
    imp = f < pf
    return x, v, np.where(imp[:, None], x, pb), np.where(imp, f, pf), imp, f


def _u72_sa_q(rng):
    """A random symmetric QUBO matrix (SA_N x SA_N, float32): integers uniform in
    [-U72_SA_Q, U72_SA_Q] over 4 (energies and their sums exact in float32)."""
    q = rng.integers(-U72_SA_Q, U72_SA_Q + 1, (U72_SA_N, U72_SA_N))
    q = np.triu(q) + np.triu(q, 1).T
    return (q / 4).astype(np.float32)


def _u72_sa_args(n, rng):
    """One QUBO (_u72_sa_q, flat) and n chains' random bits (uint8, n x SA_N) with their
    energies x^T Q x (float32); the bits, energies and best energies out (zeroed); t0,
    alpha, seed, the moves (U72_SA_MOVES), n."""
    Q = _u72_sa_q(rng)
    x = rng.integers(0, 2, (n, U72_SA_N)).astype(np.uint8)
    xf = x.astype(np.float64)
    e0 = np.einsum("ci,ij,cj->c", xf, Q.astype(np.float64), xf).astype(np.float32)
    return [Q.ravel(), x.ravel(), e0, np.zeros(n * U72_SA_N, np.uint8), np.zeros(n, np.float32),
            np.zeros(n, np.float32), np.float32(U72_SA_T0), np.float32(U72_SA_ALPHA), np.uint32(U72_SA_SEED),
            _i32(U72_SA_MOVES), _i32(n)]


def _u72_sa_ref(Q, x0, e0, t0=U72_SA_T0, alpha=U72_SA_ALPHA, seed=U72_SA_SEED, moves=U72_SA_MOVES):
    """sa_qubo's chains (exact arithmetic in float64; T in float32 as the kernel steps it):
    the bits, energies, best energies and the smallest |u - exp(-dE / T)| of a test."""
    N = U72_SA_N
    Q = np.asarray(Q, np.float64).reshape(N, N)
    x = np.array(x0, np.float64).reshape(-1, N)
    e = np.array(e0, np.float64)
    best = e.copy()
    c = np.arange(len(e), dtype=np.uint32)
    rows = np.arange(len(e))
    T = np.float32(t0)
    gap = np.inf
    for m in range(moves):
        h = _u72_hash(np.uint32(seed) + c * np.uint32(moves) + np.uint32(m))
        i = (h & np.uint32(N - 1)).astype(np.int64)
        s = (Q[i] * x).sum(axis=1)
        qii = Q[i, i]
        dE = qii + 2 * (s - qii * x[rows, i])
        dE = np.where(x[rows, i] != 0, -dE, dE)
        u = _u72_unif(h)
        p = np.exp(-dE / np.float64(T))
        up = dE > 0
        if up.any():
            gap = min(gap, np.abs(u - p)[up].min())
        ok = (dE <= 0) | (u < p)
        x[rows[ok], i[ok]] = 1 - x[rows[ok], i[ok]]
        e = np.where(ok, e + dE, e)
        best = np.minimum(best, e)
        T = np.float32(T * np.float32(alpha))
    return x.astype(np.uint8).ravel(), e, best, gap


def _u72_ks_items():
    """The knapsack's items (fixed): weights and values (int32) integers uniform in
    U72_GA_ITEM, the capacity half the weights' sum."""
    r = np.random.default_rng(72)
    w = r.integers(U72_GA_ITEM[0], U72_GA_ITEM[1] + 1, U72_GA_GENES).astype(np.int32)
    v = r.integers(U72_GA_ITEM[0], U72_GA_ITEM[1] + 1, U72_GA_GENES).astype(np.int32)
    return w, v, int(w.sum()) // 2


def _u72_ga_args(n, rng):
    """n genomes (uint64, each bit set with probability U72_GA_FILL / 256; n a multiple of
    U72_GA_POP); the children, fitnesses and islands' best (zeroed); cap, p_mut, seed, n."""
    bits = rng.integers(0, 256, (n, U72_GA_GENES), dtype=np.uint8) < U72_GA_FILL
    pop = np.packbits(bits, axis=1, bitorder="little").view("<u8").ravel().astype(np.uint64)
    return [pop, np.zeros(n, np.uint64), np.zeros(n, np.int32), np.zeros(n // U72_GA_POP, np.int32),
            _i32(_u72_ks_items()[2]), np.float32(U72_GA_PMUT), np.uint32(U72_GA_SEED), _i32(n)]


def _u72_ga_syms(n, rng):
    w, v, _ = _u72_ks_items()
    return {"c_ks_w": w, "c_ks_v": v}


def _u72_ga_ref(pop, cap=None, p_mut=U72_GA_PMUT, seed=U72_GA_SEED):
    """ga_knapsack's generation in numpy: fitnesses, children, islands' best."""
    w, v, cap0 = _u72_ks_items()
    cap = cap0 if cap is None else cap
    pop = np.asarray(pop, np.uint64)
    n = len(pop)
    bits = np.unpackbits(pop.view(np.uint8).reshape(n, 8), axis=1, bitorder="little").astype(np.int64)
    ws, vs = bits @ w.astype(np.int64), bits @ v.astype(np.int64)
    fit = np.where(ws <= cap, vs, cap - ws)
    P, isl = U72_GA_POP, np.arange(n) // U72_GA_POP * U72_GA_POP
    ctr = np.uint32(seed) + np.uint32(16) * np.arange(n, dtype=np.uint32)
    parents = []
    for q in range(2):
        best = (_u72_hash(ctr) % np.uint32(P)).astype(np.int64)
        ctr = ctr + np.uint32(1)
        for _ in range(1, U72_GA_TOUR):
            cand = (_u72_hash(ctr) % np.uint32(P)).astype(np.int64)
            ctr = ctr + np.uint32(1)
            best = np.where(fit[isl + cand] > fit[isl + best], cand, best)
        parents.append(isl + best)
    mask = (_u72_hash(ctr).astype(np.uint64) << np.uint64(32)) | _u72_hash(ctr + np.uint32(1)).astype(np.uint64)
    child = (pop[parents[0]] & mask) | (pop[parents[1]] & ~mask)
    hm = _u72_hash(ctr + np.uint32(2))
    flip = np.uint64(1) << (hm & np.uint32(63)).astype(np.uint64)
    child = np.where(_u72_unif(hm) < p_mut, child ^ flip, child)
    return fit, child, fit.reshape(-1, P).max(axis=1)


UNSEEN72 = [
    TimingProbe("probe/rk4-lorenz-sweep", "probe-unseen72", "rk4_lorenz", 1 << 20, 256, lambda n: -(-n // 256),
                _u72_lorenz_args, source=_P74,
                note="classical RK4 on 2^20 independent Lorenz systems (a sweep over rho), a thread a system: 3 "
                     "coalesced float loads and rho, 200 fixed steps of 4 right-hand sides (~70 float FMAs/adds "
                     "a step, all in registers), 3 stores; compute-bound"),
    TimingProbe("probe/dopri-vdp-double", "probe-unseen72", "dopri_vdp", 1 << 16, 128, lambda n: -(-n // 128),
                _u72_vdp_args, source=_P74, symbols=_u72_dp_syms,
                note="adaptive Dormand-Prince 5(4) in double on 2^16 Van der Pol oscillators (mu log-uniform "
                     "0.1 .. 10) to t = 4 (tol 1e-6), a thread a system: the tableau from __constant__ double "
                     "arrays, 7 stages a try into a k[7][2] array, the error norm's sqrt and a double pow a try, "
                     "the number of tries data-dependent (11 .. ~110, mean ~41; a warp's slowest lane ~88)"),
    TimingProbe("probe/em-ou-pathmax", "probe-unseen72", "em_ou_max", 1 << 20, 256, lambda n: -(-n // 256),
                _u72_em_args, source=_P74,
                note="Euler-Maruyama on 2^20 Ornstein-Uhlenbeck paths of 256 steps, a thread a path: each step 2 "
                     "lowbias32 hashes (integer multiplies), a Box-Muller normal (logf, sqrtf, cosf) and 3 FMAs, "
                     "a running fmaxf; one load and 2 stores a path; SFU/integer-bound"),
    TimingProbe("probe/pso-rastrigin-atomicmin", "probe-unseen72", "pso_rastrigin", 1 << 20, 256,
                lambda n: -(-n // 256), _u72_pso_args, source=_P74,
                note="one particle-swarm step of 2^20 particles on the 16-D Rastrigin function (x, v, pbest "
                     "row-major: a warp's lanes 64 B apart), a thread a particle: 2 hashes, a gbest broadcast, "
                     "cosf and ~10 FMAs a dimension, x and v stored; the particles improving their personal best "
                     "(~50%) rewrite their 16-float row and do a 64-bit atomicMin on one packed (f, index) key"),
    TimingProbe("probe/sa-qubo-smem", "probe-unseen72", "sa_qubo", 1 << 15, U72_SA_BLOCK,
                lambda n: -(-n // U72_SA_BLOCK), _u72_sa_args, source=_P74,
                note="simulated annealing on one 64-variable QUBO with 2^15 chains, a thread a chain (256 blocks "
                     "of 128): Q staged into 16 KiB of shared memory, the chain's bits in a 64-byte local array, "
                     "64 moves each a hash, a 64-term row dot product (row i random per lane: sQ[i*64 + j] puts "
                     "a warp on one bank, ~25-way conflicts) and an expf Metropolis test"),
    TimingProbe("probe/ga-knapsack-tournament", "probe-unseen72", "ga_knapsack", 1 << 22, U72_GA_POP,
                lambda n: n // U72_GA_POP, _u72_ga_args, source=_P74, symbols=_u72_ga_syms,
                note="one knapsack GA generation on 2^22 64-bit genomes in islands of 128 (a block an island), a "
                     "thread an individual: 64 iterations of a bit test and two __constant__ loads (uniform "
                     "index) for the fitness, genomes and fitnesses in shared memory, 2 tournaments of 4 (random "
                     "shared reads, 8 hashes), uniform crossover and a one-bit mutation, the island's best by "
                     "__shfl_down_sync and shared memory"),
]
PROBES += UNSEEN72


# probe-unseen73 (probes75.cu): an applied-cryptography / computer-security course's
# kernels (a salted-SHA-256 PIN brute force with an early-exit flag, AES-128 CTR with four
# T-tables in shared memory, RC4-drop keystreams with the permutation in local memory,
# Miller-Rabin on 64-bit candidates by Montgomery multiplication, a Bloom-filter membership
# test, a repeating-key XOR frequency analysis privatized in shared memory) as a student
# who knows CUDA basics writes them, predicted before their first GPU run
_P75 = "probes75.cu"
U73_PIN_DIGITS, U73_PIN_SALT = 6, 4                # pin-crack: PIN_DIGITS, SALT_WORDS
U73_PIN_TRIES = 8                                  # PINs a thread (the grid: n / (256 * this) blocks)
U73_PIN_AT = (0.5, 0.75)                           # the leaked PIN: uniform in this fraction of the n tried
U73_RC4_KEYLEN, U73_RC4_DROP, U73_RC4_OUT = 16, 256, 16   # rc4-drop: RC4_KEYLEN, RC4_DROP, RC4_OUT
U73_MR_BASES = (2, 325, 9375, 28178, 450775, 9780504, 1795265022)   # miller-rabin: c_mr_bases
U73_BLOOM_K, U73_BLOOM_MAXLOG = 7, 29              # bloom-query: BLOOM_K; the filter's bits at most 2^this
U73_BLOOM_BITS_A_KEY = 128                         # the filter: 128 bits a query (2^29 at 2^22 queries)
U73_BLOOM_PRESENT = 0.5                            # the fraction of queries inserted in the filter
U73_XK_KEYLEN, U73_XK_MAXLEN, U73_XK_TRIPS = 13, 32, 16   # xor-hist: the key's length, XK_MAXLEN, words a thread
# xor-hist's plaintext: English letter frequencies (per cent), spaces and a little punctuation
U73_XK_TEXT = {" ": 18.0, "e": 10.2, "t": 7.5, "a": 6.7, "o": 6.1, "i": 5.7, "n": 5.6, "s": 5.3, "h": 5.0,
               "r": 5.0, "d": 3.5, "l": 3.3, "u": 2.3, "c": 2.3, "m": 2.0, "w": 1.9, "f": 1.8, "g": 1.6,
               "y": 1.6, "p": 1.6, "b": 1.2, "v": 0.8, "k": 0.6, "x": 0.15, "j": 0.12, "q": 0.1, "z": 0.07,
               ",": 1.0, ".": 0.9, "\n": 0.4, "T": 0.3, "I": 0.3, "'": 0.2}


def _u73_sha256_pin(salt, pin):
    """SHA-256 (hashlib) of salt (uint32 words, big-endian) || pin's U73_PIN_DIGITS ASCII
    digits, as 8 uint32 words."""
    import hashlib
    msg = np.asarray(salt, ">u4").tobytes() + b"%0*d" % (U73_PIN_DIGITS, int(pin))
    return np.frombuffer(hashlib.sha256(msg).digest(), ">u4").astype(np.uint32)


def _u73_pin_args(n, rng):
    """A random salt (4 uint32), the digest of the PIN drawn uniformly in U73_PIN_AT of
    0 .. n - 1 (8 uint32), the flag (int32, 0) and the found PIN (int32, -1); n the PINs
    tried (<= 10^6)."""
    assert n <= 10 ** U73_PIN_DIGITS
    salt = _u32(U73_PIN_SALT, rng)
    pin = int(rng.integers(int(U73_PIN_AT[0] * n), int(U73_PIN_AT[1] * n)))
    return [salt, _u73_sha256_pin(salt, pin), np.zeros(1, np.int32), np.full(1, -1, np.int32), _i32(n)]


def _u73_pin_ref(salt, target, n):
    """The first PIN of 0 .. n - 1 whose digest is target (hashlib), or -1."""
    t = np.asarray(target, np.uint32)
    for pin in range(int(n)):
        if (_u73_sha256_pin(salt, pin) == t).all():
            return pin
    return -1


def _u73_aes_te():
    """AES's encryption T-tables Te0 .. Te3 (4 x 256 uint32, flat; Te0[x] = 2s, s, s, 3s
    big-endian, Te_k = Te0 rotated right by 8 k) and the S-box (256 uint8)."""
    sb = aes_sbox()
    te0 = np.array([(_xtime(s) << 24) | (s << 16) | (s << 8) | (_xtime(s) ^ s) for s in sb], np.uint32)
    tes = [te0] + [(te0 >> np.uint32(8 * k)) | (te0 << np.uint32(32 - 8 * k)) for k in (1, 2, 3)]
    return np.concatenate(tes).astype(np.uint32), np.array(sb, np.uint8)


def _u73_aes_encrypt(s, rk):
    """AES-128 of the blocks s (k x 4 big-endian uint32 words) under the round keys rk (44
    words), by the T-tables in numpy."""
    te, sb = _u73_aes_te()
    te = te.reshape(4, 256).astype(np.uint32)
    sb = sb.astype(np.uint32)
    rk = np.asarray(rk, np.uint32)
    s = [np.asarray(s, np.uint32)[:, c] ^ rk[c] for c in range(4)]
    m = np.uint32(0xFF)

    def byte(x, k):                                     # byte k from the top of x
        return (x >> np.uint32(24 - 8 * k)) & m
    for r in range(1, 10):
        s = [te[0][byte(s[c], 0)] ^ te[1][byte(s[(c + 1) % 4], 1)] ^ te[2][byte(s[(c + 2) % 4], 2)]
             ^ te[3][byte(s[(c + 3) % 4], 3)] ^ rk[4 * r + c] for c in range(4)]
    return np.stack([((sb[byte(s[c], 0)] << np.uint32(24)) | (sb[byte(s[(c + 1) % 4], 1)] << np.uint32(16))
                     | (sb[byte(s[(c + 2) % 4], 2)] << np.uint32(8)) | sb[byte(s[(c + 3) % 4], 3)]) ^ rk[40 + c]
                     for c in range(4)], axis=1).astype(np.uint32)


def _u73_aes_args(n, rng):
    """n random 16-byte plaintext blocks (uint32 words, 4 n) and the ciphertext (zeroed);
    the T-tables, the S-box, a random key's 44 round keys; a random 64-bit nonce (two
    words), n."""
    te, sb = _u73_aes_te()
    key = bytes(rng.integers(0, 256, 16, dtype=np.uint8))
    return [_u32(4 * n, rng), np.zeros(4 * n, np.uint32), te, sb, aes_round_keys(key), *_u32(2, rng), _i32(n)]


def _u73_aes_ctr_ref(pt, rk, nonce0, nonce1):
    """aes128_ctr's ciphertext (uint32 words) of the plaintext words pt."""
    n = len(pt) // 4
    ctr = np.zeros((n, 4), np.uint32)
    ctr[:, 0], ctr[:, 1], ctr[:, 3] = nonce0, nonce1, np.arange(n, dtype=np.uint32)
    ks = _u73_aes_encrypt(ctr, rk).byteswap()          # keystream bytes in memory order
    return np.asarray(pt, np.uint32) ^ ks.ravel()


def _u73_rc4_args(n, rng):
    """n random 16-byte keys (uint8, n x 16), the keystream (uint8, n x RC4_OUT, zeroed), n."""
    return [rng.integers(0, 256, n * U73_RC4_KEYLEN, dtype=np.uint8), np.zeros(n * U73_RC4_OUT, np.uint8), _i32(n)]


def _u73_rc4_ref(keys, keylen=U73_RC4_KEYLEN, drop=U73_RC4_DROP, out=U73_RC4_OUT):
    """RC4-drop[drop] of each key (rows of keylen bytes), the keys side by side: the next
    `out` keystream bytes (uint8, k x out)."""
    K = np.asarray(keys, np.uint8).reshape(-1, keylen).astype(np.int64)
    k = len(K)
    rows = np.arange(k)
    S = np.tile(np.arange(256, dtype=np.int64), (k, 1))
    j = np.zeros(k, np.int64)
    for i in range(256):
        j = (j + S[:, i] + K[:, i % keylen]) & 255
        si, sj = S[:, i].copy(), S[rows, j]
        S[:, i], S[rows, j] = sj, si
    i = 0
    j[:] = 0
    res = np.zeros((k, out), np.uint8)
    for t in range(drop + out):
        i = (i + 1) & 255
        j = (j + S[:, i]) & 255
        si, sj = S[:, i].copy(), S[rows, j]
        S[:, i], S[rows, j] = sj, si
        if t >= drop:
            res[:, t - drop] = S[rows, (S[:, i] + S[rows, j]) & 255]
    return res


def _u73_mr_args(n, rng):
    """n random odd 64-bit candidates with the top bit set (uint64); the flags (int32) and
    the prime count (uint32, one), zeroed; n."""
    c = rng.integers(0, 1 << 63, n, dtype=np.uint64) | np.uint64((1 << 63) | 1)
    return [c, np.zeros(n, np.int32), np.zeros(1, np.uint32), _i32(n)]


def _u73_is_prime(N):
    """Miller-Rabin with U73_MR_BASES (exact below 2^64), as miller_rabin64 decides."""
    N = int(N)
    if N < 4 or N % 2 == 0:
        return N in (2, 3)
    d, s = N - 1, 0
    while d % 2 == 0:
        d, s = d // 2, s + 1
    for a in U73_MR_BASES:
        a %= N
        if a == 0:
            continue
        x = pow(a, d, N)
        if x in (1, N - 1):
            continue
        for _ in range(s - 1):
            x = x * x % N
            if x == N - 1:
                break
        else:
            return False
    return True


def _u73_mr_ref(cand):
    """miller_rabin64's flags (int32)."""
    return np.array([_u73_is_prime(c) for c in np.asarray(cand, np.uint64).tolist()], np.int32)


def _u73_fmix32(h):
    h = np.asarray(h, np.uint32)
    h = h ^ (h >> np.uint32(16))
    h = h * np.uint32(0x85EBCA6B)
    h = h ^ (h >> np.uint32(13))
    h = h * np.uint32(0xC2B2AE35)
    return h ^ (h >> np.uint32(16))


def _u73_bloom_bits(keys, mask):
    """The BLOOM_K filter bits of each key (uint32, k x BLOOM_K), as bloom_query probes them."""
    keys = np.asarray(keys, np.uint64)
    h1 = _u73_fmix32((keys & np.uint64(0xFFFFFFFF)).astype(np.uint32))
    h2 = _u73_fmix32((keys >> np.uint64(32)).astype(np.uint32)) | np.uint32(1)
    k = np.arange(U73_BLOOM_K, dtype=np.uint32)
    return (h1[:, None] + k[None, :] * h2[:, None]) & np.uint32(mask)


def _u73_bloom_log2(n):
    """log2 of the filter's bits for n queries: U73_BLOOM_BITS_A_KEY a query, 2^10 .. 2^29."""
    return min(U73_BLOOM_MAXLOG, max(10, int(np.ceil(np.log2(U73_BLOOM_BITS_A_KEY * n)))))


def _u73_bloom_args(n, rng):
    """n random 64-bit keys (uint64; a U73_BLOOM_PRESENT share of them inserted, at random
    places); a filter of 2^min(29, log2(128 n)) bits (uint32 words), random bits at density
    1/2 (an optimally loaded filter) with the inserted keys' bits set; the hits (uint8,
    zeroed), the bit mask, n."""
    lg = _u73_bloom_log2(n)
    mask = (1 << lg) - 1
    keys = rng.integers(0, 2 ** 64 - 1, n, dtype=np.uint64, endpoint=True)
    filt = _u32(1 << (lg - 5), rng)
    present = rng.random(n) < U73_BLOOM_PRESENT
    bits = _u73_bloom_bits(keys[present], mask).ravel()
    np.bitwise_or.at(filt, bits >> np.uint32(5), np.uint32(1) << (bits & np.uint32(31)))
    return [keys, filt, np.zeros(n, np.uint8), np.uint32(mask), _i32(n)]


def _u73_bloom_ref(keys, filt, mask):
    """bloom_query's hits (uint8) and the bits each query reads before it stops."""
    bits = _u73_bloom_bits(keys, mask)
    on = (np.asarray(filt, np.uint32)[bits >> np.uint32(5)] >> (bits & np.uint32(31))) & np.uint32(1)
    hit = on.all(axis=1)
    probes = np.where(hit, U73_BLOOM_K, np.argmin(on, axis=1) + 1)
    return hit.astype(np.uint8), probes


def _u73_text(n, rng):
    """n bytes of English-like text (uint8) drawn from U73_XK_TEXT's frequencies."""
    ch = np.frombuffer("".join(U73_XK_TEXT).encode(), np.uint8)
    p = np.array(list(U73_XK_TEXT.values()))
    return ch[rng.choice(len(ch), n, p=p / p.sum())]


def _u73_xor_args(n, rng):
    """n bytes (a multiple of 4) of English-like text XORed with a random U73_XK_KEYLEN-byte
    key repeated (uint32 words); the histogram (keylen x 256 uint32, zeroed), keylen, the
    words."""
    assert n % 4 == 0
    key = rng.integers(0, 256, U73_XK_KEYLEN, dtype=np.uint8)
    ct = _u73_text(n, rng) ^ np.resize(key, n)
    return [ct.view(np.uint32), np.zeros(U73_XK_KEYLEN * 256, np.uint32), _i32(U73_XK_KEYLEN), _i32(n // 4)]


def _u73_xor_ref(ct, keylen):
    """xor_pos_hist's histogram: byte counts a position mod keylen (uint32, keylen x 256, flat)."""
    b = np.asarray(ct, np.uint32).view(np.uint8)
    pos = np.arange(len(b)) % keylen
    return np.bincount(pos * 256 + b, minlength=keylen * 256).astype(np.uint32)


UNSEEN73 = [
    TimingProbe("probe/pin-sha256-earlyexit", "probe-unseen73", "pin_crack", 10 ** 6, 256,
                lambda n: -(-n // (256 * U73_PIN_TRIES)), _u73_pin_args, source=_P75,
                note="brute force of a salted 6-digit PIN against a leaked SHA-256 digest: 10^6 PINs, 489 blocks "
                     "of 256 threads each trying up to 8 PINs a grid apart; a PIN is 6 integer % and / by 10, a "
                     "one-block SHA-256 (W[64] schedule, 64 rounds of rotates/xors, K from __constant__ at a "
                     "uniform index) and an 8-word compare; every try first reads a volatile found flag, and the "
                     "PIN sits 50-75% of the way through, so the grid quits after 4-6 of its 8 rounds (5 at seed "
                     "0); integer-ALU-bound at low occupancy (~3.7 blocks an SM)"),
    TimingProbe("probe/aes128-ctr-4tables", "probe-unseen73", "aes128_ctr", 1 << 22, 256, lambda n: -(-n // 256),
                _u73_aes_args, source=_P75,
                note="AES-128 CTR over 2^22 16-byte blocks (64 MiB in, 64 MiB out), a thread a block: the four "
                     "1 KiB T-tables, the byte S-box and 44 round keys staged into shared memory every block, 9 "
                     "rounds of 16 table lookups at data-dependent indices (random banks: ~3-4-way conflicts a "
                     "lookup) plus 4 round-key broadcasts, a last round of 16 S-box byte reads, one uint4 load and "
                     "store; shared-memory-bound"),
    TimingProbe("probe/rc4-drop256-local", "probe-unseen73", "rc4_drop", 1 << 18, 256, lambda n: -(-n // 256),
                _u73_rc4_args, source=_P75,
                note="RC4-drop[256] keystreams for 2^18 16-byte keys, a thread a key: its 256-byte permutation S a "
                     "local array (local memory), 256 byte stores to fill it, a 256-step key schedule (S[k] "
                     "uniform, S[j] at a random byte a lane, the key byte from global, 16 B a lane apart) and 272 "
                     "keystream steps (3 random-index loads, 2 stores), the last 16 bytes stored 16 B a lane "
                     "apart; local-memory-latency-bound, ~4 dependent local accesses a step"),
    TimingProbe("probe/miller-rabin-mont64", "probe-unseen73", "miller_rabin64", 1 << 16, 256,
                lambda n: -(-n // 256), _u73_mr_args, source=_P75,
                note="Miller-Rabin on 2^16 random odd 64-bit candidates (top bit set; ~4.5% prime), a thread a "
                     "candidate: Newton's inverse, a 64-bit % and 64 modular doublings to set up Montgomery form, "
                     "then per witness base (7 in __constant__) ~63 Montgomery squarings and ~31 multiplies "
                     "(__umul64hi, 64-bit IMADs, a data-dependent branch a bit); composites leave after base 1, "
                     "primes run all 7, so ~3/4 of warps wait on one prime lane (~7x the work); primes counted by "
                     "atomicAdd; 64-bit-integer-multiply-bound and divergent"),
    TimingProbe("probe/bloom-query-earlyexit", "probe-unseen73", "bloom_query", 1 << 22, 256,
                lambda n: -(-n // 256), _u73_bloom_args, source=_P75,
                note="Bloom-filter membership of 2^22 64-bit keys against a 2^29-bit (64 MiB, beyond L2) filter "
                     "half full, a thread a key: two fmix32 hashes, then up to 7 4-byte loads at random words "
                     "(double hashing), each behind the last one's test: stopping at the first clear bit; half the "
                     "keys are members (7 probes), the rest stop after ~2, so warps run the slowest lane's 7; a "
                     "uint8 store a key; "
                     "DRAM-latency-bound random gather"),
    TimingProbe("probe/xor-keypos-hist-smem", "probe-unseen73", "xor_pos_hist", 1 << 24, 256,
                lambda n: -(-(n // 4) // (256 * U73_XK_TRIPS)), _u73_xor_args, source=_P75,
                note="frequency analysis of a repeating-key XOR ciphertext: 2^24 bytes of English-like text XOR a "
                     "13-byte key, 1024 blocks of 256 threads each reading 16 words grid-stride (coalesced), 4 "
                     "(% 13, shared atomicAdd) a word into a 13 x 256 per-block histogram (skewed bytes: "
                     "~18% spaces, same-address and bank collisions among lanes), zeroing and merging 3328 bins a "
                     "block (an atomicAdd a non-zero bin, <= 33 of 256 a position); shared-atomic-bound"),
]
PROBES += UNSEEN73


# probe-unseen74 (probes76.cu): a computational-fluid-dynamics course's kernels (a D2Q9
# lattice-Boltzmann step with the populations cell by cell and bounce-back, MUSCL-minmod
# upwind advection, a red-black SOR half-sweep of a pressure Poisson equation, a 3-D heat
# step staged in shared memory, RK2 tracers with bilinear interpolation, the CFL step's
# maximum by a shared tree and atomicMax) as a student who knows CUDA basics writes them
_P76 = "probes76.cu"
U74_LBM_N = 2048                                   # lbm: an n x n periodic channel (walls: rows 0 and n - 1)
U74_LBM_OMEGA, U74_LBM_U0 = 1.6, 0.08              # BGK rate (tau 0.625); the inflow profile's peak speed
U74_LBM_CYL = (0.25, 0.5, 0.1)                     # the cylinder: centre (x, y) and radius, fractions of n
U74_LBM_NOISE = 0.01                               # rho 1 + N(0, noise^2), velocities + N(0, noise^2)
U74_AD_N = 4096                                    # advect: an n x n periodic grid
U74_AD_K, U74_AD_U0 = 8, 1.0                       # Taylor-Green velocity: k vortex pairs an axis, peak speed
U74_AD_C = 0.4                                     # cx = cy = dt / dx (Courant number at the peak speed)
U74_AD_SQUARES = 8                                 # squares of q = 1 (side n / 16) over a smooth background
U74_SOR_N = 8192                                   # sor: nx = n, ny = n / 2
U74_SOR_OMEGA, U74_SOR_COLOR = 1.8, 0              # over-relaxation; the colour swept (red: (i + j) even)
U74_SOR_RHS = 0.1                                  # h^2 rhs ~ N(0, this^2)
U74_HT_N, U74_HT_ALPHA = 320, 0.125                # heat3d: an n^3 grid; dt / h^2 (stable below 1/6)
U74_HT_BLOCK = (32, 4, 4)                          # HX, HY, HZ
U74_TR_N, U74_TR_GRID = 1 << 22, 1024              # tracers: particles; the velocity grid's side
U74_TR_MODES, U74_TR_UMAX, U74_TR_DT = 6, 1.5, 0.5  # stream-function modes, peak speed (cells), dt
U74_CFL_N, U74_CFL_BLOCK = 1 << 24, 256            # cfl: cells; CFL_BLOCK
U74_CFL_GAMMA, U74_CFL_INVDX = 1.4, 4096.0         # gamma; 1 / dx = 1 / dy


def _u74_d2q9():
    """The D2Q9 lattice as probes76.cu's constants: ex, ey, w, opp."""
    ex = np.array([0, 1, 0, -1, 0, 1, -1, -1, 1])
    ey = np.array([0, 0, 1, 0, -1, 1, 1, -1, -1])
    w = np.array([4 / 9] + [1 / 9] * 4 + [1 / 36] * 4)
    return ex, ey, w, np.array([0, 3, 4, 1, 2, 7, 8, 5, 6])


def _u74_feq(rho, ux, uy):
    """D2Q9 equilibria (9 x shape of rho, float64)."""
    ex, ey, w, _ = _u74_d2q9()
    eu = 3 * (ex[:, None, None] * ux + ey[:, None, None] * uy)
    return w[:, None, None] * rho * (1 + eu + 0.5 * eu * eu - 1.5 * (ux * ux + uy * uy))


def _u74_lbm_solid(n):
    """The n x n channel's solid cells (uint8): rows 0 and n - 1 and the cylinder U74_LBM_CYL."""
    y, x = np.mgrid[0:n, 0:n]
    cx, cy, r = (c * n for c in U74_LBM_CYL)
    s = (x - cx) ** 2 + (y - cy) ** 2 <= r * r
    s[0, :] = s[-1, :] = True
    return s.astype(np.uint8)


def _u74_lbm_args(n, rng):
    """An n x n D2Q9 channel mid-run: fluid cells at equilibrium for rho 1 + noise and a
    parabolic profile of peak U74_LBM_U0 plus noise, solid cells at rest (w); f cell by
    cell (f[(y n + x) 9 + q], float32), f_out (zeroed), the solid mask, omega, nx, ny."""
    solid = _u74_lbm_solid(n)
    y = np.arange(n)[:, None]
    prof = U74_LBM_U0 * 4 * y * (n - 1 - y) / (n - 1) ** 2
    rho = 1 + U74_LBM_NOISE * rng.standard_normal((n, n))
    ux = prof + U74_LBM_NOISE * rng.standard_normal((n, n))
    uy = U74_LBM_NOISE * rng.standard_normal((n, n))
    f = _u74_feq(rho, ux, uy)
    f[:, solid != 0] = _u74_d2q9()[2][:, None]
    return [f.transpose(1, 2, 0).astype(np.float32).ravel(), np.zeros(9 * n * n, np.float32), solid.ravel(),
            np.float32(U74_LBM_OMEGA), _i32(n), _i32(n)]


def _u74_lbm_ref(f_in, solid, n, omega=U74_LBM_OMEGA):
    """lbm_d2q9_aos's step in float64: f_out (cell by cell, flat)."""
    ex, ey, w, opp = _u74_d2q9()
    f = np.asarray(f_in, np.float64).reshape(n, n, 9).transpose(2, 0, 1)
    fs = np.stack([np.roll(f[q], (ey[q], ex[q]), axis=(0, 1)) for q in range(9)])
    rho = fs.sum(axis=0)
    ux = (ex[:, None, None] * fs).sum(axis=0) / rho
    uy = (ey[:, None, None] * fs).sum(axis=0) / rho
    out = fs + float(omega) * (_u74_feq(rho, ux, uy) - fs)
    sol = np.asarray(solid).reshape(n, n) != 0
    out[:, sol] = fs[opp][:, sol]
    return out.transpose(1, 2, 0).ravel()


def _u74_ad_fields(n, rng):
    """The advection grid's q (a smooth background and U74_AD_SQUARES random squares of 1),
    u, v (Taylor-Green, U74_AD_K vortex pairs an axis), n x n float32."""
    y, x = np.mgrid[0:n, 0:n] / n
    q = 0.5 + 0.25 * np.sin(2 * np.pi * 3 * x) * np.sin(2 * np.pi * 2 * y)
    side = max(n // 16, 2)
    for _ in range(U74_AD_SQUARES):
        i, j = rng.integers(0, n - side, 2)
        q[j:j + side, i:i + side] = 1.0
    k = 2 * np.pi * U74_AD_K
    u = U74_AD_U0 * np.sin(k * x) * np.cos(k * y)
    v = -U74_AD_U0 * np.cos(k * x) * np.sin(k * y)
    return [a.astype(np.float32) for a in (q, u, v)]


def _u74_ad_args(n, rng):
    """q, u, v (_u74_ad_fields, flat), q_new (zeroed), cx, cy, nx, ny."""
    q, u, v = _u74_ad_fields(n, rng)
    return [q.ravel(), u.ravel(), v.ravel(), np.zeros(n * n, np.float32), np.float32(U74_AD_C),
            np.float32(U74_AD_C), _i32(n), _i32(n)]


def _u74_minmod(a, b):
    return np.where(a * b <= 0, 0.0, np.where(np.abs(a) < np.abs(b), a, b))


def _u74_face(l, c, r, rr, vel):
    return np.where(vel > 0, c + 0.5 * _u74_minmod(c - l, r - c), r - 0.5 * _u74_minmod(r - c, rr - r))


def _u74_ad_ref(q, u, v, nx, ny, cx=U74_AD_C, cy=U74_AD_C):
    """advect_muscl's step in float64 (ny x nx): q_new, and the fraction of faces whose
    minmod returns 0."""
    q, u, v = (np.asarray(a, np.float64).reshape(ny, nx) for a in (q, u, v))

    def sh(a, d, ax):                       # a[.. i + d ..], periodic
        return np.roll(a, -d, axis=ax)
    ue, uw = 0.5 * (u + sh(u, 1, 1)), 0.5 * (sh(u, -1, 1) + u)
    vn, vs = 0.5 * (v + sh(v, 1, 0)), 0.5 * (sh(v, -1, 0) + v)
    fe = ue * _u74_face(sh(q, -1, 1), q, sh(q, 1, 1), sh(q, 2, 1), ue)
    fw = uw * _u74_face(sh(q, -2, 1), sh(q, -1, 1), q, sh(q, 1, 1), uw)
    fn = vn * _u74_face(sh(q, -1, 0), q, sh(q, 1, 0), sh(q, 2, 0), vn)
    fs = vs * _u74_face(sh(q, -2, 0), sh(q, -1, 0), q, sh(q, 1, 0), vs)
    qn = q - float(cx) * (fe - fw) - float(cy) * (fn - fs)
    up = np.where(ue > 0, (q - sh(q, -1, 1)) * (sh(q, 1, 1) - q), (sh(q, 1, 1) - q) * (sh(q, 2, 1) - sh(q, 1, 1)))
    return qn.ravel(), float((up <= 0).mean())


def _u74_sor_args(n, rng):
    """An nx x ny (n x n / 2) pressure field mid-solve (uniform in +-1) and the right-hand
    side (N(0, U74_SOR_RHS^2) / h^2), float32; omega, h2, color, nx, ny."""
    nx, ny = n, n // 2
    h2 = np.float32((1.0 / (nx - 1)) ** 2)
    p = rng.uniform(-1, 1, nx * ny).astype(np.float32)
    rhs = (rng.normal(0, U74_SOR_RHS, nx * ny) / np.float64(h2)).astype(np.float32)
    return [p, rhs, np.float32(U74_SOR_OMEGA), h2, _i32(U74_SOR_COLOR), _i32(nx), _i32(ny)]


def _u74_sor_ref(p, rhs, omega, h2, color, nx, ny):
    """sor_redblack's half-sweep in float64 (the updated cells read only the other
    colour): p after (flat) and the mask of updated cells."""
    P = np.asarray(p, np.float64).reshape(ny, nx).copy()
    R = np.asarray(rhs, np.float64).reshape(ny, nx)
    j, i = np.mgrid[0:ny, 0:nx]
    m = (i >= 1) & (j >= 1) & (i < nx - 1) & (j < ny - 1) & ((i + j) % 2 == color)
    nb = np.zeros_like(P)
    nb[1:-1, 1:-1] = P[1:-1, :-2] + P[1:-1, 2:] + P[:-2, 1:-1] + P[2:, 1:-1]
    gs = 0.25 * (nb - float(h2) * R)
    P[m] = P[m] + float(omega) * (gs[m] - P[m])
    return P.ravel(), m.ravel()


def _u74_ht_grid(n):
    bx, by, bz = U74_HT_BLOCK
    return (-(-n // bx), -(-n // by), -(-n // bz))


def _u74_ht_args(n, rng):
    """An n^3 temperature field (x fastest): a hot sphere (1) in a cold box (0) plus
    uniform noise in [0, 0.1), float32; T_new (zeroed), alpha, nx, ny, nz."""
    z, y, x = np.ogrid[0:n, 0:n, 0:n]
    c = (n - 1) / 2
    hot = ((x - c) ** 2 + (y - c) ** 2 + (z - c) ** 2) <= (n / 4) ** 2
    T = hot.astype(np.float32) + rng.uniform(0, 0.1, (n, n, n)).astype(np.float32)
    return [T.ravel(), np.zeros(n ** 3, np.float32), np.float32(U74_HT_ALPHA), _i32(n), _i32(n), _i32(n)]


def _u74_ht_ref(T, n, alpha=U74_HT_ALPHA):
    """heat3d_smem's step in float64 (the boundary faces copied): T_new (flat)."""
    T = np.asarray(T, np.float64).reshape(n, n, n)
    out = T.copy()
    c = T[1:-1, 1:-1, 1:-1]
    lap = (T[1:-1, 1:-1, :-2] + T[1:-1, 1:-1, 2:] + T[1:-1, :-2, 1:-1] + T[1:-1, 2:, 1:-1] + T[:-2, 1:-1, 1:-1]
           + T[2:, 1:-1, 1:-1] - 6 * c)
    out[1:-1, 1:-1, 1:-1] = c + float(alpha) * lap
    return out.ravel()


def _u74_tr_field(rng, g=U74_TR_GRID):
    """A periodic divergence-free velocity on a g x g grid (cell units): u = dpsi/dy, v =
    -dpsi/dx of U74_TR_MODES random Fourier modes (wavenumbers 1 .. 8), scaled to a peak
    speed of U74_TR_UMAX, float32 (row j, column i)."""
    y, x = np.mgrid[0:g, 0:g] * (2 * np.pi / g)
    u = np.zeros((g, g))
    v = np.zeros((g, g))
    for _ in range(U74_TR_MODES):
        kx, ky = rng.integers(-8, 9, 2)
        a, ph = rng.normal(), rng.uniform(0, 2 * np.pi)
        s = a * np.cos(kx * x + ky * y + ph)
        u += ky * s
        v -= kx * s
    sc = U74_TR_UMAX / max(np.abs(u).max(), np.abs(v).max(), 1e-12)
    return (u * sc).astype(np.float32), (v * sc).astype(np.float32)


def _u74_tr_args(n, rng):
    """n tracers uniform over the U74_TR_GRID^2 domain (cell units, float32) and the
    velocity grid (_u74_tr_field, flat); dt, nx, ny, np."""
    g = U74_TR_GRID
    top = np.float32(np.nextafter(np.float32(g), np.float32(0)))
    px = np.minimum(rng.uniform(0, g, n).astype(np.float32), top)
    py = np.minimum(rng.uniform(0, g, n).astype(np.float32), top)
    u, v = _u74_tr_field(rng)
    return [px, py, u.ravel(), v.ravel(), np.float32(U74_TR_DT), _i32(g), _i32(g), _i32(n)]


def _u74_bilinear(f, x, y):
    g1, g0 = f.shape
    fx, fy = np.floor(x), np.floor(y)
    ax, ay = x - fx, y - fy
    i0, j0 = fx.astype(np.int64) % g0, fy.astype(np.int64) % g1
    i1, j1 = (i0 + 1) % g0, (j0 + 1) % g1
    return (1 - ay) * ((1 - ax) * f[j0, i0] + ax * f[j0, i1]) + ay * ((1 - ax) * f[j1, i0] + ax * f[j1, i1])


def _u74_tr_ref(px, py, u, v, dt=U74_TR_DT, g=U74_TR_GRID):
    """advect_tracers' step in float64: the new x, y (wrapped into [0, g))."""
    u, v = (np.asarray(a, np.float64).reshape(g, g) for a in (u, v))
    x, y = np.asarray(px, np.float64), np.asarray(py, np.float64)
    xm = x + 0.5 * dt * _u74_bilinear(u, x, y)
    ym = y + 0.5 * dt * _u74_bilinear(v, x, y)
    return (x + dt * _u74_bilinear(u, xm, ym)) % g, (y + dt * _u74_bilinear(v, xm, ym)) % g


def _u74_cfl_args(n, rng):
    """A 2-D Euler state of n cells (float32): rho uniform in [0.2, 2), u, v N(0, 1), p
    log-uniform 0.1 .. 10; max_bits ([0], int32); gamma, 1/dx, 1/dy, n."""
    f = np.float32
    return [rng.uniform(0.2, 2.0, n).astype(f), rng.standard_normal(n).astype(f), rng.standard_normal(n).astype(f),
            (10.0 ** rng.uniform(-1, 1, n)).astype(f), np.zeros(1, np.int32), f(U74_CFL_GAMMA), f(U74_CFL_INVDX),
            f(U74_CFL_INVDX), _i32(n)]


def _u74_cfl_ref(rho, u, v, p, gamma=U74_CFL_GAMMA, inv_dx=U74_CFL_INVDX, inv_dy=U74_CFL_INVDX):
    """cfl_max's speeds in float64 (each cell's)."""
    rho, u, v, p = (np.asarray(a, np.float64) for a in (rho, u, v, p))
    c = np.sqrt(float(np.float32(gamma)) * p / rho)
    return (np.abs(u) + c) * inv_dx + (np.abs(v) + c) * inv_dy


UNSEEN74 = [
    TimingProbe("probe/lbm-d2q9-aos-bounceback", "probe-unseen74", "lbm_d2q9_aos", U74_LBM_N, (32, 8),
                lambda n: (-(-n // 32), -(-n // 8)), _u74_lbm_args, source=_P76,
                note="one D2Q9 lattice-Boltzmann step on a 2048^2 periodic channel, the populations stored cell by "
                     "cell (f[cell*9 + q]: a warp's loads of one q 36 B apart, 9 of them sharing lines), a thread "
                     "a cell: 9 pulled loads with % wrap and __constant__ lattice tables, BGK collision (~80 "
                     "flops, two divisions), 9 stores; ~3% solid cells (walls, a cylinder) branch to bounce-back; "
                     "memory-bound, 302 MB moved"),
    TimingProbe("probe/advect-muscl-minmod", "probe-unseen74", "advect_muscl", U74_AD_N, (32, 8),
                lambda n: (-(-n // 32), -(-n // 8)), _u74_ad_args, source=_P76,
                note="a flux-form MUSCL upwind advection step on a 4096^2 periodic grid, a thread a cell: a 9-point "
                     "cross of q (+-2 in x and y) and 6 velocity loads (row neighbours coalesced, column ones a "
                     "row apart, all reused through L1/L2), 8 % wraps, 4 faces each upwinded on the face "
                     "velocity's sign with a minmod limiter (Taylor-Green field: signs warp-uniform but at cell "
                     "borders), one store; memory/integer-bound"),
    TimingProbe("probe/sor-redblack-poisson", "probe-unseen74", "sor_redblack", U74_SOR_N, (32, 8),
                lambda n: (-(-n // 32), -(-(n // 2) // 8)), _u74_sor_args, source=_P76,
                note="one red half-sweep of red-black SOR (omega 1.8) on an 8192 x 4096 float pressure grid, a "
                     "thread a cell of the whole grid: the other colour's threads return at once (every other "
                     "lane: 50% SIMT efficiency), the red ones read 4 neighbours and rhs (every sector of both "
                     "arrays touched) and store every other word in place; memory-bound"),
    TimingProbe("probe/heat3d-7pt-smem", "probe-unseen74", "heat3d_smem", U74_HT_N, U74_HT_BLOCK,
                _u74_ht_grid, _u74_ht_args, source=_P76,
                note="an explicit 3-D heat step on a 320^3 float grid, 32x4x4 blocks staging the tile and a "
                     "one-cell halo (no corners; 34x6x6 floats) in shared memory, the halo loaded by the "
                     "tile's edge threads in 6 branches (the x halo's diverge: 2 lanes a warp; y and z "
                     "whole warps), one barrier, a 7-point stencil from shared memory; ~262 MB moved plus the "
                     "halo's re-reads"),
    TimingProbe("probe/tracers-bilinear-rk2", "probe-unseen74", "advect_tracers", U74_TR_N, 256,
                lambda n: -(-n // 256), _u74_tr_args, source=_P76,
                note="a midpoint (RK2) step of 2^22 passive tracers, uniformly random over a periodic 1024^2 "
                     "velocity grid (u, v: 8 MB, L2-resident), a thread a tracer: 4 bilinear interpolations of 4 "
                     "random gathers each (16 scattered 4-byte loads), floorf and 6 % ops each, the wrap back "
                     "into the domain; coalesced position load and store; gather/L2-bound"),
    TimingProbe("probe/cfl-euler-atomicmax", "probe-unseen74", "cfl_max", U74_CFL_N, U74_CFL_BLOCK,
                lambda n: -(-n // U74_CFL_BLOCK), _u74_cfl_args, source=_P76,
                note="the CFL step of a 2-D Euler state of 2^24 cells: 4 coalesced float loads a thread, a "
                     "division, sqrtf and 2 fabsf a cell, a 256-float shared tree reduction (8 barriers, fmaxf) "
                     "and one atomicMax a block (65536) on one int holding the float's bits; memory-bound, "
                     "256 MB read"),
]
PROBES += UNSEEN74


# probe-unseen75: a deep-learning inference / ML-systems course's operator kernels (an int8
# GEMV with int32 accumulation, RMSNorm of half rows with a block a row, NeoX rotary
# embeddings on grouped-query queries and keys, a mean EmbeddingBag with offsets, a per-row
# top-k by insertion and warp shuffles, top-1 mixture-of-experts routing with atomicAdd
# slots) as a student who knows CUDA basics writes them
_P77 = "probes77.cu"
U75_GEMV_K = 4096                                  # gemv-i8: GEMV_K (int8 columns a row)
U75_GEMV_WSCALE = (0.002, 0.02)                    # per-row weight scales, uniform
U75_GEMV_XSCALE = 0.05                             # the activations' scale
U75_RMS_H, U75_RMS_BLOCK, U75_RMS_EPS = 4096, 256, 1e-6   # rmsnorm: RMS_H, RMS_BLOCK, eps
U75_RMS_GAMMA = (0.5, 1.5)                         # gamma uniform (half)
U75_ROPE_D, U75_ROPE_HQ, U75_ROPE_HK = 128, 32, 8  # rope: ROPE_D, ROPE_HQ, ROPE_HK
U75_ROPE_THETA, U75_ROPE_SEQ = 10000.0, 2048       # base; positions t % SEQ (a prefill batch of 2048-token sequences)
U75_BAG_D, U75_BAG_ROWS, U75_BAG_MAXLEN = 128, 1 << 18, 40   # embbag: BAG_D; table rows (at most); bag lengths 0 .. MAXLEN
U75_BAG_SKEW, U75_BAG_HASH = 3, 0x9E3779B1         # index rank floor(rows u^SKEW), row = rank * HASH mod rows
U75_TOPK_K, U75_TOPK_V, U75_TOPK_SD = 8, 32000, 2.0   # topk: TOPK_K, TOPK_V; logits N(0, SD^2)
U75_MOE_E, U75_MOE_CF = 8, 1.25                    # moe: MOE_E; capacity ceil(CF tokens / E)
U75_MOE_BIAS = (0.6, 0.3, 0.15, 0.0, 0.0, -0.15, -0.3, -0.6)   # gate logits N(0, 1) + this expert bias


def _u75_gemv_args(n, rng):
    """n rows of U75_GEMV_K int8 weights (uniform in -127 .. 127, row-major), the int8
    activations x (same), per-row scales (float32, uniform in U75_GEMV_WSCALE); x_scale,
    y (zeroed), n."""
    W = rng.integers(-127, 128, n * U75_GEMV_K, dtype=np.int8)
    x = rng.integers(-127, 128, U75_GEMV_K, dtype=np.int8)
    ws = rng.uniform(*U75_GEMV_WSCALE, n).astype(np.float32)
    return [W, x, ws, np.float32(U75_GEMV_XSCALE), np.zeros(n, np.float32), _i32(n)]


def _u75_gemv_ref(W, x, ws, xs=U75_GEMV_XSCALE):
    """gemv_i8's y: the exact int32 dot products times the scales, rounded as the kernel
    rounds (float(acc) * w_scale, then * x_scale, in float32); and the dot products."""
    acc = np.asarray(W).reshape(-1, U75_GEMV_K).astype(np.int64) @ np.asarray(x).astype(np.int64)
    y = (acc.astype(np.float32) * np.asarray(ws, np.float32)) * np.float32(xs)
    return y, acc


def _u75_rms_args(n, rng):
    """n rows of U75_RMS_H halves (N(0, 1)), gamma (U75_RMS_GAMMA uniform, half), y (zeroed
    half); eps, n."""
    x = rng.standard_normal(n * U75_RMS_H, dtype=np.float32).astype(np.float16)
    g = rng.uniform(*U75_RMS_GAMMA, U75_RMS_H).astype(np.float16)
    return [x, g, np.zeros(n * U75_RMS_H, np.float16), np.float32(U75_RMS_EPS), _i32(n)]


def _u75_rms_ref(x, g, eps=U75_RMS_EPS):
    """rmsnorm_block's rows: each thread's float32 sum of squares in the kernel's order, the
    shared tree, 1 / sqrt in float64 rounded to float32, then (v * inv) * gamma rounded to
    half; and the inverse RMS a row."""
    H, B = U75_RMS_H, U75_RMS_BLOCK
    v = np.asarray(x, np.float16).astype(np.float32).reshape(-1, H // B, B)
    ss = np.zeros((v.shape[0], B), np.float32)
    for j in range(H // B):
        ss = ss + v[:, j] * v[:, j]                 # exact squares (11-bit halves), one rounding a step
    s = B // 2
    while s > 0:
        ss = ss.copy()
        ss[:, :s] = ss[:, :s] + ss[:, s:2 * s]
        s //= 2
    mean = ss[:, 0] / np.float32(H) + np.float32(eps)
    inv = (1.0 / np.sqrt(mean.astype(np.float64))).astype(np.float32)
    y = (v.reshape(-1, H) * inv[:, None]) * np.asarray(g, np.float16).astype(np.float32)
    return y.astype(np.float16).ravel(), inv


def _u75_rope_args(n, rng):
    """n tokens' queries (n x HQ x D) and keys (n x HK x D), float32 N(0, 1); positions t %
    U75_ROPE_SEQ (int32); theta, n."""
    q = rng.standard_normal(n * U75_ROPE_HQ * U75_ROPE_D, dtype=np.float32)
    k = rng.standard_normal(n * U75_ROPE_HK * U75_ROPE_D, dtype=np.float32)
    pos = (np.arange(n) % U75_ROPE_SEQ).astype(np.int32)
    return [q, k, pos, np.float32(U75_ROPE_THETA), _i32(n)]


def _u75_rope_ref(q, k, pos, theta=U75_ROPE_THETA):
    """rope_neox's q and k: the frequency rounded to float32, the angle pos * freq in
    float32 (as the kernel), the rotation in float64."""
    D, half = U75_ROPE_D, U75_ROPE_D // 2
    i = np.arange(half)
    inv = (np.float64(np.float32(theta)) ** (-2.0 * i / D)).astype(np.float32)
    ang = (np.asarray(pos).astype(np.float32)[:, None] * inv[None, :]).astype(np.float64)
    c, s = np.cos(ang)[:, None, :], np.sin(ang)[:, None, :]
    out = []
    for a, h in ((q, U75_ROPE_HQ), (k, U75_ROPE_HK)):
        a = np.asarray(a, np.float64).reshape(len(pos), h, D)
        x1, x2 = a[..., :half], a[..., half:]
        out.append(np.concatenate([x1 * c - x2 * s, x2 * c + x1 * s], axis=-1).ravel())
    return out


def _u75_bag_args(n, rng):
    """n bags: a table of min(U75_BAG_ROWS, 4 n) rows of U75_BAG_D floats (N(0, 1)), the
    indices (int32: power-law ranks floor(rows u^U75_BAG_SKEW) spread over the table by a
    multiplicative hash), offsets (n + 1, int32; bag lengths uniform in 0 .. U75_BAG_MAXLEN),
    out (zeroed, n x D); n."""
    rows = min(U75_BAG_ROWS, 4 * n)
    table = rng.standard_normal(rows * U75_BAG_D, dtype=np.float32)
    lens = rng.integers(0, U75_BAG_MAXLEN + 1, n)
    offsets = np.concatenate([[0], np.cumsum(lens)]).astype(np.int32)
    rank = np.floor(rows * rng.random(int(offsets[-1])) ** U75_BAG_SKEW).astype(np.uint64)
    idx = ((rank * np.uint64(U75_BAG_HASH)) % np.uint64(rows)).astype(np.int32)
    return [table, idx, offsets, np.zeros(n * U75_BAG_D, np.float32), _i32(n)]


def _u75_bag_ref(table, idx, offsets):
    """embedding_bag_mean's out: each bag's rows summed in order in float32, divided by the
    count in float32 (zeros for an empty bag)."""
    T = np.asarray(table, np.float32).reshape(-1, U75_BAG_D)
    off = np.asarray(offsets, np.int64)
    start, lens = off[:-1], np.diff(off)
    s = np.zeros((len(lens), U75_BAG_D), np.float32)
    idx = np.asarray(idx, np.int64)
    for j in range(int(lens.max(initial=0))):
        on = lens > j
        s[on] = s[on] + T[idx[start[on] + j]]
    cnt = np.maximum(lens, 1).astype(np.float32)
    return np.where(lens[:, None] > 0, s / cnt[:, None], np.float32(0)).astype(np.float32).ravel()


def _u75_topk_args(n, rng):
    """n rows of U75_TOPK_V logits (float32, N(0, U75_TOPK_SD^2)); top values and indices
    (zeroed, n x K); n."""
    x = rng.standard_normal(n * U75_TOPK_V, dtype=np.float32) * np.float32(U75_TOPK_SD)
    return [x, np.zeros(n * U75_TOPK_K, np.float32), np.zeros(n * U75_TOPK_K, np.int32), _i32(n)]


def _u75_topk_ref(x):
    """topk_warp's values and indices: each row's K largest, descending, the lower index
    first among equals."""
    x = np.asarray(x, np.float32).reshape(-1, U75_TOPK_V)
    idx = np.argsort(-x, axis=1, kind="stable")[:, :U75_TOPK_K].astype(np.int32)
    return np.take_along_axis(x, idx, axis=1).ravel(), idx.ravel()


def _u75_moe_cap(n):
    return int(np.ceil(U75_MOE_CF * n / U75_MOE_E))


def _u75_moe_args(n, rng):
    """n tokens' gate logits (n x E, float32: N(0, 1) plus the expert's U75_MOE_BIAS), the
    experts' counters (zeroed), buckets of tokens (-1) and weights (zeroed), E x capacity,
    the tokens' slots (zeroed); capacity (_u75_moe_cap), n."""
    g = (rng.standard_normal((n, U75_MOE_E)) + np.asarray(U75_MOE_BIAS)).astype(np.float32)
    cap = _u75_moe_cap(n)
    return [g.ravel(), np.zeros(U75_MOE_E, np.int32), np.full(U75_MOE_E * cap, -1, np.int32),
            np.zeros(U75_MOE_E * cap, np.float32), np.zeros(n, np.int32), _i32(cap), _i32(n)]


def _u75_moe_ref(g):
    """moe_route_top1's choice: each token's expert (the first of the largest logits), its
    softmax probability (float64) and the experts' counts."""
    g = np.asarray(g, np.float32).reshape(-1, U75_MOE_E)
    best = np.argmax(g, axis=1)
    d = g.astype(np.float64) - g.max(axis=1, keepdims=True)
    p = 1.0 / np.exp(d).sum(axis=1)
    return best, p, np.bincount(best, minlength=U75_MOE_E)


UNSEEN75 = [
    TimingProbe("probe/gemv-i8-char4-warp", "probe-unseen75", "gemv_i8", 1 << 16, 256, lambda n: -(-n // 8),
                _u75_gemv_args, source=_P77,
                note="int8 weight-only GEMV, 2^16 rows of 4096 int8 weights (256 MiB) times an int8 vector, a "
                     "warp a row (8 a block): 32 trips a lane of a coalesced char4 load of W (a warp 128 B "
                     "contiguous a trip) and a char4 of x (4 KiB, cached), 4 integer multiply-adds into an int32; "
                     "__shfl_down_sync sum, lane 0 scales by two floats and stores; DRAM-bound streaming"),
    TimingProbe("probe/rmsnorm-half-block-row", "probe-unseen75", "rmsnorm_block", 1 << 14, U75_RMS_BLOCK,
                lambda n: n, _u75_rms_args, source=_P77,
                note="RMSNorm of 2^14 half rows of 4096 (128 MiB in, 128 MiB out), a block of 256 a row: 16 "
                     "strided 2-byte loads a thread (a warp 64 B) summing squares in float, an 8-level shared "
                     "tree with __syncthreads, rsqrtf, then a second pass re-reading the row's 8 KiB (L1/L2) "
                     "with gamma, stores of halves"),
    TimingProbe("probe/rope-neox-gqa", "probe-unseen75", "rope_neox", 8192, 256,
                lambda n: -(-n * (U75_ROPE_HQ + U75_ROPE_HK) * (U75_ROPE_D // 2) // 256), _u75_rope_args,
                source=_P77,
                note="NeoX rotary embeddings in place on 8192 tokens' queries (32 heads) and keys (8 heads) of "
                     "dim 128 (160 MiB, read and written), a thread a pair (i, i + 64): integer div/mod for "
                     "the indices, powf and sincosf (angles up to 2047 rad), a warp-uniform branch picking q "
                     "or k, two coalesced loads and two stores 256 B apart"),
    TimingProbe("probe/embbag-mean-offsets", "probe-unseen75", "embedding_bag_mean", 1 << 16, U75_BAG_D,
                lambda n: n, _u75_bag_args, source=_P77,
                note="EmbeddingBag(mean) of 2^16 bags (lengths uniform 0 .. 40, ~1.3M lookups) from a 2^18 x "
                     "128 float table (128 MiB), a block of 128 a bag, a thread a column: offsets, then a "
                     "loop of an index load (a warp broadcast) and a 512 B row gather; power-law indices "
                     "(rank u^3: ~46% of lookups on the hottest 10% of rows, 1.6% on row 0) hashed over "
                     "the table"),
    TimingProbe("probe/topk-warp-insert", "probe-unseen75", "topk_warp", 1024, 128, lambda n: -(-n // 4),
                _u75_topk_args, source=_P77,
                note="top-8 of 1024 rows of a 32000-logit vocabulary (131 MB), a warp a row (only 1024 warps): "
                     "1000 trips a lane of a coalesced load and a compare with its 8th best, rarer divergent "
                     "insertions shifting local arrays (tv[8], ti[8]; ~45 a lane), then 8 rounds of a 5-step "
                     "__shfl_xor_sync argmax on (value, index) and a dynamic local read"),
    TimingProbe("probe/moe-top1-atomic-slots", "probe-unseen75", "moe_route_top1", 1 << 21, 256,
                lambda n: -(-n // 256), _u75_moe_args, source=_P77,
                note="top-1 MoE routing of 2^21 tokens over 8 experts, a thread a token: 8 gate logits (a 32 B "
                     "row a lane), argmax, 8 expf and a division, then atomicAdd on its expert's counter (8 "
                     "hot words, the returned slot used; biased gates: 27% of tokens on expert 0) and "
                     "scattered stores into the bucket; ~14% dropped past capacity 1.25 n / 8"),
]
PROBES += UNSEEN75


# probe-unseen76 (probes78.cu): a graph-analytics course's CUDA assignments on CSR graphs
# with power-law-ish degrees (triangle counting over degree-oriented edges, a label-
# propagation pass of connected components by atomicMin, a BFS level through a block's
# shared-memory queue, a degree histogram privatized in shared memory, the Jaccard
# similarity of every edge's endpoints by binary search, a k-core peeling round by
# atomicSub) as a student who knows CUDA basics writes them
_P78 = "probes78.cu"
U76_AVG_DEG = 16                   # Chung-Lu graphs: n * avg / 2 endpoint pairs drawn (avg this but for jaccard)
U76_GAMMA = 2.3                    # weights (i + x0)^(-1 / (gamma - 1)): degrees a power law of exponent gamma
U76_X0_DIV = 512                   # x0 = max(4, n / U76_X0_DIV): caps the hubs' degree (~40 times the mean)
U76_SEED = 7676                    # the graphs' own seed (the same graph for a given n)
U76_TC_BLOCK = 256                 # TC_BLOCK
U76_BQ_CAP = 2048                  # BQ_CAP
U76_DH_BINS = 256                  # DH_BINS
U76_DH_N = 1 << 24                 # degree-hist: vertices (row offsets only)
U76_JC_N, U76_JC_AVG = 1 << 18, 8   # jaccard: vertices, and a sparser graph (mean degree ~8)
U76_BFS_N = 1 << 20                # bfs: vertices
U76_KC_K, U76_KC_ROUND = 16, 1     # kcore-peel: k, and the peeling rounds already done
U76_KC_N = 1 << 21                 # kcore-peel: vertices
_U76_CACHE: dict = {}


def _u76_cached(kind, n, build):
    """build(n) once per (kind, n); only the latest n of a kind kept."""
    key = (kind, n)
    if key not in _U76_CACHE:
        for k in [k for k in _U76_CACHE if k[0] == kind]:
            del _U76_CACHE[k]
        _U76_CACHE[key] = build(n)
    return _U76_CACHE[key]


def _u76_expected_degrees(n, avg=U76_AVG_DEG):
    """The Chung-Lu weights of n vertices scaled to their expected degrees (float64)."""
    a = 1.0 / (U76_GAMMA - 1.0)
    x0 = max(4.0, n / U76_X0_DIV)
    e = 1.0 - a
    edges = (x0 + np.arange(n + 1, dtype=np.float64)) ** e          # the weight's integral over [i, i + 1)
    p = np.diff(edges) / (edges[-1] - edges[0])
    return p * (n * avg)


def _u76_build_graph(n, avg=U76_AVG_DEG):
    """A Chung-Lu graph on n vertices: n * avg / 2 pairs, each endpoint drawn with
    probability proportional to (i + x0)^(-1 / (gamma - 1)) (inverse CDF), ids shuffled so
    the hubs are anywhere; self-loops and duplicates dropped, both directions kept: (row_ptr,
    col, src) with each row's columns sorted (int32; src the entries' rows)."""
    rng = np.random.default_rng(U76_SEED + n + avg)
    a = 1.0 / (U76_GAMMA - 1.0)
    e = 1.0 - a
    x0 = max(4.0, n / U76_X0_DIV)
    lo, hi = x0 ** e, (x0 + n) ** e
    m = n * avg // 2
    perm = rng.permutation(n).astype(np.int64)

    def draw():
        x = (lo + rng.random(m) * (hi - lo)) ** (1.0 / e)
        return perm[np.minimum((x - x0).astype(np.int64), n - 1)]
    s, d = draw(), draw()
    keep = s != d
    s, d = s[keep], d[keep]
    key = np.concatenate([s * n + d, d * n + s])
    key.sort()
    key = key[np.r_[True, key[1:] != key[:-1]]]
    src = (key // n).astype(np.int32)
    col = (key % n).astype(np.int32)
    row_ptr = np.zeros(n + 1, np.int64)
    np.cumsum(np.bincount(src, minlength=n), out=row_ptr[1:])
    return row_ptr.astype(np.int32), col, src


def _u76_graph(n, avg=U76_AVG_DEG):
    return _u76_cached(f"graph{avg}", n, lambda n: _u76_build_graph(n, avg))


def _u76_csr(src, col, n):
    """The CSR row offsets of entries sorted by row (int32)."""
    row_ptr = np.zeros(n + 1, np.int64)
    np.cumsum(np.bincount(src, minlength=n), out=row_ptr[1:])
    return row_ptr.astype(np.int32)


def _u76_orient(row_ptr, col, src):
    """The edges oriented from the lower to the higher (degree, id): (row_ptr, col, src)
    of the oriented CSR (rows stay sorted)."""
    n = len(row_ptr) - 1
    deg = np.diff(row_ptr).astype(np.int64)
    rank = deg * n + np.arange(n)
    up = rank[src] < rank[col]
    s, c = src[up], col[up]
    return _u76_csr(s, c, n), c, s


def _u76_row_pairs(row_ptr):
    """Every ordered pair (i, j) of entries in the same row (i == j included): entry
    indices (int64)."""
    lens = np.diff(row_ptr).astype(np.int64)
    rows = np.repeat(np.arange(len(lens)), lens)
    cnt = lens[rows]                                      # pairs an entry heads
    i = np.repeat(np.arange(len(rows)), cnt)
    start = np.cumsum(cnt) - cnt
    j = row_ptr[rows][np.repeat(np.arange(len(rows)), cnt)] + (np.arange(int(cnt.sum())) - np.repeat(start, cnt))
    return i, j


def _u76_tc_state(n):
    return _u76_cached("tc", n, lambda n: _u76_orient(*_u76_graph(n)))


def _u76_tc_args(n, rng):
    """The degree-oriented CSR of _u76_graph(n) (row_ptr, col, src; m ~ n * 8 entries), the
    total (uint64, zeroed), m."""
    row_ptr, col, src = _u76_tc_state(n)
    return [row_ptr, col, src, np.zeros(1, np.uint64), _i32(len(col))]


def _u76_tc_ref(row_ptr, col, src):
    """Per oriented edge, the common out-neighbours of its ends (int64): their sum is the
    triangle count."""
    n = len(row_ptr) - 1
    i, j = _u76_row_pairs(row_ptr)
    keys = src.astype(np.int64) * n + col
    q = col[i].astype(np.int64) * n + col[j]               # (x, y) both out-neighbours of one u
    p = np.searchsorted(keys, q)
    hit = (p < len(keys)) & (keys[np.minimum(p, len(keys) - 1)] == q)
    return np.bincount(i[hit], minlength=len(col))


def _u76_common(row_ptr, col, src):
    """|N(u) & N(v)| of each CSR entry (u, v) (int64)."""
    n = len(row_ptr) - 1
    i, j = _u76_row_pairs(row_ptr)
    q = np.sort(col[i].astype(np.int64) * n + col[j])     # (x, y) with a common neighbour, once a neighbour
    keys = src.astype(np.int64) * n + col
    return np.searchsorted(q, keys, side="right") - np.searchsorted(q, keys, side="left")


def _u76_push(row_ptr, col, src, label):
    """One label-propagation pass: each vertex's label the least of its own and its
    neighbours'."""
    nxt = np.array(label, np.int32)
    np.minimum.at(nxt, col, np.asarray(label)[src])
    return nxt


def _u76_cc_args(n, rng):
    """_u76_graph(n), the labels after the first pass from label = id (the second pass's
    input) and their copy for label_next (int32), changed (zeroed), n."""
    row_ptr, col, src = _u76_graph(n)
    lab = _u76_push(row_ptr, col, src, np.arange(n, dtype=np.int32))
    return [row_ptr, col, lab, lab.copy(), np.zeros(1, np.int32), _i32(n)]


def _u76_bfs_dist(row_ptr, col, source=0):
    """BFS levels from source (int32, -1 where unreached)."""
    n = len(row_ptr) - 1
    dist = np.full(n, -1, np.int32)
    dist[source] = 0
    front = np.array([source], np.int64)
    while front.size:
        nb = _u76_bfs_ref(row_ptr, col, front, dist >= 0)
        dist[nb] = dist[front[0]] + 1
        front = nb.astype(np.int64)
    return dist


def _u76_bfs_build(n):
    """A BFS of _u76_graph(n) from vertex 0 up to the level whose expansion walks the most
    edges: (frontier in a random (queue) order, visited, level (-1 unvisited), the level)."""
    row_ptr, col, src = _u76_graph(n)
    rng = np.random.default_rng(U76_SEED + 1 + n)
    dist = _u76_bfs_dist(row_ptr, col)
    deg = np.diff(row_ptr).astype(np.int64)
    walked = np.bincount(dist[dist >= 0], weights=deg[dist >= 0])
    lev = int(np.argmax(walked))
    lvl = np.where(dist <= lev, dist, -1).astype(np.int32)
    return rng.permutation(np.flatnonzero(dist == lev)).astype(np.int32), (lvl >= 0).astype(np.int32), lvl, lev


def _u76_bfs_state(n):
    return _u76_cached("bfs", n, _u76_bfs_build)


def _u76_bfs_args(n, rng):
    """_u76_graph(n) with a BFS from vertex 0 at its heaviest level: frontier, its size,
    visited and level (int32), the next frontier (n, zeroed), its size (zeroed), the level."""
    row_ptr, col, src = _u76_graph(n)
    front, vis, lvl, lev = _u76_bfs_state(n)
    return [row_ptr, col, front, _i32(len(front)), vis.copy(), lvl.copy(), np.zeros(n, np.int32),
            np.zeros(1, np.int32), _i32(lev)]


def _u76_bfs_ref(row_ptr, col, front, visited):
    """The vertices the frontier's expansion finds: the unvisited neighbours (sorted int32)."""
    front = np.asarray(front, np.int64)
    cnt = (row_ptr[front + 1] - row_ptr[front]).astype(np.int64)
    idx = np.repeat(row_ptr[front].astype(np.int64) - np.cumsum(cnt) + cnt, cnt) + np.arange(int(cnt.sum()))
    nb = np.unique(col[idx])
    return nb[np.asarray(visited)[nb] == 0].astype(np.int32)


def _u76_dh_args(n, rng):
    """The row offsets of an n-vertex Chung-Lu graph (no adjacency built: each degree
    Poisson of its expected degree, the vertices shuffled; int32), the histogram (uint32,
    zeroed), n."""
    deg = rng.poisson(rng.permutation(_u76_expected_degrees(n)))
    row_ptr = np.zeros(n + 1, np.int64)
    np.cumsum(deg, out=row_ptr[1:])
    return [row_ptr.astype(np.int32), np.zeros(U76_DH_BINS, np.uint32), _i32(n)]


def _u76_dh_ref(row_ptr):
    deg = np.diff(np.asarray(row_ptr, np.int64))
    return np.bincount(np.minimum(deg, U76_DH_BINS - 1), minlength=U76_DH_BINS).astype(np.uint32)


def _u76_jc_args(n, rng):
    """_u76_graph(n, U76_JC_AVG) (row_ptr, col, src; nnz ~ 8 n entries), the weights
    (float32, zeroed), nnz."""
    row_ptr, col, src = _u76_graph(n, U76_JC_AVG)
    return [row_ptr, col, src, np.zeros(len(col), np.float32), _i32(len(col))]


def _u76_jc_ref(row_ptr, col, src):
    """Each entry's Jaccard similarity (float32, |N(u) & N(v)| / |N(u) | N(v)| rounded once)."""
    c = _u76_common(row_ptr, col, src)
    deg = np.diff(row_ptr).astype(np.int64)
    return (c.astype(np.float32) / (deg[src] + deg[col] - c).astype(np.float32)).astype(np.float32)


def _u76_peel(row_ptr, col, src, alive, deg, k):
    """One peeling round (as kcore_peel): alive, deg after it and the removed mask."""
    alive = np.asarray(alive).astype(bool)
    rem = alive & (np.asarray(deg) < k)
    dec = np.bincount(col[rem[src] & alive[col]], minlength=len(alive))
    return (alive & ~rem).astype(np.uint8), (deg - dec).astype(np.int32), rem


def _u76_kc_build(n):
    row_ptr, col, src = _u76_graph(n)
    alive, deg = np.ones(n, np.uint8), np.diff(row_ptr).astype(np.int32)
    for _ in range(U76_KC_ROUND):
        alive, deg, _ = _u76_peel(row_ptr, col, src, alive, deg, U76_KC_K)
    return alive, deg


def _u76_kc_args(n, rng):
    """_u76_graph(n) after U76_KC_ROUND peeling rounds at k = U76_KC_K: alive (uint8) and
    the live degrees (int32, a removed vertex's left as the round left it), their copies
    for the next state, the removal count (zeroed), k, n."""
    row_ptr, col, src = _u76_graph(n)
    alive, deg = _u76_cached("kcore", n, _u76_kc_build)
    return [row_ptr, col, alive, deg, alive.copy(), deg.copy(), np.zeros(1, np.int32), _i32(U76_KC_K), _i32(n)]


UNSEEN76 = [
    TimingProbe("probe/tc-oriented-merge", "probe-unseen76", "tc_oriented_edges", 1 << 20, U76_TC_BLOCK,
                lambda n: -(-len(_u76_tc_state(n)[1]) // U76_TC_BLOCK), _u76_tc_args, source=_P78,
                note="triangle count of a 2^20-vertex power-law graph (8.4M edges; degrees median 9, max 640) with "
                     "its edges oriented low -> high degree, a thread an oriented edge: edge_src and col coalesced, "
                     "two random row_ptr pairs, then a merge walk of two sorted out-lists (0-43 entries; trips "
                     "mean 26, a warp's slowest ~43; two dependent col loads a trip, divergent exits), a 256-int "
                     "shared tree reduction (8 barriers) and one 64-bit atomicAdd a block"),
    TimingProbe("probe/cc-labelprop-atomicmin", "probe-unseen76", "cc_label_push", 1 << 20, 256,
                lambda n: -(-n // 256), _u76_cc_args, source=_P78,
                note="the second label-propagation pass of connected components on a 2^20-vertex power-law graph "
                     "(16.8M CSR entries), a thread a vertex: its row walked (degree median 9, max 640: a warp's "
                     "slowest lane ~126 trips), label[v] gathered at random, 48% of entries an atomicMin (result "
                     "unused) on a random label_next word, then one atomicOr a pushing vertex on one flag"),
    TimingProbe("probe/bfs-smem-frontier", "probe-unseen76", "bfs_block_queue", U76_BFS_N, 256,
                lambda n: -(-len(_u76_bfs_state(n)[0]) // 256), _u76_bfs_args, source=_P78,
                note="the BFS level of a 2^20-vertex power-law graph that walks the most edges (846k frontier "
                     "vertices in a random queue order, 11.2M entries, 90% already visited, 97k found), a thread a "
                     "frontier vertex: random row_ptr reads, an atomicExch on a random visited word an entry, the "
                     "~130 found a block queued by shared atomicAdd into a 2048-int shared queue (no overflow), "
                     "one global atomicAdd a block to reserve space and the queue copied out"),
    TimingProbe("probe/degree-hist-smem", "probe-unseen76", "degree_hist", U76_DH_N, 256, lambda n: -(-n // 256),
                _u76_dh_args, source=_P78,
                note="the degree histogram (256 bins) of a 2^24-vertex power-law graph from its row offsets (64 "
                     "MB), a thread a vertex: two coalesced int loads, a shared atomicAdd into the block's bins "
                     "(degrees 3-10 take 57%: a warp's lanes on ~18 bins, up to ~5 on one), the bins zeroed "
                     "first and then added to the global histogram by one atomicAdd each non-zero bin (~47 a "
                     "block, the same 256 words from every block)"),
    TimingProbe("probe/jaccard-bsearch", "probe-unseen76", "jaccard_edges", U76_JC_N, 256,
                lambda n: -(-len(_u76_graph(n, U76_JC_AVG)[1]) // 256), _u76_jc_args, source=_P78,
                note="the Jaccard similarity of every CSR entry's endpoints in a 2^18-vertex power-law graph of "
                     "mean degree 8 (2.1M entries; degrees median 4, max 340), a thread an entry: the shorter "
                     "neighbour list walked (mean 14 entries, a warp's slowest ~46), each neighbour binary-searched "
                     "in the longer list (up to 9 dependent col loads), a float division and a coalesced store"),
    TimingProbe("probe/kcore-peel-atomicsub", "probe-unseen76", "kcore_peel", U76_KC_N, 256,
                lambda n: -(-n // 256), _u76_kc_args, source=_P78,
                note="the second peeling round of the 16-core of a 2^21-vertex power-law graph (23% of vertices "
                     "still alive), a thread a vertex: alive (bytes) and deg read coalesced, the 10% of vertices "
                     "live below degree 16 (scattered) walk their row (4.2M entries in all): a random alive byte "
                     "and an atomicSub on a live neighbour's degree (hubs take many), one atomicAdd a removal on "
                     "one counter"),
]
PROBES += UNSEEN76


# probe-unseen80 (probes82.cu): a recommender-systems / sparse-ML course's kernels
# (embedding-bag sum pooling over variable-length bags, signed feature hashing into buckets
# by float atomicAdd, user-item dot-product scores tiled in shared memory, per-user top-k
# by a warp's insertion lists and shuffle merge, Hogwild-style MF SGD with atomicAdd
# updates, a CSR user-item matrix times item factors a thread a row) as a student who
# knows CUDA basics writes them
_P82 = "probes82.cu"
_P82_EB_DIM = 64                  # EB_DIM
_P82_EB_ROWS = 4                  # embbag: table rows per bag (2^19 x 64 floats, 128 MB, at the default)
_P82_EB_MEAN, _P82_EB_MAX = 16, 128   # bag lengths geometric of this mean, capped
_P82_EB_ZIPF = 1.05               # the rows' popularity: Zipf exponent over the table
_P82_FH_VOCAB = 1 << 22           # hash-features: distinct raw feature ids
_P82_FH_ZIPF = 1.0                # their frequency: Zipf exponent
_P82_FH_BUCKETS = 1 << 20         # n_buckets
_P82_FH_SEED = 0x9E3779B9
_P82_SC_FACT, _P82_SC_TS = 64, 16  # FACT, TS
_P82_SC_ITEMS = 4                 # score: items per user (n users, 4 n items)
_P82_TK = 10                      # TOPK
_P82_TK_ITEMS = 2048              # topk: items a user's row
_P82_TK_RANK = 16                 # topk: scores a rank-16 product plus item bias and noise
_P82_MF_K = 32                    # MF_K
_P82_MF_USERS, _P82_MF_ITEMS = 8, 32   # mf-sgd: n / 8 users, n / 32 items
_P82_MF_ZIPF_U, _P82_MF_ZIPF_I = 0.5, 0.7   # their activity / popularity: Zipf exponents
_P82_MF_LR, _P82_MF_REG = 0.01, 0.02
_P82_SP_F = 8                     # SP_F
_P82_SP_ITEMS = 8                 # spmm: n / 8 items
_P82_SP_SCALE, _P82_SP_ALPHA, _P82_SP_MAX = 8.0, 3.0, 512   # row lengths: 1 + Lomax(alpha, scale), capped
_P82_SP_ZIPF = 0.9                # the items' popularity: Zipf exponent


def _p82_zipf(rng, size, n_ids, s):
    """size draws of ids in [0, n_ids) with P(rank k) ~ (k + 1)^-s, the ranks scattered over
    the ids by a random permutation (int64)."""
    w = np.cumsum(np.arange(1, n_ids + 1, dtype=np.float64) ** -s)
    rank = np.minimum(np.searchsorted(w, rng.random(size) * w[-1], side="right"), n_ids - 1)
    return rng.permutation(n_ids)[rank]


def _p82_eb_args(n, rng):
    """n bags: lengths geometric of mean _P82_EB_MEAN capped at _P82_EB_MAX, their rows
    Zipf-popular over a table of _P82_EB_ROWS n rows (int32 indices, offsets n + 1); the
    table (float32 N(0, 0.1^2), rows x EB_DIM), out (zeroed, n x EB_DIM), n."""
    rows = max(256, _P82_EB_ROWS * n)
    lens = np.minimum(rng.geometric(1.0 / _P82_EB_MEAN, n), _P82_EB_MAX)
    offsets = np.zeros(n + 1, np.int64)
    np.cumsum(lens, out=offsets[1:])
    idx = _p82_zipf(rng, int(offsets[-1]), rows, _P82_EB_ZIPF).astype(np.int32)
    table = (0.1 * rng.standard_normal(rows * _P82_EB_DIM)).astype(np.float32)
    return [table, idx, offsets.astype(np.int32), np.zeros(n * _P82_EB_DIM, np.float32), _i32(n)]


def _p82_eb_ref(table, idx, offsets):
    """The bags' sums (float64, n x EB_DIM)."""
    t = np.asarray(table, np.float64).reshape(-1, _P82_EB_DIM)
    offsets = np.asarray(offsets, np.int64)
    n = len(offsets) - 1
    bag = np.repeat(np.arange(n), np.diff(offsets))
    out = np.zeros((n, _P82_EB_DIM))
    np.add.at(out, bag, t[np.asarray(idx)])
    return out


def _p82_fmix32(h):
    """MurmurHash3's finalizer of uint32 h, as probes82.cu computes it."""
    h = np.asarray(h, np.uint32)
    h = h ^ (h >> np.uint32(16))
    h = h * np.uint32(0x85EBCA6B)
    h = h ^ (h >> np.uint32(13))
    h = h * np.uint32(0xC2B2AE35)
    return h ^ (h >> np.uint32(16))


def _p82_fh_args(n, rng):
    """n feature occurrences: ids (uint32, random 32-bit labels of _P82_FH_VOCAB features
    drawn Zipf(_P82_FH_ZIPF)) and values (float32 counts 1..4); the buckets (float32,
    zeroed), seed, n_buckets, n."""
    labels = rng.integers(0, 1 << 32, _P82_FH_VOCAB, dtype=np.uint64).astype(np.uint32)
    feat = labels[_p82_zipf(rng, n, _P82_FH_VOCAB, _P82_FH_ZIPF)]
    val = rng.integers(1, 5, n).astype(np.float32)
    return [feat, val, np.zeros(_P82_FH_BUCKETS, np.float32), np.uint32(_P82_FH_SEED), _i32(_P82_FH_BUCKETS),
            _i32(n)]


def _p82_fh_ref(feat, val, seed=_P82_FH_SEED, n_buckets=_P82_FH_BUCKETS):
    """The buckets' signed sums (float64; integers, exact in float32) and each occurrence's
    bucket."""
    h = _p82_fmix32(np.asarray(feat, np.uint32) ^ np.uint32(seed))
    b = (h % np.uint32(n_buckets)).astype(np.int64)
    sign = np.where(h >> np.uint32(31), -1.0, 1.0)
    return np.bincount(b, weights=sign * np.asarray(val, np.float64), minlength=n_buckets), b


def _p82_sc_args(n, rng):
    """n users (a multiple of TS) and _P82_SC_ITEMS n items: U and V (float32 N(0, 0.3^2),
    rows of FACT), S (zeroed, n x items), n, items."""
    assert n % _P82_SC_TS == 0
    m = _P82_SC_ITEMS * n
    U = (0.3 * rng.standard_normal(n * _P82_SC_FACT)).astype(np.float32)
    V = (0.3 * rng.standard_normal(m * _P82_SC_FACT)).astype(np.float32)
    return [U, V, np.zeros(n * m, np.float32), _i32(n), _i32(m)]


def _p82_sc_ref(U, V):
    """U V^T in float64 (n x items)."""
    U = np.asarray(U, np.float64).reshape(-1, _P82_SC_FACT)
    V = np.asarray(V, np.float64).reshape(-1, _P82_SC_FACT)
    return U @ V.T


def _p82_tk_args(n, rng, items=_P82_TK_ITEMS):
    """n users' scores over `items` items (float32, row-major n x items): a rank-16 product
    of N(0, 1/4) factors plus an item bias N(0, 1) and noise N(0, 0.1^2); top_idx (int32)
    and top_val (float32) zeroed (n x TOPK), n, items."""
    A = rng.normal(0, 0.5, (n, _P82_TK_RANK)).astype(np.float32)
    B = rng.normal(0, 0.5, (_P82_TK_RANK, items)).astype(np.float32)
    s = A @ B
    s += rng.normal(0, 1, items).astype(np.float32)
    s += rng.normal(0, 0.1, s.shape).astype(np.float32)
    return [s.ravel(), np.zeros(n * _P82_TK, np.int32), np.zeros(n * _P82_TK, np.float32), _i32(n), _i32(items)]


def _p82_tk_ref(scores, n_items):
    """Each row's TOPK (item, score), best first, ties to the lower item."""
    s = np.asarray(scores, np.float32).reshape(-1, n_items)
    order = np.argsort(-s, axis=1, kind="stable")[:, :_P82_TK]
    return order.astype(np.int32), np.take_along_axis(s, order, axis=1)


def _p82_mf_args(n, rng):
    """n ratings (user, item: Zipf-active users of n / 8, Zipf-popular items of n / 32,
    int32; ratings 1..5 float32), P and Q (float32 N(0.3, 0.1^2), rows of MF_K), lr, reg, n."""
    nu, ni = max(32, n // _P82_MF_USERS), max(32, n // _P82_MF_ITEMS)
    u = _p82_zipf(rng, n, nu, _P82_MF_ZIPF_U).astype(np.int32)
    i = _p82_zipf(rng, n, ni, _P82_MF_ZIPF_I).astype(np.int32)
    r = rng.integers(1, 6, n).astype(np.float32)
    P = rng.normal(0.3, 0.1, nu * _P82_MF_K).astype(np.float32)
    Q = rng.normal(0.3, 0.1, ni * _P82_MF_K).astype(np.float32)
    return [u, i, r, P, Q, np.float32(_P82_MF_LR), np.float32(_P82_MF_REG), _i32(n)]


def _p82_mf_ref(u, i, r, P, Q, lr=_P82_MF_LR, reg=_P82_MF_REG):
    """P and Q after every rating's update computed from the rows before any (float64):
    what the kernel gives when no rating reads a row another has already updated."""
    K = _P82_MF_K
    P0 = np.asarray(P, np.float64).reshape(-1, K)
    Q0 = np.asarray(Q, np.float64).reshape(-1, K)
    pu, qi = P0[u], Q0[i]
    err = np.asarray(r, np.float64) - (pu * qi).sum(axis=1)
    P1, Q1 = P0.copy(), Q0.copy()
    np.add.at(P1, u, lr * (err[:, None] * qi - reg * pu))
    np.add.at(Q1, i, lr * (err[:, None] * pu - reg * qi))
    return P1, Q1, err


def _p82_sp_args(n, rng):
    """A user-item matrix of n users and n / 8 items in CSR (row_ptr, col sorted and
    distinct a row, int32; ratings 1..5 float32): row lengths 1 + Lomax(_P82_SP_ALPHA,
    _P82_SP_SCALE) capped at _P82_SP_MAX before duplicates drop, items Zipf-popular; the
    item factors V (float32 N(0, 0.2^2), rows of SP_F), out (zeroed, n x SP_F), n."""
    items = max(64, n // _P82_SP_ITEMS)
    lens = np.minimum(1 + (_P82_SP_SCALE * (rng.random(n) ** (-1.0 / _P82_SP_ALPHA) - 1)).astype(np.int64),
                      _P82_SP_MAX)
    rows = np.repeat(np.arange(n, dtype=np.int64), lens)
    key = np.sort(rows * items + _p82_zipf(rng, len(rows), items, _P82_SP_ZIPF))
    key = key[np.r_[True, key[1:] != key[:-1]]]              # (np.unique is slow on numpy 2.4)
    src, col = key // items, (key % items).astype(np.int32)
    row_ptr = np.zeros(n + 1, np.int64)
    np.cumsum(np.bincount(src, minlength=n), out=row_ptr[1:])
    val = rng.integers(1, 6, len(col)).astype(np.float32)
    V = rng.normal(0, 0.2, items * _P82_SP_F).astype(np.float32)
    return [row_ptr.astype(np.int32), col, val, V, np.zeros(n * _P82_SP_F, np.float32), _i32(n)]


def _p82_sp_ref(row_ptr, col, val, V):
    """The product in float64 (n x SP_F)."""
    row_ptr = np.asarray(row_ptr, np.int64)
    n = len(row_ptr) - 1
    src = np.repeat(np.arange(n), np.diff(row_ptr))
    out = np.zeros((n, _P82_SP_F))
    np.add.at(out, src, np.asarray(val, np.float64)[:, None] * np.asarray(V, np.float64).reshape(-1, _P82_SP_F)[col])
    return out


UNSEEN80 = [
    TimingProbe("probe/rec-embbag-sum-dim", "probe-unseen80", "embbag_sum", 1 << 17, 256,
                lambda n: -(-n * _P82_EB_DIM // 256), _p82_eb_args, source=_P82,
                note="embedding-bag sum pooling of 2^17 bags (lengths geometric: mean 16, median 11, 1-128) over a "
                     "2^19 x 64 float table (128 MB; rows Zipf(1.05)-popular, the top 1% of rows take 74% of the 2.1M "
                     "lookups), a thread an output element (bag, d): two warps a bag, each trip a broadcast index "
                     "load and a coalesced 128-byte gather of a row's half, no divergence within a warp, a block's 4 "
                     "bags of unequal length (its longest ~33 trips), one coalesced store; memory-bound"),
    TimingProbe("probe/rec-hash-trick-atomic", "probe-unseen80", "hash_features", 1 << 24, 256,
                lambda n: -(-n // 256), _p82_fh_args, source=_P82,
                note="signed feature hashing (the hashing trick) of 2^24 (feature id, count) occurrences into 2^20 "
                     "float buckets (4 MB, L2-resident), a thread an occurrence: two coalesced loads, MurmurHash3's "
                     "finalizer, an unsigned modulo, and a float atomicAdd (result unused) of +-count on the bucket; "
                     "ids Zipf(1.0) over 4M features (the top one 6.3% of occurrences, ~1M atomics on one word): a "
                     "warp's lanes on ~30 distinct scattered buckets, up to ~6 lanes on one"),
    TimingProbe("probe/rec-score-tiled-smem", "probe-unseen80", "score_tiled", 1 << 12, (_P82_SC_TS, _P82_SC_TS),
                lambda n: (_P82_SC_ITEMS * n // _P82_SC_TS, n // _P82_SC_TS), _p82_sc_args, source=_P82,
                note="dot-product scores S = U V^T of 4096 users x 16384 items over 64 factors (8.6 GFLOP; S 256 MB "
                     "written once, coalesced), 16 x 16 blocks a 16 x 16 tile of S: 4 steps of a U tile and a V tile "
                     "staged in shared memory (V's padded to 17 columns: conflict-free reads, its stores 2 "
                     "wavefronts), 2 barriers a step, 16 FMAs a step from two shared loads each (one a broadcast); "
                     "shared-load / FMA bound"),
    TimingProbe("probe/rec-topk-warp-merge", "probe-unseen80", "topk_per_user", 1 << 15, 128,
                lambda n: -(-n * 32 // 128), _p82_tk_args, source=_P82,
                note="top-10 items of each of 2^15 users from a row of 2048 float scores (256 MB, row-major; rank-16 "
                     "products plus item bias and noise), a warp a user: 64 strided coalesced trips a lane, a score "
                     "that beats the lane's 10th inserted into its sorted local-memory list (~28 insertions a lane, "
                     "a warp's busiest ~35; the shifting loop divergent), then 10 rounds of a 5-step (value, index) "
                     "shuffle argmax over the lists' heads, lane 0 storing"),
    TimingProbe("probe/rec-mf-sgd-atomic", "probe-unseen80", "mf_sgd_atomic", 1 << 20, 256,
                lambda n: -(-n // 256), _p82_mf_args, source=_P82,
                note="Hogwild-style matrix-factorization SGD over 2^20 ratings (131k users x 32k items, 32 factors; P "
                     "16 MB and Q 4 MB, L2-resident), a thread a rating: user, item, rating coalesced, then its P "
                     "and Q rows read (a warp's lanes on 32 different 128-byte rows a load), a 32-term dot product "
                     "and 64 float atomicAdds (results unused) back onto the same rows; users Zipf(0.5), items "
                     "Zipf(0.7) (the top item 1.4% of ratings: 14k same-address updates on each of its 32 words)"),
    TimingProbe("probe/rec-spmm-csr-rowthread", "probe-unseen80", "spmm_csr_rows", 1 << 21, 256,
                lambda n: -(-n // 256), _p82_sp_args, source=_P82,
                note="a 2^21-user x 2^18-item CSR interaction matrix (9.4M entries, row lengths 1 + Lomax(3, 8): "
                     "median 3, mean 4.5, max ~430, a warp's longest row ~26) times the 8-factor item matrix (8 MB, "
                     "L2-resident), a thread a user row: col and val walked per lane (lanes on different rows: "
                     "uncoalesced), a Zipf(0.9)-popular item's 32-byte factor row gathered, 8 FMAs into a local "
                     "accumulator array a trip, 8 strided stores; load-imbalanced and latency-bound"),
]
PROBES += UNSEEN80


# probe-unseen79 (probes81.cu): a seismic-imaging / exploration-geophysics course's kernels
# (an 8th-order 2-D acoustic wave-equation step from global memory, a 3-D 25-point
# Laplacian marching z with a shared-memory tile, NMO correction with interpolation and a
# stretch mute, CMP stacking by float atomicAdd, Kirchhoff time migration along diffraction
# hyperbolas, a per-trace running-window AGC) as a student who knows CUDA basics writes them
_P81 = "probes81.cu"
_P81_FD8 = np.array([-2.84722222, 1.6, -0.2, 0.0253968254, -0.00178571429], np.float32)   # c_fd8 (c0 .. c4)
_P81_WAVE_N, _P81_WAVE_BLOCK = 4096, (32, 8)       # wave2d-fd8: an n x n grid; blockDim
_P81_WAVE_V = (1500.0, 4500.0)                     # velocity (m/s) from the top to the bottom, +-5% noise
_P81_WAVE_DT, _P81_WAVE_H = 1e-3, 10.0             # time step (s) and grid spacing (m)
_P81_ST_N, _P81_ST_BLOCK = 1024, (32, 16)          # stencil25: nx = ny = n, nz = n / 8 + 8; blockDim (S_BX, S_BY)
_P81_ST_ZCH = 16                                   # S_ZCH: the planes a block marches (gridDim.z the slabs)
_P81_NT, _P81_DT = 2048, 0.002                     # traces: samples and sample interval (s): 4.096 s
_P81_DECAY, _P81_TAPER = 1.5, 64                   # trace amplitude exp(-t / decay); the last samples tapered to 0
_P81_NMO_N, _P81_NMO_FOLD = 1 << 25, 64            # nmo: samples (16384 traces); traces a CMP
_P81_NMO_OFF = (100.0, 50.0)                       # offsets: first and increment (m): 100 .. 3250
_P81_NMO_V = (1500.0, 800.0, 0.05)                 # vrms(t0) = (v0 + k t0) (1 + U(-p, p)) a CMP
_P81_NMO_SMUTE = 0.5                               # stretch mute
_P81_STK_N, _P81_STK_CHAN = 1 << 25, 256           # stack: samples (16384 traces: 64 shots of 256 channels)
_P81_STK_DS, _P81_STK_DG, _P81_STK_NEAR = 50.0, 25.0, 100.0   # shot and receiver spacing, near offset (m)
_P81_STK_DBIN, _P81_STK_X0 = 12.5, -6.25           # CMP bin width and origin (midpoints mid-bin)
_P81_STK_VMUTE = 4000.0                            # the input's mute: zero where t < offset / vmute
_P81_KM_N, _P81_KM_APER = 1 << 23, 100             # kirchhoff: image points (4096 traces x 2048); aperture (traces)
_P81_KM_DX, _P81_KM_V = 12.5, (1500.0, 500.0)      # trace spacing (m); vrms(t0) = v0 + k t0
_P81_AGC_N, _P81_AGC_HALF = 1 << 21, 62            # agc: samples (2048 traces); the window's half-length
_P81_AGC_NT, _P81_AGC_DT = 1024, 0.004             # agc's traces: samples and interval (s): 4.096 s
_P81_AGC_DEAD = 1 / 64                             # the fraction of dead (all-zero) traces


def _p81_traces(ntr, nt, rng, dt=_P81_DT):
    """ntr x nt float32 noise traces (dt apart): N(0, 1) times exp(-t / _P81_DECAY), the last
    _P81_TAPER samples tapered by cos^2 to exactly zero at the end."""
    t = np.arange(nt) * dt
    env = np.exp(-t / _P81_DECAY)
    k = min(_P81_TAPER, nt)
    env[nt - k:] *= np.cos(0.5 * np.pi * np.arange(k) / (k - 1)) ** 2
    env[-1] = 0.0
    return (rng.standard_normal((ntr, nt), dtype=np.float32) * env.astype(np.float32)).ravel()


def _p81_wave_args(n, rng):
    """An n x n grid: u and u_prev N(0, 1) (float32), vdt2 = (v dt / h)^2 with v rising
    linearly from _P81_WAVE_V[0] to [1] down the grid, +-5% noise; nx, nz."""
    u = rng.standard_normal(n * n, dtype=np.float32)
    up = rng.standard_normal(n * n, dtype=np.float32)
    v = np.linspace(*_P81_WAVE_V, n)[:, None] * rng.uniform(0.95, 1.05, (n, n))
    vdt2 = ((v * _P81_WAVE_DT / _P81_WAVE_H) ** 2).astype(np.float32).ravel()
    return [u, up, vdt2, _i32(n), _i32(n)]


def _p81_wave_ref(u, up, vdt2, nx, nz):
    """wave2d_fd8 in float64: the new u_prev (edges untouched)."""
    c = _P81_FD8.astype(np.float64)
    U = np.asarray(u, np.float64).reshape(nz, nx)
    out = np.array(up, np.float64).reshape(nz, nx)
    R = 4
    s = (slice(R, nz - R), slice(R, nx - R))
    lap = 2 * c[0] * U[s]
    for k in range(1, R + 1):
        lap = lap + c[k] * (U[R:nz - R, R - k:nx - R - k] + U[R:nz - R, R + k:nx - R + k] +
                            U[R - k:nz - R - k, R:nx - R] + U[R + k:nz - R + k, R:nx - R])
    out[s] = 2 * U[s] - out[s] + np.asarray(vdt2, np.float64).reshape(nz, nx)[s] * lap
    return out.ravel()


def _p81_st_args(n, rng):
    """A volume nx = ny = n, nz = n / 8 + 8 (float32 N(0, 1)), out zeroed; nx, ny, nz."""
    nz = n // 8 + 8
    return [rng.standard_normal(n * n * nz, dtype=np.float32), np.zeros(n * n * nz, np.float32), _i32(n), _i32(n),
            _i32(nz)]


def _p81_st_ref(vol, nx, ny, nz):
    """stencil25_zmarch in float64 (zero within 4 points of a face)."""
    c = _P81_FD8.astype(np.float64)
    V = np.asarray(vol, np.float64).reshape(nz, ny, nx)
    out = np.zeros_like(V)
    R = 4
    zs, ys, xs = slice(R, nz - R), slice(R, ny - R), slice(R, nx - R)
    acc = 3 * c[0] * V[zs, ys, xs]
    for k in range(1, R + 1):
        acc = acc + c[k] * (V[zs, ys, R - k:nx - R - k] + V[zs, ys, R + k:nx - R + k] +
                            V[zs, R - k:ny - R - k, xs] + V[zs, R + k:ny - R + k, xs] +
                            V[R - k:nz - R - k, ys, xs] + V[R + k:nz - R + k, ys, xs])
    out[zs, ys, xs] = acc
    return out.ravel()


def _p81_nmo_args(n, rng, nt=_P81_NT):
    """n samples of ntr = n / nt traces (_p81_traces), CMP gathers of _P81_NMO_FOLD traces with
    offsets _P81_NMO_OFF[0] + k _P81_NMO_OFF[1] (k the trace in its CMP), vrms (ncmp x nt)
    per _P81_NMO_V; out zeroed; dt, smute, fold, nt, ntr (all float32 / int32)."""
    ntr = n // nt
    fold = _P81_NMO_FOLD
    off = (_P81_NMO_OFF[0] + _P81_NMO_OFF[1] * (np.arange(ntr) % fold)).astype(np.float32)
    ncmp = -(-ntr // fold)
    t0 = np.arange(nt) * _P81_DT
    v0, k, p = _P81_NMO_V
    vrms = ((v0 + k * t0)[None, :] * rng.uniform(1 - p, 1 + p, (ncmp, 1))).astype(np.float32).ravel()
    return [_p81_traces(ntr, nt, rng), off, vrms, np.zeros(ntr * nt, np.float32), np.float32(_P81_DT),
            np.float32(_P81_NMO_SMUTE), _i32(fold), _i32(nt), _i32(ntr)]


def _p81_nmo_ref(data, off, vrms, dt, smute, fold, nt, ntr):
    """nmo_correct in float64: out, the kept mask and the smallest margin of a mute or
    end-of-trace test."""
    dt, smute = float(dt), float(smute)
    D = np.asarray(data, np.float64).reshape(ntr, nt)
    tr = np.arange(ntr)[:, None]
    it = np.arange(nt)[None, :]
    t0 = it * dt
    x = np.asarray(off, np.float64)[:, None]
    v = np.asarray(vrms, np.float64).reshape(-1, nt)[tr // fold, it]
    t = np.sqrt(t0 * t0 + x * x / (v * v))
    s = t / dt
    i0 = np.floor(s).astype(np.int64)
    keep = (it > 0) & (t - t0 <= smute * t0) & (i0 + 1 < nt)
    i0c = np.minimum(i0, nt - 2)
    w = s - i0c
    val = (1 - w) * np.take_along_axis(D, i0c, 1) + w * np.take_along_axis(D, i0c + 1, 1)
    m = np.abs(t - t0 - smute * t0)[it.repeat(ntr, 0) > 0]
    return np.where(keep, val, 0.0).ravel(), keep.ravel(), m.min()


def _p81_stk_geom(ntr):
    """Shot-ordered geometry of ntr traces (_P81_STK_CHAN channels a shot, end-on): sx, gx
    (float32) and the number of bins covering every midpoint."""
    tr = np.arange(ntr)
    sx = (tr // _P81_STK_CHAN) * _P81_STK_DS
    gx = sx + _P81_STK_NEAR + (tr % _P81_STK_CHAN) * _P81_STK_DG
    xm = 0.5 * (sx + gx)
    nbins = int((xm.max() - _P81_STK_X0) // _P81_STK_DBIN) + 1
    return sx.astype(np.float32), gx.astype(np.float32), nbins


def _p81_stk_args(n, rng, nt=_P81_NT):
    """n samples of ntr = n / nt NMO-corrected traces in shot order (_p81_traces, zero where
    t < offset / _P81_STK_VMUTE), their geometry (_p81_stk_geom), the stack (nbins x nt) and
    fold zeroed; x0, dbin, nbins, nt, ntr."""
    ntr = n // nt
    sx, gx, nbins = _p81_stk_geom(ntr)
    d = _p81_traces(ntr, nt, rng).reshape(ntr, nt)
    t = np.arange(nt) * _P81_DT
    d[t[None, :] < (gx - sx)[:, None] / _P81_STK_VMUTE] = 0.0
    return [d.ravel(), sx, gx, np.zeros(nbins * nt, np.float32), np.zeros(nbins, np.int32), np.float32(_P81_STK_X0),
            np.float32(_P81_STK_DBIN), _i32(nbins), _i32(nt), _i32(ntr)]


def _p81_stk_ref(data, sx, gx, x0, dbin, nbins, nt, ntr):
    """cmp_stack in float64: the stack (nbins x nt, flat) and the fold."""
    xm = 0.5 * (np.asarray(sx, np.float64) + np.asarray(gx, np.float64))
    b = np.floor((xm - float(x0)) / float(dbin)).astype(np.int64)
    ok = (b >= 0) & (b < nbins)
    st = np.zeros((nbins, nt))
    np.add.at(st, b[ok], np.asarray(data, np.float64).reshape(ntr, nt)[ok])
    return st.ravel(), np.bincount(b[ok], minlength=nbins)[:nbins]


def _p81_km_args(n, rng, nt=_P81_NT):
    """A zero-offset section of nx = n / nt traces (_p81_traces), vrms(t0) per _P81_KM_V
    (float32), the image zeroed; dx, dt, aper, nt, nx."""
    nx = n // nt
    v = (_P81_KM_V[0] + _P81_KM_V[1] * np.arange(nt) * _P81_DT).astype(np.float32)
    return [_p81_traces(nx, nt, rng), v, np.zeros(nx * nt, np.float32), np.float32(_P81_KM_DX), np.float32(_P81_DT),
            _i32(_P81_KM_APER), _i32(nt), _i32(nx)]


def _p81_km_ref(data, vrms, dx, dt, aper, nt, nx):
    """kirchhoff_tmig in float64: the image (flat) and the number of summed terms a point."""
    dx, dt = float(dx), float(dt)
    D = np.asarray(data, np.float64).reshape(nx, nt)
    t0 = np.arange(nt) * dt
    s = 4.0 / np.asarray(vrms, np.float64) ** 2
    img = np.zeros((nx, nt))
    cnt = np.zeros((nx, nt), np.int64)
    ix = np.arange(nx)
    for d in range(-aper, aper + 1):
        j = ix + d
        okx = (j >= 0) & (j < nx)
        if not okx.any():
            continue
        h = d * dx
        t = np.sqrt(t0 * t0 + h * h * s)
        ft = t / dt
        it = np.floor(ft).astype(np.int64)
        okt = it < nt - 1
        itc = np.minimum(it, nt - 2)
        w = ft - itc
        obl = np.where(t > 0, t0 / np.where(t > 0, t, 1), 1.0)
        jj = j[okx]
        a = (1 - w) * D[jj][:, itc] + w * D[jj][:, itc + 1]
        img[okx] += np.where(okt, obl * a, 0.0)
        cnt[okx] += okt
    return img.ravel(), cnt.ravel()


def _p81_agc_args(n, rng, nt=_P81_AGC_NT):
    """n samples of ntr = n / nt traces (_p81_traces, _P81_AGC_DT apart), a _P81_AGC_DEAD
    fraction of them dead (zero); out zeroed; half, nt, ntr."""
    ntr = n // nt
    d = _p81_traces(ntr, nt, rng, _P81_AGC_DT).reshape(ntr, nt)
    d[rng.random(ntr) < _P81_AGC_DEAD] = 0.0
    return [d.ravel(), np.zeros(ntr * nt, np.float32), _i32(_P81_AGC_HALF), _i32(nt), _i32(ntr)]


def _p81_agc_ref(data, half, nt, ntr):
    """agc_trace in float64: each sample over its clipped window's RMS (zero windows zero)."""
    D = np.asarray(data, np.float64).reshape(ntr, nt)
    c = np.concatenate([np.zeros((ntr, 1)), np.cumsum(D * D, axis=1)], axis=1)
    it = np.arange(nt)
    lo, hi = np.maximum(it - half, 0), np.minimum(it + half, nt - 1)
    rms = np.sqrt((c[:, hi + 1] - c[:, lo]) / (hi - lo + 1))
    return np.where(rms > 0, D / np.where(rms > 0, rms, 1), 0.0).ravel()


UNSEEN79 = [
    TimingProbe("probe/wave2d-fd8-global", "probe-unseen79", "wave2d_fd8", _P81_WAVE_N, _P81_WAVE_BLOCK,
                lambda n: (-(-n // 32), -(-n // 8)), _p81_wave_args, source=_P81,
                note="one leapfrog step of the 2-D acoustic wave equation, 8th order in space, on a 4096 x 4096 "
                     "grid, a thread a point in 32 x 8 blocks: the 17-point cross read straight from global "
                     "memory (8 loads at +-1..4 columns, coalesced and overlapping; 8 at +-1..4 rows, 16 KB "
                     "apart), __constant__ weights at uniform indices, u_prev and vdt2 read and u_prev "
                     "overwritten in place; 3 x 64 MB read, 64 MB written; memory-bound with L1/L2 reuse"),
    TimingProbe("probe/stencil25-zmarch-smem", "probe-unseen79", "stencil25_zmarch", _P81_ST_N, _P81_ST_BLOCK,
                lambda n: (n // 32, n // 16, -(-(n // 8) // _P81_ST_ZCH)), _p81_st_args, source=_P81,
                note="the 3-D 25-point (8th-order) Laplacian of a 1024 x 1024 x 136 volume, Micikevicius-style: "
                     "16384 blocks of 32 x 16 threads (2^23), each marching its x-y tile up a slab of 16 planes "
                     "(8 x 16 = 128 interior planes): the 9-plane column queue primed with 8 loads, then each "
                     "plane staged into a 24 x 40 float shared tile with a 4-point halo (halo rows by the first 4 "
                     "thread rows, halo columns by the first 4 lanes of each row: divergent, 4-lane requests) "
                     "between two barriers, the z-neighbours in two 4-float per-thread arrays shifted a plane, "
                     "16 shared reads (a warp a tile row: no bank conflicts) and one coalesced store a point; "
                     "570 MB read ~1.5 times (the slabs' z halos), 570 MB written; memory-bound"),
    TimingProbe("probe/nmo-interp-stretchmute", "probe-unseen79", "nmo_correct", _P81_NMO_N, 256,
                lambda n: -(-n // 256), _p81_nmo_args, source=_P81,
                note="NMO correction of 16384 traces x 2048 samples (256 CMPs of 64 offsets, 100 .. 3250 m), a "
                     "thread an output sample: 2 integer divisions, offset (broadcast) and vrms (coalesced) "
                     "loads, sqrtf and 2 float divisions, then the ~83% unmuted samples (a stretch mute that "
                     "cuts the early times of far offsets: some warps divergent) gather 2 neighbouring samples "
                     "of their own trace at t >= t0 (a warp's addresses ascending, mostly 1-2 lines); 128 MB "
                     "read, 128 MB written; memory-bound"),
    TimingProbe("probe/cmp-stack-atomicadd", "probe-unseen79", "cmp_stack", _P81_STK_N, 256,
                lambda n: -(-n // 256), _p81_stk_args, source=_P81,
                note="CMP stacking of 16384 NMO-corrected traces x 2048 samples in shot order (64 shots x 256 "
                     "channels end-on, into 512 bins of fold up to 64), a thread a sample: an integer division, "
                     "sx and gx broadcast loads, a float division for the bin, the ~80% unmuted samples (zeros "
                     "from the mute: divergent warps near it) float-atomicAdd into the bin's stack trace (a "
                     "warp on 32 consecutive words; the bins of resident blocks mostly distinct: one shot's "
                     "traces fall in different bins), one int atomicAdd a trace for the fold; 128 MB read, "
                     "~27M float reductions on 4 MB"),
    TimingProbe("probe/kirchhoff-tmig-aperture", "probe-unseen79", "kirchhoff_tmig", _P81_KM_N, 256,
                lambda n: -(-n // 256), _p81_km_args, source=_P81,
                note="Kirchhoff time migration of a 4096-trace x 2048-sample zero-offset section (32 MB, "
                     "L2-resident), a thread an image point (a warp 32 consecutive t0 of one trace): a loop over "
                     "the 201 traces within +-100 of its own (fewer within 100 of the edges), each trip a sqrtf, "
                     "2 float divisions (t / dt, the obliquity t0 / t), and an interpolating gather of 2 "
                     "neighbouring samples of trace j at t(t0) (a warp's lanes on nearby samples: 1-2 lines); "
                     "the few times past a trace's end skipped; ~1.6G inner trips, compute/latency-bound"),
    TimingProbe("probe/agc-running-pertrace", "probe-unseen79", "agc_trace", _P81_AGC_N, 256,
                lambda n: -(-(n // _P81_AGC_NT) // 256), _p81_agc_args, source=_P81,
                note="AGC of a 2048-trace line of 1024 samples (1/64 dead), a thread a whole trace: 8 blocks of "
                     "256 (8 SMs busy, 8 warps each), a running sum of squares over a 125-sample window slid "
                     "along the trace (~1090 sequential steps), each step 3 loads (the sample, the one entering, "
                     "the one leaving) and a store with a warp's lanes 4 KB apart (32 lines an access, each "
                     "line reused over 32 steps from L1), a sqrtf and 2 float divisions; 8 MB read, 8 MB "
                     "written by 4-byte scattered stores; latency/L1-bound, the GPU nearly idle"),
]
PROBES += UNSEEN79


# probe-unseen77 (probes79.cu): a medical-imaging reconstruction course's kernels (CT and
# MRI: flat-field and log pre-processing of raw counts, Ram-Lak filtering by a shared-memory
# convolution, pixel-driven filtered backprojection, a ray-marching forward projector, MRI
# radial k-space gridding with a Kaiser-Bessel kernel by float atomics, a HU histogram and
# min/max of a CT volume for windowing) as a student who knows CUDA basics writes them
_P79 = "probes79.cu"
_P79_FF_N, _P79_FF_DET = 1 << 26, 512 * 512     # flatfield-log: readings (256 views), detector pixels a view
_P79_FF_DARK, _P79_FF_FLAT = (100.0, 8.0), (40000.0, 0.05)   # dark: mean, sd (counts); flat: mean, relative sd
_P79_FF_PMAX, _P79_FF_STARVED = 6.0, 0.01        # line integrals uniform in [0, PMAX); readings behind metal
_P79_FF_TMIN, _P79_FF_C2, _P79_FF_C3 = 1e-4, 0.02, 0.002   # the clamp, the beam-hardening polynomial
_P79_RL_DET = 768                                # RL_DET: bins a projection (also fbp's n_det for N = 512)
_P79_ANGLES = 720                                # projections over 180 degrees (0.25 degree apart)
_P79_RL_BLOCK = 256
_P79_MU = 0.02                                   # the phantom's density 1 in 1 / pixel (water at 1 mm pixels)
_P79_BP_N, _P79_BP_MAX = 512, 1024               # fbp: the image side; BP_MAX_ANGLES
_P79_FP_N, _P79_FP_STEP = 256, 1.0               # forward projection: the image side (n_det = N); FP_STEP
_P79_KB_W, _P79_KB_LUT, _P79_KB_ALPHA = 4, 512, 2.0   # KB_W, KB_LUT, the grid's oversampling
_P79_KB_G = 512                                  # the oversampled grid's side (a 256 x 256 image)
_P79_KB_READ = 512                               # samples a radial spoke (n / this spokes)
_P79_KB_N = 1 << 18                              # samples (512 spokes)
_P79_HU_N, _P79_HU_SIDE = 1 << 24, 256           # hu-hist: voxels (256 slices of 256 x 256); the slice side
_P79_HU_MIN, _P79_HU_W, _P79_HU_BINS, _P79_HU_VPT = -1024, 4, 1024, 16   # HU_MIN, HU_BIN_WIDTH, HU_BINS, ..._PER_THREAD
_P79_HU_BLOCK = 256
_P79_HU_METAL = 2e-4                             # voxels of metal (HU 3000 .. 12000, past the last bin)

# the modified Shepp-Logan phantom (Toft): density, semi-axes a, b, centre x0, y0 (the
# unit disc), rotation in degrees
_P79_SHEPP = [(1.0, .69, .92, 0.0, 0.0, 0.0), (-.8, .6624, .874, 0.0, -.0184, 0.0),
              (-.2, .11, .31, .22, 0.0, -18.0), (-.2, .16, .41, -.22, 0.0, 18.0), (.1, .21, .25, 0.0, .35, 0.0),
              (.1, .046, .046, 0.0, .1, 0.0), (.1, .046, .046, 0.0, -.1, 0.0), (.1, .046, .023, -.08, -.605, 0.0),
              (.1, .023, .023, 0.0, -.606, 0.0), (.1, .023, .046, .06, -.605, 0.0)]


def _p79_ff_args(n, rng, det=_P79_FF_DET):
    """n raw readings (uint16, view-major, det pixels a view): dark + (flat - dark) exp(-p)
    with p uniform in [0, _P79_FF_PMAX) plus Poisson-like noise (normal, sd the square
    root of the counts), a fraction _P79_FF_STARVED starved (the dark level plus noise);
    the dark and flat frames (float32, det); proj (zeroed); t_min, c2, c3, det, n."""
    f = np.float32
    dark = rng.normal(*_P79_FF_DARK, det).astype(f)
    flat = (_P79_FF_FLAT[0] * (1 + _P79_FF_FLAT[1] * rng.standard_normal(det))).astype(f)
    p = rng.random(n, dtype=f) * f(_P79_FF_PMAX)
    p[rng.random(n, dtype=f) < _P79_FF_STARVED] = 40.0
    c = np.exp(-p)
    del p
    if n % det == 0:
        C = c.reshape(-1, det)
        C *= flat - dark
        C += dark
    else:
        d = np.arange(n) % det
        c *= (flat - dark)[d]
        c += dark[d]
    c += np.sqrt(c) * rng.standard_normal(n, dtype=f)
    raw = np.clip(np.rint(c), 0, 65535).astype(np.uint16)
    del c
    return [raw, dark, flat, np.zeros(n, f), f(_P79_FF_TMIN), f(_P79_FF_C2), f(_P79_FF_C3), _i32(det), _i32(n)]


def _p79_ff_ref(raw, dark, flat, t_min=_P79_FF_TMIN, c2=_P79_FF_C2, c3=_P79_FF_C3):
    """flatfield_log in float64: the corrected line integrals and the clamped mask."""
    d = np.arange(len(raw)) % len(dark)
    dk = dark[d].astype(np.float64)
    t = (raw.astype(np.float64) - dk) / (flat[d].astype(np.float64) - dk)
    clamped = t < np.float32(t_min)
    p = -np.log(np.maximum(t, np.float64(np.float32(t_min))))
    return p * (1 + p * (np.float32(c2) + p * np.float32(c3))), clamped


def _p79_shepp_sino(n_angles, n_det, side, mu=_P79_MU):
    """The analytic parallel-beam sinogram (n_angles x n_det, float64) of the modified
    Shepp-Logan phantom filling the disc of radius side / 2 (densities times mu): angle a
    at a pi / n_angles, bin d at d - (n_det - 1) / 2."""
    th = np.arange(n_angles)[:, None] * np.pi / n_angles
    t = (np.arange(n_det) - 0.5 * (n_det - 1))[None, :]
    r = 0.5 * side
    out = np.zeros((n_angles, n_det))
    for A, a, b, x0, y0, phi in _P79_SHEPP:
        a, b, x0, y0 = a * r, b * r, x0 * r, y0 * r
        ph = np.deg2rad(phi)
        s2 = (a * np.cos(th - ph)) ** 2 + (b * np.sin(th - ph)) ** 2
        tau = t - x0 * np.cos(th) - y0 * np.sin(th)
        out += np.where(tau * tau < s2, 2 * A * mu * a * b * np.sqrt(np.maximum(s2 - tau * tau, 0)) / s2, 0.0)
    return out


def _p79_shepp_image(side, mu=_P79_MU):
    """The modified Shepp-Logan phantom on side x side unit pixels (float32; pixel (x, y)
    at (x - (side-1)/2, (side-1)/2 - y), row 0 at the top)."""
    c = np.arange(side) - 0.5 * (side - 1)
    X, Y = c[None, :], -c[:, None]
    r = 0.5 * side
    img = np.zeros((side, side))
    for A, a, b, x0, y0, phi in _P79_SHEPP:
        ph = np.deg2rad(phi)
        xr = (X - x0 * r) * np.cos(ph) + (Y - y0 * r) * np.sin(ph)
        yr = -(X - x0 * r) * np.sin(ph) + (Y - y0 * r) * np.cos(ph)
        img += np.where((xr / (a * r)) ** 2 + (yr / (b * r)) ** 2 <= 1, A * mu, 0.0)
    return img.astype(np.float32)


def _p79_ramlak_h(n_det=_P79_RL_DET):
    """The band-limited Ram-Lak kernel on 2 n_det - 1 taps (float32, centre n_det - 1):
    1/4 at 0, -1 / (pi k)^2 at odd k, 0 at even k."""
    k = np.arange(-(n_det - 1), n_det)
    h = np.where(k % 2 == 1, -1.0 / (np.pi * np.maximum(np.abs(k), 1)) ** 2, 0.0)
    h[n_det - 1] = 0.25
    return h.astype(np.float32)


def _p79_rl_args(n, rng):
    """n projections of the analytic Shepp-Logan sinogram (n x RL_DET, angles pi / n apart,
    the phantom 512 pixels across; float32), the Ram-Lak kernel, filt (zeroed), n."""
    sino = _p79_shepp_sino(n, _P79_RL_DET, _P79_BP_N).astype(np.float32)
    return [sino.ravel(), _p79_ramlak_h(), np.zeros(n * _P79_RL_DET, np.float32), _i32(n)]


def _p79_ramlak_ref(sino, h, n_det=_P79_RL_DET):
    """ramlak_filter in float64: each projection convolved with h (the centre tap at 0)."""
    P = np.asarray(sino, np.float64).reshape(-1, n_det)
    k = np.arange(n_det)
    H = np.asarray(h, np.float64)[k[None, :] - k[:, None] + n_det - 1]      # H[k, t] = h[t - k + n_det - 1]
    return P @ H


def _p79_bp_shape(N):
    """fbp's detector bins for an N x N image: 3 N / 2 (the corners' circle inside)."""
    return 3 * N // 2


def _p79_bp_args(n, rng, n_angles=_P79_ANGLES):
    """The Ram-Lak-filtered analytic Shepp-Logan sinogram (n_angles x 3n/2, float32) of
    the phantom n pixels across, the image (n x n, zeroed), scale pi / n_angles, n_angles,
    n_det, n."""
    nd = _p79_bp_shape(n)
    sino = _p79_shepp_sino(n_angles, nd, n)
    q = _p79_ramlak_ref(sino, _p79_ramlak_h(nd), nd).astype(np.float32)
    return [q.ravel(), np.zeros(n * n, np.float32), np.float32(np.pi / n_angles), _i32(n_angles), _i32(nd), _i32(n)]


def _p79_bp_syms(n, rng, n_angles=_P79_ANGLES):
    """c_cos and c_sin (BP_MAX_ANGLES float32, the first n_angles set)."""
    th = np.arange(n_angles) * np.pi / n_angles
    c, s = np.zeros(_P79_BP_MAX, np.float32), np.zeros(_P79_BP_MAX, np.float32)
    c[:n_angles], s[:n_angles] = np.cos(th), np.sin(th)
    return {"c_cos": c, "c_sin": s}


def _p79_bp_ref(q, cos_t, sin_t, scale, n_angles, n_det, N):
    """fbp_backproject in float64 (the float32 trig tables): the N x N image."""
    Q = np.asarray(q, np.float64).reshape(n_angles, n_det)
    c = np.arange(N) - 0.5 * (N - 1)
    X, Y = c[None, :], -c[:, None]
    img = np.zeros((N, N))
    for a in range(n_angles):
        t = X * np.float64(cos_t[a]) + Y * np.float64(sin_t[a]) + 0.5 * (n_det - 1)
        i0 = np.floor(t).astype(np.int64)
        w = t - i0
        ok = (i0 >= 0) & (i0 < n_det - 1)
        i0c = np.clip(i0, 0, n_det - 2)
        img += np.where(ok, (1 - w) * Q[a, i0c] + w * Q[a, i0c + 1], 0.0)
    return img * np.float64(scale)


def _p79_fp_args(n, rng, n_angles=_P79_ANGLES):
    """The Shepp-Logan phantom (n x n float32), the sinogram (n_angles x n, zeroed), N, n_det
    (= n), n_angles."""
    return [_p79_shepp_image(n).ravel(), np.zeros(n_angles * n, np.float32), _i32(n), _i32(n), _i32(n_angles)]


def _p79_fp_steps(N, n_det):
    """forward_project's samples a ray (as the kernel computes them in float32), and the
    distance of 2 L / FP_STEP from an integer (the truncation's margin)."""
    f = np.float32
    off = (np.arange(n_det, dtype=f) - f(0.5) * f(n_det - 1)).astype(f)
    R = f(0.5) * f(N)
    inside = np.abs(off) < R
    L = np.sqrt(np.maximum(R * R - off * off, f(0))).astype(f)
    x = (f(2) * L / f(_P79_FP_STEP)).astype(f)
    steps = np.where(inside, x.astype(np.int64), 0)
    gap = np.abs(x - np.rint(x))[inside & (x > 0)]
    return steps, (gap.min() if gap.size else np.inf)


def _p79_fp_ref(img, N, n_det, n_angles):
    """forward_project in float64 (the kernel's sample counts; a sample skipped unless its
    2 x 2 pixels are in the image): the sinogram (n_angles x n_det)."""
    I = np.asarray(img, np.float64).reshape(N, N)
    steps, _ = _p79_fp_steps(N, n_det)
    th = np.arange(n_angles) * np.float64(np.float32(np.pi) / n_angles)
    c, s = np.cos(th)[:, None], np.sin(th)[:, None]
    off = (np.arange(n_det) - 0.5 * (n_det - 1))[None, :]
    half = 0.5 * (N - 1)
    out = np.zeros((n_angles, n_det))
    u0 = -0.5 * steps * _P79_FP_STEP + 0.5 * _P79_FP_STEP
    for k in range(int(steps.max(initial=0))):
        u = (u0 + k * _P79_FP_STEP)[None, :]
        px = off * c - u * s + half
        py = half - (off * s + u * c)
        ix, iy = np.floor(px).astype(np.int64), np.floor(py).astype(np.int64)
        fx, fy = px - ix, py - iy
        ok = (k < steps)[None, :] & (ix >= 0) & (ix < N - 1) & (iy >= 0) & (iy < N - 1)
        ix, iy = np.clip(ix, 0, N - 2), np.clip(iy, 0, N - 2)
        v = (1 - fy) * ((1 - fx) * I[iy, ix] + fx * I[iy, ix + 1]) + fy * ((1 - fx) * I[iy + 1, ix] + fx * I[iy + 1, ix + 1])
        out += np.where(ok, v, 0.0)
    return out * _P79_FP_STEP


def _p79_kb_lut():
    """The Kaiser-Bessel kernel of width KB_W for oversampling _P79_KB_ALPHA (Beatty's
    beta) at KB_LUT distances 0 .. KB_W / 2 (float32, 1 at 0)."""
    W, a = _P79_KB_W, _P79_KB_ALPHA
    beta = np.pi * np.sqrt((W / a) ** 2 * (a - 0.5) ** 2 - 0.8)
    d = np.linspace(0, W / 2, _P79_KB_LUT)
    v = np.i0(beta * np.sqrt(np.maximum(1 - (2 * d / W) ** 2, 0)))
    return (v / v[0]).astype(np.float32)


def _p79_kb_args(n, rng, G=_P79_KB_G):
    """n radial k-space samples (n / KB_READ spokes at angles pi / spokes apart, KB_READ
    readout points from -(G/2 - KB_W) to +(G/2 - KB_W) in grid cells; kx, ky float32),
    their values (n x 2 float32: complex normal times 1 / (1 + |k| / 4)^2, the energy at
    the centre), the ramp density weights |k| (float32, the centre's a quarter step), the
    KB table, the grid (G x G x 2, zeroed), G, n."""
    f = np.float32
    nr = min(n, _P79_KB_READ)
    spokes = -(-n // nr)
    kmax = G / 2 - _P79_KB_W
    r = np.linspace(-kmax, kmax, nr)
    phi = np.arange(spokes) * np.pi / spokes
    kx = (np.cos(phi)[:, None] * r[None, :]).ravel()[:n]
    ky = (np.sin(phi)[:, None] * r[None, :]).ravel()[:n]
    k = np.hypot(kx, ky)
    amp = 1.0 / (1 + k / 4) ** 2
    data = (rng.standard_normal((n, 2)) * amp[:, None]).astype(f)
    dcf = np.maximum(k, (r[1] - r[0]) / 4).astype(f)
    return [kx.astype(f), ky.astype(f), data, dcf, _p79_kb_lut(), np.zeros((G * G, 2), f), _i32(G), _i32(n)]


def _p79_kb_ref(kx, ky, data, dcf, lut, G):
    """grid_kspace_kb in float64 (the kernel's float32 cells and table indices): the grid
    (G*G x 2) and the taps a sample spread (the in-grid ones)."""
    f = np.float32
    gx = (np.asarray(kx, f) + f(0.5) * f(G)).astype(f)
    gy = (np.asarray(ky, f) + f(0.5) * f(G)).astype(f)
    vr = (data[:, 0].astype(f) * dcf).astype(np.float64)
    vi = (data[:, 1].astype(f) * dcf).astype(np.float64)
    scale = np.float64(f((_P79_KB_LUT - 1) / (0.5 * _P79_KB_W)))
    x0 = np.floor(gx).astype(np.int64) - _P79_KB_W // 2 + 1
    y0 = np.floor(gy).astype(np.int64) - _P79_KB_W // 2 + 1

    def weight(c, g):                      # fma(|c - g|, scale, 0.5) rounded to float32, truncated
        d = np.abs((c.astype(f) - g).astype(f)).astype(np.float64)
        return np.asarray(lut, np.float64)[np.asarray(d * scale + 0.5).astype(f).astype(np.int64)]
    out = np.zeros((G * G, 2))
    taps = np.zeros(len(gx), np.int64)
    for j in range(_P79_KB_W):
        y = y0 + j
        oky = (y >= 0) & (y < G)
        wy = weight(np.clip(y, 0, G - 1), gy)
        for i in range(_P79_KB_W):
            x = x0 + i
            ok = oky & (x >= 0) & (x < G)
            w = weight(np.clip(x, 0, G - 1), gx) * wy
            cell = y[ok] * G + x[ok]
            np.add.at(out[:, 0], cell, (vr * w)[ok])
            np.add.at(out[:, 1], cell, (vi * w)[ok])
            taps += ok
    return out, taps


def _p79_hu_volume(n, rng):
    """n voxels (int16 HU, slices of _P79_HU_SIDE^2, z slowest) of a synthetic chest CT:
    air (-1000) around an elliptical body of soft tissue (40) under a fat layer (-100), two
    lungs (-850) that grow and shrink along z, a spine (700) and a sternum (400), noise sd 15
    HU, clipped below at -1024, a fraction _P79_HU_METAL of metal voxels (3000 .. 12000)."""
    S = _P79_HU_SIDE
    nz = -(-n // (S * S))
    c = ((np.arange(S, dtype=np.float32) + 0.5) / S * 2 - 1)
    X, Y = c[None, :], c[:, None]
    vol = np.empty((nz, S, S), np.int16)
    for z in range(nz):
        zz = (z + 0.5) / nz
        e = (X / 0.85) ** 2 + (Y / 0.6) ** 2
        hu = np.where(e <= 1, np.where(e > 0.82, -100.0, 40.0), -1000.0)
        lr = 0.18 + 0.12 * np.sin(np.pi * zz)
        for sx in (-0.38, 0.38):
            hu = np.where(((X - sx) / (0.9 * lr + 0.08)) ** 2 + ((Y + 0.02) / (1.2 * lr + 0.1)) ** 2 <= 1, -850.0, hu)
        hu = np.where(X ** 2 + (Y - 0.42) ** 2 <= 0.1 ** 2, 700.0, hu)
        hu = np.where((X / 0.06) ** 2 + ((Y + 0.5) / 0.03) ** 2 <= 1, 400.0, hu)
        hu = hu + rng.normal(0, 15, (S, S))
        vol[z] = np.maximum(np.rint(hu), -1024).astype(np.int16)
    v = vol.ravel()[:n].copy()
    m = rng.random(n) < _P79_HU_METAL
    v[m] = rng.integers(3000, 12001, int(m.sum())).astype(np.int16)
    return v


def _p79_hu_args(n, rng):
    """_p79_hu_volume(n), the histogram (uint32 HU_BINS, zeroed), vmin INT_MAX and vmax
    INT_MIN (int32), n."""
    return [_p79_hu_volume(n, rng), np.zeros(_P79_HU_BINS, np.uint32), np.array([2 ** 31 - 1], np.int32),
            np.array([-2 ** 31], np.int32), _i32(n)]


def _p79_hu_ref(vol):
    """hu_hist_minmax: the histogram (uint32; C's truncating division, then clamped),
    minimum and maximum."""
    v = np.asarray(vol, np.int64)
    b = np.clip(np.trunc((v - _P79_HU_MIN) / _P79_HU_W).astype(np.int64), 0, _P79_HU_BINS - 1)
    return np.bincount(b, minlength=_P79_HU_BINS).astype(np.uint32), int(v.min()), int(v.max())


UNSEEN77 = [
    TimingProbe("probe/ct-flatfield-log", "probe-unseen77", "flatfield_log", _P79_FF_N, 256,
                lambda n: -(-n // 256), _p79_ff_args, source=_P79,
                note="CT pre-processing of 2^26 raw uint16 detector readings (256 views of a 512 x 512 panel), a "
                     "thread a reading: the 2-byte count coalesced, the pixel's dark and flat frames (1 MiB each, "
                     "re-read every view from L2) by i % n_det (a runtime integer modulo), a float division, a "
                     "clamp (1% starved, ~0.4% clamped), logf and a cubic by Horner, one coalesced float store; "
                     "memory-bound (6 bytes a reading)"),
    TimingProbe("probe/ramlak-conv-smem", "probe-unseen77", "ramlak_filter", _P79_ANGLES, _P79_RL_BLOCK,
                lambda n: (_P79_RL_DET // _P79_RL_BLOCK, n), _p79_rl_args, source=_P79,
                note="Ram-Lak filtering of a 720 x 768 Shepp-Logan sinogram by direct convolution, a block 256 bins "
                     "of one projection (grid 3 x 720): the projection (3 KiB) and the 1535-tap kernel (6 KiB) "
                     "staged in shared memory, then 768 trips a thread of a broadcast s_p[k] load, a consecutive "
                     "s_h[t - k + 767] load (conflict-free) and an FMA; shared-load/FMA bound, one store a thread"),
    TimingProbe("probe/fbp-backproject-const", "probe-unseen77", "fbp_backproject", _P79_BP_N, (16, 16),
                lambda n: (-(-n // 16), -(-n // 16)), _p79_bp_args, source=_P79, symbols=_p79_bp_syms,
                note="pixel-driven filtered backprojection of a 720 x 768 filtered sinogram (2.1 MiB, L2/L1 "
                     "resident) into a 512 x 512 image, 16 x 16 blocks, a thread a pixel: 720 trips of cos/sin "
                     "from __constant__ tables (uniform index), floorf, and two neighbouring sinogram loads "
                     "(a warp's lanes within a few bins of each other along a projection) with a lerp; the bounds "
                     "test always true (the detector covers the image's corners); one store a pixel"),
    TimingProbe("probe/raymarch-forward-proj", "probe-unseen77", "forward_project", _P79_FP_N, 256,
                lambda n: -(-(_P79_ANGLES * n) // 256), _p79_fp_args, source=_P79,
                note="ray-marching forward projection of a 256 x 256 Shepp-Logan image (256 KiB) to 720 x 256 rays, a "
                     "thread a ray (a warp 32 neighbouring bins of one angle): cosf/sinf, the chord through the "
                     "field-of-view disc sampled every pixel (22 .. 255 samples, mean ~201; a warp's slowest lane "
                     "~223), each sample 2 floorf, a 4-way bounds test and 4 bilinear loads (2 x 2 pixels) at "
                     "scattered 2-D positions (L1/L2 hits), one store a ray"),
    TimingProbe("probe/mri-grid-kb-atomic", "probe-unseen77", "grid_kspace_kb", _P79_KB_N, 256,
                lambda n: -(-n // 256), _p79_kb_args, source=_P79,
                note="MRI gridding of 2^18 radial k-space samples (512 spokes of 512) onto a 512 x 512 complex grid "
                     "(2 MiB) with a 4 x 4 Kaiser-Bessel kernel, a thread a sample: kx, ky, float2 data and dcf "
                     "coalesced, 20 nearest-entry lookups (4 row weights, 16 column weights) in a 2 KiB table, 16 "
                     "taps of 2 float atomicAdds (8.4M atomics); neighbouring lanes ~1 cell apart along a spoke "
                     "share 3 of 4 columns, and every spoke crosses the centre (the cells there take ~2000 updates "
                     "each)"),
    TimingProbe("probe/ct-hu-hist-minmax", "probe-unseen77", "hu_hist_minmax", _P79_HU_N, _P79_HU_BLOCK,
                lambda n: -(-n // (_P79_HU_BLOCK * _P79_HU_VPT)), _p79_hu_args, source=_P79,
                note="windowing statistics of a 2^24-voxel int16 chest CT (256 slices of 256 x 256, 60% air), 4096 "
                     "blocks of 256 threads, 16 voxels a thread (coalesced 2-byte loads): a 1024-bin shared "
                     "histogram (zeroed, 4 KiB) by shared atomicAdd (a warp's 32 neighbouring voxels on ~15 "
                     "distinct bins, ~5 lanes on the commonest), running min/max, 5 shuffle rounds and an atomicMin "
                     "and atomicMax a warp on two words, then the block's non-zero bins (~20 of 1024) added to "
                     "global"),
]
PROBES += UNSEEN77


# probe-unseen78 (probes80.cu): a data-compression course's CUDA assignments (frame-of-
# reference bit unpacking, delta + zigzag encoding with a varint byte count, scan-less
# per-block run-length encoding by __ballot_sync, canonical Huffman decoding bit by bit
# from a shared table, LZ77's longest match in a shared-memory window, byte frequencies
# and per-chunk entropy by shared atomics) as a student who knows CUDA basics writes them
_P80 = "probes80.cu"
P80_FOR_FRAME = 128                 # FOR_FRAME
P80_FOR_W = (4, 20)                 # for-unpack: each frame's width uniform in this range (inclusive)
P80_FOR_BASE = 1 << 20              # for-unpack: frame bases uniform in [-this, this)
P80_DZ_STEP = 20.0                  # delta-zigzag: steps Laplace of this scale (rounded) ...
P80_DZ_JUMP, P80_DZ_JUMP_P = 1 << 16, 0.01   # ... but for jumps uniform in +-P80_DZ_JUMP with this probability
P80_RLE_BLOCK = 256                 # RLE_BLOCK
P80_RLE_SHORT, P80_RLE_LONG, P80_RLE_PLONG = 3.0, 40.0, 0.3   # run lengths: geometric, means short / long
P80_RLE_SYMS = 16                   # rle: a run's byte uniform in [0, this)
P80_HUF_MAXLEN, P80_HUF_CHUNK = 15, 16       # HUF_MAXLEN, HUF_CHUNK
P80_HUF_ZIPF = 1.1                  # huffman: symbol r's frequency ~ 1 / (r + 2)^this (ranks shuffled over bytes)
P80_HUF_SEED = 8080                 # huffman: the alphabet's own seed (one code for every stream)
P80_LZ_TILE, P80_LZ_WIN, P80_LZ_MAXM, P80_LZ_MINM = 128, 256, 32, 3   # LZ_TILE, LZ_WIN, LZ_MAXM, LZ_MINM
P80_LZ_VOCAB, P80_LZ_WLEN = 2048, (2, 10)   # lz77: a vocabulary of words of 2..10 letters, drawn by Zipf rank
P80_LZ_SEED = 8081                  # lz77: the vocabulary's own seed
P80_ENT_CHUNK = 16384               # byte-entropy: bytes a chunk (a block)
P80_ENT_MIX = (0.5, 0.25, 0.25)     # byte-entropy: chunks text-like / uniform random / sparse (mostly zeros)
P80_ENT_TEXT, P80_ENT_ZERO = 64, 0.85   # text chunks: 64 printable symbols by Zipf rank; sparse: P(zero)


def _p80_for_pack(vals, width, word_off):
    """Pack vals (n <= frames * P80_FOR_FRAME, each below 2^width of its frame) LSB-first:
    frame f's values from word word_off[f], value j at bit j * width[f] (uint32 words)."""
    nf = len(width)
    w = np.repeat(np.asarray(width, np.int64), P80_FOR_FRAME)
    v = np.zeros(nf * P80_FOR_FRAME, np.uint64)
    v[:len(vals)] = np.asarray(vals, np.uint64)
    j = np.tile(np.arange(P80_FOR_FRAME, dtype=np.int64), nf)
    bit = np.repeat(np.asarray(word_off, np.int64) * 32, P80_FOR_FRAME) + j * w
    word = bit >> 5
    s = v << (bit & 31).astype(np.uint64)
    nw = int(word_off[-1]) + 4 * int(width[-1])
    lo = np.bincount(word, weights=(s & np.uint64(0xffffffff)).astype(np.float64), minlength=nw + 1)
    hi = np.bincount(word + 1, weights=(s >> np.uint64(32)).astype(np.float64), minlength=nw + 1)
    return (lo + hi)[:nw].astype(np.uint32)                 # disjoint bits: the float sums are exact


def _p80_for_args(n, rng):
    """n values in frames of P80_FOR_FRAME (the last padded): widths uniform in P80_FOR_W,
    bases uniform in +-P80_FOR_BASE, each value its base plus a uniform width-bit offset;
    packed (uint32), base, width, word_off (int32), out (int32, zeroed), n."""
    nf = -(-n // P80_FOR_FRAME)
    width = rng.integers(P80_FOR_W[0], P80_FOR_W[1] + 1, nf).astype(np.int32)
    base = rng.integers(-P80_FOR_BASE, P80_FOR_BASE, nf).astype(np.int32)
    word_off = np.zeros(nf, np.int64)
    np.cumsum(4 * width[:-1].astype(np.int64), out=word_off[1:])
    r = rng.integers(0, 1 << 32, n, dtype=np.uint64)
    off = r >> (32 - np.repeat(width.astype(np.uint64), P80_FOR_FRAME)[:n])
    return [_p80_for_pack(off, width, word_off), base, width, word_off.astype(np.int32), np.zeros(n, np.int32),
            _i32(n)]


def _p80_for_ref(packed, base, width, word_off, n):
    """The unpacked values (int32, base + offset wrapping as the GPU's int add does)."""
    i = np.arange(n, dtype=np.int64)
    f = i // P80_FOR_FRAME
    w = np.asarray(width, np.int64)[f]
    bit = (i % P80_FOR_FRAME) * w
    word = np.asarray(word_off, np.int64)[f] + (bit >> 5)
    p = np.append(np.asarray(packed, np.uint64), np.uint64(0))
    two = p[word] | (p[word + 1] << np.uint64(32))
    v = (two >> (bit & 31).astype(np.uint64)) & ((np.uint64(1) << w.astype(np.uint64)) - np.uint64(1))
    return (np.asarray(base, np.int64)[f] + v.astype(np.int64)).astype(np.uint32).view(np.int32)


def _p80_dz_args(n, rng):
    """A sensor-like int32 series (a random walk: rounded Laplace steps of scale P80_DZ_STEP,
    1% jumps uniform in +-P80_DZ_JUMP, from a uniform start), zz (uint32, zeroed), the
    byte total (uint64, zeroed), n."""
    step = np.rint(rng.laplace(0.0, P80_DZ_STEP, n)).astype(np.int64)
    jump = rng.random(n) < P80_DZ_JUMP_P
    step[jump] = rng.integers(-P80_DZ_JUMP, P80_DZ_JUMP, int(jump.sum()))
    step[0] = rng.integers(-1 << 24, 1 << 24)
    return [np.cumsum(step).astype(np.int32), np.zeros(n, np.uint32), np.zeros(1, np.uint64), _i32(n)]


def _p80_dz_ref(x):
    """(zigzag deltas (uint32), their total LEB128 varint bytes)."""
    d = np.diff(np.asarray(x, np.int64), prepend=0).astype(np.uint64).astype(np.uint32).view(np.int32)
    z = (d.view(np.uint32) << np.uint32(1)) ^ (d >> 31).view(np.uint32)
    bits = np.floor(np.log2((z | np.uint32(1)).astype(np.float64))).astype(np.int64) + 1
    return z, int(((bits + 6) // 7).sum())


def _p80_rle_args(n, rng):
    """n bytes in runs (lengths geometric: mean P80_RLE_SHORT, or with probability
    P80_RLE_PLONG mean P80_RLE_LONG; each run's byte uniform below P80_RLE_SYMS, a
    neighbour's by chance), run_sym (uint8), run_len (uint16), block_runs (int32), zeroed; n."""
    m = n // 4 + 16
    long_ = rng.random(m) < P80_RLE_PLONG
    lens = np.where(long_, rng.geometric(1 / P80_RLE_LONG, m), rng.geometric(1 / P80_RLE_SHORT, m))
    while lens.sum() < n:
        lens = np.concatenate([lens, lens])
    sym = rng.integers(0, P80_RLE_SYMS, len(lens)).astype(np.uint8)
    data = np.repeat(sym, lens)[:n]
    nb = -(-n // P80_RLE_BLOCK)
    return [data, np.zeros(n, np.uint8), np.zeros(n, np.uint16), np.zeros(nb, np.int32), _i32(n)]


def _p80_rle_ref(data):
    """(run_sym, run_len as the kernel leaves them in zeroed arrays, block_runs): runs cut
    at every P80_RLE_BLOCK-byte piece, piece b's k-th run at slot b * P80_RLE_BLOCK + k."""
    x = np.asarray(data)
    n = len(x)
    i = np.arange(n)
    head = (i % P80_RLE_BLOCK == 0)
    head[1:] |= x[1:] != x[:-1]
    hpos = np.flatnonzero(head)
    lens = np.diff(np.append(hpos, n))
    blk = hpos // P80_RLE_BLOCK
    counts = np.bincount(blk, minlength=-(-n // P80_RLE_BLOCK))
    rank = np.arange(len(hpos)) - np.repeat(np.cumsum(counts) - counts, counts)
    slot = blk * P80_RLE_BLOCK + rank
    sym = np.zeros(n, np.uint8)
    ln = np.zeros(n, np.uint16)
    sym[slot] = x[hpos]
    ln[slot] = lens
    return sym, ln, counts.astype(np.int32)


def _p80_huff_lengths(freq):
    """Huffman code lengths of the frequencies (heapq merging, ties by insertion)."""
    import heapq
    heap = [(float(f), k, [k]) for k, f in enumerate(freq)]
    heapq.heapify(heap)
    depth = np.zeros(len(freq), np.int64)
    nxt = len(freq)
    while len(heap) > 1:
        f1, _, a = heapq.heappop(heap)
        f2, _, b = heapq.heappop(heap)
        depth[a + b] += 1
        heapq.heappush(heap, (f1 + f2, nxt, a + b))
        nxt += 1
    return depth


def _p80_huff_code():
    """The course's byte alphabet: probabilities (float64, 256; Zipf rank P80_HUF_ZIPF over a
    shuffle of the bytes), code lengths, canonical codes (deflate's assignment: shorter
    first, then by symbol), count[0..MAXLEN] (int32) and the symbols in code order (uint8)."""
    rng = np.random.default_rng(P80_HUF_SEED)
    p = np.empty(256)
    p[rng.permutation(256)] = 1.0 / (np.arange(256) + 2.0) ** P80_HUF_ZIPF
    p /= p.sum()
    lens = _p80_huff_lengths(p)
    count = np.bincount(lens, minlength=P80_HUF_MAXLEN + 1).astype(np.int32)
    order = np.lexsort((np.arange(256), lens))
    codes = np.zeros(256, np.int64)
    code = 0
    for k, s in enumerate(order):                            # consecutive codes, shifted at each new length
        if k > 0:
            code = (code + 1) << int(lens[s] - lens[order[k - 1]])
        else:
            code = 0
        codes[s] = code
    return p, lens, codes, count, order.astype(np.uint8)


def _p80_huff_stream(n, rng):
    """n symbols (rounded up to whole chunks of P80_HUF_CHUNK) drawn from _p80_huff_code's
    probabilities and encoded MSB-first: (symbols uint8, stream uint32 words, each chunk's
    first bit int32)."""
    p, lens, codes, count, order = _p80_huff_code()
    nc = -(-n // P80_HUF_CHUNK)
    sym = rng.choice(256, nc * P80_HUF_CHUNK, p=p).astype(np.uint8)
    L = lens[sym]
    start = np.zeros(len(sym), np.int64)
    np.cumsum(L[:-1], out=start[1:])
    nw = (int(start[-1] + L[-1]) + 31) // 32 + 1              # whole words, and one spare
    # each code left-aligned at its bit in a 64-bit window over words start >> 5 and the next
    v = codes[sym].astype(np.uint64) << (64 - (start & 31) - L).astype(np.uint64)
    word = start >> 5
    hi = np.bincount(word, weights=(v >> np.uint64(32)).astype(np.float64), minlength=nw + 1)
    lo = np.bincount(word + 1, weights=(v & np.uint64(0xffffffff)).astype(np.float64), minlength=nw + 1)
    words = (hi + lo)[:nw].astype(np.uint32)                 # disjoint bits: the float sums are exact
    return sym, words, start[::P80_HUF_CHUNK].astype(np.int32)


def _p80_huff_args(n, rng):
    """_p80_huff_stream(n): the stream, chunk starts, count (int32[16]), the symbols in code
    order (uint8[256]), out (uint8, zeroed), the chunks."""
    p, lens, codes, count, order = _p80_huff_code()
    sym, words, starts = _p80_huff_stream(n, rng)
    return [words, starts, count, order, np.zeros(len(sym), np.uint8), _i32(len(starts))]


def _p80_huff_ref(words, starts, count, order):
    """Decode each chunk's P80_HUF_CHUNK symbols (all chunks at once, puff's canonical walk)."""
    w = np.asarray(words, np.int64)
    pos = np.asarray(starts, np.int64).copy()
    nc = len(pos)
    out = np.zeros((nc, P80_HUF_CHUNK), np.uint8)
    cnt = np.asarray(count, np.int64)
    for k in range(P80_HUF_CHUNK):
        code = np.zeros(nc, np.int64)
        first = np.zeros(nc, np.int64)
        index = np.zeros(nc, np.int64)
        done = np.zeros(nc, bool)
        for ln in range(1, P80_HUF_MAXLEN + 1):
            b = (w[pos >> 5] >> (31 - (pos & 31))) & 1
            pos = np.where(done, pos, pos + 1)
            code |= b
            hit = ~done & (code - first < cnt[ln])
            out[hit, k] = np.asarray(order)[index[hit] + code[hit] - first[hit]]
            done |= hit
            index += cnt[ln]
            first = (first + cnt[ln]) << 1
            code <<= 1
        assert done.all()
    return out.ravel()


def _p80_lz_vocab():
    """P80_LZ_VOCAB random lowercase words (bytes) of P80_LZ_WLEN letters, by rank."""
    rng = np.random.default_rng(P80_LZ_SEED)
    lens = rng.integers(P80_LZ_WLEN[0], P80_LZ_WLEN[1] + 1, P80_LZ_VOCAB)
    return [bytes(rng.integers(97, 123, int(k)).astype(np.uint8)) for k in lens]


def _p80_lz_text(n, rng):
    """n bytes of made-up prose: words drawn by Zipf rank (1 / (r + 1)) from _p80_lz_vocab,
    a space after each, a ". " in place of the space after 1 word in 12 (uint8)."""
    vocab = _p80_lz_vocab()
    pr = 1.0 / np.arange(1, P80_LZ_VOCAB + 1)
    pr /= pr.sum()
    out, have = [], 0
    while have < n:
        idx = rng.choice(P80_LZ_VOCAB, n // 5 + 64, p=pr)
        dot = rng.random(len(idx)) < 1 / 12
        s = b"".join(vocab[i] + (b". " if d else b" ") for i, d in zip(idx.tolist(), dot.tolist()))
        out.append(s)
        have += len(s)
    return np.frombuffer(b"".join(out)[:n], np.uint8).copy()


def _p80_lz_args(n, rng):
    """_p80_lz_text(n), match (int32, zeroed), n."""
    return [_p80_lz_text(n, rng), np.zeros(n, np.int32), _i32(n)]


def _p80_lz_ref(text):
    """Each position's longest match within P80_LZ_WIN back (at most P80_LZ_MAXM bytes, the
    nearest of the longest), as len << 16 | dist, 0 below P80_LZ_MINM (int32)."""
    x = np.asarray(text, np.int16)
    n = len(x)
    p = np.arange(n)
    cap = np.minimum(P80_LZ_MAXM, n - p)
    best_len = np.zeros(n, np.int64)
    best_d = np.zeros(n, np.int64)
    pad = np.concatenate([x, np.full(P80_LZ_MAXM, -1, np.int16)])
    for d in range(1, min(P80_LZ_WIN, n - 1) + 1):
        eq = np.zeros(n + P80_LZ_MAXM, bool)
        eq[d:n] = pad[d:n] == pad[:n - d]
        ln = np.zeros(n, np.int64)
        alive = np.ones(n, bool)
        for k in range(P80_LZ_MAXM):
            alive &= eq[k:k + n] & (k < cap)
            if not alive.any():
                break
            ln += alive
        better = ln > best_len
        best_len[better] = ln[better]
        best_d[better] = d
    best_d[best_len < P80_LZ_MINM] = 0
    best_len[best_len < P80_LZ_MINM] = 0
    return ((best_len << 16) | best_d).astype(np.int32)


def _p80_ent_kinds(nchunks, rng):
    """Each chunk's kind: 0 text-like, 1 uniform random, 2 sparse (P80_ENT_MIX)."""
    return rng.choice(3, nchunks, p=P80_ENT_MIX)


def _p80_ent_args(n, rng):
    """n bytes (a whole number of P80_ENT_CHUNK chunks) of mixed content read as uint32
    words: a text-like chunk's bytes from P80_ENT_TEXT printable symbols by Zipf rank, a
    random chunk's uniform, a sparse chunk's zero with probability P80_ENT_ZERO else uniform;
    freq (uint32[256], zeroed), entropy (float32, zeroed), the words a chunk."""
    nc = n // P80_ENT_CHUNK
    kind = _p80_ent_kinds(nc, rng)
    rep = np.repeat(kind, P80_ENT_CHUNK)
    pr = 1.0 / np.arange(1, P80_ENT_TEXT + 1)
    sym = (32 + rng.permutation(95)[:P80_ENT_TEXT]).astype(np.uint8)
    text = sym[rng.choice(P80_ENT_TEXT, len(rep), p=pr / pr.sum())]
    uni = rng.integers(0, 256, len(rep), dtype=np.uint8)
    sparse = np.where(rng.random(len(rep)) < P80_ENT_ZERO, np.uint8(0), uni)
    data = np.where(rep == 0, text, np.where(rep == 1, uni, sparse)).astype(np.uint8)
    return [data.view(np.uint32), np.zeros(256, np.uint32), np.zeros(nc, np.float32),
            _i32(P80_ENT_CHUNK // 4)]


def _p80_ent_ref(words, chunk_words):
    """(the file's byte frequencies (uint32[256]), each chunk's entropy in bits a byte (float64))."""
    b = np.asarray(words).view(np.uint8).reshape(-1, 4 * chunk_words)
    h = np.stack([np.bincount(r, minlength=256) for r in b])
    p = h / (4.0 * chunk_words)
    with np.errstate(divide="ignore", invalid="ignore"):
        e = -np.where(h > 0, p * np.log2(p), 0.0).sum(axis=1)
    return h.sum(axis=0).astype(np.uint32), e


UNSEEN78 = [
    TimingProbe("probe/for-bitunpack", "probe-unseen78", "for_unpack", 1 << 25, 256, lambda n: -(-n // 256),
                _p80_for_args, source=_P80,
                note="frame-of-reference decoding of 2^25 ints bit-packed in frames of 128 (widths uniform 4-20 "
                     "bits, ~50 MB packed), a thread a value: 3 broadcast frame-header loads (width, base, word "
                     "offset), one or two unaligned-but-coalesced packed word loads (lanes 4-20 bits apart: a "
                     "warp's 32 values in 4-20 consecutive words), shifts and a mask, a coalesced int store "
                     "(128 MB); memory-bound"),
    TimingProbe("probe/delta-zigzag-varint", "probe-unseen78", "delta_zigzag", 1 << 25, 256,
                lambda n: -(-n // 256), _p80_dz_args, source=_P80,
                note="delta + zigzag encoding of a 2^25-int random-walk series, a block 256 values staged in "
                     "shared memory (plus the one before), a coalesced uint store a value, __clz for its varint "
                     "length, a 5-step __shfl_down_sync warp sum, the 8 warps' sums in shared and one 64-bit "
                     "atomicAdd a block on one counter (131k blocks; ~1.06 varint bytes a value); memory-bound"),
    TimingProbe("probe/rle-ballot-compact", "probe-unseen78", "rle_block_compact", 1 << 25, P80_RLE_BLOCK,
                lambda n: -(-n // P80_RLE_BLOCK), _p80_rle_args, source=_P80,
                note="run-length encoding of 32 MiB of bytes (runs of 16 symbols, mean ~15 bytes; 7% of bytes "
                     "head a run once the 256-byte pieces cut them, ~18 runs a block), a block a piece: a coalesced "
                     "byte load into shared, the previous byte from shared, __ballot_sync + __popc for each head's "
                     "slot, thread 0 scanning the 8 warps' counts serially (4 barriers a block), heads writing "
                     "symbol bytes and ushort lengths into the block's slots (sparse, scattered stores) and an "
                     "int count a block"),
    TimingProbe("probe/huffman-canonical-bitserial", "probe-unseen78", "huff_canonical_decode", 1 << 24, 256,
                lambda n: -(-n // (P80_HUF_CHUNK * 256)), _p80_huff_args, source=_P80,
                note="canonical Huffman decoding of 2^24 byte symbols (Zipf alphabet, code lengths 3-11, 6.4 bits "
                     "a symbol on average, a 13 MB stream) in chunks of 16, a thread a chunk (2^20 threads): "
                     "tables in shared memory, each symbol decoded bit by bit (a global word load a bit, the lanes' "
                     "words ~13 B x 32 apart: uncoalesced but L1-resident; a shared count load, a compare and a "
                     "branch a bit; divergent exits: a warp runs its longest code, ~10.5 bits), a byte store a "
                     "symbol (lanes 16 B apart)"),
    TimingProbe("probe/lz77-smem-window", "probe-unseen78", "lz77_window_match", 1 << 20, P80_LZ_TILE,
                lambda n: -(-n // P80_LZ_TILE), _p80_lz_args, source=_P80,
                note="LZ77 longest-match search at 2^20 positions of made-up prose (2048-word Zipf vocabulary; 26% "
                     "of positions match >= 3 bytes, 5.4 on average), a block 128 positions with the 256 bytes "
                     "before and 32 after staged in 416 B of shared memory, a thread a position trying all 256 "
                     "distances: a byte-compare while loop a distance (shared byte loads, a warp's lanes on 8-9 "
                     "consecutive words; most lanes fail the first compare, a warp's longest partial match ~1 "
                     "byte: ~2 trips), a best-length update; 256 x ~2 dependent shared loads a thread; compute/"
                     "shared-bound"),
    TimingProbe("probe/byte-entropy-smem", "probe-unseen78", "byte_entropy", 1 << 26, 256,
                lambda n: n // P80_ENT_CHUNK, _p80_ent_args, source=_P80,
                note="byte frequencies and order-0 entropy of 64 MiB in 16 KiB chunks (half text-like: 64 "
                     "symbols by Zipf rank, ~4.9 bits a byte; a quarter uniform, 8.0; a quarter 85% zeros, 1.8), a "
                     "block a chunk: 16 coalesced uint loads a thread, 4 shared atomicAdds each into 256 bins "
                     "(zero-heavy chunks: most of a warp on one bin), a global atomicAdd a non-zero bin onto the "
                     "same 256 words, a log2f a bin and an 8-step shared tree reduction (11 barriers a block)"),
]
PROBES += UNSEEN78


# probe-unseen81 (probes83.cu): a computational-photography course's kernels (Malvar-He-Cutler
# demosaicing with a switch on the CFA phase, a bilateral filter from a shared-memory tile,
# a Debevec HDR merge with the response curve in __constant__ memory, Reinhard's
# log-average luminance by block reductions and atomics, the guided filter's coefficients
# from double summed-area tables, 3-D LUT colour grading with trilinear float4 gathers) as
# a student who knows CUDA basics writes them
_P83 = "probes83.cu"
_P83_DM_N, _P83_DM_BLOCK, _P83_DM_WHITE = 4096, (32, 8), 4095      # demosaic: an n x n RGGB mosaic, 12 bits
_P83_DM_NOISE = 0.01                                                # sensor noise (of white) on the scene
_P83_BL_N, _P83_BL_R, _P83_BL_TILE = 2048, 5, 16                    # bilateral: n x n; BL_R; BL_TILE
_P83_BL_SS, _P83_BL_SR = 3.0, 0.1                                   # spatial and range sigmas
_P83_BL_PATCH, _P83_BL_NOISE = 32, 0.05                             # the image: flat 32x32 patches + N(0, noise^2)
_P83_HDR_N, _P83_HDR_K = 1 << 23, 5                                 # hdr-merge: pixels; HDR_K exposures
_P83_HDR_DT = 4.0 ** np.arange(-5, 0)                               # exposure times 1/1024 .. 1/4 s
_P83_HDR_GAMMA = (2.1, 2.2, 2.3)                                    # each channel's response z = 255 (E dt)^(1/gamma)
_P83_HDR_LNE = (float(np.log(11.5)), 1.8, 0.2)                      # ln E: N(mean, sd^2) a pixel, + N(0, 0.2^2) a channel
_P83_HDR_ZNOISE = 0.5                                               # read noise in 8-bit steps before rounding
_P83_LL_N, _P83_LL_BLOCK, _P83_LL_DELTA = 1 << 24, 256, 1e-4        # loglum: pixels; LL_BLOCK; delta
_P83_LL_LNL = (float(np.log(0.18)), 1.5, 0.2)                       # ln L: N(mean, sd^2) a pixel, + N(0, 0.2^2) a channel
_P83_GF_N, _P83_GF_R, _P83_GF_EPS = 2048, 8, 1e-3                   # guided: n x n; radius; eps
_P83_GF_NOISE = 0.05                                                # p = I + N(0, noise^2)
_P83_LUT_N, _P83_LUT_PIX, _P83_LUT_W = 33, 1 << 24, 4096            # lut3d: LUT_N; pixels; the image's width
_P83_LUT_NOISE = 0.008                                              # the image's per-channel noise (of 1)


def _p83_scene(W, H, noise, rng):
    """A synthetic photo, H x W x 3 float32 in [0, 1]: smooth colour waves (+-0.3) plus a
    256-pixel checkerboard of +-0.25 steps (sharp edges), plus N(0, noise^2), clipped (a
    few per cent of the pixels black or blown out)."""
    f = np.float32
    x = np.arange(W, dtype=f)[None, :]
    y = np.arange(H, dtype=f)[:, None]
    chk = ((np.arange(W)[None, :] // 256 + np.arange(H)[:, None] // 256) % 2).astype(f) * f(0.5) - f(0.25)
    img = np.empty((H, W, 3), f)
    for c, (fx, fy, ph) in enumerate([(1 / 517, 1 / 389, 0.0), (1 / 433, 1 / 601, 1.0), (1 / 353, 1 / 277, 2.0)]):
        img[:, :, c] = f(0.5) + f(0.3) * np.sin(x * f(fx) + f(ph)) * np.cos(y * f(fy)) + chk
        img[:, :, c] += rng.standard_normal((H, W), dtype=f) * f(noise)
    return np.clip(img, 0, 1)


def _p83_dm_args(n, rng):
    """An n x n RGGB mosaic of _p83_scene (12 bits, uint16: R at even x and y); the RGB
    floats (3 n^2, zeroed); inv_white, W, H."""
    img = _p83_scene(n, n, _P83_DM_NOISE, rng)
    yy, xx = np.mgrid[0:n, 0:n]
    ch = np.where((yy & 1) == 0, np.where((xx & 1) == 0, 0, 1), np.where((xx & 1) == 0, 1, 2))
    raw = np.rint(np.take_along_axis(img, ch[:, :, None], axis=2)[:, :, 0] * _P83_DM_WHITE).astype(np.uint16)
    return [raw.ravel(), np.zeros(3 * n * n, np.float32), np.float32(1.0 / _P83_DM_WHITE), _i32(n), _i32(n)]


def _p83_demosaic_ref(raw, W, H, inv_white=1.0 / _P83_DM_WHITE):
    """demosaic_mhc in float64: H x W x 3 in [0, 1]."""
    P = np.pad(np.asarray(raw, np.float64).reshape(H, W), 2, mode="reflect")

    def t(dx, dy):
        return P[2 + dy:2 + dy + H, 2 + dx:2 + dx + W]
    c = t(0, 0)
    n, s, w, e = t(0, -1), t(0, 1), t(-1, 0), t(1, 0)
    nn, ss, ww, ee = t(0, -2), t(0, 2), t(-2, 0), t(2, 0)
    diag = t(-1, -1) + t(1, -1) + t(-1, 1) + t(1, 1)
    g_rb = (4 * c + 2 * (n + s + w + e) - (nn + ss + ww + ee)) / 8
    x_rb = (6 * c + 2 * diag - 1.5 * (nn + ss + ww + ee)) / 8
    hor = (5 * c + 4 * (w + e) - diag - (ww + ee) + 0.5 * (nn + ss)) / 8
    ver = (5 * c + 4 * (n + s) - diag - (nn + ss) + 0.5 * (ww + ee)) / 8
    yy, xx = np.mgrid[0:H, 0:W]
    ph = ((yy & 1) << 1) | (xx & 1)
    r = np.select([ph == 0, ph == 1, ph == 2], [c, hor, ver], x_rb)
    g = np.select([ph == 0, ph == 3], [g_rb, g_rb], c)
    b = np.select([ph == 0, ph == 1, ph == 2], [x_rb, ver, hor], c)
    return np.clip(np.stack([r, g, b], axis=2) * float(np.float32(inv_white)), 0, 1)


def _p83_bl_weights():
    """c_spatial: exp(-(dx^2 + dy^2) / (2 sigma_s^2)) over the 11x11 window (float32, flat)."""
    d = np.arange(-_P83_BL_R, _P83_BL_R + 1)
    return np.exp(-(d[:, None] ** 2 + d[None, :] ** 2) / (2 * _P83_BL_SS ** 2)).astype(np.float32).ravel()


def _p83_bl_syms(n, rng):
    return {"c_spatial": _p83_bl_weights()}


def _p83_bl_args(n, rng):
    """An n x n grey image (float32 in [0, 1]): flat _P83_BL_PATCH-pixel patches of random
    levels 0.1 .. 0.9 plus N(0, _P83_BL_NOISE^2); the output (zeroed); 1 / (2 sigma_r^2), W, H."""
    k = -(-n // _P83_BL_PATCH)
    lev = rng.uniform(0.1, 0.9, (k, k)).astype(np.float32)
    img = np.repeat(np.repeat(lev, _P83_BL_PATCH, 0), _P83_BL_PATCH, 1)[:n, :n]
    img = np.clip(img + rng.standard_normal((n, n), dtype=np.float32) * np.float32(_P83_BL_NOISE), 0, 1)
    return [img.ravel(), np.zeros(n * n, np.float32), np.float32(1.0 / (2 * _P83_BL_SR ** 2)), _i32(n), _i32(n)]


def _p83_bilateral_ref(img, W, H, inv_2sr2=1.0 / (2 * _P83_BL_SR ** 2)):
    """bilateral_smem in float64 (edge-clamped window): H x W."""
    R = _P83_BL_R
    im = np.asarray(img, np.float64).reshape(H, W)
    P = np.pad(im, R, mode="edge")
    ws = _p83_bl_weights().astype(np.float64).reshape(2 * R + 1, 2 * R + 1)
    num = np.zeros((H, W))
    den = np.zeros((H, W))
    for dy in range(2 * R + 1):
        for dx in range(2 * R + 1):
            v = P[dy:dy + H, dx:dx + W]
            wt = ws[dy, dx] * np.exp(-(v - im) ** 2 * float(np.float32(inv_2sr2)))
            num += wt * v
            den += wt
    return num / den


def _p83_hdr_curve():
    """c_g (3 x 256 float32): g_c(z) = gamma_c ln(max(z, 0.5) / 255); c_log_dt (float32)."""
    z = np.maximum(np.arange(256), 0.5) / 255.0
    g = np.stack([gm * np.log(z) for gm in _P83_HDR_GAMMA]).astype(np.float32)
    return g, np.log(_P83_HDR_DT).astype(np.float32)


def _p83_hdr_syms(n, rng):
    g, ldt = _p83_hdr_curve()
    return {"c_g": g.ravel(), "c_log_dt": ldt}


def _p83_hdr_args(n, rng):
    """HDR_K exposures (dt _P83_HDR_DT) of n RGB pixels, uint8, exposure after exposure
    (each n x 3 interleaved): ln E per pixel N(_P83_HDR_LNE), each channel's + N(0, 0.2^2),
    z = rint(255 (E dt)^(1 / gamma_c) + N(0, 0.5^2)) clipped; the radiance (3 n floats,
    zeroed); n."""
    f = np.float32
    mu, sd, csd = _P83_HDR_LNE
    lnE = rng.standard_normal(n, dtype=f) * f(sd) + f(mu)
    lnE = lnE[:, None] + rng.standard_normal((n, 3), dtype=f) * f(csd)
    ig = (1.0 / np.array(_P83_HDR_GAMMA)).astype(f)
    ldr = np.empty((_P83_HDR_K, n, 3), np.uint8)
    for k, dt in enumerate(_P83_HDR_DT):
        v = f(255) * np.exp((lnE + f(np.log(dt))) * ig) + rng.standard_normal((n, 3), dtype=f) * f(_P83_HDR_ZNOISE)
        ldr[k] = np.clip(np.rint(v), 0, 255)
    return [ldr.ravel(), np.zeros(3 * n, np.float32), _i32(n)]


def _p83_hdr_ref(ldr, n):
    """hdr_merge in float64 (the float32 tables): the radiance (n x 3) and the mask of
    channel samples that fell back to the middle exposure."""
    g, ldt = (a.astype(np.float64) for a in _p83_hdr_curve())
    z = np.asarray(ldr).reshape(_P83_HDR_K, n, 3).astype(np.int64)
    w = np.where(z <= 127, z, 255 - z).astype(np.float64)
    gz = g[np.arange(3)[None, None, :], z]
    num = (w * (gz - ldt[:, None, None])).sum(axis=0)
    den = w.sum(axis=0)
    m = _P83_HDR_K // 2
    fb = den == 0
    lnE = np.where(fb, gz[m] - ldt[m], num / np.where(fb, 1, den))
    return np.exp(lnE), fb


def _p83_ll_args(n, rng):
    """n HDR RGB pixels (float32, interleaved): ln L per pixel N(_P83_LL_LNL), each
    channel's + N(0, 0.2^2); the sum of logs (one float, zeroed) and the max's bits (one
    uint32, zeroed); delta, n."""
    f = np.float32
    mu, sd, csd = _P83_LL_LNL
    lnL = rng.standard_normal(n, dtype=f) * f(sd) + f(mu)
    rgb = np.exp(lnL[:, None] + rng.standard_normal((n, 3), dtype=f) * f(csd))
    return [rgb.ravel(), np.zeros(1, f), np.zeros(1, np.uint32), f(_P83_LL_DELTA), _i32(n)]


def _p83_loglum_ref(rgb, delta=_P83_LL_DELTA):
    """loglum_reduce's sum of log(delta + L) (float64) and largest L (float32, L
    computed in float32 as the kernel writes it, unfused)."""
    c = np.asarray(rgb, np.float32).reshape(-1, 3)
    f = np.float32
    L = f(0.2126) * c[:, 0] + f(0.7152) * c[:, 1] + f(0.0722) * c[:, 2]
    return float(np.log(float(np.float32(delta)) + L.astype(np.float64)).sum()), L.max()


def _p83_sat(x):
    """A summed-area table in float64 with a zero first row and column ((H+1) x (W+1))."""
    S = np.zeros((x.shape[0] + 1, x.shape[1] + 1))
    S[1:, 1:] = np.asarray(x, np.float64).cumsum(axis=0).cumsum(axis=1)
    return S


def _p83_gf_images(n, rng):
    """The guide I (n x n float32 in [0, 1]: _p83_scene's luminance) and p = I + N(0,
    _P83_GF_NOISE^2), both as float64 (the SATs' inputs)."""
    img = _p83_scene(n, n, 0.0, rng)
    I = (img @ np.array([0.2126, 0.7152, 0.0722], np.float32)).astype(np.float64)
    p = I + rng.standard_normal((n, n)) * _P83_GF_NOISE
    return I, p


def _p83_gf_args(n, rng):
    """The SATs of I, p, I*I and I*p (_p83_gf_images; float64 (n+1)^2 each, flat); a and b
    (n^2 floats, zeroed); r, eps, W, H."""
    I, p = _p83_gf_images(n, rng)
    sats = [_p83_sat(a).ravel() for a in (I, p, I * I, I * p)]
    return sats + [np.zeros(n * n, np.float32), np.zeros(n * n, np.float32), _i32(_P83_GF_R),
                   np.float32(_P83_GF_EPS), _i32(n), _i32(n)]


def _p83_guided_ref(sI, sP, sII, sIP, r, eps, W, H):
    """guided_ab in float64 from the same SATs: a and b (H x W)."""
    y, x = np.mgrid[0:H, 0:W]
    x0, x1 = np.maximum(x - r, 0), np.minimum(x + r, W - 1)
    y0, y1 = np.maximum(y - r, 0), np.minimum(y + r, H - 1)
    cnt = ((x1 - x0 + 1) * (y1 - y0 + 1)).astype(np.float64)

    def box(S):
        S = np.asarray(S, np.float64).reshape(H + 1, W + 1)
        return (S[y1 + 1, x1 + 1] - S[y0, x1 + 1] - S[y1 + 1, x0] + S[y0, x0]) / cnt
    mI, mP, mII, mIP = (box(S) for S in (sI, sP, sII, sIP))
    a = (mIP - mI * mP) / (mII - mI * mI + float(np.float32(eps)))
    return a, mP - a * mI


def _p83_lut_table():
    """The grading LUT (LUT_N^3 x 4 float32, [b][g][r], alpha 1): a smoothstep contrast
    curve half-blended in, saturation 1.25 about Rec. 709 luma, a warm tint (R x 1.04, B x
    0.94), clipped to [0, 1]."""
    t = np.linspace(0.0, 1.0, _P83_LUT_N)
    b, g, r = np.meshgrid(t, t, t, indexing="ij")
    rgb = np.stack([r, g, b], axis=-1)
    rgb = 0.5 * rgb + 0.5 * (3 * rgb ** 2 - 2 * rgb ** 3)
    Y = rgb @ np.array([0.2126, 0.7152, 0.0722])
    rgb = Y[..., None] + 1.25 * (rgb - Y[..., None])
    rgb = np.clip(rgb * np.array([1.04, 1.0, 0.94]), 0, 1)
    return np.concatenate([rgb, np.ones(rgb.shape[:-1] + (1,))], axis=-1).astype(np.float32)


def _p83_lut_args(n, rng):
    """n RGBA8 pixels (uint8, n x 4) in rows of _P83_LUT_W: smooth colour waves plus N(0,
    _P83_LUT_NOISE^2) a channel, alpha (x ^ y) & 255; the output (zeroed); the LUT (flat
    float32); n."""
    f = np.float32
    i = np.arange(n, dtype=np.int64)
    x, y = (i % _P83_LUT_W).astype(f), (i // _P83_LUT_W).astype(f)
    px = np.empty((n, 4), np.uint8)
    waves = [np.sin(x / f(211) + y / f(377)), np.sin(x / f(163) - y / f(251) + f(1)), np.cos((x + y) / f(293))]
    for c, wv in enumerate(waves):
        v = f(0.5) + f(0.4) * wv + rng.standard_normal(n, dtype=f) * f(_P83_LUT_NOISE)
        px[:, c] = np.clip(np.rint(v * f(255)), 0, 255)
    px[:, 3] = (i % _P83_LUT_W ^ i // _P83_LUT_W) & 255
    return [px.ravel(), np.zeros(4 * n, np.uint8), _p83_lut_table().ravel(), _i32(n)]


def _p83_lut_ref(px, lut=None):
    """lut3d_apply: the graded pixels (n x 4 uint8; the coordinates in float32 as the
    kernel computes them, the lerps in float64) and the unrounded RGB (n x 3)."""
    N = _P83_LUT_N
    lut = (_p83_lut_table() if lut is None else np.asarray(lut, np.float32)).astype(np.float64).reshape(N, N, N, 4)
    p = np.asarray(px, np.uint8).reshape(-1, 4)
    f = p[:, :3].astype(np.float32) / np.float32(255) * np.float32(N - 1)
    i = np.minimum(f.astype(np.int64), N - 2)
    t = (f - i.astype(np.float32)).astype(np.float64)
    ir, ig, ib = i.T
    tr, tg, tb = (t[:, k:k + 1] for k in range(3))

    def at(db, dg, dr):
        return lut[ib + db, ig + dg, ir + dr, :3]

    def lerp(a, b, s):
        return a + s * (b - a)
    c0 = lerp(lerp(at(0, 0, 0), at(0, 0, 1), tr), lerp(at(0, 1, 0), at(0, 1, 1), tr), tg)
    c1 = lerp(lerp(at(1, 0, 0), at(1, 0, 1), tr), lerp(at(1, 1, 0), at(1, 1, 1), tr), tg)
    v = lerp(c0, c1, tb)
    out = np.empty_like(p)
    out[:, :3] = np.floor(np.clip(v, 0, 1) * 255 + 0.5)
    out[:, 3] = p[:, 3]
    return out, v


def _p83_grid2(bx, by):
    return lambda n: (-(-n // bx), -(-n // by))


UNSEEN81 = [
    TimingProbe("probe/demosaic-mhc-rggb", "probe-unseen81", "demosaic_mhc", _P83_DM_N, _P83_DM_BLOCK,
                _p83_grid2(*_P83_DM_BLOCK), _p83_dm_args, source=_P83,
                note="Malvar-He-Cutler demosaicing of a 4096^2 12-bit RGGB mosaic (uint16), 32x8 blocks, a thread "
                     "a pixel: 13 taps of the 5x5 neighbourhood (2-byte loads, rows +-2 apart, reflect-101 index "
                     "fixes), then a switch on the CFA phase (a warp's lanes alternate two phases: 2-way "
                     "divergent) of ~15 FMAs, three clamped floats stored interleaved (stride-3 stores, 12 B a "
                     "pixel); memory-bound, 2 B in / 12 B out a pixel"),
    TimingProbe("probe/bilateral-smem-r5", "probe-unseen81", "bilateral_smem", _P83_BL_N,
                (_P83_BL_TILE, _P83_BL_TILE), _p83_grid2(_P83_BL_TILE, _P83_BL_TILE), _p83_bl_args, source=_P83,
                symbols=_p83_bl_syms,
                note="bilateral filter (11x11 window, sigma_s 3, sigma_r 0.1) of a 2048^2 float image, 16x16 "
                     "blocks: a 26x26 tile with its edge-clamped halo staged in shared memory (3 loads a thread, "
                     "a / and % each), then 121 taps a pixel each a shared load (a warp spans two tile rows 26 "
                     "apart: some 2-way bank conflicts), a uniform __constant__ weight and an expf; "
                     "compute-bound (SFU and FMA)"),
    TimingProbe("probe/hdr-merge-const-crf", "probe-unseen81", "hdr_merge", _P83_HDR_N, 256,
                lambda n: -(-n // 256), _p83_hdr_args, source=_P83, symbols=_p83_hdr_syms,
                note="Debevec HDR merge of 5 8-bit RGB exposures of 2^23 pixels, a thread a pixel: 15 byte loads "
                     "(interleaved RGB, each exposure 24 MiB apart), a hat weight and a c_g[c * 256 + z] "
                     "__constant__ lookup indexed by each lane's own pixel value (divergent constant reads, ~26 "
                     "distinct addresses a warp), a division and an expf a channel; ~0.6% of channel samples "
                     "saturated in every exposure take a rarely divergent fallback branch; 3 floats stored "
                     "interleaved"),
    TimingProbe("probe/loglum-atomic-reduce", "probe-unseen81", "loglum_reduce", _P83_LL_N, _P83_LL_BLOCK,
                lambda n: -(-n // _P83_LL_BLOCK), _p83_ll_args, source=_P83,
                note="Reinhard's log-average and maximum luminance of a 2^24-pixel HDR RGB float image, a thread "
                     "a pixel (3 stride-3 float loads, a logf): two 256-float shared-memory tree reductions side "
                     "by side (8 steps, 9 barriers), then 65536 blocks each doing one float atomicAdd and one "
                     "uint atomicMax on the same two words (contended global atomics)"),
    TimingProbe("probe/guided-sat-double", "probe-unseen81", "guided_ab", _P83_GF_N, (32, 8), _p83_grid2(32, 8),
                _p83_gf_args, source=_P83,
                note="the guided filter's coefficient pass (radius 8, eps 1e-3) on a 2048^2 image from four "
                     "double summed-area tables of 2049^2 (rows of 2049 doubles, unaligned), 32x8 blocks, a "
                     "thread a pixel: 16 double loads (4 corners of 4 tables, rows 17 apart, columns 17 apart: "
                     "L1/L2 reuse between neighbouring rows), 4 double divisions by the count and one for a, "
                     "two floats stored; FP64 plus memory"),
    TimingProbe("probe/lut3d-trilinear-float4", "probe-unseen81", "lut3d_apply", _P83_LUT_PIX, 256,
                lambda n: -(-n // 256), _p83_lut_args, source=_P83,
                note="3-D LUT colour grading of 2^24 RGBA8 pixels (smooth colour waves plus ~2 levels of noise, rows of 4096) "
                     "through a 33^3 float4 LUT (575 KB, L2-resident), a thread a pixel: one uchar4 load, 8 "
                     "data-dependent 16-byte gathers (a warp's 32 pixels fall in ~9 distinct neighbouring LUT "
                     "cells), 7 float4 lerps (~28 FMAs), a uchar4 store"),
]
PROBES += UNSEEN81


# probe-unseen82 (probes84.cu): a finite-element-methods course's kernels (P1 element
# integrals by a 7-point rule, CSR assembly by atomicAdd, a matrix-free Q1 stiffness apply
# in shared memory, a CSR residual with Jacobi preconditioning in double, CG's fused
# update and dot product, Dirichlet conditions by symmetric elimination on a plate with
# holes) as a student who knows CUDA basics writes them
_P84 = "probes84.cu"
_P84_JITTER = 0.15                # the triangulations' interior vertices moved up to this x h an axis
_P84_QL1 = np.array([0.33333333, 0.05971587, 0.47014206, 0.47014206, 0.79742699, 0.10128651, 0.10128651],
                    np.float32)   # c_ql1, c_ql2, c_qw: the 7-point rule as the .cu holds it
_P84_QL2 = np.array([0.33333333, 0.47014206, 0.05971587, 0.47014206, 0.10128651, 0.79742699, 0.10128651],
                    np.float32)
_P84_QW = np.array([0.225, 0.13239415, 0.13239415, 0.13239415, 0.12593918, 0.12593918, 0.12593918], np.float32)
_P84_KQ1 = np.array([[4, -1, -2, -1], [-1, 4, -1, -2], [-2, -1, 4, -1], [-1, -2, -1, 4]]) / 6.0   # c_kq1
_P84_LOGK = (-1.0, 1.0)           # per-element conductivities: log10 uniform in this range (0.1 .. 10)
_P84_ALPHA = 0.37                 # cg-update: the step length
_P84_HOLES, _P84_HOLE_R = 8, 0.035   # dirichlet: an 8 x 8 grid of circular holes of this radius
_P84_HOLE_T = 1.0                 # the holes' temperature g (0 on the outer boundary)


def _p84_side(n, per=1):
    """The mesh side m with per m^2 == n (n = 2 m^2 triangles, m^2 quads, (m + 1)^2 nodes)."""
    m = int(np.sqrt(n // per) + 0.5)
    assert per * m * m == n, (n, per)
    return m


def _p84_mesh(m, rng, jitter=_P84_JITTER):
    """A triangulation of the unit square: m x m squares, each split along its (i, j) -
    (i + 1, j + 1) diagonal into (v, v + 1, v + M + 1) and (v, v + M + 1, v + M) (counter-
    clockwise; M = m + 1, v = j M + i, element 2 (j m + i) + t), the interior vertices moved
    by up to jitter h an axis; X, Y (float64) and tri (int32, n x 3)."""
    M = m + 1
    h = 1.0 / m
    jj, ii = np.divmod(np.arange(M * M), M)
    X, Y = ii * h, jj * h
    inner = (ii > 0) & (ii < m) & (jj > 0) & (jj < m)
    X = X + np.where(inner, rng.uniform(-jitter, jitter, M * M) * h, 0.0)
    Y = Y + np.where(inner, rng.uniform(-jitter, jitter, M * M) * h, 0.0)
    sj, si = np.divmod(np.arange(m * m), m)
    v = sj * M + si
    tri = np.empty((m * m, 2, 3), np.int64)
    tri[:, 0] = np.stack([v, v + 1, v + M + 1], axis=1)
    tri[:, 1] = np.stack([v, v + M + 1, v + M], axis=1)
    return X, Y, tri.reshape(-1, 3).astype(np.int32)


def _p84_pattern(m):
    """The P1 matrix's CSR pattern on _p84_mesh's vertices: each row's columns v - M - 1, v -
    M, v - 1, v, v + 1, v + M, v + M + 1 where they exist (sorted); row_ptr, col_ind (int32)
    and pos (M^2 x 7, int64: where row v's k-th neighbour sits, -1 if absent)."""
    M = m + 1
    jj, ii = np.divmod(np.arange(M * M), M)
    offs = np.array([-M - 1, -M, -1, 0, 1, M, M + 1])
    has = np.stack([(ii > 0) & (jj > 0), jj > 0, ii > 0, np.ones(M * M, bool), ii < m, jj < m,
                    (ii < m) & (jj < m)], axis=1)
    row_ptr = np.zeros(M * M + 1, np.int64)
    np.cumsum(has.sum(axis=1), out=row_ptr[1:])
    pos = np.where(has, row_ptr[:-1, None] + np.cumsum(has, axis=1) - 1, -1)
    col = (np.arange(M * M)[:, None] + offs)[has]
    return row_ptr.astype(np.int32), col.astype(np.int32), pos


def _p84_entry(pos, M, rows, cols):
    """Where entry (rows, cols) of the pattern sits in col_ind / val (int64)."""
    lut = np.full(2 * M + 3, -1)
    lut[np.array([-M - 1, -M, -1, 0, 1, M, M + 1]) + M + 1] = np.arange(7)
    d = np.asarray(cols, np.int64) - np.asarray(rows, np.int64)
    k = lut[np.clip(d + M + 1, 0, 2 * M + 2)]
    p = pos[rows, k]
    assert (k >= 0).all() and (p >= 0).all()
    return p


def _p84_geom(X, Y, tri):
    """Each triangle's signed det (twice its area), and the barycentric gradients gx, gy (3 x
    n_elem), float64."""
    x = np.asarray(X, np.float64)[tri.T]
    y = np.asarray(Y, np.float64)[tri.T]
    det = (x[1] - x[0]) * (y[2] - y[0]) - (x[2] - x[0]) * (y[1] - y[0])
    gx = np.stack([y[1] - y[2], y[2] - y[0], y[0] - y[1]]) / det
    gy = np.stack([x[2] - x[1], x[0] - x[2], x[1] - x[0]]) / det
    return det, gx, gy


def _p84_assemble(m, tri, Ke, fe=None, pattern=None):
    """The global CSR values (float64) of element matrices Ke (n_elem x 3 x 3) on _p84_mesh's
    pattern (_p84_pattern(m), or the one given), and the right-hand side of the load vectors
    fe (n_elem x 3) if given."""
    M = m + 1
    row_ptr, col, pos = pattern or _p84_pattern(m)
    tri = np.asarray(tri, np.int64).reshape(-1, 3)
    Ke = np.asarray(Ke, np.float64).reshape(-1, 3, 3)
    val = np.zeros(len(col))
    for a in range(3):
        for c in range(3):
            val += np.bincount(_p84_entry(pos, M, tri[:, a], tri[:, c]), Ke[:, a, c], minlength=len(col))
    if fe is None:
        return val
    fe = np.asarray(fe, np.float64).reshape(-1, 3)
    return val, sum(np.bincount(tri[:, a], fe[:, a], minlength=M * M) for a in range(3))


def _p84_stiffness(m, rng):
    """The P1 stiffness matrix of a jittered _p84_mesh of side m with a conductivity a
    element (log10 uniform in _P84_LOGK): row_ptr, col_ind (int32), val (float64); X, Y."""
    X, Y, tri = _p84_mesh(m, rng)
    kap = 10.0 ** rng.uniform(*_P84_LOGK, len(tri))
    det, gx, gy = _p84_geom(X, Y, tri)
    Ke = (0.5 * np.abs(det) * kap)[:, None, None] * (gx.T[:, :, None] * gx.T[:, None, :] +
                                                     gy.T[:, :, None] * gy.T[:, None, :])
    pat = _p84_pattern(m)
    return pat[0], pat[1], _p84_assemble(m, tri, Ke, pattern=pat), X, Y


# ---- p1-element-integrals ----

def _p84_el_args(n, rng):
    """A jittered _p84_mesh of n = 2 m^2 triangles: X, Y (float32), tri (int32, flat); Ke,
    fe, area (zeroed, 9 n, 3 n, n float32); n."""
    X, Y, tri = _p84_mesh(_p84_side(n, 2), rng)
    f = np.float32
    return [X.astype(f), Y.astype(f), tri.ravel(), np.zeros(9 * n, f), np.zeros(3 * n, f), np.zeros(n, f), _i32(n)]


def _p84_el_ref(X, Y, tri):
    """p1_element_integrals in float64 (the rule's float32 constants): Ke (n x 3 x 3), fe (n x
    3), area."""
    tri = np.asarray(tri, np.int64).reshape(-1, 3)
    det, gx, gy = _p84_geom(X, Y, tri)
    A = 0.5 * np.abs(det)
    x = np.asarray(X, np.float64)[tri.T]
    y = np.asarray(Y, np.float64)[tri.T]
    kint = np.zeros(len(tri))
    fe = np.zeros((len(tri), 3))
    for l1, l2, w in zip(*(a.astype(np.float64) for a in (_P84_QL1, _P84_QL2, _P84_QW))):
        lam = np.array([1.0 - l1 - l2, l1, l2])
        xq, yq = lam @ x, lam @ y
        kint += w * A * (1 + 0.5 * np.sin(2 * np.pi * xq) * np.sin(2 * np.pi * yq))
        fe += (w * A * 2 * np.pi ** 2 * np.sin(np.pi * xq) * np.sin(np.pi * yq))[:, None] * lam
    Ke = kint[:, None, None] * (gx.T[:, :, None] * gx.T[:, None, :] + gy.T[:, :, None] * gy.T[:, None, :])
    return Ke, fe, A


# ---- fem-assemble-csr-atomic ----

def _p84_as_args(n, rng):
    """The element matrices and load vectors of p1_element_integrals (its numpy reference,
    float32) on a jittered mesh of n = 2 m^2 triangles: tri (int32, flat), Ke (9 n), fe (3 n);
    the pattern's row_ptr, col_ind (int32); val and b (zeroed float32); n."""
    m = _p84_side(n, 2)
    X, Y, tri = _p84_mesh(m, rng)
    Ke, fe, _ = _p84_el_ref(X.astype(np.float32), Y.astype(np.float32), tri)
    row_ptr, col, _ = _p84_pattern(m)
    f = np.float32
    return [tri.ravel(), Ke.astype(f).ravel(), fe.astype(f).ravel(), row_ptr, col, np.zeros(len(col), f),
            np.zeros((m + 1) ** 2, f), _i32(n)]


# ---- q1-matfree-apply ----

def _p84_q1_args(n, rng):
    """An N x N Q1 mesh (n = N^2 elements): u uniform in +-1 on the (N + 1)^2 nodes, kappa a
    element log10 uniform in _P84_LOGK (float32); y (zeroed); N."""
    N = _p84_side(n)
    f = np.float32
    return [rng.uniform(-1, 1, (N + 1) ** 2).astype(f), (10.0 ** rng.uniform(*_P84_LOGK, n)).astype(f),
            np.zeros((N + 1) ** 2, f), _i32(N)]


def _p84_q1_ref(u, kappa):
    """q1_stiffness_apply in float64 (element by element, scattered): y."""
    N = int(np.sqrt(len(kappa)) + 0.5)
    M = N + 1
    U = np.asarray(u, np.float64).reshape(M, M)
    k = np.asarray(kappa, np.float64).reshape(N, N)
    # the element's local nodes (0,0), (1,0), (1,1), (0,1) as (dj, di) slices of the nodes
    corner = [(0, 0), (0, 1), (1, 1), (1, 0)]
    ue = [U[dj:dj + N, di:di + N] for dj, di in corner]
    Y = np.zeros((M, M))
    for a, (dj, di) in enumerate(corner):
        Y[dj:dj + N, di:di + N] += k * sum(_P84_KQ1[a, b] * ue[b] for b in range(4))
    Y[0], Y[-1], Y[:, 0], Y[:, -1] = U[0], U[-1], U[:, 0], U[:, -1]
    return Y.ravel()


# ---- csr-residual-jacobi ----

def _p84_rj_args(n, rng):
    """The P1 stiffness matrix (_p84_stiffness) on n = M^2 vertices: row_ptr, col_ind, val
    (float64); x and b (N(0, 1) float64); r, z (zeroed); n."""
    row_ptr, col, val, *_ = _p84_stiffness(_p84_side(n) - 1, rng)
    return [row_ptr, col, val, rng.standard_normal(n), rng.standard_normal(n), np.zeros(n), np.zeros(n), _i32(n)]


def _p84_csr_rows(row_ptr):
    """Each CSR entry's row (int64)."""
    row_ptr = np.asarray(row_ptr, np.int64)
    return np.repeat(np.arange(len(row_ptr) - 1), np.diff(row_ptr))


def _p84_rj_ref(row_ptr, col, val, x, b):
    """r = b - A x and z = r / diag (float64)."""
    rows = _p84_csr_rows(row_ptr)
    n = len(row_ptr) - 1
    Ax = np.bincount(rows, val * np.asarray(x)[col], minlength=n)
    diag = np.ones(n)
    on = rows == col
    diag[rows[on]] = val[on]
    r = b - Ax
    return r, r / diag


# ---- cg-update-dot ----

def _p84_cg_args(n, rng):
    """CG mid-solve: x, r, p, q N(0, 1) (float64); z (zeroed); inv_diag uniform in 0.1 .. 1;
    alpha; rz (one zeroed double); n."""
    x, r, p, q = (rng.standard_normal(n) for _ in range(4))
    return [x, r, np.zeros(n), p, q, rng.uniform(0.1, 1.0, n), np.float64(_P84_ALPHA), np.zeros(1), _i32(n)]


def _p84_cg_ref(x, r, p, q, inv_diag, alpha=_P84_ALPHA):
    """x, r, z and (r, z) in float64 (the kernel's fused multiply-adds rounded once)."""
    x = x + alpha * p
    r = r - alpha * q
    z = inv_diag * r
    return x, r, z, float(np.dot(r, z))


# ---- dirichlet-holes-csr ----

def _p84_holes(X, Y, m):
    """The Dirichlet nodes of the plate with holes: the outer boundary and the nodes within
    _P84_HOLE_R of one of the _P84_HOLES^2 hole centres; (is_dir bool, g float64: _P84_HOLE_T
    in the holes, 0 elsewhere)."""
    M = m + 1
    jj, ii = np.divmod(np.arange(M * M), M)
    outer = (ii == 0) | (jj == 0) | (ii == m) | (jj == m)
    H = _P84_HOLES
    cx = (np.floor(np.clip(X, 0, 1 - 1e-12) * H) + 0.5) / H
    cy = (np.floor(np.clip(Y, 0, 1 - 1e-12) * H) + 0.5) / H
    hole = (X - cx) ** 2 + (Y - cy) ** 2 <= _P84_HOLE_R ** 2
    return outer | hole, np.where(hole & ~outer, _P84_HOLE_T, 0.0)


def _p84_dr_args(n, rng):
    """The P1 stiffness matrix (_p84_stiffness) on n = M^2 vertices: row_ptr, col_ind, val
    (float64); b (N(0, 1) float64: the load vector), g and is_dir (int32) of _p84_holes; n."""
    m = _p84_side(n) - 1
    row_ptr, col, val, X, Y = _p84_stiffness(m, rng)
    is_dir, g = _p84_holes(X, Y, m)
    return [row_ptr, col, val, rng.standard_normal(n), g, is_dir.astype(np.int32), _i32(n)]


def _p84_dr_ref(row_ptr, col, val, b, g, is_dir):
    """dirichlet_csr in float64: val, b (each row's subtractions in column order)."""
    rows = _p84_csr_rows(row_ptr)
    d = np.asarray(is_dir) != 0
    val = np.array(val, np.float64)
    b = np.array(b, np.float64)
    elim = ~d[rows] & d[col]
    for k in np.flatnonzero(elim):              # in order: a row's updates in column order
        b[rows[k]] -= val[k] * g[col[k]]
    val[elim] = 0.0
    val[d[rows]] = (col == rows)[d[rows]].astype(np.float64)
    b[d] = g[d]
    return val, b


UNSEEN82 = [
    TimingProbe("probe/fem-p1-element-quad7", "probe-unseen82", "p1_element_integrals", 1 << 23, 256,
                lambda n: -(-n // 256), _p84_el_args, source=_P84,
                note="P1 element integrals of 2^23 triangles (a 2048 x 2048 jittered grid of squares, 4.2M vertices), a "
                     "thread an element: its 3 vertex indices loaded at a 12-byte stride and 6 coordinates gathered "
                     "(neighbouring lanes share vertices), the area and barycentric gradients (one float division), then"
                     " a 7-point rule from __constant__ (uniform index) with 4 sinf a point (28 a thread) for the "
                     "conductivity and the source, and 13 stores: the 3 x 3 Ke at a 36-byte stride, fe at 12 bytes, the "
                     "area; ALU-heavy (sinf's range reduction and polynomial) with ~52 bytes written an element"),
    TimingProbe("probe/fem-assemble-csr-atomic", "probe-unseen82", "assemble_csr_atomic", 1 << 21, 128,
                lambda n: -(-n // 128), _p84_as_args, source=_P84,
                note="global CSR assembly of 2^21 P1 element matrices (a 1024 x 1024 grid, 1.05M rows, 7.3M nonzeros: "
                     "val 29 MB, L2-resident) with atomicAdd, a thread an element (blocks of 128): 3 vertex indices and "
                     "12 Ke/fe values loaded at 9- and 3-float strides, 3 row_ptr pairs, 9 linear searches of a row's "
                     "sorted columns for the column (4.0 trips on average, a warp's longest ~4.7; break on the match: "
                     "divergent), 9 float atomicAdds into val and 3 into b (results unused); consecutive elements share "
                     "vertices, so 2 lanes of a warp often add to one address"),
    TimingProbe("probe/fem-q1-matfree-smem", "probe-unseen82", "q1_stiffness_apply", 1 << 24, (16, 16),
                lambda n: (-(-(_p84_side(n) + 1) // 16), -(-(_p84_side(n) + 1) // 16)), _p84_q1_args, source=_P84,
                note="matrix-free Q1 stiffness apply y = A u on a 4096 x 4096 element mesh (16.8M nodes, a conductivity "
                     "an element), blocks of 16 x 16 nodes (257 x 257 blocks, the last row and column of blocks 1/16 "
                     "busy): an 18 x 18 tile of u and a 17 x 17 tile of kappa loaded into shared memory by two strided "
                     "loops (2 trips each, bounds-checked, the tiles' rows not 128-byte aligned), one barrier, then each"
                     " interior node sums its 4 elements' rows: 20 shared loads and 16 uniform __constant__ loads into "
                     "~20 FMAs, one coalesced store; boundary nodes copy u; memory-bound"),
    TimingProbe("probe/fem-csr-residual-jacobi", "probe-unseen82", "csr_residual_jacobi", 1 << 22, 256,
                lambda n: -(-n // 256), _p84_rj_args, source=_P84,
                note="r = b - A x and z = r / diag(A) in double for the P1 stiffness matrix of a 2047 x 2047 jittered "
                     "triangulation (2^22 rows, 29.3M nonzeros: 7 an interior row, 3 to 6 on the boundary; val 235 MB "
                     "and col_ind 117 MB), a thread a row: a row_ptr pair, then per entry col and val (a warp's lanes 7 "
                     "entries apart: the sectors shared across trips) and x[col] gathered at offsets -M-1 .. M+1 (L1/L2 "
                     "hits), a compare picking the diagonal, one double division; memory-bound"),
    TimingProbe("probe/fem-cg-update-dot", "probe-unseen82", "cg_update_dot", 1 << 23, 256,
                lambda n: -(-n // 256), _p84_cg_args, source=_P84,
                note="CG's fused update for 2^23 doubles: x += alpha p, r -= alpha q, z = inv_diag r, coalesced (5 "
                     "loads, 3 stores, 537 MB), then (r, z) by a 256-thread shared-memory tree (9 barriers, the active "
                     "threads halving) and one double atomicAdd a block on a single address (32768 of them); memory-"
                     "bound with a reduction tail"),
    TimingProbe("probe/fem-dirichlet-holes-csr", "probe-unseen82", "dirichlet_csr", 1 << 22, 256,
                lambda n: -(-n // 256), _p84_dr_args, source=_P84,
                note="Dirichlet conditions on a 2^22-row double CSR system (P1 stiffness of a 2048 x 2048-vertex "
                     "jittered plate with an 8 x 8 grid of circular holes: 24.8% of the rows Dirichlet, outer boundary "
                     "plus holes) by symmetric elimination, a thread a row: a Dirichlet row rewrites its ~7 values to "
                     "0/1 and b = g; another row loads every entry's column flag (an int gather) and, where set (1% of "
                     "rows), subtracts val * g and zeros the entry; 17% of warps straddle a hole's edge (both branches),"
                     " 19% lie wholly in a hole; memory-bound"),
]
PROBES += UNSEEN82


# probe-unseen88 (probes90.cu): an operations-research / dynamic-programming course's
# kernels (a 0/1 knapsack DP row, an LCS anti-diagonal wavefront step over a batch of
# string pairs, a multistage-DAG relaxation by 64-bit atomicMin, a simplex tableau pivot
# with shared staging, a Monte Carlo (s, S) inventory simulation, the Hungarian
# algorithm's row reduction) as a student who knows CUDA basics writes them
_P90 = "probes90.cu"
_P90_KS_PRIOR = 16                        # knapsack-dp-row: items already in the table
_P90_KS_WFRAC = (1 / 256, 1 / 16)         # item weights: integers uniform in these fractions of the capacity
_P90_KS_VAL = (100, 5000)                 # item values: integers uniform in this range
_P90_LCS_L = 1024                         # lcs-antidiag-step: each string's length (the table L+1 x L+1)
_P90_LCS_DISTINCT = 64                    # distinct random DNA pairs, repeated over the batch
_P90_DAG_DEG = (4, 12)                    # dag-stage-relax: out-degree uniform in this range (mean 8)
_P90_DAG_SPAN = 512                       # heads within +-_P90_DAG_SPAN of the tail's index (mod n)
_P90_DAG_LEN = (1, 1000)                  # arc lengths: integers uniform
_P90_DAG_DIST = (20000, 40000)            # stage k's distances: integers uniform
_P90_DAG_UNREACHED = 0.05                 # the fraction of stage k not reached (dist -1)
_P90_PV_TX, _P90_PV_TY = 32, 8            # simplex-pivot: PV_TX, PV_TY
_P90_INV_DAYS, _P90_INV_LEAD, _P90_INV_MAX = 90, 3, 48   # inventory: DAYS, LEAD, POIS_MAX
_P90_INV_LAM = 10.0                       # Poisson daily demand's mean
_P90_INV_REPS = 128                       # replications a policy (consecutive threads)
_P90_INV_S_LO, _P90_INV_GAP = (10, 64), (10, 64)   # s = 10 + (q % 64); S = s + 10 + 2 (q // 64 % 64)
_P90_INV_COST = (1, 25, 100, 2)           # h (holding a unit-day), p (a lost unit), K (an order), c (a unit ordered)
_P90_INV_SEED = 9090
_P90_HR_BLOCK = 256                       # hungarian-row-reduce: HR_BLOCK
_P90_HR_COST = (1, 10000)                 # cost = an integer uniform in this range + the row's offset
_P90_HR_OFFSET = 100000                   # rows' offsets: integers uniform in 0 .. this


def _p90_hash(x):
    """hash32 (lowbias32) of uint32 x, as probes90.cu computes it."""
    x = np.asarray(x, np.uint32)
    x = x ^ (x >> np.uint32(16))
    x = x * np.uint32(0x7feb352d)
    x = x ^ (x >> np.uint32(15))
    x = x * np.uint32(0x846ca68b)
    return x ^ (x >> np.uint32(16))


def _p90_knapsack_args(n, rng):
    """A 0/1 knapsack table's row after _P90_KS_PRIOR random items at capacities 0 .. n-1
    (int32; item weights uniform in _P90_KS_WFRAC of n, values in _P90_KS_VAL), the next
    row (zeroed); the next item's weight and value (drawn alike), cap = n - 1."""
    lo, hi = max(1, int(n * _P90_KS_WFRAC[0])), max(2, int(n * _P90_KS_WFRAC[1]))
    dp = np.zeros(n, np.int32)
    for _ in range(_P90_KS_PRIOR):
        w, v = int(rng.integers(lo, hi + 1)), int(rng.integers(*_P90_KS_VAL, endpoint=True))
        dp = _p90_knapsack_ref(dp, w, v)
    w, v = int(rng.integers(lo, hi + 1)), int(rng.integers(*_P90_KS_VAL, endpoint=True))
    return [dp, np.zeros(n, np.int32), _i32(w), _i32(v), _i32(n - 1)]


def _p90_knapsack_ref(dp, w, v):
    """knapsack_row: max(dp[c], dp[c - w] + v) where c >= w."""
    out = np.array(dp, np.int32)
    w = int(w)
    if w < len(dp):
        out[w:] = np.maximum(dp[w:], dp[:len(dp) - w] + np.int32(v))
    return out


def _p90_lcs_step_ref(A, B, d2, d1, cur, d, L):
    """lcs_diag_step in numpy: cur with diagonal d's cells of every pair written (A, B:
    pairs x L uint8; the diagonals pairs x (L + 1), flat)."""
    L = int(L)
    W = L + 1
    A, B = np.asarray(A).reshape(-1, L), np.asarray(B).reshape(-1, L)
    d2, d1 = np.asarray(d2).reshape(-1, W), np.asarray(d1).reshape(-1, W)
    out = np.array(cur).reshape(-1, W)
    i = np.arange(max(0, d - L), min(d, L) + 1)
    j = d - i
    inner = (i > 0) & (j > 0)
    val = np.zeros((len(A), len(i)), np.int32)
    ii, jj = i[inner], j[inner]
    match = A[:, ii - 1] == B[:, jj - 1]
    val[:, inner] = np.where(match, d2[:, ii - 1] + 1, np.maximum(d1[:, ii - 1], d1[:, ii]))
    out[:, i] = val
    return out.ravel()


def _p90_lcs_diagonals(A, B, L, upto):
    """Diagonals upto - 1 and upto of the LCS tables of the pairs (A, B) (cells off the
    table 0), by _p90_lcs_step_ref from diagonal 0."""
    W = L + 1
    z = np.zeros(len(A) * W, np.int32)
    d2, d1 = z, z
    for d in range(upto + 1):
        d2, d1 = d1, _p90_lcs_step_ref(A, B, d2, d1, z, d, L)
    return d2, d1


def _p90_lcs_args(n, rng, L=_P90_LCS_L):
    """n pairs of random length-L DNA strings (bytes 'ACGT'; _P90_LCS_DISTINCT distinct
    pairs repeated), their LCS tables' anti-diagonals L - 2 and L - 1 (int32, a pair's L +
    1 cells by row, computed exactly), the diagonal out (zeroed); d = L, L, n."""
    k = min(n, _P90_LCS_DISTINCT)
    alpha = np.frombuffer(b"ACGT", np.uint8)
    A = alpha[rng.integers(0, 4, (k, L))]
    B = alpha[rng.integers(0, 4, (k, L))]
    d2, d1 = _p90_lcs_diagonals(A, B, L, L - 1)
    reps = -(-n // k)
    tile = lambda a, w: np.tile(a.reshape(k, w), (reps, 1))[:n].ravel()
    return [tile(A, L), tile(B, L), tile(d2, L + 1), tile(d1, L + 1), np.zeros(n * (L + 1), np.int32),
            _i32(L), _i32(L), _i32(n)]


def _p90_lcs_full(a, b):
    """The LCS length of byte strings a and b (the textbook DP)."""
    t = np.zeros((len(a) + 1, len(b) + 1), np.int64)
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            t[i, j] = t[i - 1, j - 1] + 1 if a[i - 1] == b[j - 1] else max(t[i - 1, j], t[i, j - 1])
    return int(t[-1, -1])


def _p90_dag_args(n, rng):
    """One stage of a multistage DAG, n nodes to n: CSR arcs (out-degree uniform in
    _P90_DAG_DEG, heads within +-_P90_DAG_SPAN of the tail mod n, lengths in _P90_DAG_LEN),
    stage k's distances (uniform in _P90_DAG_DIST, -1 for a _P90_DAG_UNREACHED fraction),
    stage k+1's keys all ones (uint64); n."""
    deg = rng.integers(_P90_DAG_DEG[0], _P90_DAG_DEG[1] + 1, n)
    row_ptr = np.zeros(n + 1, np.int32)
    row_ptr[1:] = np.cumsum(deg)
    m = int(row_ptr[-1])
    tail = np.repeat(np.arange(n), deg)
    col = ((tail + rng.integers(-_P90_DAG_SPAN, _P90_DAG_SPAN + 1, m)) % n).astype(np.int32)
    ln = rng.integers(_P90_DAG_LEN[0], _P90_DAG_LEN[1] + 1, m).astype(np.int32)
    dist = rng.integers(_P90_DAG_DIST[0], _P90_DAG_DIST[1] + 1, n).astype(np.int32)
    dist[rng.random(n) < _P90_DAG_UNREACHED] = -1
    return [row_ptr, col, ln, dist, np.full(n, 2 ** 64 - 1, np.uint64), _i32(n)]


def _p90_dag_ref(row_ptr, col, ln, dist, best):
    """stage_relax in numpy: best folded with min over arcs of (dist + len) << 32 | tail."""
    out = np.array(best, np.uint64)
    deg = np.diff(row_ptr)
    tail = np.repeat(np.arange(len(dist)), deg)
    ok = dist[tail] >= 0
    key = ((dist[tail].astype(np.uint64) + ln.astype(np.uint64)) << np.uint64(32)) | tail.astype(np.uint64)
    np.minimum.at(out, col[ok], key[ok])
    return out


def _p90_simplex_args(n, rng):
    """The first simplex tableau of max c x s.t. A x <= b, x >= 0 with n constraints and n
    variables (float32, (n + 1) x (2n + 1) row-major: [A | I | b] rows, the objective row
    [-c | 0 | 0]; A uniform in 0.1 .. 1, b in n/4 .. n/2, c in 1 .. 10); the pivot by
    Dantzig's rule (the most negative reduced cost) and the ratio test: copies of the pivot
    row and column, the pivot, r, rows, cols."""
    rows, cols = n + 1, 2 * n + 1
    T = np.zeros((rows, cols), np.float32)
    T[:n, :n] = rng.uniform(0.1, 1.0, (n, n))
    T[np.arange(n), n + np.arange(n)] = 1
    T[:n, -1] = rng.uniform(n / 4, n / 2, n)
    T[n, :n] = -rng.uniform(1, 10, n)
    c = int(np.argmin(T[n, :-1]))
    col = T[:n, c]
    ratio = np.where(col > 0, T[:n, -1] / np.where(col > 0, col, 1), np.inf)
    r = int(np.argmin(ratio))
    return [T.ravel(), T[r].copy(), T[:, c].copy(), np.float32(T[r, c]), _i32(r), _i32(rows), _i32(cols)]


def _p90_simplex_ref(T, prow, pcol, piv, r, rows, cols):
    """simplex_pivot in float64 (the multiplier pcol / piv rounded to float32 first)."""
    T = np.asarray(T, np.float64).reshape(rows, cols)
    f = (np.asarray(pcol, np.float32) / np.float32(piv)).astype(np.float64)
    out = T - f[:, None] * np.asarray(prow, np.float64)[None, :]
    out[r] = (np.asarray(prow, np.float32) / np.float32(piv)).astype(np.float64)
    return out


def _p90_pois_cdf(lam=_P90_INV_LAM, kmax=_P90_INV_MAX):
    """c_pois_cdf: P(D <= k) for a Poisson(lam) D, times 2^32 rounded down (uint32), the
    last entry 0xffffffff."""
    from math import exp, factorial
    F = np.cumsum([exp(-lam) * lam ** k / factorial(k) for k in range(kmax)])
    c = np.minimum(np.floor(F * 2.0 ** 32), 2.0 ** 32 - 1).astype(np.uint64)
    c[-1] = 2 ** 32 - 1
    return c.astype(np.uint32)


def _p90_inv_syms(n, rng):
    return {"c_pois_cdf": _p90_pois_cdf()}


def _p90_inv_args(n, rng):
    """n replications of (s, S) policies, _P90_INV_REPS consecutive threads a policy, policy
    q: s = 10 + q % 64, S = s + 10 + 2 (q // 64 % 64) (int32); costs and units lost out
    (zeroed); h, p, K, c, seed, n."""
    q = np.arange(n) // _P90_INV_REPS
    s = (_P90_INV_S_LO[0] + q % _P90_INV_S_LO[1]).astype(np.int32)
    S = (s + _P90_INV_GAP[0] + 2 * (q // _P90_INV_S_LO[1] % _P90_INV_GAP[1])).astype(np.int32)
    return [s, S, np.zeros(n, np.int32), np.zeros(n, np.int32), *map(_i32, _P90_INV_COST),
            np.uint32(_P90_INV_SEED), _i32(n)]


def _p90_inv_ref(s, S, h=1, p=25, K=100, c=2, seed=_P90_INV_SEED, days=_P90_INV_DAYS, lead=_P90_INV_LEAD):
    """inventory_sS in numpy, the replications side by side: the total costs, the units
    lost and the number of orders placed."""
    s, S = np.asarray(s, np.int64), np.asarray(S, np.int64)
    cdf = _p90_pois_cdf()
    t = np.arange(len(s), dtype=np.uint32)
    stock, on_order, due = S.copy(), np.zeros_like(S), np.full_like(S, -1)
    cost, lost, orders = np.zeros_like(S), np.zeros_like(S), np.zeros_like(S)
    for day in range(days):
        arr = (on_order > 0) & (due == day)
        stock = stock + np.where(arr, on_order, 0)
        on_order = np.where(arr, 0, on_order)
        u = _p90_hash(np.uint32(seed) + t * np.uint32(days) + np.uint32(day))
        D = np.minimum(np.searchsorted(cdf, u, side="left"), len(cdf) - 1)
        short = np.maximum(D - stock, 0)
        lost += short
        cost += p * short
        stock = np.maximum(stock - D, 0)
        cost += h * stock
        order = (on_order == 0) & (stock <= s)
        on_order = np.where(order, S - stock, on_order)
        due = np.where(order, day + lead, due)
        cost += np.where(order, K + c * (S - stock), 0)
        orders += order
    return cost, lost, orders


def _p90_hr_args(n, rng):
    """An n x n assignment problem's costs (int32, row-major): an integer uniform in
    _P90_HR_COST plus the row's offset (uniform in 0 .. _P90_HR_OFFSET); row minima out
    (zeroed); n."""
    off = rng.integers(0, _P90_HR_OFFSET + 1, (n, 1))
    C = (rng.integers(_P90_HR_COST[0], _P90_HR_COST[1] + 1, (n, n)) + off).astype(np.int32)
    return [C.ravel(), np.zeros(n, np.int32), _i32(n)]


UNSEEN88 = [
    TimingProbe("probe/knapsack-dp-row", "probe-unseen88", "knapsack_row", 1 << 24, 256, lambda n: -(-n // 256),
                _p90_knapsack_args, source=_P90,
                note="one row of the 0/1 knapsack DP at 2^24 capacities (int32), a thread a capacity: a coalesced "
                     "load of dp[c], for c >= w (all but ~1%: w = 153308 at seed 0) a second load dp[c - w] shifted "
                     "by the item's weight (28 mod 32: each warp's second load straddles two 128-byte lines), a "
                     "max and a coalesced store; memory-bound streaming"),
    TimingProbe("probe/lcs-antidiag-step", "probe-unseen88", "lcs_diag_step", 1 << 14, 256,
                lambda n: -(-n * (_P90_LCS_L + 1) // 256), _p90_lcs_args, source=_P90,
                note="one anti-diagonal wavefront step (the main one, d = L) of the LCS tables of 2^14 pairs of "
                     "1024-base DNA strings, a thread a cell (16.8M cells, the flat index split by a division "
                     "and a modulo by 1025): a byte of A ascending and a byte of B descending in address, then "
                     "either diag2[t-1] (a quarter of cells: matches) or diag1[t-1] and diag1[t] (int32, a pair's "
                     "1025-int rows unaligned), one int store; memory-bound with a data-dependent branch"),
    TimingProbe("probe/dag-stage-relax", "probe-unseen88", "stage_relax", 1 << 20, 256, lambda n: -(-n // 256),
                _p90_dag_args, source=_P90,
                note="one stage of shortest paths on a multistage DAG (2^20 nodes to 2^20, out-degree 4 .. 12, "
                     "~8.4M arcs to heads within +-512 of the tail), a thread a tail node: its CSR row_ptr pair "
                     "and distance, 5% unreached returning early, then per arc (a variable trip count, divergent "
                     "within warps) a col and len load and a 64-bit atomicMin of (dist + len) << 32 | tail on "
                     "the head's key, ~8 atomics an address spread over a ~1000-node window"),
    TimingProbe("probe/simplex-pivot", "probe-unseen88", "simplex_pivot", 4096, (_P90_PV_TX, _P90_PV_TY),
                lambda n: (-(-(2 * n + 1) // _P90_PV_TX), -(-(n + 1) // _P90_PV_TY)), _p90_simplex_args,
                source=_P90,
                note="the Gauss-Jordan pivot of a dense 4097 x 8193 float simplex tableau (4096 constraints and "
                     "variables plus slacks), 32 x 8 tiles: a block stages 32 floats of the pivot row copy and 8 "
                     "of the pivot column copy in shared memory (one barrier), then each thread does a division "
                     "and a multiply-subtract on its entry; the row pitch (8193 floats) leaves rows unaligned "
                     "to 128 B, one load and one store an entry; memory-bound 2-D"),
    TimingProbe("probe/inventory-ss-montecarlo", "probe-unseen88", "inventory_sS", 1 << 19, 256,
                lambda n: -(-n // 256), _p90_inv_args, source=_P90, symbols=_p90_inv_syms,
                note="Monte Carlo of 4096 (s, S) inventory policies x 128 replications (2^19 threads), 90 days (a "
                     "quarter) each: a lowbias32 hash a day, Poisson(10) demand by a linear search of a 48-entry "
                     "__constant__ CDF table (~11 compares, lanes at different indices, data-dependent trip "
                     "count 1 .. ~19), lost-sale and reorder branches (an order every ~3-18 days, divergent), "
                     "integer costs in registers; two loads and two stores a thread; compute/latency-bound"),
    TimingProbe("probe/hungarian-row-reduce", "probe-unseen88", "hungarian_row_reduce", 8192, _P90_HR_BLOCK,
                lambda n: n, _p90_hr_args, source=_P90,
                note="the Hungarian algorithm's row reduction of an 8192 x 8192 int32 cost matrix, a block of 256 "
                     "a row: a strided coalesced min over the 32 KiB row (32 loads a thread), an 8-step shared-"
                     "memory tree reduction with a barrier a step, then the row (just read) re-read and "
                     "stored minus the minimum; memory-bound with block reductions"),
]
PROBES += UNSEEN88


# probe-unseen83 (probes85.cu): a computational-geometry course's kernels (point in polygon
# by ray casting against a shared-memory polygon, nearest site over a uniform grid of
# buckets, tiled all-pairs segment intersection counting with atomics, shoelace areas and
# centroids of small polygons by atomicAdd, the Delaunay in-circle test of a triangle mesh
# in double, the column pass of an exact distance transform) as a student who knows CUDA
# basics writes them
_P85 = "probes85.cu"
_P85_PIP_NV = 320                 # pip-raycast: the polygon's vertices (PIP_MAX_V 512 at most)
_P85_PIP_BOX = 1.2                # pip-raycast: the query points uniform in [-this, this]^2
_P85_NS_SITES = 2                 # nearest-site: n / this sites ...
_P85_NS_PER_CELL = 4              # ... in G x G cells of this many on average
_P85_SEG_SPAN = 4096              # seg-pairs: integer endpoints in [0, this)
_P85_SEG_LEN = (20, 120)          # seg-pairs: the segments' lengths, uniform
_P85_SEG_TILE = 128               # seg-pairs: SEG_TILE
_P85_PA_K = (3, 13)               # area-centroid: vertices a polygon, uniform in this range (inclusive)
_P85_PA_SPAN = 1024.0             # area-centroid: the polygons' centres uniform in [0, this)^2
_P85_PA_R = (0.5, 4.0)            # area-centroid: the polygons' radii
_P85_PA_CW = 0.25                 # area-centroid: the fraction of polygons clockwise (holes: negative area)
_P85_DT_H, _P85_DT_JIT = 16, 4    # incircle: the grid's spacing and the interior vertices' integer jitter
_P85_EDT_R = (3, 24)              # edt-columns: the obstacle disks' radii (pixels)
_P85_EDT_FILL = 0.04              # edt-columns: the disks' share of the pixels (before overlaps)
_P85_EDT_DOTS = 2e-4              # edt-columns: isolated feature pixels, a fraction of the pixels


# ---- pip-raycast ----

def _p85_polygon(rng, nv=_P85_PIP_NV):
    """A star-shaped (so simple) non-convex blob of nv vertices around the origin,
    counter-clockwise: angles evenly spaced and jittered, radius 0.75 + 0.2 sin(5 a + phi)
    times a 10% jitter a vertex; vx, vy (float32)."""
    a = (np.arange(nv) + rng.uniform(-0.3, 0.3, nv)) * (2 * np.pi / nv)
    r = (0.75 + 0.2 * np.sin(5 * a + rng.uniform(0, 2 * np.pi))) * rng.uniform(0.9, 1.1, nv)
    return (r * np.cos(a)).astype(np.float32), (r * np.sin(a)).astype(np.float32)


def _p85_pip_args(n, rng):
    """n query points uniform in [-_P85_PIP_BOX, _P85_PIP_BOX]^2 (px, py float32), the
    polygon (_p85_polygon: vx, vy), nv, inside (zeroed uint8), n."""
    b = _P85_PIP_BOX
    px = rng.uniform(-b, b, n).astype(np.float32)
    py = rng.uniform(-b, b, n).astype(np.float32)
    vx, vy = _p85_polygon(rng)
    return [px, py, vx, vy, _i32(len(vx)), np.zeros(n, np.uint8), _i32(n)]


def _p85_pip_ref(px, py, vx, vy):
    """pip_raycast in float32, operation for operation: inside (uint8)."""
    c = np.zeros(len(px), bool)
    nv = len(vx)
    with np.errstate(divide="ignore", invalid="ignore"):
        for a in range(nv):
            b = (a - 1) % nv
            xa, ya, xb, yb = vx[a], vy[a], vx[b], vy[b]
            cross = (ya > py) != (yb > py)
            xi = (xb - xa) * (py - ya) / (yb - ya) + xa
            c ^= cross & (px < xi)
    return c.astype(np.uint8)


# ---- nearest-site-grid ----

def _p85_ns_grid(n):
    """The sites' count and the grid's side G for n queries."""
    ns = max(n // _P85_NS_SITES, 1)
    return ns, max(int(np.sqrt(ns / _P85_NS_PER_CELL)), 1)


def _p85_cell(x, y, G):
    """The cell of points in [0, 1)^2 as the kernel computes it (float32 products)."""
    g = np.float32(G)
    cx = np.minimum((x.astype(np.float32) * g).astype(np.int64), G - 1)
    cy = np.minimum((y.astype(np.float32) * g).astype(np.int64), G - 1)
    return cy * G + cx


def _p85_ns_args(n, rng):
    """n queries uniform in [0, 1)^2 (qx, qy float32, random order); n / 2 sites uniform in
    [0, 1)^2 counting-sorted by cell of a G x G grid (4 a cell on average): sx, sy, cell_start
    (G^2 + 1 int32); G; nearest (int32) and dist2 (float32) zeroed; n."""
    ns, G = _p85_ns_grid(n)
    sx = rng.random(ns).astype(np.float32)
    sy = rng.random(ns).astype(np.float32)
    cell = _p85_cell(sx, sy, G)
    order = np.argsort(cell, kind="stable")
    start = np.zeros(G * G + 1, np.int64)
    np.cumsum(np.bincount(cell, minlength=G * G), out=start[1:])
    qx = rng.random(n).astype(np.float32)
    qy = rng.random(n).astype(np.float32)
    return [qx, qy, sx[order], sy[order], start.astype(np.int32), _i32(G), np.zeros(n, np.int32),
            np.zeros(n, np.float32), _i32(n)]


def _p85_ns_ref(qx, qy, sx, sy, cell_start, G):
    """For each query, the sites of its 3 x 3 cells in the kernel's order (float64): the
    nearest's sorted index (-1 if none), its squared distance, the second-nearest's, and
    how many sites were scanned."""
    G = int(G)
    c = _p85_cell(qx, qy, G)
    cy, cx = np.divmod(c, G)
    n = len(qx)
    near = np.full(n, -1)
    d1 = np.full(n, np.inf)
    d2 = np.full(n, np.inf)
    scanned = np.zeros(n, np.int64)
    for i in range(n):
        ks = [np.arange(cell_start[gy * G + gx], cell_start[gy * G + gx + 1])
              for gy in range(max(cy[i] - 1, 0), min(cy[i] + 1, G - 1) + 1)
              for gx in range(max(cx[i] - 1, 0), min(cx[i] + 1, G - 1) + 1)]
        k = np.concatenate(ks)
        scanned[i] = len(k)
        if len(k):
            d = (sx[k].astype(np.float64) - qx[i]) ** 2 + (sy[k].astype(np.float64) - qy[i]) ** 2
            j = np.argsort(d, kind="stable")
            near[i], d1[i] = k[j[0]], d[j[0]]
            if len(k) > 1:
                d2[i] = d[j[1]]
    return near, d1, d2, scanned


# ---- seg-pairs-tiled-atomic ----

def _p85_segments(n, rng, span=_P85_SEG_SPAN, length=_P85_SEG_LEN):
    """n segments with integer endpoints in [0, span): the first uniform, the second at a
    uniform angle and a length uniform in `length`, rounded and clipped; (n, 4) float64."""
    x1 = rng.integers(0, span, n).astype(np.float64)
    y1 = rng.integers(0, span, n).astype(np.float64)
    a = rng.uniform(0, 2 * np.pi, n)
    L = rng.uniform(*length, n)
    x2 = np.clip(np.rint(x1 + L * np.cos(a)), 0, span - 1)
    y2 = np.clip(np.rint(y1 + L * np.sin(a)), 0, span - 1)
    return np.stack([x1, y1, x2, y2], axis=1)


def _p85_seg_args(n, rng, span=_P85_SEG_SPAN, length=_P85_SEG_LEN):
    """_p85_segments as float4s (float32, flat 4 n); cnt (zeroed int32 n), total (one zeroed
    int32), n."""
    s = _p85_segments(n, rng, span, length)
    return [s.astype(np.float32).ravel(), np.zeros(n, np.int32), np.zeros(1, np.int32), _i32(n)]


def _p85_seg_ref(seg, chunk=1024):
    """Proper crossings of every pair (exact int64 orientations): cnt (int64 n), total."""
    s = np.asarray(seg).reshape(-1, 4).astype(np.int64)
    n = len(s)
    cnt = np.zeros(n, np.int64)

    def orient(ax, ay, bx, by, cx, cy):
        return (bx - ax) * (cy - ay) - (by - ay) * (cx - ax)

    for i0 in range(0, n, chunk):
        p = s[i0:i0 + chunk, None, :]
        q = s[None, :, :]
        o1 = orient(p[..., 0], p[..., 1], p[..., 2], p[..., 3], q[..., 0], q[..., 1])
        o2 = orient(p[..., 0], p[..., 1], p[..., 2], p[..., 3], q[..., 2], q[..., 3])
        o3 = orient(q[..., 0], q[..., 1], q[..., 2], q[..., 3], p[..., 0], p[..., 1])
        o4 = orient(q[..., 0], q[..., 1], q[..., 2], q[..., 3], p[..., 2], p[..., 3])
        hit = (np.sign(o1) * np.sign(o2) < 0) & (np.sign(o3) * np.sign(o4) < 0)
        cnt[i0:i0 + chunk] = hit.sum(axis=1)
    return cnt, int(cnt.sum() // 2)


# ---- polygon-area-centroid-atomic ----

def _p85_pa_polys(n, rng):
    """Vertex counts of small polygons totalling n vertices: uniform in _P85_PA_K, the last
    one taking what is left (3 .. 15) (int64)."""
    lo, hi = _P85_PA_K
    k = rng.integers(lo, hi + 1, n // lo + 2)
    cs = np.cumsum(k)
    m = int(np.searchsorted(cs, n, side="right"))      # polygons that fit whole
    k = k[:m]
    rest = n - int(k.sum())
    if rest >= lo or m == 0:
        k = np.append(k, rest)
    elif rest > 0:
        k[-1] += rest
    assert k.sum() == n and k.min() >= min(lo, n)
    return k


def _p85_pa_args(n, rng):
    """Random star-shaped polygons of _p85_pa_polys(n) vertices (x, y float32: centres
    uniform in [0, 1024)^2, radius uniform in 0.5 .. 4, each vertex at 0.5 .. 1 of it, at
    sorted uniform angles; a quarter clockwise), each vertex's polygon (poly_of int32),
    start (P + 1 int32); area2, mx, my (zeroed float32 P); n (edges = vertices)."""
    k = _p85_pa_polys(n, rng)
    P = len(k)
    poly = np.repeat(np.arange(P), k)
    cw = rng.random(P) < _P85_PA_CW
    a = rng.uniform(0, 2 * np.pi, n)
    a = a[np.lexsort((np.where(cw[poly], -a, a), poly))]
    R = rng.uniform(*_P85_PA_R, P)[poly] * rng.uniform(0.5, 1.0, n)
    cx = rng.uniform(0, _P85_PA_SPAN, P)[poly]
    cy = rng.uniform(0, _P85_PA_SPAN, P)[poly]
    x = (cx + R * np.cos(a)).astype(np.float32)
    y = (cy + R * np.sin(a)).astype(np.float32)
    start = np.zeros(P + 1, np.int64)
    np.cumsum(k, out=start[1:])
    z = np.zeros(P, np.float32)
    return [x, y, poly.astype(np.int32), start.astype(np.int32), z, z.copy(), z.copy(), _i32(n)]


def _p85_pa_ref(x, y, poly_of, start):
    """poly_area_centroid in float64: area2, mx, my, and each polygon's sum of the terms'
    magnitudes (|cr|, |(ax + bx) cr|, |(ay + by) cr|: the scale of float32's rounding)."""
    poly_of = np.asarray(poly_of, np.int64)
    start = np.asarray(start, np.int64)
    e = np.arange(len(x))
    f = e + 1
    f = np.where(f == start[poly_of + 1], start[poly_of], f)
    x = np.asarray(x, np.float64)
    y = np.asarray(y, np.float64)
    s = start[poly_of]
    ax, ay, bx, by = x[e] - x[s], y[e] - y[s], x[f] - x[s], y[f] - y[s]
    cr = ax * by - bx * ay
    P = len(start) - 1
    out = []
    for v in (cr, (ax + bx) * cr, (ay + by) * cr):
        out.append(np.bincount(poly_of, v, minlength=P))
    scale = [np.bincount(poly_of, np.abs(v), minlength=P) for v in (cr, (ax + bx) * cr, (ay + by) * cr)]
    return out[0], out[1], out[2], scale


# ---- delaunay-incircle-f64 ----

def _p85_side(n):
    """The mesh side m with 2 m^2 == n triangles."""
    m = int(np.sqrt(n // 2) + 0.5)
    assert 2 * m * m == n, n
    return m


def _p85_mesh(m, rng):
    """A jittered grid triangulation of m x m squares, vertices (i, j) at (16 i, 16 j) plus
    an integer jitter in [-4, 4] an axis inside (X, Y float32, exact integers), each square
    split along its (i, j) - (i + 1, j + 1) diagonal into (v, v + 1, v + M + 1) and (v, v +
    M + 1, v + M) (counter-clockwise; M = m + 1, v = j M + i, triangle 2 (j m + i) + t); tri
    and nbr (the neighbour across the edge opposite vertex k, -1 on the boundary), int32
    flat 3 n."""
    M = m + 1
    h, J = _P85_DT_H, _P85_DT_JIT
    jj, ii = np.divmod(np.arange(M * M), M)
    inner = (ii > 0) & (ii < m) & (jj > 0) & (jj < m)
    X = ii * h + np.where(inner, rng.integers(-J, J + 1, M * M), 0)
    Y = jj * h + np.where(inner, rng.integers(-J, J + 1, M * M), 0)
    sj, si = np.divmod(np.arange(m * m), m)
    v = sj * M + si
    s = np.arange(m * m)
    tri = np.empty((m * m, 2, 3), np.int64)
    tri[:, 0] = np.stack([v, v + 1, v + M + 1], axis=1)
    tri[:, 1] = np.stack([v, v + M + 1, v + M], axis=1)
    nbr = np.empty((m * m, 2, 3), np.int64)
    # A (t 0): opposite v the right square's B, opposite v + 1 its own B, opposite v + M + 1
    # the lower square's B; B (t 1): opposite v the upper square's A, opposite v + M + 1 the
    # left square's A, opposite v + M its own A
    nbr[:, 0, 0] = np.where(si < m - 1, 2 * (s + 1) + 1, -1)
    nbr[:, 0, 1] = 2 * s + 1
    nbr[:, 0, 2] = np.where(sj > 0, 2 * (s - m) + 1, -1)
    nbr[:, 1, 0] = np.where(sj < m - 1, 2 * (s + m), -1)
    nbr[:, 1, 1] = np.where(si > 0, 2 * (s - 1), -1)
    nbr[:, 1, 2] = 2 * s
    return (X.astype(np.float32), Y.astype(np.float32), tri.reshape(-1).astype(np.int32),
            nbr.reshape(-1).astype(np.int32))


def _p85_ic_args(n, rng):
    """_p85_mesh of n = 2 m^2 triangles: X, Y, tri, nbr; illegal (zeroed uint8 n), n_illegal
    (one zeroed int32), n."""
    X, Y, tri, nbr = _p85_mesh(_p85_side(n), rng)
    return [X, Y, tri, nbr, np.zeros(n, np.uint8), np.zeros(1, np.int32), _i32(n)]


def _p85_ic_ref(X, Y, tri, nbr):
    """delaunay_incircle exactly (int64): illegal (uint8 bit flags), the count, and the
    in-circle determinants (n x 3, 0 where there is no neighbour)."""
    X = np.asarray(X).astype(np.int64)
    Y = np.asarray(Y).astype(np.int64)
    T = np.asarray(tri, np.int64).reshape(-1, 3)
    N = np.asarray(nbr, np.int64).reshape(-1, 3)
    n = len(T)
    det = np.zeros((n, 3), np.int64)
    flags = np.zeros(n, np.int64)
    for k in range(3):
        has = N[:, k] >= 0
        u = np.where(has, N[:, k], 0)
        e0, e1 = T[:, (k + 1) % 3], T[:, (k + 2) % 3]
        W = T[u]
        is_apex = (W != e0[:, None]) & (W != e1[:, None])
        d = W[np.arange(n), 2 - np.argmax(is_apex[:, ::-1], axis=1)]      # the last match (the loop's)
        adx, ady = X[T[:, 0]] - X[d], Y[T[:, 0]] - Y[d]
        bdx, bdy = X[T[:, 1]] - X[d], Y[T[:, 1]] - Y[d]
        cdx, cdy = X[T[:, 2]] - X[d], Y[T[:, 2]] - Y[d]
        D = ((adx * adx + ady * ady) * (bdx * cdy - cdx * bdy) + (bdx * bdx + bdy * bdy) * (cdx * ady - adx * cdy)
             + (cdx * cdx + cdy * cdy) * (adx * bdy - bdx * ady))
        D = np.where(has, D, 0)
        det[:, k] = D
        flags |= (D > 0).astype(np.int64) << k
    return flags.astype(np.uint8), int((det > 0).sum()), det


# ---- edt-columns ----

def _p85_edt_shape(n):
    """W x H with W about 4 H (8192 x 2048 at 2^24)."""
    H = max(int(np.sqrt(n // 4)), 1)
    return n // H, H


def _p85_edt_image(W, H, rng):
    """A W x H obstacle map (uint8 0/1, row-major): disks of radius uniform in _P85_EDT_R at
    uniform centres, as many (at least 2) as would cover _P85_EDT_FILL of the area at a radius
    of rms(_P85_EDT_R) (~3% after overlaps and edges), plus isolated pixels."""
    img = np.zeros((H, W), np.uint8)
    r_mean2 = np.mean(np.square(_P85_EDT_R))
    K = max(2, int(_P85_EDT_FILL * W * H / (np.pi * r_mean2)))
    cx = rng.uniform(0, W, K)
    cy = rng.uniform(0, H, K)
    R = rng.uniform(*_P85_EDT_R, K)
    for x0, y0, r in zip(cx, cy, R):
        xa, xb = max(int(x0 - r), 0), min(int(x0 + r) + 1, W)
        ya, yb = max(int(y0 - r), 0), min(int(y0 + r) + 1, H)
        if xa >= xb or ya >= yb:
            continue
        yy, xx = np.ogrid[ya:yb, xa:xb]
        img[ya:yb, xa:xb] |= ((xx + 0.5 - x0) ** 2 + (yy + 0.5 - y0) ** 2 <= r * r).astype(np.uint8)
    dots = rng.random((H, W)) < _P85_EDT_DOTS
    img[dots] = 1
    return img.ravel()


def _p85_edt_args(n, rng):
    """_p85_edt_image of _p85_edt_shape(n); g (zeroed int32 W H); W, H."""
    W, H = _p85_edt_shape(n)
    return [_p85_edt_image(W, H, rng), np.zeros(W * H, np.int32), _i32(W), _i32(H)]


def _p85_edt_ref(img, W, H):
    """The distance along each column to its nearest feature pixel, W + H where none (int64)."""
    W, H = int(W), int(H)
    f = np.asarray(img).reshape(H, W) != 0
    y = np.arange(H)[:, None]
    big = 4 * (W + H)
    above = np.maximum.accumulate(np.where(f, y, -big), axis=0)
    below = np.minimum.accumulate(np.where(f, y, big)[::-1], axis=0)[::-1]
    g = np.minimum(np.minimum(y - above, below - y), W + H)
    return g.ravel()


UNSEEN83 = [
    TimingProbe("probe/geo-pip-raycast-smem", "probe-unseen83", "pip_raycast", 1 << 21, 256,
                lambda n: -(-n // 256), _p85_pip_args, source=_P85,
                note="even-odd point-in-polygon (PNPOLY ray casting) of 2^21 query points uniform in [-1.2, 1.2]^2 "
                     "(31.5% inside) against one 320-vertex star-shaped non-convex blob, a thread a point: the "
                     "polygon staged into 2 x 2 KiB of shared memory by a strided loop (2 trips), one barrier, then 320"
                     " edge iterations of 4 shared loads (one address a warp: broadcasts) and 2 float compares; ~4.9 "
                     "edges a point straddle its y and take the branch with an IEEE float division (divergent: ~34% of"
                     " a warp's edges have a lane in it); coalesced loads, a uint8 store; shared-load/ALU-bound"),
    TimingProbe("probe/geo-nearest-site-grid", "probe-unseen83", "nearest_site_grid", 1 << 21, 256,
                lambda n: -(-n // 256), _p85_ns_args, source=_P85,
                note="nearest-site search of 2^21 queries (uniform in the unit square, random order) among 2^20 "
                     "uniform sites counting-sorted into a 512 x 512 grid of buckets (4 a cell on average, sites 8 MB "
                     "and cell_start 1 MB: L2-resident), a thread a query: its cell from 2 float products, then the "
                     "3 x 3 cells around it: a cell_start pair each (scattered gathers) and ~36 sites scanned (a "
                     "warp's longest lane ~48: divergent trip counts), the sites' x and y gathered (contiguous within "
                     "a cell, unrelated across lanes), a squared distance and compare-select each; an int and a float"
                     " stored; latency/gather-bound"),
    TimingProbe("probe/geo-seg-pairs-tiled-atomic", "probe-unseen83", "seg_intersect_count", 1 << 15,
                _P85_SEG_TILE, lambda n: (-(-n // _P85_SEG_TILE), -(-n // _P85_SEG_TILE)), _p85_seg_args,
                source=_P85,
                note="proper-crossing count among 2^15 segments (integer endpoints in [0, 4096)^2, lengths 20 .. 120, "
                     "float4s), all 537M pairs in 128 x 128 tiles: a 256 x 256 grid of 128-thread blocks, the 32640 "
                     "below the diagonal returning at once; the others stage the j tile (2 KiB of float4) into shared"
                     " memory, one barrier, and each thread tests its segment against the 128 (j > i on the diagonal "
                     "tiles): 4 orientation predicates (~24 FADD/FMUL/FMA), 2 products and compares, the float4 read as"
                     " a shared broadcast; ~96k crossings (1.8e-4 of pairs) each an atomicAdd on cnt[j], then a thread "
                     "with hits adds them to cnt[i] and to one global total; compute-bound"),
    TimingProbe("probe/geo-poly-area-centroid-atomic", "probe-unseen83", "poly_area_centroid", 1 << 23, 256,
                lambda n: -(-n // 256), _p85_pa_args, source=_P85,
                note="shoelace areas and centroid moments of 1.05M small random polygons (3 .. 13 vertices, 8 on "
                     "average, a quarter clockwise; 2^23 vertices = edges), a thread an edge: poly_of coalesced, "
                     "start[p] and start[p + 1] and the first vertex gathered (the same few addresses a warp: L1 "
                     "hits), its two vertices (coalesced, the next one wrapping to the first), a cross product "
                     "relative to the first vertex, then 3 float atomicAdds into area2[p], mx[p], my[p] (a warp's 32 "
                     "lanes on ~5 polygons: ~6.5 lanes an address, 25M atomics on 12.6 MB of sums); atomic-bound"),
    TimingProbe("probe/geo-delaunay-incircle-f64", "probe-unseen83", "delaunay_incircle", 1 << 23, 256,
                lambda n: -(-n // 256), _p85_ic_args, source=_P85,
                note="Delaunay in-circle test of a 2^23-triangle mesh (a 2048 x 2048 jittered grid, 4.2M vertices with "
                     "integer coordinates as float: 34 MB), a thread a triangle in grid order: 3 vertex indices and 3 "
                     "neighbour indices (12-byte strides), 6 coordinates gathered and widened to double, then for each "
                     "neighbour (all 3 but on the boundary) its 3 vertex indices (a gather) to find the apex, the "
                     "apex's coordinates and a double in-circle determinant (~20 DMUL/DFMA/DADD); the diagonals are "
                     "illegal half the time (a data-dependent flag, no divergence), a uint8 flags store; the count by"
                     " 5 __shfl_down_sync and one int atomicAdd a warp on a single counter; gather- and FP64-bound"),
    TimingProbe("probe/geo-edt-column-scan", "probe-unseen83", "edt_columns", 1 << 24, 256,
                lambda n: -(-_p85_edt_shape(n)[0] // 256), _p85_edt_args, source=_P85,
                note="column pass of an exact distance transform (Meijster) on an 8192 x 2048 uint8 obstacle map (~730 "
                     "disks of radius 3 .. 24 plus isolated pixels: 3% features, 7% of the columns featureless), a "
                     "thread a column: only 32 blocks of 256 (256 warps for 132 SMs); a forward scan of 2048 rows (a "
                     "uint8 load, a warp's 32 bytes in one sector, rows 8 KB apart; a compare and an int store) and a"
                     " backward scan of 2047 (re-loading the int just written, a min, a store): 4095 trips of a "
                     "load-use chain a thread, 64 MB of ints written twice; latency-bound at low occupancy"),
]
PROBES += UNSEEN83


# probe-unseen87 (probes89.cu): a dense numerical-linear-algebra course's kernels (an LU
# step's rank-1 Schur-complement update in double, a Householder reflector applied to a
# block of columns, a tiled Cholesky's diagonal-tile kernel in shared memory, a round of
# parallel Jacobi rotations on column pairs with converged pairs skipped, modified
# Gram-Schmidt's projections by atomicAdd, batched 8 x 8 Gauss-Jordan inverses with
# partial pivoting) as a student who knows CUDA basics writes them
_P89 = "probes89.cu"
_P89_LU_KDIV = 32                   # lu-schur: the pivot step k = n // this (the update after k steps)
_P89_LU_B = (32, 8)                 # LU_BX, LU_BY
_P89_HH_M, _P89_HH_K = 8192, 1000   # householder: m rows (column-major), the QR step k (v zero above row k)
_P89_HH_BLOCK = 256                 # HH_BLOCK
_P89_CH_T = 32                      # chol-tile: CH_T (a tile's side; blockDim (32, 32))
_P89_JAC_TOL = 1e-6                 # jacobi: pairs with |a_pq| <= tol sqrt(|a_pp a_qq|) skipped
_P89_JAC_ACTIVE = 0.5               # the share of the round's pairs still above the threshold
_P89_JAC_ROUND = 7                  # the round of the round-robin ordering
_P89_JAC_OFF, _P89_JAC_PQ = 0.01, 0.05   # off-diagonal entries N(0, off^2), the active a_pq N(0, pq^2)
_P89_JAC_BLOCK = 256
_P89_MGS_COLS, _P89_MGS_K = 256, 37     # mgs: the matrix's columns, the step k (columns k+1 .. projected)
_P89_MGS_B, _P89_MGS_ROWS = (32, 8), 32  # MGS_BX, MGS_BY; MGS_ROWS
_P89_INV_N, _P89_INV_BLOCK = 8, 128     # inv8: INV_N; threads a block


# ---- lu-schur-rank1-double ----

def _p89_lu_k(n):
    return n // _P89_LU_KDIV


def _p89_lu_grid(n):
    t = n - _p89_lu_k(n) - 1
    return (-(-t // _P89_LU_B[0]), -(-t // _P89_LU_B[1]))


def _p89_lu_args(n, rng):
    """An n x n diagonally dominant matrix (float64, row-major: entries uniform in +-1, n
    added to the diagonal) as it stands after k = n // _P89_LU_KDIV LU steps: column k
    below the diagonal already divided by the pivot A[k][k] (the multipliers); n, k."""
    k = _p89_lu_k(n)
    A = rng.uniform(-1, 1, (n, n))
    A[np.arange(n), np.arange(n)] += n
    A[k + 1:, k] /= A[k, k]
    return [A.ravel(), _i32(n), _i32(k)]


def _p89_lu_ref(A, n, k):
    """lu_schur_update in float64: A with A[k+1:, k+1:] -= outer(A[k+1:, k], A[k, k+1:])."""
    A = np.array(A, np.float64).reshape(n, n)
    A[k + 1:, k + 1:] -= np.outer(A[k + 1:, k], A[k, k + 1:])
    return A.ravel()


# ---- householder-apply-cols ----

def _p89_hh_vec(x):
    """The Householder vector of x (LAPACK's larfg, v[0] = 1) and tau: H x = beta e1."""
    x = np.asarray(x, np.float64)
    beta = -np.copysign(np.linalg.norm(x), x[0])
    v = x / (x[0] - beta)
    v[0] = 1.0
    return v, 2.0 / (v @ v), beta


def _p89_hh_args(n, rng, m=_P89_HH_M, k=_P89_HH_K):
    """n columns of m rows, column-major (float32, N(0, 1)); the reflector of a random
    N(0, 1) column's rows k .. m-1 (v float32 of length m, zero above k, v[k] = 1) and
    tau = 2 / v^T v; m, n, k."""
    A = rng.standard_normal((n, m), dtype=np.float32)
    v = np.zeros(m, np.float32)
    vk, tau, _ = _p89_hh_vec(rng.standard_normal(m - k))
    v[k:] = vk
    return [A.ravel(), v, np.float32(tau), _i32(m), _i32(n), _i32(k)]


def _p89_hh_ref(A, v, tau, m, ncols, k):
    """householder_apply in float64: each column's rows k.. minus tau (v^T a) v."""
    A = np.array(A, np.float64).reshape(ncols, m)
    v = np.asarray(v, np.float64)[k:]
    w = float(tau) * (A[:, k:] @ v)
    A[:, k:] -= np.outer(w, v)
    return A.ravel()


# ---- cholesky-tile32-smem ----

def _p89_ch_args(n, rng):
    """n SPD 32 x 32 tiles (float32, row-major, exactly symmetric): B B^T / 32 + I for B
    N(0, 1) (eigenvalues about 1 .. 5); n."""
    t = _P89_CH_T
    B = rng.standard_normal((n, t, t))
    T = (B @ B.transpose(0, 2, 1) / t + np.eye(t)).astype(np.float32)
    T = np.triu(T) + np.triu(T, 1).transpose(0, 2, 1)
    return [T.ravel(), _i32(n)]


def _p89_ch_ref(T):
    """The Cholesky factors in float64 (n x 32 x 32, zeros above the diagonal)."""
    t = _P89_CH_T
    return np.linalg.cholesky(np.asarray(T, np.float64).reshape(-1, t, t))


# ---- jacobi-rotate-cols-thresh ----

def _p89_round_robin(n, r):
    """Round r's n/2 disjoint pairs of the round-robin (chess tournament) ordering: player 0
    fixed, the others rotated r places; pair k (positions k and n-1-k) as top < bot."""
    pos = np.r_[0, 1 + (np.arange(n - 1) + r) % (n - 1)]
    a, b = pos[:n // 2], pos[::-1][:n // 2]
    return np.minimum(a, b).astype(np.int32), np.maximum(a, b).astype(np.int32)


def _p89_jac_args(n, rng):
    """A symmetric n x n float32 matrix late in a Jacobi sweep (row-major): diagonal uniform
    in 1 .. 10, off-diagonal N(0, _P89_JAC_OFF^2); of round _P89_JAC_ROUND's pairs (top,
    bot; int32) a random _P89_JAC_ACTIVE share have a_pq N(0, _P89_JAC_PQ^2), the others a
    converged a_pq (uniform within +-0.3 of the threshold tol sqrt(a_pp a_qq)); the pairs'
    a_pp, a_qq, a_pq gathered (float32); tol, n."""
    f = np.float32
    M = rng.standard_normal((n, n), dtype=f) * f(_P89_JAC_OFF)
    A = np.triu(M, 1)
    del M
    A += A.T
    d = rng.uniform(1, 10, n).astype(f)
    A[np.arange(n), np.arange(n)] = d
    top, bot = _p89_round_robin(n, _P89_JAC_ROUND)
    on = rng.random(n // 2) < _P89_JAC_ACTIVE
    thr = _P89_JAC_TOL * np.sqrt(d[top].astype(np.float64) * d[bot])
    g = np.where(on, rng.normal(0, _P89_JAC_PQ, n // 2), rng.uniform(-0.3, 0.3, n // 2) * thr).astype(f)
    A[top, bot] = g
    A[bot, top] = g
    return [A.ravel(), top, bot, d[top].copy(), d[bot].copy(), g, f(_P89_JAC_TOL), _i32(n)]


def _p89_jac_rot(app, aqq, apq, tol=_P89_JAC_TOL):
    """The rotations (float64) of jacobi_rotate_cols: active mask, c, s."""
    a, d, g = (np.asarray(x, np.float64) for x in (app, aqq, apq))
    on = np.abs(g) > tol * np.sqrt(np.abs(a * d))
    theta = (d - a) / (2 * np.where(on, g, 1.0))
    t = np.where(theta >= 0, 1.0, -1.0) / (np.abs(theta) + np.sqrt(theta * theta + 1))
    c = 1 / np.sqrt(t * t + 1)
    return on, np.where(on, c, 1.0), np.where(on, t * c, 0.0)


def _p89_jac_ref(A, top, bot, app, aqq, apq, tol=_P89_JAC_TOL):
    """A J in float64 (the active pairs' columns rotated); the active mask, c, s."""
    n = len(top) * 2
    A = np.array(A, np.float64).reshape(n, n)
    on, c, s = _p89_jac_rot(app, aqq, apq, tol)
    p, q = top[on], bot[on]
    ap, aq = A[:, p].copy(), A[:, q].copy()
    A[:, p] = c[on] * ap - s[on] * aq
    A[:, q] = s[on] * ap + c[on] * aq
    return A.ravel(), on, c, s


# ---- mgs-project-atomic ----

def _p89_mgs_grid(n):
    return (-(-(_P89_MGS_COLS - _P89_MGS_K - 1) // _P89_MGS_B[0]), -(-n // _P89_MGS_ROWS))


def _p89_mgs_args(n, rng):
    """A tall n x _P89_MGS_COLS matrix (float32, row-major, N(0, 1)); q its column k
    normalized (float32, unit norm); r (zeroed); m = n, the columns, k."""
    A = rng.standard_normal((n, _P89_MGS_COLS), dtype=np.float32)
    q = A[:, _P89_MGS_K].astype(np.float64)
    q = (q / np.linalg.norm(q)).astype(np.float32)
    return [A.ravel(), q, np.zeros(_P89_MGS_COLS, np.float32), _i32(n), _i32(_P89_MGS_COLS), _i32(_P89_MGS_K)]


def _p89_mgs_ref(A, q, m, ncols, k):
    """r in float64: q^T a_j for j > k, zeros up to k."""
    r = np.asarray(q, np.float64) @ np.asarray(A, np.float64).reshape(m, ncols)
    r[:k + 1] = 0
    return r


# ---- inv8-gauss-jordan-pivot ----

def _p89_inv_args(n, rng):
    """n 8 x 8 matrices (float32, row-major, entries N(0, 1)); the inverses (zeroed), info
    (int32, zeroed); n."""
    m = _P89_INV_N * _P89_INV_N
    return [rng.standard_normal(n * m, dtype=np.float32), np.zeros(n * m, np.float32), np.zeros(n, np.int32),
            _i32(n)]


def _p89_inv_pivots(A):
    """How many row swaps partial pivoting makes on each matrix (float64 elimination)."""
    N = _P89_INV_N
    a = np.array(A, np.float64).reshape(-1, N, N)
    idx = np.arange(len(a))
    swaps = np.zeros(len(a), np.int64)
    for k in range(N):
        p = k + np.argmax(np.abs(a[:, k:, k]), axis=1)
        swaps += p != k
        rk, rp = a[idx, k].copy(), a[idx, p].copy()
        a[idx, k], a[idx, p] = rp, rk
        piv = a[:, k, k].copy()
        a[:, k + 1:] -= a[:, k + 1:, k:k + 1] / piv[:, None, None] * a[:, k:k + 1, :]
    return swaps


UNSEEN87 = [
    TimingProbe("probe/lu-schur-rank1-double", "probe-unseen87", "lu_schur_update", 4096, _P89_LU_B, _p89_lu_grid,
                _p89_lu_args, source=_P89,
                note="one right-looking LU step's rank-1 Schur-complement update in double on a 4096^2 row-major "
                     "matrix after k = 128 steps: the 3967^2 trailing block (rows and columns from 129: each warp's "
                     "row segment of 32 doubles starts 8 bytes past a 256-byte line), a thread an element under 32 x "
                     "8 blocks (124 x 496 of them): the row's multiplier A[i][k] (one address a warp), the pivot row's "
                     "A[k][j] (shared by the grid, L2-resident) and A[i][j] loaded, one DFMA, A[i][j] stored; "
                     "memory-bound (~250 MB moved)"),
    TimingProbe("probe/householder-apply-cols", "probe-unseen87", "householder_apply", 4096, _P89_HH_BLOCK,
                lambda n: n, _p89_hh_args, source=_P89,
                note="a Householder reflector (QR step k = 1000, v zero above row k) applied to 4096 float columns of "
                     "8192 rows (column-major, 128 MB), a block of 256 a column: each thread strides the column's "
                     "7192 active rows (28 or 29 trips, coalesced, starting 32 bytes into a line) for v^T a_j, a "
                     "256-entry "
                     "shared-memory tree (8 barriers, the active threads halving), then a second pass over the same "
                     "rows (v and the column reloaded, mostly L1/L2 hits) storing a_j - tau w v; memory-bound"),
    TimingProbe("probe/cholesky-tile32-smem", "probe-unseen87", "chol_tile32", 1 << 13, (_P89_CH_T, _P89_CH_T),
                lambda n: n, _p89_ch_args, source=_P89,
                note="in-place Cholesky of 8192 independent SPD 32 x 32 float tiles (a tiled Cholesky's diagonal "
                     "blocks), a block of 32 x 32 threads a tile: one coalesced load into a 32 x 32 shared array, then "
                     "32 steps of 3 barriers each (96): one thread's sqrtf, 31 - k threads dividing the column, and "
                     "the "
                     "trailing update by the threads on or below the diagonal right of k (a shrinking triangle: whole "
                     "warps idle late on) reading s[ty][k] (a warp's broadcast) and s[tx][k] (a column: a 32-way "
                     "bank conflict); one store with the upper triangle zeroed; barrier- and shared-memory-bound"),
    TimingProbe("probe/jacobi-rotate-cols-thresh", "probe-unseen87", "jacobi_rotate_cols", 6144, _P89_JAC_BLOCK,
                lambda n: (-(-(n // 2) // _P89_JAC_BLOCK), n), _p89_jac_args, source=_P89,
                note="one round of parallel cyclic Jacobi on a symmetric 6144^2 float matrix (151 MB): the round-robin "
                     "ordering's 3072 disjoint column pairs rotated, A <- A J, grid (12, 6144), a thread a pair in a "
                     "row"
                     " (blockIdx.y the row): the pair's a_pp, a_qq, a_pq loaded (coalesced), a random half of the "
                     "pairs "
                     "already converged and skipped (divergent lanes), the rest computing the rotation (3 sqrtf, 3 "
                     "divisions) and rotating A[i][p], A[i][q] (past the first warp p ascends and q descends with the "
                     "lane: two coalesced runs per warp, lanes missing where skipped); memory-bound with divergence"),
    TimingProbe("probe/mgs-project-atomic", "probe-unseen87", "mgs_project_atomic", 1 << 17, _P89_MGS_B,
                _p89_mgs_grid, _p89_mgs_args, source=_P89,
                note="modified Gram-Schmidt step k = 37's projections r_j = q^T a_j of a 2^17 x 256 row-major float "
                     "matrix (128 MB) onto its later 218 columns, blocks of 32 x 8 threads (grid 7 x 4096, the last "
                     "column block 26 lanes busy): each thread 4 rows of one column (a warp's 32 columns coalesced, "
                     "rows 1 KB apart, q[i] one address a warp), the 8 partial sums a column added in shared memory "
                     "after a barrier, then one float atomicAdd a column a block (4096 atomics on each of 218 "
                     "addresses, ~0.9M in all); memory-bound with contended atomics"),
    TimingProbe("probe/inv8-gauss-jordan-pivot", "probe-unseen87", "inv8_gauss_jordan", 1 << 18, _P89_INV_BLOCK,
                lambda n: -(-n // _P89_INV_BLOCK), _p89_inv_args, source=_P89,
                note="inverses of 2^18 random 8 x 8 float matrices (entries N(0, 1), row-major: a warp's lanes 256 "
                     "bytes apart, 64 MB in and out) by Gauss-Jordan with partial pivoting, a thread a matrix: the "
                     "augmented [A | I] in an 8 x 16 per-thread array (local memory: the pivot row's index is data-"
                     "dependent), a column a step: a pivot search, a row swap where needed (~5.3 swaps of 8 a matrix, "
                     "differing across lanes), one division, 16 scalings and 7 x 16 FMAs; ~1100 float operations "
                     "and as many local accesses a thread, compute/local-memory-bound"),
]
PROBES += UNSEEN87


# probe-unseen84 (probes86.cu): a statistical-physics Monte Carlo course's kernels (a 2D
# Ising checkerboard Metropolis half-sweep with a hand-written Philox RNG, a 3D Potts
# half-sweep with per-site xorshift states, photon transport through a slab, random walkers
# in a porous medium, multiple-walker Wang-Landau on 8 x 8 Ising lattices, a
# parallel-tempering energy and magnetization reduction)
_P86 = "probes86.cu"
_P86_IS_L, _P86_IS_PATCH, _P86_IS_FLIP = 8192, 8, 38   # ising2d: side; PATCH^2 domains, flips w.p. FLIP / 256
_P86_IS_BETA, _P86_IS_H = 0.4406868, 0.05              # ising2d: beta (critical), field h
_P86_IS_SWEEP, _P86_IS_SEED = 17, 0x5EED86             # ising2d: the Philox counter's sweep word, the key
_P86_PO_L, _P86_PO_Q, _P86_PO_BETA = 320, 4, 0.6       # potts3d: side, q (POTTS_Q), beta (beta_c ~ 0.63)
_P86_PH_N = 1 << 22                                    # photon-slab: photons
_P86_PH_MUA, _P86_PH_MUS, _P86_PH_G, _P86_PH_D = 0.1, 10.0, 0.9, 1.0   # mu_a, mu_s (1/mm), HG g, thickness (mm)
_P86_PH_BINS, _P86_PH_MAX, _P86_PH_SEED = 64, 2000, 2024
_P86_WK_L, _P86_WK_OPEN, _P86_WK_STEPS = 2048, 179, 256  # walk-porous: grid side, open w.p. OPEN / 256, WALK_STEPS
_P86_WK_SEED = 31337
_P86_WL_L, _P86_WL_STEPS, _P86_WL_SEED = 8, 256, 8642  # wang-landau: side, steps a launch, seed
_P86_WL_BLOCK = 128
_P86_PT_L, _P86_PT_BETA = 128, (0.30, 0.60)            # pt-reduce: replica side; betas linear over the replicas


def _p86_unif(r):
    """uniform01: the top 24 bits over 2^24 (float64, exact)."""
    return (np.asarray(r, np.uint32) >> np.uint32(8)).astype(np.float64) / 16777216.0


def _p86_hash(x):
    """hash32 (lowbias32) of uint32 x."""
    x = np.asarray(x, np.uint32)
    x = x ^ (x >> np.uint32(16))
    x = x * np.uint32(0x7feb352d)
    x = x ^ (x >> np.uint32(15))
    x = x * np.uint32(0x846ca68b)
    return x ^ (x >> np.uint32(16))


def _p86_xorshift(x):
    """xorshift32 of uint32 x."""
    x = np.asarray(x, np.uint32)
    x = x ^ (x << np.uint32(13))
    x = x ^ (x >> np.uint32(17))
    return x ^ (x << np.uint32(5))


def _p86_philox(c0, c1, key):
    """philox2x32_10's first word of the counters (c0, c1) under key (uint32 arrays)."""
    c0, c1 = np.asarray(c0, np.uint32), np.asarray(c1, np.uint32)
    key = np.uint32(key)
    M = np.uint64(0xD256D193)
    for _ in range(10):
        prod = M * c0.astype(np.uint64)
        hi = (prod >> np.uint64(32)).astype(np.uint32)
        lo = (prod & np.uint64(0xffffffff)).astype(np.uint32)
        c0, c1 = hi ^ key ^ c1, lo
        key = np.uint32((int(key) + 0x9E3779B9) & 0xffffffff)
    return c0


def _p86_ising_args(n, rng):
    """An n x n Ising lattice mid-run (int8): domains of _P86_IS_PATCH^2 sites of random
    sign, each spin flipped with probability _P86_IS_FLIP / 256; n, color 0, beta, h,
    sweep, seed."""
    P = _P86_IS_PATCH
    c = -(-n // P)
    dom = rng.choice(np.array([-1, 1], np.int8), (c, c))
    s = np.repeat(np.repeat(dom, P, axis=0), P, axis=1)[:n, :n]
    flip = rng.integers(0, 256, (n, n), dtype=np.uint8) < _P86_IS_FLIP
    s = np.where(flip, -s, s).astype(np.int8)
    return [s.ravel(), _i32(n), _i32(0), np.float32(_P86_IS_BETA), np.float32(_P86_IS_H),
            np.uint32(_P86_IS_SWEEP), np.uint32(_P86_IS_SEED)]


def _p86_ising_ref(spin, L, color=0, beta=_P86_IS_BETA, h=_P86_IS_H, sweep=_P86_IS_SWEEP, seed=_P86_IS_SEED):
    """ising2d_philox's half-sweep: the new spins, the flip mask (sites of the colour) and
    the smallest |u - exp(-beta dE)| of a test with dE > 0."""
    L = int(L)
    s = np.asarray(spin, np.int8).reshape(L, L).astype(np.int32)
    y, x = np.mgrid[0:L, 0:L]
    on = ((x + y) & 1) == (int(color) & 1)
    nb = np.roll(s, 1, 0) + np.roll(s, -1, 0) + np.roll(s, 1, 1) + np.roll(s, -1, 1)
    f = np.float32
    dE = (f(2.0) * s.astype(f)) * (nb.astype(f) + f(h))
    site = (y * L + x).astype(np.uint32)
    u = _p86_unif(_p86_philox(site, np.full_like(site, sweep), seed))
    arg = (-f(beta)) * dE
    p = np.exp(arg.astype(np.float64))
    up = on & (dE > 0)
    gap = np.abs(u - p)[up].min() if up.any() else np.inf
    flip = on & ((dE <= 0) | (u < p))
    return np.where(flip, -s, s).astype(np.int8).ravel(), flip.ravel(), gap


def _p86_potts_args(n, rng):
    """An n^3 q = 4 Potts lattice at a hot start (uint8 states uniform in 0 .. 3), each
    site's xorshift32 state (uint32, uniform nonzero); n, parity 0, beta."""
    v = n * n * n
    return [rng.integers(0, _P86_PO_Q, v, dtype=np.uint8), rng.integers(1, 1 << 32, v, dtype=np.uint32), _i32(n),
            _i32(0), np.float32(_P86_PO_BETA)]


def _p86_potts_ref(spin, state, L, parity=0, beta=_P86_PO_BETA):
    """potts3d_metropolis's half-sweep: spins, states, the mask of flipped sites and the
    smallest |u - exp(-beta dE)| of a test with dE > 0."""
    L, q = int(L), _P86_PO_Q
    s = np.asarray(spin, np.uint8).reshape(L, L, L).astype(np.int32)
    st = np.array(state, np.uint32).reshape(L, L, L)
    z, y, x = np.mgrid[0:L, 0:L, 0:L]
    on = ((x + y + z) & 1) == (int(parity) & 1)
    r1 = _p86_xorshift(st)
    snew = (s + 1 + (r1 % np.uint32(q - 1)).astype(np.int32)) % q
    dE = np.zeros_like(s)
    for ax in range(3):
        for sh in (1, -1):
            nb = np.roll(s, sh, ax)
            dE += (nb == s).astype(np.int32) - (nb == snew).astype(np.int32)
    r2 = _p86_xorshift(r1)
    u = _p86_unif(r2)
    p = np.exp((-np.float32(beta) * dE.astype(np.float32)).astype(np.float64))
    up = on & (dE > 0)
    gap = np.abs(u - p)[up].min() if up.any() else np.inf
    acc = on & ((dE <= 0) | (u < p))
    out = np.where(acc, snew, s).astype(np.uint8)
    st = np.where(on, r2, st)
    return out.ravel(), st.ravel(), acc.ravel(), gap


def _p86_photon_args(n, rng):
    """The tally (3 uint32: reflected, transmitted, dropped) and the absorption depth
    histogram (_P86_PH_BINS uint32), zeroed; mu_a, mu_s, g, d, seed, n."""
    f = np.float32
    return [np.zeros(3, np.uint32), np.zeros(_P86_PH_BINS, np.uint32), f(_P86_PH_MUA), f(_P86_PH_MUS), f(_P86_PH_G),
            f(_P86_PH_D), np.uint32(_P86_PH_SEED), _i32(n)]


def _p86_photon_ref(n, mu_a=_P86_PH_MUA, mu_s=_P86_PH_MUS, g=_P86_PH_G, d=_P86_PH_D, seed=_P86_PH_SEED,
                    max_steps=_P86_PH_MAX):
    """photon_slab's photons in float64 (the same random words): the tally, the depth
    histogram, each photon's free paths taken, and the smallest distance of any test from
    its threshold (a position from 0 or d, an absorbed depth from a bin edge)."""
    f = np.float32
    g, d = float(f(g)), float(f(d))
    mu_t = f(mu_a) + f(mu_s)
    albedo = float(f(mu_s) / mu_t)
    mu_t = float(mu_t)
    st = _p86_hash(np.uint32(seed) + np.arange(n, dtype=np.uint32)) | np.uint32(1)
    z, mu = np.zeros(n), np.ones(n)
    fate = np.full(n, 2)
    steps = np.zeros(n, np.int64)
    gap = np.inf
    live = np.arange(n)
    for k in range(max_steps):
        if len(live) == 0:
            break
        steps[live] += 1
        s1 = _p86_xorshift(st[live])
        u = ((s1 >> np.uint32(8)).astype(np.float64) + 1) / 16777216.0
        zl = z[live] + (-np.log(u) / mu_t) * mu[live]
        z[live] = zl
        gap = min(gap, np.abs(zl).min() if k else np.inf, np.abs(zl - d).min())   # the first path goes in: z = s >= 0
        refl, trans = zl < 0, zl > d
        fate[live[refl]], fate[live[trans]] = 0, 1
        s2 = _p86_xorshift(s1)
        absb = ~refl & ~trans & (_p86_unif(s2) >= albedo)
        fate[live[absb]] = 3
        s3 = _p86_xorshift(s2)
        s4 = _p86_xorshift(s3)
        tmp = (1 - g * g) / (1 - g + 2 * g * _p86_unif(s3))
        ct = np.clip((1 + g * g - tmp * tmp) / (2 * g), -1, 1)
        phi = 6.28318531 * _p86_unif(s4)
        m = mu[live]
        mu[live] = np.clip(m * ct + np.sqrt(np.maximum(0, 1 - m * m)) * np.sqrt(1 - ct * ct) * np.cos(phi), -1, 1)
        st[live] = s4
        live = live[~(refl | trans | absb)]
    tally = np.array([(fate == 0).sum(), (fate == 1).sum(), (fate == 2).sum()], np.uint32)
    a = fate == 3
    pos = z[a] / d * _P86_PH_BINS
    if a.any():
        gap = min(gap, (np.abs(pos - np.round(pos)) * d / _P86_PH_BINS).min())
    hist = np.bincount(np.minimum(pos.astype(np.int64), _P86_PH_BINS - 1), minlength=_P86_PH_BINS).astype(np.uint32)
    return tally, hist, steps, gap


def _p86_porous(rng, L=_P86_WK_L):
    """An L x L site-percolation medium (uint8, 1 open w.p. _P86_WK_OPEN / 256 ~ 0.70, above
    the threshold 0.593)."""
    return (rng.integers(0, 256, L * L, dtype=np.uint8) < _P86_WK_OPEN).astype(np.uint8)


def _p86_walk_args(n, rng):
    """The porous grid (_p86_porous), n walkers' starts at uniformly random open sites (x, y
    int32), blocked counts (zeroed); L, seed, n."""
    L = _P86_WK_L
    grid = _p86_porous(rng)
    sites = np.flatnonzero(grid)[rng.integers(0, int(grid.sum()), n)]
    return [grid, (sites % L).astype(np.int32), (sites // L).astype(np.int32), np.zeros(n, np.int32), _i32(L),
            np.uint32(_P86_WK_SEED), _i32(n)]


def _p86_walk_ref(grid, px, py, L=_P86_WK_L, seed=_P86_WK_SEED, steps=_P86_WK_STEPS):
    """walk_porous's walks (exact): x, y, blocked."""
    L = int(L)
    x, y = np.array(px, np.int64), np.array(py, np.int64)
    st = _p86_hash(np.uint32(seed) + np.arange(len(x), dtype=np.uint32)) | np.uint32(1)
    blk = np.zeros(len(x), np.int64)
    grid = np.asarray(grid)
    for _ in range(steps):
        st = _p86_xorshift(st)
        dr = (st >> np.uint32(30)).astype(np.int64)
        nx = x + (dr == 0) - (dr == 1)
        ny = y + (dr == 2) - (dr == 3)
        inside = (nx >= 0) & (nx < L) & (ny >= 0) & (ny < L)
        ok = inside.copy()
        ok[inside] = grid[ny[inside] * L + nx[inside]] != 0
        x, y = np.where(ok, nx, x), np.where(ok, ny, y)
        blk += ~ok
    return x.astype(np.int32), y.astype(np.int32), blk.astype(np.int32)


def _p86_wl_energy(spins):
    """The energies -sum over bonds s_i s_j of 8 x 8 periodic lattices (rows of 64 int8)."""
    s = np.asarray(spins, np.int64).reshape(-1, _P86_WL_L, _P86_WL_L)
    return -(s * (np.roll(s, -1, 1) + np.roll(s, -1, 2))).sum(axis=(1, 2)).astype(np.int32)


def _p86_wl_lng():
    """A Wang-Landau run's ln g(E) after its first stages (float32, 65 bins E = -128 .. 128):
    the infinite-temperature Gaussian 64 ln 2 - E^2 / 256 (128 bonds of variance 1)."""
    E = np.arange(-128, 129, 4, dtype=np.float64)
    return (64 * np.log(2.0) - E * E / 256).astype(np.float32)


def _p86_wl_args(n, rng):
    """n walkers' 8 x 8 lattices (int8, walker-major), walker w's spins up w.p. p_w uniform
    in 0.5 .. 0.9 (energies from ~0 down to ~-100), their energies (int32), ln g
    (_p86_wl_lng), the histogram (65 uint32, zeroed); steps, seed, n."""
    p = rng.uniform(0.5, 0.9, (n, 1))
    spins = np.where(rng.random((n, _P86_WL_L * _P86_WL_L)) < p, 1, -1).astype(np.int8)
    return [spins.ravel(), _p86_wl_energy(spins), _p86_wl_lng(), np.zeros(65, np.uint32), _i32(_P86_WL_STEPS),
            np.uint32(_P86_WL_SEED), _i32(n)]


def _p86_wl_ref(spins, energy, lng, steps=_P86_WL_STEPS, seed=_P86_WL_SEED):
    """wang_landau_ising8's walks (float32 ln g differences as the kernel takes them):
    spins, energies, the histogram and the smallest |u - exp(dl)| of a test with dl < 0."""
    s = np.array(spins, np.int64).reshape(-1, 64)
    n = len(s)
    E = np.array(energy, np.int64)
    lng = np.asarray(lng, np.float32)
    st = _p86_hash(np.uint32(seed) + np.arange(n, dtype=np.uint32)) | np.uint32(1)
    hist = np.zeros(65, np.int64)
    rows = np.arange(n)
    gap = np.inf
    for _ in range(int(steps)):
        st = _p86_xorshift(st)
        k = (st >> np.uint32(26)).astype(np.int64)
        x, y = k % 8, k // 8
        nb = (s[rows, y * 8 + (x + 1) % 8] + s[rows, y * 8 + (x + 7) % 8] + s[rows, ((y + 1) % 8) * 8 + x] +
              s[rows, ((y + 7) % 8) * 8 + x])
        En = E + 2 * s[rows, k] * nb
        st = _p86_xorshift(st)
        u = _p86_unif(st)
        dl = lng[(E + 128) // 4] - lng[(En + 128) // 4]
        p = np.exp(dl.astype(np.float64))
        dn = dl < 0
        if dn.any():
            gap = min(gap, np.abs(u - p)[dn].min())
        acc = (dl >= 0) | (u < p)
        s[rows[acc], k[acc]] *= -1
        E = np.where(acc, En, E)
        hist += np.bincount((E + 128) // 4, minlength=65)
    return s.astype(np.int8).ravel(), E.astype(np.int32), hist.astype(np.uint32), gap


def _p86_onsager_m(beta):
    """The 2D Ising model's spontaneous magnetization (Onsager-Yang; 0 above T_c)."""
    b = np.asarray(beta, np.float64)
    return np.where(b > 0.5 * np.log(1 + np.sqrt(2)), np.abs(1 - np.sinh(2 * b) ** -4.0) ** 0.125, 0.0)


def _p86_pt_args(n, rng):
    """n replicas of a _P86_PT_L^2 Ising lattice (int32 spins, replica-major), replica r at
    beta linear in _P86_PT_BETA, its spins up independently w.p. (1 + m(beta)) / 2 with m
    Onsager's magnetization (0 above T_c, ~0.99 at 0.6); E and M (zeroed); L."""
    L = _P86_PT_L
    m = _p86_onsager_m(np.linspace(*_P86_PT_BETA, n))
    thr = np.round((1 + m) / 2 * 65536).astype(np.int64)[:, None]
    up = rng.integers(0, 65536, (n, L * L), dtype=np.uint16) < thr
    spin = np.where(up, np.int32(1), np.int32(-1)).astype(np.int32)
    return [spin.ravel(), np.zeros(n, np.int32), np.zeros(n, np.int32), _i32(L)]


def _p86_pt_ref(spin, L=_P86_PT_L):
    """pt_energy_reduce's E and M of each replica."""
    L = int(L)
    s = np.asarray(spin, np.int64).reshape(-1, L, L)
    E = -(s * (np.roll(s, -1, 2) + np.roll(s, -1, 1))).sum(axis=(1, 2))
    return E.astype(np.int32), s.sum(axis=(1, 2)).astype(np.int32)


UNSEEN84 = [
    TimingProbe("probe/ising2d-philox-checker", "probe-unseen84", "ising2d_philox", _P86_IS_L, (32, 8),
                lambda n: (-(-(n // 2) // 32), -(-n // 8)), _p86_ising_args, source=_P86,
                note="one checkerboard Metropolis half-sweep of an 8192^2 2D Ising lattice of int8 spins (domains of "
                     "8x8 with 15% flipped, beta_c, h 0.05), a thread a site of the colour (2^25 threads, 32 x 8 "
                     "blocks): 5 byte loads (centre and 4 periodic neighbours by %, a warp's lanes 2 bytes apart), "
                     "a hand-written Philox-2x32-10 (10 rounds of __umulhi, mul, xors) and an expf a site, a byte "
                     "store where the flip is accepted (~36% of the colour's sites); integer-compute bound"),
    TimingProbe("probe/potts3d-xorshift-state", "probe-unseen84", "potts3d_metropolis", _P86_PO_L, 256,
                lambda n: -(-(n // 2 * n * n) // 256), _p86_potts_args, source=_P86,
                note="one checkerboard Metropolis half-sweep of a 320^3 q=4 Potts model (uint8 states, hot start, "
                     "beta 0.6), a thread a site of one parity from a flat index split by / and % (4 run-time "
                     "integer divisions): 7 byte loads (6 periodic neighbours, +-L^2 = 100 KiB apart), the site's "
                     "xorshift32 state loaded and stored (L^3 words indexed by site: half of every sector used), 2 "
                     "xorshifts, a % 3, a 6-neighbour count and an expf; memory-bound"),
    TimingProbe("probe/photon-slab-hg", "probe-unseen84", "photon_slab", _P86_PH_N, 256, lambda n: -(-n // 256),
                _p86_photon_args, source=_P86,
                note="photon transport through a 1 mm slab (mu_a 0.1, mu_s 10 /mm, Henyey-Greenstein g 0.9), a "
                     "thread a photon of 2^22 until it is reflected, transmitted or absorbed: each free path 4 "
                     "xorshift32s, a logf, a division, 2 sqrtf, a cosf; the trip count geometric-like (mean ~17, "
                     "a warp's slowest lane ~57, max ~170): divergent; one atomicAdd a photon at the end, on 2 "
                     "tally words (~80% of photons) or a 64-bin depth histogram"),
    TimingProbe("probe/walk-porous-blocked", "probe-unseen84", "walk_porous", 1 << 20, 256, lambda n: -(-n // 256),
                _p86_walk_args, source=_P86,
                note="2^20 random walkers on a 2048^2 site-percolation grid (uint8, 70% open, 4 MiB: L2-resident), "
                     "a thread a walker, 256 moves each a xorshift32, a 4-way if/else chain on the direction "
                     "(divergent), bounds tests and a byte gather of the target site (walkers scattered: a sector "
                     "a lane); ~30% of moves refused; positions loaded once, stored once"),
    TimingProbe("probe/wang-landau-ising8", "probe-unseen84", "wang_landau_ising8", 1 << 18, _P86_WL_BLOCK,
                lambda n: -(-n // _P86_WL_BLOCK), _p86_wl_args, source=_P86,
                note="multiple-walker Wang-Landau on 2^18 8x8 periodic Ising lattices, a thread a walker (blocks of "
                     "128): the walker's 64 spins copied into a local char array (64 byte loads, walker-major: "
                     "lanes 64 B apart), 256 flips each 2 xorshift32s, 5 local-memory loads at a random site, 2 "
                     "shared ln g reads, an expf and a shared-memory atomicAdd on a 65-bin histogram (visits "
                     "spread over ~40 bins, at most ~6% in one); the spins stored back, the block's bins added "
                     "to global memory"),
    TimingProbe("probe/pt-energy-reduce", "probe-unseen84", "pt_energy_reduce", 4096, 256, lambda n: n,
                _p86_pt_args, source=_P86,
                note="parallel-tempering measurement on 4096 replicas of a 128^2 Ising lattice of int32 spins (256 "
                     "MiB), a block of 256 a replica: each thread 64 sites (coalesced), the right and down neighbours "
                     "by % L and / L (the down row re-read through the cache), E and M in registers, then a "
                     "shared-memory tree reduction of two ints with __syncthreads each level; memory-bound"),
]
PROBES += UNSEEN84


# probe-unseen86 (probes88.cu): a radio-astronomy instrumentation course's kernels (a
# polyphase filter bank's FIR front end on 8-bit ADC samples, an FX correlator's X engine
# in shared memory, brute-force incoherent dedispersion of an 8-bit filterbank,
# visibility gridding with a convolution function and float atomicAdd, per-channel
# mean/sigma RFI flagging with block reductions, a phase-shift tied-array beamformer with
# sincosf) as a student who knows CUDA basics writes them
_P88 = "probes88.cu"
_P88_PFB_TAPS, _P88_PFB_NCHAN = 8, 4096      # pfb-fir: PFB_TAPS; channels (n = nchan x nspec outputs)
_P88_PFB_SIGMA = 12.0                        # the ADC noise's rms (counts)
_P88_PFB_TONE = (1000 / 4096, 20.0)          # a sine tone: frequency (cycles a sample: period 4096), amplitude
_P88_XM_NANT, _P88_XM_TCHUNK = 64, 32        # fx-xmac: XM_NANT, XM_TCHUNK
_P88_XM_NBL, _P88_XM_BLOCK = 2080, 256       # XM_NBL (the autos included); threads a block (a thread a baseline)
_P88_XM_NTIME = 128                          # time samples integrated (n = channels, blockIdx.y)
_P88_XM_SNR = 0.25                           # the sky signal's power over each antenna's noise power (1)
_P88_DD_NCHAN = 256                          # dedisperse: channels of the filterbank
_P88_DD_FTOP, _P88_DD_BW = 1500.0, 300.0     # the band (MHz): channel c centred at ftop - (c + 1/2) bw / nchan
_P88_DD_TSAMP, _P88_DD_DDM = 64e-6, 1.0      # sample time (s), DM step (pc cm^-3); trial d has DM d x ddm
_P88_DD_KDM = 4148.808                       # the dispersion constant (s MHz^2 cm^3 pc^-1)
_P88_DD_MEAN, _P88_DD_SIGMA = 96.0, 12.0     # the 8-bit samples' level and rms (times a bandpass gain)
_P88_DD_PULSE = (0.45, 40.0, 3)              # a dispersed pulse: DM (a fraction of the trials), amplitude, width
_P88_GV_NANT, _P88_GV_RMAX = 64, 4000.0      # grid-vis: antennas within this radius (m), r = RMAX u^2 (a core)
_P88_GV_LAT, _P88_GV_DEC, _P88_GV_HA = -30.7, -45.0, 4.0   # latitude, declination (deg), hour angles +- (h)
_P88_GV_LAMBDA = 0.21                        # the wavelength (m)
_P88_GV_GSIZE, _P88_GV_SUP, _P88_GV_OVER = 2048, 7, 8    # the uv grid's side, GRID_SUP, GRID_OVER
_P88_GV_SRC, _P88_GV_NOISE = (0.002, -0.001), 0.5        # a 1 Jy point source at (l, m); the noise's rms a part
_P88_RFI_NT, _P88_RFI_THRESH = 8192, 5.0     # rfi-flag: time samples a channel (n = nchan x ntime); thresh (sigma)
_P88_RFI_NINT = 64                           # the power's integrations: sigma = mean / sqrt(64)
_P88_RFI_BURSTS = 4                          # broadband bursts (2 .. 8 samples of +12 sigma in every channel)
_P88_RFI_NB, _P88_RFI_CW = 0.01, 0.005       # fractions of channels with intermittent / constant narrowband RFI
_P88_BF_NANT, _P88_BF_NBEAM, _P88_BF_NTIME = 64, 64, 256   # beamform: BF_NANT, beams (8 x 8), samples (a block)
_P88_BF_F0, _P88_BF_DF = 1.35e9, 0.78125e6   # channel c at F0 + c DF (Hz)
_P88_BF_RMAX, _P88_BF_STEP = 1500.0, 1.0e-4  # the station's radius (m); the beams' spacing (rad)
_P88_BF_SRC, _P88_BF_SNR = 27, 0.1           # a source centred on this beam, its power over the antennas' noise


def _p88_pfb_coeffs(nchan=_P88_PFB_NCHAN):
    """The prototype filter: a Hann-windowed sinc over PFB_TAPS x nchan taps (float32,
    h[p nchan + c])."""
    L = _P88_PFB_TAPS * nchan
    k = np.arange(L)
    return (np.sinc((k - L / 2 + 0.5) / nchan) * np.hanning(L)).astype(np.float32)


def _p88_pfb_args(n, rng, nchan=None):
    """8-bit ADC samples ((nspec + PFB_TAPS - 1) nchan int8: Gaussian noise of rms
    _P88_PFB_SIGMA plus a sine tone, rounded and clipped), the coefficients, y (zeroed),
    nchan, nspec (n = nchan nspec)."""
    nchan = nchan or _P88_PFB_NCHAN
    nspec = n // nchan
    L = (nspec + _P88_PFB_TAPS - 1) * nchan
    f, a = _P88_PFB_TONE
    x = rng.standard_normal(L, dtype=np.float32) * np.float32(_P88_PFB_SIGMA)
    x += np.resize((a * np.sin(2 * np.pi * f * np.arange(4096))).astype(np.float32), L)     # periodic
    x = np.clip(np.rint(x), -128, 127).astype(np.int8)
    return [x, _p88_pfb_coeffs(nchan), np.zeros(nchan * nspec, np.float32), _i32(nchan), _i32(nspec)]


def _p88_pfb_ref(x, h, nchan, nspec):
    """pfb_fir's outputs in float64 (nspec x nchan)."""
    X = np.asarray(x, np.float64)[:(nspec + _P88_PFB_TAPS - 1) * nchan].reshape(-1, nchan)
    H = np.asarray(h, np.float64).reshape(_P88_PFB_TAPS, nchan)
    return sum(H[p] * X[p:p + nspec] for p in range(_P88_PFB_TAPS))


def _p88_xm_tables():
    """The baselines (i <= j, row by row): ant1, ant2 (int32, XM_NBL each)."""
    i, j = np.triu_indices(_P88_XM_NANT)
    return i.astype(np.int32), j.astype(np.int32)


def _p88_xm_args(n, rng, ntime=_P88_XM_NTIME):
    """Channelized voltages V[t][chan][ant] (complex64 as float pairs) of n channels: unit
    complex noise an antenna plus a common sky signal of power _P88_XM_SNR times a gain
    (0.9 .. 1.1) and a delay phase 2 pi tau_a c / n per antenna; ant1, ant2; vis (zeroed,
    n x XM_NBL pairs); nchan, ntime."""
    na = _P88_XM_NANT
    c64 = np.complex64
    s = (rng.standard_normal((ntime, n, 1), np.float32) + 1j * rng.standard_normal((ntime, n, 1), np.float32))
    s *= np.float32(np.sqrt(_P88_XM_SNR / 2))
    g = rng.uniform(0.9, 1.1, na)
    tau = rng.uniform(-8, 8, na)
    ph = (g * np.exp(2j * np.pi * np.outer(np.arange(n), tau) / n)).astype(c64)       # n x na
    V = (rng.standard_normal((ntime, n, na), np.float32) + 1j * rng.standard_normal((ntime, n, na), np.float32))
    V *= np.float32(np.sqrt(0.5))
    V += s.astype(c64) * ph[None]
    V = V.astype(c64)
    a1, a2 = _p88_xm_tables()
    return [V.view(np.float32).ravel(), a1, a2, np.zeros(2 * n * len(a1), np.float32), _i32(n), _i32(ntime)]


def _p88_xm_ref(V, nchan, ntime):
    """fx_xmac's visibilities (complex128, nchan x XM_NBL)."""
    Vc = np.asarray(V, np.float32).view(np.complex64).reshape(ntime, nchan, _P88_XM_NANT).astype(np.complex128)
    a1, a2 = _p88_xm_tables()
    return np.einsum("tcb,tcb->cb", Vc[:, :, a1], np.conj(Vc[:, :, a2]))


def _p88_dd_shape(n):
    """n = ndm x nout with nout = 32 ndm: (ndm, nout)."""
    ndm = int(np.sqrt(n // 32) + 0.5)
    assert 32 * ndm * ndm == n, n
    return ndm, 32 * ndm


def _p88_dd_delays(ndm, nchan=_P88_DD_NCHAN):
    """delay[d][c] in samples (int32): K DM_d (f_c^-2 - f_0^-2) / tsamp rounded, f_c the
    channels' centres (channel 0 the highest, delay 0)."""
    f = _P88_DD_FTOP - (np.arange(nchan) + 0.5) * _P88_DD_BW / nchan
    dm = np.arange(ndm) * _P88_DD_DDM
    return np.rint(_P88_DD_KDM * np.outer(dm, f ** -2.0 - f[0] ** -2.0) / _P88_DD_TSAMP).astype(np.int32)


def _p88_dd_args(n, rng, nchan=_P88_DD_NCHAN):
    """An 8-bit filterbank fb[chan][time] (uint8, nin = nout + the largest delay samples):
    Gaussian noise of level _P88_DD_MEAN and rms _P88_DD_SIGMA times a bandpass gain (0.7 ..
    1.3, smooth), a boxcar pulse of _P88_DD_PULSE's amplitude and width dispersed at trial
    round(0.45 ndm)'s delays arriving (channel 0) at nout / 3; the delays (ndm x nchan,
    int32); out (zeroed, ndm x nout); nchan, nin, nout."""
    ndm, nout = _p88_dd_shape(n)
    delay = _p88_dd_delays(ndm, nchan)
    nin = nout + int(delay.max())
    gain = 1.0 + 0.3 * np.sin(np.linspace(0, 3 * np.pi, nchan))[:, None]
    fb = rng.standard_normal((nchan, nin), np.float32) * _P88_DD_SIGMA + _P88_DD_MEAN
    fb *= gain.astype(np.float32)
    frac, amp, width = _P88_DD_PULSE
    dp = int(round(frac * ndm))
    t0 = nout // 3
    for c in range(nchan):
        fb[c, t0 + delay[dp, c]:t0 + delay[dp, c] + width] += amp
    fb = np.clip(np.rint(fb), 0, 255).astype(np.uint8)
    return [fb.ravel(), delay.ravel(), np.zeros(ndm * nout, np.float32), _i32(nchan), _i32(nin), _i32(nout)]


def _p88_dd_ref(fb, delay, nchan, nin, nout):
    """dedisperse's outputs (float64, ndm x nout; integer sums, exact)."""
    F = np.asarray(fb, np.float64).reshape(nchan, nin)
    D = np.asarray(delay).reshape(-1, nchan)
    t = np.arange(nout)
    return np.stack([F[np.arange(nchan)[:, None], t[None, :] + D[d][:, None]].sum(axis=0) for d in range(len(D))])


def _p88_gcf():
    """grid_vis's convolution function, exp(-(|x| / 2.52)^2) sinc(x / 1.55), at x = k /
    GRID_OVER - (GRID_SUP / 2 + 1), k = 0 .. (GRID_SUP + 1) GRID_OVER (float32)."""
    x = np.arange((_P88_GV_SUP + 1) * _P88_GV_OVER + 1) / _P88_GV_OVER - (_P88_GV_SUP // 2 + 1)
    return (np.exp(-(np.abs(x) / 2.52) ** 2) * np.sinc(x / 1.55)).astype(np.float32)


def _p88_gv_uv(n, rng):
    """u, v (float64, wavelengths) of n visibilities, time-major (visibility i: baseline i %
    nbl, time i // nbl) of _P88_GV_NANT antennas (a core-heavy random layout) tracking a
    source at _P88_GV_DEC from hour angle -_P88_GV_HA to +_P88_GV_HA."""
    na = _P88_GV_NANT
    r = _P88_GV_RMAX * rng.random(na) ** 2
    th = rng.uniform(0, 2 * np.pi, na)
    E, N = r * np.cos(th), r * np.sin(th)
    lat, dec = np.radians(_P88_GV_LAT), np.radians(_P88_GV_DEC)
    X, Y, Z = -np.sin(lat) * N, E, np.cos(lat) * N
    i, j = np.triu_indices(na, 1)
    nbl = len(i)
    bx, by, bz = X[j] - X[i], Y[j] - Y[i], Z[j] - Z[i]
    ntimes = -(-n // nbl)
    H = np.radians(15 * _P88_GV_HA) * np.linspace(-1, 1, max(ntimes, 2))[:ntimes]
    k = np.arange(n)
    h, b = H[k // nbl], k % nbl
    u = (np.sin(h) * bx[b] + np.cos(h) * by[b]) / _P88_GV_LAMBDA
    v = (-np.sin(dec) * np.cos(h) * bx[b] + np.sin(dec) * np.sin(h) * by[b] + np.cos(dec) * bz[b]) / _P88_GV_LAMBDA
    return u, v


def _p88_gv_args(n, rng, gsize=_P88_GV_GSIZE):
    """u, v (float32), the visibilities (a 1 Jy point source at _P88_GV_SRC plus complex
    noise, float pairs), weights (uniform 0.5 .. 1.5), the convolution function, the grid
    (zeroed, gsize^2 pairs), 1 / du (the longest possible baseline 16 cells inside the
    edge), gsize, n."""
    u, v = _p88_gv_uv(n, rng)
    l0, m0 = _P88_GV_SRC
    vis = np.exp(-2j * np.pi * (u * l0 + v * m0)) + _P88_GV_NOISE * (rng.standard_normal(n) +
                                                                     1j * rng.standard_normal(n))
    wt = rng.uniform(0.5, 1.5, n).astype(np.float32)
    du = 2 * _P88_GV_RMAX / _P88_GV_LAMBDA / (gsize // 2 - 16)
    return [u.astype(np.float32), v.astype(np.float32), vis.astype(np.complex64).view(np.float32), wt, _p88_gcf(),
            np.zeros(2 * gsize * gsize, np.float32), np.float32(1 / du), _i32(gsize), _i32(n)]


def _p88_gv_cells(u, v, inv_du, gsize):
    """grid_vis's nearest cells and oversampled offsets (iu, iv, fu, fv, int64), the
    fused u * inv_du + gsize / 2 rounded once to float32 (ties to even, as rintf), and the
    mask of those whose footprint is on the grid."""
    inv, g2 = np.float64(np.float32(inv_du)), np.float64(gsize // 2)
    out = []
    for w in (u, v):
        g = (np.asarray(w, np.float32).astype(np.float64) * inv + g2).astype(np.float32)
        i = np.rint(g).astype(np.int64)
        fr = (g - i.astype(np.float32)) * np.float32(_P88_GV_OVER)
        f = np.rint(fr).astype(np.int64)
        out += [i, f]
    iu, fu, iv, fv = out
    h = _P88_GV_SUP // 2
    on = (iu - h >= 0) & (iu + h < gsize) & (iv - h >= 0) & (iv + h < gsize)
    return iu, iv, fu, fv, on


def _p88_gv_ref(u, v, vis, wt, inv_du, gsize):
    """grid_vis's grid (complex128, gsize x gsize) and the on-grid mask."""
    iu, iv, fu, fv, on = _p88_gv_cells(u, v, inv_du, gsize)
    c = _p88_gcf().astype(np.float64)
    val = np.asarray(vis, np.float32).view(np.complex64).astype(np.complex128) * np.asarray(wt, np.float64)
    G = np.zeros(gsize * gsize, np.complex128)
    h, O = _P88_GV_SUP // 2, _P88_GV_OVER
    k = np.flatnonzero(on)
    for dy in range(-h, h + 1):
        for dx in range(-h, h + 1):
            kern = c[(dx + h + 1) * O - fu[k]] * c[(dy + h + 1) * O - fv[k]]
            np.add.at(G, (iv[k] + dy) * gsize + iu[k] + dx, kern * val[k])
    return G.reshape(gsize, gsize), on


def _p88_rfi_args(n, rng, ntime=_P88_RFI_NT):
    """Detected power data[chan][time] (float32, n // ntime channels): a smooth bandpass
    mean (60 .. 140) with Gaussian noise of rms mean / sqrt(_P88_RFI_NINT); _P88_RFI_BURSTS
    broadband bursts (2 .. 8 samples, +12 sigma in every channel), intermittent narrowband
    RFI in a fraction _P88_RFI_NB of the channels (on 3% of the samples in runs of ~16, +10
    .. +30 sigma) and constant narrowband RFI (+50 sigma) in a fraction _P88_RFI_CW; the
    flags (zeroed, uint8), the counts (zeroed, int32 a channel), ntime, thresh."""
    nchan = n // ntime
    c = (np.arange(nchan) + 0.5) / nchan
    mean = 60 + 80 * np.sin(np.pi * c) ** 0.5 * (1 + 0.05 * np.sin(40 * np.pi * c))
    sig = mean / np.sqrt(_P88_RFI_NINT)
    d = rng.standard_normal((nchan, ntime), np.float32)
    for _ in range(_P88_RFI_BURSTS):
        t0, w = int(rng.integers(0, ntime - 8)), int(rng.integers(2, 9))
        d[:, t0:t0 + w] += 12
    ch = rng.permutation(nchan)
    nnb, ncw = max(1, round(_P88_RFI_NB * nchan)), max(1, round(_P88_RFI_CW * nchan))
    for k in ch[:nnb]:
        on = np.repeat(rng.random(ntime // 16 + 1) < 0.03, 16)[:ntime]
        d[k, on] += rng.uniform(10, 30, on.sum()).astype(np.float32)
    d[ch[nnb:nnb + ncw]] += 50
    d *= sig[:, None].astype(np.float32)
    d += mean[:, None].astype(np.float32)
    return [d.ravel(), np.zeros(nchan * ntime, np.uint8), np.zeros(nchan, np.int32), _i32(ntime),
            np.float32(_P88_RFI_THRESH)]


def _p88_rfi_ref(data, ntime, thresh=_P88_RFI_THRESH):
    """rfi_flag in float64: the data after (flagged samples the mean), the flags (uint8),
    the counts, and the smallest |(|x - mean| - thresh sigma)| / sigma of any sample."""
    X = np.asarray(data, np.float64).reshape(-1, ntime)
    m = X.mean(axis=1, keepdims=True)
    s = np.sqrt((X * X).mean(axis=1, keepdims=True) - m * m)
    z = np.abs(X - m) - thresh * s
    f = z > 0
    return np.where(f, m, X).ravel(), f.astype(np.uint8).ravel(), f.sum(axis=1), (np.abs(z) / s).min()


def _p88_bf_ants(rng):
    """The station's antenna positions (float32 x, y in metres), uniform in a disc of
    _P88_BF_RMAX: drawn from their own fixed seed."""
    r = np.random.default_rng(8686)
    rad = _P88_BF_RMAX * np.sqrt(r.random(_P88_BF_NANT))
    th = r.uniform(0, 2 * np.pi, _P88_BF_NANT)
    return (rad * np.cos(th)).astype(np.float32), (rad * np.sin(th)).astype(np.float32)


def _p88_bf_syms(n, rng):
    x, y = _p88_bf_ants(rng)
    return {"c_ant_x": x, "c_ant_y": y}


def _p88_bf_beams():
    """An 8 x 8 grid of beam directions (l, m) _P88_BF_STEP apart, centred (float32)."""
    k = (np.arange(8) - 3.5) * _P88_BF_STEP
    L, M = np.meshgrid(k, k)
    return L.ravel().astype(np.float32), M.ravel().astype(np.float32)


def _p88_bf_args(n, rng, ntime=_P88_BF_NTIME):
    """Voltages V[chan][ant][time] (complex64 as float pairs; n // (NBEAM NTIME) channels):
    unit complex noise an antenna plus a signal of power _P88_BF_SNR from beam _P88_BF_SRC's
    direction (phase exp(-i k (x l + y m)) an antenna); the channels' frequencies, the beams'
    l and m (float32); power (zeroed, nbeam x nchan x ntime); nchan, ntime."""
    nchan = n // (_P88_BF_NBEAM * _P88_BF_NTIME)
    ax, ay = (a.astype(np.float64) for a in _p88_bf_ants(rng))
    bl, bm = _p88_bf_beams()
    freq = (_P88_BF_F0 + np.arange(nchan) * _P88_BF_DF).astype(np.float32)
    k = 2 * np.pi * freq.astype(np.float64) / 299792458.0
    l0, m0 = float(bl[_P88_BF_SRC]), float(bm[_P88_BF_SRC])
    ph = np.exp(-1j * k[:, None] * (ax * l0 + ay * m0)[None, :])                           # nchan x nant
    s = rng.standard_normal((nchan, 1, ntime)) + 1j * rng.standard_normal((nchan, 1, ntime))
    s *= np.sqrt(_P88_BF_SNR / 2)
    V = (rng.standard_normal((nchan, _P88_BF_NANT, ntime)) +
         1j * rng.standard_normal((nchan, _P88_BF_NANT, ntime))) * np.sqrt(0.5) + s * ph[:, :, None]
    return [V.astype(np.complex64).view(np.float32).ravel(), freq, bl, bm,
            np.zeros(_P88_BF_NBEAM * nchan * ntime, np.float32), _i32(nchan), _i32(ntime)]


def _p88_bf_ref(V, freq, bl, bm, nchan, ntime, ants=None):
    """beamform's powers in float64 (nbeam x nchan x ntime)."""
    ax, ay = (a.astype(np.float64) for a in (ants or _p88_bf_ants(None)))
    Vc = np.asarray(V, np.float32).view(np.complex64).reshape(nchan, _P88_BF_NANT, ntime).astype(np.complex128)
    k = 2 * np.pi * np.asarray(freq, np.float64) / 299792458.0
    ph = np.exp(1j * k[None, :, None] * (np.outer(np.asarray(bl, np.float64), ax) +
                                         np.outer(np.asarray(bm, np.float64), ay))[:, None, :])   # beam x chan x ant
    B = np.einsum("bca,cat->bct", ph, Vc)
    return np.abs(B) ** 2


UNSEEN86 = [
    TimingProbe("probe/pfb-fir-int8", "probe-unseen86", "pfb_fir", 1 << 26, 256, lambda n: -(-n // 256),
                _p88_pfb_args, source=_P88,
                note="a polyphase filter bank's FIR front end on 2^26 outputs (4096 channels x 16384 spectra) of 8-bit "
                     "real ADC samples (Gaussian noise, rms 12 counts, plus a tone), a thread an output: 8 taps each a "
                     "coalesced float coefficient load (h: 128 KB, L1/L2-resident) and a coalesced int8 load 4096 "
                     "bytes apart (each sample read by 8 threads of different spectra: L2 hits), an int division and "
                     "modulo for (s, c), one coalesced float store; memory-bound (67 MB in, 268 MB out)"),
    TimingProbe("probe/fx-xmac-smem", "probe-unseen86", "fx_xmac", 2048, _P88_XM_BLOCK,
                lambda n: (-(-_P88_XM_NBL // _P88_XM_BLOCK), n), _p88_xm_args, source=_P88,
                note="an FX correlator's X engine for 64 antennas (2080 baselines with the autos) on 2048 channels x "
                     "128 time samples of complex64 voltages V[t][chan][ant] (134 MB), a thread a baseline (grid 9 x "
                     "2048, the 9th block of a channel 1/8 busy), blockIdx.y the channel: 4 chunks of 32 samples x "
                     "64 antennas staged in 16 KB of shared memory by each of a channel's 9 blocks (512-byte "
                     "coalesced runs, 8 loads a thread; the other 8 blocks' copies L2 hits), 2 barriers a chunk, "
                     "then 32 iterations of 2 LDS.64 (a warp's antenna i one or a few: broadcasts; j consecutive) "
                     "and 4 FMAs; shared-load/FMA-bound, one coalesced 8-byte store a thread"),
    TimingProbe("probe/dedisp-bruteforce-u8", "probe-unseen86", "dedisperse", 1 << 21, 256,
                lambda n: (-(-_p88_dd_shape(n)[1] // 256), _p88_dd_shape(n)[0]), _p88_dd_args, source=_P88,
                note="brute-force incoherent dedispersion of an 8-bit filterbank (256 channels, 1200-1500 MHz, 64 us "
                     "samples, 12.3k samples: 3.2 MB, L2-resident) for 256 DM trials (0 .. 255 pc cm^-3, delays up "
                     "to 4.1k samples) x 8192 output samples, a thread an output: 256 channel iterations of a "
                     "uniform delay-table load (a row a DM trial) and a byte load at time t + delay (a warp's 32 "
                     "bytes contiguous, misaligned by the delay), converted and summed in float; L1/L2-bound with "
                     "heavy reuse across trials"),
    TimingProbe("probe/uv-grid-atomic", "probe-unseen86", "grid_vis", 1 << 19, 256, lambda n: -(-n // 256),
                _p88_gv_args, source=_P88,
                note="gridding 2^19 visibilities (64 antennas, core-heavy layout, an 8-hour track, time-major: a "
                     "warp's lanes different baselines) onto a 2048 x 2048 complex64 uv grid (32 MB), a thread a "
                     "visibility: u, v, vis, weight loads, rintf cell and oversampled offset, then a 7 x 7 footprint "
                     "of gathered tabulated convolution weights and 98 float atomicAdds (real and imaginary parts "
                     "of each cell; results unused) scattered by baseline, the short baselines piling onto the "
                     "grid's central cells (contention); atomic-bound"),
    TimingProbe("probe/rfi-flag-sigma", "probe-unseen86", "rfi_flag", 1 << 26, 256,
                lambda n: n // _P88_RFI_NT, _p88_rfi_args, source=_P88,
                note="per-channel mean/sigma RFI flagging of 8192 channels x 8192 float power samples (268 MB; "
                     "broadband bursts, intermittent and constant narrowband RFI, ~0.2% flagged), a block of 256 a "
                     "channel: a coalesced strided pass (32 trips) summing x and x^2, a 2-array shared-memory tree "
                     "reduction (8 levels, a barrier each), sqrtf, then a second pass re-reading the channel's 32 KB "
                     "(L1/L2 hits in part) with a data-dependent branch (flagged: the mean stored back) and a byte "
                     "flag store a sample, a shared atomicAdd from the threads that flagged any and one count a "
                     "block; memory-bound"),
    TimingProbe("probe/beamform-sincos", "probe-unseen86", "beamform", 1 << 20, _P88_BF_NTIME,
                lambda n: (1, n // (_P88_BF_NBEAM * _P88_BF_NTIME), _P88_BF_NBEAM), _p88_bf_args, source=_P88,
                symbols=_p88_bf_syms,
                note="a phase-shift tied-array beamformer: 64 beams x 64 channels x 256 samples (2^20 outputs) from "
                     "64 antennas' complex64 voltages V[chan][ant][time] (8 MB, read once a beam: L2 hits), a thread "
                     "an output (grid 1 x 64 x 64): 64 antenna iterations of two uniform __constant__ loads, a "
                     "float sincosf of a phase up to ~20 rad (fast path), a coalesced 8-byte load and 4 FMAs, then "
                     "|B|^2 stored; compute-bound (sincosf's range reduction and polynomials)"),
]
PROBES += UNSEEN86


# probe-unseen85 (probes87.cu): a computer-networking / packet-processing course's kernels,
# a thread a packet: an IPv4 router's fast path (header checksum over IHL words read byte
# by byte, TTL decrement with RFC 1624's incremental checksum), longest-prefix match in a
# leaf-pushed 8-8-8-8 multibit trie (pointer chasing), first-match ACL classification
# against rules in __constant__ memory, the Toeplitz RSS hash a bit at a time with a
# shared-memory queue histogram, a count-min sketch of per-flow bytes (MurmurHash3 and
# global atomicAdds) and an Aho-Corasick IDS scan of payloads with the DFA in shared memory.
_P87 = "probes87.cu"
P87_SLOT = 64                                      # ipv4-forward: HDR_SLOT, bytes a header's slot
P87_OPT = 0.25                                     # headers with options: IHL 6 .. 15 uniform (else 5)
P87_BAD = 0.02                                     # headers with one bit flipped (a bad checksum)
P87_TTL1 = 0.01                                    # headers arriving with TTL 1 (expired here)
P87_TTL0 = ((64, 0.6), (128, 0.3), (255, 0.1))     # initial TTLs and their shares, minus 0 .. 24 hops
P87_TRIE_FAN, P87_TRIE_CHILD = 256, 0x80000000     # lpm-trie: TRIE_FANOUT, TRIE_CHILD
P87_PFX = 30000                                    # routes drawn (before removing duplicates)
P87_PFX_NESTED = 0.25                              # of them more-specifics (at most /24) of another route
P87_PFX_LEN = {8: 0.003, 12: 0.005, 13: 0.005, 14: 0.007, 15: 0.01, 16: 0.07, 17: 0.02, 18: 0.03, 19: 0.05,
               20: 0.06, 21: 0.05, 22: 0.1, 23: 0.08, 24: 0.49, 25: 0.004, 26: 0.004, 27: 0.004, 28: 0.003,
               29: 0.002, 30: 0.001, 32: 0.002}   # route lengths (a BGP table's shape: half /24s)
P87_HIT = 0.85                                     # lookups inside a random route (else uniform addresses)
P87_ACL_MAX, P87_ACL_RULES = 1024, 512             # acl: ACL_MAX_RULES; the rules (the last a catch-all)
P87_ACL_MIX = (0.6, 0.3, 0.1)                      # packets aimed at one of the first 32 rules, any rule, none
P87_ACL_PORTS = (22, 25, 53, 80, 123, 443, 993, 3306, 5432, 8080)   # the rules' well-known ports
P87_RSS_KEY = bytes.fromhex("6d5a56da255b0ec24167253d43a38fb0d0ca2bcbae7b30b477cb2da38030f20c6a42b73bbeac01fa")
P87_RSS_INDIR, P87_RSS_QUEUES = 128, 16            # rss: RSS_INDIR (entry k -> queue k % 16), RSS_QUEUES
P87_FLOWS, P87_ZIPF = 1 << 16, 1.1                 # traces: flows, Zipf exponent of their packet counts
P87_LENS = ((64, 0.45), (576, 0.1), (1500, 0.35))  # packet lengths (bytes), the rest uniform 65 .. 1499
P87_CMS_DEPTH, P87_CMS_WIDTH = 4, 65536            # cms: CMS_DEPTH rows of CMS_WIDTH counters
P87_CMS_SEEDS = (0x9747b28c, 0x3c6ef372, 0xa54ff53a, 0x510e527f)
P87_AC_MAX = 88                                    # ids: AC_MAX_STATES
P87_AC_PATTERNS = (b"/etc/passwd", b"cmd.exe", b"<script", b"UNION SELECT", b"/bin/sh", b"../../", b"wget ",
                   b"\x90" * 8, b"eval(", b"xp_cmdshell", b"%00", b"() {")   # signatures (bit k: pattern k)
P87_IDS_KINDS = (0.4, 0.5)                         # payloads: HTTP-like text, random bytes (TLS), the rest DNS-ish
P87_IDS_ATTACK = 0.03                              # payloads with one signature written in at random
P87_SNAP = 256                                     # ids: the capture's snap length (payload bytes kept)
P87_IDS_WORDS = ("GET ", "POST ", "HTTP/1.1\r\n", "Host: ", "www.example.com", "User-Agent: Mozilla/5.0 ",
                 "Accept: */*\r\n", "Cookie: session=", "Content-Length: ", "/index.html", "/images/",
                 "/etc/hosts", "/bin/", "select ", "UNION ", "<scr", "evaluate", "./", "cmd", "%20", "() ",
                 "application/json", "text/html; charset=utf-8", "\r\n", " ", "=", "&", "?id=", "0", "1",
                 "42", "abc", "the ", "and ", "login", "user", "password", "wgetrc", "exe", "ssh")


def _p87_fold(s):
    """The 16-bit one's-complement fold of sums s (int64 array)."""
    s = np.asarray(s, np.int64)
    while (s >> 16).any():
        s = (s & 0xffff) + (s >> 16)
    return s


def _p87_hdr_sum(h):
    """One's-complement sums (folded) of each header's IHL * 2 16-bit words (h: n x 64 uint8)."""
    s = np.zeros(len(h), np.int64)
    for a in range(0, len(h), 1 << 15):
        c = h[a:a + (1 << 15)]
        w = np.ascontiguousarray(c[:, :60]).view(">u2").astype(np.int32)
        s[a:a + len(c)] = (w * (np.arange(30) < 2 * (c[:, :1] & 15))).sum(axis=1)
    return _p87_fold(s)


def _p87_set_csum(h):
    """Write the header checksum (bytes 10-11) of every row of h."""
    h[:, 10:12] = 0
    c = 0xffff - _p87_hdr_sum(h)
    h[:, 10], h[:, 11] = c >> 8, c & 0xff


def _p87_ipv4_args(n, rng):
    """n IPv4 headers in 64-byte slots (uint8, n x 64 flat): version 4, IHL 5 (IHL 6 .. 15
    for a P87_OPT share, the option bytes random), TOS, total length, id, DF, TTL (an
    initial TTL of P87_TTL0 less 0 .. 24 hops; P87_TTL1 of them 1), protocol TCP/UDP/ICMP,
    random addresses, a correct checksum, then P87_BAD of them with one random bit of bytes
    1 .. IHL*4-1 flipped; the slot's bytes past the header random (a reused ring buffer);
    the status bytes (zeroed), n."""
    h = np.frombuffer(rng.bytes(n * P87_SLOT), np.uint8).reshape(n, P87_SLOT).copy()
    ihl = np.where(rng.random(n) < P87_OPT, rng.integers(6, 16, n), 5)
    h[:, 0] = 0x40 | ihl
    h[:, 1] = rng.choice([0, 0, 0, 0x10, 0xb8], n)
    tot = ihl * 4 + rng.choice([0, 32, 512, 1460], n, p=[0.4, 0.1, 0.1, 0.4])
    h[:, 2], h[:, 3] = tot >> 8, tot & 0xff
    h[:, 6] = np.where(rng.random(n) < 0.6, 0x40, 0)
    h[:, 7] = 0
    t0 = rng.choice([t for t, _ in P87_TTL0], n, p=[p for _, p in P87_TTL0])
    ttl = np.where(rng.random(n) < P87_TTL1, 1, t0 - rng.integers(0, 25, n))
    h[:, 8] = ttl
    h[:, 9] = rng.choice([6, 17, 1], n, p=[0.7, 0.25, 0.05])
    _p87_set_csum(h)
    bad = np.flatnonzero(rng.random(n) < P87_BAD)
    byte = 1 + (rng.random(len(bad)) * (ihl[bad] * 4 - 1)).astype(np.int64)
    h[bad, byte] ^= (1 << rng.integers(0, 8, len(bad))).astype(np.uint8)
    return [h.ravel(), np.zeros(n, np.uint8), _i32(n)]


def _p87_ipv4_ref(hdr):
    """ipv4_forward in numpy: the slots after (TTL less one and the checksum recomputed
    from scratch where forwarded) and the status (0 forwarded, 1 bad header, 2 TTL <= 1)."""
    h = np.array(hdr, np.uint8).reshape(-1, P87_SLOT)
    ok = (h[:, 0] >> 4 == 4) & ((h[:, 0] & 15) >= 5)
    ok &= _p87_hdr_sum(h) == 0xffff
    exp = ok & (h[:, 8] <= 1)
    fwd = ok & ~exp
    g = h[fwd].copy()
    g[:, 8] -= 1
    _p87_set_csum(g)
    h[fwd] = g
    return h.ravel(), np.where(fwd, 0, np.where(exp, 2, 1)).astype(np.uint8)


def _p87_routes():
    """The routing table (fixed, drawn once): P87_PFX routes in 160 random /8s (not 0, 10,
    127 or 224+), lengths from P87_PFX_LEN, P87_PFX_NESTED of them more-specifics (1 .. 8
    bits longer, at most /24) of another route of length <= 23; duplicates removed; next hops 1 .. 64.
    (lengths, prefixes, next hops), uint32 prefixes with their host bits zero."""
    global _P87_ROUTES
    if _P87_ROUTES is None:
        r = np.random.default_rng(8787)
        s8 = r.choice(np.setdiff1d(np.arange(1, 224), [10, 127]), 160, replace=False).astype(np.uint64)
        k = list(P87_PFX_LEN)
        pl = np.array(list(P87_PFX_LEN.values()))
        nb = int(P87_PFX * (1 - P87_PFX_NESTED))
        ln = r.choice(k, nb, p=pl / pl.sum()).astype(np.int64)
        a = (r.choice(s8, nb) << np.uint64(24)) | r.integers(0, 1 << 24, nb).astype(np.uint64)
        par = r.choice(np.flatnonzero(ln <= 23), P87_PFX - nb)
        ln2 = np.minimum(ln[par] + r.integers(1, 9, len(par)), 24)
        a2 = a[par] | (r.integers(0, 1 << 32, len(par)).astype(np.uint64)
                       & ((np.uint64(1) << (32 - ln[par]).astype(np.uint64)) - np.uint64(1)))
        ln, a = np.r_[ln, ln2], np.r_[a, a2]
        a = a & ~((np.uint64(1) << (32 - ln).astype(np.uint64)) - np.uint64(1)) & np.uint64(0xffffffff)
        key, first = np.unique((ln.astype(np.uint64) << np.uint64(32)) | a, return_index=True)
        ln, a = (key >> np.uint64(32)).astype(np.int64), (key & np.uint64(0xffffffff)).astype(np.uint32)
        nh = r.integers(1, 65, len(key)).astype(np.uint32)
        _P87_ROUTES = ln, a, nh
    return _P87_ROUTES


_P87_ROUTES = None
_P87_TRIE = None


def _p87_trie():
    """_p87_routes as a leaf-pushed 8-8-8-8 multibit trie (uint32, 256 entries a node, the
    root node 0): routes inserted shortest first, a route of length L in (8l, 8l + 8] filling
    2^(8l + 8 - L) entries of its level-l node with its next hop; a node made for a longer
    route starts as 256 copies of the entry it replaces (leaf pushing), the entry then
    TRIE_CHILD | its index."""
    global _P87_TRIE
    if _P87_TRIE is None:
        ln, a, nh = _p87_routes()
        nodes = [np.zeros(P87_TRIE_FAN, np.uint32)]
        for L, p, h in zip(ln.tolist(), a.tolist(), nh.tolist()):
            lv = (L - 1) // 8
            node = 0
            for d in range(lv):
                c = (p >> (24 - 8 * d)) & 0xff
                e = int(nodes[node][c])
                if not e & P87_TRIE_CHILD:
                    nodes.append(np.full(P87_TRIE_FAN, e, np.uint32))
                    e = P87_TRIE_CHILD | (len(nodes) - 1)
                    nodes[node][c] = e
                node = e & ~P87_TRIE_CHILD
            c = (p >> (24 - 8 * lv)) & 0xff
            span = nodes[node][c:c + (1 << (8 * lv + 8 - L))]
            assert not (span & P87_TRIE_CHILD).any()
            span[:] = h
        _P87_TRIE = np.concatenate(nodes)
    return _P87_TRIE


def _p87_lpm_args(n, rng):
    """The trie (_p87_trie), n destination addresses (uint32: P87_HIT of them a random
    route's prefix with random host bits, the rest uniform), the next hops (zeroed), n."""
    ln, a, nh = _p87_routes()
    k = rng.integers(0, len(ln), n)
    host = rng.integers(0, 1 << 32, n, dtype=np.uint64)
    hm = (np.uint64(1) << (32 - ln[k]).astype(np.uint64)) - np.uint64(1)
    hit = (a[k].astype(np.uint64) | (host & hm)).astype(np.uint32)
    addr = np.where(rng.random(n) < P87_HIT, hit, _u32(n, rng))
    return [_p87_trie(), addr, np.zeros(n, np.uint32), _i32(n)]


def _p87_lpm_ref(addr):
    """Longest-prefix match of addr against _p87_routes by length, longest first (not the
    trie): the next hops (0 if none) and the matching route's length (-1 if none)."""
    ln, a, nh = _p87_routes()
    addr = np.asarray(addr, np.uint32).astype(np.uint64)
    out = np.zeros(len(addr), np.uint32)
    mlen = np.full(len(addr), -1)
    for L in range(32, -1, -1):
        sel = np.flatnonzero(ln == L)
        if not len(sel):
            continue
        todo = np.flatnonzero(mlen < 0)
        key = addr[todo] & (np.uint64(0xffffffff) ^ ((np.uint64(1) << np.uint64(32 - L)) - np.uint64(1)))
        order = np.argsort(a[sel])
        pa = a[sel][order].astype(np.uint64)
        j = np.minimum(np.searchsorted(pa, key), len(pa) - 1)
        f = pa[j] == key
        out[todo[f]] = nh[sel][order][j[f]]
        mlen[todo[f]] = L
    return out, mlen


def _p87_trie_depth(addr):
    """The trie levels a lookup of each address reads (1 .. 4)."""
    t = _p87_trie()
    addr = np.asarray(addr, np.uint32).astype(np.int64)
    node = np.zeros(len(addr), np.int64)
    depth = np.zeros(len(addr), np.int64)
    live = np.ones(len(addr), bool)
    for lv in range(4):
        e = t[node * P87_TRIE_FAN + ((addr >> (24 - 8 * lv)) & 0xff)].astype(np.int64)
        depth += live
        live &= (e & P87_TRIE_CHILD) != 0
        node = np.where(live, e & ~P87_TRIE_CHILD, 0)
    return depth


_P87_SITES = (np.random.default_rng(8788).integers(1, 224, 24) << 24
              | np.random.default_rng(8789).integers(0, 256, 24) << 16)   # the ACL's sites: 24 /16 networks


def _p87_pool_hosts(k, rng):
    """k addresses in the ACL's sites (_P87_SITES), the low 16 bits random."""
    return (_P87_SITES[rng.integers(0, 24, k)] | rng.integers(0, 1 << 16, k)).astype(np.uint32)


def _p87_acl_rules():
    """The ACL (fixed): P87_ACL_RULES rules as (src_ip, src_mask, dst_ip, dst_mask, sport,
    dport, proto) uint32 arrays: prefixes of hosts in the sites (_p87_pool_hosts), source
    length 0/8/16/24/32 with p .2/.05/.3/.3/.15, destination's .05/.05/.3/.35/.25;
    protocol TCP .55, UDP .3, any .15; source port any (.85) or 1024 .. 65535;
    destination port one of P87_ACL_PORTS (.6), 1024 .. 65535 (.1), a 64-port range
    (.15) or any; ordered loosely most specific first (prefix bits, +8 for a protocol,
    +16/10/4 for a port/range/1024+, plus N(0, 6^2) noise); the last rule a catch-all (all
    zero masks, any protocol and port)."""
    r = np.random.default_rng(8790)
    R = P87_ACL_RULES
    lens = np.array([0, 8, 16, 24, 32])

    def pfx(p):
        L = r.choice(lens, R, p=p)
        m = np.where(L == 0, 0, (0xffffffff << (32 - L)) & 0xffffffff).astype(np.uint32)
        return _p87_pool_hosts(R, r) & m, m
    si, sm = pfx([0.2, 0.05, 0.3, 0.3, 0.15])
    di, dm = pfx([0.05, 0.05, 0.3, 0.35, 0.25])
    proto = r.choice([6, 17, 0], R, p=[0.55, 0.3, 0.15]).astype(np.uint32)
    sport = np.where(r.random(R) < 0.85, 65535 << 16, 65535 << 16 | 1024).astype(np.uint32)
    kind = r.choice(4, R, p=[0.6, 0.1, 0.15, 0.15])
    wk = r.choice(P87_ACL_PORTS, R)
    lo64 = r.integers(1024, 65536 - 64, R)
    dport = np.select([kind == 0, kind == 1, kind == 2], [wk << 16 | wk, 65535 << 16 | 1024, (lo64 + 63) << 16 | lo64],
                      65535 << 16).astype(np.uint32)
    # the more specific rules first (bits of prefix, a protocol 8, a port 16 .. 0), loosely
    spec = [bin(int(x)).count("1") for x in sm + 0] + np.array([bin(int(x)).count("1") for x in dm])
    spec = spec + 8 * (proto != 0) + np.array([16, 4, 10, 0])[kind] + r.normal(0, 6, R)
    rules = [f[np.argsort(-spec, kind="stable")] for f in (si, sm, di, dm, sport, dport, proto)]
    for f in rules:
        f[-1] = 0
    rules[4][-1] = rules[5][-1] = 65535 << 16
    return rules


def _p87_acl_syms(n, rng):
    names = ("src_ip", "src_mask", "dst_ip", "dst_mask", "sport", "dport", "proto")
    out = {}
    for k, f in zip(names, _p87_acl_rules()):
        v = np.zeros(P87_ACL_MAX, np.uint32)
        v[:len(f)] = f
        out["c_acl_" + k] = v
    return out


def _p87_acl_args(n, rng):
    """n packets (src, dst, ports sport << 16 | dport, uint32; protocol uint8), each aimed
    at a rule (P87_ACL_MIX: one of the first 32, any rule but the last, none): a site host
    inside the rule's prefixes, its protocol (TCP or UDP if any), ports uniform in its
    ranges (an ephemeral source port where any); an aimless packet random site hosts, TCP
    or UDP and random ports; the match (zeroed), nrules, n."""
    si, sm, di, dm, sp, dp, pr = _p87_acl_rules()
    R = P87_ACL_RULES
    kind = rng.choice(3, n, p=P87_ACL_MIX)
    t = np.where(kind == 0, rng.integers(0, 32, n), rng.integers(0, R - 1, n))
    src = si[t] | (_p87_pool_hosts(n, rng) & ~sm[t])
    dst = di[t] | (_p87_pool_hosts(n, rng) & ~dm[t])
    proto = np.where(pr[t] == 0, rng.choice([6, 17], n), pr[t])
    slo, shi = sp[t] & 0xffff, sp[t] >> 16
    slo = np.where(shi - slo == 65535, 32768, slo)
    sport = slo + (rng.random(n) * (shi - slo + 1)).astype(np.uint32)
    dlo, dhi = dp[t] & 0xffff, dp[t] >> 16
    dport = dlo + (rng.random(n) * (dhi - dlo + 1)).astype(np.uint32)
    none = kind == 2
    src[none], dst[none] = _p87_pool_hosts(none.sum(), rng), _p87_pool_hosts(none.sum(), rng)
    proto[none] = rng.choice([6, 17], none.sum())
    sport[none], dport[none] = rng.integers(1024, 65536, none.sum()), rng.integers(0, 65536, none.sum())
    return [src.astype(np.uint32), dst.astype(np.uint32), (sport << 16 | dport).astype(np.uint32),
            proto.astype(np.uint8), np.zeros(n, np.int32), _i32(R), _i32(n)]


def _p87_acl_ref(src, dst, ports, proto, nrules=P87_ACL_RULES):
    """The first rule each packet matches (-1 if none), rule by rule in numpy."""
    si, sm, di, dm, sp, dp, pr = _p87_acl_rules()
    src, dst, ports = (np.asarray(x, np.uint32) for x in (src, dst, ports))
    proto = np.asarray(proto).astype(np.uint32)
    s, d = ports >> 16, ports & 0xffff
    m = np.full(len(src), -1, np.int32)
    for r in range(nrules):
        hit = (m < 0) & ((src & sm[r]) == si[r]) & ((dst & dm[r]) == di[r]) & ((pr[r] == 0) | (proto == pr[r]))
        hit &= (s >= (sp[r] & 0xffff)) & (s <= sp[r] >> 16) & (d >= (dp[r] & 0xffff)) & (d <= dp[r] >> 16)
        m[hit] = r
    return m


def _p87_trace(n, rng):
    """A trace of n packets over P87_FLOWS flows (packets a flow Zipf(P87_ZIPF) by a random
    rank): a flow a client (uniform address, a Linux ephemeral port 32768 .. 60999) to one
    of 256 servers on port 443 (.6), 80 (.25), 53 (.1, UDP) or 22; src, dst, ports
    (sport << 16 | dport) uint32, protocol uint8, and each packet's length (uint16, from
    P87_LENS, the rest uniform 65 .. 1499)."""
    F = P87_FLOWS
    servers = _u32(256, rng)
    dport = rng.choice([443, 80, 53, 22], F, p=[0.6, 0.25, 0.1, 0.05])
    fsrc, fdst = _u32(F, rng), servers[rng.integers(0, 256, F)]
    fports = (rng.integers(32768, 61000, F) << 16 | dport).astype(np.uint32)
    fproto = np.where(dport == 53, 17, 6).astype(np.uint8)
    w = 1.0 / np.arange(1, F + 1) ** P87_ZIPF
    rank = rng.permutation(F)
    f = rank[rng.choice(F, n, p=w / w.sum())]
    k = rng.choice(4, n, p=[p for _, p in P87_LENS] + [1 - sum(p for _, p in P87_LENS)])
    ln = np.where(k < 3, np.array([v for v, _ in P87_LENS] + [0])[k], rng.integers(65, 1500, n)).astype(np.uint16)
    return fsrc[f], fdst[f], fports[f], fproto[f], ln


def _p87_rss_syms(n, rng):
    return {"c_rss_key": np.frombuffer(P87_RSS_KEY, np.uint8).copy(),
            "c_rss_indir": (np.arange(P87_RSS_INDIR) % P87_RSS_QUEUES).astype(np.uint8)}


def _p87_rss_args(n, rng):
    """A trace (_p87_trace): src, dst, ports; the hashes (uint32), queues (uint8) and the
    queues' packet counts (uint32 x RSS_QUEUES), zeroed; n."""
    src, dst, ports, _, _ = _p87_trace(n, rng)
    return [src, dst, ports, np.zeros(n, np.uint32), np.zeros(n, np.uint8), np.zeros(P87_RSS_QUEUES, np.uint32),
            _i32(n)]


def _p87_toeplitz(data, key=P87_RSS_KEY):
    """The Toeplitz hash (Microsoft RSS) of the rows of data (uint8, k x m), Python ints
    over the key as one big integer: bit j of the input (MSB first) XORs in key bits j ..
    j + 31."""
    K = int.from_bytes(key, "big")
    nk = 8 * len(key)
    data = np.asarray(data, np.uint8)
    bits = np.unpackbits(data, axis=1)
    h = np.zeros(len(data), np.uint64)
    for j in range(bits.shape[1]):
        win = (K >> (nk - 32 - j)) & 0xffffffff
        h ^= np.where(bits[:, j] == 1, np.uint64(win), np.uint64(0))
    return h.astype(np.uint32)


def _p87_rss_ref(src, dst, ports):
    """rss_toeplitz in numpy: hashes, queues and the queues' counts."""
    words = np.stack([np.asarray(x, np.uint32) for x in (src, dst, ports)], axis=1).astype(">u4")
    h = _p87_toeplitz(words.view(np.uint8).reshape(-1, 12))
    q = ((h & np.uint32(P87_RSS_INDIR - 1)) % P87_RSS_QUEUES).astype(np.uint8)
    return h, q, np.bincount(q, minlength=P87_RSS_QUEUES).astype(np.uint32)


def _p87_cms_syms(n, rng):
    return {"c_cms_seed": np.array(P87_CMS_SEEDS, np.uint32)}


def _p87_cms_args(n, rng):
    """A trace (_p87_trace): src, dst, ports, protocol, lengths; the sketch (uint32,
    CMS_DEPTH x CMS_WIDTH, zeroed); n."""
    return [*_p87_trace(n, rng), np.zeros(P87_CMS_DEPTH * P87_CMS_WIDTH, np.uint32), _i32(n)]


def _p87_murmur(src, dst, ports, proto, seed):
    """MurmurHash3_x86_32 of the 16-byte keys (src, dst, ports, proto) as uint32 words."""
    u = np.uint32

    def rotl(x, r):
        return (x << u(r)) | (x >> u(32 - r))
    h = np.full(len(src), seed, u)
    for k in (src, dst, ports, proto):
        k = np.asarray(k).astype(u) * u(0xcc9e2d51)
        k = rotl(k, 15) * u(0x1b873593)
        h = rotl(h ^ k, 13) * u(5) + u(0xe6546b64)
    h ^= u(16)
    h ^= h >> u(16)
    h *= u(0x85ebca6b)
    h ^= h >> u(13)
    h *= u(0xc2b2ae35)
    return h ^ (h >> u(16))


def _p87_cms_ref(src, dst, ports, proto, ln):
    """cms_update in numpy: the sketch (uint32, the sums mod 2^32) and each packet's
    column in every row (CMS_DEPTH x n)."""
    cols = np.stack([_p87_murmur(src, dst, ports, proto, s) & np.uint32(P87_CMS_WIDTH - 1) for s in P87_CMS_SEEDS])
    sk = np.zeros((P87_CMS_DEPTH, P87_CMS_WIDTH), np.uint64)
    for r in range(P87_CMS_DEPTH):
        np.add.at(sk[r], cols[r], np.asarray(ln, np.uint64))
    return (sk & np.uint64(0xffffffff)).astype(np.uint32).ravel(), cols


def _p87_ac():
    """The Aho-Corasick automaton of P87_AC_PATTERNS as a full DFA: the transitions
    (uint16, states x 256, row-major) and each state's pattern bits (uint32, its own and
    its failure chain's)."""
    goto, out = [{}], [0]
    for k, p in enumerate(P87_AC_PATTERNS):
        s = 0
        for c in p:
            if c not in goto[s]:
                goto.append({})
                out.append(0)
                goto[s][c] = len(goto) - 1
            s = goto[s][c]
        out[s] |= 1 << k
    S = len(goto)
    assert S <= P87_AC_MAX
    delta = np.zeros((S, 256), np.uint16)
    fail = [0] * S
    queue = []
    for c, t in goto[0].items():
        delta[0, c] = t
        queue.append(t)
    while queue:
        s = queue.pop(0)
        out[s] |= out[fail[s]]
        delta[s] = delta[fail[s]]
        for c, t in goto[s].items():
            fail[t] = int(delta[fail[s], c])
            delta[s, c] = t
            queue.append(t)
    return delta.ravel(), np.array(out, np.uint32)


def _p87_ids_args(n, rng):
    """n captured payloads back to back (uint8) and their offsets (uint32, n + 1): wire
    lengths 64 .. 200 (.4), 200 .. 1400 (.15) or 1400 .. 1460 (.45, full segments), the
    first P87_SNAP bytes of each captured; P87_IDS_KINDS of them slices of HTTP-like text
    (P87_IDS_WORDS, some near-misses of the signatures), random bytes (TLS), the rest
    random bytes below 128 (DNS-ish); P87_IDS_ATTACK of them with a random signature
    written at a random place; the DFA (_p87_ac), the alerts (zeroed), the alert count
    (zeroed), the states, n."""
    k = rng.choice(3, n, p=[0.4, 0.15, 0.45])
    ln = np.select([k == 0, k == 1], [rng.integers(64, 200, n), rng.integers(200, 1400, n)],
                   rng.integers(1400, 1461, n))
    ln = np.minimum(ln, P87_SNAP)
    off = np.r_[0, np.cumsum(ln)].astype(np.uint32)
    pay = np.frombuffer(rng.bytes(int(off[-1])), np.uint8).copy()
    kind = rng.choice(3, n, p=[*P87_IDS_KINDS, 1 - sum(P87_IDS_KINDS)])
    text = np.frombuffer("".join(rng.choice(P87_IDS_WORDS, 120000)).encode(), np.uint8)
    start = rng.integers(0, len(text) - P87_SNAP, n)
    for a in range(0, n, 4096):                                   # 4096 payloads at a time
        b = min(a + 4096, n)
        c = pay[off[a]:off[b]]
        pos = np.arange(len(c)) - np.repeat(off[a:b] - off[a], ln[a:b])    # each byte's place in its payload
        pk = np.repeat(kind[a:b], ln[a:b])
        c[pk == 0] = text[(np.repeat(start[a:b], ln[a:b]) + pos)[pk == 0]]
        c[pk == 2] &= 0x7f
    for i in np.flatnonzero(rng.random(n) < P87_IDS_ATTACK):
        p = P87_AC_PATTERNS[rng.integers(0, len(P87_AC_PATTERNS))]
        at = off[i] + rng.integers(0, ln[i] - len(p) + 1)
        pay[at:at + len(p)] = np.frombuffer(p, np.uint8)
    trans, out = _p87_ac()
    return [pay, off, trans, out, np.zeros(n, np.uint32), np.zeros(1, np.uint32), _i32(len(out)), _i32(n)]


def _p87_ids_ref(pay, off):
    """The signatures in each payload by bytes.find (not the automaton): the alert masks."""
    pay = np.asarray(pay, np.uint8).tobytes()
    off = np.asarray(off, np.int64)
    m = np.zeros(len(off) - 1, np.uint32)
    for i in range(len(m)):
        s = pay[off[i]:off[i + 1]]
        for k, p in enumerate(P87_AC_PATTERNS):
            if p in s:
                m[i] |= 1 << k
    return m


UNSEEN85 = [
    TimingProbe("probe/ipv4-ttl-checksum", "probe-unseen85", "ipv4_forward", 1 << 21, 256, lambda n: -(-n // 256),
                _p87_ipv4_args, source=_P87,
                note="an IPv4 router's fast path over 2^21 headers in 64-byte slots, a thread a header: IHL * 2 "
                     "16-bit one's-complement words summed from byte loads (lanes 64 B apart, IHL 5 for 75%, 6 "
                     ".. 15 else: a warp loops to its largest), a carry-fold while loop, then (2% bad checksums, 1% "
                     "TTL 1 leave early) TTL decremented and the checksum patched by RFC 1624's incremental "
                     "update, 3 byte stores into the slot and a status byte; memory-bound, byte-granular"),
    TimingProbe("probe/lpm-multibit-trie", "probe-unseen85", "lpm_lookup", 1 << 22, 256, lambda n: -(-n // 256),
                _p87_lpm_args, source=_P87,
                note="longest-prefix match of 2^22 IPv4 destinations in a leaf-pushed 8-8-8-8 multibit trie "
                     "(~29k routes shaped like a BGP table, half of them /24s; ~17k 1 KiB nodes, 17 MiB of uint32), "
                     "a thread a lookup (85% inside a route, 15% uniform): a coalesced address load, then 1 .. 4 "
                     "dependent random 4-byte loads (root, /8 node, /16 node, /24 node: mean 2.8, 85% of lookups "
                     "end in a /16 node, every warp reaches one and ~39% a /24 node), a coalesced store; "
                     "latency-bound pointer chasing in an L2-sized table"),
    TimingProbe("probe/acl-first-match-const", "probe-unseen85", "acl_classify", 1 << 20, 256,
                lambda n: -(-n // 256), _p87_acl_args, source=_P87, symbols=_p87_acl_syms,
                note="first-match classification of 2^20 5-tuples against a 512-rule ACL kept field by field in "
                     "__constant__ memory (7 uint32 tables), a thread a packet: a loop over the rules with masked "
                     "prefix compares, a protocol test and two port-range tests, breaking at the first match; "
                     "the index r is warp-uniform (constant broadcasts) but the lanes leave at different rules "
                     "(specific rules first; median first match 25, mean ~137) and nearly every warp holds a "
                     "packet that falls through to the broad rules at the end, so warps run ~506 of the 512 "
                     "rules; ALU/branch-bound"),
    TimingProbe("probe/rss-toeplitz-queues", "probe-unseen85", "rss_toeplitz", 1 << 22, 256,
                lambda n: -(-n // 256), _p87_rss_args, source=_P87, symbols=_p87_rss_syms,
                note="receive-side scaling for 2^22 packets (a Zipf trace over 2^16 flows), a thread a packet: "
                     "the Toeplitz hash of the 96-bit (src, dst, sport, dport) a bit at a time (96 iterations of "
                     "a bit test, a conditional XOR and a shift pulling in a key bit from __constant__ memory, "
                     "uniform across the warp; the 3 words in a local array), a 128-entry indirection table in "
                     "__constant__ memory at a per-lane index, the queue counted by a shared atomicAdd onto 16 "
                     "counters and 16 global atomicAdds a block; integer compute-bound"),
    TimingProbe("probe/cms-flow-bytes", "probe-unseen85", "cms_update", 1 << 22, 256, lambda n: -(-n // 256),
                _p87_cms_args, source=_P87, symbols=_p87_cms_syms,
                note="a count-min sketch of per-flow bytes over 2^22 packets (Zipf(1.1) over 2^16 flows: the "
                     "top flow ~14% of packets), a thread a packet: 5 coalesced loads (the 5-tuple and the "
                     "length), then for each of 4 rows a 4-word MurmurHash3 (~30 integer ops) and an atomicAdd "
                     "of the length onto one of 65536 counters (a 1 MiB sketch in L2; heavy flows put several "
                     "lanes of a warp on one address); global-atomic-bound"),
    TimingProbe("probe/ids-aho-corasick-smem", "probe-unseen85", "ids_scan", 1 << 19, 128, lambda n: -(-n // 128),
                _p87_ids_args, source=_P87,
                note="an IDS scan of 2^19 packet payloads captured with a 256-byte snap length (~108 MB; 40% "
                     "64-200 B, 60% cut at 256 B; HTTP-like text, random TLS bytes; ~3% alerting) against 12 "
                     "signatures, a thread a packet: the Aho-Corasick DFA (86 states x 256 uint16, 43 KiB: 5 "
                     "blocks of 128 an SM) staged in shared memory, then a byte at a time a global byte load "
                     "(the lanes in 32 different payloads), a shared transition at a data-dependent row (bank "
                     "conflicts) and an output-mask OR; a warp runs to its longest payload (256 in "
                     "nearly all, the mean 206); latency/shared-bound, divergent"),
]
PROBES += UNSEEN85


# probe-unseen94 (probes96.cu): a computational-astrophysics course's kernels (direct-sum
# N-body gravity with shared-memory tiles, a cloud-in-cell mass deposit by global atomics,
# the particle-mesh force interpolation, a friends-of-friends linking sweep on a cell list,
# power-spectrum shell binning in shared memory, a leapfrog kick-drift with a kinetic-energy
# reduction) as a student who knows CUDA basics writes them
_P96 = "probes96.cu"
P96_NB_N, P96_NB_TILE = 1 << 13, 128               # nbody: bodies; NB_TILE (the block)
P96_NB_G, P96_NB_EPS = 1.0, 0.02                   # G; the Plummer softening length (N-body units)
P96_NB_RMAX = 20.0                                 # the Plummer sphere (scale 1, mass 1) cut at this radius
P96_HALO_FRAC = 0.5                                # clustered particles: the fraction in halos
P96_HALO_MMIN, P96_HALO_SLOPE = 20, 1.9            # halo sizes: dN/dM ~ M^-slope from MMIN to n / 64
P96_HALO_C = 0.1                                   # a halo's Gaussian sigma: C M^(1/3) mean separations
P96_CIC_NG = 128                                   # cic / pm: the mesh's side
P96_FOF_B, P96_FOF_CELL = 0.2, 0.6                 # fof: the linking length; the cells' side (>= it), in mean separations
P96_PK_NG, P96_PK_GRID = 384, 528                  # pk: the FFT grid's side; the most blocks (4 x 132 SMs)
P96_PK_K0 = 20.0                                   # pk: P(k) = k / (1 + (k / K0)^2)^2, k in fundamental modes
P96_LF_DT, P96_LF_BOX = 0.01, 1.0                  # leapfrog: dt, the box
P96_LF_VSD, P96_LF_ASD = 0.02, 0.5                 # velocity and acceleration components N(0, sd^2)


def _p96_plummer_args(n, rng):
    """n bodies of a Plummer sphere (scale radius 1, total mass 1, cut at P96_NB_RMAX): x,
    y, z, m (float32, m = 1 / n); ax, ay, az, pot (zeroed); G, eps^2, n."""
    f = np.float32
    umax = (1 + 1 / P96_NB_RMAX ** 2) ** -1.5           # the mass fraction inside RMAX
    r = 1 / np.sqrt(rng.uniform(0, umax, n) ** (-2 / 3) - 1)
    ct = rng.uniform(-1, 1, n)
    ph = rng.uniform(0, 2 * np.pi, n)
    st = np.sqrt(1 - ct * ct)
    return [(r * st * np.cos(ph)).astype(f), (r * st * np.sin(ph)).astype(f), (r * ct).astype(f),
            np.full(n, 1 / n, f), *[np.zeros(n, f) for _ in range(4)], f(P96_NB_G), f(P96_NB_EPS ** 2), _i32(n)]


def _p96_nbody_ref(x, y, z, m, G=P96_NB_G, eps2=P96_NB_EPS ** 2):
    """nbody_accel_pot in float64: ax, ay, az and the potential (self term left out)."""
    p = np.stack([np.asarray(a, np.float64) for a in (x, y, z)], axis=1)
    m = np.asarray(m, np.float64)
    n = len(m)
    acc, pot = np.zeros((n, 3)), np.zeros(n)
    for a in range(0, n, 512):
        d = p[None, :, :] - p[a:a + 512, None, :]
        rinv = 1 / np.sqrt((d * d).sum(axis=2) + float(eps2))
        acc[a:a + 512] = ((m * rinv ** 3)[:, :, None] * d).sum(axis=1)
        w = m * rinv
        w[np.arange(len(w)), np.arange(a, a + len(w))] = 0
        pot[a:a + 512] = -w.sum(axis=1)
    G = float(G)
    return G * acc[:, 0], G * acc[:, 1], G * acc[:, 2], G * pot


def _p96_clustered(n, rng):
    """n positions in the periodic unit box (n x 3 float32, in [0, 1)), in random order:
    P96_HALO_FRAC of them in Gaussian halos (sizes dN/dM ~ M^-P96_HALO_SLOPE from
    P96_HALO_MMIN to n / 64, sigma P96_HALO_C M^(1/3) mean separations: a peak overdensity
    of ~60), the rest uniform."""
    sep = n ** (-1 / 3)
    mmax = max(2 * P96_HALO_MMIN, n // 64)
    nh = int(n * P96_HALO_FRAC)
    a = 1 - P96_HALO_SLOPE
    sizes = []
    tot = 0
    while tot < nh:
        m = int((P96_HALO_MMIN ** a + rng.random() * (mmax ** a - P96_HALO_MMIN ** a)) ** (1 / a))
        m = min(m, nh - tot)
        sizes.append(m)
        tot += m
    sizes = np.array(sizes)
    k = np.repeat(np.arange(len(sizes)), sizes)
    sig = P96_HALO_C * sizes ** (1 / 3) * sep
    hp = rng.random((len(sizes), 3))[k] + rng.standard_normal((nh, 3)) * sig[k, None]
    p = (np.concatenate([hp, rng.random((n - nh, 3))]) % 1.0)[rng.permutation(n)].astype(np.float32)
    p[p >= 1] = 0                                        # float32 rounding up to 1
    return p


def _p96_cic_cells(x, ng):
    """The CIC cells (i0, i1) and weights (w0, w1) of coordinates x along one axis, in
    float32 as the kernels compute them."""
    g = np.asarray(x, np.float32) * np.float32(ng) - np.float32(0.5)
    i = np.floor(g).astype(np.int64)
    f = g - i.astype(np.float32)
    return (i + ng) % ng, (i + 1) % ng, np.float32(1) - f, f


def _p96_cic_args(n, rng, ng=P96_CIC_NG):
    """n clustered particles (_p96_clustered: x, y, z float32); the density mesh (ng^3,
    zeroed); the particle mass ng^3 / n (a mean density of 1), ng, n."""
    p = _p96_clustered(n, rng)
    return [p[:, 0].copy(), p[:, 1].copy(), p[:, 2].copy(), np.zeros(ng ** 3, np.float32),
            np.float32(ng ** 3 / n), _i32(ng), _i32(n)]


def _p96_cic_ref(x, y, z, pmass, ng):
    """cic_deposit3d's mesh: the float32 weights as the kernel forms them, summed in float64."""
    cx, cy, cz = _p96_cic_cells(x, ng), _p96_cic_cells(y, ng), _p96_cic_cells(z, ng)
    rho = np.zeros(ng ** 3)
    for c in range(2):
        for b in range(2):
            for a in range(2):
                w = np.float32(pmass) * cx[2 + a] * cy[2 + b] * cz[2 + c]
                rho += np.bincount((cz[c] * ng + cy[b]) * ng + cx[a], w.astype(np.float64), ng ** 3)
    return rho


def _p96_pm_mesh(rho, ng):
    """The PM mesh acceleration (float32 gx, gy, gz, x fastest) of the density rho (ng^3,
    x fastest, box 1, 4 pi G = 1): Poisson's equation solved by FFT (-k^2 phi_k = delta_k),
    then minus phi's central differences."""
    d = np.asarray(rho, np.float64).reshape(ng, ng, ng)           # [z, y, x]
    dk = np.fft.rfftn(d - d.mean())
    k = 2 * np.pi * np.fft.fftfreq(ng, 1 / ng)
    kz = 2 * np.pi * np.fft.rfftfreq(ng, 1 / ng)
    k2 = k[:, None, None] ** 2 + k[None, :, None] ** 2 + kz[None, None, :] ** 2
    k2[0, 0, 0] = 1
    phi = np.fft.irfftn(-dk / k2, d.shape, axes=(0, 1, 2))
    h = 1 / ng
    return [(-(np.roll(phi, -1, ax) - np.roll(phi, 1, ax)) / (2 * h)).astype(np.float32).ravel()
            for ax in (2, 1, 0)]


def _p96_pm_args(n, rng, ng=P96_CIC_NG):
    """n clustered particles (x, y, z float32) and the mesh acceleration of their own CIC
    density (_p96_pm_mesh: gx, gy, gz); ax, ay, az (zeroed), ng, n."""
    p = _p96_clustered(n, rng)
    x, y, z = p[:, 0].copy(), p[:, 1].copy(), p[:, 2].copy()
    g = _p96_pm_mesh(_p96_cic_ref(x, y, z, ng ** 3 / n, ng), ng)
    return [x, y, z, *g, *[np.zeros(n, np.float32) for _ in range(3)], _i32(ng), _i32(n)]


def _p96_pm_ref(x, y, z, gx, gy, gz, ng):
    """pm_interp_accel in float64 (the float32 weights): ax, ay, az."""
    cx, cy, cz = _p96_cic_cells(x, ng), _p96_cic_cells(y, ng), _p96_cic_cells(z, ng)
    out = [np.zeros(len(cx[0])) for _ in range(3)]
    for c in range(2):
        for b in range(2):
            for a in range(2):
                idx = (cz[c] * ng + cy[b]) * ng + cx[a]
                w = (cx[2 + a] * cy[2 + b] * cz[2 + c]).astype(np.float64)
                for o, g in zip(out, (gx, gy, gz)):
                    o += w * np.asarray(g, np.float64)[idx]
    return out


def _p96_fof_ncell(n):
    """fof's cells a side: about P96_FOF_CELL mean separations each (268 for 2^22)."""
    return max(3, int(n ** (1 / 3) / P96_FOF_CELL))


def _p96_fof_args(n, rng):
    """n clustered particles (_p96_clustered) sorted by cell (side 1 / ncell, _p96_fof_ncell:
    ~0.22 particles a cell on average; cell index x fastest): px, py, pz (float32),
    cell_start / cell_end (int32, ncell^3, -1 / 0 for an empty cell), the labels (their own
    indices: the first sweep), the new labels (zeroed), the changed counter (zeroed);
    b^2 (b = P96_FOF_B mean separations), ncell, n."""
    nc = _p96_fof_ncell(n)
    p = _p96_clustered(n, rng)
    c = np.minimum((p * np.float32(nc)).astype(np.int64), nc - 1)
    cid = (c[:, 2] * nc + c[:, 1]) * nc + c[:, 0]
    o = np.argsort(cid, kind="stable")
    p, cid = p[o], cid[o]
    cnt = np.bincount(cid, minlength=nc ** 3)
    end = np.cumsum(cnt)
    start = np.where(cnt > 0, end - cnt, -1)
    end = np.where(cnt > 0, end, 0)
    b = P96_FOF_B * n ** (-1 / 3)
    return [p[:, 0].copy(), p[:, 1].copy(), p[:, 2].copy(), start.astype(np.int32), end.astype(np.int32),
            np.arange(n, dtype=np.int32), np.zeros(n, np.int32), np.zeros(1, np.int32), np.float32(b * b),
            _i32(nc), _i32(n)]


def _p96_fof_ref(px, py, pz, labels, b2):
    """One sweep by brute force over all pairs (float64, minimum image): the new labels and
    the smallest |r^2 - b^2| / b^2 of any pair (rounding cannot flip a link when it is
    well above 1e-6)."""
    p = np.stack([np.asarray(a, np.float64) for a in (px, py, pz)], axis=1)
    lab = np.asarray(labels, np.int64)
    n = len(p)
    out = lab.copy()
    gap = np.inf
    b2 = float(b2)
    for a in range(0, n, 1024):
        d = p[None, :, :] - p[a:a + 1024, None, :]
        d -= np.rint(d)
        r2 = (d * d).sum(axis=2)
        gap = min(gap, np.abs(r2 - b2).min() / b2)
        out[a:a + 1024] = np.where(r2 < b2, lab[None, :], n + 1).min(axis=1)
    return out, gap


def _p96_pk_model(k):
    return k / (1 + (k / P96_PK_K0) ** 2) ** 2


def _p96_pk_args(ng, rng):
    """An rfftn grid (ng x ng x (ng/2 + 1), flat float2 as float32 pairs) of a Gaussian
    random field with power _p96_pk_model(|k|) (complex normal modes, the DC mode 0); the
    shells' power and weights (nbins = ng / 2, zeroed); ng, nbins."""
    nz = ng // 2 + 1
    k = np.fft.fftfreq(ng, 1 / ng)
    kk = np.sqrt(k[:, None, None] ** 2 + k[None, :, None] ** 2 + np.arange(nz)[None, None, :] ** 2)
    amp = np.sqrt(_p96_pk_model(kk) / 2).astype(np.float32).ravel()
    d = rng.standard_normal((ng * ng * nz, 2), dtype=np.float32)
    d *= amp[:, None]
    return [d.ravel(), np.zeros(ng // 2, np.float32), np.zeros(ng // 2, np.uint32), _i32(ng), _i32(ng // 2)]


def _p96_pk_ref(dk, ng, nbins):
    """pk_shell_bin's shells in numpy (the bin from float32 sqrt as the kernel takes it):
    the power sums (float64) and the weights."""
    nz = ng // 2 + 1
    k = np.fft.fftfreq(ng, 1 / ng).astype(np.int64)
    k2 = k[:, None, None] ** 2 + k[None, :, None] ** 2 + np.arange(nz)[None, None, :] ** 2
    b = (np.sqrt(k2.astype(np.float32)) + np.float32(0.5)).astype(np.int64).ravel()
    kz = np.broadcast_to(np.arange(nz), (ng, ng, nz)).ravel()
    w = np.where((kz == 0) | (kz == ng // 2), 1, 2)
    d = np.asarray(dk, np.float64).reshape(-1, 2)
    p = (d * d).sum(axis=1)
    on = (b > 0) & (b < nbins)
    return (np.bincount(b[on], (w * p)[on], nbins), np.bincount(b[on], w[on], nbins).astype(np.uint32))


def _p96_lf_args(n, rng):
    """n particles: positions (float4: clustered x, y, z in [0, 1), w the mass: log-normal,
    mean ~1), velocities (float4, N(0, P96_LF_VSD^2) a component, w 0), accelerations
    (float4, N(0, P96_LF_ASD^2), w 0), all as flat float32; the kinetic energy (zeroed);
    dt, box, n."""
    f = np.float32
    pos = np.zeros((n, 4), f)
    pos[:, :3] = _p96_clustered(n, rng) * f(P96_LF_BOX)
    pos[:, 3] = rng.lognormal(-0.125, 0.5, n)
    vel = np.zeros((n, 4), f)
    vel[:, :3] = rng.normal(0, P96_LF_VSD, (n, 3))
    acc = np.zeros((n, 4), f)
    acc[:, :3] = rng.normal(0, P96_LF_ASD, (n, 3))
    return [pos.ravel(), vel.ravel(), acc.ravel(), np.zeros(1, f), f(P96_LF_DT), f(P96_LF_BOX), _i32(n)]


def _p96_lf_ref(pos, vel, acc, dt=P96_LF_DT, box=P96_LF_BOX):
    """leapfrog_kick_drift in float64: the new positions (n x 4, wrapped), velocities (n x
    4) and the kinetic energy."""
    p, v, a = (np.array(x, np.float64).reshape(-1, 4) for x in (pos, vel, acc))
    dt, box = float(dt), float(box)
    v[:, :3] += dt * a[:, :3]
    p[:, :3] += dt * v[:, :3]
    p[:, :3] -= box * np.floor(p[:, :3] / box)
    return p, v, 0.5 * (p[:, 3] * (v[:, :3] ** 2).sum(axis=1)).sum()


UNSEEN94 = [
    TimingProbe("probe/plummer-direct-accpot", "probe-unseen94", "nbody_accel_pot", P96_NB_N, P96_NB_TILE,
                lambda n: -(-n // P96_NB_TILE), _p96_plummer_args, source=_P96,
                note="direct-sum softened gravity on a 2^13-body Plummer sphere, a thread a body (64 blocks of "
                     "128: half the SMs get one block of 4 warps, the rest none): x, y, z, m from 4 separate "
                     "float arrays staged 128 bodies a tile into 4 shared arrays, then 128 interactions a tile "
                     "(4 shared broadcast loads, rsqrtf, ~12 FMAs/multiplies, an index compare guarding the "
                     "potential) for 8192 in all; latency-bound (few warps a scheduler), 4 stores a body"),
    TimingProbe("probe/cic-mass-deposit-3d", "probe-unseen94", "cic_deposit3d", 1 << 22, 256,
                lambda n: -(-n // 256), _p96_cic_args, source=_P96,
                note="cloud-in-cell deposit of 2^22 clustered particles (half in Gaussian halos up to 2^16 "
                     "particles, in random order) onto a periodic 128^3 float mesh (8 MiB, L2-resident), a thread "
                     "a particle: 3 coalesced loads, floorf and % wraps, then 8 float atomicAdds at scattered "
                     "addresses (two x-neighbours share a 32-byte sector; particles in a halo's core collide on "
                     "cells); global-atomic-bound"),
    TimingProbe("probe/pm-cic-force-gather", "probe-unseen94", "pm_interp_accel", 1 << 22, 256,
                lambda n: -(-n // 256), _p96_pm_args, source=_P96,
                note="particle-mesh force interpolation for 2^22 clustered particles in random order from three "
                     "periodic 128^3 float acceleration meshes (24 MiB, L2-resident), a thread a particle: 3 "
                     "coalesced loads, CIC cells and weights in small local arrays, 8 cells x 3 meshes = 24 "
                     "scattered 4-byte gathers, 3 coalesced stores; L2 gather-bound"),
    TimingProbe("probe/fof-cell-minlabel", "probe-unseen94", "fof_link_step", 1 << 22, 256,
                lambda n: -(-n // 256), _p96_fof_args, source=_P96,
                note="one friends-of-friends label sweep over 2^22 clustered particles sorted by cell (268^3 "
                     "cells of 0.6 mean separations, 77 MB each for cell_start and cell_end; linking length 0.2 "
                     "separations), a thread a particle: 27 neighbour cells with % wraps, a cell_start load "
                     "(lanes of a warp in a run of nearby cells) and a -1 skip each (~86% of cells empty), then "
                     "the cell's particles (3 loads, 3 rintf minimum images, a distance test, a dependent label "
                     "load when linked); ~60 candidates a particle on average but up to ~560 in halo cores, "
                     "so warps in halos run long (divergent, latency-bound); one global atomicAdd on a single "
                     "counter for each particle whose label drops (~15%)"),
    TimingProbe("probe/pk-shell-smem-hist", "probe-unseen94", "pk_shell_bin", P96_PK_NG, 256,
                lambda n: min(P96_PK_GRID, -(-(n * n * (n // 2 + 1)) // 256)), _p96_pk_args, source=_P96,
                note="power-spectrum shell binning of a 384^3 rfftn grid (384 x 384 x 193 float2 modes, 228 MB), "
                     "528 blocks of 256 in a grid-stride loop (~210 modes a thread): integer % and / by ng "
                     "for the wavenumbers, sqrtf, a coalesced 8-byte load and two shared atomicAdds (float power, "
                     "uint weight) onto 192 bins (neighbouring lanes mostly hit the same shell: same-address "
                     "conflicts), then 2 x 192 global atomicAdds a block"),
    TimingProbe("probe/leapfrog-kd-ekin", "probe-unseen94", "leapfrog_kick_drift", 1 << 22, 256,
                lambda n: -(-n // 256), _p96_lf_args, source=_P96,
                note="a leapfrog kick-drift of 2^22 particles, a thread a particle: float4 position (w the mass), "
                     "velocity and acceleration loads (16 B a lane, coalesced), 6 FMAs, 3 divisions and floorf "
                     "for the periodic wrap, 2 float4 stores, then the kinetic energy by an 8-level shared tree "
                     "reduction (a __syncthreads each) and one float atomicAdd a block; memory-bound (~320 MB "
                     "moved)"),
]
PROBES += UNSEEN94


# probe-unseen90 (probes92.cu): a sparse iterative-solvers course's kernels (a CSR-vector
# SpMV a warp a row, BiCGSTAB's fused update with two double dot products by a block
# reduction and atomics, one level of a level-scheduled triangular solve, a multigrid
# cycle's residual-and-restrict and prolong-and-correct steps on a 2-D Poisson grid, a
# weighted-Jacobi sweep with a KL-expansion coefficient computed on the fly) as a student
# who knows CUDA basics writes them, predicted before their first GPU run
_P92 = "probes92.cu"
_P92_SPMV_N = 1 << 20                              # csr-vector-spmv: rows
_P92_SPMV_LEN = (16, 80)                           # a row's nonzeros: uniform in this range (mean 48)
_P92_SPMV_HALF = 8192                              # columns in a window of 2 x this rows around the row
_P92_SPMV_BLOCK = 256                              # 8 warps (rows) a block
_P92_BI_N = 1 << 24                                # bicgstab-update: elements
_P92_BI_BLOCK = 256                                # DOT_BLOCK
_P92_BI_ALPHA = 0.62                               # alpha; omega is (t . s) / (t . t) of the data
_P92_BI_T = (1.3, 0.5)                             # t = A s made as 1.3 s + 0.5 N(0, 1)
_P92_TRSV_N = 1 << 22                              # sptrsv-level: rows of L
_P92_TRSV_LEVELS, _P92_TRSV_LEVEL = 4, 2           # rows a level n / levels; the probe solves level 2
_P92_TRSV_DEPS = (4, 12)                           # off-diagonals a row above level 0 (before duplicates go)
_P92_TRSV_WIN = 1024                               # a dependency among the 1024 rows of its level just below the row
_P92_TRSV_DIAG = (4.0, 8.0)                        # the diagonal uniform in this range, off-diagonals in +-1
_P92_TRSV_BLOCK = 256
_P92_MG_NC = 4097                                  # restrict / prolong: coarse points a side (fine 2 nc - 1)
_P92_MG_NOISE = 0.01                               # u: the smooth solution plus this N(0, 1) noise
_P92_MG_BLOCK = (32, 8)
_P92_KL_N = 4096                                   # wjacobi-kl: grid points a side
_P92_KL_M = 8                                      # KL_M
_P92_KL_MODES = ((1, 1), (1, 2), (2, 1), (2, 2), (1, 3), (3, 1), (2, 3), (3, 2))   # (p, q) / pi of each mode
_P92_KL_OMEGA = 0.8                                # the Jacobi weight


def _p92_spmv_matrix(n, rng, lens=_P92_SPMV_LEN, half=_P92_SPMV_HALF):
    """An n x n CSR matrix (row_ptr, col int32; val float32): row lengths uniform in lens,
    the columns distinct and sorted, one a bin of the row's window of min(n, 2 half)
    columns around the diagonal (clipped to the matrix), values uniform in +-1."""
    ln = rng.integers(lens[0], lens[1] + 1, n)
    row_ptr = np.zeros(n + 1, np.int64)
    row_ptr[1:] = np.cumsum(ln)
    nnz = int(row_ptr[-1])
    span = min(n, 2 * half)
    start = np.clip(np.arange(n) - span // 2, 0, n - span)
    row = np.repeat(np.arange(n, dtype=np.int32), ln)
    k = np.arange(nnz, dtype=np.int64) - np.repeat(row_ptr[:-1], ln)
    w = span // ln[row]                                     # each nonzero a bin of w columns
    col = start[row] + k * w + (rng.random(nnz, dtype=np.float32) * w).astype(np.int64)
    val = rng.uniform(-1, 1, nnz).astype(np.float32)
    return row_ptr.astype(np.int32), col.astype(np.int32), val


def _p92_spmv_args(n, rng):
    """_p92_spmv_matrix(n); x (float32, N(0, 1)); y (zeroed); n."""
    row_ptr, col, val = _p92_spmv_matrix(n, rng)
    return [row_ptr, col, val, rng.standard_normal(n, dtype=np.float32), np.zeros(n, np.float32), _i32(n)]


def _p92_spmv_ref(row_ptr, col, val, x):
    """A x in float64 (empty rows 0)."""
    row_ptr = np.asarray(row_ptr, np.int64)
    n = len(row_ptr) - 1
    row = np.repeat(np.arange(n), np.diff(row_ptr))
    return np.bincount(row, weights=np.asarray(val, np.float64) * np.asarray(x, np.float64)[col], minlength=n)


def _p92_bicg_args(n, rng):
    """BiCGSTAB mid-run: x, p, s, r0hat N(0, 1), t = 1.3 s + 0.5 N(0, 1) (float32); r
    (zeroed); alpha, omega = (t . s) / (t . t) (float32); dots (2 doubles, zeroed); n."""
    f = np.float32
    x, p, s, r0 = (rng.standard_normal(n, dtype=f) for _ in range(4))
    t = (_P92_BI_T[0] * s + _P92_BI_T[1] * rng.standard_normal(n, dtype=f)).astype(f)
    td = t.astype(np.float64)
    omega = f(td @ s.astype(np.float64) / (td @ td))
    return [x, np.zeros(n, f), p, s, t, r0, f(_P92_BI_ALPHA), omega, np.zeros(2, np.float64), _i32(n)]


def _p92_bicg_ref(x, p, s, t, r0, alpha, omega):
    """bicgstab_update in float64: x, r and the dots (r0 . r, r . r)."""
    x, p, s, t, r0 = (np.asarray(a, np.float64) for a in (x, p, s, t, r0))
    alpha, omega = float(alpha), float(omega)
    xn = x + alpha * p + omega * s
    r = s - omega * t
    return xn, r, np.array([r0 @ r, r @ r])


def _p92_trsv_matrix(n, rng, levels=_P92_TRSV_LEVELS, deps=_P92_TRSV_DEPS, win=_P92_TRSV_WIN):
    """A sparse lower-triangular n x n matrix in CSR with its level schedule: every row a
    level drawn at random (n / levels rows a level, n a multiple of levels); a row of level
    l > 0 depends on rows before it (column < row) of lower levels, its first dependency in
    level l - 1 and the others in a level uniform in 0 .. l - 1, each among the `win` rows of
    that level just below the row (duplicates dropped; the few rows near the top with no
    such row keep fewer); the columns sorted, the diagonal last. Values: off-diagonals
    uniform in +-1, the diagonal uniform in _P92_TRSV_DIAG (float32). Returns row_ptr,
    col, val (CSR), level_rows (each level's rows ascending, levels one after another),
    level_ptr and each row's level."""
    lev = np.repeat(np.arange(levels, dtype=np.int32), n // levels)
    rng.shuffle(lev)
    level_rows = np.argsort(lev, kind="stable").astype(np.int32)
    level_ptr = np.arange(levels + 1) * (n // levels)
    below = np.zeros((levels, n), np.int32)                # below[m, i]: rows of level m before row i
    for mm in range(levels - 1):
        np.cumsum(lev[:-1] == mm, out=below[mm, 1:])
    k = np.where(lev > 0, rng.integers(deps[0], deps[1] + 1, n, dtype=np.int32), 0)
    row = np.repeat(np.arange(n, dtype=np.int32), k)
    lr = lev[row]
    m = rng.integers(0, np.maximum(lr, 1), dtype=np.int32)
    m[np.r_[0, np.cumsum(k)[:-1]][k > 0]] = lr[np.r_[0, np.cumsum(k)[:-1]][k > 0]] - 1   # a row's first: l - 1
    pos = below[m, row]
    lo = np.maximum(pos - win, 0)
    r = lo + (rng.random(len(row), dtype=np.float32) * (pos - lo)).astype(np.int32)
    ok = pos > 0
    col = level_rows[level_ptr[m[ok]] + r[ok]]
    key = np.sort(row[ok].astype(np.int64) * n + col)
    key = key[np.r_[True, key[1:] != key[:-1]]] if len(key) else key
    orow, ocol = key // n, key % n
    cnt = np.bincount(orow, minlength=n) + 1
    row_ptr = np.zeros(n + 1, np.int64)
    row_ptr[1:] = np.cumsum(cnt)
    nnz = int(row_ptr[-1])
    colv = np.empty(nnz, np.int64)
    val = np.empty(nnz, np.float32)
    opos = np.arange(len(key)) + orow                       # each row's off-diagonals shift by the diagonals before
    colv[opos] = ocol
    val[opos] = rng.uniform(-1, 1, len(key))
    dpos = row_ptr[1:] - 1
    colv[dpos] = np.arange(n)
    val[dpos] = rng.uniform(*_P92_TRSV_DIAG, n)
    return (row_ptr.astype(np.int32), colv.astype(np.int32), val, level_rows.astype(np.int32),
            level_ptr.astype(np.int32), lev)


def _p92_trsv_solve(row_ptr, col, val, level_rows, level_ptr, b, x, first, last):
    """Levels first .. last - 1 of the level-scheduled solve, level by level in float64 (x
    of the earlier levels given): x with those levels' rows solved (float64)."""
    row_ptr = np.asarray(row_ptr, np.int64)
    n = len(row_ptr) - 1
    x = np.array(x, np.float64)
    rowid = np.repeat(np.arange(n), np.diff(row_ptr))
    dpos = row_ptr[1:] - 1
    off = np.ones(len(col), bool)
    off[dpos] = False
    lev = np.empty(n, np.int64)
    for m in range(len(level_ptr) - 1):
        lev[level_rows[level_ptr[m]:level_ptr[m + 1]]] = m
    val = np.asarray(val, np.float64)
    for m in range(first, last):
        rows = level_rows[level_ptr[m]:level_ptr[m + 1]]
        sel = off & (lev[rowid] == m)
        s = np.bincount(rowid[sel], weights=val[sel] * x[col[sel]], minlength=n)
        x[rows] = (np.asarray(b, np.float64)[rows] - s[rows]) / val[dpos[rows]]
    return x


def _p92_trsv_args(n, rng):
    """_p92_trsv_matrix(n); b (float32, N(0, 1)); x with levels 0 .. _P92_TRSV_LEVEL - 1
    solved (float32, the rest 0); the probe level's start and end in level_rows."""
    row_ptr, col, val, level_rows, level_ptr, lev = _p92_trsv_matrix(n, rng)
    b = rng.standard_normal(n, dtype=np.float32)
    x = _p92_trsv_solve(row_ptr, col, val, level_rows, level_ptr, b, np.zeros(n), 0, _P92_TRSV_LEVEL)
    L = _P92_TRSV_LEVEL
    return [row_ptr, col, val, level_rows, b, x.astype(np.float32), _i32(level_ptr[L]), _i32(level_ptr[L + 1])]


def _p92_mg_fine(nf, rng):
    """A fine nf x nf grid (spacing 1 / (nf - 1)): u = sin(pi x) sin(pi y) plus
    _P92_MG_NOISE N(0, 1) noise inside, 0 on the boundary; f = 2 pi^2 sin(pi x) sin(pi y)
    (both float32, row-major)."""
    sn = np.sin(np.pi * np.linspace(0.0, 1.0, nf)).astype(np.float32)
    sm = np.outer(sn, sn)
    u = sm + np.float32(_P92_MG_NOISE) * rng.standard_normal((nf, nf), dtype=np.float32)
    u[0, :] = u[-1, :] = u[:, 0] = u[:, -1] = 0
    return u.ravel(), (np.float32(2 * np.pi ** 2) * sm).ravel()


def _p92_restrict_args(nc, rng):
    """_p92_mg_fine(2 nc - 1): u, f; rc (nc x nc, zeroed); nf, nc, 1 / h^2 (float32)."""
    nf = 2 * nc - 1
    u, f = _p92_mg_fine(nf, rng)
    return [u, f, np.zeros(nc * nc, np.float32), _i32(nf), _i32(nc), np.float32((nf - 1) ** 2)]


def _p92_restrict_ref(u, f, nc, inv_h2):
    """restrict_residual in float64: the coarse residual (nc x nc, flat) and the fine one."""
    nf = 2 * nc - 1
    U = np.asarray(u, np.float64).reshape(nf, nf)
    F = np.asarray(f, np.float64).reshape(nf, nf)
    R = np.zeros((nf, nf))
    R[1:-1, 1:-1] = F[1:-1, 1:-1] - (4 * U[1:-1, 1:-1] - U[1:-1, :-2] - U[1:-1, 2:] - U[:-2, 1:-1]
                                     - U[2:, 1:-1]) * float(inv_h2)
    rc = np.zeros((nc, nc))
    c = R[2:-2:2, 2:-2:2]
    e = R[1:-3:2, 2:-2:2] + R[3:-1:2, 2:-2:2] + R[2:-2:2, 1:-3:2] + R[2:-2:2, 3:-1:2]
    k = R[1:-3:2, 1:-3:2] + R[1:-3:2, 3:-1:2] + R[3:-1:2, 1:-3:2] + R[3:-1:2, 3:-1:2]
    rc[1:-1, 1:-1] = (4 * c + 2 * e + k) / 16
    return rc.ravel(), R.ravel()


def _p92_prolong_args(nc, rng):
    """_p92_mg_fine(2 nc - 1)'s u; the coarse error ec (nc x nc, float32: a smooth mode
    plus N(0, 0.1^2) noise inside, 0 on the boundary); nf, nc."""
    nf = 2 * nc - 1
    u, _ = _p92_mg_fine(nf, rng)
    sn = np.sin(np.pi * np.linspace(0.0, 1.0, nc)).astype(np.float32)
    ec = (np.float32(-0.05) * np.outer(sn, sn) + np.float32(0.1) * rng.standard_normal((nc, nc), dtype=np.float32))
    ec[0, :] = ec[-1, :] = ec[:, 0] = ec[:, -1] = 0
    return [u, ec.ravel(), _i32(nf), _i32(nc)]


def _p92_prolong_ref(u, ec, nc):
    """prolong_correct in float32 as the kernel rounds it (bit for bit): u after."""
    nf = 2 * nc - 1
    f = np.float32
    E = np.asarray(ec, f).reshape(nc, nc)
    U = np.array(u, f).reshape(nf, nf)
    P = np.zeros((nf, nf), f)
    P[0::2, 0::2] = E
    P[0::2, 1::2] = f(0.5) * (E[:, :-1] + E[:, 1:])
    P[1::2, 0::2] = f(0.5) * (E[:-1, :] + E[1:, :])
    P[1::2, 1::2] = f(0.25) * (((E[:-1, :-1] + E[:-1, 1:]) + E[1:, :-1]) + E[1:, 1:])
    U[1:-1, 1:-1] += P[1:-1, 1:-1]
    return U.ravel()


def _p92_kl_syms(n, rng):
    """One realization of the KL field: a_m = xi_m / sqrt(p^2 + q^2) (xi N(0, 1)), p_m =
    pi p, q_m = pi q of _P92_KL_MODES (float32)."""
    pq = np.array(_P92_KL_MODES, np.float64)
    a = rng.standard_normal(_P92_KL_M) / np.sqrt((pq ** 2).sum(axis=1))
    return {"c_kl_a": a.astype(np.float32), "c_kl_p": (np.pi * pq[:, 0]).astype(np.float32),
            "c_kl_q": (np.pi * pq[:, 1]).astype(np.float32)}


def _p92_kl_args(n, rng):
    """An n x n iterate u (float32, N(0, 1) inside, 0 on the boundary), f = 1; u_new
    (zeroed); omega, h = 1 / (n - 1) (float32), n."""
    u = rng.standard_normal((n, n), dtype=np.float32)
    u[0, :] = u[-1, :] = u[:, 0] = u[:, -1] = 0
    return [u.ravel(), np.ones(n * n, np.float32), np.zeros(n * n, np.float32), np.float32(_P92_KL_OMEGA),
            np.float32(1.0 / (n - 1)), _i32(n)]


def _p92_kappa(x, y, syms):
    """The KL coefficient exp(sum a sin(p x) sin(q y)) in float64."""
    s = 0.0
    for a, p, q in zip(*(np.asarray(syms[k], np.float64) for k in ("c_kl_a", "c_kl_p", "c_kl_q"))):
        s = s + a * np.sin(p * x) * np.sin(q * y)
    return np.exp(s)


def _p92_kl_ref(u, f, omega, h, n, syms):
    """wjacobi_kl in float64 (the face midpoints at the kernel's float32 coordinates): u_new."""
    f32 = np.float32
    U = np.asarray(u, np.float64).reshape(n, n)
    F = np.asarray(f, np.float64).reshape(n, n)
    h32 = f32(h)
    c = np.arange(n, dtype=f32) * h32                       # j * h in float32
    hh = f32(0.5) * h32
    x = c[None, 1:-1].astype(np.float64)
    y = c[1:-1, None].astype(np.float64)
    kw = _p92_kappa((c[1:-1] - hh).astype(np.float64)[None, :], y, syms)
    ke = _p92_kappa((c[1:-1] + hh).astype(np.float64)[None, :], y, syms)
    ks = _p92_kappa(x, (c[1:-1] - hh).astype(np.float64)[:, None], syms)
    kn = _p92_kappa(x, (c[1:-1] + hh).astype(np.float64)[:, None], syms)
    nb = kw * U[1:-1, :-2] + ke * U[1:-1, 2:] + ks * U[:-2, 1:-1] + kn * U[2:, 1:-1]
    hd = float(h32)
    uj = (hd * hd * F[1:-1, 1:-1] + nb) / (kw + ke + ks + kn)
    out = U.copy()
    out[1:-1, 1:-1] = (1 - float(omega)) * U[1:-1, 1:-1] + float(omega) * uj
    return out.ravel()


UNSEEN90 = [
    TimingProbe("probe/csr-vector-spmv-band", "probe-unseen90", "csr_vector_spmv", _P92_SPMV_N, _P92_SPMV_BLOCK,
                lambda n: -(-n // (_P92_SPMV_BLOCK // 32)), _p92_spmv_args, source=_P92,
                note="CSR SpMV in the vector form on 2^20 rows of 16 .. 80 nonzeros (mean 48, ~50M nonzeros), a "
                     "warp a row (8 rows a 256-thread block): row_ptr read by every lane, the lanes stride the row "
                     "32 at a time (coalesced val/col, 1-3 trips, the last partial), x gathered at sorted columns "
                     "spread over a 16384-row window around the row (L2-resident x), a 5-step __shfl_down_sync "
                     "sum and one store by lane 0; memory-bound"),
    TimingProbe("probe/bicgstab-update-2dot", "probe-unseen90", "bicgstab_update", _P92_BI_N, _P92_BI_BLOCK,
                lambda n: -(-n // _P92_BI_BLOCK), _p92_bicg_args, source=_P92,
                note="BiCGSTAB's fused update on 2^24 floats, a thread an element: 5 coalesced float loads (x, p, "
                     "s, t, r0hat) and 2 stores (x, r), the two dot products r0hat.r and r.r in double, a "
                     "shared-memory tree of 8 barriers over two 256-double arrays, and 2 double atomicAdds a "
                     "block on the same 2 words (65536 blocks); memory-bound with double arithmetic and a "
                     "serial tail of same-address atomics"),
    TimingProbe("probe/sptrsv-level-rows", "probe-unseen90", "sptrsv_level", _P92_TRSV_N, _P92_TRSV_BLOCK,
                lambda n: -(-(n // _P92_TRSV_LEVELS) // _P92_TRSV_BLOCK), _p92_trsv_args, source=_P92,
                note="one level (2^20 rows, level 2 of 4) of a level-scheduled sparse lower-triangular solve on "
                     "a 2^22-row CSR factor, a thread a row: the row from the level's ascending row list "
                     "(random rows, ~4 apart: row_ptr, b and x read and x written ~16 bytes apart a lane), a "
                     "serial loop over its 4 .. 12 off-diagonals (lane-dependent trip counts; each row's "
                     "col/val contiguous, the rows apart) gathering x from rows up to ~4100 below, a float "
                     "division by the diagonal; latency-bound dependent loads"),
    TimingProbe("probe/mg-restrict-residual-fw", "probe-unseen90", "restrict_residual", _P92_MG_NC, _P92_MG_BLOCK,
                lambda n: (-(-n // _P92_MG_BLOCK[0]), -(-n // _P92_MG_BLOCK[1])), _p92_restrict_args,
                source=_P92,
                note="a multigrid residual-and-restrict step from an 8193^2 fine grid to 4097^2, a thread a coarse "
                     "point (32 x 8 blocks): full weighting of 9 fine residuals, each recomputed from u (5 "
                     "loads) and f through a device function with a boundary test: 45 u (21 distinct) and 9 f "
                     "loads a thread over 5 fine rows at stride 2 (neighbouring threads share a third of their "
                     "words; every fine word read), ~60 FMAs, one coalesced store; an odd row pitch (8193 floats)"),
    TimingProbe("probe/mg-prolong-bilinear-add", "probe-unseen90", "prolong_correct", _P92_MG_NC, _P92_MG_BLOCK,
                lambda n: (-(-(2 * n - 1) // _P92_MG_BLOCK[0]), -(-(2 * n - 1) // _P92_MG_BLOCK[1])),
                _p92_prolong_args, source=_P92,
                note="a multigrid bilinear prolongation and correction on an 8193^2 fine grid from 4097^2, a "
                     "thread a fine point (32 x 8 blocks): a 4-way if/else on the parities of i and j (odd and "
                     "even lanes alternate: every warp runs two branches), 1, 2 or 4 coarse loads (each coarse "
                     "word read by up to 9 threads, L1/L2 hits), u read and written in place; memory-bound"),
    TimingProbe("probe/wjacobi-kl-coeff-tile", "probe-unseen90", "wjacobi_kl", _P92_KL_N, (16, 16),
                lambda n: (-(-n // 16), -(-n // 16)), _p92_kl_args, source=_P92, symbols=_p92_kl_syms,
                note="a weighted-Jacobi sweep for -div(k grad u) = f on a 4096^2 grid, 16 x 16 blocks staging u "
                     "and a one-point halo in shared memory (edge threads load the halo: divergent), the "
                     "coefficient exp(8-mode KL expansion) evaluated at the 4 face midpoints on the fly from "
                     "__constant__ modes (uniform index): 64 sinf and 4 expf a point, a float division; "
                     "compute-bound (transcendentals)"),
]
PROBES += UNSEEN90


# probe-unseen89 (probes91.cu): a computational-electromagnetics course's kernels (a 3-D
# Yee E update with per-cell materials from __constant__ tables, a 2-D TMz Ez update with
# a CPML and a Ricker point source, a sweep of 1-D FDTD slab runs in shared memory, a
# thin-wire MoM matrix fill by Gauss-Legendre quadrature, a 2-D near-to-far-field sum by
# float atomics, a warp-a-row complex MoM matrix-vector product).
_P91 = "probes91.cu"
_P91_NMAT = 4                                      # fdtd3d: materials (vacuum, dielectric, lossy, PEC)
_P91_EPS, _P91_EAF = (1.0, 4.0, 2.0), 0.1          # their eps_r (PEC aside); the lossy one's sigma dt / (2 eps)
_P91_S3 = 0.5                                      # fdtd3d: the vacuum cb (Courant number; 3-D limit 1/sqrt 3)
_P91_NPML = 20                                     # fdtd2d: the CPML's depth (cells)
_P91_PML_M, _P91_PML_SMAX, _P91_PML_KMAX, _P91_PML_AMAX = 3, 1.0, 5.0, 0.05   # grading, sigma dt/eps0, kappa, alpha
_P91_CA, _P91_CB = 1.0, 0.5                        # fdtd2d: vacuum coefficients (Courant 0.5)
_P91_SRC_AMP, _P91_SRC_PPW, _P91_SRC_Q = 1.0, 20.0, 33   # the Ricker source: amplitude, points a wavelength, step
_P91_N1D, _P91_SRC1D, _P91_RECR, _P91_RECT = 256, 20, 10, 244   # fdtd1d: N1D, SRC_1D, REC_R, REC_T
_P91_STEPS = 800                                   # fdtd1d: steps a run (an argument)
_P91_DT_EPS0, _P91_T0, _P91_SPREAD = 1.883, 40.0, 12.0   # Sullivan's dt / eps0 (dx 1 cm), the pulse's peak and width
_P91_SLAB_EPS, _P91_SLAB_SIG = (1.5, 9.0), (0.0, 0.04)   # each run's slab: eps_r and sigma uniform
_P91_SLAB_LO, _P91_SLAB_W = (60, 100), (10, 60)        # its first cell and thickness, integers uniform
_P91_NQ = 8                                        # mom-fill: Gauss-Legendre points
_P91_K0, _P91_WIRE_A = 2 * np.pi, 1e-3             # wavenumber (wavelength 1), wire radius
_P91_HELIX_R, _P91_HELIX_P, _P91_HELIX_SEG = 0.3, 0.3, 40   # helix radius, pitch, segments a turn
_P91_NANG, _P91_NTFF_DX, _P91_ETA = 720, 0.1, 376.730313   # ntff: angles, sample spacing, eta0
_P91_BLOCK = 256


def _p91_c2f(z):
    """Complex values as interleaved float32 (float2: re, im)."""
    return np.ascontiguousarray(z, np.complex64).view(np.float32).ravel()


def _p91_f2c(a):
    """Interleaved float32 pairs as complex128."""
    a = np.asarray(a, np.float32).reshape(-1, 2).astype(np.float64)
    return a[:, 0] + 1j * a[:, 1]


def _p91_coefs():
    """fdtd3d's ca, cb by material (float32): vacuum (1, S), a dielectric (1, S / eps), a
    lossy dielectric ((1 - f) / (1 + f), S / (eps (1 + f))), PEC (0, 0)."""
    e, f, s = _P91_EPS, _P91_EAF, _P91_S3
    ca = [1.0, 1.0, (1 - f) / (1 + f), 0.0]
    cb = [s / e[0], s / e[1], s / (e[2] * (1 + f)), 0.0]
    return np.array(ca, np.float32), np.array(cb, np.float32)


def _p91_yee_syms(n, rng):
    ca, cb = _p91_coefs()
    return {"c_ca": ca, "c_cb": cb}


def _p91_yee_mat(n):
    """An n^3 grid's materials (uint8, x fastest): a dielectric sphere (1) of radius n/4 at
    the centre, a lossy layer (2) n/32 cells thick from z = 3n/4, a one-cell PEC plate (3)
    at z = n/8 over x, y in [n/4, 3n/4), vacuum (0) elsewhere."""
    z, y, x = np.ogrid[:n, :n, :n]
    c = n / 2
    m = np.zeros((n, n, n), np.uint8)
    m[(x - c) ** 2 + (y - c) ** 2 + (z - c) ** 2 < (n / 4) ** 2] = 1
    m[3 * n // 4:3 * n // 4 + max(1, n // 32)] = 2
    m[n // 8, n // 4:3 * n // 4, n // 4:3 * n // 4] = 3
    return m.ravel()


def _p91_yee_args(n, rng):
    """An n^3 Yee grid mid-run: Ex, Ey, Ez, Hx, Hy, Hz standard normal (float32, zero in
    the PEC cells for E), the materials (_p91_yee_mat); nx, ny, nz."""
    mat = _p91_yee_mat(n)
    f = [rng.standard_normal(n ** 3).astype(np.float32) for _ in range(6)]
    for e in f[:3]:
        e[mat == 3] = 0
    return f + [mat, _i32(n), _i32(n), _i32(n)]


def _p91_yee_ref(Ex, Ey, Ez, Hx, Hy, Hz, mat, n):
    """fdtd3d_update_e in float64: the new Ex, Ey, Ez (flat)."""
    ca, cb = (a.astype(np.float64) for a in _p91_coefs())
    E = [np.array(a, np.float64).reshape(n, n, n) for a in (Ex, Ey, Ez)]
    hx, hy, hz = (np.asarray(a, np.float64).reshape(n, n, n) for a in (Hx, Hy, Hz))
    m = np.asarray(mat).reshape(n, n, n)[1:, 1:, 1:]
    A, B = ca[m], cb[m]
    s = np.s_[1:, 1:, 1:]
    curl = [(hz[s] - hz[1:, :-1, 1:]) - (hy[s] - hy[:-1, 1:, 1:]),
            (hx[s] - hx[:-1, 1:, 1:]) - (hz[s] - hz[1:, 1:, :-1]),
            (hy[s] - hy[1:, 1:, :-1]) - (hx[s] - hx[1:, :-1, 1:])]
    for e, c in zip(E, curl):
        e[s] = A * e[s] + B * c
    return [e.ravel() for e in E]


def _p91_cpml_profile(n, npml=_P91_NPML):
    """The CPML's 1-D profiles b, c, kappa over an axis of n cells (float32): at depth d =
    (npml - i) / npml in the low strip and (i - n + npml + 1) / npml in the high one,
    sigma = smax d^m, kappa = 1 + (kmax - 1) d^m, alpha = amax (1 - d), b = exp(-(sigma /
    kappa + alpha)), c = sigma (b - 1) / (sigma kappa + kappa^2 alpha); b = c = 0, kappa = 1
    outside the strips."""
    i = np.arange(n)
    d = np.where(i < npml, (npml - i) / npml, np.where(i >= n - npml, (i - n + npml + 1) / npml, 0.0))
    sig = _P91_PML_SMAX * d ** _P91_PML_M
    kap = 1 + (_P91_PML_KMAX - 1) * d ** _P91_PML_M
    alp = _P91_PML_AMAX * (1 - d)
    b = np.exp(-(sig / kap + alp))
    c = sig * (b - 1) / (sig * kap + kap * kap * alp)
    pml = d > 0
    return [np.where(pml, v, z).astype(np.float32) for v, z in ((b, 0.0), (c, 0.0), (kap, 1.0))]


def _p91_cpml_args(n, rng):
    """An n x n TMz grid mid-run: Ez, Hx, Hy standard normal, psi_ezx (psi_ezy) N(0, 0.1^2)
    in the x (y) PML strips and zero elsewhere (float32); the x and y profiles
    (_p91_cpml_profile); ca, cb, npml, the source cell (n/2 + 3, n/3), its amplitude, the
    Courant number, points a wavelength, the step; nx, ny."""
    f = np.float32
    ez, hx, hy = (rng.standard_normal(n * n).astype(f) for _ in range(3))
    j, i = np.divmod(np.arange(n * n), n)
    inx = (i < _P91_NPML) | (i >= n - _P91_NPML)
    iny = (j < _P91_NPML) | (j >= n - _P91_NPML)
    px = np.where(inx, 0.1 * rng.standard_normal(n * n), 0).astype(f)
    py = np.where(iny, 0.1 * rng.standard_normal(n * n), 0).astype(f)
    prof = _p91_cpml_profile(n)
    return [ez, hx, hy, px, py] + prof + [p.copy() for p in prof] + [
        f(_P91_CA), f(_P91_CB), _i32(_P91_NPML), _i32(n // 2 + 3), _i32(n // 3), f(_P91_SRC_AMP), f(_P91_CB),
        f(_P91_SRC_PPW), _i32(_P91_SRC_Q), _i32(n), _i32(n)]


def _p91_ricker(q, courant=_P91_CB, ppw=_P91_SRC_PPW):
    arg = (np.pi * (courant * q / ppw - 1.0)) ** 2
    return (1 - 2 * arg) * np.exp(-arg)


def _p91_cpml_ref(ez, hx, hy, px, py, bx, cx, kx, by, cy, ky, ca, cb, npml, si, sj, amp, courant, ppw, q, nx, ny):
    """fdtd2d_cpml_ez in float64: Ez, psi_ezx, psi_ezy (flat)."""
    sh = (int(ny), int(nx))
    E, PX, PY = (np.array(a, np.float64).reshape(sh) for a in (ez, px, py))
    HX, HY = (np.asarray(a, np.float64).reshape(sh) for a in (hx, hy))
    s = np.s_[1:-1, 1:-1]
    i = np.arange(1, nx - 1)[None, :]
    j = np.arange(1, ny - 1)[:, None]
    dhy = HY[s] - HY[1:-1, :-2]
    dhx = HX[s] - HX[:-2, 1:-1]
    b, c, k = (np.asarray(a, np.float64)[1:-1][None, :] for a in (bx, cx, kx))
    inx = (i < npml) | (i >= nx - npml)
    p = b * PX[s] + c * dhy
    PX[s] = np.where(inx, p, PX[s])
    dhy = np.where(inx, dhy / k + p, dhy)
    b, c, k = (np.asarray(a, np.float64)[1:-1][:, None] for a in (by, cy, ky))
    iny = (j < npml) | (j >= ny - npml)
    p = b * PY[s] + c * dhx
    PY[s] = np.where(iny, p, PY[s])
    dhx = np.where(iny, dhx / k + p, dhx)
    E[s] = float(ca) * E[s] + float(cb) * (dhy - dhx)
    E[sj, si] += float(amp) * _p91_ricker(int(q), float(courant), float(ppw))
    return E.ravel(), PX.ravel(), PY.ravel()


def _p91_slab_args(n, rng, steps=_P91_STEPS):
    """n 1-D runs' slabs: eps_r, sigma (float32, uniform in _P91_SLAB_EPS, _P91_SLAB_SIG),
    first cell and end (int32: lo uniform in _P91_SLAB_LO, thickness in _P91_SLAB_W); the
    two probes' records (n x steps, zeroed); dt / eps0, t0, spread, steps."""
    f = np.float32
    lo = rng.integers(_P91_SLAB_LO[0], _P91_SLAB_LO[1] + 1, n).astype(np.int32)
    hi = (lo + rng.integers(_P91_SLAB_W[0], _P91_SLAB_W[1] + 1, n)).astype(np.int32)
    return [rng.uniform(*_P91_SLAB_EPS, n).astype(f), rng.uniform(*_P91_SLAB_SIG, n).astype(f), lo, hi,
            np.zeros(n * steps, f), np.zeros(n * steps, f), f(_P91_DT_EPS0), f(_P91_T0), f(_P91_SPREAD),
            _i32(steps)]


def _p91_slab_ref(eps, sig, lo, hi, steps=_P91_STEPS, dt_eps0=_P91_DT_EPS0, t0=_P91_T0, spread=_P91_SPREAD):
    """fdtd1d_slabs's runs in float64, side by side: the records at REC_R and REC_T (n x
    steps each)."""
    N = _P91_N1D
    nb = len(eps)
    k = np.arange(N)[None, :]
    inside = (k >= np.asarray(lo)[:, None]) & (k < np.asarray(hi)[:, None])
    er, sg = np.asarray(eps, np.float64)[:, None], np.asarray(sig, np.float64)[:, None]
    eaf = float(dt_eps0) * sg / (2 * er)
    ca = np.where(inside, (1 - eaf) / (1 + eaf), 1.0)
    cb = np.where(inside, 0.5 / (er * (1 + eaf)), 0.5)
    ex, hy = np.zeros((nb, N)), np.zeros((nb, N))
    low, high = np.zeros((2, nb)), np.zeros((2, nb))
    rr, rt = np.zeros((nb, steps)), np.zeros((nb, steps))
    for t in range(steps):
        ex[:, 1:] = ca[:, 1:] * ex[:, 1:] + cb[:, 1:] * (hy[:, :-1] - hy[:, 1:])
        ex[:, _P91_SRC1D] += np.exp(-0.5 * ((float(t0) - t) / float(spread)) ** 2)
        ex[:, 0], low = low[1], np.stack([ex[:, 1], low[0]])
        ex[:, -1], high = high[1], np.stack([ex[:, -2], high[0]])
        rr[:, t], rt[:, t] = ex[:, _P91_RECR], ex[:, _P91_RECT]
        hy[:, :-1] += 0.5 * (ex[:, :-1] - ex[:, 1:])
    return rr, rt


def _p91_helix(n):
    """A helix of n straight segments (_P91_HELIX_SEG a turn, radius _P91_HELIX_R, pitch
    _P91_HELIX_P) about z: centres, unit tangents, half lengths (float64)."""
    th = 2 * np.pi * np.arange(n + 1) / _P91_HELIX_SEG
    p = np.stack([_P91_HELIX_R * np.cos(th), _P91_HELIX_R * np.sin(th), _P91_HELIX_P * th / (2 * np.pi)], 1)
    d = np.diff(p, axis=0)
    ln = np.linalg.norm(d, axis=1)
    return (p[:-1] + p[1:]) / 2, d / ln[:, None], ln / 2


def _p91_gauss_syms(n, rng):
    x, w = np.polynomial.legendre.leggauss(_P91_NQ)
    return {"c_gx": x.astype(np.float32), "c_gw": w.astype(np.float32)}


def _p91_mom_args(n, rng):
    """The helix's n segments (_p91_helix; float32 centres x, y, z, tangents x, y, z, half
    lengths), Z (n x n float2, zeroed); k0, the wire radius, n."""
    c, t, h = _p91_helix(n)
    f = np.float32
    return [c[:, 0].astype(f), c[:, 1].astype(f), c[:, 2].astype(f), t[:, 0].astype(f), t[:, 1].astype(f),
            t[:, 2].astype(f), h.astype(f), np.zeros(2 * n * n, f), f(_P91_K0), f(_P91_WIRE_A), _i32(n)]


def _p91_mom_ref(cx, cy, cz, tx, ty, tz, hl, k0=_P91_K0, a=_P91_WIRE_A):
    """mom_wire_fill's matrix in float64 (complex, n x n), from the float32 geometry."""
    c = np.stack([cx, cy, cz], 1).astype(np.float64)
    t = np.stack([tx, ty, tz], 1).astype(np.float64)
    h = np.asarray(hl, np.float64)
    k0, a = float(np.float32(k0)), float(np.float32(a))
    x, w = (v.astype(np.float64) for v in _p91_gauss_syms(0, None).values())
    z = np.zeros((len(h), len(h)), complex)
    for q in range(_P91_NQ):
        pts = c + (h * x[q])[:, None] * t                             # the source points, by column
        R = np.sqrt(((c[:, None, :] - pts[None, :, :]) ** 2).sum(-1) + a * a)
        z += w[q] * h[None, :] * np.exp(-1j * k0 * R) / R
    np.fill_diagonal(z, 2 * np.arcsinh(h / a) - 2j * k0 * h)
    return z * (t @ t.T) / (4 * np.pi)


def _p91_ntff_contour(n, dx=_P91_NTFF_DX):
    """n samples (n a multiple of 4) at the midpoints of a square contour's cells of dx,
    n/4 a side, centred on the origin, counter-clockwise from the bottom side: x, y and
    the outward normals (float64)."""
    m = n // 4
    L = m * dx
    u = -L / 2 + (np.arange(m) + 0.5) * dx
    lo, hi = np.full(m, -L / 2), np.full(m, L / 2)
    x = np.concatenate([u, hi, u[::-1], lo])
    y = np.concatenate([lo, u, hi, u[::-1]])
    nx = np.concatenate([0 * u, 1 + 0 * u, 0 * u, -1 + 0 * u])
    ny = np.concatenate([-1 + 0 * u, 0 * u, 1 + 0 * u, 0 * u])
    return x, y, nx, ny


def _p91_ntff_args(n, rng):
    """The contour (_p91_ntff_contour): x, y, dl (float32); the equivalent currents Jz =
    nx Hy - ny Hx, Mx = ny Ez, My = -nx Ez (float2) of complex normal phasors Ez (unit
    variance) and Hx, Hy (variance 1 / eta0^2); the far field (nang float2, zeroed); k0,
    eta0, n, nang."""
    x, y, nx, ny = _p91_ntff_contour(n)
    cn = lambda s: s * (rng.standard_normal(n) + 1j * rng.standard_normal(n)) / np.sqrt(2)
    ez, hx, hy = cn(1.0), cn(1 / _P91_ETA), cn(1 / _P91_ETA)
    f = np.float32
    return [x.astype(f), y.astype(f), np.full(n, _P91_NTFF_DX, f), _p91_c2f(nx * hy - ny * hx), _p91_c2f(ny * ez),
            _p91_c2f(-nx * ez), np.zeros(2 * _P91_NANG, f), f(_P91_K0), f(_P91_ETA), _i32(n), _i32(_P91_NANG)]


def _p91_ntff_ref(xs, ys, dl, jz, mx, my, k0=_P91_K0, eta=_P91_ETA, nang=_P91_NANG):
    """ntff2d_accumulate's far field in float64 (complex, nang)."""
    phi = 2 * np.pi * np.arange(nang) / nang
    cp, sp = np.cos(phi)[:, None], np.sin(phi)[:, None]
    x, y, w = (np.asarray(a, np.float64)[None, :] for a in (xs, ys, dl))
    J, MX, MY = (_p91_f2c(a)[None, :] for a in (jz, mx, my))
    src = float(np.float32(eta)) * J + MY * cp - MX * sp
    return (w * src * np.exp(1j * float(np.float32(k0)) * (x * cp + y * sp))).sum(axis=1)


def _p91_zmv_args(n, rng):
    """Z (n x n) and I (n) complex normal (unit variance) as float2, V (n float2, zeroed);
    n."""
    cn = lambda m: (rng.standard_normal(m, np.float32) + 1j * rng.standard_normal(m, np.float32)) * np.float32(
        np.sqrt(0.5))
    return [_p91_c2f(cn(n * n)), _p91_c2f(cn(n)), np.zeros(2 * n, np.float32), _i32(n)]


UNSEEN89 = [
    TimingProbe("probe/fdtd3d-yee-e-material", "probe-unseen89", "fdtd3d_update_e", 256, (32, 8),
                lambda n: (n // 32, n // 8, n), _p91_yee_args, source=_P91, symbols=_p91_yee_syms,
                note="the E half of a 3-D Yee FDTD step on a 256^3 grid (block (32, 8), a z-plane a grid layer), a "
                     "thread a cell: a uint8 material index choosing ca, cb from __constant__ tables (4 materials; "
                     "varying within a warp only on the sphere's, layer's and plate's borders), then Ex, Ey, Ez "
                     "read-modify-written and Hx, Hy, Hz read at the cell and at its x-1, y-1 (row above) and "
                     "z-1 (plane below, 256 KiB back) neighbours; ~37 B a cell of DRAM traffic, memory-bound"),
    TimingProbe("probe/fdtd2d-cpml-ez-ricker", "probe-unseen89", "fdtd2d_cpml_ez", 4096, (16, 16),
                lambda n: (n // 16, n // 16), _p91_cpml_args, source=_P91,
                note="the Ez update of a 4096^2 TMz FDTD grid with a 20-cell CPML on all sides (block (16, 16): a "
                     "warp two 16-cell row pieces), a thread a cell: Ez read-modify-written, Hx, Hy at the cell "
                     "and x-1 / y-1; threads in the x (y) strips also read-modify-write a full-grid psi array "
                     "and read 3 1-D profile floats and divide (x strips diverge inside the warps at i 16..19 "
                     "and 4076..4079); one thread adds a Ricker wavelet (expf); memory-bound, ~2% PML cells"),
    TimingProbe("probe/fdtd1d-slab-sweep-smem", "probe-unseen89", "fdtd1d_slabs", 256, _P91_N1D,
                lambda n: n, _p91_slab_args, source=_P91,
                note="a sweep of 256 independent 1-D FDTD runs (a slab each of its own eps_r, sigma, position), a "
                     "block of 256 threads a run (2 blocks an SM: the GPU under-filled) with Ex and Hy in 2 KiB "
                     "of shared memory, 800 time steps of 3 __syncthreads each: an E update (2 shared reads, a "
                     "shared RMW), the source thread's expf, 2 threads' boundary shuffles, 2 threads' global "
                     "record stores, an H update; barrier/shared-latency-bound"),
    TimingProbe("probe/mom-helix-zfill-gauss", "probe-unseen89", "mom_wire_fill", 4096, (16, 16),
                lambda n: (-(-n // 16), -(-n // 16)), _p91_mom_args, source=_P91, symbols=_p91_gauss_syms,
                note="the 4096 x 4096 thin-wire MoM impedance matrix of a 4096-segment helix (block (16, 16), a "
                     "thread an entry, column fastest: a warp 2 rows x 16 columns): 8 Gauss-Legendre points of the "
                     "reduced kernel, each ~10 FMAs, a sqrtf, a division and sincosf (kR up to ~195 rad) with "
                     "the __constant__ node and weight broadcast; the diagonal's lanes (1 in 16 of the diagonal "
                     "blocks') an asinhf instead; ~13 float loads (the row's broadcast) and a float2 store a "
                     "thread (128 MiB written); compute/SFU-bound"),
    TimingProbe("probe/ntff2d-farfield-atomic", "probe-unseen89", "ntff2d_accumulate", 16384, _P91_BLOCK,
                lambda n: (-(-n // _P91_BLOCK), _P91_NANG), _p91_ntff_args, source=_P91,
                note="a 2-D near-to-far-field transform: 16384 contour samples (a 4096-cell square) x 720 angles, "
                     "a thread a pair (grid (64, 720) of 256), two sincosf, 3 float2 and 3 float loads "
                     "(coalesced, 320 KiB in all: L2-resident), then 2 float atomicAdds on the angle's two "
                     "far-field words: every thread of a block on the same 2 addresses, 23.6M atomics onto 1440 "
                     "words; same-address atomic-throughput-bound"),
    TimingProbe("probe/mom-zmatvec-warp", "probe-unseen89", "zmatvec_warp", 6144, _P91_BLOCK,
                lambda n: -(-n * 32 // _P91_BLOCK), _p91_zmv_args, source=_P91,
                note="the complex-float matrix-vector product of an iterative MoM solve, 6144 x 6144 (288 MiB), "
                     "a warp a row (8 rows a block of 256): 192 trips of a coalesced float2 load of Z, a float2 "
                     "load of I (L1/L2 hits, shared by all rows) and a cuCfmaf (4 FMAs), then 10 "
                     "__shfl_down_sync; DRAM-streaming-bound"),
]
PROBES += UNSEEN89


# probe-unseen93 (probes95.cu): an evolutionary-computation / metaheuristics course's
# kernels (a GA's TSP tour-length fitness with a block minimum, a flat particle-swarm
# update, a real-coded GA's tournament/crossover/mutation step, simulated-annealing chains
# on Schwefel's function, ant-colony pheromone deposit by atomicAdd, ant-colony tour
# construction by roulette wheels over shared memory), each stochastic kernel with a
# per-thread xorshift32 state in global memory, as a student who knows CUDA basics
# writes them
_P95 = "probes95.cu"
_P95_TSP_N, _P95_TSP_BLOCK, _P95_TSP_BOX = 64, 256, 100.0   # tsp-fitness: TSP_N, TSP_BLOCK, cities in [0, box)^2
_P95_PSO_DIM, _P95_PSO_BOX = 30, 5.12                     # pso-update: dim; the box [-box, box] an axis
_P95_PSO_W, _P95_PSO_C1, _P95_PSO_C2, _P95_PSO_VMAX = 0.729, 1.49445, 1.49445, 2.0
_P95_PSO_VSD, _P95_PSO_PSD = 1.0, 1.0                     # v ~ N(0, vsd^2); pbest = x + N(0, psd^2) clipped to the box
_P95_GA_DIM, _P95_GA_TOUR, _P95_GA_BOX = 16, 3, 5.12      # ga-breed: GA_DIM, GA_TOUR, the box [-box, box]
_P95_GA_PCROSS, _P95_GA_PMUT, _P95_GA_SIGMA = 0.9, 0.0625, 0.3
_P95_SA_DIM, _P95_SA_ITERS, _P95_SA_BLOCK = 8, 500, 128   # sa-schwefel: SA_DIM, the moves a chain (an argument), block
_P95_SA_T0, _P95_SA_COOL, _P95_SA_STEP = 200.0, 0.99, 40.0
_P95_ACO_N, _P95_ACO_BLOCK, _P95_ACO_Q = 128, 128, 1.0    # aco-deposit: ACO_N, block, Q
_P95_ACO_REV = 3                                          # 2-opt reversals applied to each ant's copy of the base tour
_P95_AC_N, _P95_AC_BLOCK, _P95_AC_BETA = 32, 128, 2.0     # aco-construct: AC_N, block, eta's exponent (alpha 1)


def _p95_xorshift(s):
    """xorshift32 of uint32 s (probes95.cu's xorshift32), the next state."""
    s = np.asarray(s, np.uint32)
    s = s ^ (s << np.uint32(13))
    s = s ^ (s >> np.uint32(17))
    return s ^ (s << np.uint32(5))


def _p95_u01(s):
    """rand01 of an already advanced state: its top 24 bits over 2^24 (float32, exact)."""
    return (np.asarray(s, np.uint32) >> np.uint32(8)).astype(np.float32) * np.float32(1.0 / 16777216.0)


def _p95_states(n, rng):
    """n xorshift32 states (uint32, nonzero)."""
    return rng.integers(1, 1 << 32, int(n), dtype=np.uint64).astype(np.uint32)


def _p95_fma(a, b, c):
    """fmaf(a, b, c) for float32 arrays: the product exact in float64, one rounding."""
    return (np.float64(1) * np.asarray(a, np.float32) * np.asarray(b, np.float32)
            + np.asarray(c, np.float32)).astype(np.float32)


def _p95_tsp_args(n, rng):
    """TSP_N cities' x and y (float32 uniform in [0, box)) and n random tours (int32,
    each a permutation of the cities, tour after tour); lengths and the blocks' best out
    (zeroed); n."""
    m = _P95_TSP_N
    cx = rng.uniform(0, _P95_TSP_BOX, m).astype(np.float32)
    cy = rng.uniform(0, _P95_TSP_BOX, m).astype(np.float32)
    tours = rng.permuted(np.tile(np.arange(m, dtype=np.int32), (int(n), 1)), axis=1)
    return [tours.ravel(), cx, cy, np.zeros(n, np.float32), np.zeros(-(-n // _P95_TSP_BLOCK), np.float32), _i32(n)]


def _p95_tsp_ref(tours, cx, cy):
    """tsp_fitness in float64: the closed tours' lengths and each block's shortest."""
    t = np.asarray(tours).reshape(-1, _P95_TSP_N)
    x, y = np.asarray(cx, np.float64)[t], np.asarray(cy, np.float64)[t]
    L = np.hypot(np.roll(x, -1, axis=1) - x, np.roll(y, -1, axis=1) - y).sum(axis=1)
    n = len(L)
    pad = np.full(-(-n // _P95_TSP_BLOCK) * _P95_TSP_BLOCK, np.inf)
    pad[:n] = L
    return L, pad.reshape(-1, _P95_TSP_BLOCK).min(axis=1)


def _p95_pso_args(n, rng):
    """A swarm of n particles in PSO_DIM dimensions mid-run (particle after particle,
    float32): x uniform in the box, v N(0, vsd^2), pbest x + N(0, psd^2) clipped to the
    box, gbest one particle's pbest; the states (uint32, one a coordinate); w, c1, c2,
    vmax, xmin, xmax, dim, total = n * dim."""
    f, d, b = np.float32, _P95_PSO_DIM, _P95_PSO_BOX
    t = int(n) * d
    x = rng.uniform(-b, b, t).astype(f)
    v = rng.normal(0, _P95_PSO_VSD, t).astype(f)
    pb = np.clip(x + rng.normal(0, _P95_PSO_PSD, t), -b, b).astype(f)
    g = pb.reshape(-1, d)[rng.integers(0, n)].copy()
    return [x, v, pb, g, _p95_states(t, rng), f(_P95_PSO_W), f(_P95_PSO_C1), f(_P95_PSO_C2), f(_P95_PSO_VMAX),
            f(-b), f(b), _i32(d), _i32(t)]


def _p95_pso_ref(x, v, pb, g, st, w=_P95_PSO_W, c1=_P95_PSO_C1, c2=_P95_PSO_C2, vmax=_P95_PSO_VMAX,
                 box=_P95_PSO_BOX):
    """pso_update in float64 (float32 constants): x, v, the states, and the smallest
    distance of an unclamped x + v from a wall (the branch's margin)."""
    f = np.float32
    d = len(g)
    s1 = _p95_xorshift(st)
    s2 = _p95_xorshift(s1)
    r1, r2 = _p95_u01(s1).astype(np.float64), _p95_u01(s2).astype(np.float64)
    xx = np.asarray(x, np.float64)
    gg = np.tile(np.asarray(g, np.float64), len(xx) // d)
    vi = (float(f(w)) * np.asarray(v, np.float64) + float(f(c1)) * r1 * (np.asarray(pb, np.float64) - xx)
          + float(f(c2)) * r2 * (gg - xx))
    vm = float(f(vmax))
    vi = np.clip(vi, -vm, vm)
    xn = xx + vi
    lo, hi = float(f(-box)), float(f(box))
    gap = np.minimum(np.abs(xn - lo), np.abs(xn - hi)).min()
    wall = (xn < lo) | (xn > hi)
    return np.clip(xn, lo, hi), np.where(wall, 0.0, vi), s2, gap


def _p95_sphere(p):
    """The sphere function of GA_DIM-gene rows (float32 in, float32 out, summed in float64)."""
    q = np.asarray(p, np.float64).reshape(-1, _P95_GA_DIM)
    return (q * q).sum(axis=1).astype(np.float32)


def _p95_ga_args(n, rng):
    """A population of n individuals (GA_DIM genes, row-major, float32 uniform in the box)
    and their sphere fitnesses; the children (zeroed); the states; p_cross, p_mut, sigma,
    lo, hi, n."""
    f, b = np.float32, _P95_GA_BOX
    pop = rng.uniform(-b, b, int(n) * _P95_GA_DIM).astype(f)
    return [pop, _p95_sphere(pop), np.zeros_like(pop), _p95_states(n, rng), f(_P95_GA_PCROSS), f(_P95_GA_PMUT),
            f(_P95_GA_SIGMA), f(-b), f(b), _i32(n)]


def _p95_ga_ref(pop, fit, st, p_cross=_P95_GA_PCROSS, p_mut=_P95_GA_PMUT, sigma=_P95_GA_SIGMA, box=_P95_GA_BOX):
    """ga_breed in numpy (float64 arithmetic on the float32 inputs): the children
    (n x GA_DIM), the states after, the parents (2 x n), the crossover and mutation masks."""
    f = np.float32
    D = _P95_GA_DIM
    P = np.asarray(pop, np.float64).reshape(-1, D)
    fit = np.asarray(fit, np.float32)
    n = len(fit)
    s = np.array(st, np.uint32)
    parents = []
    for _ in range(2):
        s = _p95_xorshift(s)
        best = (s % np.uint32(n)).astype(np.int64)
        for _ in range(1, _P95_GA_TOUR):
            s = _p95_xorshift(s)
            c = (s % np.uint32(n)).astype(np.int64)
            best = np.where(fit[c] < fit[best], c, best)
        parents.append(best)
    s = _p95_xorshift(s)
    alpha = _p95_u01(s).astype(np.float64)
    s = _p95_xorshift(s)
    cross = _p95_u01(s) < f(p_cross)
    a, b = P[parents[0]], P[parents[1]]
    g = np.where(cross[:, None], alpha[:, None] * a + (1 - alpha[:, None]) * b, a)
    mut = np.zeros((n, D), bool)
    lo, hi = float(f(-box)), float(f(box))
    for d in range(D):
        s = _p95_xorshift(s)
        m = _p95_u01(s) < f(p_mut)
        s1 = np.where(m, _p95_xorshift(s), s)
        s2 = np.where(m, _p95_xorshift(s1), s1)
        u1 = ((s1 >> np.uint32(8)).astype(np.float64) + 1) / 16777216.0
        u2 = _p95_u01(s2).astype(np.float64)
        z = np.sqrt(-2 * np.log(u1)) * np.cos(float(f(6.28318531)) * u2)
        g[:, d] = np.where(m, np.clip(g[:, d] + float(f(sigma)) * z, lo, hi), g[:, d])
        mut[:, d] = m
        s = s2
    return g, s, np.array(parents), cross, mut


def _p95_schwefel(x):
    """Schwefel's function of SA_DIM-coordinate rows (float64)."""
    x = np.asarray(x, np.float64).reshape(-1, _P95_SA_DIM)
    return 418.9829 * _P95_SA_DIM - (x * np.sin(np.sqrt(np.abs(x)))).sum(axis=1)


def _p95_sa_args(n, rng):
    """n chains' starting points (float32 uniform in [-500, 500], row-major n x SA_DIM);
    f and the best f out (zeroed); the states; t0, cool, step, iters, n."""
    f = np.float32
    x = rng.uniform(-500, 500, int(n) * _P95_SA_DIM).astype(f)
    return [x, np.zeros(n, f), np.zeros(n, f), _p95_states(n, rng), f(_P95_SA_T0), f(_P95_SA_COOL), f(_P95_SA_STEP),
            _i32(_P95_SA_ITERS), _i32(n)]


def _p95_sa_ref(x, st, t0=_P95_SA_T0, cool=_P95_SA_COOL, step=_P95_SA_STEP, iters=_P95_SA_ITERS):
    """sa_schwefel in float32 numpy (the fma as one rounding): the points, f, the best f,
    the states, the accepted moves, and the smallest margin of an acceptance test (|df|
    for df != 0, |u - exp(-df / T)| for df > 0, in float64)."""
    f = np.float32
    D = _P95_SA_DIM

    def term(v):
        v = np.asarray(v, f)
        return -v * np.sin(np.sqrt(np.abs(v)))
    p = np.array(x, f).reshape(-1, D)
    n = len(p)
    rows = np.arange(n)
    fv = np.full(n, f(f(418.9829) * f(D)), f)
    for d in range(D):
        fv = fv + term(p[:, d])
    best = fv.copy()
    s = np.array(st, np.uint32)
    T = f(t0)
    acc = np.zeros(n, np.int64)
    gap = np.inf
    for _ in range(iters):
        s = _p95_xorshift(s)
        d = (s % np.uint32(D)).astype(np.int64)
        s = _p95_xorshift(s)
        u = _p95_u01(s)
        xn = _p95_fma(f(step), f(2) * u - f(1), p[rows, d])
        xn = np.clip(xn, f(-500), f(500))
        df = term(xn) - term(p[rows, d])
        down = df <= 0
        s2 = np.where(down, s, _p95_xorshift(s))
        u2 = _p95_u01(s2).astype(np.float64)
        pr = np.exp(-df.astype(np.float64) / np.float64(T))
        nz = df != 0
        if nz.any():
            gap = min(gap, float(np.abs(df[nz]).min()))
        if (~down).any():
            gap = min(gap, float(np.abs(u2 - pr)[~down].min()))
        ok = down | (u2 < pr)
        p[rows[ok], d[ok]] = xn[ok]
        fv = np.where(ok, fv + df, fv).astype(f)
        best = np.minimum(best, fv)
        acc += ok
        s = s2
        T = f(T * f(cool))
    return p.ravel(), fv, best, s, acc, gap


def _p95_aco_cities(n_cities, seed):
    """n_cities random cities in the unit square (fixed by seed) and their distance
    matrix (float64)."""
    r = np.random.default_rng(seed)
    c = r.random((n_cities, 2))
    return c, np.hypot(*(c[:, None, :] - c[None, :, :]).transpose(2, 0, 1))


def _p95_aco_base_tour():
    """The colony's converged tour: nearest neighbour from city 0 over ACO_N fixed cities."""
    _, dm = _p95_aco_cities(_P95_ACO_N, 93)
    tour, seen = [0], {0}
    for _ in range(_P95_ACO_N - 1):
        row = dm[tour[-1]].copy()
        row[list(seen)] = np.inf
        j = int(np.argmin(row))
        tour.append(j)
        seen.add(j)
    return np.array(tour, np.int32)


def _p95_aco_args(n, rng):
    """n ants' closed tours (int32, ant after ant) late in a run: the base tour rotated to
    a random start, reversed with probability 1/2, then ACO_REV random 2-opt segment
    reversals; their lengths (float32) over the fixed cities; the pheromone matrix
    (ACO_N x ACO_N float32 uniform in [0.05, 0.15], after evaporation); Q, n."""
    N = _P95_ACO_N
    n = int(n)
    base = _p95_aco_base_tour()
    k = (np.arange(N)[None, :] + rng.integers(0, N, (n, 1))) % N
    k = np.where(rng.random((n, 1)) < 0.5, k, k[:, ::-1])
    t = base[k]
    pos = np.arange(N)[None, :]
    for _ in range(_P95_ACO_REV):
        a, b = np.sort(rng.integers(0, N, (2, n)), axis=0)
        a, b = a[:, None], b[:, None]
        idx = np.where((pos >= a) & (pos <= b), a + b - pos, pos)
        t = np.take_along_axis(t, idx, axis=1)
    _, dm = _p95_aco_cities(N, 93)
    L = dm[t, np.roll(t, -1, axis=1)].sum(axis=1).astype(np.float32)
    tau = rng.uniform(0.05, 0.15, N * N).astype(np.float32)
    return [t.astype(np.int32).ravel(), L, tau, np.float32(_P95_ACO_Q), _i32(n)]


def _p95_aco_ref(tours, L, tau, Q=_P95_ACO_Q):
    """aco_deposit in float64: the pheromone matrix after (flat)."""
    N = _P95_ACO_N
    t = np.asarray(tours).reshape(-1, N).astype(np.int64)
    dep = (np.float32(Q) / np.asarray(L, np.float32)).astype(np.float64)
    out = np.array(tau, np.float64)
    a, b = t, np.roll(t, -1, axis=1)
    w = np.repeat(dep, N)
    np.add.at(out, (a * N + b).ravel(), w)
    np.add.at(out, (b * N + a).ravel(), w)
    return out


def _p95_ac_args(n, rng):
    """AC_N random cities' choice_info (float32 tau * (1 / d)^beta, tau uniform in
    [0.5, 1.5], the diagonal 0) and distances (float32, flat AC_N x AC_N); the tours and
    lengths out (zeroed); the states; n."""
    N = _P95_AC_N
    _, dm = _p95_aco_cities(N, int(rng.integers(1 << 30)))
    tau = rng.uniform(0.5, 1.5, (N, N))
    tau = (tau + tau.T) / 2
    with np.errstate(divide="ignore"):
        ch = np.where(dm > 0, tau * (1.0 / dm) ** _P95_AC_BETA, 0.0)
    return [ch.astype(np.float32).ravel(), dm.astype(np.float32).ravel(), np.zeros(int(n) * N, np.int32),
            np.zeros(n, np.float32), _p95_states(n, rng), _i32(n)]


def _p95_ac_ref(choice, dist, st):
    """aco_construct in float32 numpy, sums in the kernel's order (bit exact): the tours
    (n x AC_N), lengths, the states, and the smallest relative margin |acc - r| / total
    of a roulette's stopping test."""
    f = np.float32
    N = _P95_AC_N
    C = np.asarray(choice, f).reshape(N, N)
    Dm = np.asarray(dist, f).reshape(N, N)
    s = _p95_xorshift(st)
    n = len(s)
    rows = np.arange(n)
    start = (s % np.uint32(N)).astype(np.int64)
    vis = np.zeros((n, N), bool)
    vis[rows, start] = True
    cur = start.copy()
    L = np.zeros(n, f)
    tours = np.zeros((n, N), np.int64)
    tours[:, 0] = start
    gap = np.inf
    for step in range(1, N):
        total = np.zeros(n, f)
        for j in range(N):
            total = np.where(vis[:, j], total, total + C[cur, j]).astype(f)
        s = _p95_xorshift(s)
        r = (_p95_u01(s) * total).astype(f)
        acc = np.zeros(n, f)
        nxt = np.full(n, -1)
        done = np.zeros(n, bool)
        for j in range(N):
            on = ~done & ~vis[:, j]
            acc = np.where(on, acc + C[cur, j], acc).astype(f)
            nxt = np.where(on, j, nxt)
            gap = min(gap, float((np.abs(acc.astype(np.float64) - r) / total)[on].min()) if on.any() else gap)
            done |= on & (acc >= r)
        vis[rows, nxt] = True
        tours[:, step] = nxt
        L = (L + Dm[cur, nxt]).astype(f)
        cur = nxt
    L = (L + Dm[cur, start]).astype(f)
    return tours, L, s, gap


UNSEEN93 = [
    TimingProbe("probe/ga-tsp-tourlen-blockmin", "probe-unseen93", "tsp_fitness", 1 << 18, _P95_TSP_BLOCK,
                lambda n: -(-n // _P95_TSP_BLOCK), _p95_tsp_args, source=_P95,
                note="a GA's fitness on 2^18 random TSP tours of 64 cities (int32, tour after tour: a warp's lanes "
                     "256 B apart, 64 loads a lane walking their rows), a thread a tour: 64 cities' x and y staged "
                     "in shared memory, shared gathers of x and y (random city index) and a sqrtf a leg, the length "
                     "stored, then the block's shortest by a shared-memory tree reduction (9 barriers in all)"),
    TimingProbe("probe/pso-flat-update-xorshift", "probe-unseen93", "pso_update", 1 << 19, 256,
                lambda n: -(-(n * _P95_PSO_DIM) // 256), _p95_pso_args, source=_P95,
                note="one PSO velocity/position update on 2^19 particles x 30 dimensions (15.7M coordinates, flat "
                     "particle after particle), a thread a coordinate: i % 30 (an integer modulo) picks gbest's "
                     "entry (a 120-byte broadcast table), coalesced loads of x, v, pbest and a xorshift32 state, "
                     "2 draws, ~6 FMAs and clamps (early in a run: ~50% of velocities clamped to vmax, ~2% of "
                     "positions stopped at a wall); x, v and the state stored; memory-bound (28 B a coordinate)"),
    TimingProbe("probe/ga-tournament-blx-mutate", "probe-unseen93", "ga_breed", 1 << 20, 256,
                lambda n: -(-n // 256), _p95_ga_args, source=_P95,
                note="a real-coded GA's breeding on 2^20 individuals of 16 float genes (row-major), a thread a "
                     "child: 2 tournaments of 3 (6 xorshift draws, integer modulo by n, random 4-byte gathers "
                     "from the 4 MB fitness array), the two parents' 64-byte rows gathered at random, arithmetic "
                     "crossover (p 0.9) and per gene a draw and, 1 in 16, a Box-Muller normal (logf, sqrtf, cosf; "
                     "divergent); the child's row stored (lanes 64 B apart) and the state"),
    TimingProbe("probe/sa-schwefel-chains", "probe-unseen93", "sa_schwefel", 1 << 15, _P95_SA_BLOCK,
                lambda n: -(-n // _P95_SA_BLOCK), _p95_sa_args, source=_P95,
                note="simulated annealing on the 8-D Schwefel function with 2^15 chains of 500 moves, a thread a "
                     "chain (256 blocks of 128): the point in a float p[8] indexed by a random coordinate (local "
                     "memory), each move 2-3 xorshift draws, 2 sinf(sqrtf(fabsf)) terms, a float division and an "
                     "expf Metropolis test (divergent: ~76% of proposals uphill, drawing again for the test; ~41% "
                     "of moves accepted), T times 0.99 a move; compute- and latency-bound, few warps an SM"),
    TimingProbe("probe/aco-deposit-atomicadd", "probe-unseen93", "aco_deposit", 1 << 15, _P95_ACO_BLOCK,
                lambda n: -(-n // _P95_ACO_BLOCK), _p95_aco_args, source=_P95,
                note="ant-colony pheromone deposit by 2^15 ants on a 128-city tour (int32 tours, lanes 512 B "
                     "apart), a thread an ant: one float division, then 128 edges each 2 tour loads and 2 float "
                     "atomicAdd on the 64 KB 128 x 128 matrix (8.4M atomics); the colony has nearly converged "
                     "(each tour the base tour rotated/reversed plus 3 2-opt reversals), so ~95% of the "
                     "atomics land on the base tour's 256 entries and the lanes of a warp on different ones"),
    TimingProbe("probe/aco-roulette-smem", "probe-unseen93", "aco_construct", 1 << 15, _P95_AC_BLOCK,
                lambda n: -(-n // _P95_AC_BLOCK), _p95_ac_args, source=_P95,
                note="ant-colony tour construction on 32 cities by 2^15 ants, a thread an ant (256 blocks of 128): "
                     "choice_info and distances (2 x 4 KB) staged in shared memory, a 32-bit visited mask; 31 "
                     "steps each a 32-city sum over the unvisited (a lane's row = its current city, so a warp's "
                     "reads of column j all hit bank j: a conflict as wide as the warp's distinct current cities, "
                     "~20) and a roulette scan that breaks early (divergent), one xorshift draw; the tour stored a "
                     "step at a time (lanes 128 B apart)"),
]
PROBES += UNSEEN93


# probe-unseen92 (probes94.cu): a high-energy-physics data-analysis course's kernels
# (calorimeter cell clustering around local-maximum seeds, a weighted dimuon invariant-mass
# histogram by float atomics, track-hit matching by a binned phi search, an adaptive
# primary-vertex z fit a block an event, a jet/MET trigger with ballot stream compaction,
# anti-kt nearest-neighbour distances in shared memory) as a student who knows CUDA basics
# writes them
_P94 = "probes94.cu"
_P94_CALO_NETA, _P94_CALO_NPHI = 64, 64            # calo-cluster: CALO_NETA x CALO_NPHI cells an event
_P94_CALO_SEED, _P94_CALO_CELL = 1.0, 0.1          # the seed and noise (cell) thresholds, GeV
_P94_CALO_NOISE = 0.04                             # every cell's electronic noise: N(0, this^2) GeV
_P94_CALO_SHOWERS, _P94_CALO_EMEAN = 12, 15.0      # showers an event (Poisson), energy Exp(mean) GeV
_P94_CALO_WIDTH = 0.7                              # a shower's Gaussian width in cells (over 5 x 5 cells)
_P94_MU_ZM, _P94_MU_ZW = 91.1876, 2.4952           # dimuon: the Z's Breit-Wigner mass and width
_P94_MU_ZFRAC, _P94_MU_DY = 0.8, 25.0              # Z events; the rest Drell-Yan 40 + Exp(this) GeV
_P94_MU_RANGE, _P94_MU_BINS = (60.0, 120.0), 240   # the histogram: [m_lo, m_hi) in 0.25 GeV bins
_P94_MU_PTCUT, _P94_MU_ETACUT = 25.0, 2.4          # both muons: pt >= cut, |eta| <= cut
_P94_MU_W, _P94_MU_NEG = 0.5, 0.1                  # |generator weight| and the fraction negative (NLO)
_P94_TRK_R = (0.04, 0.08, 0.12, 0.2, 0.3, 0.45, 0.65, 0.9)   # track-hit: the layer radii (m), c_layer_r
_P94_TRK_PT = (0.9, 6.0)                           # track pt: 0.9 + Exp(6) GeV; kappa = 0.6 q / pt (2 T)
_P94_TRK_EFF, _P94_TRK_NOISE = 0.92, 0.1           # a track's hit a layer with this probability; noise hits
_P94_TRK_EVT, _P94_TRK_NBINS = 256, 64             # tracks an event; phi bins an event's layer (~4 hits a bin)
_P94_TRK_SMEAR, _P94_TRK_WIN = 0.001, 0.005        # true hits' phi smear and the matching window (rad)
_P94_VTX_BLOCK, _P94_VTX_NITER = 128, 14           # vertex-fit: VTX_BLOCK, VTX_NITER
_P94_VTX_NTRK = (16, 64)                           # tracks an event: 16 + Poisson(64)
_P94_VTX_ZSIG, _P94_VTX_SZ = 40.0, (0.02, 0.3)     # the true z ~ N(0, 40^2) mm; sigma_z log-uniform, mm
_P94_VTX_PU, _P94_VTX_PUZ = 0.2, 150.0             # pile-up tracks: this fraction, z uniform in +-150 mm
_P94_VTX_CHI2, _P94_VTX_T0 = 9.0, 4096.0           # chi2cut and the first adaptive pass's temperature
_P94_TRIG_MAXJ, _P94_TRIG_NJ = 8, 3.2              # trigger: TRIG_MAXJ; jets an event Poisson (clipped)
_P94_TRIG_PT0, _P94_TRIG_PTMEAN, _P94_TRIG_MET = 20.0, 30.0, 25.0   # jet pt 20 + Exp(30); MET Exp(25) GeV
_P94_TRIG_CUTS = (40.0, 400.0, 300.0, 150.0)       # hard-jet pt, HT, leading-jet pt and MET thresholds
_P94_JET_MAXP, _P94_JET_NP = 128, (48, 128)        # antikt-nn: JET_MAXP; particles an event uniform
_P94_JET_R, _P94_JET_AXES = 0.4, 3                 # the jet radius; jet axes an event
_P94_JET_INJET, _P94_JET_SPREAD = 0.5, 0.15        # particles around an axis and their eta/phi spread


def _p94_calo_args(n, rng):
    """n calorimeter cells (n / 4096 events of 64 x 64, n a multiple of 4096: the kernel
    reads a seed's neighbours in its own event; float32 GeV): noise N(0, 0.04^2)
    everywhere plus Poisson(12) showers an event, each Exp(15) GeV spread over 5 x 5
    cells by a Gaussian of width 0.7 cells (phi wraps, eta is cut at the edges); the
    cluster energies, etas and phis (zeroed), the cluster counter; thresholds, n."""
    cells = _P94_CALO_NETA * _P94_CALO_NPHI
    nev = -(-n // cells)
    E = rng.normal(0.0, _P94_CALO_NOISE, (nev, _P94_CALO_NETA, _P94_CALO_NPHI))
    k = rng.poisson(_P94_CALO_SHOWERS, nev)
    ev = np.repeat(np.arange(nev), k)
    ce = rng.uniform(0, _P94_CALO_NETA, len(ev))
    cp = rng.uniform(0, _P94_CALO_NPHI, len(ev))
    e0 = rng.exponential(_P94_CALO_EMEAN, len(ev))
    ie, ip = np.floor(ce).astype(np.int64), np.floor(cp).astype(np.int64)
    offs = [(de, dp) for de in range(-2, 3) for dp in range(-2, 3)]
    fr = np.stack([np.exp(-((ie + de + 0.5 - ce) ** 2 + (ip + dp + 0.5 - cp) ** 2) / (2 * _P94_CALO_WIDTH ** 2))
                   for de, dp in offs])
    fr /= fr.sum(axis=0)
    for (de, dp), f in zip(offs, fr):
        je = ie + de
        ok = (je >= 0) & (je < _P94_CALO_NETA)
        np.add.at(E, (ev[ok], je[ok], (ip[ok] + dp) % _P94_CALO_NPHI), (e0 * f)[ok])
    E = E.astype(np.float32).ravel()[:n]
    f = np.float32
    return [E, np.zeros(n, f), np.zeros(n, f), np.zeros(n, f), np.zeros(1, np.int32), f(_P94_CALO_SEED),
            f(_P94_CALO_CELL), _i32(n)]


def _p94_calo_ref(cellE, seed_thr=_P94_CALO_SEED, cell_thr=_P94_CALO_CELL):
    """calo_cluster in float32, the kernel's order of additions: cluster energy, eta and
    phi a cell (0 where the cell is no seed) and the seeds' mask."""
    f = np.float32
    NE, NP = _P94_CALO_NETA, _P94_CALO_NPHI
    E = np.asarray(cellE, f).reshape(-1, NE, NP)
    P = np.pad(E, ((0, 0), (1, 1), (0, 0)), constant_values=-np.inf)
    seed = E >= f(seed_thr)
    s, se, sp = (np.zeros_like(E) for _ in range(3))
    with np.errstate(invalid="ignore"):                       # -inf (outside eta) times 0
        for de in (-1, 0, 1):
            for dp in (-1, 0, 1):
                en = np.roll(P[:, 1 + de:NE + 1 + de, :], -dp, axis=2)
                seed &= ~(en > E)
                take = en > f(cell_thr)
                s = np.where(take, s + en, s)
                se = np.where(take, se + en * f(de), se)
                sp = np.where(take, sp + en * f(dp), sp)
    ie = np.arange(NE, dtype=f)[None, :, None]
    ip = np.arange(NP, dtype=f)[None, None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        eta = np.where(seed, ie + se / s, f(0))
        phi = np.where(seed, ip + sp / s, f(0))
    return np.where(seed, s, f(0)).ravel(), eta.ravel(), phi.ravel(), seed.ravel()


def _p94_mu_args(n, rng):
    """n dimuon events (float32 SoA pt1, eta1, phi1, pt2, eta2, phi2, weight): 80% Z
    (Breit-Wigner in 40 .. 200 GeV), 20% Drell-Yan 40 + Exp(25); muon 1's pt M/2 U(0.35,
    1.15), etas N(0, 1.4^2), near back to back in phi (dphi = pi - |N(0, 0.35^2)|), muon
    2's pt solving the massless pair mass; weights +-0.5 (10% negative); the histogram
    (zeroed); m_lo, m_hi, nbins, the pt and eta cuts, n."""
    half = _P94_MU_ZW / 2
    ulo, uhi = (np.arctan((np.array([40.0, 200.0]) - _P94_MU_ZM) / half) / np.pi + 0.5)
    mz = _P94_MU_ZM + half * np.tan(np.pi * (rng.uniform(ulo, uhi, n) - 0.5))
    mdy = 40.0 + rng.exponential(_P94_MU_DY, n)
    M = np.where(rng.random(n) < _P94_MU_ZFRAC, mz, mdy)
    pt1 = M / 2 * rng.uniform(0.35, 1.15, n)
    eta1, eta2 = rng.normal(0, 1.4, n), rng.normal(0, 1.4, n)
    dphi = (np.pi - np.abs(rng.normal(0, 0.35, n))) * rng.choice([-1.0, 1.0], n)
    phi1 = rng.uniform(-np.pi, np.pi, n)
    phi2 = (phi1 + dphi + np.pi) % (2 * np.pi) - np.pi
    pt2 = M * M / (2 * pt1 * (np.cosh(eta1 - eta2) - np.cos(dphi)))
    w = np.where(rng.random(n) < _P94_MU_NEG, -_P94_MU_W, _P94_MU_W)
    f = np.float32
    return [pt1.astype(f), eta1.astype(f), phi1.astype(f), pt2.astype(f), eta2.astype(f), phi2.astype(f),
            w.astype(f), np.zeros(_P94_MU_BINS, f), f(_P94_MU_RANGE[0]), f(_P94_MU_RANGE[1]), _i32(_P94_MU_BINS),
            f(_P94_MU_PTCUT), f(_P94_MU_ETACUT), _i32(n)]


def _p94_mu_ref(pt1, eta1, phi1, pt2, eta2, phi2, w, lo=_P94_MU_RANGE[0], hi=_P94_MU_RANGE[1], nbins=_P94_MU_BINS,
                ptcut=_P94_MU_PTCUT, etacut=_P94_MU_ETACUT):
    """dimuon_mass_hist in float64: the histogram, each event's bin (-1 if cut or out of
    range), its position in bins x (nan where cut) and the mass (nan where cut)."""
    f = np.float32
    a = [np.asarray(v, np.float64) for v in (pt1, eta1, phi1, pt2, eta2, phi2)]
    ok = ((np.asarray(pt1) >= f(ptcut)) & (np.asarray(pt2) >= f(ptcut)) & (np.abs(eta1) <= f(etacut))
          & (np.abs(eta2) <= f(etacut)))
    mm = 0.1056584

    def p4(pt, eta, phi):
        px, py, pz = pt * np.cos(phi), pt * np.sin(phi), pt * np.sinh(eta)
        return np.sqrt(px * px + py * py + pz * pz + mm * mm), px, py, pz
    A, B = p4(*a[:3]), p4(*a[3:])
    E, px, py, pz = (u + v for u, v in zip(A, B))
    m = np.where(ok, np.sqrt(np.maximum(E * E - px * px - py * py - pz * pz, 0)), np.nan)
    x = (m - lo) / (hi - lo) * nbins
    with np.errstate(invalid="ignore"):
        inr = ok & (m >= lo) & (m < hi)
    b = np.where(inr, np.minimum(np.floor(np.nan_to_num(x)), nbins - 1), -1).astype(np.int64)
    h = np.bincount(b[inr], weights=np.asarray(w, np.float64)[inr], minlength=nbins)
    return h, b, x, m


def _p94_trk_phi(phi0, kappa, r):
    """The helix's phi at radius r in float64, wrapped into [0, 2 pi)."""
    return (np.asarray(phi0, np.float64) + np.arcsin(0.5 * float(np.float32(r)) * np.asarray(kappa, np.float64))) \
        % (2 * np.pi)


def _p94_trk_args(n, rng):
    """n tracks in events of 256 (float32 phi0 uniform in [0, 2 pi), kappa = 0.6 q / pt, pt
    0.9 + Exp(6) GeV, q = +-1); the hits (float32 phi, sorted by event, layer and phi): a
    track's at each of the 8 layers with probability 0.92 at its helix phi smeared by N(0,
    0.001^2), and 26 noise hits an event and layer uniform; bin_start (int32, events x 8 x
    64 + 1: the first hit of each event's layer's phi bin); the matches (n x 8) and counts
    (zeroed); the window, nbins, the tracks an event, n."""
    f = np.float32
    E, L, nb = _P94_TRK_EVT, len(_P94_TRK_R), _P94_TRK_NBINS
    nev = -(-n // E)
    phi0 = rng.uniform(0, 2 * np.pi, n).astype(f)
    pt = _P94_TRK_PT[0] + rng.exponential(_P94_TRK_PT[1], n)
    kappa = (0.6 * rng.choice([-1.0, 1.0], n) / pt).astype(f)
    tev = np.arange(n) // E
    nnoise = int(_P94_TRK_NOISE * E)
    phis, keys = [], []
    for l, r in enumerate(_P94_TRK_R):
        true = _p94_trk_phi(phi0, kappa, r) + rng.normal(0, _P94_TRK_SMEAR, n)
        keep = rng.random(n) < _P94_TRK_EFF
        p = np.concatenate([true[keep], rng.uniform(0, 2 * np.pi, nev * nnoise)])
        ev = np.concatenate([tev[keep], np.repeat(np.arange(nev), nnoise)])
        p = (p % (2 * np.pi)).astype(f)
        b = np.minimum((p.astype(np.float64) / (2 * np.pi) * nb).astype(np.int64), nb - 1)
        phis.append(p)
        keys.append((ev * L + l) * nb + b)
    phi, key = np.concatenate(phis), np.concatenate(keys)
    o = np.lexsort((phi, key))
    phi, key = phi[o], key[o]
    bin_start = np.concatenate([np.searchsorted(key, np.arange(nev * L * nb)), [len(phi)]]).astype(np.int32)
    return [phi0, kappa, phi, bin_start, np.zeros(n * L, np.int32), np.zeros(n, np.int32), f(_P94_TRK_WIN),
            _i32(nb), _i32(E), _i32(n)]


def _p94_trk_syms(n, rng):
    return {"c_layer_r": np.array(_P94_TRK_R, np.float32)}


def _p94_trk_ref(phi0, kappa, hit_phi, bin_start, window=_P94_TRK_WIN, nbins=_P94_TRK_NBINS, per_evt=_P94_TRK_EVT,
                 eps=1e-5):
    """track_hit_match in float64: the closest of its event's hits on a layer (wrapped
    |dphi| < window) a track and layer (-1 if none), the matched layers a track, and a mask
    of the (track, layer) pairs float32 may decide otherwise (two hits within eps, or the
    best within eps of the window)."""
    L = len(_P94_TRK_R)
    n = len(phi0)
    bs = np.asarray(bin_start, np.int64)
    hp = np.asarray(hit_phi, np.float64)
    seg = np.repeat(np.arange(len(bs) - 1) // nbins, np.diff(bs))            # each hit's event * L + layer
    comp = seg * 8.0 + hp                                                      # sorted: phi < 8
    tev = np.arange(n) // per_evt
    best = np.full((n, L), -1, np.int64)
    amb = np.zeros((n, L), bool)
    w = float(window)
    for l, r in enumerate(_P94_TRK_R):
        sg = tev * L + l
        a, z = bs[sg * nbins], bs[(sg + 1) * nbins]
        ln = z - a
        phi = _p94_trk_phi(phi0, kappa, r)
        pos = np.searchsorted(comp, sg * 8.0 + phi)
        cand = a[:, None] + (pos[:, None] - a[:, None] + np.arange(-2, 2)[None, :]) % np.maximum(ln, 1)[:, None]
        d = np.abs(hp[np.minimum(cand, len(hp) - 1)] - phi[:, None])
        d = np.where(d > np.pi, 2 * np.pi - d, d)
        d = np.where(ln[:, None] > 0, d, np.inf)
        order = np.argsort(d, axis=1)
        d0 = np.take_along_axis(d, order[:, :1], 1)[:, 0]
        i0 = np.take_along_axis(cand, order[:, :1], 1)[:, 0]
        c1 = np.take_along_axis(cand, order[:, 1:], 1)
        d1 = np.where(c1 == i0[:, None], np.inf, np.take_along_axis(d, order[:, 1:], 1)).min(axis=1)
        best[:, l] = np.where(d0 < w, i0, -1)
        amb[:, l] = (np.abs(d0 - w) < eps) | ((d1 - d0 < eps) & (d0 < w + eps))
    return best, (best >= 0).sum(axis=1), amb


def _p94_vtx_args(n, rng):
    """n events of 16 + Poisson(64) tracks (float32 z0 and sigma_z, mm; evt_start int32):
    80% from the event's vertex (z ~ N(0, 40^2)) measured with sigma log-uniform in 0.02 ..
    0.3, 20% pile-up uniform in +-150 mm; the vertices' z, errors and track counts (zeroed);
    chi2cut, t0, n."""
    f = np.float32
    k = _P94_VTX_NTRK[0] + rng.poisson(_P94_VTX_NTRK[1], n)
    start = np.concatenate([[0], np.cumsum(k)]).astype(np.int32)
    zv = rng.normal(0, _P94_VTX_ZSIG, n)
    ev = np.repeat(np.arange(n), k)
    s = np.exp(rng.uniform(np.log(_P94_VTX_SZ[0]), np.log(_P94_VTX_SZ[1]), len(ev)))
    z = zv[ev] + rng.normal(0, 1, len(ev)) * s
    pu = rng.random(len(ev)) < _P94_VTX_PU
    z = np.where(pu, rng.uniform(-_P94_VTX_PUZ, _P94_VTX_PUZ, len(ev)), z)
    return [z.astype(f), s.astype(f), start, np.zeros(n, f), np.zeros(n, f), np.zeros(n, np.int32),
            f(_P94_VTX_CHI2), f(_P94_VTX_T0), _i32(n)]


def _p94_vtx_truth(n, rng):
    """The true vertex z of _p94_vtx_args's events (float64), from a generator in the state
    _p94_vtx_args got (its first two draws)."""
    rng.poisson(_P94_VTX_NTRK[1], n)            # (the track counts' draw, as _p94_vtx_args)
    return rng.normal(0, _P94_VTX_ZSIG, n)


def _p94_vtx_ref(z, s, start, chi2cut=_P94_VTX_CHI2, t0=_P94_VTX_T0, niter=_P94_VTX_NITER):
    """vertex_fit in float64: z, its error and the compatible tracks an event, and the
    smallest |d^2 - chi2cut| an event (the count's margin)."""
    z, s = np.asarray(z, np.float64), np.asarray(s, np.float64)
    start = np.asarray(start, np.int64)
    nev = len(start) - 1
    ev = np.repeat(np.arange(nev), np.diff(start))
    w0 = 1 / (s * s)
    T = float(t0)
    zv = None
    for it in range(niter + 1):
        with np.errstate(over="ignore"):
            w = w0 if it == 0 else w0 / (1 + np.exp(((z - zv[ev]) ** 2 * w0 - chi2cut) / (2 * T)))
        sw = np.bincount(ev, w, nev)
        zv = np.bincount(ev, w * z, nev) / sw
        if it > 0:
            T = max(0.5 * T, 1.0)
    d2 = ((z - zv[ev]) / s) ** 2
    cnt = np.bincount(ev, d2 < chi2cut, nev).astype(np.int64)
    gap = np.full(nev, np.inf)
    np.minimum.at(gap, ev, np.abs(d2 - chi2cut))
    return zv, 1 / np.sqrt(sw), cnt, gap


def _p94_trig_args(n, rng):
    """n events: jet pts (float32, n x 8 row-major, Poisson(3.2) jets clipped to 8, each 20
    + Exp(30) GeV, sorted descending, the rest 0), the jet counts (int32), MET Exp(25) GeV;
    the selected indices and HTs (n, zeroed), the counter; the four thresholds, n."""
    f = np.float32
    M = _P94_TRIG_MAXJ
    nj = np.minimum(rng.poisson(_P94_TRIG_NJ, n), M)
    pt = _P94_TRIG_PT0 + rng.exponential(_P94_TRIG_PTMEAN, (n, M))
    pt = -np.sort(-pt, axis=1)
    pt = np.where(np.arange(M)[None, :] < nj[:, None], pt, 0.0)
    met = rng.exponential(_P94_TRIG_MET, n)
    c = _P94_TRIG_CUTS
    return [pt.astype(f).ravel(), nj.astype(np.int32), met.astype(f), np.zeros(n, np.int32), np.zeros(n, f),
            np.zeros(1, np.int32), f(c[0]), f(c[1]), f(c[2]), f(c[3]), _i32(n)]


def _p94_trig_ref(jet_pt, njet, met, cuts=_P94_TRIG_CUTS):
    """trigger_select's decision: the passing mask and every event's HT (float32, summed
    in the kernel's order)."""
    f = np.float32
    M = _P94_TRIG_MAXJ
    pt = np.asarray(jet_pt, f).reshape(-1, M)
    nj = np.asarray(njet)
    ht = np.zeros(len(nj), f)
    nhard = np.zeros(len(nj), np.int64)
    for j in range(M):
        on = j < nj
        ht = np.where(on, ht + pt[:, j], ht)
        nhard += on & (pt[:, j] > f(cuts[0]))
    lead = np.where(nj > 0, pt[:, 0], f(0))
    ok = ((nhard >= 4) & (ht > f(cuts[1]))) | (lead > f(cuts[2])) | (np.asarray(met, f) > f(cuts[3]))
    return ok, ht


def _p94_jet_args(n, rng):
    """n events of 48 .. 127 particles (float32 pt, eta, phi, n x 128 padded with zeros;
    npart int32): half around 3 jet axes (eta N(0, 1.5^2), phi uniform) spread N(0,
    0.15^2) with pt 1 + Exp(8), the rest underlying event (eta uniform +-2.5) with pt 0.5 +
    Exp(1), phi wrapped into [-pi, pi); the nearest partners and distances (zeroed); R, n."""
    f = np.float32
    P = _P94_JET_MAXP
    npart = rng.integers(_P94_JET_NP[0], _P94_JET_NP[1], n)
    inj = rng.random((n, P)) < _P94_JET_INJET
    ax = rng.integers(0, _P94_JET_AXES, (n, P))
    aeta = rng.normal(0, 1.5, (n, _P94_JET_AXES))
    aphi = rng.uniform(-np.pi, np.pi, (n, _P94_JET_AXES))
    rows = np.arange(n)[:, None]
    eta = np.where(inj, aeta[rows, ax] + rng.normal(0, _P94_JET_SPREAD, (n, P)), rng.uniform(-2.5, 2.5, (n, P)))
    phi = np.where(inj, aphi[rows, ax] + rng.normal(0, _P94_JET_SPREAD, (n, P)), rng.uniform(-np.pi, np.pi, (n, P)))
    phi = (phi + np.pi) % (2 * np.pi) - np.pi
    pt = np.where(inj, 1.0 + rng.exponential(8.0, (n, P)), 0.5 + rng.exponential(1.0, (n, P)))
    pad = np.arange(P)[None, :] >= npart[:, None]
    pt, eta, phi = (np.where(pad, 0.0, a).astype(f).ravel() for a in (pt, eta, phi))
    return [pt, eta, phi, npart.astype(np.int32), np.zeros(n * P, np.int32), np.zeros(n * P, f), f(_P94_JET_R),
            _i32(n)]


def _p94_jet_ref(pt, eta, phi, npart, R=_P94_JET_R):
    """antikt_nn in float64: each particle's nearest partner (-1: the beam) and distance
    (padding: -1 and 0), and the relative gap to the runner-up (inf for padding)."""
    P = _P94_JET_MAXP
    pt, eta, phi = (np.asarray(a, np.float64).reshape(-1, P) for a in (pt, eta, phi))
    on = np.arange(P)[None, :] < np.asarray(npart)[:, None]
    with np.errstate(divide="ignore"):
        inv = np.where(on, 1 / (pt * pt), np.inf)
    deta = eta[:, :, None] - eta[:, None, :]
    dphi = np.abs(phi[:, :, None] - phi[:, None, :])
    dphi = np.where(dphi > np.pi, 2 * np.pi - dphi, dphi)
    with np.errstate(invalid="ignore"):
        d = np.minimum(inv[:, :, None], inv[:, None, :]) * (deta ** 2 + dphi ** 2) / (float(np.float32(R)) ** 2)
    d = np.where(on[:, None, :] & ~np.eye(P, dtype=bool)[None], d, np.inf)
    d = np.concatenate([inv[:, :, None], d], axis=2)           # column 0: the beam
    srt = np.sort(d, axis=2)
    j = np.argmin(d, axis=2) - 1
    best = srt[:, :, 0]
    with np.errstate(invalid="ignore"):
        gap = (srt[:, :, 1] - best) / best
    return (np.where(on, j, -1).ravel(), np.where(on, best, 0).ravel(), np.where(on, gap, np.inf).ravel())


UNSEEN92 = [
    TimingProbe("probe/calo-seed-cluster", "probe-unseen92", "calo_cluster", 1 << 25, 256, lambda n: -(-n // 256),
                _p94_calo_args, source=_P94,
                note="calorimeter clustering over 2^25 cells (8192 events of 64 x 64, eta x phi), a thread a cell: "
                     "a coalesced float load, and for the ~1.1% of cells above the 1 GeV seed threshold (a lane "
                     "or two a warp) a 3x3 window (phi wrapped with %, eta edges skipped; the neighbours' rows "
                     "re-read from L1/L2) for the local-maximum test and the energy-weighted sums; every cell "
                     "stores its cluster energy (0 if no seed), the ~0.24% seeds also eta, phi and one global "
                     "atomicAdd on a single counter; memory-bound, divergent"),
    TimingProbe("probe/dimuon-mass-hist", "probe-unseen92", "dimuon_mass_hist", 1 << 22, 256,
                lambda n: -(-n // 256), _p94_mu_args, source=_P94,
                note="the weighted dimuon invariant-mass histogram of 2^22 Z -> mu mu candidate events (SoA: "
                     "4 coalesced loads for the cuts, 2 more for the ~41% passing them), a thread an event: two "
                     "four-vectors (cosf, sinf, sinhf, 2 sqrtf), the pair mass's sqrtf and a float division for "
                     "the bin, then the weight's load and a float atomicAdd of it (+-0.5) onto 240 global bins of "
                     "60-120 GeV (~39% of events; the Z peak puts ~half of them on ~10 bins, several lanes of a "
                     "warp on one address); atomic/SFU-bound"),
    TimingProbe("probe/track-hit-binmatch", "probe-unseen92", "track_hit_match", 1 << 20, 256,
                lambda n: -(-n // 256), _p94_trk_args, source=_P94, symbols=_p94_trk_syms,
                note="track-hit matching for 2^20 tracks in 4096 events of 256 (phi0 in random order), 8 barrel "
                     "layers of ~262 hits an event (34 MB of hits, 8 MB of bin offsets: 64 phi bins an event's "
                     "layer), a thread a track: a layer's radius from __constant__ memory, asinf for the helix "
                     "phi, its bin and the two beside it (6 int loads at lane-dependent bins of the event's "
                     "256-byte offset row), then ~4 hits a bin scanned (~12 dependent-index float loads a layer "
                     "within the event's ~1 KB layer segment, mostly L1 hits; Poisson trip counts a lane, "
                     "divergent), the hit index stored row-major (lanes 32 B apart); latency/L1-bound"),
    TimingProbe("probe/vertex-fit-adaptive", "probe-unseen92", "vertex_fit", 1 << 16, _P94_VTX_BLOCK,
                lambda n: n, _p94_vtx_args, source=_P94,
                note="adaptive primary-vertex z fits of 2^16 events (16 + Poisson(64) tracks each, 42 MB), a block "
                     "of 128 an event: 15 passes (the plain weighted mean, then 14 with T halving from 4096 to 1) "
                     "each re-reading the event's tracks (coalesced, L1/L2 after the first; one block-stride trip: "
                     "at most ~115 tracks, ~37% of the lanes idle), a float division and an expf Fermi "
                     "weight a track, then a two-array shared tree reduction (7 levels, a __syncthreads each) and "
                     "thread 0's division broadcast through shared memory; a last pass counts the compatible "
                     "tracks by a shared atomicAdd a thread; barrier/latency-bound"),
    TimingProbe("probe/trigger-ballot-compact", "probe-unseen92", "trigger_select", 1 << 23, 256,
                lambda n: -(-n // 256), _p94_trig_args, source=_P94,
                note="a jet/HT/MET trigger over 2^23 events, a thread an event: its jet count, then 0-8 jet pts "
                     "from an 8-float row (row-major: a 32-byte sector a lane, read unless njet is 0 (4%); "
                     "Poisson(3.2) trips, divergent), MET loaded only when the jet paths fail (short-circuit ||); the ~6% passing "
                     "events compacted by __ballot_sync, one global atomicAdd a warp with a passer and __popc "
                     "of the lower lanes, index and HT stored into the warp's contiguous slots; memory-bound"),
    TimingProbe("probe/antikt-nn-smem", "probe-unseen92", "antikt_nn", 1 << 16, _P94_JET_MAXP, lambda n: n,
                _p94_jet_args, source=_P94,
                note="the anti-kt nearest-neighbour distances of 2^16 events (48-127 particles, padded to 128), a "
                     "block of 128 an event: pt (as 1/pt^2), eta and phi staged into 3 shared arrays, then a "
                     "thread a particle loops over all the event's particles (broadcast shared loads), a "
                     "wrapped dphi branch, fminf, a float division by R^2 a pair and a running minimum; "
                     "compute-bound (N^2 a block, ~88^2 pairs)"),
]
PROBES += UNSEEN92


# probe-unseen91 (probes93.cu): a video-coding course's kernels (full-search block motion
# estimation by SAD in shared memory, HEVC's 8x8 integer DCT in shared memory, dead-zone
# quantization, H.264's luma deblocking across vertical block edges, H.264's nine intra
# 4x4 modes costed by SATD, JPEG Huffman symbol statistics by shared atomics) as a student
# who knows CUDA basics writes them
_P93 = "probes93.cu"
_P93_ME_R, _P93_ME_LAMBDA = 8, 4                   # me-sad: ME_R (candidates -8 .. 7 an axis); the MV cost's lambda
_P93_ME_REGION, _P93_ME_TRUE = 32, 6               # the true motion: a vector in [-6, 5]^2 a 32 x 32 region
_P93_ME_NOISE = 2.0                                # the current frame: the displaced reference + N(0, 2^2)
_P93_DCT_LAPLACE = 12.0                            # dct: residuals Laplace(0, 12) rounded, clipped to +-255
_P93_DCT_FLAT = 0.02                               # the fraction of 8x8 blocks constant +-255 (the extremes)
_P93_Q_QBITS, _P93_Q_DZ = 16, (1 << 16) // 3       # quant: mf = round(2^qbits / step); dz a third of a step
_P93_Q_TABLE = np.array([16, 11, 10, 16, 24, 40, 51, 61, 12, 12, 14, 19, 26, 58, 60, 55,
                         14, 13, 16, 24, 40, 57, 69, 56, 14, 17, 22, 29, 51, 87, 80, 62,
                         18, 22, 37, 56, 68, 109, 103, 77, 24, 35, 55, 64, 81, 104, 113, 92,
                         49, 64, 78, 87, 103, 121, 120, 101, 72, 92, 95, 98, 112, 100, 103, 99], np.int32)
_P93_Q_AC, _P93_Q_DC = 300.0, (800.0, 600.0, 60.0)   # coefs: AC Laplace(0, 300 / (1 + u + v)^1.5); DC drift
_P93_DB_QP = (20, 45)                              # deblock: QP per 8x8 block, uniform in this range
_P93_DB_BS_P = (0.25, 0.25, 0.25, 0.10, 0.15)      # bS 0 .. 4 per block
_P93_DB_STEP, _P93_DB_EDGE = 6.0, (0.1, 60.0)      # block offsets N(0, 6^2); 10% of blocks +-60 (real edges)
_P93_IP_REGION = 16                                # intra: oriented stripes a 16 x 16 region
_P93_SS_BLOCK = 128                                # symstats: blocks (threads) a thread block
_P93_ALPHA = np.array([0] * 16 + [4, 4, 5, 6, 7, 8, 9, 10, 12, 13, 15, 17, 20, 22, 25, 28, 32, 36, 40, 45, 50, 56,
                                  63, 71, 80, 90, 101, 113, 127, 144, 162, 182, 203, 226, 255, 255])
_P93_BETA = np.array([0] * 16 + [2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13,
                                 13, 14, 14, 15, 15, 16, 16, 17, 17, 18, 18])
_P93_TC0 = np.array([[0, 0, 0]] * 17 + [[0, 0, 1]] * 4 + [[0, 1, 1]] * 2 + [[1, 1, 1]] * 4 + [[1, 1, 2]] * 4
                    + [[1, 2, 3]] * 2 + [[2, 2, 3], [2, 2, 4], [2, 3, 4], [2, 3, 4], [3, 3, 5], [3, 4, 6], [3, 4, 6],
                                         [4, 5, 7], [4, 5, 8], [4, 6, 9], [5, 7, 10], [6, 8, 11], [6, 8, 13],
                                         [7, 10, 14], [8, 11, 16], [9, 12, 18], [10, 13, 20], [11, 15, 23],
                                         [13, 17, 25]])
_P93_DCT = np.array([[64] * 8, [89, 75, 50, 18, -18, -50, -75, -89], [83, 36, -36, -83, -83, -36, 36, 83],
                     [75, -18, -89, -50, 50, 89, 18, -75], [64, -64, -64, 64, 64, -64, -64, 64],
                     [50, -89, 18, 75, -75, -18, 89, -50], [36, -83, 83, -36, -36, 83, -83, 36],
                     [18, -50, 75, -89, 89, -75, 50, -18]], np.int64)


def _p93_dims(n):
    """A frame of n pixels (n a power of 4 or twice one): w x h, w = h or 2 h."""
    w = 1 << (int(n).bit_length() // 2)
    return w, int(n) // w


def _p93_zigzag():
    """JPEG's zigzag order: the natural index of the k-th scanned coefficient."""
    return np.array(sorted(range(64), key=lambda i: (i // 8 + i % 8, i // 8 if (i // 8 + i % 8) % 2 else i % 8)))


def _p93_texture(h, w, rng, cell, amp=200.0):
    """Smooth float32 texture: uniform noise on a grid of cell-pixel squares, bilinear
    in between, in [0, amp)."""
    g = rng.uniform(0, amp, (h // cell + 2, w // cell + 2)).astype(np.float32)
    ys, xs = np.arange(h) / cell, np.arange(w) / cell
    y0, x0 = ys.astype(np.int64), xs.astype(np.int64)
    fy, fx = (ys - y0).astype(np.float32)[:, None], (xs - x0).astype(np.float32)
    rows = g[y0] * (1 - fy) + g[y0 + 1] * fy
    return rows[:, x0] * (1 - fx) + rows[:, x0 + 1] * fx


def _p93_u8(a):
    return np.clip(np.rint(a), 0, 255).astype(np.uint8)


# ---- me-sad-fullsearch ----

def _p93_me_truth(w, h, rng):
    """The true motion: a vector (dx, dy) in [-6, 5]^2 a 32 x 32 region, per 8x8 block."""
    r = _P93_ME_REGION
    mv = rng.integers(-_P93_ME_TRUE, _P93_ME_TRUE, (2, -(-h // r), -(-w // r)))
    k = r // 8
    return mv[0].repeat(k, 0).repeat(k, 1)[:h // 8, :w // 8], mv[1].repeat(k, 0).repeat(k, 1)[:h // 8, :w // 8]


def _p93_me_frames(n, rng):
    """A textured reference frame (4-pixel bilinear cells plus N(0, 8^2) grain) and the
    current frame: each 8x8 block the reference displaced by its region's true vector
    (edges clamped) plus N(0, 2^2); uint8, w x h row-major. Also the true vectors."""
    w, h = _p93_dims(n)
    ref = _p93_u8(_p93_texture(h, w, rng, 4) + 28 + rng.normal(0, 8, (h, w)))
    tx, ty = _p93_me_truth(w, h, rng)
    yy = np.clip(np.arange(h)[:, None] + ty.repeat(8, 0).repeat(8, 1), 0, h - 1)
    xx = np.clip(np.arange(w)[None, :] + tx.repeat(8, 0).repeat(8, 1), 0, w - 1)
    cur = _p93_u8(ref[yy, xx] + rng.normal(0, _P93_ME_NOISE, (h, w)))
    return cur, ref, tx, ty


def _p93_me_args(n, rng):
    """cur, ref (uint8, n pixels, _p93_me_frames); mv (int16, 2 a block) and the best costs
    (int32) zeroed; w, h, lambda."""
    w, h = _p93_dims(n)
    cur, ref, _, _ = _p93_me_frames(n, rng)
    nb = (w // 8) * (h // 8)
    return [cur.ravel(), ref.ravel(), np.zeros(2 * nb, np.int16), np.zeros(nb, np.int32), _i32(w), _i32(h),
            _i32(_P93_ME_LAMBDA)]


def _p93_me_ref(cur, ref, w, h, lam=_P93_ME_LAMBDA):
    """me_sad_fullsearch in numpy: mv (mvx, mvy interleaved), best cost, and the gap
    between the best and second-best cost a block."""
    R = _P93_ME_R
    c = np.asarray(cur, np.int32).reshape(h, w)
    r = np.pad(np.asarray(ref, np.int32).reshape(h, w), R, mode="edge")
    costs = []
    for dy in range(2 * R):
        for dx in range(2 * R):
            sh = r[dy:dy + h, dx:dx + w]
            sad = np.abs(c - sh).reshape(h // 8, 8, w // 8, 8).sum(axis=(1, 3))
            costs.append(sad + lam * (abs(dx - R) + abs(dy - R)))
    costs = np.stack(costs).reshape(4 * R * R, -1)
    key = costs * 256 + np.arange(4 * R * R)[:, None]
    t = key.argmin(axis=0)
    mv = np.stack([t % 16 - R, t // 16 - R], axis=1).ravel().astype(np.int16)
    srt = np.sort(costs, axis=0)
    return mv, costs.min(axis=0).astype(np.int32), srt[1] - srt[0]


# ---- dct8x8-hevc-smem ----

def _p93_dct_args(n, rng):
    """A residual frame (int16, w x h): Laplace(0, 12) rounded and clipped to +-255, 2% of
    the 8x8 blocks constant +255 or -255; the coefficients (int16) zeroed; w."""
    w, h = _p93_dims(n)
    res = np.clip(np.rint(rng.laplace(0, _P93_DCT_LAPLACE, (h, w))), -255, 255)
    flat = rng.random((h // 8, w // 8)) < _P93_DCT_FLAT
    sign = rng.choice([-255, 255], (h // 8, w // 8))
    m = flat.repeat(8, 0).repeat(8, 1)
    res = np.where(m, sign.repeat(8, 0).repeat(8, 1), res).astype(np.int16)
    return [res.ravel(), np.zeros(n, np.int16), _i32(w)]


def _p93_dct_ref(res, w):
    """dct8x8_fwd in numpy (int64): each 8x8 block's (C ((X C^T + 2) >> 2) + 256) >> 9 in
    the frame's layout."""
    h = len(res) // w
    X = np.asarray(res, np.int64).reshape(h // 8, 8, w // 8, 8).transpose(0, 2, 1, 3)
    tmp = (X @ _P93_DCT.T + 2) >> 2
    out = (_P93_DCT @ tmp + 256) >> 9
    return out.transpose(0, 2, 1, 3).reshape(-1)


# ---- quant-deadzone ----

def _p93_coefs(nblk, rng):
    """nblk 8x8 blocks of DCT coefficients (int32, (nblk, 64), natural order): AC
    Laplace(0, 300 / (1 + u + v)^1.5) rounded, DC 800 + 600 sin(2 pi b / 97) + N(0, 60^2)
    (a slow drift from block to block), clipped to +-32000."""
    u, v = np.divmod(np.arange(64), 8)
    scale = _P93_Q_AC / (1.0 + u + v) ** 1.5
    c = rng.laplace(0, 1, (nblk, 64)) * scale
    m, a, s = _P93_Q_DC
    c[:, 0] = m + a * np.sin(2 * np.pi * np.arange(nblk) / 97) + rng.normal(0, s, nblk)
    return np.clip(np.rint(c), -32000, 32000).astype(np.int32)


def _p93_q_tables():
    """The quantizer's per-position steps (JPEG's luminance table) and reciprocal
    multipliers round(2^qbits / step), int32."""
    return np.rint((1 << _P93_Q_QBITS) / _P93_Q_TABLE).astype(np.int32), _P93_Q_TABLE.copy()


def _p93_quant_args(n, rng):
    """n coefficients (int32: blocks of _p93_coefs, the last cut at n); mf and qstep
    (int32 x 64); the levels (int16) and reconstructions (int32) zeroed; qbits, dz, n."""
    mf, qs = _p93_q_tables()
    return [_p93_coefs(-(-n // 64), rng).ravel()[:n], mf, qs, np.zeros(n, np.int16), np.zeros(n, np.int32),
            _i32(_P93_Q_QBITS), _i32(_P93_Q_DZ), _i32(n)]


def _p93_quant_ref(coef, qbits=_P93_Q_QBITS, dz=_P93_Q_DZ):
    """quant_deadzone in numpy: levels (int16) and reconstructions (int32)."""
    mf, qs = _p93_q_tables()
    c = np.asarray(coef, np.int64)
    pos = np.arange(len(c)) % 64
    lv = np.minimum((np.abs(c) * mf[pos] + dz) >> qbits, 2047)
    lv = np.where(c < 0, -lv, lv)
    return lv.astype(np.int16), (lv * qs[pos]).astype(np.int32)


# ---- deblock-h264-vedge ----

def _p93_db_frame(w, h, rng):
    """A decoded-looking frame: a smooth texture (16-pixel cells) plus an offset a 8x8
    block (N(0, 6^2); 10% of blocks +-60 more: real edges) and N(0, 1.5^2) grain, uint8."""
    off = rng.normal(0, _P93_DB_STEP, (h // 8, w // 8))
    p, a = _P93_DB_EDGE
    off += np.where(rng.random(off.shape) < p, rng.choice([-a, a], off.shape), 0)
    img = _p93_texture(h, w, rng, 16, 160) + 48 + off.astype(np.float32).repeat(8, 0).repeat(8, 1)
    return _p93_u8(img + rng.normal(0, 1.5, (h, w)).astype(np.float32))


def _p93_db_args(n, rng):
    """The frame (uint8, w x h, _p93_db_frame); bS (0 .. 4 with _P93_DB_BS_P) and QP
    (uniform _P93_DB_QP) per 8x8 block (uint8, w / 8 a row); w, h."""
    w, h = _p93_dims(n)
    img = _p93_db_frame(w, h, rng)
    nb = (w // 8) * (h // 8)
    bs = rng.choice(5, nb, p=_P93_DB_BS_P).astype(np.uint8)
    qp = rng.integers(_P93_DB_QP[0], _P93_DB_QP[1] + 1, nb).astype(np.uint8)
    return [img.ravel(), bs, qp, _i32(w), _i32(h)]


def _p93_db_ref(img, bs, qp, w, h):
    """deblock_vedge_luma in numpy (every edge at once: their pixels are disjoint): the
    filtered frame (uint8, flat) and the lines filtered (bool, h x (w / 8 - 1)): by the
    normal filter, by bS 4."""
    f = np.asarray(img, np.int64).reshape(h, w).copy()
    nbx = w // 8
    xs = 8 * np.arange(1, nbx)
    blk = (np.arange(h) // 8)[:, None] * nbx + np.arange(1, nbx)[None, :]
    s = np.asarray(bs, np.int64)[blk]
    q = np.asarray(qp, np.int64)
    qpav = (q[blk - 1] + q[blk] + 1) >> 1
    alpha, beta = _P93_ALPHA[qpav], _P93_BETA[qpav]
    p0, p1, p2, p3 = (f[:, xs - k] for k in (1, 2, 3, 4))
    q0, q1, q2, q3 = (f[:, xs + k] for k in (0, 1, 2, 3))
    on = (s > 0) & (np.abs(p0 - q0) < alpha) & (np.abs(p1 - p0) < beta) & (np.abs(q1 - q0) < beta)
    ap = (np.abs(p2 - p0) < beta).astype(np.int64)
    aq = (np.abs(q2 - q0) < beta).astype(np.int64)
    new = {k: v.copy() for k, v in (("p0", p0), ("p1", p1), ("p2", p2), ("q0", q0), ("q1", q1), ("q2", q2))}
    # bS < 4
    nrm = on & (s < 4)
    tc0 = _P93_TC0[qpav, np.clip(s - 1, 0, 2)]
    tc = tc0 + ap + aq
    delta = np.clip((4 * (q0 - p0) + (p1 - q1) + 4) >> 3, -tc, tc)
    avg = (p0 + q0 + 1) >> 1
    for key, val, m in (("p0", np.clip(p0 + delta, 0, 255), nrm), ("q0", np.clip(q0 - delta, 0, 255), nrm),
                        ("p1", p1 + np.clip((p2 + avg - 2 * p1) >> 1, -tc0, tc0), nrm & (ap > 0)),
                        ("q1", q1 + np.clip((q2 + avg - 2 * q1) >> 1, -tc0, tc0), nrm & (aq > 0))):
        new[key] = np.where(m, val, new[key])
    # bS 4
    st = on & (s == 4)
    strong = np.abs(p0 - q0) < ((alpha >> 2) + 2)
    sp, sq = st & (ap > 0) & strong, st & (aq > 0) & strong
    for key, val, m in (("p0", (p2 + 2 * p1 + 2 * p0 + 2 * q0 + q1 + 4) >> 3, sp),
                        ("p1", (p2 + p1 + p0 + q0 + 2) >> 2, sp),
                        ("p2", (2 * p3 + 3 * p2 + p1 + p0 + q0 + 4) >> 3, sp),
                        ("p0", (2 * p1 + p0 + q1 + 2) >> 2, st & ~sp),
                        ("q0", (p1 + 2 * p0 + 2 * q0 + 2 * q1 + q2 + 4) >> 3, sq),
                        ("q1", (p0 + q0 + q1 + q2 + 2) >> 2, sq),
                        ("q2", (2 * q3 + 3 * q2 + q1 + q0 + p0 + 4) >> 3, sq),
                        ("q0", (2 * q1 + q0 + p1 + 2) >> 2, st & ~sq)):
        new[key] = np.where(m, val, new[key])
    for key, k in (("p0", -1), ("p1", -2), ("p2", -3), ("q0", 0), ("q1", 1), ("q2", 2)):
        f[:, xs + k] = new[key]
    return (f & 255).astype(np.uint8).ravel(), nrm, st


# ---- intra4x4-satd-modes ----

def _p93_ip_frame(w, h, rng):
    """A frame with directional structure: a smooth texture (8-pixel cells) plus, a 16 x 16
    region, stripes of a random orientation and period 4 .. 16 (amplitude 0 .. 50), plus
    N(0, 2^2) grain; uint8."""
    r = _P93_IP_REGION
    sh = (-(-h // r), -(-w // r))
    th = rng.uniform(0, np.pi, sh).astype(np.float32)
    per = rng.uniform(4, 16, sh).astype(np.float32)
    amp = rng.uniform(0, 50, sh).astype(np.float32)
    ph = rng.uniform(0, 2 * np.pi, sh).astype(np.float32)
    th, per, amp, ph = (a.repeat(r, 0).repeat(r, 1)[:h, :w] for a in (th, per, amp, ph))
    y, x = np.arange(h, dtype=np.float32)[:, None], np.arange(w, dtype=np.float32)[None, :]
    stripes = amp * np.sin(2 * np.pi * (x * np.cos(th) + y * np.sin(th)) / per + ph)
    return _p93_u8(_p93_texture(h, w, rng, 8, 150) + 50 + stripes + rng.normal(0, 2, (h, w)).astype(np.float32))


def _p93_ip_args(n, rng):
    """The frame (uint8, w x h, _p93_ip_frame); the best modes (uint8) and costs (int32)
    a 4x4 block zeroed; w, h."""
    w, h = _p93_dims(n)
    nb = (w // 4) * (h // 4)
    return [_p93_ip_frame(w, h, rng).ravel(), np.zeros(nb, np.uint8), np.zeros(nb, np.int32), _i32(w), _i32(h)]


def _p93_ip_pred(mode, x, y, T, L, dc):
    """pred4x4 over all blocks at once: T[:, 1 + k] = p[k, -1], L[:, 1 + k] = p[-1, k]."""
    def PT(k):
        return T[:, k + 1]

    def PL(k):
        return L[:, k + 1]
    if mode == 0:
        return PT(x)
    if mode == 1:
        return PL(y)
    if mode == 2:
        return dc
    if mode == 3:
        if x == 3 and y == 3:
            return (PT(6) + 3 * PT(7) + 2) >> 2
        return (PT(x + y) + 2 * PT(x + y + 1) + PT(x + y + 2) + 2) >> 2
    if mode == 4:
        if x > y:
            return (PT(x - y - 2) + 2 * PT(x - y - 1) + PT(x - y) + 2) >> 2
        if x < y:
            return (PL(y - x - 2) + 2 * PL(y - x - 1) + PL(y - x) + 2) >> 2
        return (PT(0) + 2 * PT(-1) + PL(0) + 2) >> 2
    if mode == 5:
        z, k = 2 * x - y, x - (y >> 1)
        if z >= 0 and z % 2 == 0:
            return (PT(k - 1) + PT(k) + 1) >> 1
        if z > 0:
            return (PT(k - 2) + 2 * PT(k - 1) + PT(k) + 2) >> 2
        if z == -1:
            return (PL(0) + 2 * PL(-1) + PT(0) + 2) >> 2
        return (PL(y - 1) + 2 * PL(y - 2) + PL(y - 3) + 2) >> 2
    if mode == 6:
        z, k = 2 * y - x, y - (x >> 1)
        if z >= 0 and z % 2 == 0:
            return (PL(k - 1) + PL(k) + 1) >> 1
        if z > 0:
            return (PL(k - 2) + 2 * PL(k - 1) + PL(k) + 2) >> 2
        if z == -1:
            return (PL(0) + 2 * PL(-1) + PT(0) + 2) >> 2
        return (PT(x - 1) + 2 * PT(x - 2) + PT(x - 3) + 2) >> 2
    if mode == 7:
        k = x + (y >> 1)
        if y % 2 == 0:
            return (PT(k) + PT(k + 1) + 1) >> 1
        return (PT(k) + 2 * PT(k + 1) + PT(k + 2) + 2) >> 2
    z, k = x + 2 * y, y + (x >> 1)
    if z > 5:
        return PL(3)
    if z == 5:
        return (PL(2) + 3 * PL(3) + 2) >> 2
    if z % 2 == 0:
        return (PL(k) + PL(k + 1) + 1) >> 1
    return (PL(k) + 2 * PL(k + 1) + PL(k + 2) + 2) >> 2


def _p93_ip_ref(img, w, h):
    """intra4x4_mode_decision in numpy: the best mode (uint8) and cost (int32) a 4x4 block,
    and every mode's cost (nb x 9, int64; a huge value where the mode is unavailable)."""
    f = np.asarray(img, np.int64).reshape(h, w)
    nby, nbx = h // 4, w // 4
    by, bx = np.divmod(np.arange(nby * nbx), nbx)
    y0, x0 = 4 * by, 4 * bx
    cur = f.reshape(nby, 4, nbx, 4).transpose(0, 2, 1, 3).reshape(-1, 16)
    has_t, has_l = y0 > 0, x0 > 0
    has_tr = has_t & (x0 + 4 < w)
    ym, xm = np.maximum(y0 - 1, 0), np.maximum(x0 - 1, 0)
    T = np.empty((len(y0), 9), np.int64)
    L = np.empty((len(y0), 5), np.int64)
    T[:, 0] = np.where(has_t & has_l, f[ym, xm], 128)
    L[:, 0] = T[:, 0]
    for k in range(4):
        T[:, 1 + k] = np.where(has_t, f[ym, x0 + k], 128)
        L[:, 1 + k] = np.where(has_l, f[y0 + k, xm], 128)
    for k in range(4, 8):
        T[:, 1 + k] = np.where(has_tr, f[ym, np.minimum(x0 + k, w - 1)], T[:, 4])
    st, sl = T[:, 1:5].sum(axis=1), L[:, 1:5].sum(axis=1)
    dc = np.where(has_t & has_l, (st + sl + 4) >> 3,
                  np.where(has_t, (st + 2) >> 2, np.where(has_l, (sl + 2) >> 2, 128)))
    H = np.array([[1, 1, 1, 1], [1, 1, -1, -1], [1, -1, 1, -1], [1, -1, -1, 1]], np.int64)
    ok = {0: has_t, 3: has_t, 7: has_t, 1: has_l, 8: has_l, 2: np.ones_like(has_t)}
    costs = np.empty((len(y0), 9), np.int64)
    for m in range(9):
        pred = np.stack([_p93_ip_pred(m, x, y, T, L, dc) * np.ones(len(y0), np.int64)
                         for y in range(4) for x in range(4)], axis=1)
        d = (cur - pred).reshape(-1, 4, 4)
        c = np.abs(H @ d @ H.T).sum(axis=(1, 2)) >> 1
        costs[:, m] = np.where(ok.get(m, has_t & has_l), c, 1 << 40)
    best = costs.argmin(axis=1)
    return best.astype(np.uint8), costs.min(axis=1).astype(np.int32), costs


# ---- jpeg-symbol-stats ----

def _p93_ss_args(n, rng):
    """n / 64 blocks of quantized levels (int16, _p93_coefs through _p93_quant_ref: JPEG's
    table with a dead zone); the AC (256) and DC (16) histograms (int32) and the nonzero
    counts a block (uint8) zeroed; the number of blocks."""
    lev = _p93_quant_ref(_p93_coefs(n // 64, rng).ravel())[0]
    nb = n // 64
    return [lev, np.zeros(256, np.int32), np.zeros(16, np.int32), np.zeros(nb, np.uint8), _i32(nb)]


def _p93_ss_ref(lev):
    """jpeg_symbol_stats in numpy: AC and DC histograms (int64) and nonzero counts (uint8)."""
    L = np.asarray(lev, np.int64).reshape(-1, 64)
    nb = len(L)
    dc = np.abs(L[:, 0] - np.r_[0, L[:-1, 0]])
    dch = np.bincount(np.where(dc > 0, np.floor(np.log2(np.maximum(dc, 1))).astype(np.int64) + 1, 0),
                      minlength=16)
    ac = np.zeros(256, np.int64)
    run = np.zeros(nb, np.int64)
    zz = _p93_zigzag()
    for k in range(1, 64):
        v = L[:, zz[k]]
        nz = v != 0
        ac[0xF0] += (run[nz] // 16).sum()
        a = np.abs(v[nz])
        size = np.floor(np.log2(a)).astype(np.int64) + 1
        np.add.at(ac, ((run[nz] % 16) << 4) | size, 1)
        run = np.where(nz, 0, run + 1)
    ac[0] += (run > 0).sum()
    return ac, dch, (L != 0).sum(axis=1).astype(np.uint8)


UNSEEN91 = [
    TimingProbe("probe/me-sad-fullsearch", "probe-unseen91", "me_sad_fullsearch", 1 << 21, (16, 16),
                lambda n: (_p93_dims(n)[0] // 8, _p93_dims(n)[1] // 8), _p93_me_args, source=_P93,
                note="full-search block motion estimation on a 2048 x 1024 8-bit frame, a 16 x 16 block an 8x8 "
                     "block (32768 blocks), a thread one of the 256 candidate vectors in +-8: the block (64 B) "
                     "and its 23 x 23 reference window (clamped at the borders, 3 strided byte-load trips) "
                     "staged in shared memory, 64 |cur - ref| terms from shared bytes a thread (the current "
                     "block broadcast, the window 16 consecutive bytes a half-warp), a lambda-weighted MV cost, "
                     "an 8-level shared tree minimum with a barrier each; shared-load/ALU-bound"),
    TimingProbe("probe/dct8x8-hevc-smem", "probe-unseen91", "dct8x8_fwd", 1 << 25, (16, 16),
                lambda n: (_p93_dims(n)[0] // 16, _p93_dims(n)[1] // 16), _p93_dct_args, source=_P93,
                note="HEVC's 8x8 integer forward DCT of an 8192 x 4096 int16 residual frame, a 16 x 16 tile (four "
                     "8x8 blocks) a block: one coalesced short load a thread into shared memory, 8 MACs against "
                     "the __constant__ basis row u = tx % 8 (8 different constant addresses a warp) over a "
                     "shared row, a barrier, 8 MACs down a shared int column (row v = ty % 8: 2 constant "
                     "addresses a warp), one short store; 64 MB read, 64 MB written"),
    TimingProbe("probe/quant-deadzone-jpeg", "probe-unseen91", "quant_deadzone", 1 << 25, 256,
                lambda n: -(-n // 256), _p93_quant_args, source=_P93,
                note="dead-zone quantization of 2^25 int32 DCT coefficients (8x8 blocks stored one after "
                     "another), a thread a coefficient: a coalesced load, the 64-entry multiplier and step "
                     "tables read from global at i % 64 (L1-resident), an integer multiply-shift, a clamp, an "
                     "int16 level and an int32 reconstruction stored; 128 MB read, 192 MB written; memory-bound"),
    TimingProbe("probe/deblock-h264-vedge", "probe-unseen91", "deblock_vedge_luma", 1 << 26, 256,
                lambda n: -(-(n // 8) // 256), _p93_db_args, source=_P93,
                note="H.264's luma deblocking of the vertical 8x8-grid edges of an 8192 x 8192 frame in place, "
                     "a thread a line of an edge (2^23 threads; a warp's lanes 8 bytes apart on one row): bS "
                     "(25% 0: those lanes leave) and two QPs per block, alpha/beta from __constant__ tables at "
                     "a per-lane index, 8 byte loads, the filterSamplesFlag test (~55% of lines filtered: 44% by "
                     "the normal filter, tc0 from a __constant__ table, 2-4 byte stores; 11% by bS 4's strong "
                     "one, 2-6 stores); divergent, byte-granular memory traffic"),
    TimingProbe("probe/intra4x4-satd-modes", "probe-unseen91", "intra4x4_mode_decision", 1 << 25, 128,
                lambda n: -(-(n // 16) // 128), _p93_ip_args, source=_P93,
                note="H.264 intra 4x4 mode decision on an 8192 x 4096 8-bit frame, a thread a 4x4 block (2^21 "
                     "threads): 16 + 13 byte loads (4-byte rows, lanes 4 bytes apart), then the 9 prediction "
                     "modes in a loop over a switch (a device function per pixel with a nested switch and local "
                     "edge arrays), each residual's 4x4 Hadamard SATD (~100 integer ops), the cheapest kept; "
                     "a byte and an int stored; integer compute-bound"),
    TimingProbe("probe/jpeg-symbol-stats", "probe-unseen91", "jpeg_symbol_stats", 1 << 25, _P93_SS_BLOCK,
                lambda n: -(-(n // 64) // _P93_SS_BLOCK), _p93_ss_args, source=_P93,
                note="JPEG Huffman symbol statistics of 2^19 8x8 blocks of int16 levels, a thread a block (lanes "
                     "128 B apart): the DC difference's size by __clz, 63 zigzag loads through a __constant__ "
                     "table (uniform index), a data-dependent (run, size) symbol per nonzero level (~15 a block) "
                     "counted by shared atomicAdd into 256 + 16 bins (EOB and small sizes hot), ZRL loops, then "
                     "one global atomicAdd per nonzero bin a block; divergent, shared-atomic-bound"),
]
PROBES += UNSEEN91


# probe-unseen96 (probes98.cu): a deep-learning training course's kernels (the softmax
# cross-entropy gradient a block a row, LayerNorm's input gradient a warp a row, an AdamW
# step with global-norm clipping, inverted dropout with a hash RNG and a byte mask, the
# embedding table's gradient by atomicAdd over Zipf-distributed words, a linear layer's
# weight gradient X^T dY by 16 x 16 shared-memory tiles) as a student who knows CUDA
# basics writes them
_P98 = "probes98.cu"
P98_XENT_C, P98_XENT_BLOCK, P98_XENT_IGNORE = 1000, 256, -100   # xent: classes, XENT_THREADS, IGNORE_INDEX
P98_XENT_PAD = 0.05                                # the fraction of rows labelled IGNORE_INDEX
P98_XENT_SD, P98_XENT_BOOST = 2.0, 6.0             # logits N(0, sd^2), the label's logit + boost
P98_LN_H, P98_LN_BLOCK, P98_LN_EPS = 768, 256, 1e-5   # layernorm-bwd: the row length, 8 rows a block
P98_ADAM_BLOCK, P98_ADAM_GRID = 256, 1024          # adamw: the grid-stride launch (at most 1024 blocks)
P98_ADAM_LR, P98_ADAM_B1, P98_ADAM_B2, P98_ADAM_EPS, P98_ADAM_WD = 1e-3, 0.9, 0.999, 1e-8, 0.01
P98_ADAM_STEP, P98_ADAM_MAXNORM = 10, 1.0          # the step t (bias corrections), the clip norm
P98_ADAM_GSD, P98_ADAM_PSD = 1e-3, 0.02            # gradients N(0, gsd^2), parameters N(0, psd^2)
P98_DROP_P, P98_DROP_SEED = 0.1, 0x5EED98          # dropout: the drop probability, the RNG seed
P98_EMB_D, P98_EMB_V, P98_EMB_PAD = 256, 32000, 0  # embedding-grad: the row length, vocabulary, padding id
P98_EMB_SEQ, P98_EMB_MINLEN, P98_EMB_ZIPF = 512, 128, 1.0   # sequences of SEQ tokens, lengths uniform MINLEN .. SEQ
P98_EMB_Q = 64                                     # dout N(0, 1) rounded to multiples of 1 / Q
P98_WG_TILE = 16                                   # linear-wgrad: WG_TILE; batch = in_f = out_f = n


def _p98_hash(x):
    """hash32 (lowbias32) of uint32 x, as probes98.cu computes it."""
    x = np.asarray(x, np.uint32)
    x = x ^ (x >> np.uint32(16))
    x = x * np.uint32(0x7feb352d)
    x = x ^ (x >> np.uint32(15))
    x = x * np.uint32(0x846ca68b)
    return x ^ (x >> np.uint32(16))


def _p98_xent_args(n, rng):
    """n rows of P98_XENT_C logits (float32, N(0, P98_XENT_SD^2), the label's logit raised
    by P98_XENT_BOOST), labels (int32) uniform over the classes with a fraction
    P98_XENT_PAD of the rows IGNORE_INDEX (at least one row kept); dlogits and loss
    (zeroed); C, grad_scale = 1 / (rows kept), n."""
    C = P98_XENT_C
    lab = rng.integers(0, C, n).astype(np.int32)
    z = rng.normal(0, P98_XENT_SD, (n, C))
    z[np.arange(n), lab] += P98_XENT_BOOST
    ign = rng.random(n) < P98_XENT_PAD
    ign[0] = False
    lab[ign] = P98_XENT_IGNORE
    return [z.astype(np.float32).ravel(), lab, np.zeros(n * C, np.float32), np.zeros(n, np.float32), _i32(C),
            np.float32(1.0 / (~ign).sum()), _i32(n)]


def _p98_xent_ref(logits, labels, grad_scale, C=P98_XENT_C):
    """softmax_xent_backward in float64: dlogits (rows x C) and the rows' losses."""
    z = np.asarray(logits, np.float64).reshape(-1, C)
    lab = np.asarray(labels)
    keep = lab != P98_XENT_IGNORE
    m = z.max(axis=1, keepdims=True)
    e = np.exp(z - m)
    s = e.sum(axis=1, keepdims=True)
    p = e / s
    r = np.flatnonzero(keep)
    p[r, lab[r]] -= 1.0
    d = np.where(keep[:, None], p * float(grad_scale), 0.0)
    loss = np.zeros(len(lab))
    loss[r] = np.log(s[r, 0]) + m[r, 0] - z[r, lab[r]]
    return d, loss


def _p98_ln_args(n, rng):
    """n rows of P98_LN_H: dy N(0, 1), x N(0, 1) scaled by a row's own factor (0.5 .. 2)
    and shifted by N(0, 1), gamma 1 + N(0, 0.1^2) (all float32); the forward pass's saved
    mean and rstd = 1 / sqrt(var + eps) of x's rows (float64 then float32); dx (zeroed); H,
    n."""
    H = P98_LN_H
    f = np.float32
    x = (rng.standard_normal((n, H)) * rng.uniform(0.5, 2.0, (n, 1)) + rng.standard_normal((n, 1))).astype(f)
    dy = rng.standard_normal((n, H)).astype(f)
    gamma = (1 + 0.1 * rng.standard_normal(H)).astype(f)
    xd = x.astype(np.float64)
    mean = xd.mean(axis=1)
    rstd = 1 / np.sqrt(xd.var(axis=1) + P98_LN_EPS)
    return [dy.ravel(), x.ravel(), gamma, mean.astype(f), rstd.astype(f), np.zeros(n * H, f), _i32(H), _i32(n)]


def _p98_ln_ref(dy, x, gamma, mean, rstd, H=P98_LN_H):
    """layernorm_backward in float64 (the saved float32 mean and rstd): dx, rows x H."""
    dy, x = (np.asarray(a, np.float64).reshape(-1, H) for a in (dy, x))
    mu, rs = (np.asarray(a, np.float64)[:, None] for a in (mean, rstd))
    xhat = (x - mu) * rs
    g = dy * np.asarray(gamma, np.float64)
    return rs * (g - (g.sum(axis=1, keepdims=True) + xhat * (g * xhat).sum(axis=1, keepdims=True)) / H)


def _p98_adam_grid(n):
    return min(P98_ADAM_GRID, -(-n // P98_ADAM_BLOCK))


def _p98_adam_args(n, rng):
    """n parameters mid-training (float32): params N(0, P98_ADAM_PSD^2), grads N(0,
    P98_ADAM_GSD^2), m N(0, (0.3 gsd)^2), v gsd^2 times uniform 0.2 .. 2 (positive); the
    gradients' global L2 norm (a one-element float32 array); lr, beta1, beta2, eps, weight
    decay, the bias corrections 1 - beta^t at t = P98_ADAM_STEP, max_norm (below the norm
    from 2^21 parameters up: clipping on), n."""
    f = np.float32
    gsd = P98_ADAM_GSD
    g = (rng.standard_normal(n) * gsd).astype(f)
    norm = np.array([np.sqrt((g.astype(np.float64) ** 2).sum())], f)
    return [(rng.standard_normal(n) * P98_ADAM_PSD).astype(f), g, (rng.standard_normal(n) * 0.3 * gsd).astype(f),
            (gsd * gsd * rng.uniform(0.2, 2.0, n)).astype(f), norm, f(P98_ADAM_LR), f(P98_ADAM_B1),
            f(P98_ADAM_B2), f(P98_ADAM_EPS), f(P98_ADAM_WD), f(1 - P98_ADAM_B1 ** P98_ADAM_STEP),
            f(1 - P98_ADAM_B2 ** P98_ADAM_STEP), f(P98_ADAM_MAXNORM), _i32(n)]


def _p98_adam_ref(p, g, m, v, norm, lr, b1, b2, eps, wd, bc1, bc2, max_norm):
    """adamw_step in float64 (the float32 scalars): the parameters, m and v after."""
    p, g, m, v = (np.asarray(a, np.float64) for a in (p, g, m, v))
    lr, b1, b2, eps, wd, bc1, bc2, max_norm = (float(a) for a in (lr, b1, b2, eps, wd, bc1, bc2, max_norm))
    clip = min(1.0, max_norm / (float(np.asarray(norm)[0]) + 1e-6))
    g = g * clip
    m = b1 * m + (1 - b1) * g
    v = b2 * v + (1 - b2) * g * g
    return p - lr * (m / bc1 / (np.sqrt(v / bc2) + eps) + wd * p), m, v


def _p98_drop_args(n, rng):
    """n activations (float32, N(0, 1)); y and the byte mask (zeroed); p, seed, n."""
    return [_f32(n, rng), np.zeros(n, np.float32), np.zeros(n, np.uint8), np.float32(P98_DROP_P),
            np.uint32(P98_DROP_SEED), _i32(n)]


def _p98_drop_ref(x, p=P98_DROP_P, seed=P98_DROP_SEED):
    """dropout_forward exactly (float32): y and the mask."""
    i = np.arange(len(x), dtype=np.uint32)
    u = (_p98_hash(np.uint32(seed) + i) >> np.uint32(8)).astype(np.float64) / 16777216.0
    keep = u >= float(np.float32(p))
    y = np.where(keep, np.asarray(x, np.float32) / (np.float32(1) - np.float32(p)), np.float32(0))
    return y.astype(np.float32), keep.astype(np.uint8)


def _p98_emb_tokens(n, rng):
    """n token ids (int32) in sequences of P98_EMB_SEQ (the last one maybe shorter): a
    sequence's first L tokens (L uniform in P98_EMB_MINLEN .. P98_EMB_SEQ) words, the rest
    P98_EMB_PAD; a word's Zipf rank r (P(r) ~ 1 / r^P98_EMB_ZIPF over the V - 1 words)
    mapped to its id by a random permutation of 1 .. V - 1 (hot rows scattered)."""
    V = P98_EMB_V
    w = 1.0 / np.arange(1, V) ** P98_EMB_ZIPF
    ids = rng.permutation(np.arange(1, V))
    tok = ids[rng.choice(V - 1, n, p=w / w.sum())].astype(np.int32)
    pos = np.arange(n) % P98_EMB_SEQ
    lens = rng.integers(P98_EMB_MINLEN, P98_EMB_SEQ + 1, -(-n // P98_EMB_SEQ))
    tok[pos >= lens[np.arange(n) // P98_EMB_SEQ]] = P98_EMB_PAD
    return tok


def _p98_emb_args(n, rng):
    """n tokens (_p98_emb_tokens); their output gradients (n x P98_EMB_D float32, N(0, 1)
    rounded to multiples of 1 / P98_EMB_Q: the sums exact in any order); dW (V x D,
    zeroed); D, the padding id, n."""
    tok = _p98_emb_tokens(n, rng)
    dout = (np.round(rng.standard_normal((n, P98_EMB_D)) * P98_EMB_Q) / P98_EMB_Q).astype(np.float32)
    return [tok, dout.ravel(), np.zeros(P98_EMB_V * P98_EMB_D, np.float32), _i32(P98_EMB_D), _i32(P98_EMB_PAD),
            _i32(n)]


def _p98_emb_ref(tokens, dout, D=P98_EMB_D, V=P98_EMB_V, pad=P98_EMB_PAD):
    """embedding_backward in float64: dW (V x D)."""
    tok = np.asarray(tokens)
    d = np.asarray(dout, np.float64).reshape(-1, D)
    keep = tok != pad
    dW = np.zeros((V, D))
    np.add.at(dW, tok[keep], d[keep])
    return dW


def _p98_wg_grid(n):
    t = -(-n // P98_WG_TILE)
    return (t, t)


def _p98_wg_args(n, rng):
    """A linear layer with in_f = out_f = n over a batch of n: X and dY (n x n, float32,
    N(0, 1) and N(0, 0.1^2)); dW (n x n, zeroed); batch, in_f, out_f."""
    f = np.float32
    X = rng.standard_normal((n, n)).astype(f)
    dY = (0.1 * rng.standard_normal((n, n))).astype(f)
    return [X.ravel(), dY.ravel(), np.zeros(n * n, f), _i32(n), _i32(n), _i32(n)]


def _p98_wg_ref(X, dY, batch, in_f, out_f):
    """linear_wgrad in float64: dW (in_f x out_f)."""
    X = np.asarray(X, np.float64)[:batch * in_f].reshape(batch, in_f)
    dY = np.asarray(dY, np.float64)[:batch * out_f].reshape(batch, out_f)
    return X.T @ dY


UNSEEN96 = [
    TimingProbe("probe/xent-softmax-grad-rows", "probe-unseen96", "softmax_xent_backward", 1 << 15, P98_XENT_BLOCK,
                lambda n: n, _p98_xent_args, source=_P98,
                note="the softmax cross-entropy gradient of 2^15 rows of 1000 logits, a block of 256 a row: three "
                     "coalesced passes over the row (max, sum of expf, the gradient's store; the row's 4 KB "
                     "re-read from L1/L2), each of the first two closed by an 8-step shared-memory tree "
                     "reduction with __syncthreads; one loss store a row; ~5% of the rows (IGNORE_INDEX) only "
                     "store zeros; memory-bound with barrier-heavy reductions"),
    TimingProbe("probe/layernorm-bwd-warp", "probe-unseen96", "layernorm_backward", 1 << 15, P98_LN_BLOCK,
                lambda n: -(-n // (P98_LN_BLOCK // 32)), _p98_ln_args, source=_P98,
                note="LayerNorm's input gradient for 2^15 rows of 768, a warp a row (8 a block): a first pass "
                     "reading x, dy and gamma (coalesced, 24 floats a lane each) for two sums, 5 steps of two "
                     "__shfl_xor_sync, a second pass re-reading the three (the row's 6 KB from L1/L2) and "
                     "storing dx; memory-bound, 2 floats from DRAM and one to it an element"),
    TimingProbe("probe/adamw-clip-gridstride", "probe-unseen96", "adamw_step", 1 << 24, P98_ADAM_BLOCK,
                _p98_adam_grid, _p98_adam_args, source=_P98,
                note="one AdamW step over 2^24 float parameters, a grid-stride loop of 1024 blocks of 256 (64 "
                     "elements a thread): the clip factor from a one-float device read (a broadcast), then "
                     "a streaming update reading param, grad, m, v and writing param, m, v (28 B an "
                     "element, coalesced) with three float divisions (two by the bias corrections) "
                     "and a sqrtf an element; memory-bound"),
    TimingProbe("probe/dropout-hash-bytemask", "probe-unseen96", "dropout_forward", 1 << 25, 256,
                lambda n: -(-n // 256), _p98_drop_args, source=_P98,
                note="inverted dropout (p 0.1) of 2^25 floats, a thread an element: a lowbias32 hash of seed + i "
                     "(2 integer multiplies, 3 shift-xors), a compare, x loaded and divided by 1 - p only by "
                     "the kept 90% (a divergent if/else, both sides storing), y stored as a float and the mask "
                     "as a byte (a warp's byte stores one 32 B sector); memory-bound"),
    TimingProbe("probe/embedding-grad-atomic-zipf", "probe-unseen96", "embedding_backward", 1 << 15, P98_EMB_D,
                lambda n: n, _p98_emb_args, source=_P98,
                note="the embedding table's gradient for 2^15 tokens (sequences of 512, ~38% padding, skipped "
                     "by whole blocks) into a 32000 x 256 float table, a block of 256 a token: a coalesced "
                     "1 KB read of the token's gradient row and 256 float atomicAdds into its word's row "
                     "(consecutive addresses); words Zipf(1) over the vocabulary, so the most frequent row "
                     "takes ~9% of the tokens' atomics (same-address contention), most rows few"),
    TimingProbe("probe/linear-wgrad-smem16", "probe-unseen96", "linear_wgrad", 768, (P98_WG_TILE, P98_WG_TILE),
                _p98_wg_grid, _p98_wg_args, source=_P98,
                note="a linear layer's weight gradient dW = X^T dY (768 x 768, a BERT-base projection, over a "
                     "batch of 768 tokens), a 16 x 16 block a 16 x 16 tile of dW (48 x 48 blocks): 48 steps "
                     "each loading a 16 x 16 tile of X and of dY (coalesced 64 B rows) into shared memory, "
                     "two __syncthreads and 16 FMAs from shared (sX[k][ty] a broadcast, sY[k][tx] "
                     "conflict-free): 2 shared loads an FMA; ~0.9 GFLOP, shared-memory/compute-bound"),
]
PROBES += UNSEEN96


# probe-unseen99 (probes101.cu): a statistics / data-science course's kernels (bootstrap
# means and SDs with a per-thread xorshift32, a Gaussian KDE on a grid with the samples
# tiled through shared memory, Pearson correlation sums of every column pair with shuffle
# reductions and float atomics, a shared-memory-privatized histogram for quantiles, 1-D
# k-nearest-neighbour distances by binary search in sorted references, a two-sample
# permutation test by a partial Fisher-Yates shuffle of a local index array) as a student
# who knows CUDA basics writes them, predicted before their first GPU run
_P101 = "probes101.cu"
P101_BOOT_M, P101_BOOT_SEED = 1024, 2024           # bootstrap: the sample's size m (draws a replicate), seed
P101_BOOT_SCORE = (70.0, 12.0)                     # the sample: exam scores N(70, 12^2) rounded, clipped to 0 .. 100
P101_KDE_NX, P101_KDE_TILE = 2048, 256             # kde: samples, KDE_TILE (== the block)
P101_KDE_RANGE = (-5.0, 5.0)                       # the grid: n points lo + g (hi - lo) / n
P101_KDE_MIX = ((0.6, -1.0, 0.6), (0.4, 1.5, 0.9))  # the samples: a two-normal mixture (weight, mean, sd)
P101_CORR_COLS, P101_CORR_BLOCK, P101_CORR_GRIDX = 8, 256, 128   # pearson: columns, CORR_BLOCK, blocks a pair
P101_CORR_PAIRS = P101_CORR_COLS * (P101_CORR_COLS - 1) // 2
P101_CORR_RHO = 0.6                                # the columns' correlation rho^|j - k|
P101_HIST_BINS, P101_HIST_GRID = 1024, 1024        # hist: HIST_BINS, the most blocks (grid-stride)
P101_HIST_LO, P101_HIST_HI, P101_HIST_SIGMA = 0.0, 8.0, 0.75   # bins over [lo, hi); values lognormal(0, sigma)
P101_KNN_K, P101_KNN_NR = 8, 1 << 20             # knn: KNN_K, the (sorted) reference values
P101_KNN_MIX = ((0.7, 0.0, 1.0), (0.3, 3.0, 0.5))  # references and queries: a two-normal mixture (weight, mean, sd)
P101_PERM_N, P101_PERM_N1, P101_PERM_SEED = 128, 64, 99   # perm: PERM_N, group A's size, seed
P101_PERM_BLOCK = 128
P101_PERM_RT = ((540.0, 90.0), (530.0, 90.0))     # the groups: reaction times (ms) N(mu, sd^2) rounded


def _p101_wang(s):
    """wang_hash of uint32 s, as probes101.cu computes it."""
    s = np.asarray(s, np.uint32)
    s = (s ^ np.uint32(61)) ^ (s >> np.uint32(16))
    s = s * np.uint32(9)
    s = s ^ (s >> np.uint32(4))
    s = s * np.uint32(0x27d4eb2d)
    return s ^ (s >> np.uint32(15))


def _p101_xorshift(x):
    """One xorshift32 step of the uint32 states x: the new states."""
    x = np.asarray(x, np.uint32)
    x = x ^ (x << np.uint32(13))
    x = x ^ (x >> np.uint32(17))
    return x ^ (x << np.uint32(5))


def _p101_boot_data(m, rng):
    """m exam scores: N(P101_BOOT_SCORE) rounded to integers, clipped to 0 .. 100 (float32)."""
    mu, sd = P101_BOOT_SCORE
    return np.clip(np.round(rng.normal(mu, sd, m)), 0, 100).astype(np.float32)


def _p101_boot_args(n, rng):
    """The sample (_p101_boot_data, P101_BOOT_M scores), m, the n replicates' means and
    SDs (zeroed), seed, n."""
    return [_p101_boot_data(P101_BOOT_M, rng), _i32(P101_BOOT_M), np.zeros(n, np.float32), np.zeros(n, np.float32),
            np.uint32(P101_BOOT_SEED), _i32(n)]


def _p101_boot_ref(data, nboot, seed=P101_BOOT_SEED):
    """bootstrap_means in numpy (float32 as the kernel rounds it; the sums of integer
    scores are exact): the means, SDs and the draws' index counts (nboot x m)."""
    data = np.asarray(data, np.float32)
    m = len(data)
    f = np.float32
    st = _p101_wang(np.uint32(seed) ^ np.arange(nboot, dtype=np.uint32))
    s, sq = np.zeros(nboot, f), np.zeros(nboot, f)
    cnt = np.zeros((nboot, m), np.int32)
    rows = np.arange(nboot)
    for _ in range(m):
        st = _p101_xorshift(st)
        k = (st % np.uint32(m)).astype(np.int64)
        np.add.at(cnt, (rows, k), 1)
        v = data[k]
        s = (s + v).astype(f)
        sq = (sq + v * v).astype(f)
    mean = (s / f(m)).astype(f)
    var = ((sq - (s * s).astype(f) / f(m)).astype(f) / f(m - 1)).astype(f)
    return mean, np.sqrt(np.maximum(var, f(0))).astype(f), cnt


def _p101_kde_samples(nx, rng):
    """nx samples (float32) of the two-normal mixture P101_KDE_MIX."""
    (w0, m0, s0), (w1, m1, s1) = P101_KDE_MIX
    first = rng.random(nx) < w0
    return np.where(first, rng.normal(m0, s0, nx), rng.normal(m1, s1, nx)).astype(np.float32)


def _p101_kde_args(n, rng):
    """P101_KDE_NX samples (_p101_kde_samples), nx, the n densities (zeroed), lo, step =
    (hi - lo) / n, 1 / h (Silverman's h = 1.06 sd nx^-1/5), norm = 1 / (nx h sqrt(2 pi)), n."""
    x = _p101_kde_samples(P101_KDE_NX, rng)
    lo, hi = P101_KDE_RANGE
    h = 1.06 * float(x.std()) * len(x) ** -0.2
    f = np.float32
    return [x, _i32(len(x)), np.zeros(n, f), f(lo), f((hi - lo) / n), f(1.0 / h),
            f(1.0 / (len(x) * h * np.sqrt(2 * np.pi))), _i32(n)]


def _p101_kde_ref(x, lo, step, inv_h, norm, ng):
    """kde_gauss's densities in float64 (the grid points as the kernel's float32 lo + g step)."""
    g = (np.float32(lo) + np.arange(ng, dtype=np.float32) * np.float32(step)).astype(np.float64)
    out = np.zeros(ng)
    x = np.asarray(x, np.float64)
    for c in range(0, ng, 4096):
        u = (g[c:c + 4096, None] - x[None, :]) * float(inv_h)
        out[c:c + 4096] = np.exp(-0.5 * u * u).sum(axis=1) * float(norm)
    return out


def _p101_corr_matrix(c=P101_CORR_COLS, rho=P101_CORR_RHO):
    return rho ** np.abs(np.subtract.outer(np.arange(c), np.arange(c)))


def _p101_pairs(c=P101_CORR_COLS):
    """The column pairs (j, k), j < k, in pearson_pairs' order (blockIdx.y)."""
    return [(j, k) for j in range(c) for k in range(j + 1, c)]


def _p101_corr_args(n, rng):
    """An n x P101_CORR_COLS table (float32, column-major) of correlated normals (the
    correlation rho^|j - k|, column j's mean j / 4 and SD 1 + j / 8), n, the columns, the
    5 sums of each pair (zeroed)."""
    c = P101_CORR_COLS
    L = np.linalg.cholesky(_p101_corr_matrix())
    z = rng.standard_normal((n, c)) @ L.T
    X = z * (1 + np.arange(c) / 8) + np.arange(c) / 4
    return [np.ascontiguousarray(X.T).astype(np.float32).ravel(), _i32(n), _i32(c),
            np.zeros(5 * P101_CORR_PAIRS, np.float32)]


def _p101_corr_ref(X, n, c=P101_CORR_COLS):
    """pearson_pairs' sums in float64 (pairs x 5) and the correlations they give."""
    X = np.asarray(X, np.float64).reshape(c, n)
    out = []
    for j, k in _p101_pairs(c):
        a, b = X[j], X[k]
        out.append([a.sum(), b.sum(), (a * a).sum(), (b * b).sum(), (a * b).sum()])
    return np.array(out), _p101_corr_from_sums(np.array(out), n)


def _p101_corr_from_sums(s, n):
    """The host's finish: r of each pair from its 5 sums (float64)."""
    s = np.asarray(s, np.float64).reshape(-1, 5)
    sa, sb, saa, sbb, sab = s.T
    return (n * sab - sa * sb) / np.sqrt((n * saa - sa * sa) * (n * sbb - sb * sb))


def _p101_hist_args(n, rng):
    """n lognormal(0, P101_HIST_SIGMA) values (float32), n, lo, 1 / the bin width, the
    P101_HIST_BINS counts (uint32, zeroed)."""
    w = (P101_HIST_HI - P101_HIST_LO) / P101_HIST_BINS
    return [rng.lognormal(0.0, P101_HIST_SIGMA, n).astype(np.float32), _i32(n), np.float32(P101_HIST_LO),
            np.float32(1.0 / w), np.zeros(P101_HIST_BINS, np.uint32)]


def _p101_hist_ref(x, lo=P101_HIST_LO, inv_w=None):
    """hist_shared's counts (the bin computed in float32 as the kernel does)."""
    inv_w = np.float32(P101_HIST_BINS / (P101_HIST_HI - P101_HIST_LO) if inv_w is None else inv_w)
    b = ((np.asarray(x, np.float32) - np.float32(lo)) * inv_w).astype(np.float32)
    b = np.clip(np.trunc(np.clip(b, -1e9, 1e9)).astype(np.int64), 0, P101_HIST_BINS - 1)
    return np.bincount(b, minlength=P101_HIST_BINS).astype(np.uint32)


def _p101_hist_quantiles(hist, qs, lo=P101_HIST_LO, hi=P101_HIST_HI):
    """The host's quantiles from the counts: the upper edge of the first bin whose CDF
    reaches q."""
    cdf = np.cumsum(np.asarray(hist, np.int64)) / np.sum(hist)
    w = (hi - lo) / len(hist)
    return np.array([lo + (np.searchsorted(cdf, q) + 1) * w for q in qs])


def _p101_knn_mix(k, rng):
    """k values (float64) of the two-normal mixture P101_KNN_MIX."""
    (w0, m0, s0), (w1, m1, s1) = P101_KNN_MIX
    first = rng.random(k) < w0
    return np.where(first, rng.normal(m0, s0, k), rng.normal(m1, s1, k))


def _p101_knn_args(n, rng):
    """P101_KNN_NR reference values of the mixture P101_KNN_MIX (float32, sorted), nr, n
    held-out query values of the same mixture (float32, in random order), n, the K-th
    neighbour distances (zeroed)."""
    r = np.sort(_p101_knn_mix(P101_KNN_NR, rng).astype(np.float32))
    q = _p101_knn_mix(n, rng).astype(np.float32)
    return [r, _i32(len(r)), q, _i32(n), np.zeros(n, np.float32)]


def _p101_knn_ref(r, qs, k=P101_KNN_K):
    """knn1d_sorted in numpy: each query's distance (float32) to its k-th nearest reference,
    and where its binary search ended (the first r[i] >= x)."""
    r, x = np.asarray(r, np.float32), np.asarray(qs, np.float32)
    nr = len(r)
    lo = np.searchsorted(r, x, side="left")
    L, R = lo - 1, lo.copy()
    big = np.float32(np.finfo(np.float32).max)
    d = np.zeros(len(x), np.float32)
    for _ in range(k):
        dl = np.where(L >= 0, x - r[np.maximum(L, 0)], big).astype(np.float32)
        dr = np.where(R < nr, r[np.minimum(R, nr - 1)] - x, big).astype(np.float32)
        left = dl <= dr
        d = np.where(left, dl, dr)
        L = L - left
        R = R + ~left
    return d, lo


def _p101_knn_density(d, nr, k=P101_KNN_K):
    """The host's k-NN density estimate k / (2 nr d_k) from the distances (float64)."""
    return k / (2.0 * nr * np.asarray(d, np.float64))


def _p101_perm_sample():
    """The pooled sample (fixed): group A's P101_PERM_N1 reaction times then group B's
    (integers, float32), N(P101_PERM_RT) rounded, clipped to 150 .. 1500 ms."""
    r = np.random.default_rng(101)
    (ma, sa), (mb, sb) = P101_PERM_RT
    n1, n2 = P101_PERM_N1, P101_PERM_N - P101_PERM_N1
    x = np.r_[r.normal(ma, sa, n1), r.normal(mb, sb, n2)]
    return np.clip(np.round(x), 150, 1500).astype(np.float32)


def _p101_perm_stat(sa, total, n1=P101_PERM_N1):
    """perm_test's statistic from group A's sum (float32 as the kernel rounds it)."""
    f = np.float32
    sa = np.asarray(sa, f)
    return ((sa / f(n1)).astype(f) - ((f(total) - sa).astype(f) / f(P101_PERM_N - n1)).astype(f)).astype(f)


def _p101_perm_args(n, rng):
    """The pooled sample (_p101_perm_sample), n1, its total, the observed statistic, seed,
    the n permutations' statistics (zeroed), the count (uint32, zeroed), n."""
    x = _p101_perm_sample()
    n1 = P101_PERM_N1
    total = np.float32(x.sum())
    obs = _p101_perm_stat(x[:n1].sum(), total)
    return [x, _i32(n1), total, np.float32(obs), np.uint32(P101_PERM_SEED), np.zeros(n, np.float32),
            np.zeros(1, np.uint32), _i32(n)]


def _p101_perm_ref(x, n1, total, obs, nperm, seed=P101_PERM_SEED):
    """perm_test in numpy: the statistics, the count and the chosen index sets (nperm x n1)."""
    x = np.asarray(x, np.float32)
    N = P101_PERM_N
    st = _p101_wang(np.uint32(seed) ^ np.arange(nperm, dtype=np.uint32))
    idx = np.tile(np.arange(N), (nperm, 1))
    rows = np.arange(nperm)
    sa = np.zeros(nperm, np.float32)
    for i in range(n1):
        st = _p101_xorshift(st)
        j = i + (st % np.uint32(N - i)).astype(np.int64)
        t = idx[:, i].copy()
        idx[:, i] = idx[rows, j]
        idx[rows, j] = t
        sa = (sa + x[idx[:, i]]).astype(np.float32)
    stat = _p101_perm_stat(sa, total, n1)
    return stat, int((np.abs(stat) >= np.abs(np.float32(obs))).sum()), idx[:, :n1]


UNSEEN99 = [
    TimingProbe("probe/bootstrap-mean-xorshift", "probe-unseen99", "bootstrap_means", 1 << 16, 256,
                lambda n: -(-n // 256), _p101_boot_args, source=_P101,
                note="nonparametric bootstrap of a 1024-score sample's mean and SD, 2^16 replicates, a thread a "
                     "replicate: 1024 draws each a xorshift32 step, an unsigned % by the runtime m (an integer "
                     "division sequence) and a random gather from the 4 KB sample (L1-resident: a warp's lanes "
                     "on ~20 of its 32 lines), two float adds/FMAs; two stores a thread; "
                     "integer-ALU/L1-gather-bound"),
    TimingProbe("probe/kde-gauss-grid-smem", "probe-unseen99", "kde_gauss", 1 << 17, P101_KDE_TILE,
                lambda n: -(-n // P101_KDE_TILE), _p101_kde_args, source=_P101,
                note="Gaussian kernel density estimate of 2048 samples (a bimodal mixture) on a 2^17-point grid, "
                     "a thread a grid point: the samples staged into shared memory 256 at a time (8 tiles, 2 "
                     "barriers each), 2048 shared broadcast reads each with a sub, 2 muls and an expf (2^28 "
                     "expf in all), one store a thread; SFU/FMA compute-bound"),
    TimingProbe("probe/pearson-pairs-shfl-atomic", "probe-unseen99", "pearson_pairs", 1 << 21, P101_CORR_BLOCK,
                lambda n: (min(P101_CORR_GRIDX, -(-n // P101_CORR_BLOCK)), P101_CORR_PAIRS), _p101_corr_args,
                source=_P101,
                note="Pearson correlation sums of all 28 pairs of the 8 columns of a 2^21 x 8 column-major float "
                     "table (64 MB), a 128 x 28 grid of 256-thread blocks (blockIdx.y a pair, decoded by a "
                     "short while loop): a grid-stride loop of 64 rows a thread, 2 coalesced loads and 5 "
                     "adds/FMAs a row (each column read by 7 pairs: 448 MB of loads, much of it L2 hits), 5 "
                     "shuffle reductions, shared memory across the 8 warps, 5 float atomicAdds a block; "
                     "memory-bound"),
    TimingProbe("probe/hist-quantile-smem-atomics", "probe-unseen99", "hist_shared", 1 << 24, 256,
                lambda n: min(P101_HIST_GRID, -(-n // 256)), _p101_hist_args, source=_P101,
                note="a 1024-bin histogram (for quantiles) of 2^24 lognormal(0, 0.75) floats over [0, 8), 1024 "
                     "blocks of 256 in a grid-stride loop (64 values a thread): a coalesced load, a float "
                     "sub/mul, a truncation and clamps, a shared atomicAdd (~80% of the mass in the low 256 "
                     "bins, the fullest 0.56%; ~30 distinct bins a warp), then ~780 nonzero-bin global "
                     "atomicAdds a block; 64 MB read; shared-atomic-bound"),
    TimingProbe("probe/knn1d-bsearch-kdist", "probe-unseen99", "knn1d_sorted", 1 << 22, 256,
                lambda n: -(-n // 256), _p101_knn_args, source=_P101,
                note="1-D k-NN density radii: the distance to the 8th nearest of 2^20 sorted reference values "
                     "(4 MB, L2-resident) for 2^22 held-out queries in random order, a thread a query: a "
                     "coalesced load, a 20-step binary search (dependent loads, the lanes of a warp at "
                     "unrelated addresses after the first few steps; the top levels shared and L1-hot), 8 "
                     "merge steps loading left and right neighbours (mostly the same few lines) with a "
                     "divergent two-way branch, one coalesced store; latency-bound dependent gathers"),
    TimingProbe("probe/perm-test-fisher-yates", "probe-unseen99", "perm_test", 1 << 18, P101_PERM_BLOCK,
                lambda n: -(-n // P101_PERM_BLOCK), _p101_perm_args, source=_P101,
                note="two-sample permutation test of a difference in means (64 + 64 reaction times, p ~ 0.04), "
                     "2^18 permutations, a thread a permutation (blocks of 128): the pooled sample in shared "
                     "memory, a local int[128] index array initialized (128 local stores), a 64-step partial "
                     "Fisher-Yates shuffle (a xorshift32 step, an unsigned % by 128 - i, 2 local loads and 2 "
                     "stores at random indices, a shared read), the statistic stored and a global atomicAdd on "
                     "one counter from the ~4% as extreme; local-memory-bound"),
]
PROBES += UNSEEN99


# probe-unseen97 (probes99.cu): a multigrid / numerical-PDE solvers course's kernels (a
# variable-coefficient 7-point residual in 3-D, a red-black SOR half-sweep in 3-D by parity
# test, a 27-point full-weighting restriction, a y-line Jacobi smoother by the Thomas
# algorithm in per-thread arrays, a coarse grid's residual norms by a shared tree and two
# atomics a block, a one-block coarsest-grid red-black solve in shared memory) as a
# student who knows CUDA basics writes them
_P99 = "probes99.cu"
P99_NOISE = 0.05                                   # 3-D iterates: the smooth mode plus this N(0, 1) noise, 0 on the boundary
P99_VC_N, P99_VC_BLOCK = 256, (32, 4, 2)           # vc7-residual: n^3 points
P99_VC_LOGA = (-1.0, 1.0)                          # the coefficient a: log10 uniform (0.1 .. 10) a point
P99_RB_N, P99_RB_BLOCK = 256, (8, 8, 8)            # rbgs3d: n^3 points
P99_RB_OMEGA, P99_RB_COLOR = 1.2, 0                # over-relaxation; the colour updated (red: i + j + k even)
P99_FW_NC, P99_FW_BLOCK = 193, (32, 4, 4)          # fw-restrict27: coarse points a side (fine 2 nc - 1 = 385)
P99_YL_N, P99_YL_NY, P99_YL_BLOCK = 192, 256, (32, 8)   # yline-jacobi: n^3 points; YL_NY (n <= YL_NY)
P99_YL_EX, P99_YL_EZ, P99_YL_OMEGA = 0.01, 0.01, 0.8    # the weak couplings in x and z; the damping
P99_RN_N, P99_RN_BLOCK = 4096, (16, 16)            # resnorm2d: n^2 points; NORM_BLOCK = 256
P99_RN_NOISE = 0.01                                # its u: the smooth solution plus this N(0, 1) noise
P99_CG_N, P99_CG_BLOCK, P99_CG_SWEEPS = 65, (32, 32), 300   # coarsest-rbgs: n^2 points (CG_N), one block, sweeps


def _p99_cdiv(a, b):
    return -(-a // b)


def _p99_grid3(block):
    return lambda n: (_p99_cdiv(n, block[0]), _p99_cdiv(n, block[1]), _p99_cdiv(n, block[2]))


def _p99_iterate3(n, rng):
    """A 3-D iterate (n^3 float32, k j i): sin(pi x) sin(pi y) sin(pi z) plus P99_NOISE
    N(0, 1) noise, 0 on the boundary."""
    s = np.sin(np.pi * np.linspace(0.0, 1.0, n)).astype(np.float32)
    u = s[:, None, None] * s[None, :, None] * s[None, None, :]
    u += np.float32(P99_NOISE) * rng.standard_normal((n, n, n), dtype=np.float32)
    u[[0, -1], :, :] = 0
    u[:, [0, -1], :] = 0
    u[:, :, [0, -1]] = 0
    return u.ravel()


def _p99_vc_args(n, rng):
    """vc7_residual's: u (_p99_iterate3), a (log10 uniform in P99_VC_LOGA), f (N(0, 1)), r
    (zeroed), all n^3 float32; inv_h2 = (n - 1)^2, n."""
    u = _p99_iterate3(n, rng)
    a = (10.0 ** rng.uniform(*P99_VC_LOGA, n ** 3)).astype(np.float32)
    f = rng.standard_normal(n ** 3, dtype=np.float32)
    return [u, a, f, np.zeros(n ** 3, np.float32), np.float32((n - 1) ** 2), _i32(n)]


def _p99_vc_ref(u, a, f, inv_h2, n):
    """vc7_residual's r in float64 (0 on the boundary)."""
    U, A, F = (np.asarray(x, np.float64).reshape(n, n, n) for x in (u, a, f))
    C = (slice(1, -1),) * 3
    uc, ac = U[C], A[C]
    s = np.zeros_like(uc)
    for ax in range(3):
        for d in (-1, 1):
            sl = [slice(1, -1)] * 3
            sl[ax] = slice(1 + d, n - 1 + d)
            an, un = A[tuple(sl)], U[tuple(sl)]
            s += 2 * ac * an / (ac + an) * (uc - un)
    r = np.zeros((n, n, n))
    r[C] = F[C] - float(inv_h2) * s
    return r.ravel()


def _p99_rb_args(n, rng):
    """rbgs3d_sweep's: u (_p99_iterate3), f (N(0, 1)), n^3 float32; h2 = 1 / (n - 1)^2,
    omega, the colour, n."""
    u = _p99_iterate3(n, rng)
    f = rng.standard_normal(n ** 3, dtype=np.float32)
    return [u, f, np.float32(1.0 / (n - 1) ** 2), np.float32(P99_RB_OMEGA), _i32(P99_RB_COLOR), _i32(n)]


def _p99_rb_ref(u, f, h2, omega, color, n):
    """One half-sweep of red-black SOR in float64: u after."""
    U = np.array(u, np.float64).reshape(n, n, n)
    F = np.asarray(f, np.float64).reshape(n, n, n)
    k, j, i = np.ogrid[:n, :n, :n]
    mask = ((i + j + k) % 2 == color) & (i > 0) & (j > 0) & (k > 0) & (i < n - 1) & (j < n - 1) & (k < n - 1)
    nb = np.zeros_like(U)
    nb[1:-1, 1:-1, 1:-1] = (U[1:-1, 1:-1, :-2] + U[1:-1, 1:-1, 2:] + U[1:-1, :-2, 1:-1] + U[1:-1, 2:, 1:-1]
                            + U[:-2, 1:-1, 1:-1] + U[2:, 1:-1, 1:-1])
    gs = (float(h2) * F + nb) / 6
    w = float(omega)
    return np.where(mask, (1 - w) * U + w * gs, U).ravel()


def _p99_fw_args(n, rng):
    """fw_restrict27's: the fine residual ((2 n - 1)^3 float32, N(0, 1)), the coarse one
    (n^3, zeroed), nc = n."""
    nf = 2 * n - 1
    return [rng.standard_normal(nf ** 3, dtype=np.float32), np.zeros(n ** 3, np.float32), _i32(n)]


def _p99_fw_ref(rf, nc):
    """The full-weighting restriction in float64 (0 on the coarse boundary)."""
    nf = 2 * nc - 1
    R = np.asarray(rf, np.float64).reshape(nf, nf, nf)
    out = np.zeros((nc, nc, nc))
    for dk in (-1, 0, 1):
        for dj in (-1, 0, 1):
            for di in (-1, 0, 1):
                w = (2 - abs(di)) * (2 - abs(dj)) * (2 - abs(dk)) / 64
                out[1:-1, 1:-1, 1:-1] += w * R[2 + dk:2 * nc - 3 + dk:2, 2 + dj:2 * nc - 3 + dj:2,
                                               2 + di:2 * nc - 3 + di:2]
    return out.ravel()


def _p99_yl_args(n, rng):
    """yline_jacobi's: u (_p99_iterate3), f (N(0, 1)), u_new (a copy of u: the boundary
    kept), n^3 float32; ex, ez, h2 = 1 / (n - 1)^2, omega, n."""
    u = _p99_iterate3(n, rng)
    f = rng.standard_normal(n ** 3, dtype=np.float32)
    f32 = np.float32
    return [u, f, u.copy(), f32(P99_YL_EX), f32(P99_YL_EZ), f32(1.0 / (n - 1) ** 2), f32(P99_YL_OMEGA), _i32(n)]


def _p99_yl_ref(u, f, ex, ez, h2, omega, n):
    """yline_jacobi's sweep in float64 (the lines side by side, Thomas in y): u_new."""
    U = np.asarray(u, np.float64).reshape(n, n, n)
    F = np.asarray(f, np.float64).reshape(n, n, n)
    ex, ez, h2, w = float(ex), float(ez), float(h2), float(omega)
    diag = 2 + 2 * ex + 2 * ez
    # right sides d[j] of the interior lines (k, i), j = 1 .. n - 2
    I = slice(1, -1)
    d = (h2 * F[I, :, I] + ex * (U[I, :, :-2] + U[I, :, 2:]) + ez * (U[:-2, :, I] + U[2:, :, I]))[:, 1:-1, :]
    d[:, 0, :] += U[I, 0, I]
    d[:, -1, :] += U[I, -1, I]
    m = n - 2
    cp = np.zeros((m, ) + d[:, 0, :].shape)
    dp = np.zeros_like(cp)
    cprev, dprev = 0.0, 0.0
    for j in range(m):
        mm = diag + cprev
        cp[j] = -1 / mm
        dp[j] = (d[:, j, :] + dprev) / mm
        cprev, dprev = cp[j], dp[j]
    x = np.zeros_like(cp)
    xn = 0.0
    for j in range(m - 1, -1, -1):
        xn = dp[j] - cp[j] * xn
        x[j] = xn
    out = U.copy()
    out[I, I, I] = (1 - w) * U[I, I, I] + w * np.transpose(x, (1, 0, 2))
    return out.ravel()


def _p99_rn_args(n, rng):
    """resnorm2d's: u (n^2 float32: sin(pi x) sin(pi y) plus P99_RN_NOISE N(0, 1) noise, 0 on
    the boundary), f = 2 pi^2 sin(pi x) sin(pi y) (the smooth part's right side), the sum
    (1 float64) and the max's bits (1 int32) zeroed; inv_h2 = (n - 1)^2, n."""
    s = np.sin(np.pi * np.linspace(0.0, 1.0, n))
    sm = np.outer(s, s)
    u = (sm + P99_RN_NOISE * rng.standard_normal((n, n))).astype(np.float32)
    u[[0, -1], :] = 0
    u[:, [0, -1]] = 0
    f = (2 * np.pi ** 2 * sm).astype(np.float32)
    return [u.ravel(), f.ravel(), np.zeros(1, np.float64), np.zeros(1, np.int32), np.float32((n - 1) ** 2), _i32(n)]


def _p99_rn_ref(u, f, inv_h2, n):
    """resnorm2d's interior residual in float64: (sum r^2, max |r|)."""
    U = np.asarray(u, np.float64).reshape(n, n)
    F = np.asarray(f, np.float64).reshape(n, n)
    r = F[1:-1, 1:-1] - float(inv_h2) * (4 * U[1:-1, 1:-1] - U[1:-1, :-2] - U[1:-1, 2:] - U[:-2, 1:-1] - U[2:, 1:-1])
    return float((r * r).sum()), float(np.abs(r).max())


def _p99_cg_args(n, rng):
    """coarsest_rbgs's: u (n^2 float32: 0 inside, x^2 - y^2 on the boundary), f (N(0, 1)); h2
    = 1 / (n - 1)^2, the sweeps (P99_CG_SWEEPS), n."""
    x = np.linspace(0.0, 1.0, n)
    g = (x[None, :] ** 2 - x[:, None] ** 2).astype(np.float32)
    u = np.zeros((n, n), np.float32)
    u[[0, -1], :] = g[[0, -1], :]
    u[:, [0, -1]] = g[:, [0, -1]]
    f = rng.standard_normal((n, n), dtype=np.float32)
    return [u.ravel(), f.ravel(), np.float32(1.0 / (n - 1) ** 2), _i32(P99_CG_SWEEPS), _i32(n)]


def _p99_cg_ref(u, f, h2, sweeps, n):
    """coarsest_rbgs's sweeps in float64 (h2 f rounded to float32 as the kernel stages it)."""
    U = np.array(u, np.float64).reshape(n, n)
    hf = (np.float32(h2) * np.asarray(f, np.float32)).astype(np.float64).reshape(n, n)
    j, i = np.ogrid[:n, :n]
    masks = [((i + j) % 2 == c) & (i > 0) & (j > 0) & (i < n - 1) & (j < n - 1) for c in (0, 1)]
    for _ in range(int(sweeps)):
        for mask in masks:
            nb = np.zeros_like(U)
            nb[1:-1, 1:-1] = U[1:-1, :-2] + U[1:-1, 2:] + U[:-2, 1:-1] + U[2:, 1:-1]
            U = np.where(mask, 0.25 * (hf + nb), U)
    return U.ravel()


UNSEEN97 = [
    TimingProbe("probe/mg-vc7-residual-harmonic", "probe-unseen97", "vc7_residual", P99_VC_N, P99_VC_BLOCK,
                _p99_grid3(P99_VC_BLOCK), _p99_vc_args, source=_P99,
                note="the residual f - A u of the variable-coefficient 7-point operator -div(a grad u) on a 256^3 "
                     "grid, a thread a point (32 x 4 x 2 blocks, 65536 of them): 7 u and 7 a loads (x neighbours "
                     "coalesced, y and z ones a row / a plane away, reused through L1/L2), f, one store; 6 face "
                     "coefficients as harmonic means 2ab / (a + b) (6 float divisions a point); boundary threads "
                     "store 0; memory-bound with divisions"),
    TimingProbe("probe/mg-rbsor3d-parity-888", "probe-unseen97", "rbgs3d_sweep", P99_RB_N, P99_RB_BLOCK,
                _p99_grid3(P99_RB_BLOCK), _p99_rb_args, source=_P99,
                note="one red half-sweep of red-black SOR (omega 1.2) for the 7-point Poisson problem on a 256^3 "
                     "grid in place, a thread a point of the whole grid in 8 x 8 x 8 blocks (32768 blocks; a warp "
                     "4 rows of 8 floats, 32-byte pieces): every other lane returns on (i + j + k) % 2, the rest "
                     "load 6 neighbours of the other colour and f at stride 2 and store u at stride 2; "
                     "divergent, memory-bound"),
    TimingProbe("probe/mg-fw-restrict27-3d", "probe-unseen97", "fw_restrict27", P99_FW_NC, P99_FW_BLOCK,
                _p99_grid3(P99_FW_BLOCK), _p99_fw_args, source=_P99,
                note="27-point full-weighting restriction of a 385^3 fine residual (228 MB) to 193^3, a thread a "
                     "coarse point (32 x 4 x 4 blocks; 193 = 6 x 32 + 1, so the last x-block runs one column): a "
                     "triple loop of 27 fine loads at stride 2 floats in x (a warp's row 256 bytes, 9 rows a "
                     "thread, each fine word read by up to 8 threads) with integer weights from abs(), one "
                     "coalesced store; memory-bound, L1 reuse"),
    TimingProbe("probe/mg-yline-thomas-local", "probe-unseen97", "yline_jacobi", P99_YL_N, P99_YL_BLOCK,
                lambda n: (_p99_cdiv(n, P99_YL_BLOCK[0]), _p99_cdiv(n, P99_YL_BLOCK[1])), _p99_yl_args,
                source=_P99,
                note="a weighted y-line Jacobi sweep for an anisotropic 192^3 problem (ex = ez = 0.01), a thread a "
                     "line (i, k) (32 x 8 blocks over x and z: only 144 blocks, 190^2 lines): a Thomas solve of "
                     "190 unknowns, the forward pass 6 coalesced loads (u's x and z neighbours, f), 2 float "
                     "divisions and the elimination's cp/dp in per-thread local arrays (2 x 256 floats, 2 KiB), "
                     "the backward pass reading them back, u and storing u_new; serial, latency- and "
                     "local-memory-bound"),
    TimingProbe("probe/mg-resnorm2d-atomic-max", "probe-unseen97", "resnorm2d", P99_RN_N, P99_RN_BLOCK,
                lambda n: (_p99_cdiv(n, P99_RN_BLOCK[0]), _p99_cdiv(n, P99_RN_BLOCK[1])), _p99_rn_args,
                source=_P99,
                note="the residual norms of a 4096^2 coarse grid (5-point Poisson), a thread a point in 16 x 16 "
                     "blocks (65536 blocks): 5 u and one f load (64-byte row pieces), r^2 in double, a "
                     "shared-memory tree over 256 doubles and 256 floats (8 levels, 9 barriers), then thread 0's "
                     "double atomicAdd on sum r^2 and atomicMax on max |r|'s bits: 131072 atomics on 2 words"),
    TimingProbe("probe/mg-coarsest-rbgs-1block", "probe-unseen97", "coarsest_rbgs", P99_CG_N, P99_CG_BLOCK,
                lambda n: 1, _p99_cg_args, source=_P99,
                note="the coarsest-grid solve of a 65^2 Poisson problem by one block of 32 x 32 threads: u and "
                     "h^2 f staged in 34 KB of shared memory, 300 red-black Gauss-Seidel sweeps, each colour a "
                     "loop of 4 strided trips over the 63^2 interior (an integer % and / by a runtime m, every "
                     "other point skipped by parity, 5 shared loads and a store) and a __syncthreads (600 "
                     "barriers); one SM busy, latency-bound"),
]
PROBES += UNSEEN97


# probe-unseen98 (probes100.cu): a digital-logic / VLSI CAD course's kernels (bit-parallel
# simulation of a netlist level with a switch on the gate type, stuck-at fault simulation
# of a __constant__ circuit in a per-thread array, NLDM arrival-time propagation, HPWL per
# net with a shared-memory block sum, a RUDY congestion map by float atomics, signature
# Hamming distances by __popc with a shared histogram) as a student who knows CUDA basics
# writes them
_P100 = "probes100.cu"
P100_LS_W = 4                                      # logic-sim: LS_W 64-bit words a signal (256 patterns)
P100_GATE_P = (0.15, 0.25, 0.10, 0.20, 0.05, 0.03, 0.17, 0.05)   # AND NAND OR NOR XOR XNOR NOT BUF
P100_LOCAL_SD, P100_GLOBAL = 2048.0, 0.25          # fan-ins: near the gate's place (N(0, sd) ids) or, at this rate, anywhere
P100_FS_G, P100_FS_PI, P100_FS_PO = 256, 32, 16    # fault-sim: FS_G gates, FS_PI inputs, FS_PO outputs
P100_FS_DANGLE, P100_FS_RECENT = 0.5, 0.7         # a fan-in the oldest gate without fan-out / one of the 24 before it
P100_FS_BLOCK = 128
P100_NLDM_N, P100_NLDM_T = 7, 8                    # sta: NLDM_N-point axes, NLDM_TYPES cell types
P100_SLEW_AX = (0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5)        # ns
P100_LOAD_AX = (0.0005, 0.001, 0.003, 0.01, 0.03, 0.06, 0.12)  # pF
P100_FANIN_P = (0.15, 0.45, 0.25, 0.15)            # sta: 1, 2, 3, 4 fan-ins
P100_HPWL_BLOCK = 256
P100_DEG = ((2, 2, 0.55), (3, 3, 0.18), (4, 4, 0.09), (5, 8, 0.12), (9, 32, 0.05), (33, 128, 0.01))  # net degrees
P100_PIN_SD = 64.0                                 # hpwl: a pin's cell within N(0, sd) ids of the net's, else anywhere
P100_RUDY_G = 512                                  # rudy: RUDY_GW = RUDY_GH bins of 1 x 1
P100_RUDY_HOT, P100_RUDY_HOTS = 0.6, 12            # nets centred in one of HOTS clusters at this rate, else uniform
P100_RUDY_MAXW = 31.9                              # bbox sides lognormal, at most this
P100_SIG_WORDS = 8                                 # sig: 256-bit signatures
P100_SIG_SAME, P100_SIG_NEAR = 0.15, 0.05          # signatures equal to the golden one, 1-4 bits off it


def _p100_bytes64(size, rng):
    """size uniform random uint64 words."""
    return np.frombuffer(rng.bytes(8 * int(size)), np.uint64).copy()


def _p100_fanins(n, nprev, rng):
    """A fan-in signal id for each of n gates of a level over nprev earlier signals: near
    the gate's place (g * nprev / n + N(0, P100_LOCAL_SD), clipped), or uniform at rate
    P100_GLOBAL (int32)."""
    g = np.arange(n, dtype=np.float64)
    loc = np.clip(np.rint(g * (nprev / n) + rng.normal(0, P100_LOCAL_SD, n)), 0, nprev - 1)
    far = rng.integers(0, nprev, n)
    return np.where(rng.random(n) < P100_GLOBAL, far, loc).astype(np.int32)


def _p100_ls_args(n, rng):
    """A level of n gates over n earlier signals: types (uint8, P100_GATE_P), fan-ins
    (_p100_fanins; a NOT or BUF's fin1 its fin0), the signals' patterns (uint64, 2n *
    P100_LS_W: the earlier n random, the level's zeroed); out_base n, n."""
    t = rng.choice(8, n, p=P100_GATE_P).astype(np.uint8)
    a, b = _p100_fanins(n, n, rng), _p100_fanins(n, n, rng)
    b = np.where(t >= 6, a, b).astype(np.int32)
    val = np.zeros(2 * n * P100_LS_W, np.uint64)
    val[:n * P100_LS_W] = _p100_bytes64(n * P100_LS_W, rng)
    return [t, a, b, val, _i32(n), _i32(n)]


def _p100_gate(t, x, y):
    """Gates of types t on words x, y (numpy uint arrays, t broadcast)."""
    return np.select([t == 0, t == 1, t == 2, t == 3, t == 4, t == 5, t == 6],
                     [x & y, ~(x & y), x | y, ~(x | y), x ^ y, ~(x ^ y), ~x], x)


def _p100_ls_ref(t, a, b, val, out_base):
    """logic_sim_level's output words (n x P100_LS_W)."""
    v = np.asarray(val).reshape(-1, P100_LS_W)
    return _p100_gate(np.asarray(t)[:, None], v[a], v[b])


def _p100_fs_circuit():
    """fault-sim's circuit (fixed, levelized): gate types (P100_GATE_P) and fan-ins (int32,
    P100_FS_G each); inputs (the first P100_FS_PI) are BUFs of themselves; a fan-in is the
    oldest gate without fan-out yet at rate P100_FS_DANGLE (so every gate reaches an
    output), else one of the 24 gates before it at rate P100_FS_RECENT, else any earlier
    gate; a NOT or BUF has one fan-in (in1 == in0)."""
    r = np.random.default_rng(98)
    G, PI = P100_FS_G, P100_FS_PI
    t = np.full(G, 7, np.int32)
    t[PI:] = r.choice(8, G - PI, p=P100_GATE_P)
    i0, i1 = np.arange(G, dtype=np.int32), np.arange(G, dtype=np.int32)
    fanout = np.zeros(G, np.int64)
    for g in range(PI, G):
        pick = []
        for _ in range(1 if t[g] >= 6 else 2):
            dangling = [h for h in np.flatnonzero(fanout[:g] == 0) if h not in pick]
            if dangling and r.random() < P100_FS_DANGLE:
                h = int(dangling[0])
            elif r.random() < P100_FS_RECENT:
                h = int(r.integers(max(0, g - 24), g))
            else:
                h = int(r.integers(0, g))
            pick.append(h)
            fanout[h] += 1
        i0[g], i1[g] = pick[0], pick[-1]
    return t, i0, i1


def _p100_fs_syms(n, rng):
    t, i0, i1 = _p100_fs_circuit()
    return {"c_fs_type": t, "c_fs_in0": i0, "c_fs_in1": i1}


def _p100_fs_sim(pat, fault=None):
    """The circuit's gate values (P100_FS_G x nwords, uint32) on inputs pat (P100_FS_PI x
    nwords), fault (gate, stuck value) forced."""
    t, i0, i1 = _p100_fs_circuit()
    pat = np.asarray(pat, np.uint32).reshape(P100_FS_PI, -1)
    v = np.zeros((P100_FS_G, pat.shape[1]), np.uint32)
    v[:P100_FS_PI] = pat
    for g in range(P100_FS_G):
        if g >= P100_FS_PI:
            v[g] = _p100_gate(t[g], v[i0[g]], v[i1[g]])
        if fault is not None and g == fault[0]:
            v[g] = np.uint32(0xffffffff) if fault[1] else np.uint32(0)
    return v


def _p100_fs_args(n, rng):
    """n 32-pattern words (random) of the P100_FS_PI inputs (uint32, input-major), the
    good circuit's P100_FS_PO outputs on them, the fault list (every gate stuck-at 0 and
    1: gate * 2 + value, int32), the detect masks (zeroed, fault-major), n."""
    pat = rng.integers(0, 1 << 32, P100_FS_PI * n, dtype=np.uint64).astype(np.uint32)
    good = _p100_fs_sim(pat)[-P100_FS_PO:].ravel()
    nf = 2 * P100_FS_G
    return [pat, good, np.arange(nf, dtype=np.int32), np.zeros(nf * n, np.uint32), _i32(n)]


def _p100_fs_ref(pat, flist):
    """fault_sim's detect masks (len(flist) x nwords)."""
    pat = np.asarray(pat, np.uint32).reshape(P100_FS_PI, -1)
    good = _p100_fs_sim(pat)[-P100_FS_PO:]
    out = np.zeros((len(flist), pat.shape[1]), np.uint32)
    for k, f in enumerate(flist):
        d = _p100_fs_sim(pat, (int(f) >> 1, int(f) & 1))[-P100_FS_PO:] ^ good
        out[k] = np.bitwise_or.reduce(d, axis=0)
    return out


def _p100_nldm_tables():
    """The cell library: axes (float32) and delay / output-slew tables (NLDM_T x 7 x 7,
    float32, ns): delay d0 + a s + r l + c sqrt(s l), slew s0 + b s + 2.2 r l a type."""
    s = np.array(P100_SLEW_AX)[:, None]
    ld = np.array(P100_LOAD_AX)[None, :]
    d0 = np.array([0.008, 0.006, 0.012, 0.016, 0.02, 0.022, 0.024, 0.03])
    a = np.array([0.12, 0.1, 0.16, 0.2, 0.15, 0.18, 0.25, 0.14])
    rr = np.array([4.0, 2.2, 4.8, 6.5, 5.0, 5.2, 6.0, 3.0])
    c = np.array([0.3, 0.25, 0.4, 0.5, 0.35, 0.4, 0.6, 0.3])
    s0 = np.array([0.004, 0.003, 0.006, 0.008, 0.006, 0.007, 0.01, 0.005])
    b = np.array([0.08, 0.06, 0.1, 0.12, 0.09, 0.1, 0.14, 0.07])
    dt = np.stack([d0[k] + a[k] * s + rr[k] * ld + c[k] * np.sqrt(s * ld) for k in range(P100_NLDM_T)])
    st = np.stack([s0[k] + b[k] * s + 2.2 * rr[k] * ld for k in range(P100_NLDM_T)])
    f = np.float32
    return np.array(P100_SLEW_AX, f), np.array(P100_LOAD_AX, f), dt.astype(f), st.astype(f)


def _p100_sta_syms(n, rng):
    sa, la, dt, st = _p100_nldm_tables()
    return {"c_slew_ax": sa, "c_load_ax": la, "c_delay_tab": dt.ravel(), "c_oslew_tab": st.ravel()}


def _p100_sta_args(n, rng):
    """A level of n gates over n earlier signals: fan-in lists (CSR, 1-4 fan-ins by
    P100_FANIN_P, ids by _p100_fanins), wire delays (float32 U(0.001, 0.05) ns), cell
    types (uint8, uniform), loads (lognormal around 8 fF, 0.4-150 fF, pF); arrival times
    (U(0, 3) ns) and slews (lognormal around 50 ps, 3-800 ps) of the earlier signals, the
    level's zeroed (float32, 2n); pred (zeroed); out_base n, n."""
    k = rng.choice(4, n, p=P100_FANIN_P) + 1
    ptr = np.zeros(n + 1, np.int32)
    ptr[1:] = np.cumsum(k)
    g = np.repeat(np.arange(n), k)
    loc = np.clip(np.rint(g + rng.normal(0, P100_LOCAL_SD, len(g))), 0, n - 1)
    idx = np.where(rng.random(len(g)) < P100_GLOBAL, rng.integers(0, n, len(g)), loc).astype(np.int32)
    f = np.float32
    wire = rng.uniform(0.001, 0.05, len(g)).astype(f)
    ct = rng.integers(0, P100_NLDM_T, n).astype(np.uint8)
    load = np.clip(rng.lognormal(np.log(0.008), 0.8, n), 0.0004, 0.15).astype(f)
    at = np.zeros(2 * n, f)
    sl = np.zeros(2 * n, f)
    at[:n] = rng.uniform(0, 3, n)
    sl[:n] = np.clip(rng.lognormal(np.log(0.05), 0.7, n), 0.003, 0.8)
    return [ptr, idx, wire, ct, load, at, sl, np.zeros(n, np.int32), _i32(n), _i32(n)]


def _p100_interp(ax, x):
    """Axis segment and fraction of each x (float64), as sta_level finds them."""
    ax = np.asarray(ax, np.float64)
    x = np.asarray(x, np.float64)
    i = np.clip(np.searchsorted(ax, x, side="left") - 1, 0, len(ax) - 2)
    return i, (x - ax[i]) / (ax[i + 1] - ax[i])


def _p100_sta_ref(ptr, idx, wire, ct, load, at, sl):
    """sta_level in float64: arrival, slew of the level's signals, the critical fan-in
    and the gap between each gate's best and second-best arrival (inf for one fan-in)."""
    sa, la, dt, st = (np.asarray(a, np.float64) for a in _p100_nldm_tables())
    n = len(ct)
    k = np.diff(ptr)
    g = np.repeat(np.arange(n), k)
    j, fy = _p100_interp(la, np.asarray(load, np.float32)[g])
    u = np.asarray(idx)
    i, fx = _p100_interp(sa, np.asarray(sl, np.float32)[u])
    t = np.asarray(ct, np.int64)[g]

    def lut(tab):
        return ((1 - fx) * ((1 - fy) * tab[t, i, j] + fy * tab[t, i, j + 1])
                + fx * ((1 - fy) * tab[t, i + 1, j] + fy * tab[t, i + 1, j + 1]))
    a = np.asarray(at, np.float64)[u] + np.asarray(wire, np.float64) + lut(dt)
    so = lut(st)
    best = np.full(n, -np.inf)
    np.maximum.at(best, g, a)
    worst = np.zeros(n)
    np.maximum.at(worst, g, so)
    # the first fan-in reaching the max, and the gap to the runner-up
    first = np.full(n, len(u))
    hit = np.flatnonzero(a == best[g])
    np.minimum.at(first, g[hit], hit)
    pred = u[first]
    rest = np.where(np.arange(len(u)) == first[g], -np.inf, a)
    second = np.full(n, -np.inf)
    np.maximum.at(second, g, rest)
    return best, worst, pred, best - second


def _p100_degrees(n, rng):
    """n net degrees from P100_DEG (uniform within each range)."""
    r = rng.choice(len(P100_DEG), n, p=[d[2] for d in P100_DEG])
    lo = np.array([d[0] for d in P100_DEG])[r]
    hi = np.array([d[1] for d in P100_DEG])[r]
    return rng.integers(lo, hi + 1)


def _p100_hpwl_args(n, rng):
    """n nets over n cells: pins (CSR, degrees _p100_degrees), a pin's cell within
    N(0, P100_PIN_SD) ids of the net's own id, else (rate P100_GLOBAL) anywhere; pin offsets
    U(-0.5, 0.5); cells mid-placement (id in row-major order on a sqrt(n)-wide grid over a
    1000 x 1000 die, jittered by N(0, 3)); net weights 1, 1.5 or 2 (80/15/5%) (float32);
    net_hpwl and the total (zeroed); n."""
    k = _p100_degrees(n, rng)
    ptr = np.zeros(n + 1, np.int32)
    ptr[1:] = np.cumsum(k)
    m = int(ptr[-1])
    home = np.repeat(np.arange(n), k)
    loc = np.clip(np.rint(home + rng.normal(0, P100_PIN_SD, m)), 0, n - 1)
    cell = np.where(rng.random(m) < P100_GLOBAL, rng.integers(0, n, m), loc).astype(np.int32)
    f = np.float32
    side = int(np.ceil(np.sqrt(n)))
    c = np.arange(n)
    cx = ((c % side) + 0.5) * (1000.0 / side) + rng.normal(0, 3, n)
    cy = ((c // side) + 0.5) * (1000.0 / side) + rng.normal(0, 3, n)
    w = rng.choice(np.array([1.0, 1.5, 2.0]), n, p=[0.8, 0.15, 0.05])
    return [ptr, cell, rng.uniform(-0.5, 0.5, m).astype(f), rng.uniform(-0.5, 0.5, m).astype(f),
            cx.astype(f), cy.astype(f), w.astype(f), np.zeros(n, f), np.zeros(1, f), _i32(n)]


def _p100_hpwl_ref(ptr, cell, dx, dy, cx, cy, w):
    """hpwl_nets' per-net weighted HPWL (float32 pin positions, float64 after)."""
    k = np.diff(ptr)
    x = (np.asarray(cx, np.float32)[cell] + np.asarray(dx, np.float32)).astype(np.float64)
    y = (np.asarray(cy, np.float32)[cell] + np.asarray(dy, np.float32)).astype(np.float64)
    s = ptr[:-1]
    span = np.maximum.reduceat(x, s) - np.minimum.reduceat(x, s) + np.maximum.reduceat(y, s) - np.minimum.reduceat(y, s)
    return np.where(k > 0, np.asarray(w, np.float64) * span, 0.0)


def _p100_rudy_args(n, rng):
    """n nets' bounding boxes (float32 n x 4: xmin, ymin, xmax, ymax) on a P100_RUDY_G
    square die of 1 x 1 bins: centres in one of P100_RUDY_HOTS Gaussian clusters (sd 20)
    at rate P100_RUDY_HOT, else uniform; sides lognormal (median 0.8, sigma 1, at most
    P100_RUDY_MAXW); the box clipped to the die; weights as hpwl's; the map (zeroed,
    float32 G x G); bin_w, bin_h (1.0), n."""
    G = float(P100_RUDY_G)
    hot = rng.uniform(60, G - 60, (P100_RUDY_HOTS, 2))
    k = rng.integers(0, P100_RUDY_HOTS, n)
    c = np.where((rng.random(n) < P100_RUDY_HOT)[:, None], hot[k] + rng.normal(0, 20, (n, 2)),
                 rng.uniform(0, G, (n, 2)))
    wh = np.minimum(rng.lognormal(np.log(0.8), 1.0, (n, 2)), P100_RUDY_MAXW)
    lo = np.clip(c - wh / 2, 0, G - 1e-3)
    hi = np.clip(c + wh / 2, 0, G - 1e-3)
    box = np.concatenate([lo, hi], axis=1).astype(np.float32)
    w = rng.choice(np.array([1.0, 1.5, 2.0]), n, p=[0.8, 0.15, 0.05]).astype(np.float32)
    f = np.float32
    return [box.ravel(), w, np.zeros(P100_RUDY_G * P100_RUDY_G, f), f(1.0), f(1.0), _i32(n)]


def _p100_rudy_ref(box, w, bin_w=1.0, bin_h=1.0):
    """rudy_map's demand map (float64, G x G) and each net's bins."""
    G = P100_RUDY_G
    b = np.asarray(box, np.float32).reshape(-1, 4)
    x0 = (b[:, 0] / np.float32(bin_w)).astype(np.int64)
    y0 = (b[:, 1] / np.float32(bin_h)).astype(np.int64)
    x1 = np.minimum((b[:, 2] / np.float32(bin_w)).astype(np.int64), G - 1)
    y1 = np.minimum((b[:, 3] / np.float32(bin_h)).astype(np.int64), G - 1)
    nb = (x1 - x0 + 1) * (y1 - y0 + 1)
    d = np.asarray(w, np.float64) * ((b[:, 2] - b[:, 0]).astype(np.float64) + (b[:, 3] - b[:, 1])) / nb
    m = np.zeros((G + 1, G + 1))                       # a 2-D difference array
    np.add.at(m, (y0, x0), d)
    np.add.at(m, (y0, x1 + 1), -d)
    np.add.at(m, (y1 + 1, x0), -d)
    np.add.at(m, (y1 + 1, x1 + 1), d)
    return m.cumsum(0).cumsum(1)[:G, :G], nb


def _p100_golden():
    return np.random.default_rng(9898).integers(0, 1 << 32, P100_SIG_WORDS, dtype=np.uint64).astype(np.uint32)


def _p100_sig_syms(n, rng):
    return {"c_golden": _p100_golden()}


def _p100_sig_args(n, rng):
    """n 256-bit signatures (uint32, n x 8): the golden one at rate P100_SIG_SAME, it with
    1-4 random bits flipped at rate P100_SIG_NEAR, else random; dist (uint16) and the
    histogram (uint32, 257 bins) zeroed; n."""
    W = P100_SIG_WORDS
    sig = rng.integers(0, 1 << 32, (n, W), dtype=np.uint64).astype(np.uint32)
    u = rng.random(n)
    same, near = u < P100_SIG_SAME, (u >= P100_SIG_SAME) & (u < P100_SIG_SAME + P100_SIG_NEAR)
    sig[same | near] = _p100_golden()
    for _ in range(4):
        rows = np.flatnonzero(near & (rng.random(n) < 0.75))
        bit = rng.integers(0, 32 * W, len(rows))
        sig[rows, bit // 32] ^= (np.uint32(1) << (bit % 32).astype(np.uint32))
    rows = np.flatnonzero(near & (sig == _p100_golden()).all(axis=1))          # at least one bit off
    sig[rows, 0] ^= np.uint32(1)
    return [sig.ravel(), np.zeros(n, np.uint16), np.zeros(32 * W + 1, np.uint32), _i32(n)]


def _p100_sig_ref(sig):
    """sig_compare's distances and histogram."""
    x = np.asarray(sig, np.uint32).reshape(-1, P100_SIG_WORDS) ^ _p100_golden()
    d = np.unpackbits(x.view(np.uint8), axis=1).sum(axis=1)
    return d, np.bincount(d, minlength=32 * P100_SIG_WORDS + 1)


UNSEEN98 = [
    TimingProbe("probe/logic-sim-level-switch", "probe-unseen98", "logic_sim_level", 1 << 22, 256,
                lambda n: -(-n // 256), _p100_ls_args, source=_P100,
                note="bit-parallel logic simulation of one level of 2^22 gates over 2^22 earlier signals (256 "
                     "patterns = four 64-bit words a signal, 256 MiB), a thread a gate: type byte and two fan-in "
                     "ids coalesced, then 4 trips of two 8-byte gathers (rows 32 B, lanes' rows near each other "
                     "75%, anywhere 25%), a switch over 8 gate types (divergent within a warp) and a store (lanes "
                     "32 B apart); memory-bound gather"),
    TimingProbe("probe/fault-sim-local-array", "probe-unseen98", "fault_sim", 1 << 10, P100_FS_BLOCK,
                lambda n: (-(-n // P100_FS_BLOCK), 2 * P100_FS_G), _p100_fs_args, source=_P100,
                symbols=_p100_fs_syms,
                note="stuck-at fault simulation of a 256-gate circuit (__constant__ type / fan-in arrays, uniform "
                     "index) for 512 faults x 1024 words of 32 patterns (2^19 threads, a block row a fault): "
                     "32 coalesced input loads into a 256-word per-thread array (local memory, 1 KiB a thread), "
                     "224 gates of 2 local loads at uniform indices, a switch and a local store, 16 output XORs "
                     "against the good values; local-memory / compute-bound"),
    TimingProbe("probe/sta-nldm-level", "probe-unseen98", "sta_level", 1 << 22, 256,
                lambda n: -(-n // 256), _p100_sta_args, source=_P100, symbols=_p100_sta_syms,
                note="arrival-time propagation over one level of 2^22 gates (CSR fan-ins 1-4, mean 2.4, gathered "
                     "near the gate 75%), a thread a gate: a data-dependent axis search for the load, then a fan-in "
                     "a trip: arrival and slew gathers, an axis search, two bilinear NLDM lookups in __constant__ "
                     "7x7 tables at lane-dependent (type, i, j) (serialized constant reads), a float division, a "
                     "max with argmax; divergent trip counts, constant-cache and gather-bound"),
    TimingProbe("probe/hpwl-block-reduce", "probe-unseen98", "hpwl_nets", 1 << 22, P100_HPWL_BLOCK,
                lambda n: -(-n // P100_HPWL_BLOCK), _p100_hpwl_args, source=_P100,
                note="weighted half-perimeter wirelength of 2^22 nets (degrees 2-128, mean ~4.6, 55% two-pin) "
                     "over 2^22 placed cells, a thread a net: a loop over its pins (CSR, contiguous pin cell / "
                     "offset loads, cell x, y gathered near the net's id), four fminf / fmaxf, the HPWL stored, "
                     "then a 256-float shared-memory tree reduction (9 barriers) and one float atomicAdd a block "
                     "on one word; divergent pin loops, memory-bound"),
    TimingProbe("probe/rudy-congestion-atomics", "probe-unseen98", "rudy_map", 1 << 21, 256,
                lambda n: -(-n // 256), _p100_rudy_args, source=_P100,
                note="a RUDY congestion map: 2^21 nets' float4 bounding boxes (60% around 12 hot spots) onto "
                     "512 x 512 bins (1 MiB), a thread a net: five float divisions, then a float atomicAdd "
                     "(result unused) on each bin the box touches (~5 a net, lognormal sides up to 32 bins: "
                     "divergent nested loops), hot bins contended; global-atomic-bound"),
    TimingProbe("probe/sig-popc-histogram", "probe-unseen98", "sig_compare", 1 << 23, 256,
                lambda n: -(-n // 256), _p100_sig_args, source=_P100, symbols=_p100_sig_syms,
                note="Hamming distances of 2^23 256-bit MISR signatures to a __constant__ golden one, a thread a "
                     "signature: 8 word loads (lanes 32 B apart), XOR and __popc, a uint16 store, a shared "
                     "atomicAdd into 257 distance bins (15% at 0, the random ones around 128), the block's "
                     "nonzero bins atomicAdded to the global histogram; memory-bound with shared atomics"),
]
PROBES += UNSEEN98


# probe-unseen95 (probes97.cu): a computer-graphics rendering course's kernels (Reinhard
# tone mapping with sRGB gamma, a depth-only triangle rasterizer folding packed depth keys
# by 64-bit atomicMin, bilinear texture sampling with wrap addressing, Forward+ tiled light
# culling in shared memory, a progressive diffuse path tracer with a per-thread xorshift
# RNG and Russian roulette, Moller-Trumbore ray casting of a mesh of two icospheres) as a student
# who knows CUDA basics writes them
_P97 = "probes97.cu"
P97_TM_EXPOSURE, P97_TM_WHITE = 0.8, 4.0           # tonemap: exposure, Reinhard's white point
P97_TM_LOGLUM = (-0.5, 1.2)                        # HDR luminance log-normal (mu, sigma of ln L)
P97_TM_BLACK = 0.01                                # the fraction of pure black pixels
P97_RS_R = 8.0                                     # raster: vertices within +-R pixels of a centre
P97_RS_SNAP = 16                                   # vertices snapped to 1/16 pixel
P97_TX_SIZE = 1024                                 # texture: tw = th (RGBA8, 4 MiB)
P97_TX_SCALE, P97_TX_ANGLE = 1.3, 25.0             # texels a pixel, the mapping's rotation (degrees)
P97_FP_TILE, P97_FP_MAX = 16, 256                  # tiled-light-cull: TILE, MAX_TILE_LIGHTS
P97_FP_DENSITY = 4096 / 2048 ** 2                  # lights a pixel (4096 lights at 2048 x 2048)
P97_FP_RADIUS = (40.0, 160.0)                      # light radii, pixels, uniform
P97_FP_ZSCALE = 300.0                              # pixels a depth unit
P97_PT_SPHERES, P97_PT_MAX_DEPTH = 12, 8           # path-trace: PT_SPHERES, PT_MAX_DEPTH
P97_PT_ROOM = ((-4.0, -0.5, -10.0), (4.0, 4.5, 2.5))   # the room's corners (ROOM_X0 .. ROOM_Z1)
P97_PT_CAM = (0.0, 1.5, 2.0)                       # the camera (0, CAM_Y, CAM_Z)
P97_PT_FRAME, P97_PT_TAN = 7, float(np.tan(np.radians(30.0)))    # the frame (accum holds 7 samples), tan(fov/2)
P97_RC_TAN = float(np.tan(np.radians(25.0)))       # raycast: tan(fov / 2)
P97_RC_LIGHT = (0.4, 0.8, 0.45)                    # the light direction (normalized by the host)
P97_RC_SPHERES = (((-1.1, 0.0, -4.0), 1.0), ((1.3, -0.3, -5.0), 0.7))   # the icospheres' centres and radii
P97_RC_LEVEL, P97_RC_GROUND = 1, -1.0              # their subdivision (80 faces each), the ground quad's y


def _p97_side(n):
    """Square-ish frame sides for a pixel count n: (width, height), width a power of two."""
    w = 1 << max(0, (int(n) - 1).bit_length() + 1) // 2
    return w, -(-int(n) // w)


def _p97_tonemap_args(n, rng):
    """n HDR pixels (float32, interleaved RGB): luminance log-normal (P97_TM_LOGLUM), the
    colour's channels a uniform 0.2 .. 1 tint scaled to that luminance, P97_TM_BLACK of
    them exactly black; the RGBA8 out (zeroed); exposure, white, n."""
    lum = np.exp(rng.normal(*P97_TM_LOGLUM, n))
    tint = rng.uniform(0.2, 1.0, (n, 3))
    tl = tint @ np.array([0.2126, 0.7152, 0.0722])
    rgb = tint * (lum / tl)[:, None]
    rgb[rng.random(n) < P97_TM_BLACK] = 0.0
    return [rgb.astype(np.float32).ravel(), np.zeros(4 * n, np.uint8), np.float32(P97_TM_EXPOSURE),
            np.float32(P97_TM_WHITE), _i32(n)]


def _p97_tonemap_ref(hdr, exposure=P97_TM_EXPOSURE, white=P97_TM_WHITE):
    """tonemap_reinhard in float64: the RGBA8 pixels (n x 4) and the encoded values times
    255 before rounding (n x 3)."""
    rgb = np.asarray(hdr, np.float64).reshape(-1, 3) * float(np.float32(exposure))
    L = rgb @ np.array([0.2126, 0.7152, 0.0722])
    w2 = float(np.float32(white)) ** 2
    with np.errstate(invalid="ignore", divide="ignore"):
        scale = np.where(L > 0, (1 + L / w2) / (1 + L), 0.0)
    c = np.minimum(rgb * scale[:, None], 1.0)
    enc = np.where(c <= 0.0031308, 12.92 * c, 1.055 * np.power(c, 1 / 2.4) - 0.055) * 255
    out = np.full((len(L), 4), 255, np.uint8)
    out[:, :3] = np.floor(enc + 0.5).astype(np.uint8)
    return out, enc


def _p97_raster_side(n):
    """The rasterizer's square screen side for n triangles: 2 sqrt(n)."""
    return 2 * max(1, int(np.sqrt(n)))


def _p97_raster_args(n, rng):
    """n screen-space triangles (float32, 9 a triangle: x, y, z a vertex) on a side x side
    screen (_p97_raster_side): centres uniform over the screen and P97_RS_R beyond, each
    vertex within +-P97_RS_R of it, snapped to 1/P97_RS_SNAP pixel (so edge functions are
    exact), random winding (about half back-facing); depth a triangle's base uniform 0.05
    .. 0.95 plus +-0.02 a vertex; the z-buffer (uint64, cleared to all ones); n, side, side."""
    side = _p97_raster_side(n)
    R = P97_RS_R
    c = rng.uniform(-R, side + R, (n, 1, 2))
    xy = np.round((c + rng.uniform(-R, R, (n, 3, 2))) * P97_RS_SNAP) / P97_RS_SNAP
    z = rng.uniform(0.05, 0.95, (n, 1, 1)) + rng.uniform(-0.02, 0.02, (n, 3, 1))
    v = np.concatenate([xy, z], axis=2).astype(np.float32)
    return [v.ravel(), np.full(side * side, 2 ** 64 - 1, np.uint64), _i32(n), _i32(side), _i32(side)]


def _p97_raster_ref(verts, width, height):
    """raster_depth in numpy (a triangle at a time, depth in float64): the front-most
    triangle of each pixel (-1 none), its depth (inf none), the gap to the second
    nearest depth there (inf for fewer than two), and the pixel tests (bounding-box trips
    of the front-facing triangles) and covered pixels."""
    v = np.asarray(verts, np.float32).reshape(-1, 3, 3).astype(np.float64)
    best = np.full(width * height, np.inf)
    second = np.full(width * height, np.inf)
    tid = np.full(width * height, -1, np.int64)
    tests = covered = 0

    def edge(ax, ay, bx, by, px, py):
        return (bx - ax) * (py - ay) - (by - ay) * (px - ax)
    for t, ((x0, y0, z0), (x1, y1, z1), (x2, y2, z2)) in enumerate(v):
        area = edge(x0, y0, x1, y1, x2, y2)
        if area <= 0:
            continue
        mnx, mxx = max(int(np.floor(min(x0, x1, x2))), 0), min(int(np.ceil(max(x0, x1, x2))), width - 1)
        mny, mxy = max(int(np.floor(min(y0, y1, y2))), 0), min(int(np.ceil(max(y0, y1, y2))), height - 1)
        if mnx > mxx or mny > mxy:
            continue
        py, px = np.mgrid[mny:mxy + 1, mnx:mxx + 1]
        tests += px.size
        sx, sy = px + 0.5, py + 0.5
        w0, w1, w2 = edge(x1, y1, x2, y2, sx, sy), edge(x2, y2, x0, y0, sx, sy), edge(x0, y0, x1, y1, sx, sy)
        ins = (w0 >= 0) & (w1 >= 0) & (w2 >= 0)
        covered += int(ins.sum())
        p = (py * width + px)[ins]
        zz = ((w0 * z0 + w1 * z1 + w2 * z2) / area)[ins]
        nearer = zz < best[p]
        second[p] = np.where(nearer, best[p], np.minimum(second[p], zz))
        tid[p] = np.where(nearer, t, tid[p])
        best[p] = np.where(nearer, zz, best[p])
    with np.errstate(invalid="ignore"):
        gap = second - best
    return tid, best, gap, tests, covered


def _p97_texture(size=P97_TX_SIZE):
    """The size x size RGBA8 texture (uint8, flat): 64-texel bricks with 4-texel mortar
    lines, each brick's colour random, per-texel noise (fixed seed)."""
    r = np.random.default_rng(9795)
    y, x = np.mgrid[0:size, 0:size]
    row = y // 32
    bx = (x + 32 * (row % 2)) // 64
    mortar = ((y % 32) < 4) | (((x + 32 * (row % 2)) % 64) < 4)
    pal = r.integers(90, 230, (64, 64, 3))
    col = pal[row % 64, bx % 64]
    col = np.where(mortar[..., None], 200, col) + r.integers(-20, 21, (size, size, 3))
    out = np.full((size, size, 4), 255, np.uint8)
    out[..., :3] = np.clip(col, 0, 255)
    return out.ravel()


def _p97_tex_args(n, rng):
    """n pixels of a width x height frame (_p97_side) of a textured wall: uv (float32 pairs)
    a rotation by P97_TX_ANGLE and a scale of P97_TX_SCALE texels a pixel of the pixel
    coordinates plus a random offset in -2 .. -1 (at 4096 x 4096 u and v reach -4 .. 5
    repeats: wrap addressing of negative coordinates too),
    the diffuse light 0.15 .. 1 smooth across the frame; the texture (_p97_texture); the
    RGBA8 out (zeroed); tw, th, n."""
    w, _ = _p97_side(n)
    i = np.arange(n)
    x, y = (i % w).astype(np.float64), (i // w).astype(np.float64)
    a = np.radians(P97_TX_ANGLE)
    s = P97_TX_SCALE / P97_TX_SIZE
    off = rng.uniform(-2, -1, 2)
    uv = np.stack([(np.cos(a) * x - np.sin(a) * y) * s + off[0], (np.sin(a) * x + np.cos(a) * y) * s + off[1]], 1)
    light = 0.15 + 0.85 * np.abs(np.sin(x / 700 + 0.3) * np.cos(y / 500 + 0.2))
    return [uv.astype(np.float32).ravel(), light.astype(np.float32), _p97_texture(), np.zeros(4 * n, np.uint8),
            _i32(P97_TX_SIZE), _i32(P97_TX_SIZE), _i32(n)]


def _p97_tex_ref(uv, light, tex, tw=P97_TX_SIZE, th=P97_TX_SIZE):
    """texture_bilinear in float64: the RGBA8 pixels (n x 4) and the lit values before
    rounding (n x 3)."""
    uv = np.asarray(uv, np.float32).reshape(-1, 2)
    x = uv[:, 0].astype(np.float64) * tw - 0.5
    y = uv[:, 1].astype(np.float64) * th - 0.5
    x0, y0 = np.floor(x), np.floor(y)
    ax, ay = (x - x0)[:, None], (y - y0)[:, None]
    t = np.asarray(tex).reshape(th, tw, 4)[..., :3].astype(np.float64)
    ix, iy = x0.astype(np.int64), y0.astype(np.int64)

    def f(dx, dy):
        return t[(iy + dy) % th, (ix + dx) % tw]
    c = (1 - ax) * (1 - ay) * f(0, 0) + ax * (1 - ay) * f(1, 0) + (1 - ax) * ay * f(0, 1) + ax * ay * f(1, 1)
    lit = np.minimum(c * np.asarray(light, np.float64)[:, None], 255.0)
    out = np.full((len(x), 4), 255, np.uint8)
    out[:, :3] = np.floor(lit + 0.5).astype(np.uint8)
    return out, lit


def _p97_fp_depth(w, h):
    """A w x h depth buffer (float32): a floor receding from 0.9 at the bottom to 0.6 at
    the top, a back wall at 0.6 above the middle, and ten spheres (depth 0.2 .. 0.55 at
    their centres, bulging towards the camera) of radius h / 16 .. h / 5 (fixed seed)."""
    r = np.random.default_rng(9596)
    y, x = np.mgrid[0:h, 0:w].astype(np.float64) + 0.5
    d = np.where(y > h / 2, 0.6 + 0.3 * (y - h / 2) / (h / 2), 0.6)
    for _ in range(10):
        cx, cy = r.uniform(0, w), r.uniform(0, h)
        rad = r.uniform(h / 16, h / 5)
        cz = r.uniform(0.2, 0.55)
        q = ((x - cx) ** 2 + (y - cy) ** 2) / rad ** 2
        zs = cz - 0.1 * np.sqrt(np.clip(1 - q, 0, 1))
        d = np.where((q < 1) & (zs < d), zs, d)
    return d.astype(np.float32)


def _p97_fp_args(n, rng, num_lights=None):
    """An n x n frame's depth (_p97_fp_depth, flat) and num_lights lights (default
    P97_FP_DENSITY a pixel): x, y uniform over the frame, depth 0.1 .. 0.95, radius
    P97_FP_RADIUS (float4), colours 0.2 .. 1 a channel (w 0); out (float4, zeroed), the
    tiles' counts (int32, zeroed); num_lights, zscale, n, n."""
    nl = int(num_lights or max(1, round(P97_FP_DENSITY * n * n)))
    lights = np.stack([rng.uniform(0, n, nl), rng.uniform(0, n, nl), rng.uniform(0.1, 0.95, nl),
                       rng.uniform(*P97_FP_RADIUS, nl)], 1).astype(np.float32)
    col = np.zeros((nl, 4), np.float32)
    col[:, :3] = rng.uniform(0.2, 1.0, (nl, 3))
    tiles = (n // P97_FP_TILE) ** 2
    return [_p97_fp_depth(n, n).ravel(), lights.ravel(), col.ravel(), np.zeros(4 * n * n, np.float32),
            np.zeros(tiles, np.int32), _i32(nl), np.float32(P97_FP_ZSCALE), _i32(n), _i32(n)]


def _p97_fp_ref(depth, lights, lcolor, n, zscale=P97_FP_ZSCALE):
    """tiled_light_cull in float64, every light against every pixel (the culling is
    conservative): the rgb sums (n^2 x 3), each tile's culled count (row-major tiles) and
    the culling test's smallest |d^2 - r^2| over tiles and lights."""
    T = P97_FP_TILE
    z = np.asarray(depth, np.float64).reshape(n, n)
    L = np.asarray(lights, np.float32).reshape(-1, 4).astype(np.float64)
    C = np.asarray(lcolor, np.float32).reshape(-1, 4)[:, :3].astype(np.float64)
    y, x = np.mgrid[0:n, 0:n] + 0.5
    rgb = np.zeros((n, n, 3))
    for (lx, ly, lz, lr), c in zip(L, C):
        d2 = (x - lx) ** 2 + (y - ly) ** 2 + ((z - lz) * zscale) ** 2
        a = np.where(d2 < lr * lr, (1 - d2 / (lr * lr)) ** 2, 0.0)
        rgb += a[..., None] * c
    zt = z.reshape(n // T, T, n // T, T)
    zmin, zmax = zt.min(axis=(1, 3)).ravel(), zt.max(axis=(1, 3)).ravel()
    ty, tx = np.divmod(np.arange((n // T) ** 2), n // T)
    bx0, by0 = (tx * T)[:, None], (ty * T)[:, None]
    dx = np.maximum(np.maximum(bx0 - L[:, 0], L[:, 0] - (bx0 + T)), 0)
    dy = np.maximum(np.maximum(by0 - L[:, 1], L[:, 1] - (by0 + T)), 0)
    dz = np.maximum(np.maximum(zmin[:, None] - L[:, 2], L[:, 2] - zmax[:, None]), 0) * zscale
    m = dx * dx + dy * dy + dz * dz - L[:, 3] ** 2
    return rgb.reshape(-1, 3), (m < 0).sum(axis=1), np.abs(m).min()


def _p97_pt_scene():
    """path_trace's spheres (P97_PT_SPHERES, float32 structs): sphere 0 the emitter (radius
    1.2 at (0, 5.2, -5), its cap 0.5 below the ceiling, radiance (8, 8, 7)), the others
    resting on the floor, radius 0.25 .. 0.7, x in +-3, z in -8 .. -2.5, albedo 0.25 .. 0.9
    a channel (fixed seed)."""
    r = np.random.default_rng(9597)
    t = np.zeros(P97_PT_SPHERES, [(k, "<f4") for k in ("cx", "cy", "cz", "rad", "ar", "ag", "ab", "er", "eg", "eb")])
    t[0] = (0.0, P97_PT_ROOM[1][1] + 0.7, -5.0, 1.2, 0, 0, 0, 8.0, 8.0, 7.0)
    k = P97_PT_SPHERES - 1
    rad = r.uniform(0.25, 0.7, k)
    t["cx"][1:], t["cz"][1:], t["rad"][1:] = r.uniform(-3, 3, k), r.uniform(-8, -2.5, k), rad
    t["cy"][1:] = P97_PT_ROOM[0][1] + rad
    for c in ("ar", "ag", "ab"):
        t[c][1:] = r.uniform(0.25, 0.9, k)
    return t


def _p97_pt_args(n, rng):
    """An n x n image's accumulation buffer (float32, interleaved RGB) holding P97_PT_FRAME
    earlier samples' sums (uniform 0 .. 0.5 a sample); frame, tan(fov / 2), n, n."""
    return [rng.uniform(0, 0.5 * P97_PT_FRAME, 3 * n * n).astype(np.float32), np.uint32(P97_PT_FRAME),
            np.float32(P97_PT_TAN), _i32(n), _i32(n)]


def _p97_wang(s):
    s = np.asarray(s, np.uint32)
    s = (s ^ np.uint32(61)) ^ (s >> np.uint32(16))
    s = s * np.uint32(9)
    s = s ^ (s >> np.uint32(4))
    s = s * np.uint32(0x27d4eb2d)
    return s ^ (s >> np.uint32(15))


def _p97_pt_ref(width, height, frame=P97_PT_FRAME, tan_half=P97_PT_TAN, scene=None):
    """path_trace's samples in float64 (the same xorshift draws): the radiance (w h x 3),
    each path's bounces (the diffuse hits it went on from) and how it ended (0 the emitter,
    1 Russian roulette, 2 PT_MAX_DEPTH)."""
    sc = _p97_pt_scene() if scene is None else scene
    S = {k: sc[k].astype(np.float64) for k in sc.dtype.names}
    npx = width * height
    p = np.arange(npx, dtype=np.uint32)
    st = _p97_wang(p * np.uint32(1973) + np.uint32(frame) * np.uint32(9277) + np.uint32(26699))

    def draw(mask):
        nonlocal st
        x = st.copy()
        x ^= x << np.uint32(13)
        x ^= x >> np.uint32(17)
        x ^= x << np.uint32(5)
        st = np.where(mask, x, st)
        return (x >> np.uint32(8)).astype(np.float64) / 16777216.0
    on = np.ones(npx, bool)
    px, py = (p % width).astype(np.float64), (p // width).astype(np.float64)
    th = float(np.float32(tan_half))
    u = ((px + draw(on)) / width * 2 - 1) * (width / height) * th
    v = (1 - (py + draw(on)) / height * 2) * th
    d = np.stack([u, v, -np.ones(npx)], 1)
    d /= np.linalg.norm(d, axis=1, keepdims=True)
    o = np.tile(np.array(P97_PT_CAM, np.float64), (npx, 1))
    thr, L = np.ones((npx, 3)), np.zeros((npx, 3))
    bounces, end = np.zeros(npx, np.int64), np.full(npx, 2)
    alb = np.stack([S["ar"], S["ag"], S["ab"]], 1)
    emi = np.stack([S["er"], S["eg"], S["eb"]], 1)
    cen = np.stack([S["cx"], S["cy"], S["cz"]], 1)
    lo, hi = np.array(P97_PT_ROOM[0]), np.array(P97_PT_ROOM[1])
    walb = np.array([[0.7, 0.2, 0.2], [0.2, 0.3, 0.7]] + [[0.7, 0.7, 0.7]] * 4)
    for depth in range(P97_PT_MAX_DEPTH):
        with np.errstate(divide="ignore", invalid="ignore"):
            tw = np.where(d > 0, (hi - o) / d, np.where(d < 0, (lo - o) / d, 1e30))
        ax = np.argmin(tw, axis=1)                      # ties to the lower axis, as the kernel
        rows = np.arange(npx)
        tb = tw[rows, ax]
        wall = 2 * ax + (d[rows, ax] > 0)
        hit = np.full(npx, -1)
        for s in range(P97_PT_SPHERES):
            oc = o - cen[s]
            b = (oc * d).sum(1)
            c = (oc * oc).sum(1) - S["rad"][s] ** 2
            disc = b * b - c
            sq = np.sqrt(np.maximum(disc, 0))
            t = np.where(-b - sq < 1e-4, -b + sq, -b - sq)
            ok = (disc > 0) & (t > 1e-4) & (t < tb)
            tb[ok], hit[ok] = t[ok], s
        hp = o + tb[:, None] * d
        hs = np.maximum(hit, 0)
        wn = np.zeros((npx, 3))
        wn[rows, ax] = np.where(d[rows, ax] > 0, -1.0, 1.0)
        sph = (hit >= 0)[:, None]
        nrm = np.where(sph, (hp - cen[hs]) / S["rad"][hs][:, None], wn)
        em = on & (hit >= 0) & (emi[hs, 0] > 0)
        L[em] += thr[em] * emi[hs][em]
        end[em] = 0
        on &= ~em
        bounces[on] += 1
        thr = np.where(on[:, None], thr * np.where(sph, alb[hs], walb[wall]), thr)
        if depth >= 2:
            q = thr.max(axis=1)
            rr = on & (draw(on) >= q)
            end[rr] = 1
            on &= ~rr
            thr = np.where(on[:, None], thr / q[:, None], thr)
        r1 = 6.2831853 * draw(on)
        r2 = draw(on)
        a = np.where((np.abs(nrm[:, 0]) > 0.1)[:, None], [0.0, 1.0, 0.0], [1.0, 0.0, 0.0])
        tu = np.cross(a, nrm)
        tu /= np.linalg.norm(tu, axis=1, keepdims=True)
        tv = np.cross(nrm, tu)
        nd = (tu * (np.cos(r1) * np.sqrt(r2))[:, None] + tv * (np.sin(r1) * np.sqrt(r2))[:, None]
              + nrm * np.sqrt(1 - r2)[:, None])
        d = np.where(on[:, None], nd, d)
        o = np.where(on[:, None], hp + 1e-3 * nrm, o)
        if not on.any():
            break
    return L, bounces, end


def _p97_icosphere(level=2):
    """A unit icosphere: (vertices, faces) after `level` 4-way subdivisions (20 4^level
    faces, counter-clockwise seen from outside)."""
    g = (1 + 5 ** 0.5) / 2
    vs = [(-1, g, 0), (1, g, 0), (-1, -g, 0), (1, -g, 0), (0, -1, g), (0, 1, g), (0, -1, -g), (0, 1, -g),
          (g, 0, -1), (g, 0, 1), (-g, 0, -1), (-g, 0, 1)]
    vs = [np.array(v, np.float64) / np.linalg.norm(v) for v in vs]
    fs = [(0, 11, 5), (0, 5, 1), (0, 1, 7), (0, 7, 10), (0, 10, 11), (1, 5, 9), (5, 11, 4), (11, 10, 2), (10, 7, 6),
          (7, 1, 8), (3, 9, 4), (3, 4, 2), (3, 2, 6), (3, 6, 8), (3, 8, 9), (4, 9, 5), (2, 4, 11), (6, 2, 10),
          (8, 6, 7), (9, 8, 1)]
    for _ in range(level):
        mid, nf = {}, []

        def m(a, b):
            k = (min(a, b), max(a, b))
            if k not in mid:
                c = vs[a] + vs[b]
                vs.append(c / np.linalg.norm(c))
                mid[k] = len(vs) - 1
            return mid[k]
        for a, b, c in fs:
            ab, bc, ca = m(a, b), m(b, c), m(c, a)
            nf += [(a, ab, ca), (b, bc, ab), (c, ca, bc), (ab, bc, ca)]
        fs = nf
    return np.array(vs), np.array(fs)


def _p97_mesh():
    """raycast_mesh's triangles (float32, 9 a triangle): an icosphere of P97_RC_LEVEL (80
    faces) for each of P97_RC_SPHERES (both resting on the ground), then a ground quad at
    y = P97_RC_GROUND (x +-6, z -12 .. 0) as two triangles: 162."""
    v, f = _p97_icosphere(P97_RC_LEVEL)
    tri = np.concatenate([v[f] * r + np.array(c) for c, r in P97_RC_SPHERES])
    g = P97_RC_GROUND
    quad = np.array([[[-6, g, 0], [6, g, 0], [6, g, -12]], [[-6, g, 0], [6, g, -12], [-6, g, -12]]], np.float64)
    return np.concatenate([tri, quad]).astype(np.float32).ravel()


def _p97_rc_args(n, rng):
    """The mesh (_p97_mesh), its triangle count; an n x n image's depths (float32), ids
    (int32) and RGBA8 pixels (zeroed); the unit light direction, tan(fov / 2), n, n."""
    m = _p97_mesh()
    ld = np.array(P97_RC_LIGHT) / np.linalg.norm(P97_RC_LIGHT)
    return [m, _i32(len(m) // 9), np.zeros(n * n, np.float32), np.zeros(n * n, np.int32), np.zeros(4 * n * n, np.uint8),
            *[np.float32(c) for c in ld], np.float32(P97_RC_TAN), _i32(n), _i32(n)]


def _p97_rc_ref(tris, width, height, tan_half=P97_RC_TAN):
    """raycast_mesh in float64: each pixel's nearest t (0 none), triangle (-1 none) and the
    gap between its two nearest hits' t (inf for fewer than two)."""
    T = np.asarray(tris, np.float32).reshape(-1, 3, 3).astype(np.float64)
    y, x = np.divmod(np.arange(width * height), width)
    th = float(np.float32(tan_half))
    d = np.stack([((x + 0.5) / width * 2 - 1) * (width / height) * th, (1 - (y + 0.5) / height * 2) * th,
                  -np.ones(len(x))], 1)
    best, second = np.full(len(x), np.inf), np.full(len(x), np.inf)
    hit = np.full(len(x), -1)
    for k, (a, b, c) in enumerate(T):
        e1, e2 = b - a, c - a
        p = np.cross(d, e2)
        det = p @ e1
        with np.errstate(divide="ignore", invalid="ignore"):
            inv = 1 / det
            s = -a
            u = (p @ s) * inv
            q = np.cross(s, e1)
            v = (d @ q) * inv
            t = (q @ e2) * inv
        ok = (np.abs(det) >= 1e-8) & (u >= 0) & (u <= 1) & (v >= 0) & (u + v <= 1) & (t > 1e-4)
        nearer = ok & (t < best)
        second = np.where(nearer, best, np.where(ok, np.minimum(second, t), second))
        hit = np.where(nearer, k, hit)
        best = np.where(nearer, t, best)
    with np.errstate(invalid="ignore"):
        gap = second - best
    return np.where(hit >= 0, best, 0.0), hit, gap


def _p97_grid16(n):
    return (-(-n // 16), -(-n // 16))


UNSEEN95 = [
    TimingProbe("probe/reinhard-srgb-tonemap", "probe-unseen95", "tonemap_reinhard", 1 << 24, 256,
                lambda n: -(-n // 256), _p97_tonemap_args, source=_P97,
                note="HDR tone mapping of 2^24 pixels, a thread a pixel: interleaved RGB floats (three 4-byte "
                     "loads 12 bytes apart a lane), a luminance, Reinhard's extended operator (2 divisions), three "
                     "sRGB encodes (powf above the linear toe; ~1% black pixels skip the operator's branch) and "
                     "one uchar4 store; 16 bytes a pixel streamed, memory-bound"),
    TimingProbe("probe/raster-zbuffer-atomicmin64", "probe-unseen95", "raster_depth", 1 << 20, 256,
                lambda n: -(-n // 256), _p97_raster_args, source=_P97,
                note="depth-only rasterization of 2^20 small screen-space triangles (vertices within +-8 px of a "
                     "centre) into a 2048x2048 64-bit z-buffer, a thread a triangle: 9 float loads 36 B apart, "
                     "half of them back-facing and leaving at once, the rest looping over their clamped bounding "
                     "box (~93 pixel tests of 3 edge functions; trip counts differ lane to lane) with a 64-bit "
                     "atomicMin of (depth bits << 32 | index) on each covered pixel (~19 a triangle, scattered, "
                     "depth complexity ~2.3)"),
    TimingProbe("probe/texture-bilinear-wrap", "probe-unseen95", "texture_bilinear", 1 << 24, 256,
                lambda n: -(-n // 256), _p97_tex_args, source=_P97,
                note="bilinear texturing of 2^24 pixels (a 4096-wide frame of a rotated, 1.3x-minified brick "
                     "wall), a thread a pixel: a float2 uv and a float light load, 4 uchar4 texel gathers from a "
                     "1024x1024 RGBA8 texture (4 MiB, L2-resident; a warp's 32 pixels span ~37 texels across and "
                     "~17 rows) with wrap addressing by two signed % a coordinate, ~30 FMAs, one uchar4 store"),
    TimingProbe("probe/forward-plus-tile-cull", "probe-unseen95", "tiled_light_cull", 2048, (16, 16), _p97_grid16,
                _p97_fp_args, source=_P97,
                note="Forward+ shading of a 2048x2048 frame with 4096 point lights (radius 40-160 px), a 16x16 "
                     "block a tile: the tile's depth range by shared atomicMin/atomicMax (all 256 threads on 2 "
                     "words), each thread culling 16 lights (float4 loads, the same for every block) against the "
                     "tile's box, survivors appended by a shared atomicAdd, then every pixel looping over the "
                     "tile's lights (2-54, mean ~21; block-uniform trip count, broadcast float4 loads), a float4 "
                     "store"),
    TimingProbe("probe/path-trace-rr-bounce", "probe-unseen95", "path_trace", 1024, (16, 16), _p97_grid16,
                _p97_pt_args, source=_P97, symbols=lambda n, rng: {"c_spheres": _p97_pt_scene()},
                note="one progressive sample a pixel of a 1024x1024 diffuse path tracer in a closed Cornell-box "
                     "room, a thread a path: 6 walls and 12 spheres from __constant__ structs a bounce (uniform "
                     "index in the hit loop, a divergent one for the hit's material), xorshift32 draws, "
                     "rsqrtf/sqrtf/sinf/cosf a bounce; paths end on the emitter or by Russian roulette after "
                     "0 .. 8 bounces (mean ~3.6, a warp's longest lane ~7.6), the float RGB accumulation read and "
                     "written"),
    TimingProbe("probe/raycast-icosphere-mt", "probe-unseen95", "raycast_mesh", 1024, (16, 16), _p97_grid16,
                _p97_rc_args, source=_P97,
                note="primary rays of a 1024x1024 image against a 162-triangle mesh (two 80-face icospheres on "
                     "a ground quad) read straight from global memory (9 warp-uniform float loads a triangle, L1 "
                     "hits), a thread a pixel: Moller-Trumbore with a division and early continues a triangle "
                     "(~40 FP ops), the nearest hit's t, index and a flat-shaded uchar4 stored (~40% of pixels "
                     "miss); compute-bound"),
]
PROBES += UNSEEN95


# probe-unseen100 (probes102.cu): a computational plasma physics course's particle-in-cell
# kernels (2-D CIC charge deposition by atomicAdd, field gather and Boris push of a
# magnetized 2D3V plasma, test particles in a magnetic mirror leaving through the loss
# cone, a shared-memory-tiled Jacobi sweep of Poisson's equation in double, the scatter
# pass of a particle sort by cell with an atomic fill counter, a two-stream run's vx
# distribution and kinetic energy) as a student who knows CUDA basics writes them,
# predicted before their first GPU run
_P102 = "probes102.cu"
P102_DEP_NG = 512                          # deposit-rho: the periodic grid's side (cells; the box [0, 1)^2)
P102_DEP_K, P102_DEP_AMP = 4, 0.2          # particles displaced by amp sin(2 pi k u) / (2 pi k) along x and y
P102_PUSH_NG = 512                         # boris-push: the grid's side
P102_PUSH_B = (0.2, 0.0, 1.0)              # the uniform magnetic field (bx, by, bz)
P102_PUSH_QM, P102_PUSH_DT = -1.0, 0.1     # charge/mass (electrons) and the time step
P102_PUSH_VTH = 0.01                       # thermal speed an axis (v dt ~ half a cell)
P102_PUSH_E = 0.05                         # E's amplitude (a smooth mode plus 10% noise)
P102_MIR_BLOCK = 128                       # mirror-trace: threads a block
P102_MIR_STEPS, P102_MIR_DT = 600, 0.05    # Boris steps at most, of dt (~125 a gyration at b0)
P102_MIR_B0, P102_MIR_L2 = 1.0, 128.0      # b0 and L^2 (B = b0 (1 + z^2 / L^2) on the axis)
P102_MIR_ZMAX = 16.0                       # the mirrors (mirror ratio 1 + zmax^2 / L^2 = 3)
P102_MIR_R0, P102_MIR_Z0 = 2.0, 8.0        # starts: x, y uniform in +-r0, z uniform in +-z0; speed 1, isotropic
P102_JAC_T = 16                            # poisson-jacobi: JT (blocks JT x JT)
P102_SORT_NG = 256                         # sort-scatter: cells a side
P102_SORT_MOVE = 0.2                       # the thermal move since the last sort, in cells (a normal's sd)
P102_DG_BLOCK, P102_DG_PER = 256, 16       # vdist-diag: threads a block, particles a thread (the grid's size)
P102_DG_BINS, P102_DG_VMIN = 128, -0.4     # DG_BINS bins from vmin
P102_DG_V0, P102_DG_VTH = 0.2, 0.02        # the beams' drift (+-v0) and thermal speed (all axes)


def _p102_unit(a):
    """a mod 1 as float32, strictly below 1 (a float64 just under 1 rounds to 1.0f)."""
    u = (np.asarray(a, np.float64) % 1.0).astype(np.float32)
    u[u >= 1] = 0
    return u


def _p102_cic(x, y, ng):
    """The CIC stencil of positions x, y in [0, 1) on an ng x ng periodic grid: the 4 node
    indices (row-major) and their weights, float64."""
    gx = np.asarray(x, np.float64) * ng
    gy = np.asarray(y, np.float64) * ng
    i, j = gx.astype(np.int64), gy.astype(np.int64)
    fx, fy = gx - i, gy - j
    ip, jp = (i + 1) % ng, (j + 1) % ng
    idx = [j * ng + i, j * ng + ip, jp * ng + i, jp * ng + ip]
    w = [(1 - fx) * (1 - fy), fx * (1 - fy), (1 - fx) * fy, fx * fy]
    return idx, w


# ---- deposit-rho-cic ----

def _p102_dep_args(n, rng):
    """n particles in random order, x and y uniform in [0, 1) displaced by a k = 4 density
    mode (float32); rho (ng^2 float32, zeroed); qw = -ng^2 / n (mean density -1), 1 / dx,
    1 / dy, nx, ny, n."""
    ng = P102_DEP_NG
    k = 2 * np.pi * P102_DEP_K
    u, v = rng.random(n), rng.random(n)
    x = _p102_unit(u + P102_DEP_AMP * np.sin(k * u) / k)
    y = _p102_unit(v + P102_DEP_AMP * np.sin(k * v) / k)
    return [x, y, np.zeros(ng * ng, np.float32), np.float32(-ng * ng / n), np.float32(ng), np.float32(ng),
            _i32(ng), _i32(ng), _i32(n)]


def _p102_dep_ref(x, y, qw):
    """deposit_rho_cic's rho in float64."""
    ng = P102_DEP_NG
    idx, w = _p102_cic(x, y, ng)
    rho = np.zeros(ng * ng)
    for a, b in zip(idx, w):
        np.add.at(rho, a, float(qw) * b)
    return rho


# ---- boris-push-2d3v ----

def _p102_push_field(ng, rng):
    """Ex, Ey on the ng x ng grid (float32): a smooth (1, 2) mode of amplitude P102_PUSH_E
    plus 10% noise."""
    c = np.arange(ng) / ng
    X, Y = np.meshgrid(c, c)                  # X[j, i] = i / ng
    ex = P102_PUSH_E * np.sin(2 * np.pi * X) * np.cos(4 * np.pi * Y)
    ey = -P102_PUSH_E * np.cos(2 * np.pi * X) * np.sin(4 * np.pi * Y)
    ex = ex + 0.1 * P102_PUSH_E * rng.standard_normal((ng, ng))
    ey = ey + 0.1 * P102_PUSH_E * rng.standard_normal((ng, ng))
    return ex.astype(np.float32).ravel(), ey.astype(np.float32).ravel()


def _p102_push_args(n, rng):
    """n particles in random order: x, y uniform in [0, 1), vx, vy, vz N(0, vth^2)
    (float32); Ex, Ey (_p102_push_field); bx, by, bz, qm, dt, 1 / dx, 1 / dy, lx = ly = 1,
    nx, ny, n."""
    f, ng = np.float32, P102_PUSH_NG
    x, y = _p102_unit(rng.random(n)), _p102_unit(rng.random(n))
    v = (P102_PUSH_VTH * rng.standard_normal((3, n))).astype(f)
    ex, ey = _p102_push_field(ng, rng)
    return [x, y, v[0].copy(), v[1].copy(), v[2].copy(), ex, ey, *map(f, P102_PUSH_B), f(P102_PUSH_QM),
            f(P102_PUSH_DT), f(ng), f(ng), f(1), f(1), _i32(ng), _i32(ng), _i32(n)]


def _p102_push_ref(x, y, vx, vy, vz, ex_grid, ey_grid, b=P102_PUSH_B, qm=P102_PUSH_QM, dt=P102_PUSH_DT):
    """boris_push_2d3v's step in float64: x, y (wrapped into [0, 1)), vx, vy, vz."""
    idx, w = _p102_cic(x, y, P102_PUSH_NG)
    eg = [np.asarray(g, np.float64) for g in (ex_grid, ey_grid)]
    ex = sum(wk * eg[0][ik] for ik, wk in zip(idx, w))
    ey = sum(wk * eg[1][ik] for ik, wk in zip(idx, w))
    h = 0.5 * qm * dt
    u = np.stack([np.asarray(a, np.float64) for a in (vx, vy, vz)], axis=1)
    u[:, 0] += h * ex
    u[:, 1] += h * ey
    t = h * np.array(b, np.float64)
    s = 2 * t / (1 + t @ t)
    wv = u + np.cross(u, t)
    u = u + np.cross(wv, s)
    u[:, 0] += h * ex
    u[:, 1] += h * ey
    return (np.asarray(x, np.float64) + u[:, 0] * dt) % 1.0, (np.asarray(y, np.float64) + u[:, 1] * dt) % 1.0, \
        u[:, 0], u[:, 1], u[:, 2]


# ---- mirror-trace-losscone ----

def _p102_mir_args(n, rng):
    """n test particles (float32): x, y uniform in +-r0, z uniform in +-z0, speed 1 in an
    isotropic direction; steps (int32) and the lost count (one int32) zeroed; b0, 1 / L^2,
    zmax, qm = 1, dt, nsteps, n."""
    f = np.float32
    pos = rng.uniform(-1, 1, (3, n)) * np.array([[P102_MIR_R0], [P102_MIR_R0], [P102_MIR_Z0]])
    mu = rng.uniform(-1, 1, n)                 # cos of the pitch angle
    ph = rng.uniform(0, 2 * np.pi, n)
    st = np.sqrt(1 - mu * mu)
    vel = np.stack([st * np.cos(ph), st * np.sin(ph), mu])
    a = [r.astype(f) for r in (*pos, *vel)]
    return [*a, np.zeros(n, np.int32), np.zeros(1, np.int32), f(P102_MIR_B0), f(1 / P102_MIR_L2),
            f(P102_MIR_ZMAX), f(1), f(P102_MIR_DT), _i32(P102_MIR_STEPS), _i32(n)]


def _p102_mir_ref(x, y, z, vx, vy, vz, nsteps=P102_MIR_STEPS, dt=P102_MIR_DT):
    """mirror_trace in float64: the state (6 arrays), the steps survived, the lost mask and
    the smallest | |z| - zmax | any live particle came to after a step."""
    r = np.stack([np.asarray(a, np.float64) for a in (x, y, z)], axis=1)
    u = np.stack([np.asarray(a, np.float64) for a in (vx, vy, vz)], axis=1)
    k = len(r)
    done = np.full(k, nsteps, np.int64)
    lost = np.zeros(k, bool)
    gap = np.inf
    h = 0.5 * dt
    b0, il2, zmax = P102_MIR_B0, 1 / P102_MIR_L2, P102_MIR_ZMAX
    for s in range(nsteps):
        on = np.flatnonzero(~lost)
        if len(on) == 0:
            break
        p, v = r[on], u[on]
        b = np.stack([-b0 * p[:, 0] * p[:, 2] * il2, -b0 * p[:, 1] * p[:, 2] * il2,
                      b0 * (1 + p[:, 2] ** 2 * il2)], axis=1)
        t = h * b
        f = 2 / (1 + (t * t).sum(axis=1))
        wv = v + np.cross(v, t)
        v = v + f[:, None] * np.cross(wv, t)
        p = p + v * dt
        r[on], u[on] = p, v
        gap = min(gap, np.abs(np.abs(p[:, 2]) - zmax).min())
        out = np.abs(p[:, 2]) > zmax
        lost[on[out]] = True
        done[on[out]] = s + 1
    return (*r.T, *u.T, done, lost, gap)


# ---- poisson-jacobi-smem ----

def _p102_jac_side(n):
    return int(np.sqrt(n) + 0.5)


def _p102_jac_grid(n):
    s = -(-_p102_jac_side(n) // P102_JAC_T)
    return (s, s)


def _p102_jac_args(n, rng):
    """A grounded side x side grid (side = sqrt(n); float64, row-major): phi mid-iteration
    (a smooth guess sin(pi x) sin(pi y) / 4 plus 1e-3 noise, 0 on the walls), rho (6
    Gaussian blobs of charge +-[50, 200], width a tenth of the box, plus N(0, 1) particle
    noise); phi_new and the blocks' residuals zeroed; h2 = h^2 (eps0 = 1, h = 1 / (side -
    1)), nx, ny."""
    s = _p102_jac_side(n)
    c = np.linspace(0, 1, s)
    X, Y = np.meshgrid(c, c)
    phi = 0.25 * np.sin(np.pi * X) * np.sin(np.pi * Y) + 1e-3 * rng.standard_normal((s, s))
    phi[0, :] = phi[-1, :] = phi[:, 0] = phi[:, -1] = 0
    rho = rng.standard_normal((s, s))
    for _ in range(6):
        cx, cy = rng.uniform(0.2, 0.8, 2)
        q = rng.choice([-1, 1]) * rng.uniform(50, 200)
        rho += q * np.exp(-((X - cx) ** 2 + (Y - cy) ** 2) / (2 * 0.1 ** 2))
    gx, gy = _p102_jac_grid(n)
    return [phi.ravel(), np.zeros(s * s), rho.ravel(), np.zeros(gx * gy), np.float64(1 / (s - 1) ** 2), _i32(s),
            _i32(s)]


def _p102_jac_ref(phi, rho, h2, side):
    """poisson_jacobi's sweep in numpy: phi_new and the blocks' max |change| (row-major by
    block)."""
    p = np.asarray(phi, np.float64).reshape(side, side)
    r = np.asarray(rho, np.float64).reshape(side, side)
    new = p.copy()
    new[1:-1, 1:-1] = 0.25 * (p[1:-1, :-2] + p[1:-1, 2:] + p[:-2, 1:-1] + p[2:, 1:-1] + h2 * r[1:-1, 1:-1])
    d = np.abs(new - p)
    T = P102_JAC_T
    g = -(-side // T)
    dp = np.zeros((g * T, g * T))
    dp[:side, :side] = d
    return new.ravel(), dp.reshape(g, T, g, T).max(axis=(1, 3)).ravel()


# ---- sort-scatter-cells ----

def _p102_sort_cells(x, y, ng=P102_SORT_NG):
    x, y = np.asarray(x, np.float32), np.asarray(y, np.float32)
    return (y * np.float32(ng)).astype(np.int64) * ng + (x * np.float32(ng)).astype(np.int64)


def _p102_sort_args(n, rng, ng=P102_SORT_NG):
    """n particles sorted by cell at the last sort (x, y uniform in [0, 1) then ordered by
    cell), moved since by v dt with v N(0, vth^2) and vth dt P102_SORT_MOVE of a cell,
    wrapped (float32; vx, vy, vz the v, vz too); cell_start (the exclusive scan of the new
    cells' counts) and cell_fill (zeroed), int32 ng^2; the sorted copies and ids (zeroed);
    1 / dx, 1 / dy, nx, n. ng cells a side (the probe's P102_SORT_NG)."""
    f = np.float32
    x0, y0 = _p102_unit(rng.random(n)), _p102_unit(rng.random(n))
    order = np.argsort(_p102_sort_cells(x0, y0, ng), kind="stable")
    x0, y0 = x0[order], y0[order]
    v = rng.standard_normal((3, n)) * (P102_SORT_MOVE / ng)          # dt = 1: a move of v
    x, y = _p102_unit(x0 + v[0]), _p102_unit(y0 + v[1])
    counts = np.bincount(_p102_sort_cells(x, y, ng), minlength=ng * ng)
    start = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int32)
    vf = v.astype(f)
    return [x, y, vf[0].copy(), vf[1].copy(), vf[2].copy(), start, np.zeros(ng * ng, np.int32),
            *[np.zeros(n, f) for _ in range(5)], np.zeros(n, np.int32), f(ng), f(ng), _i32(ng), _i32(n)]


# ---- vdist-energy-diag ----

def _p102_dg_grid(n):
    return -(-n // (P102_DG_BLOCK * P102_DG_PER))


def _p102_dg_args(n, rng):
    """A two-stream plasma's n velocities (float32): vx +-v0 (half each, random order) plus
    N(0, vth^2), vy, vz N(0, vth^2); the histogram (uint32 DG_BINS) and the energy (one
    float64) zeroed; vmin, 1 / dv (DG_BINS bins over [vmin, -vmin)), m / 2 = 0.5, n."""
    f = np.float32
    beam = np.where(rng.random(n) < 0.5, -P102_DG_V0, P102_DG_V0)
    v = P102_DG_VTH * rng.standard_normal((3, n))
    v[0] += beam
    v = v.astype(f)
    return [v[0].copy(), v[1].copy(), v[2].copy(), np.zeros(P102_DG_BINS, np.uint32), np.zeros(1, np.float64),
            f(P102_DG_VMIN), f(P102_DG_BINS / (-2 * P102_DG_VMIN)), f(0.5), _i32(n)]


def _p102_dg_ref(vx, vy, vz, vmin=P102_DG_VMIN, inv_dv=P102_DG_BINS / (-2 * P102_DG_VMIN)):
    """vdist_diag in numpy: the histogram (the bins as float32 computes them) and the
    kinetic energy in float64."""
    vx = np.asarray(vx, np.float32)
    b = np.floor((vx - np.float32(vmin)) * np.float32(inv_dv)).astype(np.int64)
    ok = (b >= 0) & (b < P102_DG_BINS)
    hist = np.bincount(b[ok], minlength=P102_DG_BINS).astype(np.uint32)
    ke = 0.5 * sum((np.asarray(a, np.float64) ** 2).sum() for a in (vx, vy, vz))
    return hist, ke


UNSEEN100 = [
    TimingProbe("probe/pic2d-cic-charge-atomic", "probe-unseen100", "deposit_rho_cic", 1 << 22, 256,
                lambda n: -(-n // 256), _p102_dep_args, source=_P102,
                note="2-D cloud-in-cell charge deposition of 2^22 particles in random order onto a periodic "
                     "512 x 512 float grid (1 MiB, L2-resident), a thread a particle: 2 coalesced float loads, "
                     "the bilinear weights, 4 float atomicAdds to the cell's corners (2 rows; lanes' cells "
                     "random, ~16 particles a cell); global-atomic-bound"),
    TimingProbe("probe/pic2d3v-boris-gather-push", "probe-unseen100", "boris_push_2d3v", 1 << 22, 256,
                lambda n: -(-n // 256), _p102_push_args, source=_P102,
                note="field gather and Boris push of 2^22 particles in random order (2D3V, structure of arrays), "
                     "a thread a particle: 5 coalesced float loads and 5 stores in place, 8 gathered float loads "
                     "of Ex, Ey at the cell's 4 nodes of a 512 x 512 grid (2 MiB, L2-resident, lanes' cells "
                     "random), ~60 float ops (one division) for the weights and the 3-D rotation; "
                     "memory/L2-bound"),
    TimingProbe("probe/mirror-boris-losscone", "probe-unseen100", "mirror_trace", 1 << 16, P102_MIR_BLOCK,
                lambda n: -(-n // P102_MIR_BLOCK), _p102_mir_args, source=_P102,
                note="2^16 test particles in a magnetic bottle (mirror ratio 3), a thread a particle: up to 600 "
                     "Boris steps in registers (the field at the particle, a division and ~45 float ops a step), "
                     "leaving the loop when |z| passes the mirror; ~20% escape through the loss cone after "
                     "170-600 steps, so every warp runs all 600 steps with some lanes idle; one "
                     "atomicAdd an escaped particle; compute-bound, divergent"),
    TimingProbe("probe/poisson-jacobi-dp-tile16", "probe-unseen100", "poisson_jacobi", 1 << 24, (16, 16),
                _p102_jac_grid, _p102_jac_args, source=_P102,
                note="one Jacobi sweep of Poisson's equation on a grounded 4096 x 4096 double grid, a thread a "
                     "node (16 x 16 blocks): phi staged into an 18 x 18 shared tile (edge threads load the "
                     "halo: 4 divergent branches), rho and phi_new streamed (~3 x 128 MiB), the 5-point update "
                     "in double, then each block's max |change| by an 8-step shared-memory tree with "
                     "__syncthreads (one double stored a block); DRAM-bound"),
    TimingProbe("probe/pic-sort-scatter-cells", "probe-unseen100", "sort_scatter", 1 << 22, 256,
                lambda n: -(-n // 256), _p102_sort_args, source=_P102,
                note="the scatter pass of sorting 2^22 particles into 256 x 256 cells (~64 a cell), the "
                     "particles nearly sorted (sorted last time, moved ~0.2 cell since), a thread a particle: 5 "
                     "coalesced float loads, a load of the cell's start and an atomicAdd on its fill counter "
                     "(a warp's lanes in ~6 cells, ~20 of them in one: same-address atomics), then 6 stores to "
                     "the slots (mostly runs of consecutive slots, some scattered to neighbouring cells)"),
    TimingProbe("probe/twostream-vdist-ke", "probe-unseen100", "vdist_diag", 1 << 24, P102_DG_BLOCK,
                _p102_dg_grid, _p102_dg_args, source=_P102,
                note="a two-stream run's diagnostics over 2^24 particles, a grid-stride loop of 16 particles "
                     "a thread (4096 blocks of 256): 3 coalesced float loads, v^2 summed, the vx bin (floorf) "
                     "counted by a shared-memory atomicAdd into 128 bins (two beams: ~30 bins hot, a warp's "
                     "lanes on ~18), then the energy by __shfl_down_sync, shared memory and one double atomicAdd "
                     "a block, and ~45 nonzero bins a block added by global atomicAdd to 128 counters"),
]
PROBES += UNSEEN100


_BY_ID = {p.id: p for p in PROBES}


def entries() -> list[TimingProbe]:
    return list(PROBES)


def get(pid: str) -> TimingProbe:
    return _BY_ID[pid]
