"""The stream simulator (simt.streams), `simt streams` and seed 003's catalog entries.

CPU only, except the last test (`gpu` marker), which runs `simt streams --real` and
skips without CuPy and a device."""
import itertools
import json
import subprocess
import sys
from pathlib import Path

import pytest

from simt import streams as S
from simt.errors import UsageError
from tui.cli import main

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def simt(capsys):
    def run(*argv):
        rc = main([str(a) for a in argv])
        out, err = capsys.readouterr()
        return rc, out, err
    return run


def sim(**kw):
    kw.setdefault("kernel_us_of", None)
    return S.simulate_pipeline(**kw)


def overlaps(a, b):
    return min(a["end_ms"], b["end_ms"]) - max(a["start_ms"], b["start_ms"]) > 1e-9


# ----------------------------------------------------------------------- the claims

@pytest.mark.parametrize("gpu", ["h100", "h200", "c1060"])
@pytest.mark.parametrize("copy_engines", [1, 2])
def test_pageable_memory_does_not_overlap(gpu, copy_engines):
    r = sim(gpu=gpu, memory="pageable", order="depth", copy_engines=copy_engines)
    assert 0.95 <= r.speedup <= 1.05
    assert r.async_.overlap_ms() == pytest.approx(0.0, abs=1e-12)
    # the host sits in every pageable copy until it is done
    waits = [h for h in r.async_.host if h[0] == "wait"]
    assert len(waits) >= 2 * 6


def test_pinned_two_copy_engines_six_streams_overlaps():
    r = sim(gpu="h100", memory="pinned", order="depth", copy_engines=2, nstreams=6)
    assert r.speedup > 1.5
    tl = r.as_dict()["timeline"]
    copies = [t for t in tl if t["kind"] != "kernel"]
    kernels = [t for t in tl if t["kind"] == "kernel"]
    assert any(overlaps(c, k) for c in copies for k in kernels), "no copy beside a kernel"
    h2d = [t for t in tl if t["kind"] == "h2d"]
    d2h = [t for t in tl if t["kind"] == "d2h"]
    assert any(overlaps(a, b) for a in h2d for b in d2h), "H2D and D2H never overlap"
    assert r.async_.copy_kernel_overlap_ms() > 0


@pytest.mark.parametrize("kernel_ms", [None, 0.25])
def test_one_copy_engine_depth_first_overlaps_less_than_breadth_first(kernel_ms):
    # the seed's C1060 claim: one copy engine, one hardware queue per engine
    kus = None if kernel_ms is None else (lambda nb: kernel_ms * 1e3)
    kw = dict(gpu="c1060", memory="pinned", copy_engines=1, queues="fermi", kernel_us_of=kus)
    depth = S.simulate_pipeline(order="depth", **kw)
    breadth = S.simulate_pipeline(order="breadth", **kw)
    assert depth.async_ms > breadth.async_ms
    assert depth.async_.overlap_ms() < breadth.async_.overlap_ms()
    # depth-first: the copy engine never runs during a kernel (H2D1 waits behind D2H0)
    assert depth.async_.copy_kernel_overlap_ms() == pytest.approx(0.0, abs=1e-12)
    if kernel_ms:
        assert depth.speedup < 1.1 and breadth.speedup > 1.3


def test_hyperq_makes_issue_order_matter_less():
    kw = dict(gpu="c1060", memory="pinned", copy_engines=1, kernel_us_of=lambda nb: 250.0)
    f = {o: S.simulate_pipeline(order=o, queues="fermi", **kw).async_ms for o in S.ORDERS}
    h = {o: S.simulate_pipeline(order=o, queues="hyperq", **kw).async_ms for o in S.ORDERS}
    assert h["depth"] < f["depth"]
    assert abs(h["depth"] - h["breadth"]) < abs(f["depth"] - f["breadth"])


CONFIGS = list(itertools.product(["h100", "c1060"], S.MEMORY, S.ORDERS, [1, 2], S.QUEUES,
                                 [1, 3, 6, 40]))


