"""Reduction family: seed 001's shared-memory tree reductions.

Kernels: ``reduction.cu`` (float, two elements per thread) and ``exercise.cu``
(``kernel_reducao_soma``, int, one element per thread).  The host relaunches the kernel
on the per-block sums until one value is left.

The float references simulate the kernels' own pairing order in numpy float32, block by
block and level by level, so a correct emulator (and the GPU) matches them bit for bit;
the two float kernels add in different orders and give different last bits.
"""
from __future__ import annotations

import numpy as np

from kernels_cuda.catalog import Entry, register
from kernels_cuda.fam_histogram import cdiv

B = 256
N_RED = 1 << 16


def tree_levels(x: np.ndarray, per_block: int, pairing: str) -> list[np.ndarray]:
    """Per-launch outputs of a block tree reduction relaunched until one value is left.

    ``per_block`` elements per block (zero-padded at the end); ``pairing`` is
    ``"interleaved"`` (adjacent pairs: (0,1), (2,3), ... then pairs of those, as
    ``t % stride``) or ``"contiguous"`` (halves: (t, t + width/2), as ``t < stride``).
    Arithmetic stays in x's dtype (float32 rounding after every add, like the GPU).
    """
    levels = []
    while True:
        nb = cdiv(len(x), per_block)
        m = np.zeros(nb * per_block, dtype=x.dtype)
        m[:len(x)] = x
        m = m.reshape(nb, per_block)
        while m.shape[1] > 1:
            if pairing == "interleaved":
                m = m[:, 0::2] + m[:, 1::2]
            elif pairing == "contiguous":
                h = m.shape[1] // 2
                m = m[:, :h] + m[:, h:]
            else:
                raise ValueError(pairing)
        x = m[:, 0].copy()
        levels.append(x)
        if nb == 1:
            return levels


def _inputs_float(n, rng):
    # uniform floats: with 2^16 of them float rounding shows in the last bits
    return {"input": rng.random(int(n), dtype=np.float32)}


def _inputs_int(n, rng):
    return {"entrada": rng.integers(0, 1000, int(n)).astype(np.int32)}


def _ref_tree(pairing, key, per_block_of):
    def reference(inp):
        levels = tree_levels(inp[key], per_block_of(B), pairing)
        return {"partial": levels[0], "sum": levels[-1]}
    return reference


def _drv_tree(kernel, key, dtype, per_block_of):
    """Launch ``kernel`` on the data, then on its block sums, until one block is left."""
    def driver(be, inp, e):
        n = len(inp[key])
        per = per_block_of(e.block)
        x = be.to_device(inp[key])
        partial = None
        while True:
            nb = cdiv(n, per)
            out = be.zeros(nb, dtype)
            be.launch(e.source, kernel, nb, e.block, [x, out, np.int32(n)],
                      shared_mem=per * np.dtype(dtype).itemsize)
            if partial is None:
                partial = be.to_host(out)
            if nb == 1:
                return {"partial": partial, "sum": be.to_host(out)}
            x, n = out, nb
    return driver


def _two_per_thread(b):
    return 2 * b


def _one_per_thread(b):
    return b


register(Entry(
    id="reduction/interleaved", seed="001", source="reduction.cu", kernels=("reduceShared",),
    title="Tree reduction with interleaved addressing (t % stride == 0)",
    explanation=(
        "Seed 001's reduceShared: each block loads 2*blockDim.x floats into shared memory and "
        "adds neighbours at distance 1, 2, 4, ... The threads that work are those with "
        "t % stride == 0, spread across every warp: after a few steps each warp runs with one "
        "or two active lanes, and 2*t strides through shared memory causing bank conflicts. "
        "Correct, but about twice as slow as the contiguous version on an H200."),
    default_n=N_RED, block=B, make_inputs=_inputs_float,
    reference=_ref_tree("interleaved", "input", _two_per_thread),
    driver=_drv_tree("reduceShared", "input", np.float32, _two_per_thread),
    tags=("reduction", "shared-memory", "divergence", "float")))

register(Entry(
    id="reduction/contiguous", seed="001", source="reduction.cu",
    kernels=("reduceSharedContiguous",),
    title="Tree reduction with contiguous threads (t < stride, stride halving)",
    explanation=(
        "Seed 001's improved loop: stride starts at blockDim.x and halves, and threads "
        "t < stride add partialSum[t + stride]. The active threads are contiguous, so whole "
        "warps finish together and only the last five steps run partial warps; accesses are "
        "consecutive words, free of bank conflicts. It adds in a different order from the "
        "interleaved kernel, so the float sums differ in the last bits, both exactly as the "
        "GPU computes them."),
    default_n=N_RED, block=B, make_inputs=_inputs_float,
    reference=_ref_tree("contiguous", "input", _two_per_thread),
    driver=_drv_tree("reduceSharedContiguous", "input", np.float32, _two_per_thread),
    tags=("reduction", "shared-memory", "float")))

register(Entry(
    id="reduction/recursive", seed="001", source="exercise.cu", kernels=("kernel_reducao_soma",),
    title="Integer reduction relaunched on the block sums until one value remains",
    explanation=(
        "The exercise's answer key, kernel_reducao_soma: one element per thread, contiguous "
        "tree (tid < passo), one partial sum per block. The exercise asks to call the kernel "
        "recursively on the partial sums until one value is left; the host does exactly that "
        "(65536 -> 256 -> 1). Note the answer key itself only launches one block of N = 1024 "
        "threads, which is the largest array one block can reduce."),
    default_n=N_RED, block=B, make_inputs=_inputs_int,
    reference=_ref_tree("contiguous", "entrada", _one_per_thread),
    driver=_drv_tree("kernel_reducao_soma", "entrada", np.int32, _one_per_thread),
    tags=("reduction", "shared-memory", "multi-launch")))
