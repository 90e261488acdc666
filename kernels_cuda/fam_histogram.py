"""Histogram family: seed 000's three versions and seed 002's optimisation ladder.

Kernels: ``histogram.cu``.  Every driver uses only the Backend interface.  The input
data look like pixels of a photograph: mostly spread over 0..255, with a dark peak and
blown-out highlights (value 255), so warps often hold equal values (collisions for the
racy kernels, work for warp aggregation) and the 0xFF-marker bug of
``histogram_optimized`` shows.
"""
from __future__ import annotations

import numpy as np

from kernels_cuda.catalog import Entry, register

SRC = "histogram.cu"
NUM_BINS = 256
COARSEN_FACTOR = 4      # histogram.cu's #define
GRID_CAP = 256          # grid-stride kernels: seed 002 caps its grid at 256 blocks (enough for every SM)

SKEWS = ("image", "uniform", "dark", "constant")
_CHUNK = 1 << 20        # histogram_data draws this many values at a time


def cdiv(a: int, b: int) -> int:
    return -(-int(a) // int(b))


def histogram_data(n: int, rng: np.random.Generator, skew: str = "image",
                   dtype=np.uint8) -> np.ndarray:
    """``n`` values in 0..255, always including 255.

    ``image``: 70% uniform, 20% dark pixels (0..7), 10% saturated (255);
    ``uniform``: uniform 0..255; ``dark``: 90% in 0..7 (heavy contention);
    ``constant``: every value 255 (worst case for atomics).
    """
    n = int(n)
    if skew not in SKEWS:
        raise ValueError(f"unknown skew {skew!r}; one of {', '.join(SKEWS)}")
    out = np.empty(n, dtype)
    if skew == "constant":
        out[:] = 255
    elif skew == "uniform":
        for s in range(0, n, _CHUNK):
            out[s:s + _CHUNK] = rng.integers(0, 256, min(_CHUNK, n - s))
    else:
        # Drawn chunk by chunk, in the order of one whole-array draw each (the same
        # values as ``np.where`` over three n-long int64 arrays), so a 2^24 input
        # touches 16 MB of fresh pages rather than 500 MB.
        p_dark, p_sat = (0.2, 0.1) if skew == "image" else (0.9, 0.02)
        kind = np.empty(n, np.uint8)            # 0 spread, 1 dark, 2 saturated
        for s in range(0, n, _CHUNK):
            u = rng.random(min(_CHUNK, n - s))
            k = kind[s:s + len(u)]
            k[:] = u < p_dark
            k[u >= 1.0 - p_sat] = 2
        for s in range(0, n, _CHUNK):
            out[s:s + _CHUNK] = rng.integers(0, 256, min(_CHUNK, n - s))
        for s in range(0, n, _CHUNK):
            dark = rng.integers(0, 8, min(_CHUNK, n - s))
            k, o = kind[s:s + len(dark)], out[s:s + len(dark)]
            o[k == 1] = dark[k == 1]
            o[k == 2] = 255
    if n:
        out[rng.integers(0, n)] = 255
    return out


def bincount(x: np.ndarray, bins: int = NUM_BINS, weights=None) -> np.ndarray:
    x = np.asarray(x).ravel()
    if weights is not None:
        return np.bincount(x.astype(np.int64), weights=weights, minlength=bins)
    counts = np.zeros(max(bins, int(x.max()) + 1 if len(x) else 0), np.int64)
    for s in range(0, len(x), _CHUNK):     # chunks: no n-long int64 copy of a 2^24 input
        counts += np.bincount(x[s:s + _CHUNK].astype(np.int64), minlength=bins)
    return counts


def lost_counts(out, ref) -> int:
    """Counts missing from the histogram: lost updates (races) or skipped items."""
    return int(sum(np.asarray(ref[k], dtype=np.int64).sum() - np.asarray(out[k], dtype=np.int64).sum()
                   for k in ref))


# ----------------------------------------------------------------------------- inputs

def _inputs_int(n, rng):
    return {"dados": histogram_data(n, rng, "image", np.int32)}


def _inputs_u8(n, rng):
    return {"data": histogram_data(n, rng, "image", np.uint8)}


def _inputs_u8_uniform(n, rng):
    return {"data": histogram_data(n, rng, "uniform", np.uint8)}


def _inputs_rgb(n, rng):
    r = histogram_data(n, rng, "image")
    g = histogram_data(n, rng, "uniform")
    b = histogram_data(n, rng, "dark")
    return {"image": np.stack([r, g, b], axis=1).reshape(-1)}


def _inputs_weighted(n, rng):
    return {"data": histogram_data(n, rng, "image"),
            "weight": rng.random(int(n), dtype=np.float32)}


BIN_W = 32               # 2-D histogram: 8 x 8 bins of width 32


def _inputs_2d(n, rng):
    x = histogram_data(n, rng, "uniform")
    y = np.clip(x.astype(np.int64) + rng.normal(0, 40, int(n)).round(), 0, 255).astype(np.uint8)
    y[rng.integers(0, int(n))] = 255
    return {"data_x": x, "data_y": y}


# ------------------------------------------------------------------------- references

def _ref_int(inp):
    return {"hist": bincount(inp["dados"]).astype(np.int32)}


def _ref_u8(inp):
    return {"hist": bincount(inp["data"]).astype(np.int32)}


def _ref_register(inp):
    return {"hist": bincount(inp["data"] % 8, 8).astype(np.int32)}


def _ref_rgb(inp):
    px = inp["image"].reshape(-1, 3)
    return {"hist_r": bincount(px[:, 0]).astype(np.int32),
            "hist_g": bincount(px[:, 1]).astype(np.int32),
            "hist_b": bincount(px[:, 2]).astype(np.int32)}


def _ref_weighted(inp):
    return {"hist": bincount(inp["data"], weights=inp["weight"].astype(np.float64)).astype(np.float32)}


def _ref_2d(inp):
    nb = NUM_BINS // BIN_W
    flat = (inp["data_y"].astype(np.int64) // BIN_W) * nb + inp["data_x"].astype(np.int64) // BIN_W
    return {"hist2d": bincount(flat, nb * nb).astype(np.int32).reshape(nb, nb)}


# ---------------------------------------------------------------------------- drivers

def _drv_global_int(kernel):
    """seed 000: one thread per item, one global histogram."""
    def driver(be, inp, e):
        n = len(inp["dados"])
        dados = be.to_device(inp["dados"])
        hist = be.zeros(NUM_BINS, np.int32)
        be.launch(e.source, kernel, cdiv(n, e.block), e.block,
                  [dados, hist, np.int32(n), np.int32(NUM_BINS)])
        return {"hist": be.to_host(hist)}
    return driver


def _drv_per_block(kernel):
    """seed 000: one histogram per block in global memory, merged on the host."""
    def driver(be, inp, e):
        n = len(inp["dados"])
        blocks = cdiv(n, e.block)
        dados = be.to_device(inp["dados"])
        per_block = be.zeros(blocks * NUM_BINS, np.int32)
        be.launch(e.source, kernel, blocks, e.block,
                  [dados, per_block, np.int32(n), np.int32(NUM_BINS)],
                  shared_mem=NUM_BINS * 4)
        h = be.to_host(per_block).reshape(blocks, NUM_BINS)
        # fundir_histogramas_CPU
        return {"hist": h.sum(axis=0, dtype=np.int64).astype(np.int32)}
    return driver


def _drv_u8(kernel, grid_of, bins=NUM_BINS):
    """seed 002: unsigned char data, one global histogram; grid_of(n, block)."""
    def driver(be, inp, e):
        n = len(inp["data"])
        data = be.to_device(inp["data"])
        hist = be.zeros(bins, np.int32)
        be.launch(e.source, kernel, grid_of(n, e.block), e.block, [data, hist, np.int32(n)])
        return {"hist": be.to_host(hist)}
    return driver


def _grid_one_per_item(n, b):
    return cdiv(n, b)


def _grid_capped(n, b):
    return max(1, min(cdiv(n, b), GRID_CAP))


def _grid_coarsened(n, b):
    return cdiv(n, b * COARSEN_FACTOR)


def _grid_optimized(n, b):
    # seed 002's launch: numBlocks = min(ceil(n / (BLOCK_SIZE * COARSEN_FACTOR)), 256)
    return max(1, min(cdiv(n, b * COARSEN_FACTOR), 256))


def _drv_rgb(be, inp, e):
    n = len(inp["image"]) // 3
    img = be.to_device(inp["image"])
    hs = [be.zeros(NUM_BINS, np.int32) for _ in range(3)]
    be.launch(e.source, "histogram_rgb", cdiv(n, e.block), e.block, [img, *hs, np.int32(n)])
    r, g, b = (be.to_host(h) for h in hs)
    return {"hist_r": r, "hist_g": g, "hist_b": b}


def _drv_weighted(be, inp, e):
    n = len(inp["data"])
    data = be.to_device(inp["data"])
    w = be.to_device(inp["weight"])
    hist = be.zeros(NUM_BINS, np.float32)
    be.launch(e.source, "histogram_weighted", cdiv(n, e.block), e.block, [data, w, hist, np.int32(n)])
    return {"hist": be.to_host(hist)}


def _drv_2d(be, inp, e):
    n = len(inp["data_x"])
    nb = NUM_BINS // BIN_W
    dx, dy = be.to_device(inp["data_x"]), be.to_device(inp["data_y"])
    hist = be.zeros(nb * nb, np.int32)
    be.launch(e.source, "histogram_2d", cdiv(n, e.block), e.block,
              [dx, dy, hist, np.int32(n), np.int32(BIN_W), np.int32(BIN_W), np.int32(nb)])
    return {"hist2d": be.to_host(hist).reshape(nb, nb)}


# ---------------------------------------------------------------------------- entries

N_HIST = 1 << 13
B = 256

register(Entry(
    id="histogram/naive", seed="000", source=SRC, kernels=("histograma_ingenuo",),
    title="Naive global histogram: histograma[chunk]++ races and loses counts",
    explanation=(
        "Seed 000's first version: every thread increments histograma[chunk] in global memory "
        "with a plain ++, which is a load, an add and a store. When two threads hold the same "
        "value they both load the old count and both store old+1, so one increment is lost. "
        "Inside a warp the 32 lanes store together and same-address stores collapse into one; "
        "between warps the loads and stores interleave. The total count comes out short of N."),
    default_n=N_HIST, block=B, make_inputs=_inputs_int, reference=_ref_int,
    driver=_drv_global_int("histograma_ingenuo"),
    expect_correct=False, racy=True, lost_updates=lost_counts,
    tags=("histogram", "race", "global-memory")))

register(Entry(
    id="histogram/atomic", seed="000", source=SRC, kernels=("histograma_atomico",),
    title="Global atomicAdd histogram: correct, but atomics on one address serialize",
    explanation=(
        "Seed 000's second version replaces ++ with atomicAdd(&histograma[chunk], 1). The "
        "read-modify-write becomes indivisible, so no count is lost, but every lane that "
        "targets the same bin waits its turn: with skewed data (many dark or saturated pixels) "
        "most of a warp's atomics hit one address and run one after another."),
    default_n=N_HIST, block=B, make_inputs=_inputs_int, reference=_ref_int,
    driver=_drv_global_int("histograma_atomico"),
    tags=("histogram", "atomics", "global-memory")))

register(Entry(
    id="histogram/shared-local", seed="000", source=SRC, kernels=("histograma_compartilhado",),
    title="Per-block shared-memory histogram as written: hist_local[chunk]++ still races",
    explanation=(
        "Seed 000's 'optimized' version gives each block its own histogram in shared memory and "
        "merges the blocks' histograms on the host. It removes the global contention, but "
        "hist_local[chunk]++ is still a plain read-modify-write shared by all threads of the "
        "block: lanes of a warp with equal values collapse into one store and warps overwrite "
        "each other's counts. The notes claim no atomic is needed because the memory is private "
        "to the block; it is private to the block, not to the thread. racecheck reports the "
        "hazard on that line."),
    default_n=N_HIST, block=B, make_inputs=_inputs_int, reference=_ref_int,
    driver=_drv_per_block("histograma_compartilhado"),
    expect_correct=False, racy=True, lost_updates=lost_counts,
    tags=("histogram", "race", "shared-memory", "privatization")))

register(Entry(
    id="histogram/shared-local-fixed", seed="000", source=SRC,
    kernels=("histograma_compartilhado_atomico",),
    title="Per-block shared-memory histogram with atomicAdd on shared memory",
    explanation=(
        "The fix for seed 000's shared-memory histogram: atomicAdd(&hist_local[chunk], 1). "
        "Shared-memory atomics are cheap and contention stays inside one block; each block "
        "still writes its own histogram to global memory and the host sums them, so no global "
        "atomic is used at all."),
    default_n=N_HIST, block=B, make_inputs=_inputs_int, reference=_ref_int,
    driver=_drv_per_block("histograma_compartilhado_atomico"),
    tags=("histogram", "atomics", "shared-memory", "privatization")))

register(Entry(
    id="histogram/naive-u8", seed="002", source=SRC, kernels=("histogram_naive",),
    title="PMPP naive histogram of bytes: histogram[data[i]]++ races",
    explanation=(
        "Seed 002's first attempt, on unsigned char pixels: the same read-modify-write race as "
        "seed 000's naive kernel. Thread A reads histogram[5] = 10, thread B reads 10, both "
        "write 11: one count is lost."),
    default_n=N_HIST, block=B, make_inputs=_inputs_u8, reference=_ref_u8,
    driver=_drv_u8("histogram_naive", _grid_one_per_item),
    expect_correct=False, racy=True, lost_updates=lost_counts,
    tags=("histogram", "race", "global-memory")))

register(Entry(
    id="histogram/atomic-u8", seed="002", source=SRC, kernels=("histogram_atomic",),
    title="PMPP global atomic histogram of bytes",
    explanation=(
        "Seed 002's atomicAdd(&histogram[data[i]], 1): correct. Its cost depends on contention: "
        "26 bins (letters) is very slow, 256 (grey levels) slow, millions of bins near peak."),
    default_n=N_HIST, block=B, make_inputs=_inputs_u8, reference=_ref_u8,
    driver=_drv_u8("histogram_atomic", _grid_one_per_item),
    tags=("histogram", "atomics", "global-memory")))

register(Entry(
    id="histogram/privatized", seed="002", source=SRC, kernels=("histogram_privatized",),
    title="Privatized histogram: shared-memory atomics per block, grid-stride loop",
    explanation=(
        "Each block keeps a private histogram in shared memory, updated with shared atomics "
        "(about 20 cycles instead of 400), then adds it to the global histogram with one atomic "
        "per bin. The grid-stride loop lets a small grid cover any n, so the number of global "
        "atomics drops from n to NUM_BINS x gridDim.x. Needs blockDim.x >= NUM_BINS, because "
        "only threads below NUM_BINS initialise and merge."),
    default_n=N_HIST, block=B, make_inputs=_inputs_u8, reference=_ref_u8,
    driver=_drv_u8("histogram_privatized", _grid_capped),
    tags=("histogram", "atomics", "shared-memory", "privatization", "grid-stride")))

register(Entry(
    id="histogram/coarsened", seed="002", source=SRC, kernels=("histogram_coarsened",),
    title="Coarsened privatized histogram: COARSEN_FACTOR consecutive items per thread",
    explanation=(
        "Each thread processes COARSEN_FACTOR = 4 consecutive bytes, which spreads the cost of "
        "initialising and merging the private histogram over more work. Note that consecutive "
        "items per thread means the lanes of a warp read addresses 4 bytes apart: the loads are "
        "less coalesced than with a grid-stride (interleaved) assignment."),
    default_n=N_HIST, block=B, make_inputs=_inputs_u8, reference=_ref_u8,
    driver=_drv_u8("histogram_coarsened", _grid_coarsened),
    tags=("histogram", "atomics", "shared-memory", "coarsening")))

register(Entry(
    id="histogram/aggregated", seed="002", source=SRC, kernels=("histogram_aggregated",),
    title="Warp-aggregated histogram: __match_any_sync groups equal values, one atomic each",
    explanation=(
        "Lanes holding the same value find each other with __match_any_sync(__activemask(), "
        "value); the lowest lane of each group (__ffs(mask) - 1) adds __popc(mask) once. A warp "
        "of dark pixels that would issue 32 serialized atomics on bin 0 issues one. Pays off "
        "when values repeat inside a warp, as in this image-like data."),
    default_n=N_HIST, block=B, make_inputs=_inputs_u8, reference=_ref_u8,
    driver=_drv_u8("histogram_aggregated", _grid_one_per_item),
    tags=("histogram", "atomics", "shared-memory", "warp-intrinsics", "aggregation")))

register(Entry(
    id="histogram/optimized", seed="002", source=SRC, kernels=("histogram_optimized",),
    title="'Fully optimized' histogram as written: the 0xFF marker drops every real 255",
    explanation=(
        "Seed 002 combines privatization, coarsening, a grid-stride loop and warp aggregation. "
        "Out-of-range items are marked with 0xFF and skipped by `if (values[k] != 0xFF)`, but "
        "values[k] is an unsigned char, so a real pixel of value 255 is indistinguishable from "
        "the marker and is skipped too: bin 255 stays 0. No race is involved; the result is "
        "wrong the same way on every run and every GPU. Images with saturated highlights lose "
        "all of them."),
    default_n=N_HIST, block=B, make_inputs=_inputs_u8, reference=_ref_u8,
    driver=_drv_u8("histogram_optimized", _grid_optimized),
    expect_correct=False, racy=False, lost_updates=lost_counts,
    tags=("histogram", "bug", "shared-memory", "warp-intrinsics", "coarsening")))

register(Entry(
    id="histogram/optimized-fixed", seed="002", source=SRC, kernels=("histogram_optimized_fixed",),
    title="Optimized histogram with an out-of-range marker (-1 in an int)",
    explanation=(
        "The fix for seed 002's histogram_optimized: hold the loaded values in int and mark "
        "missing items with -1, a value no pixel can take, so bin 255 is counted. Everything "
        "else (privatization, coarsening, grid-stride loop, warp aggregation) is unchanged."),
    default_n=N_HIST, block=B, make_inputs=_inputs_u8, reference=_ref_u8,
    driver=_drv_u8("histogram_optimized_fixed", _grid_optimized),
    tags=("histogram", "atomics", "shared-memory", "warp-intrinsics", "coarsening")))

register(Entry(
    id="histogram/register", seed="002", source=SRC, kernels=("histogram_register",),
    title="Thread-private histogram in registers (8 bins: data[i] % 8)",
    explanation=(
        "With very few bins each thread can keep its own histogram in a local array "
        "(int local_hist[8] = {0}) and merge with 8 global atomics at the end: no contention "
        "while counting. Only works for a handful of bins; the array is indexed with a run-time "
        "value, so a real compiler may place it in local memory rather than registers."),
    default_n=N_HIST, block=B, make_inputs=_inputs_u8, reference=_ref_register,
    driver=_drv_u8("histogram_register", _grid_capped, bins=8),
    tags=("histogram", "atomics", "privatization", "registers")))

register(Entry(
    id="histogram/rgb", seed="002", source=SRC, kernels=("histogram_rgb",),
    title="Three-channel RGB histogram with three private shared histograms",
    explanation=(
        "One thread per pixel of an interleaved RGB image adds to three private histograms in "
        "shared memory, then merges them. The seed elides the initialisation and the merge "
        "('// ...'); they are completed here with block-stride loops, which also makes the "
        "kernel correct for any blockDim.x. Reads of image[3*i + c] are strided by 3 bytes."),
    default_n=N_HIST, block=B, make_inputs=_inputs_rgb, reference=_ref_rgb, driver=_drv_rgb,
    tags=("histogram", "atomics", "shared-memory", "privatization")))

register(Entry(
    id="histogram/weighted", seed="002", source=SRC, kernels=("histogram_weighted",),
    title="Weighted histogram: float atomicAdd of weight[i] into bin data[i]",
    explanation=(
        "Each item adds its weight rather than 1 (used e.g. in histogram equalisation). Float "
        "atomicAdd is correct in the sense that nothing is lost, but the order in which the "
        "additions land is decided by the hardware, and float addition is not associative: the "
        "last bits of each bin may change from run to run. Compared with a tolerance."),
    default_n=N_HIST, block=B, make_inputs=_inputs_weighted, reference=_ref_weighted,
    driver=_drv_weighted, float_rtol=1e-4,
    tags=("histogram", "atomics", "float", "global-memory")))

register(Entry(
    id="histogram/2d", seed="002", source=SRC, kernels=("histogram_2d",),
    title="Two-dimensional histogram (joint distribution), 8 x 8 bins",
    explanation=(
        "Counts pairs (x, y) into bin_y * num_bins_x + bin_x with a global atomicAdd. Here y is "
        "x plus noise, so the counts crowd along the diagonal and the diagonal bins see the most "
        "contention."),
    default_n=N_HIST, block=B, make_inputs=_inputs_2d, reference=_ref_2d, driver=_drv_2d,
    tags=("histogram", "atomics", "global-memory")))
