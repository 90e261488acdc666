"""The kernel catalog: every entry complete, every reference right, every kernel compiling,
and every entry giving on the emulator the answer its seed predicts.

- references against plain numpy / Python ground truths (no shared code);
- each .cu compiles with nvcc (when nvcc is on PATH) and parses in the emulator;
- seed 004's float atomicMul as written is rejected by both, with file:line:col;
- each id on ``EmulatorBackend`` with the entry's policy: ``compare`` is True for
  correct entries and False for expect_correct=False ones, the same outputs twice for a
  seed, float tree reductions bit-identical (their ``float_rtol`` is None: exact).
"""
from __future__ import annotations

import math
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from kernels_cuda import catalog
from kernels_cuda.catalog import Entry

KDIR = Path(catalog.__file__).resolve().parent
BROKEN = KDIR / "broken" / "atomic_mul_float_as_written.cu"
# the atomicCAS(address, ...) call in BROKEN: line 13, column of "atomicCAS"
BROKEN_LINE = 13

# the seed kernels' sources (other modules, e.g. fam_best, register more entries from
# their own files and test them themselves)
SEED_SOURCES = ("histogram.cu", "atomics.cu", "races.cu", "reduction.cu", "scan.cu",
                "exercise.cu", "spmv.cu", "streams.cu")
REQUIRED_IDS = (
    "histogram/naive", "histogram/atomic", "histogram/shared-local",
    "histogram/shared-local-fixed", "histogram/privatized", "histogram/coarsened",
    "histogram/aggregated", "histogram/optimized", "histogram/optimized-fixed",
    "histogram/register", "histogram/rgb", "histogram/weighted", "histogram/2d",
    "atomics/cas-add", "atomics/mul-int", "atomics/mul-float", "atomics/two-kernels",
    "atomics/tipos-valores", "reduction/interleaved", "reduction/contiguous",
    "reduction/recursive", "scan/hillis-steele", "scan/blelloch", "exercise/reduce-scan",
    "spmv/csr-scalar", "streams/invert",
    "races/case1-broken", "races/case1-fixed", "races/case2-broken", "races/case2-fixed",
    "races/case3-broken", "races/case3-fixed",
)
FLOAT_TREES = ("reduction/interleaved", "reduction/contiguous")
POLICIES = ("lockstep", "random", "round-robin")

ENTRIES = [e for e in catalog.entries() if e.source in SEED_SOURCES]
IDS = [e.id for e in ENTRIES]
CU_FILES = sorted({e.source for e in ENTRIES})


# ------------------------------------------------------------------------ completeness

def test_required_ids_present():
    missing = [i for i in REQUIRED_IDS if i not in IDS]
    assert not missing, f"missing catalog ids: {missing}"


@pytest.mark.parametrize("eid", IDS)
def test_entry_fields(eid):
    e: Entry = catalog.get(eid)
    assert e.title and "\n" not in e.title and len(e.title) <= 100
    assert e.seed in ("000", "001", "002", "003", "004", "extra")
    assert (KDIR / e.source).is_file()
    assert e.kernels and all(isinstance(k, str) and k for k in e.kernels)
    src = (KDIR / e.source).read_text()
    for k in e.kernels:
        assert re.search(rf"__global__\s+void\s+{k}\s*\(", src), f"{k} not in {e.source}"
    assert 1 <= e.default_n <= 1 << 17
    assert 32 <= e.block <= 1024 and e.block % 32 == 0
    assert callable(e.make_inputs) and callable(e.reference) and callable(e.driver)
    assert len(e.explanation) > 80
    assert e.policy in POLICIES
    if e.racy:
        assert not e.expect_correct, "a racy entry cannot be expected correct"
    if e.float_rtol is not None:
        assert 0 < e.float_rtol < 1e-2
    inp = e.inputs()
    assert inp and all(isinstance(v, np.ndarray) for v in inp.values())
    ref = e.reference(inp)
    assert ref and all(isinstance(v, np.ndarray) for v in ref.values())


@pytest.mark.parametrize("eid", IDS)
def test_inputs_seeded(eid):
    e = catalog.get(eid)
    a, b = e.inputs(seed=3), e.inputs(seed=3)
    assert a.keys() == b.keys()
    for k in a:
        np.testing.assert_array_equal(a[k], b[k])


