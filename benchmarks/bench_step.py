"""How fast the UI is: the time to render one step for a block of 1024 threads, and the
app's start-up time.  Targets: 50 ms per step, 1.5 s to start.

    python benchmarks/bench_step.py [--steps 60] [--size 160x50]

A step is a key press (``s``: one warp instruction) through to the screen repainted:
the stepper executes, the kernel screen reads the state of all 32 warps of the block
into a frame, every visible pane renders, and the compositor redraws (headless driver).
Start-up is measured in a fresh interpreter, from before ``import tui.app`` to the
kernel screen of the default target (``simt`` with no arguments) showing its first
frame; the catalog screen alone is reported too.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

STEP_TARGET_MS = 50.0
START_TARGET_S = 1.5
TARGET_1024 = "exercise/reduce-scan"     # one block of 1024 threads (n=1024)

STARTUP = r"""
import asyncio, sys, time, json
t0 = time.perf_counter()
from tui.app import make_app
target = sys.argv[1] if len(sys.argv) > 1 and sys.argv[1] != "-" else None
async def main():
    app = make_app(target) if target else make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        t_cat = None
        while True:
            scr = app.screen
            name = type(scr).__name__
            if name == "CatalogScreen" and t_cat is None:
                t_cat = time.perf_counter() - t0
            if target is None and name == "CatalogScreen":
                break
            if name == "KernelScreen" and scr.session is not None and scr.busy is None:
                await pilot.pause()
                break
            await asyncio.sleep(0.005)
        t_ready = time.perf_counter() - t0
        print(json.dumps({"catalog_s": t_cat, "ready_s": t_ready}))
asyncio.run(main())
"""


async def time_steps(target: str, steps: int, size: tuple[int, int], n: int | None) -> dict:
    from tui.app import make_app

    app = make_app(target, n=n)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        scr = app.screen
        tpb = scr.frame.threads_per_block
        # Latency of one step: from the key's action starting (stepper, frame, panes) to
        # the end of the compositor's repaint that follows it (hooked on the screen).
        marks: dict = {}
        orig_action, orig_refresh = scr.action_step, scr._compositor_refresh

        def action_step():
            marks["start"] = time.perf_counter()
            marks.pop("painted", None)
            orig_action()

        def compositor_refresh():
            orig_refresh()
            if "start" in marks and "painted" not in marks:
                marks["painted"] = time.perf_counter()

        scr.action_step = action_step
        scr._compositor_refresh = compositor_refresh
        lat, times, cpu = [], [], []
        for _ in range(steps):
            t, c = time.perf_counter(), time.process_time()
            await pilot.press("s")
            await pilot.pause()
            times.append((time.perf_counter() - t) * 1000)
            cpu.append((time.process_time() - c) * 1000)
            if "painted" in marks:
                lat.append((marks["painted"] - marks["start"]) * 1000)
        sync = lat or times
        back = []
        for _ in range(min(steps, 20)):
            t = time.perf_counter()
            await pilot.press("b")
            await pilot.pause()
            back.append((time.perf_counter() - t) * 1000)
        return {"target": target, "threads_per_block": tpb, "warps_shown": len(scr.frame.warps),
                "size": f"{size[0]}x{size[1]}", "steps": steps,
                "step_median_ms": statistics.median(sync), "step_max_ms": max(sync),
                "pilot_wall_ms": statistics.median(times), "pilot_cpu_ms": statistics.median(cpu),
                "back_median_ms": statistics.median(back)}


def startup(target: str | None) -> dict:
    out = subprocess.run([sys.executable, "-c", STARTUP, target or "-"], cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    if out.returncode != 0:
        raise SystemExit(out.stderr)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=60)
    ap.add_argument("--size", default="160x50", help="terminal size for the step timing")
    ap.add_argument("--target", default=TARGET_1024)
    ap.add_argument("--runs", type=int, default=3, help="start-up runs (median)")
    a = ap.parse_args(argv)
    w, h = (int(x) for x in a.size.split("x"))
    r = {}
    for size in ((w, h), (80, 24)):
        r[size] = asyncio.run(time_steps(a.target, a.steps, size, None))
    for size, x in r.items():
        print(f"step ({x['target']}, block of {x['threads_per_block']} threads, {x['warps_shown']} "
              f"warps, {x['size']}): median {x['step_median_ms']:.1f} ms (max {x['step_max_ms']:.1f}), "
              f"target {STEP_TARGET_MS:.0f} ms -> {x['step_median_ms'] / STEP_TARGET_MS:.2f}x of "
              f"target\n    through the test pilot: {x['pilot_cpu_ms']:.1f} ms CPU, "
              f"{x['pilot_wall_ms']:.1f} ms wall (includes the pilot's idle polling); "
              f"back (b) {x['back_median_ms']:.1f} ms wall")
    runs = [startup(None) for _ in range(a.runs)]
    cat = statistics.median(x["ready_s"] for x in runs)
    runs2 = [startup("histogram/shared-local") for _ in range(a.runs)]
    ready = statistics.median(x["ready_s"] for x in runs2)
    print(f"start-up to the catalog (simt tui with no kernel): {cat:.2f} s; target "
          f"{START_TARGET_S} s -> {cat / START_TARGET_S:.2f}x of target")
    print(f"start-up to the first frame of `simt` (histogram/shared-local): {ready:.2f} s; "
          f"target {START_TARGET_S} s -> {ready / START_TARGET_S:.2f}x of target")
    return 0


if __name__ == "__main__":
    sys.exit(main())
