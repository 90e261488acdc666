"""The emulator vs Nsight Compute / compute-sanitizer cross-check (kernels_cuda/ncu_check.py).

CPU tests: the parsers on real output recorded on an H200 (tests/data/ncu_check/: ncu's raw
CSV page, compute-sanitizer racecheck/memcheck/synccheck text with the worker's markers),
and the emulator held against those recorded values.  GPU tests (``-m gpu``): the whole
check on a small subset, skipped without CuPy, a device, ncu or compute-sanitizer.
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from kernels_cuda import ncu_check as N
from kernels_cuda import probes as P
from simt import counters as C

DATA = Path(__file__).resolve().parent / "data" / "ncu_check"


# ------------------------------------------------------------------ ncu CSV

def test_parse_ncu_raw_page():
    launches = N.parse_ncu_csv((DATA / "ncu_raw_page.csv").read_text())
    assert [d["kernel"] for d in launches] == ["histograma_ingenuo", "histograma_atomico",
                                                "histograma_compartilhado",
                                                "histograma_compartilhado_atomico"]
    assert [d["id"] for d in launches] == [0, 1, 2, 3]
    m = launches[0]["metrics"]
    for name in N.EXACT:
        assert name in m, name
    # 256 warps: dados[i] (4 sectors each) and histograma[chunk]++ (a gather and a scatter
    # over the same sectors)
    assert m[C.REQ_LD] == 512 and m[C.REQ_ST] == 256
    assert m[C.SECT_LD] == 256 * 4 + m[C.SECT_ST]
    assert launches[0]["grid"] == "(32, 1, 1)" and launches[0]["block"] == "(256, 1, 1)"
    # thousands separators ("1,980,000") and text attributes are handled
    assert m["device__attribute_clock_rate"] == 1980000
    assert m[C.RATIO] == 32


def test_parse_ncu_details_page_and_noise():
    text = ('==PROF== Connected to process 1\nnoise\n'
            '"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream",'
            '"Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit",'
            '"Metric Value"\n'
            '"0","1","p","h","k1","1","7","(64, 1, 1)","(2, 1, 1)","0","9.0","Command line profiler '
            'metrics","l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum","sector","1,024"\n'
            '"0","1","p","h","k1","1","7","(64, 1, 1)","(2, 1, 1)","0","9.0","Command line profiler '
            'metrics","smsp__thread_inst_executed_per_inst_executed.ratio","","31.50"\n'
            '"1","1","p","h","k2(int *)","1","7","(64, 1, 1)","(2, 1, 1)","0","9.0","S",'
            '"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum","sector","n/a"\n')
    out = N.parse_ncu_csv(text)
    assert [d["kernel"] for d in out] == ["k1", "k2"]
    assert out[0]["metrics"] == {C.SECT_LD: 1024, C.RATIO: 31.5}
    assert out[1]["metrics"] == {}
    assert N.parse_ncu_csv("==PROF== nothing profiled\n") == []


def _recorded_ncu(tmp_path) -> Path:
    raw = tmp_path / "raw"
    raw.mkdir()
    shutil.copy(DATA / "ncu_raw_page.csv", raw / "ncu_0.csv")
    shutil.copy(DATA / "ncu_manifest.json", raw / "ncu_manifest_0.json")
    return raw


def test_load_ncu_matches_manifest_launches(tmp_path):
    by_item, info = N.load_ncu(_recorded_ncu(tmp_path))
    assert list(by_item) == ["histogram/naive", "histogram/atomic", "histogram/shared-local",
                             "histogram/shared-local-fixed"]
    assert all(len(v) == 1 and v[0] is not None for v in by_item.values())
    assert info["skipped_ncu_rows"] == 0 and info["ncu_launches"] == 4


def test_emulator_equals_recorded_ncu(tmp_path):
    """The emulator's counters against ncu's, recorded on an H200 for the same driver run:
    every exact metric equal, or a mismatch the table explains."""
    rep = N.ncu_check(["histogram/naive", "histogram/atomic", "histogram/shared-local",
                       "histogram/shared-local-fixed"], raw_dir=_recorded_ncu(tmp_path))
    s = rep.summary()
    assert s["exact_missing"] == 0
    assert rep.ok, [r for r in rep.mismatches if not r.note]
    # the shared-memory counters of the racy privatized histogram, exactly
    for m in (C.SHARED_LD, C.SHARED_ST, C.WAVES_LD, C.WAVES_ST, C.CONFL_LD, C.CONFL_ST):
        row = next(r for r in rep.rows if r.id == "histogram/shared-local" and r.metric == m)
        assert row.equal, row
    md = rep.markdown("cmd")
    assert "| histogram/shared-local | 0 | histograma_compartilhado |" in md
    d = rep.as_dict(compact=True)
    assert d["columns"][:6] == ["id", "launch", "kernel", "metric", "emulator", "ncu"]
    json.dumps(d)


def test_explanations():
    assert N.explain("reduction/contiguous", "reduceSharedContiguous", C.SHARED_LD).startswith(
        "compiler/predication")
    assert N.explain("probe:atomic_red4", "atomic_red4", C.SECT_RED).startswith("hardware")
    assert N.explain("histogram/privatized", "histogram_privatized", C.SECT_LD) == ""


# ------------------------------------------------------------------ compute-sanitizer text

def test_parse_racecheck():
    reps = N.parse_sanitizer((DATA / "racecheck.txt").read_text(), "racecheck")
    hs = reps["histogram/shared-local"]
    kinds = {r["kind"] for r in hs}
    assert {"RAW", "WAR", "WAW", "race"} <= kinds
    assert all(r["line"] == 54 and r["line2"] == 54 for r in hs if r["kind"] != "summary")
    assert any(r.get("warp_level") for r in hs if r["kind"] == "WAR")
    ana = [r for r in hs if r["kind"] == "race"]
    assert {(r["access"], r["count"]) for r in ana} == {("Write/Read", 9632), ("Write/Write", 10904)}
    raw = [r for r in reps["probe:race_raw"] if r["kind"] == "race"]
    assert [(r["access"], r["line2"], r["line"], r["count"], r["kernel"]) for r in raw] == \
        [("Write/Read", 261, 262, 256, "race_raw")]
    war = [r for r in reps["probe:race_war"] if r["kind"] == "WAR"]
    assert war and all((r["line2"], r["line"]) == (280, 281) for r in war)
    assert [r for r in reps["probe:uninit_shared"] if r["kind"] != "summary"] == []


def test_parse_memcheck_and_synccheck():
    mem = N.parse_sanitizer((DATA / "memcheck_fatal.txt").read_text(), "memcheck")
    g = [r for r in mem["probe:oob_global_write"] if r["kind"].startswith("invalid")]
    assert g[0]["kind"] == "invalid __global__ write" and g[0]["line"] == 301
    assert g[0]["thread"] == "by thread (32,0,0) in block (0,0,0)" and not g[0]["misaligned"]
    assert any(r["kind"] == "api error" for r in mem["probe:oob_global_write"])
    s = [r for r in mem["probe:oob_shared_write"] if r["kind"].startswith("invalid")]
    assert s[0]["kind"] == "invalid __shared__ write" and s[0]["line"] == 308
    m = [r for r in mem["probe:misaligned_load"] if r["kind"].startswith("invalid")]
    assert m[0]["kind"] == "invalid __global__ read" and m[0]["misaligned"] and m[0]["line"] == 316
    sync = N.parse_sanitizer((DATA / "synccheck_fatal.txt").read_text(), "synccheck")
    b = [r for r in sync["probe:divergent_barrier"] if r["kind"] == "barrier"]
    assert b and b[0]["line"] == 323 and b[0]["kernel"] == "divergent_barrier"


def test_emulator_sanitizer_agrees_with_recorded(tmp_path):
    raw = tmp_path / "raw"
    raw.mkdir()
    shutil.copy(DATA / "racecheck.txt", raw / "racecheck.txt")
    shutil.copy(DATA / "memcheck_fatal.txt", raw / "memcheck_fatal.txt")
    shutil.copy(DATA / "synccheck_fatal.txt", raw / "synccheck_fatal.txt")
    ids = ["histogram/shared-local", "races/case2-broken", "probe:race_raw", "probe:race_waw",
           "probe:race_war", "probe:uninit_shared", "probe:oob_global_write",
           "probe:oob_shared_write", "probe:misaligned_load", "probe:divergent_barrier"]
    rep = N.sanitizer_check(ids, raw_dir=raw)
    by = {(r.id, r.tool): r for r in rep.rows}
    for it in ("probe:race_raw", "probe:race_waw", "probe:race_war", "races/case2-broken"):
        assert by[(it, "racecheck")].agree and by[(it, "racecheck")].lines_agree, by[(it, "racecheck")]
    for it in ("probe:oob_global_write", "probe:oob_shared_write", "probe:misaligned_load"):
        assert by[(it, "memcheck")].agree and by[(it, "memcheck")].lines_agree, by[(it, "memcheck")]
    assert by[("probe:divergent_barrier", "synccheck")].agree
    # same race, lines and hazard kinds: a racy catalog item's findings come from the
    # seeded random schedule, whose drifting warps show RAW as the GPU's do (lockstep
    # would show WAR/WAW only)
    hs = by[("histogram/shared-local", "racecheck")]
    assert hs.lines_agree and hs.kinds_agree, hs
    assert hs.emulator.startswith("RAW 54->54") and "WAR 54->54" in hs.emulator, hs
    assert rep.ok
    assert "probe:race_raw" in rep.markdown()
    json.dumps(rep.as_dict())


# ------------------------------------------------------------------ items, probes

def test_select_items():
    assert N.select_items(["probe:race_*"]) == ["probe:race_raw", "probe:race_waw", "probe:race_war"]
    assert "probe:oob_global_write" not in N.select_items()
    assert "probe:oob_global_write" in N.select_items(fatal=True)
    assert N.select_items(["probe:oob_global_write"]) == ["probe:oob_global_write"]
    fam = N.select_items(["races"])
    assert fam and all(i.startswith("races/") for i in fam)


def test_probes_run_on_the_emulator():
    from kernels_cuda.backend import EmulatorBackend
    p = P.get("shared_ld_f32/s4")
    be = EmulatorBackend(policy="lockstep")
    P.run_probe(be, p)
    m = be.launches[0].metrics
    assert m[C.WAVES_LD] == 2 * 4 and m[C.CONFL_LD] == 2 * 3     # gcd(4, 32) per warp
    assert len({p.name for p in P.PROBES}) == len(P.PROBES)


# ------------------------------------------------------------------ on the GPU

GPU_IDS = ["histogram/shared-local", "histogram/privatized", "reduction/contiguous",
           "probe:transpose_tiled", "probe:transpose_padded", "probe:shared_ld_f64/s2",
           "probe:shared_ld_f128/s1", "probe:global_ld_f32/s4", "probe:char_copy/off1",
           "probe:stencil1d", "probe:atomic_red4"]
SAN_IDS = ["histogram/shared-local", "histogram/privatized", "probe:race_raw", "probe:race_war",
           "probe:oob_global_write", "probe:divergent_barrier"]


def _gpu_or_skip():
    pytest.importorskip("cupy")
    from kernels_cuda import cupy_backend
    ok, why = cupy_backend.available()
    if not ok:
        pytest.skip(f"no CUDA device: {why}")
    for exe in ("ncu", "compute-sanitizer"):
        if shutil.which(exe) is None:
            pytest.skip(f"{exe} not on PATH")


@pytest.mark.gpu
def test_gpu_counters_equal_ncu(tmp_path):
    _gpu_or_skip()
    rep = N.ncu_check(GPU_IDS, raw_dir=tmp_path / "raw", collect=True)
    s = rep.summary()
    assert s["exact_missing"] == 0, rep.errors
    assert rep.ok, [(r.id, r.metric, r.emulator, r.ncu) for r in rep.mismatches if not r.note]


@pytest.mark.gpu
def test_gpu_sanitizer_agrees(tmp_path):
    _gpu_or_skip()
    rep = N.sanitizer_check(SAN_IDS, raw_dir=tmp_path / "raw", collect=True)
    by = {(r.id, r.tool): r for r in rep.rows}
    assert by[("probe:race_raw", "racecheck")].agree
    assert by[("probe:oob_global_write", "memcheck")].agree
    assert by[("probe:divergent_barrier", "synccheck")].agree
    assert by[("histogram/privatized", "racecheck")].sanitizer == "clean"
    assert rep.ok, [r for r in rep.rows if r.agree is False and not r.note]
