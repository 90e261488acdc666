"""The best variants (kernels_cuda/best.cu, fam_best.py) and the CuPy backend's pieces
that need no GPU: references, launch plans, signature parsing, comparisons, and each
best entry on the emulator (bit-identical to its float32 order-replaying reference).
"""
from __future__ import annotations

import math
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from kernels_cuda import catalog

catalog.entries()      # load every family before importing one module directly

from kernels_cuda import crosscheck, cupy_backend, fam_best  # noqa: E402

KDIR = Path(catalog.__file__).resolve().parent
BEST_IDS = ["reduction/best", "scan/decoupled-lookback", "histogram/best", "spmv/csr-vector"]


def _emulator_ready() -> bool:
    try:
        import simt
        return hasattr(simt, "Module") and hasattr(simt, "Device")
    except Exception:
        return False


needs_emulator = pytest.mark.skipif(not _emulator_ready(), reason="simt emulator not importable yet")


def test_best_entries_registered():
    ids = {e.id for e in catalog.entries()}
    assert set(BEST_IDS) <= ids
    for i in BEST_IDS:
        e = catalog.get(i)
        assert e.source == "best.cu" and e.seed == "extra" and e.default_n <= 1 << 17


# ------------------------------------------------------------------ references

@pytest.mark.parametrize("n", [0, 1, 3, 5, 4096, 70_001, 1 << 18])
def test_reduce_reference_is_close_to_exact_sum(n):
    x = np.random.default_rng(n).standard_normal(n, dtype=np.float32)
    got = float(fam_best.reduce_best_reference(x))
    exact = math.fsum(x.astype(np.float64))
    assert abs(got - exact) <= 1e-6 * max(1.0, float(np.abs(x).sum()))


def test_reduce_reference_follows_the_grid():
    # different grids add in different orders: the reference must change with the grid
    x = np.random.default_rng(0).standard_normal(1 << 16, dtype=np.float32)
    sums = {float(fam_best.reduce_best_reference(x, grid=g)) for g in (1, 2, 3, 16)}
    assert len(sums) > 1


def test_spmv_reference_is_close_to_float64():
    inp = fam_best._inputs_spmv(600, np.random.default_rng(0))
    y = fam_best.spmv_vector_reference(inp)
    ptr = inp["row_ptr"]
    rows = np.repeat(np.arange(len(ptr) - 1), np.diff(ptr))
    y64 = np.bincount(rows, weights=inp["vals"].astype(np.float64) * inp["x"][inp["col_idx"]],
                      minlength=len(ptr) - 1)
    np.testing.assert_allclose(y, y64, rtol=1e-4, atol=1e-4)


def test_spmv_plan_covers_every_row_once():
    inp = fam_best._inputs_spmv(600, np.random.default_rng(0))
    plan = fam_best.spmv_plan(inp["row_ptr"])
    rows = np.concatenate([p.rows for p in plan])
    assert sorted(rows.tolist()) == list(range(600))
    groups = [p.group for p in plan]
    assert all(g & (g - 1) == 0 and 1 <= g <= 1024 for g in groups)
    assert len(plan) == 2 and groups[1] > 32          # the long rows: several warps per row
    short, long_ = plan
    assert not short.use_rows and short.count == 600  # all rows in order, long ones skipped
    lengths = np.diff(inp["row_ptr"])
    assert (lengths[long_.rows] > short.max_len).all()
    assert (lengths[short.rows] <= short.max_len).all()
    assert long_.use_rows and long_.count == len(long_.rows)


@pytest.mark.parametrize("rows,length,group", [(1 << 22, 16, 4), (8192, 8192, 32),
                                               (1024, 65536, 128)])
def test_spmv_plan_uniform_rows(rows, length, group):
    ptr = np.arange(rows + 1, dtype=np.int64) * length
    (p,) = fam_best.spmv_plan(ptr)
    assert len(p.rows) == rows and p.group == group and not p.use_rows


