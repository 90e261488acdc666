"""The Textual UI: every control through the Pilot, snapshots of the screens that teach
(catalog, a warp mid-divergence, a bank conflict, an atomic queue), and random key
presses on every catalog id.

Snapshots: ``pytest tests/test_tui.py --snapshot-update`` after a deliberate change to
the look (fixed terminal sizes, fixed seeds, small sizes, so they are deterministic).
"""
from __future__ import annotations

import asyncio
import random
from pathlib import Path

import pytest

pytest.importorskip("textual")

from textual import events  # noqa: E402

from kernels_cuda import catalog  # noqa: E402
from tui.app import make_app  # noqa: E402
from tui.screens.catalog import CatalogScreen  # noqa: E402
from tui.screens.compare import CompareScreen  # noqa: E402
from tui.screens.dialogs import GotoDialog, RestartDialog, VariableDialog  # noqa: E402
from tui.screens.kernel import KernelScreen  # noqa: E402
from tui.session import Options, open_session  # noqa: E402

N = 512              # small launches: two blocks of 256 threads for most entries
SIZE = (100, 30)


async def opened(pilot) -> KernelScreen:
    """Wait until the kernel screen's session is loaded and idle."""
    app = pilot.app
    for _ in range(400):
        await app.workers.wait_for_complete()
        await pilot.pause()
        scr = app.screen
        if isinstance(scr, KernelScreen) and scr.session is not None and scr.busy is None:
            return scr
        await asyncio.sleep(0.01)
    raise AssertionError(f"kernel screen did not open: {app.screen!r}")


async def settle(pilot) -> None:
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


def app_on(target="histogram/shared-local", **kw):
    kw.setdefault("n", N)
    return make_app(target, **kw)


# --------------------------------------------------------------------------- controls

def test_step_with_s_and_right_arrow():
    async def go():
        app = app_on()
        async with app.run_test(size=SIZE) as pilot:
            scr = await opened(pilot)
            assert scr.frame.step == 0 and scr.frame.event is None
            await pilot.press("s")
            assert scr.stepper.steps == 1 and scr.frame.event.index == 0
            await pilot.press("right")
            assert scr.stepper.steps == 2 and scr.frame.event.index == 1
            # the panes follow the step
            assert scr.frame.warps and scr.frame.block == scr.frame.event.block
    asyncio.run(go())


def test_back_with_b_and_left_arrow_travels_in_time():
    async def go():
        app = app_on()
        async with app.run_test(size=SIZE) as pilot:
            scr = await opened(pilot)
            await pilot.press("s", "s", "s", "s")
            ev3 = scr.frame.event
            await pilot.press("s")
            await pilot.press("b")
            assert scr.stepper.steps == 4 and scr.frame.event == ev3
            await pilot.press("left")
            assert scr.stepper.steps == 3
            await pilot.press("left", "left", "left", "left")   # no step before 0
            assert scr.stepper.steps == 0
    asyncio.run(go())


def test_next_line_n_runs_until_the_line_changes():
    async def go():
        app = app_on()
        async with app.run_test(size=SIZE) as pilot:
            scr = await opened(pilot)
            await pilot.press("s")
            line0 = scr.frame.event.line
            await pilot.press("n")
            await settle(pilot)
            assert scr.frame.event.line != line0
            assert scr.stepper.steps > 1
    asyncio.run(go())


def test_continue_c_stops_when_a_barrier_releases():
    async def go():
        app = app_on()
        async with app.run_test(size=SIZE) as pilot:
            scr = await opened(pilot)
            await pilot.press("c")
            await settle(pilot)
            ev = scr.frame.event
            assert ev.op == "BAR"
            assert all(w.state != "waiting" for w in scr.stepper.warps(ev.block))
    asyncio.run(go())


def test_end_e_runs_the_launch_to_its_end_in_a_worker():
    async def go():
        app = app_on()
        async with app.run_test(size=SIZE) as pilot:
            scr = await opened(pilot)
            await pilot.press("e")
            await settle(pilot)
            assert scr.stepper.done and scr.frame.done
            assert scr.busy is None
            # the race of the seed shows up in the sanitizer pane
            assert any(getattr(f, "tool", "") == "racecheck" for f in scr.frame.findings)
    asyncio.run(go())


