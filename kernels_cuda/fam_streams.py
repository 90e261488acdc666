"""Streams family: seed 003's image inversion, split in NSTREAMS chunks.

Kernel: ``streams.cu``.  The seed's point is overlap of copies and kernels on streams,
which is a host matter; the Backend interface has no streams, so the driver runs the
seed's synchronous version: per chunk, copy in, launch, copy out.  (The seed's
"asynchronous" version copies from pageable malloc memory, so its copies cannot overlap
anyway: cudaMemcpyAsync needs pinned memory.)
"""
from __future__ import annotations

import numpy as np

from kernels_cuda.catalog import Entry, register
from kernels_cuda.fam_histogram import cdiv

SRC = "streams.cu"
NSTREAMS = 6
LARGURA = 64           # image width; the seed's is 3840 (4K)


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
