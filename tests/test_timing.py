"""The timing model: predictions, profiles, block sampling, and (on a GPU) accuracy."""
import json
from pathlib import Path

import numpy as np
import pytest

import simt
from simt import counters, timing

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
    off = [(r["id"], r["n"]) for r in rows if not 1 / 1.5 <= r["predicted_ms"] / r["measured_ms"] <= 1.5]
    assert not off, f"outside 1.5x: {off}"
    # every pair of a family's variants more than 25% apart, in the measured order
    assert len(tab["order"]) >= 180
    assert [o for o in tab["order"] if not o["ok"]] == []


@pytest.mark.parametrize("gpu", ["h100", "h200"])
def test_committed_probe_table_is_what_the_model_predicts(gpu):
    """Kernels outside the catalog (kernels_cuda/timing_probes.py), measured on the GPU:
    the committed predictions follow from their counters, and none has drifted."""
    from kernels_cuda import timing_probes
    tab = json.loads((RESULTS / f"timing_probes_{gpu}.json").read_text())
    prof = timing.load_profile(gpu)
    rows = [r for r in tab["rows"] if "error" not in r]
    # every probe is in the table, but families the measured file says were not run on
    # this GPU (and why)
    unmeasured = json.loads((RESULTS / f"timing_probes_measured_{gpu}.json").read_text()).get("unmeasured", {})
    assert all(why.strip() for why in unmeasured.values())
    assert {r["id"] for r in rows} == {p.id for p in timing_probes.entries() if p.family not in unmeasured}
    # (a family may wait for one GPU, not for both)
    other = "h100" if gpu == "h200" else "h200"
    assert not set(unmeasured) & set(json.loads(
        (RESULTS / f"timing_probes_measured_{other}.json").read_text()).get("unmeasured", {}))
    for r in rows:
        total = sum(timing.predict(l["metrics"], l["grid_blocks"], l["threads_per_block"],
                                   l["shared_bytes"], prof).ms for l in r["launches"])
        assert total == pytest.approx(r["predicted_ms"], rel=1e-9), r["id"]


@pytest.mark.parametrize("stem", ["timing_h100", "timing_h200", "timing_probes_h100", "timing_probes_h200"])
def test_committed_rows_with_barriers_carry_the_barrier_counters(stem):
    """A launch that waits at barriers reports how many warps arrived
    (``simt__barrier_warps.sum`` or, for votes, ``simt__vote_barrier_warps.sum``, which
    the barrier component reads): a row emulated
    before that counter existed reads as no barrier work and must be emulated again, not
    re-predicted from its old counters (session 32 found 84 such launches and emulated
    every table again)."""
    tab = json.loads((RESULTS / f"{stem}.json").read_text())
    stale = [(r["id"], r["n"]) for r in tab["rows"] if "error" not in r for l in r["launches"]
             if l["metrics"].get("simt__barriers.max", 0) > 0
             and counters.BAR_WARPS not in l["metrics"] and counters.VOTE_WARPS not in l["metrics"]]
    assert not stale, stale[:5]


def test_profiles_are_derived_from_their_recorded_times(tmp_path, monkeypatch, capsys):
    """``simt calibrate --derive`` rebuilds each committed profile from the microbenchmark
    times it recorded: no parameter was edited by hand.  The H100's through the command
    line, the H200's through ``calibrate.derive``, in one test: the emulator's counts of
    the microbenchmarks (``calibrate.count_emulator``) are made once a process."""
    from kernels_cuda import calibrate
    from tui.cli import main
    root = Path(timing.__file__).parent
    monkeypatch.chdir(root.parent)
    out = tmp_path / "h100.json"
    rc = main(["calibrate", "--derive", "simt/profiles/h100.json", "--out", str(out)])
    assert rc == 0, capsys.readouterr().err
    assert json.loads(out.read_text()) == json.loads((root / "profiles" / "h100.json").read_text())
    for gpu in ("h100", "h200"):
        path = root / "profiles" / f"{gpu}.json"
        committed = json.loads(path.read_text())
        if gpu != "h100":
            times, info = calibrate._load_recorded(path)
            again = json.loads(calibrate.derive(gpu, times, calibrate.count_emulator(int(info["sm_count"])), info).to_json())
            assert again == committed, gpu
        # the one exponent fitted on the tables, not measured (timing.COMBINE_P)
        assert committed["combine_p"] == timing.COMBINE_P
        assert committed["dram_queue_us"] > 0 and committed["block_start_us"] > 0


def test_combine_is_a_p_norm_between_sum_and_max():
    prof = timing.load_profile("h100")
    comp = {"issue": 40.0, "shared": 30.0, "l1": 0.0}
    prof.combine_p = 1.0
    assert timing.combine(comp, prof) == pytest.approx(70.0)
    prof.combine_p = 2.0
    assert timing.combine(comp, prof) == pytest.approx(50.0)
    prof.combine_p = 0.0
    assert timing.combine(comp, prof) == pytest.approx(40.0)


def test_equal_components_take_longer_than_one_but_dram_joins_latency_as_the_larger():
    """Two resources about equally busy take longer than either (the fitted p = 4: 2^(1/4)
    = 1.19x); DRAM and the critical paths are not two such resources, the paths already
    wait in DRAM's queue (cal_stream takes the larger)."""
    prof = timing.load_profile("h200")
    assert prof.combine_p == timing.COMBINE_P == 4.0
    assert timing.combine({"issue": 100.0, "shared": 100.0, "dram": 0.0, "latency": 0.0},
                          prof) == pytest.approx(100.0 * 2 ** 0.25)
    assert timing.combine({"issue": 10.0, "dram": 100.0, "latency": 100.0}, prof) == pytest.approx(
        (100.0 ** 4 + 10.0 ** 4) ** 0.25)
    # a much smaller component adds next to nothing
    assert timing.combine({"issue": 100.0, "shared": 20.0, "dram": 0.0, "latency": 0.0},
                          prof) == pytest.approx(100.0, rel=1e-3)


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
    # (each ends with a store, which L2 acknowledges LAT["global"] later)
    assert cyc["guarded"] >= 3 * lat > cyc["unguarded"] >= 2 * lat


def test_an_if_converted_body_does_not_hold_the_warp_for_its_condition():
    """nvcc makes `if (d < best) { best = d; bi = j; }` a compare and selects (FSETP, FSEL:
    timing_investigation/l1lat/): the warp goes past it and the next trips' loads go out
    while this trip's load is on its way.  A body nvcc branches around (a store to
    global memory) still waits for each trip's load at the branch (each trip's load on a
    sector of its own, so no trip finds it in L1: simt.l1hits)."""
    from simt.machine import LAT
    src = """
    extern "C" __global__ void nearest(const float *p, int *out, int m) {
        float best = 3.4e38f; int bi = -1;
        for (int j = 0; j < m; ++j) {
            float d = p[j] - threadIdx.x;
            d = d * d;
            if (d < best) { best = d; bi = j; }
        }
        out[threadIdx.x] = bi;
    }
    extern "C" __global__ void branchy(const float *p, int *out, int m) {
        for (int j = 0; j < m; ++j) {
            float d = p[8 * j] - threadIdx.x;
            if (d * d < 1.0f) out[threadIdx.x] = j;
        }
    }"""
    mod = simt.Module.from_source(src, "ifconv.cu")
    m = 256
    pts = np.random.default_rng(0).uniform(0, 32, 8 * m).astype(np.float32)
    per_trip, outs = {}, {}
    for k in ("nearest", "branchy"):
        assert any(i.info.get("predicated") for i in mod.get_function(k).ir.code) == (k == "nearest")
        dev = simt.Device()
        out = dev.zeros(32, np.int32)
        res = mod.get_function(k).launch(dev, simt.LaunchConfig.of(grid=1, block=32),
                                         [dev.to_device(pts), out, np.int32(m)], sanitize=False)
        per_trip[k] = res.metrics["simt__block_cycles.max"] / m
        outs[k] = out.get()
    d = (pts[None, :m] - np.arange(32)[:, None]) ** 2
    assert outs["nearest"].tolist() == np.argmin(d, axis=1).tolist()
    assert per_trip["branchy"] >= LAT["global"]
    assert per_trip["nearest"] < LAT["global"] / 2


def test_an_if_holding_short_ifs_is_if_converted_whole():
    """A two-bit saturating counter, `if (taken) { if (c < 3) c++; } else { if (c > 0) c--; }`,
    is predicated whole in nvcc's SASS (@P0 VIADD, @!P0 VIADD, SEL: probe/gshare-pht-smem,
    timing_investigation/unseen106/): the warp does not wait at the outer branch for the
    trace word that decides it, so the next trips' loads go out (2.16x the GPU's time
    when it waited, 1.34x now).  An inner body too long to predicate keeps the outer one a
    branch."""
    from simt.machine import LAT
    src = """
    extern "C" __global__ void counter2(const unsigned *tr, int *out, int len) {
        unsigned char c = 2; int miss = 0;
        for (int k = 0; k < len; k++) {
            int taken = tr[k * 32 + threadIdx.x] & 1;
            if ((c >= 2) != taken) miss++;
            if (taken) { if (c < 3) c++; } else { if (c > 0) c--; }
        }
        out[threadIdx.x] = miss * 4 + c;
    }
    extern "C" __global__ void counter2_long(const unsigned *tr, int *out, int len) {
        unsigned char c = 2; int miss = 0;
        for (int k = 0; k < len; k++) {
            int taken = tr[k * 32 + threadIdx.x] & 1;
            if ((c >= 2) != taken) miss++;
            if (taken) { if (c < 3) { c++; miss += c * 3 + (c >> 1) + (miss & 7) + (miss >> 3) + (c ^ 5) + (c & 3); } }
            else { if (c > 0) c--; }
        }
        out[threadIdx.x] = miss * 4 + c;
    }"""
    mod = simt.Module.from_source(src, "nested.cu")
    m = 256
    tr = np.random.default_rng(1).integers(0, 2 ** 32, 32 * m, dtype=np.uint64).astype(np.uint32)
    taken = (tr.reshape(m, 32) & 1).astype(bool)
    c = np.full(32, 2)
    miss = np.zeros(32, np.int64)
    for k in range(m):
        miss += (c >= 2) != taken[k]
        c = np.where(taken[k], np.minimum(c + 1, 3), np.maximum(c - 1, 0))
    per_trip = {}
    for k in ("counter2", "counter2_long"):
        ifs = [i for i in mod.get_function(k).ir.code if i.op.name == "IF"]
        assert len(ifs) == 4
        assert all(i.info.get("predicated") for i in ifs) == (k == "counter2")
        dev = simt.Device()
        out = dev.zeros(32, np.int32)
        res = mod.get_function(k).launch(dev, simt.LaunchConfig.of(grid=1, block=32),
                                         [dev.to_device(tr), out, np.int32(m)], sanitize=False)
        per_trip[k] = res.metrics["simt__block_cycles.max"] / m
        if k == "counter2":
            assert out.get().tolist() == (miss * 4 + c).tolist()
    assert per_trip["counter2_long"] >= LAT["global"]
    assert per_trip["counter2"] < LAT["global"] / 2


BIG = counters.L2_BYTES // 4 + (1 << 20)     # ints: a launch whose memory exceeds L2


def _chain_cycles(src, kernel, n_ints, warp_steps=False, block=32):
    mod = simt.Module.from_source(src, "dram.cu")
    dev = simt.Device()
    a = dev.to_device(np.arange(n_ints, dtype=np.int32))
    out = dev.zeros(block, np.int32)
    ln = mod.get_function(kernel).prepare(dev, simt.LaunchConfig.of(1, block), [a, out])
    res = ln.run(warp_steps=warp_steps)
    return res.metrics["simt__block_cycles.max"]


DRAM_SRC = """
extern "C" __global__ void chain(const int *a, int *out) {
    int i = threadIdx.x;
    out[i] = a[a[i] + 64];          // two loads, the second from sectors not yet read
}
extern "C" __global__ void reread(const int *a, int *out) {
    int i = threadIdx.x;
    out[i] = a[a[i]];               // the second load reads what the first brought into L2
}
extern "C" __global__ void shared_sectors(const int *a, int *out) {
    int i = threadIdx.x;
    out[i] = a[i & 31];             // every warp asks for the same sectors
}"""


