"""Exercise family: seed 001's exercise "Redução e Scan com CUDA", answer key.

Kernels: ``exercise.cu``.  As in the answer key's main(): N = 1024 values 1..N, one
block of N threads, N*sizeof(int) bytes of shared memory, a reduction and an exclusive
scan, and the total recomputed from the scan (prefixos[N-1] + entrada[N-1]).
"""
from __future__ import annotations

import numpy as np

from kernels_cuda.catalog import Entry, register
from kernels_cuda.fam_scan import exclusive_scan

SRC = "exercise.cu"


def _check_n(n: int) -> None:
    if n < 1 or n > 1024 or n & (n - 1):
        from simt.errors import UsageError
        raise UsageError(f"exercise/reduce-scan runs one block of N threads: N must be a power "
                         f"of two up to 1024, got {n}")


def _inputs(n, rng):
    return {"entrada": np.arange(1, int(n) + 1, dtype=np.int32)}  # gerar_dados: 1..N


def _reference(inp):
    x = inp["entrada"]
    p = exclusive_scan(x)
    total = np.array([x.astype(np.int64).sum()], dtype=np.int32)
    return {"soma": total, "prefixos": p,
            "soma_scan": np.array([p[-1] + x[-1]], dtype=np.int32)}


def _driver(be, inp, e):
    x = inp["entrada"]
    n = len(x)
    _check_n(n)
    d_entrada = be.to_device(x)
    d_saida = be.zeros(n, np.int32)
    d_blocos = be.zeros(1, np.int32)  # apenas 1 bloco neste exemplo
    be.launch(e.source, "kernel_reducao_soma", 1, n, [d_entrada, d_blocos, np.int32(n)],
              shared_mem=n * 4)
    be.launch(e.source, "kernel_scan_exclusivo", 1, n, [d_entrada, d_saida, np.int32(n)],
              shared_mem=n * 4)
    prefixos = be.to_host(d_saida)
    return {"soma": be.to_host(d_blocos), "prefixos": prefixos,
            "soma_scan": np.array([prefixos[-1] + x[-1]], dtype=np.int32)}


register(Entry(
    id="exercise/reduce-scan", seed="001", source=SRC,
    kernels=("kernel_reducao_soma", "kernel_scan_exclusivo"),
    title="Exercise answer key: reduction and exclusive scan of 1..1024 in one block",
    explanation=(
        "The exercise of seed 001 asks for a shared-memory reduction and a Blelloch scan; the "
        "answer key launches both with one block of N = 1024 threads on 1..N and prints "
        "sum = 524800 and the first prefixes 0 1 3 6 10 ... One block caps N at 1024, which is "
        "why the key uses 1024 where the exercise's skeleton had 2048. The statement is "
        "inconsistent: one TODO asks for inclusive prefixes (dados[0] up to dados[i]) while the "
        "text and the key compute the exclusive scan, so the total is recovered as "
        "prefixos[N-1] + entrada[N-1]."),
    default_n=1024, block=1024, make_inputs=_inputs, reference=_reference, driver=_driver,
    tags=("reduction", "scan", "shared-memory", "exercise")))
