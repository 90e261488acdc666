"""Atomics family: atomic operations built from atomicCAS (seeds 002 and 004) and seed
004's "tipos/valores" example (two kernels vs one kernel with atomics).

Kernels: ``atomics.cu``.  Seed 004's float atomicMul as written does not compile; it is
kept in ``broken/atomic_mul_float_as_written.cu`` and the catalog uses the fixed one.
"""
from __future__ import annotations

import numpy as np

from kernels_cuda.catalog import Entry, register
from kernels_cuda.fam_histogram import bincount, cdiv, histogram_data

SRC = "atomics.cu"
B = 256
N_SLOTS = 64


# ----------------------------------------------------------------------------- inputs

def _inputs_cas(n, rng):
    # uniform bytes: a CAS loop retries once per competing lane, keep the bins even
    return {"data": histogram_data(n, rng, "uniform")}


def _inputs_mul_int(n, rng):
    # odd factors only: odd numbers are invertible mod 2^32, so a product never collapses
    # to 0 (with a factor 2 it did after 32 of them, and every later CAS ran unopposed: the
    # result checked nothing and the large launch timed a fixed point, not the CAS loop)
    f = rng.choice(np.array([1, 3, -1, 5], dtype=np.int32), size=int(n), p=[0.75, 0.1, 0.1, 0.05])
    return {"factors": f.astype(np.int32)}


def _inputs_mul_float(n, rng):
    # factors e^u, u uniform in [-0.05, 0.05]: the product's logarithm is a walk with no
    # drift, so 2^18 factors a slot stay far from overflow and underflow (uniform 0.9..1.1
    # drifts down and reached a denormal fixed point after ~62,000 factors a slot)
    return {"factors": np.exp(rng.uniform(-0.05, 0.05, int(n))).astype(np.float32)}


def _inputs_tipos(n, rng):
    return {"tipos": rng.integers(0, 2, int(n)).astype(np.int32),
            "valores": rng.integers(0, 10, int(n)).astype(np.int32)}


# ------------------------------------------------------------------------- references

def _ref_cas(inp):
    return {"hist": bincount(inp["data"]).astype(np.int32)}


def _slot_matrix(x, slots, fill):
    """x[i] at row i // slots, column i % slots, padded with ``fill``."""
    n = len(x)
    pad = (-n) % slots
    return np.concatenate([x, np.full(pad, fill, dtype=x.dtype)]).reshape(-1, slots)


def _ref_mul_int(inp):
    m = _slot_matrix(inp["factors"].astype(np.uint32), N_SLOTS, np.uint32(1))
    # integer multiplication wraps mod 2^32 like the GPU's, in any order
    return {"products": np.multiply.reduce(m, axis=0, dtype=np.uint32).view(np.int32)}


def _ref_mul_float(inp):
    m = _slot_matrix(inp["factors"].astype(np.float64), N_SLOTS, 1.0)
    return {"products": np.prod(m, axis=0).astype(np.float32)}


def _ref_tipos(inp):
    t = inp["tipos"]
    n = len(t)
    i = np.arange(n)
    dest = np.where(t == 0, i, (i + 1) % n)
    return {"valores": (inp["valores"] + bincount(dest, n)).astype(np.int32)}


# ---------------------------------------------------------------------------- drivers

def _drv_cas(be, inp, e):
    n = len(inp["data"])
    data = be.to_device(inp["data"])
    hist = be.zeros(256, np.int32)
    be.launch(e.source, "histogram_cas", cdiv(n, e.block), e.block, [data, hist, np.int32(n)])
    return {"hist": be.to_host(hist)}


def _drv_mul(kernel, dtype):
    def driver(be, inp, e):
        n = len(inp["factors"])
        f = be.to_device(inp["factors"])
        products = be.to_device(np.ones(N_SLOTS, dtype=dtype))
        be.launch(e.source, kernel, cdiv(n, e.block), e.block,
                  [f, products, np.int32(n), np.int32(N_SLOTS)])
        return {"products": be.to_host(products)}
    return driver