@pytest.mark.parametrize("gpu,memory,order,ce,queues,n", CONFIGS)
def test_stream_order_and_engine_exclusivity(gpu, memory, order, ce, queues, n):
    r = sim(gpu=gpu, memory=memory, order=order, copy_engines=ce, queues=queues, nstreams=n,
            width=640, height=480)
    for sched in (r.sync, r.async_):
        for s in sched.streams:
            ivs = sorted(sched.of_stream(s), key=lambda iv: iv.index)
            for a, b in zip(ivs, ivs[1:]):
                assert b.start_ms >= a.end_ms - 1e-12, (s, a.label, b.label)
            if sched is r.async_:
                assert [iv.kind for iv in ivs] == ["h2d", "kernel", "d2h"]
        for iv in sched.intervals:
            assert iv.issue_ms <= iv.start_ms + 1e-12 <= iv.end_ms + 2e-12
        for e in sched.engines:
            if e == "compute":
                continue
            ivs = sorted(sched.on(e), key=lambda iv: iv.start_ms)
            for a, b in zip(ivs, ivs[1:]):
                assert b.start_ms >= a.end_ms - 1e-12, (e, a.label, b.label)
        assert sched.total_ms >= max(iv.end_ms for iv in sched.intervals)
    # every chunk's bytes are processed once
    assert sum(iv.nbytes for iv in r.async_.intervals if iv.kind == "h2d") == 640 * 480


def test_fermi_queue_is_in_issue_order():
    # one copy engine, fermi: copies start in the order they were issued
    r = sim(gpu="c1060", memory="pinned", order="depth", copy_engines=1, queues="fermi")
    copies = sorted(r.async_.on("copy"), key=lambda iv: iv.start_ms)
    assert [iv.index for iv in copies] == sorted(iv.index for iv in copies)