def test_loads_from_dram_wait_longer_than_loads_from_l2():
    """In a launch whose memory exceeds L2, a load whose sectors nothing brought into L2
    yet waits LAT["dram"]; one re-reading sectors an earlier load fetched waits
    LAT["global"]; in a small launch (found in L2 when timed again) every load does."""
    from simt.machine import LAT
    big = {k: _chain_cycles(DRAM_SRC, k, BIG) for k in ("chain", "reread")}
    small = {k: _chain_cycles(DRAM_SRC, k, 1 << 16) for k in ("chain", "reread")}
    drain = LAT["global"]            # the final store, acknowledged by L2
    assert 2 * LAT["dram"] + drain <= big["chain"] < 2 * LAT["dram"] + drain + 60
    assert LAT["dram"] + LAT["global"] + drain <= big["reread"] < LAT["dram"] + LAT["global"] + drain + 60
    for k in ("chain", "reread"):
        assert 2 * LAT["global"] + drain <= small[k] < 2 * LAT["global"] + drain + 60


def test_restoring_what_a_launch_writes_can_push_its_inputs_out_of_l2():
    """``--real`` copies each writable buffer back from a snapshot before every timed
    run: twice its bytes through L2.  A launch whose memory fits L2 but whose writable
    buffers' restore does not leave room is cold when timed (its first loads wait on
    DRAM); the same buffer declared const is not restored, and the launch stays warm."""
    from simt.machine import LAT
    src = """
    extern "C" __global__ void chain_w(const int *a, int *out, int *scratch) {
        out[threadIdx.x] = a[a[threadIdx.x] + 64];
    }
    extern "C" __global__ void chain_c(const int *a, int *out, const int *scratch) {
        out[threadIdx.x] = a[a[threadIdx.x] + 64];
    }"""
    mod = simt.Module.from_source(src, "restore.cu")
    mib = 1 << 20
    assert 24 * mib + 16 * mib < counters.L2_BYTES < 24 * mib + 3 * 16 * mib
    cyc = {}
    for k in ("chain_w", "chain_c"):
        dev = simt.Device()
        args = [dev.to_device(np.arange(6 * mib, dtype=np.int32)), dev.zeros(32, np.int32),
                dev.zeros(4 * mib, np.int32)]
        res = mod.get_function(k).launch(dev, simt.LaunchConfig.of(1, 32), args, sanitize=False)
        cyc[k] = res.metrics["simt__block_cycles.max"]
    drain = LAT["global"]
    assert 2 * LAT["dram"] + drain <= cyc["chain_w"] < 2 * LAT["dram"] + drain + 60
    assert 2 * LAT["global"] + drain <= cyc["chain_c"] < 2 * LAT["global"] + drain + 60


def test_a_loop_reading_its_sectors_again_finds_them_in_l1_or_l2():
    """The first trip through a load fetches from DRAM; later trips re-reading the same
    sectors (here a chain: each address waits on the last value) find them in L1, which
    holds what the warp read there last trip (simt.l1hits.TripSectors), or in L2
    (LAT["global"]) where a store of the warp came between."""
    from simt.l1hits import LAT_L1
    from simt.machine import LAT
    src = """
    extern "C" __global__ void again(const int *a, int *out) {
        int s = 0;
        for (int r = 0; r < 8; r++) s += a[threadIdx.x + (s & 0)];
        out[threadIdx.x] = s;
    }"""
    cyc = _chain_cycles(src, "again", BIG)
    path = LAT["dram"] + 7 * LAT_L1 + LAT["global"]             # + the final store's drain
    assert path <= cyc < path + 300
    stored = src.replace("s += a[threadIdx.x + (s & 0)];", "{ s += a[threadIdx.x + (s & 0)]; out[threadIdx.x] = s; }")
    cyc = _chain_cycles(stored, "again", BIG)
    path = LAT["dram"] + 7 * LAT["global"] + LAT["global"]
    assert path <= cyc < path + 300


def test_warps_asking_for_one_fetch_wait_alike_in_step_and_group_mode():
    """Warps of a batch asking for sectors that the same load fetched first wait on that
    fetch: stepping one warp at a time gives the group's clocks."""
    from simt.machine import LAT
    got = [_chain_cycles(DRAM_SRC, "shared_sectors", BIG, warp_steps=w, block=256) for w in (False, True)]
    assert got[0] == got[1] >= LAT["dram"]


