"""The timing model: predictions, profiles, block sampling, and (on a GPU) accuracy."""
import json
from pathlib import Path

import numpy as np
import pytest

import simt
from simt import timing

RESULTS = Path(__file__).resolve().parent.parent / "docs" / "results"


@pytest.mark.parametrize("gpu", ["h100", "h200"])
def test_committed_table_is_what_the_model_predicts(gpu):
    """Every prediction in docs/results/timing_<gpu>.json follows from its recorded counters."""
    tab = json.loads((RESULTS / f"timing_{gpu}.json").read_text())
    prof = timing.load_profile(gpu)
    rows = [r for r in tab["rows"] if "error" not in r]
    assert len(rows) >= 75
    for r in rows:
        total = sum(timing.predict(l["metrics"], l["grid_blocks"], l["threads_per_block"],
                                   l["shared_bytes"], prof).ms for l in r["launches"])
        assert total == pytest.approx(r["predicted_ms"], rel=1e-9), r["id"]
    within = sum(1 for r in rows if 1 / 1.5 <= r["predicted_ms"] / r["measured_ms"] <= 1.5)
    assert within >= 65, f"only {within} of {len(rows)} predictions within 1.5x"


@pytest.mark.parametrize("gpu", ["h100", "h200"])
def test_committed_probe_table_is_what_the_model_predicts(gpu):
    """Kernels outside the catalog (kernels_cuda/timing_probes.py), measured on the GPU:
    the committed predictions follow from their counters, and none has drifted."""
    from kernels_cuda import timing_probes
    tab = json.loads((RESULTS / f"timing_probes_{gpu}.json").read_text())
    prof = timing.load_profile(gpu)
    rows = [r for r in tab["rows"] if "error" not in r]
    assert {r["id"] for r in rows} == {p.id for p in timing_probes.entries()}
    for r in rows:
        total = sum(timing.predict(l["metrics"], l["grid_blocks"], l["threads_per_block"],
                                   l["shared_bytes"], prof).ms for l in r["launches"])
        assert total == pytest.approx(r["predicted_ms"], rel=1e-9), r["id"]


def test_profiles_are_derived_from_their_recorded_times():
    """``simt calibrate --derive`` rebuilds each committed profile from the microbenchmark
    times it recorded: no parameter was edited by hand."""
    from kernels_cuda import calibrate
    for gpu in ("h100", "h200"):
        path = Path(timing.__file__).parent / "profiles" / f"{gpu}.json"
        committed = json.loads(path.read_text())
        times, info = calibrate._load_recorded(path)
        again = json.loads(calibrate.derive(gpu, times, calibrate.count_emulator(int(info["sm_count"])),
                                            info).to_json())
        assert again == committed, gpu
        assert committed["combine_p"] >= 1.0      # measured on cal_stream


def test_combine_is_a_p_norm_between_sum_and_max():
    prof = timing.load_profile("h100")
    comp = {"dram": 40.0, "latency": 30.0, "issue": 0.0}
    prof.combine_p = 1.0
    assert timing.combine(comp, prof) == pytest.approx(70.0)
    prof.combine_p = 2.0
    assert timing.combine(comp, prof) == pytest.approx(50.0)
    prof.combine_p = 0.0
    assert timing.combine(comp, prof) == pytest.approx(40.0)


def test_branch_on_a_loaded_value_waits_for_the_load():
    """A branch (or a predicated body) cannot issue before its condition is known: a load
    guarded by a loaded value starts one memory latency later."""
    src = """
    extern "C" __global__ void guarded(const int *t, const int *v, int *out) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (t[i] == 1) out[i] = v[i] + 1;
    }
    extern "C" __global__ void unguarded(const int *t, const int *v, int *out) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        out[i] = t[i] + v[i];
    }"""
    from simt.machine import LAT
    mod = simt.Module.from_source(src, "guard.cu")
    cyc = {}
    for k in ("guarded", "unguarded"):
        dev = simt.Device()
        args = [dev.to_device(np.ones(32, np.int32)), dev.to_device(np.ones(32, np.int32)),
                dev.zeros(32, np.int32)]
        res = mod.get_function(k).launch(dev, simt.LaunchConfig.of(grid=1, block=32), args,
                                         sanitize=False)
        cyc[k] = res.metrics["simt__block_cycles.max"]
    lat = LAT["global"]
    assert cyc["guarded"] >= 2 * lat > cyc["unguarded"] >= lat