def test_best_cu_compiles_with_nvcc(tmp_path):
    if not shutil.which("nvcc"):
        pytest.skip("nvcc not on PATH")
    p = subprocess.run(["nvcc", "-arch=sm_90", "-cubin", "-Xptxas", "-v",
                        "-o", str(tmp_path / "best.cubin"), str(KDIR / "best.cu")],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert "error" not in p.stderr.lower()


# ------------------------------------------------------------------ backend pieces

def test_available_is_a_tuple_with_a_reason():
    ok, why = cupy_backend.available()
    assert isinstance(ok, bool) and isinstance(why, str) and why


def test_kernel_params_from_source():
    text = (KDIR / "best.cu").read_text()
    ps = cupy_backend.kernel_params(text, "spmv_csr_vector")
    assert [p.name for p in ps] == ["rows", "use_rows", "count", "max_len", "row_ptr",
                                    "col_idx", "vals", "x", "y", "group"]
    assert [p.is_pointer for p in ps] == [True, False, False, False, True, True, True, True,
                                          True, False]
    assert [p.is_const for p in ps] == [True, False, False, False, True, True, True, True,
                                        False, False]
    assert ps[1].dtype == np.int32 and ps[7].dtype == np.float32
    ps = cupy_backend.kernel_params(
        "extern \"C\" __global__ void k(unsigned int n, const unsigned char *d, float s[], "
        "long long q) {}", "k")
    assert [(p.name, p.is_pointer, p.is_const, p.dtype) for p in ps] == [
        ("n", False, False, np.dtype(np.uint32)), ("d", True, True, np.dtype(np.uint8)),
        ("s", True, False, np.dtype(np.float32)), ("q", False, False, np.dtype(np.int64))]
    assert cupy_backend.kernel_params("int main() {}", "k") is None


def test_kernel_params_of_every_catalog_kernel():
    for e in catalog.entries():
        text = (KDIR / e.source).read_text()
        for k in e.kernels:
            ps = cupy_backend.kernel_params(text, k)
            assert ps is not None, f"{e.source}: {k}"
            assert all(p.dtype is not None for p in ps), f"{e.source}: {k}: {ps}"


def test_nvrtc_log_names_the_file():
    log = cupy_backend._nvrtc_log(
        "/tmp/tmpab12/kern.cu(13): error: no instance of overloaded function \"atomicCAS\"",
        "kernels_cuda/broken/x.cu")
    assert log.startswith("kernels_cuda/broken/x.cu:13: error: no instance")


def test_throughput_figures():
    t = cupy_backend.throughput(2.0, 1000, 4_000_000, 4e12)
    assert t["elements_per_s"] == pytest.approx(5e5)
    assert t["gb_per_s"] == pytest.approx(2.0)
    assert t["frac_copy_bw"] == pytest.approx(5e-4)
    assert cupy_backend.throughput(None, 1, 1, 1)["gb_per_s"] is None


def test_cupy_backend_without_gpu_is_a_usage_error():
    ok, _ = cupy_backend.available()
    if ok:
        pytest.skip("a GPU is present")
    from simt.errors import UsageError
    with pytest.raises(UsageError, match="needs a CUDA GPU"):
        cupy_backend.CupyBackend()
    with pytest.raises(UsageError):
        crosscheck.run_check(["histogram/best"])


def test_compare_outputs_rules():
    exact = catalog.get("histogram/best")
    tol = catalog.get("scan/decoupled-lookback")
    a = {"y": np.array([1.0, 2.0, np.nan], np.float32)}
    b = {"y": np.array([1.0, 2.0000002, np.nan], np.float32)}
    assert crosscheck.compare_outputs(tol, a, b) == (True, "")
    ok, detail = crosscheck.compare_outputs(exact, a, b)
    assert not ok and "1 of 3 differ" in detail and "[1]" in detail
    ok, detail = crosscheck.compare_outputs(exact, {"h": np.zeros(3)}, {"h": np.zeros(4)})
    assert not ok and "shape" in detail


def test_select_family_and_ids():
    fam = crosscheck.select(["spmv"])
    assert {e.id for e in fam} >= {"spmv/csr-scalar", "spmv/csr-vector"}
    assert [e.id for e in crosscheck.select(["histogram/best"])] == ["histogram/best"]


# ------------------------------------------------------------------ on the emulator

@needs_emulator
@pytest.mark.parametrize("entry_id", BEST_IDS)
def test_best_entry_on_emulator(entry_id):
    from kernels_cuda.backend import EmulatorBackend
    e = catalog.get(entry_id)
    inp = e.inputs(seed=0)
    out = e.run(EmulatorBackend(seed=0, policy=e.policy, sanitize=True), inp)
    ref = e.reference(inp)
    assert catalog.compare(e, out, ref), crosscheck.compare_outputs(e, out, ref)[1]


@needs_emulator
@pytest.mark.parametrize("policy", ["random", "round-robin"])
def test_scan_lookback_under_other_schedules(policy):
    """The look-back spins on flags of earlier tiles: it must finish and be right under
    interleaved schedules too."""
    from kernels_cuda.backend import EmulatorBackend
    e = catalog.get("scan/decoupled-lookback")
    inp = e.inputs(n=9000, seed=2)
    out = e.run(EmulatorBackend(seed=3, policy=policy, sanitize=False), inp)
    assert catalog.compare(e, out, e.reference(inp))
