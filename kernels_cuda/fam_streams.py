"""Streams family: seed 003's image inversion, split in NSTREAMS chunks.

Kernel: ``streams.cu``.  The seed's point is overlap of copies and kernels on streams,
which is a host matter; the Backend interface has no streams, so the drivers run the
chunks one after another (the data result is the same).  The overlap itself is the
stream simulator's business (``simt.streams``, ``simt streams``) and, on a GPU,
``kernels_cuda/streams_real.py`` (``simt streams --real``).

Three entries: ``streams/invert`` (the synchronous version), ``streams/async-pageable``
(the seed's asynchronous version as written: ``malloc`` buffers, so the copies cannot
overlap) and ``streams/async-pinned`` (fixed: ``cudaMallocHost`` buffers).

``simulate_seed`` runs the simulator with the kernel's duration estimated from the
emulator's counters: the emulator runs ``inverter_pixels`` on a chunk and the bytes its
global loads and stores touch (32-byte sectors) go to ``simt.streams.kernel_us``.
"""
from __future__ import annotations

import functools

import numpy as np

from kernels_cuda.catalog import Entry, register
from kernels_cuda.fam_histogram import cdiv

SRC = "streams.cu"
NSTREAMS = 6
LARGURA = 64           # image width; the seed's is 3840 (4K)
SEED_WIDTH, SEED_HEIGHT = 3840, 2160
BLOCK = 256
_EMULATE_MAX = 1 << 21  # pixels emulated at most per chunk; larger chunks scale linearly