def test_goto_g_jumps_forward_and_back():
    async def go():
        app = app_on()
        async with app.run_test(size=SIZE) as pilot:
            scr = await opened(pilot)
            await pilot.press("g")
            assert isinstance(app.screen, GotoDialog)
            await pilot.press(*"140", "enter")
            await settle(pilot)
            assert app.screen is scr and scr.stepper.steps == 140
            ev139 = scr.frame.event
            await pilot.press("g", *"7", "enter")
            await settle(pilot)
            assert scr.stepper.steps == 7 and scr.frame.event.index == 6
            await pilot.press("g", *"140", "enter")
            await settle(pilot)
            assert scr.frame.event == ev139         # deterministic replay
            await pilot.press("g", "escape")        # cancel
            assert app.screen is scr and scr.stepper.steps == 140
    asyncio.run(go())


def test_warps_w_W_and_blocks_k_K():
    async def go():
        app = app_on()
        async with app.run_test(size=SIZE) as pilot:
            scr = await opened(pilot)
            await pilot.press("s")
            assert scr.frame.warp == 0 and scr.frame.block == 0
            await pilot.press("w")
            assert scr.frame.warp == 1 and not scr.follow
            await pilot.press("W", "W")
            assert scr.frame.warp == len(scr.frame.warps) - 1       # wraps around
            await pilot.press("k")
            assert scr.frame.block == 1
            await pilot.press("K")
            assert scr.frame.block == 0
            await pilot.press("s")                                   # pinned: stays
            assert scr.frame.block == 0
            await pilot.press("f")
            assert scr.follow
    asyncio.run(go())


def test_variable_v_chooses_what_the_lanes_show():
    async def go():
        app = app_on()
        async with app.run_test(size=SIZE) as pilot:
            scr = await opened(pilot)
            assert scr.variable == "chunk"
            await pilot.press("v")
            dlg = app.screen
            assert isinstance(dlg, VariableDialog)
            names = dlg.names
            target = names.index("threadIdx.x")
            cur = names.index("chunk")
            await pilot.press(*(["down"] * (target - cur) if target > cur else ["up"] * (cur - target)),
                              "enter")
            await pilot.pause()
            assert scr.variable == "threadIdx.x"
            assert list(scr.frame.values[:4]) == [0, 1, 2, 3]
    asyncio.run(go())


def test_restart_r_with_another_seed_and_policy():
    async def go():
        app = app_on()
        async with app.run_test(size=SIZE) as pilot:
            scr = await opened(pilot)
            await pilot.press("s", "s")
            await pilot.press("r")
            assert isinstance(app.screen, RestartDialog)
            await pilot.click("#random")
            inp = app.screen.query_one("#seed")
            inp.value = "7"
            await pilot.click("#ok")
            scr = await opened(pilot)
            assert scr.session.options.seed == 7 and scr.session.policy == "random"
            assert scr.stepper.steps == 0
            await pilot.press("s")
            assert scr.stepper.steps == 1
    asyncio.run(go())


def test_quit_q():
    async def go():
        app = app_on()
        async with app.run_test(size=SIZE) as pilot:
            await opened(pilot)
            await pilot.press("q")
            await pilot.pause()
        assert app.return_code == 0
        assert not app.is_running
    asyncio.run(go())


def test_escape_goes_back_to_the_catalog_and_enter_opens_again():
    async def go():
        app = app_on("histogram/atomic")
        async with app.run_test(size=SIZE) as pilot:
            await opened(pilot)
            await pilot.press("escape")
            await pilot.pause()
            assert isinstance(app.screen, CatalogScreen)
            assert app.screen._current() == "histogram/atomic"
            await pilot.press("down", "enter")
            scr = await opened(pilot)
            assert scr.session.entry.id == "histogram/shared-local"
    asyncio.run(go())


def test_simt_with_no_arguments_opens_the_catalog_on_the_default_kernel():
    async def go():
        app = make_app()
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            assert isinstance(app.screen, CatalogScreen)
            assert app.screen._current() == "histogram/shared-local"
            await pilot.press("enter")
            scr = await opened(pilot)
            assert scr.session.entry.id == "histogram/shared-local"
    asyncio.run(go())


def test_help_lists_the_keys():
    async def go():
        app = app_on()
        async with app.run_test(size=SIZE) as pilot:
            scr = await opened(pilot)
            await pilot.press("question_mark")
            await pilot.pause()
            assert scr.query("HelpPanel")
            await pilot.press("question_mark")
            await pilot.pause()
            assert not scr.query("HelpPanel")
    asyncio.run(go())


