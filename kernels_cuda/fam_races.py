"""Races family: seed 004's three kinds of race condition, each as a broken kernel and
its fix (double buffer, __syncthreads(), atomics).  Kernels: ``races.cu``.

Cases 1 and 2 are races *between warps*: in the emulator's lockstep policy every warp
finishes an instruction before any warp starts the next, so all reads happen before all
writes and the race hides, exactly as it may hide on a GPU on a lucky day.  They run
under the seeded ``random`` policy, which interleaves warps one instruction at a time.
Case 3 collides *inside* a warp and shows under any policy.
"""
from __future__ import annotations

import numpy as np

from kernels_cuda.catalog import Entry, register
from kernels_cuda.fam_atomics import _inputs_tipos, _ref_tipos
from kernels_cuda.fam_histogram import cdiv

SRC = "races.cu"
B = 256                # TAM_BLOQUE in races.cu
N_RACE = 1 << 12


def _inputs_datos(n, rng):
    return {"datos": rng.integers(0, 100, int(n)).astype(np.int32)}


def _ref_stencil(inp):
    x = inp["datos"].astype(np.int64)
    left = np.concatenate([[0], x[:-1]])
    right = np.concatenate([x[1:], [0]])
    return {"salida": (left + x + right).astype(np.int32)}


def _ref_reverse_blocks(inp):
    x = inp["datos"]
    n = len(x)
    pad = (-n) % B
    m = np.concatenate([x, np.zeros(pad, x.dtype)]).reshape(-1, B)
    return {"salida": m[:, ::-1].reshape(-1)[:n].astype(np.int32)}


def _drv_case1_broken(be, inp, e):
    n = len(inp["datos"])
    datos = be.to_device(inp["datos"])
    be.launch(e.source, "race_case1_broken", cdiv(n, e.block), e.block, [datos, np.int32(n)])
    return {"salida": be.to_host(datos)}


def _drv_in_out(kernel):
    def driver(be, inp, e):
        n = len(inp["datos"])
        entrada = be.to_device(inp["datos"])
        salida = be.zeros(n, np.int32)
        be.launch(e.source, kernel, cdiv(n, e.block), e.block, [entrada, salida, np.int32(n)])
        return {"salida": be.to_host(salida)}
    return driver


def _drv_case3(kernel):
    def driver(be, inp, e):
        n = len(inp["tipos"])
        tipos = be.to_device(inp["tipos"])
        valores = be.to_device(inp["valores"])
        be.launch(e.source, kernel, cdiv(n, e.block), e.block, [tipos, valores, np.int32(n)])
        return {"valores": be.to_host(valores)}
    return driver


def _lost_valores(out, ref) -> int:
    return int(ref["valores"].astype(np.int64).sum() - out["valores"].astype(np.int64).sum())


register(Entry(
    id="races/case1-broken", seed="004", source=SRC, kernels=("race_case1_broken",),
    title="Race case 1: in-place stencil reads neighbours that other threads overwrite",
    explanation=(
        "Seed 004, case 1: a thread reads data owned by other threads and writes its own. Here "
        "datos[i] = datos[i-1] + datos[i] + datos[i+1], in place. Inside a warp the lanes load "
        "before they store, so a warp is consistent with itself; but the first lane of a warp "
        "reads datos[i-1] from the previous warp, which may already have stored its new value "
        "(and likewise at the last lane). Wrong values therefore appear at warp boundaries, "
        "and which ones depends on the schedule. Run with the random policy: in lockstep all "
        "warps read before any writes and the bug hides."),
    default_n=N_RACE, block=B, make_inputs=_inputs_datos, reference=_ref_stencil,
    driver=_drv_case1_broken, expect_correct=False, racy=True, policy="random",
    tags=("race", "global-memory", "stencil")))

register(Entry(
    id="races/case1-fixed", seed="004", source=SRC, kernels=("race_case1_fixed",),
    title="Race case 1 fixed with a double buffer: read entrada, write salida",
    explanation=(
        "Seed 004's answer to case 1: a double buffer. Every thread reads the old values from "
        "one array and writes the new values to another, so no write can be seen by a read of "
        "the same step, whatever the schedule. Iterative stencils swap the two pointers "
        "between launches."),
    default_n=N_RACE, block=B, make_inputs=_inputs_datos, reference=_ref_stencil,
    driver=_drv_in_out("race_case1_fixed"), policy="random",
    tags=("race-avoidance", "global-memory", "stencil")))

register(Entry(
    id="races/case2-broken", seed="004", source=SRC, kernels=("race_case2_broken",),
    title="Race case 2: reading shared memory other warps write, with no __syncthreads()",
    explanation=(
        "Seed 004, case 2: threads write shared memory that other threads of the block read. "
        "Each block reverses its 256 elements through a shared tile: thread t stores tile[t] "
        "and loads tile[255 - t], which belongs to another warp. Without a barrier nothing "
        "guarantees that warp has stored yet, so some threads read stale or uninitialised "
        "shared memory. racecheck reports the read-after-write hazard between the two lines. "
        "Run with the random policy: in lockstep every warp stores before any warp loads."),
    default_n=N_RACE, block=B, make_inputs=_inputs_datos, reference=_ref_reverse_blocks,
    driver=_drv_in_out("race_case2_broken"), expect_correct=False, racy=True, policy="random",
    tags=("race", "shared-memory", "barrier")))

register(Entry(
    id="races/case2-fixed", seed="004", source=SRC, kernels=("race_case2_fixed",),
    title="Race case 2 fixed with __syncthreads() between the writes and the reads",
    explanation=(
        "Seed 004's answer to case 2: __syncthreads(). No thread of the block passes the "
        "barrier until every thread has reached it, so every store to the tile lands before "
        "any load from it."),
    default_n=N_RACE, block=B, make_inputs=_inputs_datos, reference=_ref_reverse_blocks,
    driver=_drv_in_out("race_case2_fixed"), policy="random",
    tags=("race-avoidance", "shared-memory", "barrier")))

register(Entry(
    id="races/case3-broken", seed="004", source=SRC, kernels=("race_case3_broken",),
    title="Race case 3: different threads read-modify-write the same element",
    explanation=(
        "Seed 004, case 3: different threads must update the same datum, and it is not a "
        "reduction. Thread tId adds 1 to valores[tId] (type 0) or valores[tId+1] (type 1) "
        "with a plain +=. Where thread tId is type 1 and thread tId+1 type 0, both load the "
        "same old value and both store old+1: lanes of one warp store together and the "
        "stores collapse, so one update is lost in every such pair. Double buffering does "
        "not help (nobody reads the result) and __syncthreads() does not either (the threads "
        "may be in different blocks)."),
    default_n=N_RACE, block=B, make_inputs=_inputs_tipos, reference=_ref_tipos,
    driver=_drv_case3("race_case3_broken"), expect_correct=False, racy=True,
    lost_updates=_lost_valores,
    tags=("race", "global-memory")))

register(Entry(
    id="races/case3-fixed", seed="004", source=SRC, kernels=("race_case3_fixed",),
    title="Race case 3 fixed with atomicAdd",
    explanation=(
        "Seed 004's answer to case 3 ('Solución: ???') is atomic operations: atomicAdd makes "
        "each read-modify-write indivisible, so colliding threads are serialized instead of "
        "overwriting each other. Only the colliding pairs pay for it."),
    default_n=N_RACE, block=B, make_inputs=_inputs_tipos, reference=_ref_tipos,
    driver=_drv_case3("race_case3_fixed"),
    tags=("race-avoidance", "atomics", "global-memory")))