@pytest.mark.parametrize("eid", [i for i in IDS if i.startswith("histogram/")])
def test_histogram_inputs_contain_255(eid):
    inp = catalog.get(eid).inputs()
    for k, v in inp.items():
        if v.dtype in (np.uint8, np.int32) and k != "weight":
            assert (v == 255).any(), f"{eid}: {k} has no 255"


# ------------------------------------------------------------------- ground truths

def _hist(x, bins=256):
    return np.histogram(np.asarray(x, dtype=np.int64), bins=bins, range=(0, bins))[0]


def _gt_tipos(inp):
    v = inp["valores"].astype(np.int64).tolist()
    n = len(v)
    for i, t in enumerate(inp["tipos"].tolist()):
        v[i if t == 0 else (i + 1) % n] += 1
    return {"valores": np.array(v)}


def _gt_scan(inp):
    acc, out = 0, []
    for v in inp["entrada"].tolist():
        out.append(acc)
        acc += v
    return {"saida": np.array(out)}


def _gt_float_sum(per_block):
    def gt(inp):
        x = inp["input"].astype(np.float64)
        parts = [math.fsum(x[i:i + per_block]) for i in range(0, len(x), per_block)]
        return {"partial": np.array(parts), "sum": np.array([math.fsum(x)])}
    return gt


def _gt_int_sum(inp):
    x = inp["entrada"].astype(np.int64)
    return {"partial": np.array([x[i:i + 256].sum() for i in range(0, len(x), 256)]),
            "sum": np.array([int(x.sum())])}


def _gt_mul_int(inp):
    out = []
    f = inp["factors"].tolist()
    for s in range(64):
        p = 1
        for v in f[s::64]:
            p *= v
        out.append(((p + 2**31) % 2**32) - 2**31)   # wrap to int32
    return {"products": np.array(out)}


def _gt_mul_float(inp):
    f = inp["factors"].astype(np.float64)
    return {"products": np.array([math.prod(f[s::64]) for s in range(64)])}


def _gt_weighted(inp):
    h = [0.0] * 256
    for d, w in zip(inp["data"].tolist(), inp["weight"].tolist()):
        h[d] += w
    return {"hist": np.array(h)}


def _gt_2d(inp):
    h, _, _ = np.histogram2d(inp["data_y"], inp["data_x"], bins=8, range=[[0, 256], [0, 256]])
    return {"hist2d": h}


def _gt_stencil(inp):
    x = inp["datos"].tolist()
    n = len(x)
    return {"salida": np.array([(x[i - 1] if i else 0) + x[i] + (x[i + 1] if i < n - 1 else 0)
                                for i in range(n)])}


def _gt_reverse(inp):
    x = inp["datos"].tolist()
    out = []
    for s in range(0, len(x), 256):
        seg = x[s:s + 256] + [0] * (256 - len(x[s:s + 256]))
        out.extend(seg[::-1][:len(x) - s])
    return {"salida": np.array(out)}


def _gt_spmv(inp):
    ptr, col, val, x = (inp[k] for k in ("ponteiro_linha", "indice_coluna", "valores", "vetor_x"))
    rows = len(ptr) - 1
    dense = np.zeros((rows, len(x)))
    for r in range(rows):
        for j in range(ptr[r], ptr[r + 1]):
            dense[r, col[j]] += val[j]
    return {"vetor_y": dense @ x.astype(np.float64)}