def test_a_table_every_block_reads_waits_on_dram_in_the_first_wave_only():
    """A sampled launch many waves long whose blocks all read one small table (a weight
    vector, an RMSNorm's gamma): the blocks of the wave that first asks for it wait on
    DRAM, those of later waves find it in L2 (probe/rmsnorm-half-block-row: every sampled
    block waited on DRAM for gamma, 1.81x the GPU's time; 1.09x now).  Each block's own
    row, read after the table, comes from DRAM in every wave."""
    from simt.machine import LAT
    src = """
    extern "C" __global__ void scaled(const int *a, const int *g, int *out) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        out[i] = a[i + g[threadIdx.x]];
    }"""
    mod = simt.Module.from_source(src, "table.cu")
    dev = simt.Device()
    n = BIG // 256 * 256
    args = [dev.to_device(np.arange(n, dtype=np.int32)), dev.zeros(256, np.int32), dev.zeros(n, np.int32)]
    ln = mod.get_function("scaled").prepare(dev, simt.LaunchConfig.of(n // 256, 256), args, sanitize=False,
                                            sample_blocks=64, gpu="h200")
    res = ln.run()
    assert (args[2].get()[ln.sample_ids[0] * 256:][:256] == np.arange(256) + ln.sample_ids[0] * 256).all()
    first = ln.counters.rank_wave == ln.counters.rank_wave.min()
    assert 0 < first.sum() < len(first) / 2
    drain = LAT["global"]
    cold, warm = 2 * LAT["dram"] + drain, LAT["global"] + LAT["dram"] + drain
    assert cold <= res.metrics["simt__block_cycles.max"] < cold + 60
    mean = (first.sum() * cold + (~first).sum() * warm) / len(first)
    assert res.metrics["simt__block_cycles.mean"] == pytest.approx(mean, abs=60)


def test_wave_time_is_scheduling_or_the_block_life():
    """A wave of w blocks per SM takes the longer of scheduling them (w x block_wave_us / 8)
    and a block's life: block_start_us + critical path + DRAM queueing, the root L of
    (L - start - path)(L - d) = dram_queue_us x d for d of DRAM time a wave."""
    prof = timing.load_profile("h200")
    clk = prof.clock_ghz * 1e3
    sms = prof.sm_count
    for cycles, threads, sectors in ((0.0, 64, 0), (400.0, 128, 0), (2000.0, 256, 0),
                                     (2000.0, 1024, 1 << 20), (800.0, 256, 1 << 22)):
        m = {"simt__block_cycles.mean": cycles, "simt__block_cycles.max": cycles,
             "simt__dram_read_chunks64.sum": sectors // 2}
        bps = 2048 // threads
        grid = sms * bps * 10                                    # 10 full waves
        p = timing.predict(m, grid, threads, 0, prof)
        d = p.components_us["dram"] / 10
        c = prof.block_start_us + cycles / clk
        life = timing.queued_life(c, d, prof.dram_queue_us)
        assert (life - c) * (life - d) == pytest.approx(prof.dram_queue_us * d, abs=1e-9)
        assert life >= max(c, d) and (d or life == c)
        assert p.components_us["latency"] == pytest.approx(10 * max(bps * prof.block_wave_us / 8, life),
                                                          abs=1e-3)   # (rounded to ns)
    # scheduling bound: 32 empty blocks of 64 threads a wave
    m0 = {"simt__block_cycles.mean": 0.0, "simt__block_cycles.max": 0.0}
    assert timing.predict(m0, sms * 32, 64, 0, prof).components_us["latency"] == \
        pytest.approx(32 * prof.block_wave_us / 8, abs=1e-3)


def _block_cycles(src, kernel, block, args_of, shared=0):
    mod = simt.Module.from_source(src, "t.cu")
    dev = simt.Device()
    res = mod.get_function(kernel).launch(dev, simt.LaunchConfig.of(1, block, shared), args_of(dev),
                                          sanitize=False)
    return res.metrics["simt__block_cycles.max"]


def test_global_loads_go_out_before_a_shared_store_waits():
    """nvcc schedules global loads above a shared store waiting for its data (different
    memory), so reduction/contiguous's two loads are in flight together; a global store
    may alias the next load and holds it up."""
    from simt.machine import LAT
    src = """
    extern "C" __global__ void to_shared(const float *a, float *out) {
        extern __shared__ float s[];
        int t = threadIdx.x;
        s[t] = a[t];
        s[32 + t] = a[32 + t];
        __syncthreads();
        out[t] = s[t] + s[32 + t];
    }
    extern "C" __global__ void to_global(const float *a, float *out) {
        int t = threadIdx.x;
        out[t] = a[t];
        out[32 + t] = a[32 + t];
    }"""

    def args_of(dev):
        return [dev.to_device(np.ones(64, np.float32)), dev.zeros(64, np.float32)]
    sh = _block_cycles(src, "to_shared", 32, args_of, shared=256)
    gl = _block_cycles(src, "to_global", 32, args_of)
    lat = LAT["global"]
    assert lat * 2 <= sh < lat * 3 - 100       # one load latency + the final store's drain
    assert gl >= lat * 3                         # two latencies in a row + the drain


def test_l1_serves_a_line_a_cycle_hits_included():
    """Every 128-byte line of a global load request passes L1's data pipe, a line a cycle
    per SM like a shared wavefront (timing_investigation/l1/): lanes 128 bytes apart
    cost 32 lines a request even when they hit L1."""
    src = """
    extern "C" __global__ void spread(const float *t, float *out, int reps) {
        int lane = threadIdx.x & 31;
        float s = 0.0f;
        for (int r = 0; r < reps; r++) s += t[(lane * 32 + (r & 7)) & 4095];
        out[threadIdx.x] = s;
    }"""
    mod = simt.Module.from_source(src, "l1.cu")
    dev = simt.Device()
    res = mod.get_function("spread").launch(
        dev, simt.LaunchConfig.of(1, 64), [dev.to_device(np.ones(4096, np.float32)),
                                           dev.zeros(64, np.float32), np.int32(16)], sanitize=False)
    m = res.metrics
    assert m["simt__l1_lines_ld.sum"] == 2 * 16 * 32          # 2 warps, 16 trips, 32 lines
    assert m["simt__l2_lines_ld.sum"] < m["simt__l1_lines_ld.sum"] / 4   # mostly L1 hits
    prof = timing.load_profile("h100")
    l1 = timing.predict(m, 1, 64, 0, prof).components_us["l1"]
    assert l1 == pytest.approx(2 * 16 * 32 / prof.shared_waves_per_us_sm, abs=1e-3)


def test_sectors_l1_serves_do_not_reach_l2():
    """The l2 component counts a load's sectors at the share of its lines that miss L1:
    a warp whose lanes slide over the lines it read the trip before (probe/mel-filterbank)
    sends L2 only its new lines' sectors, and a load that always misses sends them all."""
    src = """
    extern "C" __global__ void slide(const float *t, float *out, int reps, int step) {
        float s = 0.0f;
        for (int r = 0; r < reps; r++) s += t[threadIdx.x * 8 + r * step];
        out[threadIdx.x] = s;
    }"""
    mod = simt.Module.from_source(src, "slide.cu")
    dev = simt.Device()
    got = {}
    for step in (1, 256):                   # a word on each trip; new lines every trip
        m = mod.get_function("slide").launch(
            dev, simt.LaunchConfig.of(1, 32), [dev.to_device(np.ones(1 << 14, np.float32)),
                                               dev.zeros(32, np.float32), np.int32(32), np.int32(step)],
            sanitize=False).metrics
        miss = m["simt__l2_lines_ld.sum"] / m["simt__l1_lines_ld.sum"]
        sectors = m["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"] * miss \
            + m["l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"]
        assert timing.l2_sectors(m) == pytest.approx(sectors)
        got[step] = miss
    assert got[1] < 0.2 and got[256] == 1.0


def test_shared_wavefronts_and_global_lines_share_l1s_data_pipe():
    """A kernel that reads global words 64 bytes apart and looks each up in a shared
    table (probe crc32-chunks, timing_investigation/unseen26/): the load lines and the
    shared wavefronts pass L1's one data pipe in turn, so the larger of the two
    components carries both, and the launch takes at least their sum."""
    src = """
    extern "C" __global__ void lookups(const unsigned *d, const unsigned *tab, unsigned *out) {
        __shared__ unsigned t[256];
        t[threadIdx.x] = tab[threadIdx.x];
        __syncthreads();
        unsigned c = 0;
        for (int w = 0; w < 16; ++w) c = t[(c ^ d[threadIdx.x * 16 + w]) & 255] ^ (c >> 8);
        out[threadIdx.x] = c;
    }"""
    mod = simt.Module.from_source(src, "pipe.cu")
    dev = simt.Device()
    rng = np.random.default_rng(0)
    res = mod.get_function("lookups").launch(
        dev, simt.LaunchConfig.of(1, 256),
        [dev.to_device(rng.integers(0, 2**32, 4096, dtype=np.uint64).astype(np.uint32)),
         dev.to_device(np.arange(256, dtype=np.uint32)), dev.zeros(256, np.uint32)], sanitize=False)
    m = res.metrics
    prof = timing.load_profile("h100")
    rate = prof.shared_waves_per_us_sm
    lines = m["simt__l1_lines_ld.sum"] / rate
    waves = (m[counters.WAVES_LD] + m[counters.WAVES_ST]) / rate
    assert lines > 0 and waves > 0
    comp = timing.predict(m, 1, 256, 1024, prof).components_us
    big, small = ("shared", "l1") if waves >= lines else ("l1", "shared")
    assert comp[big] == pytest.approx(lines + waves, abs=2e-3)
    assert comp[small] == pytest.approx(min(lines, waves), abs=2e-3)


def test_a_barrier_costs_more_the_more_warps_it_joins():
    """__syncthreads() from the last arrival to the release: LAT["bar"] + LAT["bar_per_warp"]
    per warp of the block (tree/ on the H100: 16 cycles at 2 warps, 76 at 32)."""
    from simt.machine import LAT
    src = """
    extern "C" __global__ void bars(int *out) {
        int x = threadIdx.x;
        for (int r = 0; r < 64; r++) { x = x * 3 + 1; __syncthreads(); }
        out[threadIdx.x] = x;
    }"""
    cyc = {b: _block_cycles(src, "bars", b, lambda dev: [dev.zeros(1024, np.int32)]) for b in (64, 1024)}
    assert cyc[1024] - cyc[64] == pytest.approx(64 * LAT["bar_per_warp"] * (32 - 2), rel=0.05)


def _one_warp(src, kernel, args_of):
    mod = simt.Module.from_source(src, "costs.cu")
    dev = simt.Device()
    res = mod.get_function(kernel).launch(dev, simt.LaunchConfig.of(grid=1, block=32), args_of(dev),
                                          sanitize=False)
    return res.metrics


def test_loops_are_software_pipelined():
    """nvcc unrolls a loop by 4 and hoists the unrolled trips' loads: a gather whose address
    comes from a load in the same trip does not hold up the next trips' loads, and a warp
    keeps 4 trips' loads in flight (one load a trip: 4, as cal_ilp's SASS), up to 8 loads
    (three a trip: 8, not 12; timing_investigation/mlp/: 16 or 32 loads in flight a warp
    move no more than 8 on the H200)."""
    src = """
    extern "C" __global__ void gather(const int *col, const float *val, const float *x,
                                      float *out, int n) {
        float s = 0.0f;
        for (int j = threadIdx.x; j < n; j += 32) s += val[j] * x[col[j]];
        out[threadIdx.x] = s;
    }
    extern "C" __global__ void chain(const int *col, const float *val, const float *x,
                                     float *out, int n) {
        float s = 0.0f;
        for (int j = threadIdx.x; j < n; j += 32) s += x[j];
        out[threadIdx.x] = s;
    }"""
    from simt.machine import LAT, _load_depths
    trips = 64
    n = 32 * trips

    def args_of(dev):
        return [dev.to_device(np.arange(n, dtype=np.int32)[::-1].copy()),
                dev.to_device(np.ones(n, np.float32)), dev.to_device(np.ones(n, np.float32)),
                dev.zeros(32, np.float32), np.int32(n)]
    mod = simt.Module.from_source(src, "pipe.cu")
    depth = {k: sorted(_load_depths(mod.get_function(k).ir).values()) for k in ("gather", "chain")}
    assert depth == {"gather": [8, 8, 8], "chain": [4]}
    lat = LAT["global"]
    cyc = {k: _one_warp(src, k, args_of)["simt__block_cycles.max"] for k in ("gather", "chain")}
    # gather: 3 loads a trip, 8 in flight, the gather two latencies deep -> about two
    # latencies per 8/3 trips; waiting in order on each gather it was over a latency a trip
    # (21.8 k cycles here)
    assert trips * lat / 4 <= cyc["gather"] <= trips * lat * 3 / 4 + 2 * lat
    # one load a trip, 4 in flight: a latency per 4 trips, as before
    assert trips * lat / 4 <= cyc["chain"] <= trips * lat / 4 + 2 * lat


def test_loops_with_a_run_time_stride_are_not_pipelined():
    """nvcc does not unroll a loop whose counter steps by an unsigned value known only at
    run time (grid-stride, ``c += blockDim.x``): a warp has one trip's loads in flight and
    waits a latency a trip (timing_investigation/softmax/: SASS of softmax_rows and
    vecadd_gridstride).  A signed step cannot wrap, so nvcc unrolls a straight-line body
    by 4 (kahan_dot, histogram_register, stream_ilp4_few: unseen53/); a body that branches
    is taken as not unrolled."""
    src = """
    extern "C" __global__ void by_block(const float *x, float *out, int n) {
        float s = 0.0f;
        for (int j = threadIdx.x; j < n; j += blockDim.x) s += x[j];
        out[threadIdx.x] = s;
    }
    extern "C" __global__ void grid_stride(const float *x, const float *y, float *out, int n) {
        for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
            out[i] = x[i] + y[i];
    }
    extern "C" __global__ void by_param(const float *x, float *out, int n, int step) {
        float s = 0.0f;
        int i = threadIdx.x;
        while (i + step < n) { s += x[i] + x[i + step]; i += 2 * step; }
        out[threadIdx.x] = s;
    }
    extern "C" __global__ void by_const(const float *x, float *out, int n) {
        float s = 0.0f;
        for (int j = threadIdx.x; j < n; j += 32) s += x[j];
        out[threadIdx.x] = s;
    }
    extern "C" __global__ void by_int_stride(const float *x, float *out, int n) {
        int stride = blockDim.x * gridDim.x;
        float s = 0.0f;
        for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) s += x[i];
        out[threadIdx.x] = s;
    }
    extern "C" __global__ void by_param_branching(const float *x, float *out, int n, int step) {
        float s = 0.0f;
        for (int i = threadIdx.x; i < n; i += step) { if (x[i] > 0.0f) s += x[i]; }
        out[threadIdx.x] = s;
    }"""
    from simt.machine import LAT, _load_depths
    mod = simt.Module.from_source(src, "stride.cu")
    names = ("by_block", "grid_stride", "by_param", "by_const", "by_int_stride", "by_param_branching")
    depth = {k: sorted(set(_load_depths(mod.get_function(k).ir).values())) for k in names}
    # (by_param_branching: one trip's one load; the x[i] in the if's body is the one its
    # condition read, simt.cse)
    assert depth == {"by_block": [1], "grid_stride": [2], "by_param": [8], "by_const": [4],
                     "by_int_stride": [4], "by_param_branching": [1]}
    trips = 64
    n = 32 * trips

    def args_of(dev):
        return [dev.to_device(np.ones(n, np.float32)), dev.zeros(32, np.float32), np.int32(n)]
    cyc = {k: _one_warp(src, k, args_of)["simt__block_cycles.max"] for k in ("by_block", "by_const")}
    lat = LAT["global"]
    assert trips * lat <= cyc["by_block"] <= trips * lat + 4 * lat      # a latency a trip
    assert cyc["by_const"] <= trips * lat / 4 + 2 * lat                  # 4 trips in flight


def test_a_loop_with_a_constant_trip_count_is_unrolled_fully():
    """nvcc unrolls a loop of a few constant trips fully and hoists all its loads
    (probes8.cu's poly_horner: 16 coefficient loads before the first FMA); a longer
    constant loop is unrolled by 4."""
    src = """
    extern "C" __global__ void horner(const float *x, const float *c, float *y) {
        float v = x[threadIdx.x], acc = c[15];
        for (int k = 14; k >= 0; k--) acc = acc * v + c[k];
        y[threadIdx.x] = acc;
    }
    extern "C" __global__ void up(const float *x, const float *c, float *y) {
        float acc = 0.0f;
        for (int k = 0; k < 15; k += 2) acc += c[k];
        y[threadIdx.x] = acc;
    }
    extern "C" __global__ void long_loop(const float *x, const float *c, float *y) {
        float acc = 0.0f;
        for (int k = 0; k < 100; k++) acc += c[k];
        y[threadIdx.x] = acc;
    }"""
    from simt.loops import constant_trips, loops
    from simt.machine import LAT, _load_depths
    mod = simt.Module.from_source(src, "unroll.cu")
    trips = {}
    for k in ("horner", "up", "long_loop"):
        code = mod.get_function(k).ir.code
        (top, back), = loops(code)
        trips[k] = constant_trips(code, top, back)
    assert trips == {"horner": 15, "up": 8, "long_loop": None}
    depth = {k: max(_load_depths(mod.get_function(k).ir).values()) for k in trips}
    assert depth == {"horner": 8, "up": 8, "long_loop": 4}     # all 15 issued, 8 in flight

    def args_of(dev):
        return [dev.to_device(np.ones(32, np.float32)), dev.to_device(np.ones(100, np.float32)),
                dev.zeros(32, np.float32)]
    cyc = _one_warp(src, "horner", args_of)["simt__block_cycles.max"]
    # the loads' waits (the last seven waiting for the first, a warp keeping 8 in flight:
    # machine._LOAD_CAP) and the store's acknowledgement, not a wait for each 4 trips'
    # loads (1756 cycles)
    assert cyc < 4 * LAT["global"]


def test_expensive_operations_cost_their_measured_latency_and_issue():
    """Integer % by a new divisor is the whole division sequence (OP_COST, measured on the
    H100); by the divisor of the last trip the compiler's hoisted reciprocal serves; by a
    power of two it is one ALU instruction."""
    from simt.machine import OP_COST
    src = """
    extern "C" __global__ void chain(int *out, int n, int d) {
        int x = threadIdx.x + 1000000;
        for (int i = 0; i < 64; i++) x = OP + 1000000;
        out[threadIdx.x] = x;
    }"""
    got = {}
    for name, op in (("new", "d % (x & 1023 | 1)"), ("again", "x % n"), ("lane", "x % (int)(threadIdx.x + 3)"),
                     ("pow2", "x % 8"), ("const", "x % 7")):
        m = _one_warp(src.replace("OP", op), "chain",
                      lambda dev: [dev.zeros(32, np.int32), np.int32(1000), np.int32(123456789)])
        got[name] = (m["simt__block_cycles.max"], m.get("simt__issue_extra_cycles.sum", 0))
    full, again = OP_COST["idiv"][1], OP_COST["idiv_again_s"][1]
    assert got["pow2"][1] == 0
    assert got["new"][1] == 64 * full
    assert got["again"][1] == got["lane"][1] == full + 63 * again      # the first trip computes it
    assert got["const"][1] == 64 * OP_COST["idiv_const"][1]
    assert got["new"][0] > 64 * OP_COST["idiv"][0] > got["again"][0] > got["const"][0] > got["pow2"][0]


def test_a_quotient_and_remainder_by_one_constant_cost_one_division():
    """``s += x % 10u; x /= 10u;``: nvcc computes x / 10 once (IMAD.WIDE.U32, SHF) and the
    remainder from it (one IMAD; digit_sum_u32's SASS, unseen28/); by different constants,
    or with x written in between, each is its own multiply-high."""
    from simt.machine import OP_COST
    src = """
    extern "C" __global__ void k(unsigned *out) {
        unsigned x = threadIdx.x * 2654435761u, s = 0;
        for (int i = 0; i < 9; i++) { BODY }
        out[threadIdx.x] = s;
    }"""
    got = {}
    for name, body in (("pair", "s += x % 10u; x /= 10u;"), ("two", "s += x % 10u; x /= 7u;"),
                       ("apart", "s += x % 10u; x ^= s; x /= 10u;")):
        mod = simt.Module.from_source(src.replace("BODY", body), "t.cu")
        dev = simt.Device()
        out = dev.zeros(32, np.uint32)
        res = mod.get_function("k").launch(dev, simt.LaunchConfig.of(1, 32), [out])
        got[name] = res.metrics.get("simt__issue_extra_cycles.sum", 0)
        x, s = np.arange(32, dtype=np.uint64) * 2654435761 % 2 ** 32, np.zeros(32, np.uint64)
        for _ in range(9):
            s += x % 10
            x = (x ^ s if name == "apart" else x) // (10 if name != "two" else 7)
        assert out.get().tolist() == s.tolist(), name
    rem, quo, quo7 = OP_COST["umod_const"][1], OP_COST["udiv_const"][1], OP_COST["udiv_const_add"][1]
    assert got["pair"] == pytest.approx(9 * rem)
    assert got["two"] == pytest.approx(9 * (rem + quo7))
    assert got["apart"] == pytest.approx(9 * (rem + quo))
    # the pair's quotient costs no issue of its own, but it is a multiply-high's result:
    # the loop's chain through x waits its latency (divconst/), not an ALU op's
    from simt.machine import _cost_key
    code = simt.Module.from_source(src.replace("BODY", "s += x % 10u; x /= 10u;"), "t.cu").get_function("k").ir.code
    assert [_cost_key(i) for i in code if i.op.name == "BIN" and i.sub in ("div", "mod")] == \
        ["umod_const", "quotient_shared"]
    assert OP_COST["quotient_shared"] == (OP_COST["udiv_const"][0], 0.0)


def test_remainders_by_one_run_time_divisor_share_its_reciprocal():
    """texture_bilinear's wrap addressing (unseen95/): four inlined texel calls, each
    ``((x % tw) + tw) % tw``.  nvcc computes tw's reciprocal once (two MUFU.RCP for sixteen
    remainders by tw and th in its SASS), so after the first each % costs what one by the
    last trip's divisor costs, in an if after it too; ``i / w`` then ``i % w`` is one
    division and an IMAD.  A divisor written in between, a first % that only some lanes
    reach, or a loop (whose trips may change the divisor) starts again."""
    from simt.machine import OP_COST
    src = """
    __device__ int wrap(int x, int w) { return ((x % w) + w) % w; }
    extern "C" __global__ void k(int *out, int w, int h) {
        int x = threadIdx.x * 37 - 500;
        BODY
    }"""
    full, again = OP_COST["idiv"][1], OP_COST["idiv_again_s"][1]
    cases = {
        "calls": ("out[threadIdx.x] = wrap(x, w) + wrap(x + 1, w) + wrap(x, h);", 2 * full + 4 * again),
        "pair": ("out[threadIdx.x] = x / w * 1000 + x % w;", full),
        "rewritten": ("int a = x % w; w = w + 1; out[threadIdx.x] = a + x % w;", 2 * full),
        "branch": ("int a = x % w; if (x > 0) a += (x + 1) % w; out[threadIdx.x] = a;", full + again),
        "in_branch": ("int a = 0; if (x > 0) a = x % w; out[threadIdx.x] = a + (x + 1) % w;", 2 * full),
        "loop": ("int a = x % w; for (int i = 0; i < 3; i++) { a += (x + i) % w; w += 2; } out[threadIdx.x] = a;",
                 4 * full),
    }
    for name, (body, extra) in cases.items():
        m = _one_warp(src.replace("BODY", body), "k",
                      lambda dev: [dev.zeros(32, np.int32), np.int32(7), np.int32(5)])
        assert m.get("simt__issue_extra_cycles.sum", 0) == extra, name


def test_a_64_bit_division_costs_the_path_each_lane_takes():
    """A 64-bit % by a value: lanes whose operands fit in 32 bits take the 32-bit sequence,
    the others the 64-bit routine (div64/: 340 cycles, 97 of issue), every trip; a warp with
    both runs both.  % by a constant is the multiply-high sequence."""
    from simt.machine import OP_COST
    src = """
    extern "C" __global__ void chain(unsigned long long *out, unsigned long long d, int big) {
        unsigned long long x = threadIdx.x + 1000000ull + (threadIdx.x < big ? (1ull << 40) : 0);
        for (int i = 0; i < 16; i++) x = OP + (x & (1ull << 40));
        out[threadIdx.x] = x;
    }"""
    got = {}
    for name, op, big in (("short", "x % d", 0), ("long", "x % d", 32), ("mixed", "x % d", 5),
                          ("const", "x % 1000000007ull", 0)):
        m = _one_warp(src.replace("OP", op), "chain",
                      lambda dev: [dev.zeros(32, np.uint64), np.uint64(99991), np.int32(big)])
        got[name] = (m["simt__block_cycles.max"], m.get("simt__issue_extra_cycles.sum", 0))
    short, long = OP_COST["idiv64_32"], OP_COST["idiv64_u"]
    assert got["short"][1] == 16 * short[1]
    assert got["long"][1] == 16 * long[1]
    assert got["mixed"][1] == 16 * (short[1] + long[1])
    assert got["const"][1] == 16 * OP_COST["imod64_const"][1]
    assert got["mixed"][0] > 16 * (short[0] + long[0]) > got["long"][0] > 16 * long[0] > got["short"][0]


@pytest.mark.parametrize("op, key", [
    ("x % 10ull", "imod64_const"), ("x / 10ull", "idiv64_const"),
    ("x % 1000000007ull", "imod64_const"),
    ("x % 2147483647ull", "imod64_const_add"), ("x / 7ull", "idiv64_const_add"),
    ("x % 2305843009213693951ull", "imod64_const_add"),
    ("(unsigned)x % 10u", "umod_const"), ("(unsigned)x / 10u", "udiv_const"),
    ("(unsigned)x % 7u", "umod_const_add"), ("(unsigned)x / 1000000007u", "udiv_const_add"),
    ("(int)x % 7", "idiv_const"),
])
def test_a_division_by_a_constant_costs_what_its_reciprocal_needs(op, key):
    """nvcc divides by a constant with a multiply by its "magic" reciprocal; where that
    needs one bit more than the word (64-bit / 7, % (2^31 - 1); 32-bit / 7, / (10^9 + 7)),
    it adds a fix-up before the last shift: 24.8 SMSP cycles a step for a 64-bit % 7 or %
    (2^31 - 1) against 18.5 for % 10 or % (10^9 + 7) (divconst/, H200).  probe/minhash-
    shingle-sig's (a x + b) % (2^31 - 1) went from 0.62 to 0.78 of its time."""
    from simt.machine import OP_COST
    src = """
    extern "C" __global__ void chain(unsigned long long *out) {
        unsigned long long x = threadIdx.x * 2654435761ull + (1ull << 40);
        for (int i = 0; i < 16; i++) x = (OP) + x * 3ull;
        out[threadIdx.x] = x;
    }"""
    m = _one_warp(src.replace("OP", op), "chain", lambda dev: [dev.zeros(32, np.uint64)])
    assert m["simt__issue_extra_cycles.sum"] == pytest.approx(16 * OP_COST[key][1])
    assert (OP_COST["imod64_const_add"][1] > OP_COST["imod64_const"][1]
            and OP_COST["umod_const_add"][1] > OP_COST["umod_const"][1] > OP_COST["udiv_const"][1])


@pytest.mark.parametrize("loop, divisor, trips", [
    ("for (int h = 1; h < 256; h *= 2)", "pow2", 8),      # fft1024's stages: shifts and masks
    ("for (int h = 3; h < 10; h++)", "const", 7),          # constants, not powers of two
])
def test_division_by_an_unrolled_counter_is_by_a_constant(loop, divisor, trips):
    """nvcc unrolls a loop of constant trips fully, so its counter is a constant in each
    copy: `tid / half` and `tid % half` in fft1024 (probes22.cu) are a shift and a mask (its
    SASS has no division), where simt had charged the whole division sequence each time
    (1.59x fft1024-shared's time); by a constant that is no power of two, a multiply-high."""
    from simt.machine import OP_COST
    src = f"""
    extern "C" __global__ void k(int *out) {{
        int x = 0;
        {loop} x += (int)threadIdx.x / h + (int)threadIdx.x % h;
        out[threadIdx.x] = x;
    }}"""
    mod = simt.Module.from_source(src, "t.cu")
    dev = simt.Device()
    out = dev.zeros(32, np.int32)
    res = mod.get_function("k").launch(dev, simt.LaunchConfig.of(1, 32), [out])
    hs = [1 << j for j in range(8)] if divisor == "pow2" else list(range(3, 10))
    t = np.arange(32)
    assert out.get().tolist() == sum(t // h + t % h for h in hs).tolist()
    marks = [i.info.get("divisor") for i in mod.get_function("k").ir.code if i.op == simt.ir.Op.BIN and i.sub in ("div", "mod")]
    assert marks == [divisor, divisor]
    extra = res.metrics.get("simt__issue_extra_cycles.sum", 0)
    assert extra == (0 if divisor == "pow2" else 2 * trips * OP_COST["idiv_const"][1])


def test_math_functions_cost_their_measured_sequences():
    """expf, sinf, pow (double) ... are one IR call but a SASS sequence: each costs its
    OP_COST latency and issue (timing_investigation/math/); __expf costs less than expf;
    an operation not in the table (fabsf) costs one slot."""
    from simt.machine import OP_COST
    src = """
    extern "C" __global__ void chain(float *out, double *dout) {
        float x = threadIdx.x * 0.01f;
        double y = threadIdx.x * 0.01;
        for (int i = 0; i < 16; i++) { x = OP; y = DOP; }
        out[threadIdx.x] = x;
        dout[threadIdx.x] = y;
    }"""
    got = {}
    for name, op, dop in (("expf", "expf(-x) + 0.5f", "y"), ("fast", "__expf(-x) + 0.5f", "y"),
                          ("sinf", "sinf(x) + 1.5f", "y"), ("fabsf", "fabsf(x) + 1.5f", "y"),
                          ("dlog", "x", "log(y) + 1.5"), ("ddiv", "x", "3.0 / y + 1.5")):
        m = _one_warp(src.replace("DOP", dop).replace("OP", op), "chain",
                      lambda dev: [dev.zeros(32, np.float32), dev.zeros(32, np.float64)])
        got[name] = (m["simt__block_cycles.max"], m.get("simt__issue_extra_cycles.sum", 0))
    for name, key in (("expf", "m_exp_f4"), ("fast", "m_exp_f4_fast"), ("sinf", "m_sin_f4"),
                      ("dlog", "m_log_f8"), ("ddiv", "ddiv")):
        assert got[name][1] == pytest.approx(16 * OP_COST[key][1])
        assert got[name][0] > 16 * OP_COST[key][0]
    assert got["fabsf"][1] == 0
    assert got["fabsf"][0] < got["fast"][0] < got["expf"][0] < got["sinf"][0] < got["dlog"][0]


def test_match_any_costs_a_pass_per_distinct_value():
    from simt.machine import OP_COST
    src = """
    extern "C" __global__ void m(int *out, int k) {
        out[threadIdx.x] = __match_any_sync(0xffffffffu, threadIdx.x & (k - 1));
    }"""
    extra = {k: _one_warp(src, "m", lambda dev: [dev.zeros(32, np.int32), np.int32(k)])
             .get("simt__issue_extra_cycles.sum", 0) for k in (1, 4, 32)}
    per = OP_COST["match_value"][1]
    assert extra == {1: per, 4: 4 * per, 32: 32 * per}


def test_local_stores_to_different_words_count_lines():
    """h[bin]++ with a different bin per lane writes one 128-byte line per distinct bin;
    an index the same for every lane writes one line too (the array is in local memory:
    its run-time index keeps it there, simt.promote), as do the 8 stores of its zero
    initializer: 8 + 2 x 4 lines for 4 bins a warp, 8 + 2 x 1 for one."""
    src = """
    extern "C" __global__ void h(const int *bins, int *out, int n) {
        int hist[8] = {0};
        for (int i = 0; i < n; i++) hist[bins[i * 32 + threadIdx.x]]++;
        for (int b = 0; b < 8; b++) out[b * 32 + threadIdx.x] = hist[b];
    }"""
    spread = np.tile(np.arange(32) % 4, 2).astype(np.int32)          # 4 bins per warp
    same = np.full(64, 3, np.int32)
    lines = {}
    for name, bins in (("spread", spread), ("same", same)):
        m = _one_warp(src, "h", lambda dev: [dev.to_device(bins), dev.zeros(256, np.int32), np.int32(2)])
        lines[name] = m.get("simt__local_store_lines.sum", 0)
    assert lines == {"spread": 16, "same": 10}
    prof = timing.load_profile("h100")
    comp = timing.predict({"simt__local_store_lines.sum": 30360}, 1, 32, 0, prof).components_us
    assert comp["local"] == pytest.approx(1.0)


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


def test_sample_spreads_over_the_grid_in_seeded_runs():
    from simt.module import SAMPLE_RUN, sample_block_ids
    ids = sample_block_ids(16384, 512, seed=0)
    assert len(ids) == len(set(ids.tolist())) == 512 and (np.diff(ids) > 0).all()
    assert ids.min() < 16384 // 64 and ids.max() >= 16384 - 16384 // 64   # both ends of the grid
    # each stratum of 16384 / 64 blocks holds one run of SAMPLE_RUN blocks (one wrap at most)
    strata = ids // (16384 // (512 // SAMPLE_RUN))
    assert (np.bincount(strata, minlength=64) == SAMPLE_RUN).all()
    assert (sample_block_ids(16384, 512, seed=0) == ids).all()
    assert not (sample_block_ids(16384, 512, seed=1) == ids).all()
    assert (sample_block_ids(100, 100) == np.arange(100)).all()
    # every block is as likely to be drawn: over many seeds, a stratum's first and last
    # blocks as often as its middle ones (a run that could not wrap would rarely reach them)
    pos = np.zeros(512, int)
    for s in range(1000):
        pos += np.bincount(sample_block_ids(4096, 64, seed=s) % 512, minlength=512)
    edges = np.concatenate([pos[:4], pos[-4:]])
    assert edges.mean() == pytest.approx(pos.mean(), rel=0.25)


TRIANGLE = r"""
__global__ void triangle(int *out) {
    int s = 0;
    for (int i = 0; i < blockIdx.x; i++) s += i ^ threadIdx.x;
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
"""


def test_sampled_work_that_grows_over_the_grid_is_not_biased(tmp_path):
    """Block b loops b times: the first blocks alone would see a twentieth of the work."""
    src = tmp_path / "tri.cu"
    src.write_text(TRIANGLE)
    k = simt.Module.from_file(str(src)).get_function("triangle")
    nb = 2048
    full = part = None
    for sb in (None, 128):
        dev = simt.Device()
        out = dev.zeros(nb * 64, np.int32)
        r = k.launch(dev, simt.LaunchConfig.of(nb, 64), [out], sanitize=False, sample_blocks=sb)
        if sb is None:
            full = r
        else:
            part = r
    assert part.sampled_blocks == 128 and part.total_blocks == nb
    fi, pi = full.metrics["smsp__inst_executed.sum"], part.metrics["smsp__inst_executed.sum"]
    assert pi == pytest.approx(fi, rel=0.1)
    prof = timing.load_profile("h100")
    a = timing.predict(full.metrics, nb, 64, 0, prof).ms
    b = timing.predict(part.metrics, nb, 64, 0, prof).ms
    assert b == pytest.approx(a, rel=0.15)


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
           "reduction/best", "histogram/best", "histogram/naive", "histogram/naive-u8"]
    measured = timing_check.measure(ids)
    tab = timing_check.predict_table(measured, gpu)
    for r in tab["rows"]:
        assert "error" not in r
        assert 1 / 1.5 <= r["ratio"] <= 1.5, (r["id"], r["n"], r["ratio"])


CAS_LOOP = r'''
extern "C" __global__ void cas_loop(int *slot, int val) {
    int old = *slot, assumed;
    do {
        assumed = old;
        old = atomicCAS(slot, assumed, assumed + val);
    } while (old != assumed);
}
'''


@pytest.mark.parametrize("val, lanes, failed", [(1, 32 * 33 // 2, 31 * 32 // 2), (0, 32, 0)])
def test_cas_attempts_and_failures_are_counted(val, lanes, failed):
    """One warp's 32 lanes on one word, in lockstep: a CAS that changes the word lets one
    lane win a round and the rest retry (32 + 31 + ... + 1 attempts, 31 + 30 + ... failures);
    one that writes back what it read never fails."""
    mod = simt.Module.from_source(CAS_LOOP, "cas_loop.cu")
    dev = simt.Device()
    slot = dev.to_device(np.zeros(1, np.int32))
    res = mod.get_function("cas_loop").launch(dev, simt.LaunchConfig.of(1, 32), [slot, np.int32(val)])
    assert int(slot.get()[0]) == 32 * val
    m = res.metrics
    assert m["simt__atomic_cas_lanes.sum"] == lanes
    assert m["simt__atomic_cas_failed.sum"] == failed
    assert m["simt__l2_slice_cas_transactions.max"] == m["simt__l2_slice_transactions.max"] > 0
    assert m["simt__lockstep_threads.max"] == 32


def test_cas_retries_follow_the_contenders_in_flight():
    """The emulator's lockstep failures become the GPU's: S contenders of a word cost the
    lockstep (S - 1) / 2 failures per success, the GPU c(X) times the other contenders in
    flight, (S - 1) / 2 k, with k = 1 when the whole grid runs at once and the resident
    threads' share of the word in a steady state of many waves; c falls as X = S / 2 k
    grows (few contenders retry almost in lockstep, many queue in the L2); no failures,
    no retries."""
    prof = timing.load_profile("h100")
    c32, slope = prof.cas_contention, prof.cas_contention_slope
    assert 0.3 < c32 < 1.0 and 0.05 < slope < 0.5 and 1.0 < prof.cas_cost < 3.0
    # 16 contenders a word (7.5 failures per success), the grid emulated and run at once
    m = {"simt__atomic_cas_lanes.sum": 8500, "simt__atomic_cas_failed.sum": 7500,
         "simt__lockstep_threads.max": 4096}
    assert timing.cas_scale(4096, 4096, 270336) == pytest.approx(1.0)
    assert timing.cas_contenders(7.5, 4096, 4096, 270336) == pytest.approx(8.0)
    once = timing.cas_retries(m, prof, 4096, 270336)
    assert once == pytest.approx((1000 + c32 * (8 / 32) ** -slope * 7500) / 8500)
    # a sample of 2^17 threads from a grid of 2^24: X = the resident threads' contenders
    m["simt__lockstep_threads.max"] = 131072
    k = 270336 / 131072 * (2 - 270336 / (1 << 24))
    assert timing.cas_scale(131072, 1 << 24, 270336) == pytest.approx(k)
    x = timing.cas_contenders(7.5, 131072, 1 << 24, 270336)
    assert x == pytest.approx(8 * k)
    many = timing.cas_retries(m, prof, 1 << 24, 270336)
    assert many == pytest.approx((1000 + c32 * (x / 32) ** -slope * k * 7500) / 8500)
    assert many > once
    assert timing.cas_retries({**m, "simt__atomic_cas_failed.sum": 0}, prof, 1 << 24, 270336) == 1.0
    # the slice time: CAS transactions cost cas_cost times an atomicAdd's, times the retries
    base = {"simt__l2_slice_transactions.max": 1000, "simt__l2_slice_cas_transactions.max": 1000}
    plain = timing._slice_us({"simt__l2_slice_transactions.max": 1000}, prof, 1 << 24, 270336)
    assert timing._slice_us({**base, **m}, prof, 1 << 24, 270336) == pytest.approx(plain * prof.cas_cost * many)
    # beyond the most contenders cal_gcas measured, c is held: 1000 failures per success
    # from a lockstep batch of 2^15 threads on a grid of 2^24 is X ~ 16500
    big = {"simt__atomic_cas_lanes.sum": 1001 * 64, "simt__atomic_cas_failed.sum": 1000 * 64,
           "simt__lockstep_threads.max": 32768}
    x = timing.cas_contenders(1000, 32768, 1 << 24, 270336)
    assert x > 4 * prof.cas_contenders_max
    c_held = c32 * (prof.cas_contenders_max / 32) ** -slope
    k = timing.cas_scale(32768, 1 << 24, 270336)
    assert timing.cas_retries(big, prof, 1 << 24, 270336) == pytest.approx((64 + c_held * k * 64000) / 64064)


CAS_IDX = r'''
extern "C" __global__ void cas_idx(int *slots, int words) {
    int *slot = &slots[threadIdx.x % words];
    int old = *slot, assumed;
    do {
        assumed = old;
        old = atomicCAS(slot, assumed, assumed + 1);
    } while (old != assumed);
}
'''


@pytest.mark.parametrize("threads, words, lanes, failed, distinct", [
    (64, 32, 96, 32, 96),    # each warp on words 0..31: warp 1 loses its first round to warp 0
    (32, 16, 48, 16, 16),    # lanes i and i + 16 share a word: the first round has no
                             # distinct warp, the 16 losers then retry on 16 words
])
def test_cas_lanes_of_warps_on_different_words_are_counted(threads, words, lanes, failed, distinct):
    """``simt__atomic_cas_distinct_lanes.sum``: CAS lanes whose warp's lanes all name
    different words (lane order), the pattern that retries more in a steady state."""
    mod = simt.Module.from_source(CAS_IDX, "cas_idx.cu")
    dev = simt.Device()
    slots = dev.to_device(np.zeros(words, np.int32))
    res = mod.get_function("cas_idx").launch(dev, simt.LaunchConfig.of(1, threads), [slots, np.int32(words)])
    assert slots.get().tolist() == [threads // words] * words
    m = res.metrics
    assert (m["simt__atomic_cas_lanes.sum"], m["simt__atomic_cas_failed.sum"],
            m["simt__atomic_cas_distinct_lanes.sum"]) == (lanes, failed, distinct)


def test_lane_order_cas_retries_more_in_a_steady_state():
    """c' = c + d s (cas_distinct - c): lanes of warps on different words (d) in the
    steady-state share of the grid (s = 1 - resident / grid) retry at cal_gcas's lane-order
    rate; a grid that runs at once, or warps whose lanes collide, keep the hashed law."""
    prof = timing.load_profile("h100")
    assert prof.cas_distinct > timing.cas_law(1e9, prof)       # 0.52 against 0.28 held
    m = {"simt__atomic_cas_lanes.sum": 1001 * 64, "simt__atomic_cas_failed.sum": 1000 * 64,
         "simt__lockstep_threads.max": 32768}
    grid, resident = 1 << 24, 270336
    k = timing.cas_scale(32768, grid, resident)
    c = timing.cas_law(timing.cas_contenders(1000, 32768, grid, resident), prof)
    hashed = timing.cas_retries(m, prof, grid, resident)
    assert hashed == pytest.approx((64 + c * k * 64000) / 64064)
    lane = timing.cas_retries({**m, "simt__atomic_cas_distinct_lanes.sum": 1001 * 64}, prof, grid, resident)
    s = 1 - resident / grid
    assert lane == pytest.approx((64 + (c + s * (prof.cas_distinct - c)) * k * 64000) / 64064)
    # mul-float's 64 products at 2^24: 0.61 of its time with the hashed law, 1.02 now
    assert lane / hashed == pytest.approx((c + s * (prof.cas_distinct - c)) / c, rel=1e-3)
    assert 1.6 < lane / hashed < 2.0
    # all at once: no steady state, the law alone
    fits = {**m, "simt__atomic_cas_distinct_lanes.sum": 1001 * 64}
    assert timing.cas_retries(fits, prof, resident, resident) == timing.cas_retries(m, prof, resident, resident)


def test_a_sparse_race_costs_few_retries():
    """Keys hashed over a large table: one slot in a hundred has two contenders in the
    lockstep batch, the rest one.  A lone contender never fails, so the GPU's retries are
    the few lost races scaled by c(X) k, not c(X) X for every success (which priced a hash
    table's inserts at 3.2 times their attempts, probe/hash-insert 1.85x its time)."""
    prof = timing.load_profile("h100")
    m = {"simt__atomic_cas_lanes.sum": 10100, "simt__atomic_cas_failed.sum": 100,
         "simt__lockstep_threads.max": 131072}
    r = timing.cas_retries(m, prof, 1 << 22, 270336)
    assert 1.0 < r < 1.05


def test_stale_cas_failures_are_not_retried_races():
    """A CAS on a word that already held another value (a hash probe finding its slot
    taken) fails without losing a race: counted as stale, made once on the GPU."""
    src = """extern "C" __global__ void k(unsigned *slot, unsigned *got) {
        got[threadIdx.x] = atomicCAS(&slot[threadIdx.x & 1], 0xffffffffu, threadIdx.x);
    }"""
    mod = simt.Module.from_source(src, "stale.cu")
    dev = simt.Device()
    slot = dev.to_device(np.array([7, 0xFFFFFFFF], np.uint32))    # slot 0 taken, slot 1 empty
    got = dev.to_device(np.zeros(4, np.uint32))
    res = mod.get_function("k").launch(dev, simt.LaunchConfig.of(1, 4), [slot, got])
    m = res.metrics
    # lanes 0 and 2 find slot 0 taken (stale); lane 1 takes slot 1, lane 3 loses it (a race)
    assert list(got.get()) == [7, 0xFFFFFFFF, 7, 1]
    assert m["simt__atomic_cas_lanes.sum"] == 4
    assert m["simt__atomic_cas_failed.sum"] == 3
    assert m["simt__atomic_cas_stale.sum"] == 2
    prof = timing.load_profile("h100")
    only_stale = {**m, "simt__atomic_cas_failed.sum": 2}
    assert timing.cas_retries(only_stale, prof, 4, 270336) == 1.0
    # lane 3 lost a race but made no second attempt (no loop): nothing to retry
    assert m["simt__atomic_cas_retried.sum"] == 0
    assert timing.cas_retries(m, prof, 4, 270336) == 1.0
    # in a CAS loop the loser tries the same word again: a retried race
    loop = simt.Module.from_source("""extern "C" __global__ void k(unsigned *slot) {
        if (threadIdx.x & 1) {
            unsigned old = slot[1], assumed;
            do { assumed = old; old = atomicCAS(&slot[1], assumed, assumed + 1u); } while (old != assumed);
        }
    }""", "retry.cu")
    slot = dev.to_device(np.array([7, 0xFFFFFFFF], np.uint32))
    m = loop.get_function("k").launch(dev, simt.LaunchConfig.of(1, 4), [slot]).metrics
    assert list(slot.get()) == [7, 1]
    assert m["simt__atomic_cas_failed.sum"] == m["simt__atomic_cas_retried.sum"] == 1
    assert timing.cas_retries(m, prof, 4, 270336) > 1.0


def test_a_cas_that_loses_to_its_own_key_and_leaves_is_no_race():
    """Welding a triangle soup by a CAS hash (probe/mesh-weld-soup-cas-hash, unseen111/):
    a vertex's corners in one warp CAS the same empty slot with the same key; one wins,
    the others get their own key back and leave (`prev == key`).  They lost in lockstep
    but retry nothing, so the GPU's retry law does not scale them (2.31 of the measured
    time when it did)."""
    src = """extern "C" __global__ void k(unsigned *table, const unsigned *keys) {
        unsigned key = keys[threadIdx.x], h = key & 7u;
        while (true) {
            unsigned prev = atomicCAS(&table[h], 0xffffffffu, key);
            if (prev == 0xffffffffu || prev == key) break;
            h = (h + 1u) & 7u;
        }
    }"""
    mod = simt.Module.from_source(src, "weld.cu")
    dev = simt.Device()
    table = dev.to_device(np.full(8, 0xFFFFFFFF, np.uint32))
    keys = np.repeat(np.array([3, 11, 4, 5], np.uint32), 8)       # 3 and 11 collide at slot 3
    m = mod.get_function("k").launch(dev, simt.LaunchConfig.of(1, 32), [table, dev.to_device(keys)]).metrics
    assert sorted(table.get().tolist()) == sorted([3, 11, 4, 5] + [0xFFFFFFFF] * 4)
    assert m["simt__atomic_cas_failed.sum"] > 20                   # the same-key losers, and 11's probes
    assert m["simt__atomic_cas_retried.sum"] == 0
    assert timing.cas_retries(m, timing.load_profile("h200"), 32, 270336) == 1.0


def test_cas_predictions_do_not_depend_on_the_sample():
    """A CAS loop's emulated retries grow with the threads emulated at once, the GPU's do
    not: the rescaled prediction is the same from 32 or 128 sampled blocks, so `auto`
    samples kernels with an atomicCAS with fewer threads (2^15 instead of 2^18)."""
    from kernels_cuda import catalog
    from kernels_cuda.backend import EmulatorBackend, auto_sample, has_cas
    e = catalog.get("atomics/cas-add")
    inp = e.inputs(n=1 << 20, seed=0)
    prof = timing.load_profile("h100")
    preds, fails = [], []
    for sb in (32, 128):
        be = EmulatorBackend(sanitize=False, sample_blocks=sb)
        e.run(be, inp)
        r = be.launches[0]
        preds.append(timing.predict_result(r, prof).ms)
        fails.append(r.metrics["simt__atomic_cas_failed.sum"])
    assert fails[1] > 3 * fails[0]                 # the emulator's retries grew with the sample
    assert preds[1] == pytest.approx(preds[0], rel=0.1)
    cfg = simt.LaunchConfig.of(1 << 16, 256)
    cas_kernel = be.module(e.source).get_function("histogram_cas")
    other = be.module("histogram.cu").get_function(catalog.get("histogram/atomic").kernels[0])
    assert has_cas(cas_kernel) and not has_cas(other)
    assert auto_sample(cfg, cas_kernel) == (1 << 15) // 256
    assert auto_sample(cfg, other) == (1 << 18) // 256
    assert auto_sample(simt.LaunchConfig.of(1 << 14, 256), cas_kernel) is None


def test_retouches_miss_l2_beyond_the_share_it_keeps():
    """Re-touches of a random table cost nothing while L2 keeps it (the calibrated
    ``l2_reuse_bytes``, about 45% of L2: timing_investigation/l2miss/) and miss in the
    proportion 1 - C / W beyond; each miss is a random chunk read, slower than a stream's,
    and a scattered sector written back costs ``dram_rewrite_cost`` read sectors."""
    for gpu, l2_mib in (("h100", 50), ("h200", 60)):
        prof = timing.load_profile(gpu)
        c = prof.l2_reuse_bytes
        assert 0.35 * l2_mib * 2**20 < c < 0.6 * l2_mib * 2**20
        assert 0.4 < prof.dram_random_eff < 1.0 and 1.0 < prof.dram_rewrite_cost < 4.0
        base = {"simt__dram_read_chunks64.sum": 1 << 20, "simt__dram_scattered_chunks64.sum": 1 << 20,
                "simt__dram_reread_chunks64.sum": 1 << 24}
        assert timing.reread_miss({**base, "simt__dram_retouched_bytes.max": c // 2}, prof) == 0.0
        assert timing.reread_miss({**base, "simt__dram_retouched_bytes.max": 4 * c}, prof) == pytest.approx(0.75)
        stream_us = timing.dram_time_us({"simt__dram_read_chunks64.sum": 1 << 20}, prof)
        assert stream_us == pytest.approx((1 << 26) / (prof.dram_gbs * 1e3))
        small = timing.dram_time_us({**base, "simt__dram_retouched_bytes.max": c // 2}, prof)
        assert small == pytest.approx(stream_us / prof.dram_random_eff)
        big = timing.dram_time_us({**base, "simt__dram_retouched_bytes.max": 4 * c}, prof)
        assert big == pytest.approx(small * (1 + 16 * 0.75))
        written = {"simt__dram_read_chunks64.sum": 0, "simt__dram_written_sectors.sum": 1 << 20,
                   "simt__dram_scattered_sectors_written.sum": 1 << 20, "simt__dram_fill_sectors.sum": 1 << 20}
        assert timing.dram_time_us(written, prof) == pytest.approx(
            small * (2 + prof.dram_rewrite_cost) / 2)
        # without the calibration (an old profile) every re-touch is a miss at the stream's rate
        for f in ("l2_reuse_bytes", "dram_random_eff", "dram_rewrite_cost"):
            setattr(prof, f, 0.0)
        assert timing.dram_time_us({**base, "simt__dram_retouched_bytes.max": 1}, prof) == pytest.approx(17 * stream_us)


def test_a_blocks_re_reads_miss_l2_once_the_gpu_touched_about_its_size_between():
    """A block's re-touch misses L2 with probability 1 / (1 + (C / d)^k), d the bytes
    the GPU's resident blocks touched in between (each block's, from the emulator, times
    the resident blocks): half at d = C (calibrated, L2's size and some of L1's), hardly
    any at half of it, nearly all at twice.  Each miss is read again at the streaming
    rate; a profile without C counts none."""
    k = counters.RETOUCH_STEEPNESS
    for gpu, l2_mib in (("h100", 50), ("h200", 60)):
        prof = timing.load_profile(gpu)
        c = prof.l2_retouch_bytes
        assert 0.9 * l2_mib * 2**20 < c < 1.4 * l2_mib * 2**20
        resident = 1056
        at = lambda d: {"simt__dram_read_chunks64.sum": 1 << 20, "simt__l2_retouch_sectors.sum": 1 << 21,
                        **{f"simt__l2_retouch_block_bytes.q{i}": d / resident for i in range(8)}}
        assert timing.retouch_miss(at(c), prof, resident) == pytest.approx(0.5)
        assert timing.retouch_miss(at(c / 2), prof, resident) == pytest.approx(1 / (1 + 2 ** k))
        assert 1 / (1 + 2 ** k) < 0.02
        assert timing.retouch_miss(at(2 * c), prof, resident) > 0.98
        # the same block bytes with half the blocks resident: half the distance
        assert timing.retouch_miss(at(c), prof, resident // 2) == pytest.approx(1 / (1 + 2 ** k))
        # quantiles average: half of them at c / 2, half at 2c
        mixed = {**at(c), **{f"simt__l2_retouch_block_bytes.q{i}": (c / 2 if i < 4 else 2 * c) / resident
                             for i in range(8)}}
        assert timing.retouch_miss(mixed, prof, resident) == pytest.approx(0.5)
        stream_us = timing.dram_time_us({"simt__dram_read_chunks64.sum": 1 << 20}, prof)
        assert timing.dram_time_us(at(c), prof, resident) == pytest.approx(1.5 * stream_us)
        prof.l2_retouch_bytes = 0.0
        assert timing.dram_time_us(at(c), prof, resident) == pytest.approx(stream_us)


def test_a_samples_re_touches_of_a_random_table_miss_by_their_distance():
    """The sample's own re-touches of a randomly touched table miss L2 by the law of a
    block's re-reads (the bytes the GPU touched in between against ``l2_retouch_bytes``),
    each miss a random chunk; an atomic's sector that missed is written back again at
    ``dram_rewrite_cost``.  Near touches cost nothing (a hot table stays in L2), far ones
    nearly all (unseen219/: a 128 MiB Bloom filter's atomicOr, 0.48 of its H200 time
    while they counted as hits)."""
    resident = 1056
    for gpu in ("h100", "h200"):
        prof = timing.load_profile(gpu)
        c = prof.l2_retouch_bytes
        base = {"simt__dram_read_chunks64.sum": 1 << 20, "simt__dram_scattered_chunks64.sum": 1 << 20}
        at = lambda d, rmw=0: {**base, "simt__l2_retouch_table_sectors.sum": 1 << 22,
                               "simt__l2_retouch_table_rmw_sectors.sum": rmw,
                               **{f"simt__l2_retouch_table_block_bytes.q{i}": d / resident for i in range(8)}}
        assert timing.table_retouch_miss(at(c), prof, resident) == pytest.approx(0.5)
        assert timing.table_retouch_miss(at(c / 4), prof, resident) < 0.001
        assert timing.table_retouch_miss(at(4 * c), prof, resident) > 0.999
        # the block re-reads' own law is untouched by the table's
        assert timing.retouch_miss(at(4 * c), prof, resident) == 0.0
        alone = timing.dram_time_us(base, prof, resident)
        assert alone == pytest.approx((1 << 26) / (prof.dram_gbs * 1e3) / prof.dram_random_eff)
        assert timing.dram_time_us(at(c / 4), prof, resident) == pytest.approx(alone, rel=1e-3)
        assert timing.dram_time_us(at(c), prof, resident) == pytest.approx(alone * (1 + 0.5 * 2))
        assert timing.dram_time_us(at(c, 1 << 21), prof, resident) == pytest.approx(
            alone * (1 + 0.5 * (2 + prof.dram_rewrite_cost)))


def test_re_reads_that_miss_l2_wait_on_dram():
    """The launch's profile decides which re-touches miss (its C, the blocks it holds),
    and those loads wait on DRAM: each warp's second pass over its row is on the critical
    path, so the blocks take longer than with a profile whose L2 held every row."""
    from dataclasses import replace
    from kern import run
    from simt.machine import LAT
    src = '''extern "C" __global__ void two_pass(const float *x, float *y, int cols) {
        int w = (blockIdx.x * blockDim.x + threadIdx.x) >> 5, lane = threadIdx.x & 31;
        const float *r = x + (size_t)w * cols;
        float s = 0.f;
        for (int c = lane; c < cols; c += 32) s += r[c];
        for (int c = lane; c < cols; c += 32) y[(size_t)w * cols + c] = r[c] * s;
    }'''
    rows, cols = 1 << 14, 1 << 10
    x = np.ones(rows * cols, np.float32)
    cycles = {}
    for name, c in (("holds", 1e12), ("misses", 1e6)):
        prof = replace(timing.load_profile("h100"), l2_retouch_bytes=c)
        _, res = run(src, "two_pass", rows // 8, 256, [x, np.zeros(rows * cols, np.float32), np.int32(cols)],
                     sanitize=False, sample_blocks=16, gpu=prof)
        cycles[name] = res.metrics["simt__block_cycles.mean"]
    extra = LAT["dram"] - LAT["global"]
    # 32 trips of the second loop, each waiting on its load (they cannot pass the stores)
    assert cycles["misses"] - cycles["holds"] > 8 * extra


def _l2miss_source() -> str:
    """The kernels of the l2miss sweep (timing_investigation/l2miss/l2miss_mb.py)."""
    import re
    text = (RESULTS / "timing_investigation" / "l2miss" / "l2miss_mb.py").read_text()
    return re.search(r"SRC = r'''(.*?)'''", text, re.S).group(1)


@pytest.mark.gpu
def test_random_tables_in_and_beyond_l2_within_1_5x_on_this_gpu(tmp_path):
    """2^24 random loads, stores and reductions over a table L2 keeps (16 MiB) and one it
    mostly cannot (256 MiB): the emulator's sampled counters and the present GPU's profile
    predict each within 1.5x (timing_investigation/l2miss/ has the full sweep)."""
    from kern import gpu_or_skip
    gpu_or_skip()
    from kernels_cuda import cupy_backend as cb
    from kernels_cuda.backend import EmulatorBackend
    src = tmp_path / "l2miss.cu"
    src.write_text(_l2miss_source())
    gpu = "h200" if "H200" in cb.device_info()["name"] else "h100"
    prof = timing.load_profile(gpu)
    n = 1 << 24
    rng = np.random.default_rng(0)
    for mib in (16, 256):
        idx = rng.integers(0, mib << 18, n).astype(np.int32)
        for kernel in ("ld_only", "st_only", "red_add"):
            times = {}
            for be in (cb.CupyBackend(timed=True, warmup=3, repeat=10),
                       EmulatorBackend(sanitize=False, sample_blocks=512)):
                args = [be.to_device(idx), be.zeros(mib << 18, np.uint32), np.int32(n)]
                be.launch(str(src), kernel, n // 256, 256, args)
                r = be.launches[-1]
                times[be.name] = r.ms if be.name == "cuda" else timing.predict_result(r, prof).ms
            ratio = times["emulator"] / times["cuda"]
            assert 1 / 1.5 <= ratio <= 1.5, (kernel, mib, times)


def test_bank_conflicts_of_shared_atomics_cost_their_wavefronts():
    """Shared atomics whose lanes hit different words of one bank pass through the banks
    once per word, as a conflicted load does (the H100 takes 33 cycles an SM for a 32-way
    conflicted atomicAdd, 2.8 for a free one: timing_investigation/satom/); lanes on one
    word merge and cost nothing more."""
    from kern import run
    src = """
    extern "C" __global__ void hist(int *out, int stride, int reps) {
        __shared__ int s[1024];
        for (int i = threadIdx.x; i < 1024; i += blockDim.x) s[i] = 0;
        __syncthreads();
        for (int r = 0; r < reps; r++) atomicAdd(&s[((threadIdx.x & 31) * stride + r) & 1023], 1);
        __syncthreads();
        if (threadIdx.x == 0) out[blockIdx.x] = s[0];
    }"""
    prof = timing.load_profile("h100")
    got = {}
    for name, stride in (("free", 1), ("same", 0), ("bank32", 32)):
        _, res = run(src, "hist", 1056, 256, [np.zeros(1056, np.int32), np.int32(stride), np.int32(256)],
                     sanitize=False, sample_blocks=8)
        m = res.metrics
        got[name] = timing.predict_result(res, prof)
        waves = {"free": 1, "same": 1, "bank32": 32}[name]
        assert m[counters.WAVES_ATOM] == waves * m[counters.SHARED_ATOM]
        waves_all = m[counters.WAVES_ATOM] + m[counters.WAVES_LD] + m[counters.WAVES_ST]
        assert got[name].components_us["shared"] == pytest.approx(
            waves_all / (132 * prof.shared_waves_per_us_sm), rel=1e-3)
    assert got["bank32"].bound == "shared"
    assert got["bank32"].ms > 8 * got["free"].ms
    assert got["same"].ms == pytest.approx(got["free"].ms, rel=0.05)


# ------------------------------------------------------------------ the slice's queue

def test_arrivals_keep_their_quantiles_through_compaction():
    """simt.arrivals keeps a bounded summary of when transactions were issued: its
    weighted quantiles survive the compaction of a long launch's million arrivals."""
    from simt.arrivals import Arrivals
    rng = np.random.default_rng(1)
    a = Arrivals()
    t = rng.uniform(0, 1000, 1 << 20)
    w = rng.integers(1, 5, t.size)
    for k in range(0, t.size, 4096):
        a.add(t[k:k + 4096], w[k:k + 4096])
    assert a.n <= 16 * 2048 + 4096
    o = np.argsort(t)
    cw = np.cumsum(w[o])
    exact = [t[o][np.searchsorted(cw, (q + 0.5) / 8 * cw[-1])] for q in range(8)]
    assert a.quantiles() == pytest.approx(exact, abs=2.0)
    assert Arrivals().quantiles() == [0.0] * 8


FLUSH_SRC = """
extern "C" __global__ void flush_last(const float *x, unsigned *bins, int n) {
    unsigned acc = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        acc += (unsigned)(x[i] * 4.0f);
    atomicAdd(&bins[threadIdx.x & 255], acc);        // every block's atomics come last
}
extern "C" __global__ void flush_first(const float *x, unsigned *bins, int n) {
    atomicAdd(&bins[threadIdx.x & 255], 1u);         // ... or first
    unsigned acc = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        acc += (unsigned)(x[i] * 4.0f);
    if (acc == 0xffffffffu) bins[0] = acc;
}"""


def _flush(kernel, grid=264, n=1 << 20):
    mod = simt.Module.from_source(FLUSH_SRC, "flush.cu")
    dev = simt.Device()
    args = [dev.to_device(np.ones(n, np.float32)), dev.zeros(256, np.uint32), np.int32(n)]
    return mod.get_function(kernel).launch(dev, simt.LaunchConfig.of(grid, 256), args,
                                           sanitize=False, sample_blocks=8)


def test_atomics_issued_last_queue_after_the_loops():
    """A block that loops and then adds to 256 global bins issues its atomics at the end
    of its life (the arrival quantiles sit at its last cycles); in one wave they queue at
    the bins' slice after the loops, so the launch takes latency + contention, where the
    same atomics issued first overlap the loops (the larger of the two)."""
    prof = timing.load_profile("h100")
    last, first = _flush("flush_last"), _flush("flush_first")
    m = last.metrics
    life = m["simt__block_cycles.mean"]
    qs = [m[f"simt__l2_slice_arrival_cycles.q{q}"] for q in range(8)]
    assert min(qs) > 0.9 * life
    assert max(first.metrics[f"simt__l2_slice_arrival_cycles.q{q}"] for q in range(8)) < 0.1 * life
    p = timing.predict_result(last, prof)
    c = p.components_us
    assert p.waves == 1 and c["contention"] > 0.2 * c["latency"]
    assert p.bound == "latency+contention"
    # all arrivals at phase q / life of the one wave: the queue ends at that + all the work
    assert c["slice_queue"] == pytest.approx(min(qs) / life * c["latency"] + c["contention"], rel=0.01)
    q = timing.predict_result(first, prof).components_us
    assert q["slice_queue"] == pytest.approx(max(q["latency"], q["contention"]), rel=0.05)


def test_slice_queue_of_many_waves_is_the_larger_component():
    """Arrivals spread over many waves overlap the blocks' work: the queue ends about when
    the larger of the two does, plus at most a wave's share of the other."""
    m = {"simt__block_cycles.mean": 1000.0}
    m.update({f"simt__l2_slice_arrival_cycles.q{q}": 1000.0 * (q + 0.5) / 8 for q in range(8)})
    assert timing.slice_queue_us(m, 10.0, 100.0, 50) == pytest.approx(100.0, rel=0.03)
    assert timing.slice_queue_us(m, 100.0, 10.0, 50) == pytest.approx(100.0, rel=0.03)
    # one wave, arrivals spread evenly over the life: the first arrival plus all the work
    assert timing.slice_queue_us(m, 100.0, 100.0, 1) == pytest.approx(100.0 / 16 + 100.0)
    assert timing.slice_queue_us({}, 5.0, 100.0, 1) == 5.0


def test_gathered_lines_queue_at_the_slices_of_atomics_only():
    """probe/coo-spmv: the slices that serve a kernel's atomics serve its gathered lines
    one after the other.  Plain stores beside the gathers do not: spmv_csr_vector's 11 y
    stores beside 2^16 gathered x[col] lines took 19.6 us on the H100 where counting the
    lines in the slice's queue predicted 33 (timing_investigation/csrlat/, x1m)."""
    prof = timing.load_profile("h100")
    m = {"simt__l2_lines_ld.sum": 68186, "simt__l2_lines_ld_gather.sum": 65000,
         "simt__l2_slice_transactions.max": 3}
    lines_us = 65000 / prof.l2_ld_lines_per_cycle_sm / (3 * prof.clock_ghz * 1e3)
    stores = timing.predict(m, 3, 256, 0, prof).components_us
    assert stores["contention"] < 0.01 * lines_us
    atoms = timing.predict({**m, "simt__atomic_global_lanes.sum": 96}, 3, 256, 0, prof).components_us
    assert atoms["contention"] == pytest.approx(stores["contention"] + lines_us, rel=1e-3)


def test_slices_take_turns_when_the_resident_blocks_reach_a_part_of_the_region():
    """probe/seg-max (an atomicMax of 2^24 lanes into 1024 sorted segments): Nsight counts
    the busiest of the region's 8 slices at 2.1 M of its 16.8 M sectors, as simt does, but
    the 1056 resident blocks reach 16 words, one slice: 10.5 ms on the H100, where the 8
    slices working together would take 1.5.  Random keys keep every slice busy."""
    m = {"simt__l2_region_span_bytes.max": 4096, "simt__l2_region_block_span_bytes.max": 4.0,
         "simt__l2_region_span_per_block.max": 0.0625}
    assert timing.slices_in_turn(m, 1056) == 8.0
    assert timing.slices_in_turn(m, 1) == 8.0
    assert timing.slices_in_turn({**m, "simt__l2_region_span_per_block.max": 64.0}, 1056) == 1.0
    assert timing.slices_in_turn({**m, "simt__l2_region_block_span_bytes.max": 4096.0}, 1056) == 1.0
    assert timing.slices_in_turn({}, 1056) == 1.0
    prof = timing.load_profile("h100")
    base = {"simt__l2_slice_transactions.max": 2096160, "simt__l2_slice_serialized.max": 2030592,
            "simt__atomic_global_lanes.sum": 1 << 24}
    apart = timing.predict(base, 65536, 256, 0, prof).components_us["contention"]
    turns = timing.predict({**base, **m}, 65536, 256, 0, prof).components_us["contention"]
    assert turns == pytest.approx(8 * apart, rel=1e-3)
    assert 0.7 * 10548 < turns < 1.5 * 10548         # us, the H100's median


def test_predicated_off_shared_accesses_take_the_pipe():
    """blelloch_scan on the H100 (timing_investigation/pred/): Nsight's shared wavefronts
    of all kinds exceed its loads' and stores' by one per predicated-off LDS/STS, and the
    kernel takes what the larger figure costs: a shared access no lane makes still passes
    the LSU pipe once."""
    prof = timing.load_profile("h100")
    m = {counters.WAVES_LD: 764 * 16384, counters.WAVES_ST: 606 * 16384}
    base = timing.predict(m, 16384, 512, 4096, prof).components_us["shared"]
    off = timing.predict({**m, counters.SHARED_PRED_OFF: 883 * 16384}, 16384, 512, 4096,
                         prof).components_us["shared"]
    assert off == pytest.approx(base * (764 + 606 + 883) / (764 + 606), rel=1e-5)    # (rounded to ns)
    # the 170 us measured: the banks' wavefronts alone are half of it, with the
    # predicated-off slots the pipe is busy 83% of it (issue and latency do the rest)
    assert base < 0.55 * 170.1 and 0.8 * 170.1 < off < 170.1


def test_scattered_stores_from_few_sms():
    """L2 takes scattered store lines at one rate for the whole GPU (cal_scatter, every SM
    sending) and one SM sends at most its own (cal_scatter_gs from 16 blocks): 64 SMs with a
    block each send at their own rate, not at 64/132 of the GPU's (probe/integral-rows,
    1.68x its time on the H100 before; timing_investigation/fewsm/: 8 to 66 one-block SMs
    send 0.47-0.33 lines a cycle each, all 132 share 0.25)."""
    prof = timing.load_profile("h100")
    full, alone = prof.l2_st_lines_per_cycle_sm, prof.l2_st_lines_alone_per_cycle_sm
    assert 0.2 < full < 0.3 and 0.4 < alone < 0.5
    assert timing.st_lines_per_cycle_sm(prof, 132) == full
    assert timing.st_lines_per_cycle_sm(prof, 8) == alone
    assert timing.st_lines_per_cycle_sm(prof, 100) == pytest.approx(full * 132 / 100)
    m = {"simt__l2_lines_st.sum": 1_000_000}
    t64 = timing.predict(m, 64, 256, 0, prof).components_us["l2_lines"]
    t132 = timing.predict(m, 132, 256, 0, prof).components_us["l2_lines"]
    assert t64 == pytest.approx(1e6 / (64 * alone * prof.clock_ghz * 1e3), rel=1e-3)
    assert t64 > t132 == pytest.approx(1e6 / (132 * full * prof.clock_ghz * 1e3), rel=1e-3)


@pytest.mark.parametrize("words, ratio", [(256, 1.0), (1 << 20, 1.2)])
def test_atomics_spread_over_every_slice_scale_with_the_l2s_size(words, ratio):
    """2^24 atomicAdds at random words of a 4 MiB region take 1.19 times as long on the
    H100 (50 MiB of L2) as on the H200 (60 MiB); over 1 KiB, the same (timing_investigation/
    spread/). A region that reaches every slice has the GPU's slices: the contention
    component follows the L2's size there, and only there."""
    from pathlib import Path
    from kernels_cuda.backend import EmulatorBackend
    src = str(Path(__file__).resolve().parents[1] / "docs/results/timing_investigation/spread/spread.cu")
    be = EmulatorBackend(seed=0, sanitize=False, sample_blocks=64)
    n = 1 << 20
    be.launch(src, "spread_rnd", n // 256, 256, [be.zeros(words, np.uint32), np.uint32(words - 1), np.int32(n)])
    r = be.launches[-1]
    h100, h200 = (timing.predict_result(r, timing.load_profile(g)) for g in ("h100", "h200"))
    assert h100.bound == h200.bound == "contention"
    assert h100.components_us["contention"] / h200.components_us["contention"] == pytest.approx(ratio, rel=0.01)


def test_partial_sectors_cost_a_share_of_a_line():
    """A partial sector beyond a line's first costs L2 0.6 of a line's time
    (timing.PARTIAL_SECTOR_SHARE; timing_investigation/wmerge/: 0.56-0.70 on the H200,
    pstore/: 0.6 on the H100): 8 lines and 24 such sectors a request price as 22.4 lines."""
    prof = timing.load_profile("h200")
    lines = {"simt__l2_lines_st.sum": 8_000_000}
    both = dict(lines, **{"simt__l2_partial_sectors_st.sum": 24_000_000})
    t_lines = timing.predict(lines, 1024, 256, 0, prof).components_us["l2_lines"]
    t_both = timing.predict(both, 1024, 256, 0, prof).components_us["l2_lines"]
    assert timing.PARTIAL_SECTOR_SHARE == 0.6
    assert t_both == pytest.approx(t_lines * (8 + 0.6 * 24) / 8, rel=1e-3)


def test_a_gather_from_a_table_l2_keeps_part_of_waits_on_dram():
    """L2 keeps only ``l2_reuse_bytes`` of a table read at random (l2miss/), so in a launch
    that fits L2 a warp's gather from a larger table waits on DRAM unless every sector it
    reads is kept: 1 - s^k of the extra latency, s the kept share and k its sectors.  One
    warp chasing 32 pointers through 32 MiB took 399 ns a step on the H200 where an L2 hit
    takes 146 (probe/chase-l2-32m, unseen53/); a coalesced load is not a gather."""
    import dataclasses
    from simt.machine import GATHER_SECTORS, LAT
    src = """
    extern "C" __global__ void chase(const int *next, int *out, int steps) {
        int p = threadIdx.x * 97;
        for (int s = 0; s < steps; ++s) p = next[p];
        out[threadIdx.x] = p;
    }
    extern "C" __global__ void walk(const int *next, int *out, int steps) {
        int p = threadIdx.x, acc = 0;
        for (int s = 0; s < steps; ++s) { acc += next[p]; p = (p + 32) & 16383; }
        out[threadIdx.x] = acc;
    }"""
    words, steps = 1 << 14, 64                      # a 64 KiB table
    rng = np.random.default_rng(0)
    perm = rng.permutation(words).astype(np.int32)
    nxt = np.empty(words, np.int32)
    nxt[perm] = np.roll(perm, -1)
    base = timing.load_profile("h200")
    mod = simt.Module.from_source(src, "chase.cu")

    def cycles(kernel, keep):
        dev = simt.Device()
        prof = dataclasses.replace(base, l2_reuse_bytes=keep)
        res = mod.get_function(kernel).launch(dev, simt.LaunchConfig.of(1, 32),
                                              [dev.to_device(nxt), dev.zeros(32, np.int32), np.int32(steps)],
                                              sanitize=False, gpu=prof)
        return res.metrics["simt__block_cycles.max"]
    fits, half = cycles("chase", 1 << 20), cycles("chase", words * 4 // 2)
    # 32 random sectors a step, each kept with probability 1/2: DRAM nearly every step
    extra = (LAT["dram"] - LAT["global"]) * (1 - 0.5 ** 30)
    assert half - fits == pytest.approx(steps * extra, rel=0.05)
    assert GATHER_SECTORS == 5
    assert cycles("walk", 1 << 20) == cycles("walk", words * 4 // 2)     # coalesced: 4 sectors


REDGROUPS = r"""
extern "C" __global__ void red2(int *a, int *b, int g_shift, int words_mask, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int w = i >> 5, lane = i & 31;
    int word = ((w << g_shift) + (lane >> (5 - g_shift))) & words_mask;
    atomicAdd(&a[word], 1);
    if (b) atomicMin(&b[word], i);
}
"""


def _red2(words_mask, second: bool, prof):
    mod = simt.Module.from_source(REDGROUPS, "red2.cu")
    dev = simt.Device()
    a, b = dev.zeros(1 << 20, np.int32), dev.zeros(1 << 20, np.int32)
    n = 1 << 20
    res = mod.get_function("red2").launch(dev, simt.LaunchConfig.of(n // 256, 256),
                                          [a, b if second else 0, np.int32(1), np.int32(words_mask), np.int32(n)],
                                          sanitize=False, sample_blocks=64)
    return res, timing.predict_result(res, prof)


def test_same_address_replays_spread_over_every_slice_cost_more():
    """Warps whose lanes share two words each, the words walking 4 MiB (every slice): the
    replays cost ``spread_same_cost`` (1.93 on the H200, cal_gatom on 512 KiB) times the
    one-address rate (timing_investigation/redgroups/: 0.45-0.59 of the time without it,
    0.82-1.04 with it); on 1 KiB (two slices) they cost the rate itself.  Two arrays
    reduced at the same rows share every slice: their even shares add up, and the busiest
    slice takes one array's excess over its even share, not both (the arrays' busiest
    lines fall on different slices; session 58, probe/peaceman-wells-atomic)."""
    import dataclasses
    prof = timing.load_profile("h200")
    assert 1.8 < prof.spread_same_cost < 2.1 and timing.load_profile("h100").spread_same_cost == 0.0
    plain = dataclasses.replace(prof, spread_same_cost=0.0)
    wide, p_wide = _red2((4 << 20) // 4 - 1, False, prof)
    _, p_plain = _red2((4 << 20) // 4 - 1, False, plain)
    m = wide.metrics
    ser, trans = m["simt__l2_slice_serialized.max"], m["simt__l2_slice_transactions.max"]
    assert ser > 0.9 * trans
    assert p_wide.components_us["contention"] / p_plain.components_us["contention"] == pytest.approx(
        ((trans - ser) * prof.l2_transaction_us + prof.spread_same_cost * ser / prof.gatom_same_per_us)
        / ((trans - ser) * prof.l2_transaction_us + ser / prof.gatom_same_per_us), rel=1e-3)
    _, p_small = _red2(255, False, prof)                      # 1 KiB: one slice pair
    _, p_small_plain = _red2(255, False, plain)
    assert p_small.components_us["contention"] == pytest.approx(p_small_plain.components_us["contention"])
    both, _ = _red2((4 << 20) // 4 - 1, True, prof)
    # (here one array's busiest slice holds 1.17 times its even share: 9602 of which 8192
    # even, so two arrays 2 x 8192 + 1410)
    assert 1.7 * trans < both.metrics["simt__l2_slice_transactions.max"] < 1.95 * trans
    assert 1.7 * ser < both.metrics["simt__l2_slice_serialized.max"] < 1.95 * ser


@pytest.mark.parametrize("blocks, per_sm", [(100, 1), (132, 1), (133, 2), (264, 2), (1000, 8)])
def test_the_sms_given_most_blocks_set_the_pace(blocks, per_sm):
    """SM-bound work (here issue slots, the same for every block) takes ceil(blocks / SMs)
    blocks' worth of one SM's time: a grid of 133 blocks of 1024 threads has one SM run two,
    and probe/fma-tail-133 takes 0.217 ms on the H200 where 132 blocks would take half
    (timing_investigation/unseen55/)."""
    prof = timing.load_profile("h200")
    slots = 1e7                                     # a block's issue slots
    one = slots / (prof.issue_ipc * prof.clock_ghz * 1e3)
    p = timing.predict({counters.ISSUE_SLOTS: slots * blocks, counters.REGS: 32}, blocks, 1024, 0, prof)
    assert p.components_us["issue"] == pytest.approx(per_sm * one, rel=1e-5)    # (rounded to ns)


def test_a_probe_launches_the_grid_of_the_n_its_inputs_were_drawn_at():
    """timing_check may draw a probe's inputs at another n than its default: the launch
    must size its grid for the arrays it got, not for the default's."""
    from kernels_cuda import timing_probes
    from kernels_cuda.backend import EmulatorBackend
    p = timing_probes.get("probe/load-stride1")
    n = 1 << 14
    be = EmulatorBackend(seed=0, policy="lockstep", sanitize=False)
    p.run(be, p.inputs(n=n, seed=0))
    (res,) = be.launches
    assert p.grid(n) == 64 != p.grid(p.n)
    assert res.config.grid.size == 64