def _drv_tipos(kernels):
    def driver(be, inp, e):
        n = len(inp["tipos"])
        tipos = be.to_device(inp["tipos"])
        valores = be.to_device(inp["valores"])
        for k in kernels:
            be.launch(e.source, k, cdiv(n, e.block), e.block, [tipos, valores, np.int32(n)])
        return {"valores": be.to_host(valores)}
    return driver


# ---------------------------------------------------------------------------- entries

register(Entry(
    id="atomics/cas-add", seed="002", source=SRC, kernels=("histogram_cas",),
    title="atomicAdd written by hand as an atomicCAS retry loop (histogram)",
    explanation=(
        "Seed 002 shows what atomicAdd does underneath: read the word, compute old + val, and "
        "atomicCAS it in only if nobody changed it meanwhile; otherwise retry with the value "
        "CAS returned. Here it counts a byte histogram. Lanes that hit the same bin in the same "
        "step all try; one wins per round and the others loop again, so a warp with k equal "
        "values runs the loop k times: contention becomes visible as iterations."),
    default_n=1 << 12, block=B, make_inputs=_inputs_cas, reference=_ref_cas, driver=_drv_cas,
    tags=("atomics", "atomicCAS", "global-memory", "histogram")))

register(Entry(
    id="atomics/mul-int", seed="004", source=SRC, kernels=("mul_int_kernel",),
    title="Atomic multiply for int built from atomicCAS",
    explanation=(
        "CUDA has no atomicMul, so seed 004 builds one: loop { assumed = old; old = "
        "atomicCAS(address, assumed, val * assumed); } until the CAS saw the value it assumed. "
        "Each thread multiplies its factor into products[i % 64]; integer multiplication wraps "
        "mod 2^32 and is associative, so the result is exact whatever order the CAS rounds "
        "take."),
    default_n=1 << 12, block=B, make_inputs=_inputs_mul_int, reference=_ref_mul_int,
    driver=_drv_mul("mul_int_kernel", np.int32),
    tags=("atomics", "atomicCAS", "global-memory")))

register(Entry(
    id="atomics/mul-float", seed="004", source=SRC, kernels=("mul_float_kernel",),
    title="Atomic multiply for float via atomicCAS on the bits (fixed)",
    explanation=(
        "atomicCAS only works on integer words, so the float product travels as bits: "
        "__int_as_float(assumed) * val, back with __float_as_int. The seed passes the float* "
        "`address` to atomicCAS instead of `address_int`, which does not compile (see "
        "broken/atomic_mul_float_as_written.cu); this is the fixed version. The order of the "
        "multiplications is free, so the last bits vary: compared with a tolerance."),
    default_n=1 << 12, block=B, make_inputs=_inputs_mul_float, reference=_ref_mul_float,
    driver=_drv_mul("mul_float_kernel", np.float32), float_rtol=1e-4,
    tags=("atomics", "atomicCAS", "float", "global-memory")))

register(Entry(
    id="atomics/two-kernels", seed="004", source=SRC, kernels=("kernel0", "kernel1"),
    title="Avoid the collision by splitting the work in two kernels (kernel0 then kernel1)",
    explanation=(
        "Seed 004's Ejemplo 1: a type-0 thread adds 1 to valores[tId], a type-1 thread to "
        "valores[tId+1]. kernel0 runs only the type-0 threads and kernel1 only the type-1 "
        "threads, so within one launch no two threads touch the same element and no atomic is "
        "needed. Correct, but every thread runs in both launches and the data is read twice; "
        "the slides call it a great inefficiency."),
    default_n=1 << 12, block=B, make_inputs=_inputs_tipos, reference=_ref_tipos,
    driver=_drv_tipos(("kernel0", "kernel1")),
    tags=("atomics", "global-memory", "race-avoidance")))

register(Entry(
    id="atomics/tipos-valores", seed="004", source=SRC, kernels=("kernel",),
    title="One kernel with atomicAdd for the tipos/valores example",
    explanation=(
        "The same problem in one launch with atomicAdd. Collisions happen only where thread "
        "tId has type 1 and thread tId+1 type 0; the atomics serialize just those pairs (at "
        "most two additions on one address), and when all types are equal nothing serializes."),
    default_n=1 << 12, block=B, make_inputs=_inputs_tipos, reference=_ref_tipos,
    driver=_drv_tipos(("kernel",)),
    tags=("atomics", "global-memory")))