def _gt_exercise(inp):
    n = len(inp["entrada"])
    i = np.arange(n)
    return {"soma": np.array([n * (n + 1) // 2]), "prefixos": i * (i + 1) // 2,
            "soma_scan": np.array([n * (n + 1) // 2])}


GROUND_TRUTH = {
    "histogram/naive": lambda d: {"hist": _hist(d["dados"])},
    "histogram/atomic": lambda d: {"hist": _hist(d["dados"])},
    "histogram/shared-local": lambda d: {"hist": _hist(d["dados"])},
    "histogram/shared-local-fixed": lambda d: {"hist": _hist(d["dados"])},
    "histogram/naive-u8": lambda d: {"hist": _hist(d["data"])},
    "histogram/atomic-u8": lambda d: {"hist": _hist(d["data"])},
    "histogram/privatized": lambda d: {"hist": _hist(d["data"])},
    "histogram/coarsened": lambda d: {"hist": _hist(d["data"])},
    "histogram/aggregated": lambda d: {"hist": _hist(d["data"])},
    "histogram/optimized": lambda d: {"hist": _hist(d["data"])},
    "histogram/optimized-fixed": lambda d: {"hist": _hist(d["data"])},
    "histogram/register": lambda d: {"hist": _hist(d["data"] % 8, 8)},
    "histogram/rgb": lambda d: {f"hist_{c}": _hist(d["image"][i::3]) for i, c in enumerate("rgb")},
    "histogram/weighted": _gt_weighted,
    "histogram/2d": _gt_2d,
    "atomics/cas-add": lambda d: {"hist": _hist(d["data"])},
    "atomics/mul-int": _gt_mul_int,
    "atomics/mul-float": _gt_mul_float,
    "atomics/two-kernels": _gt_tipos,
    "atomics/tipos-valores": _gt_tipos,
    "races/case1-broken": _gt_stencil,
    "races/case1-fixed": _gt_stencil,
    "races/case2-broken": _gt_reverse,
    "races/case2-fixed": _gt_reverse,
    "races/case3-broken": _gt_tipos,
    "races/case3-fixed": _gt_tipos,
    "reduction/interleaved": _gt_float_sum(512),
    "reduction/contiguous": _gt_float_sum(512),
    "reduction/recursive": _gt_int_sum,
    "scan/hillis-steele": _gt_scan,
    "scan/blelloch": _gt_scan,
    "exercise/reduce-scan": _gt_exercise,
    "spmv/csr-scalar": _gt_spmv,
    "streams/invert": lambda d: {"saida": np.invert(d["imagem"])},
    "streams/async-pageable": lambda d: {"saida": np.invert(d["imagem"])},
    "streams/async-pinned": lambda d: {"saida": np.invert(d["imagem"])},
}


def test_every_entry_has_a_ground_truth():
    missing = [i for i in IDS if i not in GROUND_TRUTH]
    assert not missing, f"add an independent ground truth to GROUND_TRUTH for {missing}"


@pytest.mark.parametrize("eid", [i for i in IDS if i in GROUND_TRUTH])
@pytest.mark.parametrize("n", ["default", 1000])
def test_reference_matches_ground_truth(eid, n):
    e = catalog.get(eid)
    if n != "default" and eid == "exercise/reduce-scan":
        n = 512                       # one block: a power of two up to 1024
    inp = e.inputs(None if n == "default" else n, seed=1)
    ref, gt = e.reference(inp), GROUND_TRUTH[eid](inp)
    assert ref.keys() == gt.keys()
    for k in gt:
        r, g = np.asarray(ref[k]), np.asarray(gt[k])
        assert r.shape == g.shape, k
        if np.issubdtype(r.dtype, np.floating):
            np.testing.assert_allclose(r, g, rtol=1e-4, atol=1e-4, err_msg=k)
        else:
            np.testing.assert_array_equal(r, g, err_msg=k)


def test_float_tree_references_differ_in_pairing():
    """The two float reductions add in different orders: different last bits."""
    inp = catalog.get("reduction/interleaved").inputs()
    a = catalog.get("reduction/interleaved").reference(inp)["partial"]
    b = catalog.get("reduction/contiguous").reference(inp)["partial"]
    assert a.dtype == b.dtype == np.float32
    assert not np.array_equal(a, b)
    np.testing.assert_allclose(a, b, rtol=1e-5)


def test_lost_updates_counts_histogram_shortfall():
    e = catalog.get("histogram/naive")
    ref = e.reference(e.inputs())
    out = {"hist": ref["hist"].copy()}
    out["hist"][3] -= 5
    assert e.lost_updates(out, ref) == 5


# ------------------------------------------------------------------------ compilation

nvcc = shutil.which("nvcc")


@pytest.mark.skipif(nvcc is None, reason="nvcc not on PATH")
@pytest.mark.parametrize("cu", CU_FILES)
def test_cu_compiles_with_nvcc(cu, tmp_path):
    r = subprocess.run([nvcc, "-arch=sm_90", "-c", str(KDIR / cu), "-o", str(tmp_path / "k.o")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


@pytest.mark.skipif(nvcc is None, reason="nvcc not on PATH")
def test_broken_atomic_mul_rejected_by_nvcc(tmp_path):
    r = subprocess.run([nvcc, "-arch=sm_90", "-c", str(BROKEN), "-o", str(tmp_path / "k.o")],
                       capture_output=True, text=True)
    assert r.returncode != 0
    assert f"({BROKEN_LINE}): error" in r.stderr and "atomicCAS" in r.stderr


@pytest.mark.parametrize("cu", CU_FILES)
def test_cu_parses_in_emulator(cu):
    import simt
    mod = simt.Module.from_file(KDIR / cu)
    names = {k for e in ENTRIES if e.source == cu for k in e.kernels}
    for k in sorted(names):
        fn = mod.get_function(k)
        assert fn.params, k


def test_broken_atomic_mul_rejected_by_emulator():
    import simt
    with pytest.raises(simt.SimtError) as err:
        simt.Module.from_file(BROKEN).get_function("mul_float_as_written")
    msg = str(err.value)
    assert f"atomic_mul_float_as_written.cu:{BROKEN_LINE}:" in msg, msg
    assert "atomicCAS" in msg, msg


# ---------------------------------------------------------------- on the emulator

def _run(e: Entry, n=None, seed=0):
    from kernels_cuda.backend import EmulatorBackend
    be = EmulatorBackend(seed=seed, policy=e.policy)
    inp = e.inputs(n)
    out = e.run(be, inp)
    return inp, out, be


@pytest.mark.parametrize("eid", IDS)
def test_entry_on_emulator(eid):
    e = catalog.get(eid)
    inp, out, be = _run(e)
    ref = e.reference(inp)
    assert set(out) == set(ref)
    for k in ref:
        assert np.asarray(out[k]).dtype == np.asarray(ref[k]).dtype, k
    ok = catalog.compare(e, out, ref)
    assert ok == e.expect_correct, (
        f"{eid}: compare={ok}, expected {e.expect_correct}; "
        + (f"lost={e.lost_updates(out, ref)}" if e.lost_updates else ""))
    if e.lost_updates and not e.expect_correct:
        assert e.lost_updates(out, ref) > 0
    # deterministic for a seed: a fresh run gives the same outputs
    _, out2, _ = _run(e)
    for k in ref:
        np.testing.assert_array_equal(out[k], out2[k], err_msg=f"{eid}: {k} differs between runs")


@pytest.mark.parametrize("eid", FLOAT_TREES)
def test_float_tree_bit_identical(eid):
    e = catalog.get(eid)
    assert e.float_rtol is None
    inp, out, _ = _run(e)
    ref = e.reference(inp)
    for k in ref:
        assert out[k].dtype == np.float32
        assert out[k].tobytes() == ref[k].tobytes(), k


@pytest.mark.parametrize("eid", [e.id for e in ENTRIES if e.expect_correct and e.family != "exercise"])
def test_correct_entry_on_odd_size(eid):
    """Tails: n not a multiple of the block."""
    e = catalog.get(eid)
    inp, out, _ = _run(e, n=1000)
    assert catalog.compare(e, out, e.reference(inp))


@pytest.mark.parametrize("eid", ["races/case1-broken", "races/case2-broken"])
def test_between_warp_races_hide_in_lockstep(eid):
    """Why cases 1 and 2 use the random policy: in lockstep every warp finishes an
    instruction before the next starts, so all reads precede all writes."""
    from kernels_cuda.backend import EmulatorBackend
    e = catalog.get(eid)
    inp = e.inputs()
    out = e.run(EmulatorBackend(seed=0, policy="lockstep"), inp)
    assert catalog.compare(e, out, e.reference(inp))


def test_spmv_seed_example():
    from kernels_cuda.backend import EmulatorBackend
    from kernels_cuda.fam_spmv import EXAMPLE
    e = catalog.get("spmv/csr-scalar")
    out = e.run(EmulatorBackend(seed=0, policy=e.policy), EXAMPLE)
    np.testing.assert_array_equal(out["vetor_y"], np.array([3, 7, 5], np.float32))


def test_exercise_prints_the_answer_key_values():
    e = catalog.get("exercise/reduce-scan")
    _, out, _ = _run(e)
    assert out["soma"][0] == 524800 and out["soma_scan"][0] == 524800
    assert out["prefixos"][:6].tolist() == [0, 1, 3, 6, 10, 15]


@pytest.mark.parametrize("eid", ["histogram/shared-local", "races/case2-broken"])
def test_racecheck_reports_shared_races(eid):
    """compute-sanitizer racecheck reports hazards for these on an H200; so must simt."""
    e = catalog.get(eid)
    _, _, be = _run(e)
    tools = {f.tool for res in be.launches for f in res.sanitizer}
    assert "racecheck" in tools, [f.as_dict() for res in be.launches for f in res.sanitizer]


@pytest.mark.parametrize("eid", ["histogram/shared-local-fixed", "races/case2-fixed",
                                 "reduction/contiguous", "scan/blelloch"])
def test_racecheck_quiet_on_fixed_kernels(eid):
    e = catalog.get(eid)
    _, _, be = _run(e)
    races = [f.as_dict() for res in be.launches for f in res.sanitizer if f.tool == "racecheck"]
    assert not races, races


@pytest.mark.parametrize("n", [1000, 2048])
def test_exercise_rejects_sizes_one_block_cannot_scan(n):
    import simt
    from kernels_cuda.backend import EmulatorBackend
    e = catalog.get("exercise/reduce-scan")
    with pytest.raises(simt.UsageError, match="power of two up to 1024"):
        e.run(EmulatorBackend(seed=0, policy=e.policy), e.inputs(n))


# ------------------------------------------------------- seed kernels kept as written

SEEDS = Path(__file__).resolve().parents[2] / "shared" / "seeds"
AS_WRITTEN = (
    [("000", "histogram.cu", k) for k in ("histograma_ingenuo", "histograma_atomico",
                                          "histograma_compartilhado")]
    + [("001", "reduction.cu", "reduceShared"), ("001", "scan.cu", "scan_simples"),
       ("001", "scan.cu", "scan_otimizado"), ("001", "exercise.cu", "kernel_reducao_soma"),
       ("001", "exercise.cu", "kernel_scan_exclusivo")]
    + [("002", "histogram.cu", k) for k in ("histogram_naive", "histogram_atomic",
                                            "histogram_privatized", "histogram_coarsened",
                                            "histogram_aggregated", "histogram_optimized",
                                            "histogram_register")]
    + [("002", "atomics.cu", "atomicAdd_manual"),
       ("003", "spmv.cu", "multiplicar_csr_kernel"), ("003", "streams.cu", "inverter_pixels")]
    + [("004", "atomics.cu", k) for k in ("atomicMul", "kernel0", "kernel1", "kernel")]
    + [("004", "broken/atomic_mul_float_as_written.cu", "atomicMul")]
)


def _code_of(text: str, name: str) -> list[str]:
    """Every __global__/__device__ function ``name`` in ``text``, comments and
    whitespace normalised away."""
    out = []
    for m in re.finditer(rf"(?:__global__|__device__)\s+[\w\s*]*?\b{name}\s*\(", text):
        depth, j = 0, text.index("{", m.end())
        for j in range(j, len(text)):
            depth += {"{": 1, "}": -1}.get(text[j], 0)
            if depth == 0:
                break
        code = re.sub(r"/\*.*?\*/", " ", text[m.start():j + 1], flags=re.S)
        code = re.sub(r"//[^\n]*", " ", code)
        out.append(re.sub(r"\s+", " ", code).strip())
    return out


@pytest.mark.skipif(not SEEDS.is_dir(), reason="seeds not beside the checkout")
@pytest.mark.parametrize("seed,cu,name", AS_WRITTEN)
def test_seed_kernel_kept_as_written(seed, cu, name):
    seed_text = next(SEEDS.glob(f"{seed}_*.txt")).read_text(encoding="utf-8")
    ours = _code_of((KDIR / cu).read_text(encoding="utf-8"), name)
    theirs = _code_of(seed_text, name)
    assert ours and theirs
    for code in ours:
        assert code in theirs, f"{cu}:{name} differs from seed {seed}"


def test_atomic_mul_products_stay_meaningful_at_large_sizes():
    """The atomicMul entries' inputs keep every slot's product changing over 2^24 factors:
    odd int factors are invertible mod 2^32 (never 0), and the float factors' logarithms
    have no drift (no underflow to a fixed point), so the check compares real numbers."""
    from kernels_cuda import catalog
    for eid in ("atomics/mul-int", "atomics/mul-float"):
        e = catalog.get(eid)
        inp = e.inputs(n=1 << 24, seed=0)
        p = e.reference(inp)["products"].astype(np.float64)
        assert np.all(p != 0) and np.all(np.isfinite(p)), eid
        if eid.endswith("float"):
            assert np.all(np.abs(np.log(np.abs(p))) < 60)