def test_sanitizer_findings_jump_to_their_line():
    async def go():
        app = app_on("races/case2-broken")
        async with app.run_test(size=SIZE) as pilot:
            scr = await opened(pilot)
            await pilot.press("e")
            await settle(pilot)
            from textual.widgets import TabbedContent
            scr.query_one("#panes", TabbedContent).active = "tab-sanitizer"
            await pilot.pause()
            fl = scr.query_one("#findings")
            assert fl.option_count >= 1
            fl.focus()
            await pilot.press("home", "enter")
            await pilot.pause()
            line = fl._jump_lines[0]
            assert line and scr.query_one("#source").mark_line == line
    asyncio.run(go())


def test_next_launch_l_steps_the_drivers_second_launch():
    async def go():
        app = app_on("scan/hillis-steele")
        async with app.run_test(size=SIZE) as pilot:
            scr = await opened(pilot)
            k0 = scr.session.spec.kernel
            await pilot.press("l")
            scr = await opened(pilot)
            assert scr.session.spec.index == 1 and scr.session.spec.kernel != k0

    async def option():                     # simt tui ID --launch 2
        app = app_on("scan/hillis-steele", launch=1)
        async with app.run_test(size=SIZE) as pilot:
            scr = await opened(pilot)
            assert scr.session.spec.index == 1
    asyncio.run(go())
    asyncio.run(option())


def test_compare_m_shows_each_variant_and_says_plainly_there_is_no_gpu():
    async def go():
        app = app_on("reduction/interleaved", real=True)
        async with app.run_test(size=(120, 40)) as pilot:
            kscr = await opened(pilot)
            await settle(pilot)
            from tui.session import gpu_available
            if not gpu_available()[0]:                    # --real says so plainly
                assert "no usable GPU" in kscr.real_note
            await pilot.press("m")
            await settle(pilot)
            scr = app.screen
            assert isinstance(scr, CompareScreen)
            variants = [e.id for e in catalog.entries() if e.family == "reduction"]
            assert set(scr.rows) == set(variants)
            assert all(r.get("metrics") for r in scr.rows.values())
            if not scr.gpu_ok:
                assert "no usable GPU" in scr.gpu_note
            await pilot.press("escape")
            assert isinstance(app.screen, KernelScreen)
    asyncio.run(go())


# ------------------------------------------------------------------ errors, own files

BAD = """extern "C" __global__ void add(const float *x, float *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] += x[i] * undefined_thing;
}
"""
OOB = """extern "C" __global__ void add(const float *x, float *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    y[i] += x[i];
}
"""
ARGS = dict(grid="1", block="64", args=("float32[60]=uniform", "float32[60]=ones", "60"))


def test_a_compile_error_shows_its_line_instead_of_crashing(tmp_path: Path):
    f = tmp_path / "bad.cu"
    f.write_text(BAD)

    async def go():
        app = make_app(str(f), **ARGS)
        async with app.run_test(size=SIZE) as pilot:
            scr = await opened(pilot)
            assert scr.session.error is not None and scr.session.error_line == 3
            assert scr.query_one("#source").error_line == 3
            await pilot.press("s", "n", "c", "b", "w", "k", "v", "e")   # nothing to step: no crash
            await pilot.pause()
            assert isinstance(app.screen, KernelScreen)
    asyncio.run(go())


def test_a_launch_error_stops_cleanly_and_names_the_line(tmp_path: Path):
    f = tmp_path / "oob.cu"
    f.write_text(OOB)

    async def go():
        app = make_app(str(f), **ARGS)
        async with app.run_test(size=SIZE) as pilot:
            scr = await opened(pilot)
            assert scr.session.error is None
            await pilot.press("e")
            await settle(pilot)
            err = scr.stepper.error
            assert err is not None and err.coord.line == 3
            assert scr.query_one("#source").error_line == 3
            await pilot.press("b")                  # back before the error works
            assert scr.stepper.error is None
    asyncio.run(go())