def test_profiles_load_and_unknown_names_fail_clearly():
    p = timing.load_profile("h100")
    assert p.sm_count == 132 and 2500 < p.dram_gbs < 3500 and "H100" in p.device
    assert timing.load_profile("h200").dram_gbs > p.dram_gbs
    with pytest.raises(simt.UsageError, match="no GPU profile 'gtx480'"):
        timing.load_profile("gtx480")


def test_block_sampling_extrapolates_counters():
    from kernels_cuda import catalog
    from kernels_cuda.backend import EmulatorBackend
    e = catalog.get("histogram/atomic")
    inp = e.inputs(n=1 << 20, seed=0)
    full, part = EmulatorBackend(sanitize=False), EmulatorBackend(sanitize=False, sample_blocks=512)
    e.run(full, inp)
    e.run(part, inp)
    fm, pm = full.launches[0].metrics, part.launches[0].metrics
    assert part.launches[0].sampled_blocks == 512 and part.launches[0].total_blocks == 4096
    for k in ("smsp__inst_executed.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
              "l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum", "simt__dram_footprint_sectors.sum",
              "simt__l2_slice_transactions.max", "simt__global_atomic_hot_address_lanes.max"):
        assert pm[k] == pytest.approx(fm[k], rel=0.05), k
    prof = timing.load_profile("h100")
    cfg = full.launches[0].config
    a = timing.predict(fm, cfg.grid.size, cfg.block.size, 0, prof).ms
    b = timing.predict(pm, cfg.grid.size, cfg.block.size, 0, prof).ms
    assert b == pytest.approx(a, rel=0.1)


def test_contention_orders_histograms_like_the_gpu():
    """Global atomics on 256 bins are predicted far slower than a privatized histogram."""
    from kernels_cuda import catalog
    from kernels_cuda.backend import EmulatorBackend
    pred = {}
    for i in ("histogram/atomic", "histogram/privatized", "histogram/best"):
        e = catalog.get(i)
        be = EmulatorBackend(sanitize=False, sample_blocks="auto", gpu="h100")
        e.run(be, e.inputs(n=1 << 22, seed=0))
        pred[i] = sum(r.predicted_ms for r in be.launches)
    assert pred["histogram/atomic"] > 10 * pred["histogram/privatized"] > 0
    assert pred["histogram/best"] < pred["histogram/atomic"]


def test_json_run_reports_predicted_ms():
    import subprocess
    import sys
    out = subprocess.run([sys.executable, "-m", "tui.cli", "run", "reduction/contiguous", "--json",
                          "--gpu", "h200"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    j = json.loads(out.stdout)
    assert j["gpu"] == "h200" and j["predicted_ms"] > 0.003


@pytest.mark.gpu
def test_predictions_within_1_5x_on_this_gpu():
    cb = pytest.importorskip("kernels_cuda.cupy_backend")
    ok, why = cb.available()
    if not ok:
        pytest.skip(why)
    from kernels_cuda import timing_check
    name = cb.device_info()["name"]
    gpu = "h200" if "H200" in name else "h100"
    ids = ["histogram/atomic", "histogram/privatized", "reduction/contiguous", "scan/blelloch",
           "reduction/best", "histogram/best"]
    measured = timing_check.measure(ids)
    tab = timing_check.predict_table(measured, gpu)
    for r in tab["rows"]:
        assert "error" not in r
        assert 1 / 1.5 <= r["ratio"] <= 1.5, (r["id"], r["n"], r["ratio"])