def test_small_kernels_run_concurrently_large_ones_do_not():
    p = S.get_profile("h100")
    cap = S.resident_blocks(p, 256)
    small = [S.Op(s, "kernel", 100.0, blocks=cap // 4) for s in range(4)]
    big = [S.Op(s, "kernel", 100.0, blocks=cap * 2) for s in range(4)]
    assert S.simulate(small, p).total_ms < 0.2       # all four at once
    assert S.simulate(big, p).total_ms > 0.4         # one after another
    p["concurrent_kernels"] = False
    assert S.simulate(small, p).total_ms > 0.4


def test_duplex_factor_slows_simultaneous_copies():
    p = S.get_profile("h100")
    ops = [S.Op(0, "h2d", 100.0), S.Op(1, "d2h", 100.0)]
    assert S.simulate(ops, p).total_ms < 0.13
    p["pcie"]["duplex"] = 0.5
    assert S.simulate(ops, p).total_ms > 0.2


def test_emulator_kernel_estimate():
    from kernels_cuda.fam_streams import emulated_chunk_bytes, emulated_kernel_us, simulate_seed

    # one byte read and one written per pixel, in 32-byte sectors
    assert emulated_chunk_bytes(3840 * 4) == 2 * 3840 * 4
    r = simulate_seed(640, 480, 6, memory="pinned")
    k = [iv for iv in r.async_.intervals if iv.kind == "kernel"][0]
    p = r.profile
    # with a simt.timing profile for this GPU the kernel takes the timing model's time
    fn, source = emulated_kernel_us(p)
    assert "simt.timing" in source
    assert (k.end_ms - k.start_ms) * 1e3 == pytest.approx(fn(640 * 80))
    # the seed's 4K chunk: the model says ~8 us, an H200 measured 10.2 us (streams.md)
    assert 6.8 < fn(3840 * 2160 // 6) < 15.3


def test_bad_values_raise_usage_errors():
    with pytest.raises(UsageError, match="unknown GPU profile"):
        S.get_profile("voodoo2")
    with pytest.raises(UsageError, match="copy engines"):
        sim(copy_engines=3)
    with pytest.raises(UsageError, match="queues"):
        sim(queues="kepler")
    with pytest.raises(UsageError, match="streams"):
        sim(nstreams=10, width=8, height=4)
    with pytest.raises(UsageError, match="memory"):
        sim(memory="unified")


def test_import_simt_streams_is_light():
    code = ("import sys, simt.streams, kernels_cuda.fam_streams, tui.streams_cli; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('textual', 'cupy', 'cupyx')))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


# ----------------------------------------------------------------------- the CLI

JSON_KEYS = {"sync_ms", "async_ms", "speedup", "timeline", "memory", "streams", "copy_engines",
             "order", "queues", "size", "gpu", "overlap_ms", "explanation", "profile"}
TIMELINE_KEYS = {"stream", "kind", "engine", "start_ms", "end_ms"}


def test_cli_json(simt):
    rc, out, err = simt("streams", "--memory", "pinned", "--json")
    assert rc == 0, err
    d = json.loads(out)
    assert JSON_KEYS <= set(d)
    assert d["memory"] == "pinned" and d["streams"] == 6 and d["size"] == "3840x2160"
    assert len(d["timeline"]) == 18
    for t in d["timeline"]:
        assert TIMELINE_KEYS <= set(t)
        assert t["kind"] in ("h2d", "kernel", "d2h")
    assert d["speedup"] == pytest.approx(d["sync_ms"] / d["async_ms"], rel=1e-3)
    assert d["speedup"] > 1.5
    assert d["other_memory"]["memory"] == "pageable"


def test_cli_json_pageable_default_is_the_seed(simt):
    rc, out, _ = simt("streams", "--json")
    d = json.loads(out)
    assert d["memory"] == "pageable" and d["order"] == "depth"
    assert d["catalog_id"] == "streams/async-pageable"
    assert 0.95 <= d["speedup"] <= 1.05


def test_cli_c1060_depth_vs_breadth(simt):
    res = {}
    for order in ("depth", "breadth"):
        rc, out, _ = simt("streams", "--memory", "pinned", "--gpu", "c1060", "--order", order,
                          "--kernel-ms", "0.3", "--json")
        assert rc == 0
        res[order] = json.loads(out)
    assert res["depth"]["copy_engines"] == 1 and res["depth"]["queues"] == "fermi"
    assert res["breadth"]["speedup"] > res["depth"]["speedup"] + 0.2


def test_cli_text(simt):
    rc, out, _ = simt("streams", "--memory", "pinned", "--streams", "4", "--size", "1920x1080")
    assert rc == 0
    for s in ("synchronous", "asynchronous", "speedup", "copy H2D", "copy D2H", "compute",
              "stream 3", "why:"):
        assert s in out
    assert "stream 4" not in out


@pytest.mark.parametrize("argv,msg", [
    (["--size", "0x10"], "--size"),
    (["--size", "4k"], "--size"),
    (["--streams", "0"], "--streams"),
    (["--streams", "x"], "--streams"),
    (["--copy-engines", "3"], "--copy-engines"),
    (["--order", "random"], "--order"),
    (["--memory", "managed"], "--memory"),
    (["--queues", "kepler"], "--queues"),
    (["--gpu", "voodoo2"], "unknown GPU profile 'voodoo2'"),
    (["--streams", "50", "--size", "64x10"], "more than the image's 10 rows"),
    (["--kernel-ms", "-2"], "--kernel-ms"),
    (["--repeat", "0"], "--repeat"),
])
def test_cli_bad_arguments_exit_2(simt, argv, msg):
    rc, out, err = simt("streams", *argv)
    assert rc == 2
    assert msg in err
    assert "Traceback" not in err and out == ""


def test_cli_real_without_gpu_is_a_clear_error(simt, monkeypatch):
    from kernels_cuda import streams_real

    monkeypatch.setattr(streams_real, "available", lambda: (False, "no CUDA device found"))
    rc, out, err = simt("streams", "--real")
    assert rc == 2 and "--real needs a CUDA GPU: no CUDA device found" in err


# ----------------------------------------------------------------------- catalog

def test_catalog_has_the_seed_as_written_and_fixed(simt):
    from kernels_cuda import catalog

    a, b = catalog.get("streams/async-pageable"), catalog.get("streams/async-pinned")
    assert a.seed == b.seed == "003"
    assert "malloc" in a.explanation and "simt streams" in a.explanation
    assert "cudaMallocHost" in b.explanation and "breadth" in b.explanation
    for eid in ("streams/invert", "streams/async-pageable", "streams/async-pinned"):
        rc, out, err = simt("run", eid, "--no-sanitize", "--json")
        assert rc == 0, err
        assert json.loads(out)["correct"] is True


# ----------------------------------------------------------------------- on a GPU

@pytest.mark.gpu
def test_real_measures_and_matches_the_simulation(simt):
    pytest.importorskip("cupy")
    from kernels_cuda import streams_real

    ok, why = streams_real.available()
    if not ok:
        pytest.skip(f"no CUDA device: {why}")
    rc, out, err = simt("streams", "--real", "--json", "--repeat", "30")
    assert rc == 0, err
    d = json.loads(out)
    rows = {r["memory"]: r for r in d["real"]["rows"]}
    assert set(rows) == {"pageable", "pinned"}
    assert all(r["correct"] for r in rows.values())
    # pageable copies do not overlap (about 1.00x), pinned ones do (about 2x). Pageable
    # copies go through the host, whose jitter moves a median of 10 launches from 0.73x
    # to 1.28x on the H100's host (session 12; 1.27x once on the H200's): 30 launches,
    # and room in the bound, with the gap to pinned as the check
    pageable, pinned = (rows[k]["measured"]["speedup"] for k in ("pageable", "pinned"))
    assert pageable < 1.4 and pinned > 1.2 and pinned > 1.3 * pageable
    assert d["real"]["device"]["name"]
    # the simulated speedup within the timing model's 1.5x of the measured one. Pinned
    # copies keep the host out of the way, but not wholly: 1.31x once in a full GPU run on
    # the H100 (session 30; 1.0-1.2 alone), so the 1.25 this had was host jitter's, not
    # the model's (pageable: 0.72x measured once in three runs on the H100, session 19)
    assert 1 / 1.5 <= rows["pinned"]["speedup_ratio"] <= 1.5, rows["pinned"]
    assert 1 / 1.5 <= rows["pageable"]["speedup_ratio"] <= 1.5, rows["pageable"]


# ----------------------------------------------------------------------- the TUI

def test_timeline_widget_and_streams_screen():
    pytest.importorskip("textual")
    import asyncio

    from tui.screens.streams import StreamsApp, StreamsScreen
    from tui.widgets.timeline import TimelineView, render_schedules

    async def go():
        app = StreamsApp(memory="pageable")
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, StreamsScreen)
            tl = screen.query_one(TimelineView)
            text = tl.render().plain
            for row in ("host", "copy H2D", "copy D2H", "compute", "stream 5", "synchronous",
                        "asynchronous"):
                assert row in text
            before = screen.result.speedup
            assert 0.95 <= before <= 1.05
            await pilot.press("m")                       # pinned
            await pilot.pause()
            assert screen.memory == "pinned" and screen.result.speedup > 1.5
            assert "pinned" in str(screen.query_one("#st-summary").render())
            await pilot.press("g")                       # next GPU profile
            await pilot.press("minus")
            await pilot.pause()
            assert screen.nstreams == 5
            assert "stream 5" not in tl.render().plain and "stream 4" in tl.render().plain
            await pilot.press("c", "o", "h", "k")
            await pilot.pause()
            assert screen.order == "breadth" and screen.kernel_ms == 0.1
            # coloured bars: the kernel and copy styles are in the rendered spans
            styles = {str(sp.style) for sp in tl.render().spans}
            assert any("on #5fd787" in s for s in styles) and any("on #5fafff" in s for s in styles)
            await pilot.press("q")
        return True

    assert asyncio.run(go())
    r = sim(memory="pinned")
    t = render_schedules([("synchronous", r.sync), ("asynchronous", r.async_)], 60)
    assert "ms" in t.plain.splitlines()[-1]


def test_main_app_opens_the_streams_screen_with_t():
    pytest.importorskip("textual")
    import asyncio

    from tui.app import make_app
    from tui.screens.streams import StreamsScreen

    async def go():
        app = make_app(select="streams/async-pinned")
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            await pilot.press("t")
            await pilot.pause()
            assert isinstance(app.screen, StreamsScreen)
            assert app.screen.memory == "pinned"
            await pilot.press("escape")
            await pilot.pause()
            assert not isinstance(app.screen, StreamsScreen)
        return True

    assert asyncio.run(go())
