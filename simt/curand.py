"""cuRAND's device API (``#include <curand_kernel.h>``): what simt/include/curand_kernel.h
cannot say in C.

The header is simt's own C, read like the user's file: the XORWOW (``curandState``) and
Philox4_32_10 states with cuRAND's layouts, ``curand_init``, ``curand``, ``curand4``,
``curand_uniform``, ``curand_uniform4``, ``curand_uniform_double``,
``curand_uniform2_double``, ``curand_normal``, ``curand_normal2``, ``curand_normal4``,
``curand_normal_double``, ``curand_normal2_double``, ``curand_log_normal``, ``skipahead``
and ``skipahead_sequence``.  This module holds

- ``OVERLOADS``: cuRAND overloads those names on the state's type, and simt has no
  overloading of free functions, so a call goes to the header's ``__curand_xorwow_*`` or
  ``__curand_philox_*`` by the type its state argument points to (``resolve``);
- ``xorwow_matvec``: one output word of a jump matrix times the 160-bit XORWOW state, the
  step of ``curand_init``'s skip-ahead (``__simt_xorwow_matvec`` in the header).  Table 0
  holds A^(2^67 * 4^m) (subsequences), table 1 A^(4^m) (draws), A being one draw's linear
  map on the five state words, over GF(2); each word is the XOR of 20 byte-indexed table
  rows, so a step costs numpy 20 gathers however many lanes it has.

Limitations: the other generators (MRG32k3a, MTGP32, Sobol), ``curand_poisson``,
``curand_discrete`` and the host API (``curand.h``) are not there.  ``curand_normal`` and
its kin go through simt's ``logf``, ``sqrtf`` and ``__sincosf``, which are correctly
rounded where the GPU's are approximations, so normals agree with the GPU's to a few
units in the last place, not bit for bit; the words and the uniforms are cuRAND's bits.
A jump step costs the GPU's walk over the matrix's 160 rows (``machine.OP_COST``'s
``xorwow_matvec``), whatever the lanes' bits.
"""
from __future__ import annotations

import functools
from pathlib import Path

import numpy as np

INCLUDE_DIR = Path(__file__).resolve().parent / "include"

# name -> index of the state argument; the header's implementations are
# __curand_<generator>_<name> (curand itself is __curand_<generator>_curand)
OVERLOADS = {
    "curand_init": 3, "curand": 0, "curand4": 0, "curand_uniform": 0, "curand_uniform4": 0,
    "curand_uniform_double": 0, "curand_uniform2_double": 0, "curand_normal": 0,
    "curand_normal2": 0, "curand_normal4": 0, "curand_normal_double": 0,
    "curand_normal2_double": 0, "curand_log_normal": 0, "skipahead": 1, "skipahead_sequence": 1,
}
GENERATORS = {"curandStateXORWOW": "xorwow", "curandStatePhilox4_32_10": "philox"}


def resolve(name: str, state_tag: str | None) -> str | None:
    """The header function a call of cuRAND's ``name`` on a state of struct ``state_tag``
    runs (None: no such overload)."""
    gen = GENERATORS.get(state_tag or "")
    return f"__curand_{gen}_{name.removeprefix('curand_')}" if gen else None


def _step_matrix() -> np.ndarray:
    """One XORWOW draw's map on (v0..v4) as a 160 x 160 bit matrix: row r is the image of
    the state whose only set bit is bit r (bit 32 * w + b is bit b of word w)."""
    out = np.zeros((160, 160), np.uint8)
    for r in range(160):
        v = [0] * 5
        v[r // 32] = 1 << (r % 32)
        t = v[0] ^ (v[0] >> 2)
        nv = v[1:] + [((v[4] ^ (v[4] << 4)) ^ (t ^ (t << 1))) & 0xFFFFFFFF]
        for w in range(5):
            out[r, 32 * w:32 * w + 32] = (nv[w] >> np.arange(32)) & 1
    return out


def _mul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a then b (row vectors: x @ a @ b), over GF(2)."""
    return (a.astype(np.int64) @ b.astype(np.int64) & 1).astype(np.uint8)


@functools.lru_cache(maxsize=None)
def _base(table: int) -> np.ndarray:
    m = _step_matrix()
    for _ in range(67 if table == 0 else 0):
        m = _mul(m, m)
    return m


@functools.lru_cache(maxsize=None)
def _matrix(table: int, m: int) -> np.ndarray:
    """A^(step * 4^m): table 0 steps 2^67 draws, table 1 one."""
    if m == 0:
        return _base(table)
    p = _matrix(table, m - 1)
    p = _mul(p, p)
    return _mul(p, p)


@functools.lru_cache(maxsize=None)
def _byte_rows(table: int, m: int) -> np.ndarray:
    """(20, 256, 5) uint32: for byte p of the state and its value, the XOR of the matrix
    rows of the bits it has set, as five words."""
    mat = _matrix(table, m).reshape(160, 5, 32).astype(np.uint64)
    words = (mat << np.arange(32, dtype=np.uint64)).sum(axis=2).astype(np.uint32)   # (160, 5)
    bits = (np.arange(256)[:, None] >> np.arange(8)) & 1                            # (256, 8)
    out = np.zeros((20, 256, 5), np.uint32)
    for p in range(20):
        rows = words[8 * p:8 * p + 8]                                               # (8, 5)
        for i in range(8):
            out[p] ^= np.where(bits[:, i:i + 1] == 1, rows[i][None, :], np.uint32(0))
    return out


def xorwow_matvec(v0, v1, v2, v3, v4, m, k, table):
    """Word ``k`` of matrix ``m`` of ``table`` times the state (v0..v4), lane by lane."""
    vs = np.broadcast_arrays(*(np.asarray(v, np.uint32) for v in (v0, v1, v2, v3, v4)))
    out = np.zeros(vs[0].shape, np.uint32)
    # (m, k, table) of each lane as one number; nearly always one value for all lanes
    key = np.broadcast_to((np.asarray(m, np.int64) * 8 + np.asarray(k, np.int64)) * 2
                          + np.asarray(table, np.int64), out.shape)
    lo, hi = (int(key.min()), int(key.max())) if key.size else (0, -1)
    for kv in ([lo] if lo == hi else np.unique(key).tolist()):
        mi, ki, ti = kv // 16, kv // 2 % 8, kv % 2
        sel = slice(None) if lo == hi else key == kv
        rows = _byte_rows(ti, mi)[:, :, ki]                                         # (20, 256)
        acc = np.zeros(out[sel].shape, np.uint32)
        for p in range(20):
            acc ^= rows[p][(vs[p // 4][sel] >> np.uint32(8 * (p % 4))) & np.uint32(0xFF)]
        out[sel] = acc
    return out