def _inputs(n, rng):
    altura = max(1, int(n) // LARGURA)
    img = rng.integers(0, 256, (altura, LARGURA)).astype(np.uint8)
    img[0, 0], img[-1, -1] = 0, 255
    return {"imagem": img}


def _reference(inp):
    return {"saida": (255 - inp["imagem"]).astype(np.uint8)}


def _driver(be, inp, e):
    img = inp["imagem"]
    altura = img.shape[0]
    linhas_por_stream = cdiv(altura, NSTREAMS)   # the seed divides exactly (2160 / 6)
    out = np.empty_like(img)
    for s in range(0, altura, linhas_por_stream):
        chunk = np.ascontiguousarray(img[s:s + linhas_por_stream]).reshape(-1)
        d = be.to_device(chunk)                                     # cudaMemcpy H2D
        be.launch(e.source, "inverter_pixels", cdiv(chunk.size, e.block), e.block,
                  [d, np.int32(chunk.size)])
        out[s:s + linhas_por_stream] = be.to_host(d).reshape(-1, img.shape[1])  # D2H
    return {"saida": out}


register(Entry(
    id="streams/invert", seed="003", source=SRC, kernels=("inverter_pixels",),
    title="Invert an image in NSTREAMS chunks: copy in, kernel, copy out per chunk",
    explanation=(
        "Seed 003 splits a 4K image into 6 chunks and runs copy in, inverter_pixels (255 - v, "
        "one thread per pixel) and copy out for each, first in order, then on 6 streams so "
        "that one chunk's copies can overlap another's kernel. The kernel is trivially "
        "parallel and memory-bound; the interesting part is the host schedule. The seed's "
        "asynchronous version copies from pageable malloc() memory, so the copies cannot in "
        "fact overlap (cudaMemcpyAsync needs cudaMallocHost). Here the chunks run one after "
        "another."),
    default_n=LARGURA * 96, block=256, make_inputs=_inputs, reference=_reference,
    driver=_driver,
    tags=("streams", "image", "global-memory")))


EXPLAIN_PAGEABLE = (
    "Seed 003's asynchronous version as written: the image lives in malloc() memory, which "
    "the GPU's copy engines cannot read directly. cudaMemcpyAsync then stages each copy "
    "through a pinned bounce buffer with the CPU and returns only when it is done, so the "
    "host cannot issue the next stream's work early and nothing overlaps: the 'asynchronous' "
    "run takes as long as the synchronous one (speedup about 1). `simt streams --memory "
    "pageable` shows the timeline.")
EXPLAIN_PINNED = (
    "Seed 003's asynchronous version fixed: the host buffers come from cudaMallocHost "
    "(pinned, page-locked), so cudaMemcpyAsync returns at once and the copy engines read "
    "them by DMA. With two copy engines (H100/H200) one chunk's copy in, another's kernel "
    "and a third's copy out run at the same time; with one copy engine (the seed's Tesla "
    "C1060) copies in and out share it and the order of issue matters: depth-first "
    "(H2D0 K0 D2H0 H2D1 ...) leaves H2D1 queued behind D2H0, which waits for K0, while "
    "breadth-first (all H2D, all K, all D2H) overlaps. `simt streams --memory pinned` "
    "(and --copy-engines 1 --queues fermi --order depth|breadth) shows it.")

register(Entry(
    id="streams/async-pageable", seed="003", source=SRC, kernels=("inverter_pixels",),
    title="Seed 003's async version as written: pageable malloc buffers, so no copy can overlap",
    explanation=EXPLAIN_PAGEABLE,
    default_n=LARGURA * 96, block=256, make_inputs=_inputs, reference=_reference,
    driver=_driver,
    tags=("streams", "image", "pageable", "simt streams --memory pageable")))

register(Entry(
    id="streams/async-pinned", seed="003", source=SRC, kernels=("inverter_pixels",),
    title="Seed 003's async version fixed: pinned cudaMallocHost buffers, copies overlap kernels",
    explanation=EXPLAIN_PINNED,
    default_n=LARGURA * 96, block=256, make_inputs=_inputs, reference=_reference,
    driver=_driver,
    tags=("streams", "image", "pinned", "simt streams --memory pinned")))


# ------------------------------------------------------------------ simulation

@functools.lru_cache(maxsize=32)
def emulated_chunk_metrics(pixels: int, block: int = BLOCK) -> tuple:
    """The emulator's counters for ``inverter_pixels`` on a chunk of ``pixels`` pixels,
    as sorted (name, value) pairs.  Chunks above ``_EMULATE_MAX`` pixels are emulated at
    that size and the ``.sum`` counters scaled (per-warp ``.max``/ratio ones do not
    change with the grid)."""
    import simt
    from kernels_cuda.backend import source_path

    n = min(int(pixels), _EMULATE_MAX)
    mod = simt.Module.from_file(source_path(SRC))
    fn = mod.get_function("inverter_pixels")
    dev = simt.Device()
    img = dev.to_device(np.zeros(n, dtype=np.uint8))
    cfg = simt.LaunchConfig.of(grid=-(-n // block), block=block)
    res = fn.launch(dev, cfg, [img, np.int32(n)], sanitize=False)
    scale = pixels / n
    return tuple(sorted((k, v * scale if k.endswith(".sum") else v)
                        for k, v in res.metrics.items()))


def emulated_chunk_bytes(pixels: int, block: int = BLOCK) -> int:
    """DRAM bytes ``inverter_pixels`` moves on a chunk: (load + store sectors) * 32."""
    m = dict(emulated_chunk_metrics(int(pixels), block))
    sectors = (m.get("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", 0)
               + m.get("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", 0))
    return int(round(sectors * 32))


def _timing_profile(gpu_id):
    """simt.timing's profile for this GPU, or None where the timing model has none."""
    try:
        from simt import timing
        return timing.load_profile(gpu_id)
    except Exception:
        return None


def emulated_kernel_us(profile: dict, block: int = BLOCK):
    """``(kernel_us_of(nbytes), source)`` for ``simt.streams``: the timing model's
    prediction from the emulator's counters where ``simt.timing`` has a profile for this
    GPU, else the bytes the counters say the kernel moves over the profile's device
    bandwidth (``simt.streams.kernel_us``)."""
    from simt import streams

    tprof = _timing_profile(profile.get("id"))
    if tprof is not None:
        from simt import timing

        def predicted(nbytes):
            m = dict(emulated_chunk_metrics(int(nbytes), block))
            try:
                return timing.predict(m, -(-int(nbytes) // block), block, 0, tprof).ms * 1e3
            except Exception:
                return streams.kernel_us(emulated_chunk_bytes(int(nbytes), block), profile)
        return predicted, f"simt.timing ({tprof.name}) from the emulator's counters"
    return (lambda nbytes: streams.kernel_us(emulated_chunk_bytes(int(nbytes), block), profile),
            "emulator counters (global load + store sectors x 32 B) / dram_gbps + launch")


def simulate_seed(width: int = SEED_WIDTH, height: int = SEED_HEIGHT, nstreams: int = NSTREAMS,
                  *, memory: str = "pageable", order: str = "depth",
                  copy_engines: int | None = None, queues: str | None = None,
                  gpu=None, kernel_ms: float | None = None, emulate: bool = True):
    """Seed 003's program in the stream simulator: a ``simt.streams.Result`` (sync and
    async schedules).  Kernel durations: ``kernel_ms`` per chunk if given, else from the
    emulator's counters (``emulate=True``), else 2 bytes per pixel."""
    from simt import streams

    profile = streams.get_profile(gpu)
    if kernel_ms is not None:
        kus = lambda nbytes: float(kernel_ms) * 1e3                     # noqa: E731
        source = "given (--kernel-ms)"
    elif emulate:
        kus, source = emulated_kernel_us(profile)
    else:
        kus = None
        source = "2 bytes per pixel / dram_gbps"
    r = streams.simulate_pipeline(width, height, nstreams, memory=memory, order=order,
                                  copy_engines=copy_engines, queues=queues, gpu=profile,
                                  kernel_us_of=kus, block=BLOCK)
    r.params["kernel_time_from"] = source
    r.params["catalog_id"] = "streams/async-" + memory
    return r
