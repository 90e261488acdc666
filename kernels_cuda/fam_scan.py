"""Scan family: seed 001's Hillis-Steele and Blelloch scans, extended to any length.

Kernels: ``scan.cu``.  Each seed kernel scans one block's segment; the host driver makes
a full exclusive scan the standard way: scan the segments, take each segment's total
(``scan_block_totals``), scan the totals (recursively, with the same kernel), and add
them back (``scan_add_offsets``).
"""
from __future__ import annotations

import numpy as np

from kernels_cuda.catalog import Entry, register
from kernels_cuda.fam_histogram import cdiv

SRC = "scan.cu"
B = 256
N_SCAN = 10_000        # not a multiple of the segment: exercises the tail guards


def exclusive_scan(x: np.ndarray) -> np.ndarray:
    out = np.zeros(len(x), dtype=np.int64)
    if len(x) > 1:
        out[1:] = np.cumsum(x[:-1], dtype=np.int64)
    return out.astype(np.int32)


def _inputs(n, rng):
    return {"entrada": rng.integers(0, 10, int(n)).astype(np.int32)}


def _reference(inp):
    return {"saida": exclusive_scan(inp["entrada"])}


def scan_device(be, source: str, kernel: str, entrada, n: int, block: int,
                per_thread: int):
    """Exclusive scan of ``n`` ints at ``entrada`` (a device array); returns the output.

    ``per_thread`` is 1 for scan_simples (Hillis-Steele: each block holds an inclusive scan
    of the input shifted by one, whose total is its last element) and 2 for
    scan_otimizado (Blelloch: each block holds an exclusive scan, whose total is the last
    element plus the last input)."""
    per_block = per_thread * block
    saida = be.zeros(n, np.int32)
    nb = cdiv(n, per_block)
    be.launch(source, kernel, nb, block, [entrada, saida, np.int32(n)],
              shared_mem=per_block * 4)
    if nb > 1:
        totais = be.zeros(nb, np.int32)
        be.launch(source, "scan_block_totals", cdiv(nb, block), block,
                  [entrada, saida, totais, np.int32(n), np.int32(per_block), np.int32(nb),
                   np.int32(1 if per_thread == 2 else 0)])
        offsets = scan_device(be, source, kernel, totais, nb, block, per_thread)
        be.launch(source, "scan_add_offsets", cdiv(n, block), block,
                  [saida, offsets, np.int32(n), np.int32(per_block)])
    return saida


def _driver(kernel, per_thread):
    def driver(be, inp, e):
        n = len(inp["entrada"])
        entrada = be.to_device(inp["entrada"])
        saida = scan_device(be, e.source, kernel, entrada, n, e.block, per_thread)
        return {"saida": be.to_host(saida)}
    return driver


register(Entry(
    id="scan/hillis-steele", seed="001", source=SRC,
    kernels=("scan_simples", "scan_block_totals", "scan_add_offsets"),
    title="Hillis-Steele exclusive scan (scan_simples), multi-block with block sums",
    explanation=(
        "Seed 001's scan_simples: each thread loads entrada[gid-1] (which makes the scan "
        "exclusive), then at distances 1, 2, 4, ... adds the value that many places behind. "
        "Every thread works at every step: O(n log n) additions. The read into temp, a "
        "barrier, then the write avoid a race between reading XY[tid - passo] and another "
        "thread updating it. One block scans its own segment only, so the host scans the "
        "segments' totals and adds them back."),
    default_n=N_SCAN, block=B, make_inputs=_inputs, reference=_reference,
    driver=_driver("scan_simples", 1),
    tags=("scan", "shared-memory", "multi-launch")))

register(Entry(
    id="scan/blelloch", seed="001", source=SRC,
    kernels=("scan_otimizado", "scan_block_totals", "scan_add_offsets"),
    title="Blelloch work-efficient exclusive scan (scan_otimizado), multi-block",
    explanation=(
        "Seed 001's scan_otimizado: each thread loads two elements; the up-sweep builds a sum "
        "tree in place, the last element is cleared, and the down-sweep swaps and adds its "
        "way back down, giving an exclusive scan with O(n) additions. The index "
        "(tid + 1) * passo * 2 - 1 leaves most threads idle in the deep levels and hits "
        "shared-memory banks with growing strides (bank conflicts). The host scans the "
        "per-block totals and adds them back."),
    default_n=N_SCAN, block=B, make_inputs=_inputs, reference=_reference,
    driver=_driver("scan_otimizado", 2),
    tags=("scan", "shared-memory", "bank-conflicts", "multi-launch")))
