"""Emulator versus GPU, like CuPy's ``numpy_cupy_allclose``: one test body, run once per
backend (``emulator`` and ``cuda``) for every catalog id, then the two results compared.

Every test here carries the ``gpu`` marker and the whole module skips cleanly where CuPy
is missing or sees no device:

    pytest -m gpu tests/test_gpu.py        # on the GPU machine

The comparison rules are ``simt check``'s (``kernels_cuda/crosscheck.py``): exact for
integer and fixed-order float kernels, ``entry.float_rtol`` where the order is free;
racy entries that lose updates must lose some on both backends (values not compared),
ordering races must show on the emulator and may or may not show on the GPU.
"""
from __future__ import annotations

import functools
from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.gpu

cupy = pytest.importorskip("cupy")

from kernels_cuda import catalog, crosscheck, cupy_backend  # noqa: E402

_ok, _why = cupy_backend.available()
if not _ok:
    pytest.skip(f"no CUDA device: {_why}", allow_module_level=True)

KDIR = Path(catalog.__file__).resolve().parent
BROKEN = KDIR / "broken" / "atomic_mul_float_as_written.cu"
BACKENDS = ["emulator", "cuda"]
IDS = [e.id for e in catalog.entries()]
SEED = 0


def make_backend(name: str, entry=None):
    if name == "cuda":
        return cupy_backend.CupyBackend()
    from kernels_cuda.backend import EmulatorBackend
    return EmulatorBackend(seed=SEED, policy=entry.policy if entry else "lockstep",
                           sanitize=False)


@functools.lru_cache(maxsize=None)
def outputs(backend: str, entry_id: str):
    """The test body: the entry's host driver on one backend (each pair runs once)."""
    e = catalog.get(entry_id)
    return e.run(make_backend(backend, e), e.inputs(seed=SEED))


@functools.lru_cache(maxsize=None)
def reference(entry_id: str):
    e = catalog.get(entry_id)
    return e.reference(e.inputs(seed=SEED))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("entry_id", IDS)
def test_entry_on_backend(entry_id, backend):
    """Each backend is as right as the entry promises: correct entries match the numpy
    reference, racy ones lose updates, seeds' deterministic bugs are wrong."""
    e = catalog.get(entry_id)
    out = outputs(backend, entry_id)
    ok = catalog.compare(e, out, reference(entry_id))
    if e.racy and (e.lost_updates is not None or backend == "emulator"):
        assert not ok, f"{backend}: the race lost no update this time"
    elif e.racy:
        # an ordering race: on the GPU it shows only when the timing lines up
        if ok:
            pytest.skip("the race did not show on the GPU this run (allowed)")
    else:
        assert ok == e.expect_correct, (
            f"{backend}: {'wrong' if e.expect_correct else 'unexpectedly right'}: "
            f"{crosscheck.compare_outputs(e, out, reference(entry_id))[1]}")


@pytest.mark.parametrize("entry_id", IDS)
def test_backends_agree(entry_id):
    """The same inputs give the same outputs on the emulator and the GPU (bit for bit
    unless the entry has float_rtol); racy entries: both lose updates."""
    e = catalog.get(entry_id)
    emu, dev = outputs("emulator", entry_id), outputs("cuda", entry_id)
    if e.racy:
        ref = reference(entry_id)
        assert not catalog.compare(e, emu, ref)
        if e.lost_updates is not None:
            assert not catalog.compare(e, dev, ref)
        return
    agree, detail = crosscheck.compare_outputs(e, emu, dev)
    assert agree, detail


@pytest.mark.parametrize("backend", BACKENDS)
def test_atomic_mul_float_as_written_is_rejected(backend):
    """Seed 004's float atomicMul passes a float* to atomicCAS: NVRTC refuses it, and so
    must the emulator, both naming line 13."""
    from simt.errors import CompileError
    with pytest.raises(CompileError) as info:
        if backend == "cuda":
            cupy_backend.CupyBackend().module(str(BROKEN))
        else:
            import simt
            simt.Module.from_file(BROKEN).get_function("mul_float_as_written")
    msg = str(info.value)
    assert "atomicCAS" in msg
    assert ":13" in msg


