"""SpMV family: seed 003's CSR sparse matrix-vector product, one thread per row.

Kernel: ``spmv.cu``.  The matrix has rows of very different lengths (most short, a few
long), which is what makes one-thread-per-row CSR diverge inside a warp.
"""
from __future__ import annotations

import numpy as np

from kernels_cuda.catalog import Entry, register
from kernels_cuda.fam_histogram import cdiv

SRC = "spmv.cu"

# seed 003's 3x4 example: [0 a01 a02 0; 0 a11 0 a13; a20 0 0 0], x = ones -> y = [3, 7, 5]
EXAMPLE = {
    "ponteiro_linha": np.array([0, 2, 4, 5], dtype=np.int32),
    "indice_coluna": np.array([1, 2, 1, 3, 0], dtype=np.int32),
    "valores": np.array([1, 2, 3, 4, 5], dtype=np.float32),
    "vetor_x": np.ones(4, dtype=np.float32),
}


def random_csr(rows: int, cols: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """CSR matrix: row lengths mostly 0..8, one row in 32 with 32..96 non-zeros."""
    lengths = rng.integers(0, 9, rows)
    long_rows = rng.random(rows) < 1 / 32
    lengths[long_rows] = rng.integers(32, 97, int(long_rows.sum()))
    lengths = np.minimum(lengths, cols)
    ptr = np.zeros(rows + 1, dtype=np.int64)
    ptr[1:] = np.cumsum(lengths)
    cols_idx = np.concatenate([np.sort(rng.choice(cols, int(k), replace=False)) for k in lengths]
                              ) if rows else np.zeros(0, np.int64)
    return {
        "ponteiro_linha": ptr.astype(np.int32),
        "indice_coluna": cols_idx.astype(np.int32),
        "valores": rng.uniform(-1.0, 1.0, int(ptr[-1])).astype(np.float32),
        "vetor_x": rng.uniform(-1.0, 1.0, cols).astype(np.float32),
    }


def _inputs(n, rng):
    return random_csr(int(n), int(n), rng)


def csr_rows_sequential(inp) -> np.ndarray:
    """y[r] = sum over the row, in the row's order, float32 product then float32 add."""
    ptr, col = inp["ponteiro_linha"], inp["indice_coluna"]
    val, x = inp["valores"], inp["vetor_x"]
    rows = len(ptr) - 1
    lengths = np.diff(ptr)
    y = np.zeros(rows, dtype=np.float32)
    kmax = int(lengths.max()) if rows else 0
    for k in range(kmax):                      # k-th non-zero of every row at once
        has = lengths > k
        j = ptr[:-1][has] + k
        y[has] = y[has] + val[j] * x[col[j]]
    return y


def _reference(inp):
    return {"vetor_y": csr_rows_sequential(inp)}


def _driver(be, inp, e):
    rows = len(inp["ponteiro_linha"]) - 1
    ptr = be.to_device(inp["ponteiro_linha"])
    col = be.to_device(inp["indice_coluna"])
    val = be.to_device(inp["valores"])
    x = be.to_device(inp["vetor_x"])
    y = be.zeros(rows, np.float32)
    be.launch(e.source, "multiplicar_csr_kernel", cdiv(rows, e.block), e.block,
              [np.int32(rows), ptr, col, val, x, y])
    return {"vetor_y": be.to_host(y)}


register(Entry(
    id="spmv/csr-scalar", seed="003", source=SRC, kernels=("multiplicar_csr_kernel",),
    title="CSR sparse matrix-vector product, one thread per row",
    explanation=(
        "Seed 003's multiplicar_csr_kernel: thread `linha` walks valores[ponteiro_linha[linha] "
        ".. ponteiro_linha[linha+1]) and accumulates valores[i] * vetor_x[indice_coluna[i]]. "
        "Rows are independent, so no race; but the lanes of a warp loop as many times as the "
        "longest row in the warp (divergence: one long row idles 31 lanes), and neighbouring "
        "lanes read far-apart parts of valores, so the loads are not coalesced. The order "
        "inside a row is fixed; the GPU may fuse the multiply-add (FMA), hence a small "
        "tolerance."),
    default_n=1 << 12, block=128, make_inputs=_inputs, reference=_reference, driver=_driver,
    float_rtol=1e-5,
    tags=("spmv", "sparse", "divergence", "float", "global-memory")))