def test_a_users_file_opens_like_a_catalog_entry(tmp_path: Path):
    f = tmp_path / "add.cu"
    f.write_text(OOB.replace("    y[i]", "    if (i < n) y[i]"))

    async def go():
        app = make_app(str(f), **ARGS)
        async with app.run_test(size=SIZE) as pilot:
            scr = await opened(pilot)
            await pilot.press("s", "s", "n")
            await settle(pilot)
            await pilot.press("e")
            await settle(pilot)
            assert scr.stepper.done and scr.stepper.error is None
            assert all(w.state == "done" for w in scr.frame.warps)
            # lanes 60..63 of warp 1 fail `i < n`: its store runs with 28 lanes
            stores = [e for e in scr.history if e.access and e.access["kind"] == "st"]
            assert {e.warp: e.active_mask for e in stores} == {0: 0xFFFFFFFF, 1: 0x0FFFFFFF}
    asyncio.run(go())


# ------------------------------------------------------------------------- snapshots

def _first_step(target: str, pred, **opts) -> int:
    """Index of the first step whose event satisfies pred (deterministic per seed)."""
    s = open_session(target, Options(**opts))
    ev = s.stepper.run_until(pred, max_steps=200_000)
    assert ev is not None and pred(ev), f"no such step in {target}"
    return ev.index


async def _goto(pilot, step: int) -> None:
    await opened(pilot)
    await pilot.press("g", *str(step), "enter")
    await settle(pilot)


def test_snapshot_catalog(snap_compare):
    assert snap_compare(make_app(), terminal_size=SIZE)


def test_snapshot_kernel_mid_divergence(snap_compare):
    # reduceShared's `if (t % stride == 0)` at stride 2: half the lanes masked off
    target = "reduction/interleaved"

    def diverged(e):
        return e.line == 42 and bin(e.active_mask).count("1") == 16
    k = _first_step(target, diverged, n=1024)

    async def run_before(pilot):
        await _goto(pilot, k + 1)
    assert snap_compare(app_on(target, n=1024), terminal_size=(80, 24), run_before=run_before)


def test_snapshot_bank_conflict(snap_compare):
    target = "reduction/interleaved"

    def conflict(e):
        a = e.access
        return a is not None and a["space"] == "shared" and a.get("wavefronts", 0) > a.get("ideal", 1)
    k = _first_step(target, conflict, n=1024)

    async def run_before(pilot):
        await _goto(pilot, k + 1)
    assert snap_compare(app_on(target, n=1024), terminal_size=SIZE, run_before=run_before)


def test_snapshot_atomic_queue(snap_compare):
    target = "histogram/atomic"

    def queue(e):
        a = e.access
        return a is not None and a.get("groups") is not None and a.get("steps", 1) > 2
    k = _first_step(target, queue, n=N)

    async def run_before(pilot):
        await _goto(pilot, k + 1)
    assert snap_compare(app_on(target), terminal_size=SIZE, run_before=run_before)


# ------------------------------------------------------------------------ random keys

KEYS = (["s"] * 10 + ["right"] * 4 + ["b"] * 2 + ["left"] + ["n"] * 3 + ["c", "e"]
        + ["w", "W", "k", "K", "f"] * 2 + ["g", "v", "r", "question_mark"]
        + ["1", "5", "enter", "down", "up"])
PRESSES = 75
BATCH = 25


@pytest.mark.parametrize("entry_id", [e.id for e in catalog.entries()])
def test_random_keys_on_every_catalog_id(entry_id, monkeypatch):
    rng = random.Random(f"simt-tui-{entry_id}")
    # 'e' (and 'c' without a barrier) finish in bulk after this many single steps
    monkeypatch.setattr("tui.screens.kernel.STEPWISE_END", 200)

    async def go():
        app = app_on(entry_id, n=256)
        async with app.run_test(size=(80, 24)) as pilot:
            scr = await opened(pilot)
            driver = app._driver
            for start in range(0, PRESSES, BATCH):
                for key in rng.choices(KEYS, k=BATCH):
                    char = key if len(key) == 1 else None
                    driver.send_message(events.Key(key, char))
                await pilot.pause()
                await settle(pilot)
                if app.screen is not scr and app.screen.is_modal:   # a dialog left open
                    app.screen.dismiss(None)
                    await settle(pilot)
                assert app.screen is scr, app.screen_stack
                assert scr.session is not None and scr.session.error is None, scr.session.error
            await pilot.press("e")
            await settle(pilot)
            assert scr.stepper.done
            assert scr.frame.step == scr.stepper.steps
    asyncio.run(go())