def test_timed_launch_restores_buffers():
    """Timed mode runs a launch 23 times but the outputs are those of one launch (a
    histogram that accumulates with atomicAdd would otherwise count 23x)."""
    e = catalog.get("histogram/best")
    inp = e.inputs(seed=1)
    be = cupy_backend.CupyBackend(timed=True, warmup=3, repeat=20)
    out = e.run(be, inp)
    assert catalog.compare(e, out, e.reference(inp))
    (t,) = be.launches
    assert t.ms is not None and t.ms > 0 and len(t.samples) == 20


def test_scalar_arguments_take_the_declared_type():
    """Python ints and floats become the parameter's C type (int -> int32 here)."""
    be = cupy_backend.CupyBackend()
    x = be.to_device(np.arange(1000, dtype=np.float32))
    partials = be.zeros(4, np.float32)
    counter = be.zeros(1, np.uint32)
    out = be.zeros(1, np.float32)
    be.launch("best.cu", "reduce_best", 4, 256, [x, partials, counter, out, 1000])
    assert be.to_host(out)[0] == np.float32(499500.0)
    assert be.to_host(counter)[0] == 0       # the last block resets the ticket counter


TEMPLATE_TABLE = """
__constant__ float c_w[8];
__device__ int d_calls;
template <int K>
__global__ void weigh(const float *x, float *out) {
    int i = threadIdx.x;
    float s = 0.0f;
#pragma unroll
    for (int k = 0; k < K; k++) s += c_w[k] * x[i * K + k];
    out[i] = s;
    if (i == 0) atomicAdd(&d_calls, 1);
}
"""


def test_tables_set_before_a_template_instance_reach_it(tmp_path):
    """A ``__constant__`` table written through ``get_global`` before a template kernel's
    first launch is the one that launch reads (the instance's module is compiled later,
    with its name expression: the variables are carried over), as TimingProbe.launch sets
    its symbols first; a second instance sees the same variables."""
    src = tmp_path / "tmpl.cu"
    src.write_text(TEMPLATE_TABLE)
    be = cupy_backend.CupyBackend()
    w = np.arange(1, 9, dtype=np.float32)
    be.get_global(str(src), "c_w", (8,), np.float32).set(w)
    be.get_global(str(src), "d_calls", (1,), np.int32).set(np.array([5], np.int32))
    x = np.random.default_rng(0).random(32 * 8).astype(np.float32)
    for k in (4, 8):
        out = be.zeros(32, np.float32)
        be.launch(str(src), f"weigh<{k}>", 1, 32, [be.to_device(x[:32 * k]), out])
        want = (x[:32 * k].reshape(32, k).astype(np.float64) * w[:k]).sum(1)
        assert np.allclose(be.to_host(out), want, rtol=1e-5)
    assert be.to_host(be.get_global(str(src), "d_calls", (1,), np.int32))[0] == 7


def test_unknown_kernel_and_wrong_arguments_are_usage_errors():
    from simt.errors import UsageError
    be = cupy_backend.CupyBackend()
    with pytest.raises(UsageError, match="no kernel named"):
        be.launch("best.cu", "no_such_kernel", 1, 32, [])
    with pytest.raises(UsageError, match="takes 3 arguments"):
        be.launch("best.cu", "histogram_best", 1, 32, [be.zeros(4, np.int32)])


def test_copy_bandwidth_is_plausible():
    bw = cupy_backend.copy_bandwidth()
    assert 1e11 < bw < 2e13       # 100 GB/s .. 20 TB/s


def test_run_check_rows_for_best_entries():
    rows = crosscheck.run_check(["reduction/best", "histogram/best"], timed=True)
    assert [r.id for r in rows] == ["reduction/best", "histogram/best"]
    assert all(r.ok for r in rows), crosscheck.format_check_table(rows)
    assert all(r.cuda_ms and r.cuda_ms > 0 for r in rows)
    assert "2 of 2 agree" in crosscheck.format_check_table(rows)


def test_real_table_family():
    rows = crosscheck.real_table("reduction/best", family=True, repeat=5, emulate=False)
    assert {r.id for r in rows} >= {"reduction/best", "reduction/contiguous"}
    assert all(r.measured_ms and r.gb_per_s for r in rows if not r.error)
    assert "reduction/best" in crosscheck.format_real_table(rows)
