"""Which rows an L1 latency rule for held sectors (simt.machine.L1_HELD_LATENCY) moves.
Each (id, size) of the measured tables is run on a sample of SCREEN_THREADS threads
(16384 unless set) with the rule on; where the rule fired (RULE=held: some load request
had every active lane's sector held in L1 by the counters, Counters.l1_row_held;
RULE=window: such a request's lanes had each read its sector at that load within its
last l1hits.WINDOW trips), it is run again with the rule off, and both H200 predictions
are written as JSON lines (old, new).  With WHOLE=1, a row whose two differ by more than
0.5% is emulated whole there and then (repredict/emulate_rows.py's rows, "rows").  On
the GPU machine's 16 CPUs:

    RULE=window WHOLE=1 python docs/results/timing_investigation/l1held/screen.py OUT.jsonl 16 IDS.txt
"""
import json, multiprocessing, os, sys, time
from pathlib import Path
from kernels_cuda import timing_check as t
from kernels_cuda.backend import EmulatorBackend
from simt import l1hits, machine, timing
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "repredict"))
import emulate_rows  # noqa: E402
PROF = timing.load_profile("h200")
THREADS = int(os.environ.get("SCREEN_THREADS", 16384))
FIRED = [0]
_orig = machine._l1_hits


def _watch(m, ins, warps, mat, act, size, blocks, kind, fresh, held=None):
    if held is not None and kind == "ld":
        FIRED[0] += 1
    return _orig(m, ins, warps, mat, act, size, blocks, kind, fresh, held)


_orig_win = l1hits.TripSectors._window


def _watch_win(self, pc, warps, sec, act, held):
    got = _orig_win(self, pc, warps, sec, act, held)
    if got is not None:
        FIRED[0] += 1
    return got


if os.environ.get("RULE", "held") == "held":
    machine._l1_hits = _watch
else:
    l1hits.TripSectors._window = _watch_win
WHOLE = os.environ.get("WHOLE") == "1"


def em(e, n, new):
    machine.L1_HELD_LATENCY = new
    inp = e.inputs(n=n, seed=0)
    bt = t._block_threads(e.block)
    be = EmulatorBackend(seed=0, policy="lockstep", sanitize=False, sample_blocks=max(1, THREADS // max(32, bt)))
    e.run(be, inp)
    return sum(timing.predict_result(r, PROF).ms for r in be.launches)


def work(key):
    eid, n = key
    t0 = time.time()
    try:
        e = t._entry(eid)
        FIRED[0] = 0
        b = em(e, n, True)
        out = {"fired": FIRED[0], "new": b}
        if FIRED[0]:
            out["old"] = em(e, n, False)
            if WHOLE and abs(b / out["old"] - 1) > 0.005:
                machine.L1_HELD_LATENCY = True
                out["rows"] = emulate_rows.work(key)[1]
        return key, out, time.time() - t0
    except Exception as ex:
        return key, {"error": repr(ex)[:300]}, time.time() - t0


if __name__ == "__main__":
    R = Path("docs/results")
    keys = {}
    for eid in Path(sys.argv[3]).read_text().split():
        for stem in ("timing_probes_measured_h200", "timing_measured_h200"):
            for n, rec in json.loads((R / (stem + ".json")).read_text())["entries"].get(eid, {}).items():
                if "error" not in rec:
                    keys[(eid, int(n))] = None
    with open(sys.argv[1], "w") as fh, multiprocessing.get_context("fork").Pool(int(sys.argv[2])) as pool:
        for key, out, dt in pool.imap_unordered(work, list(keys)):
            fh.write(json.dumps({"id": key[0], "n": key[1], "s": round(dt, 1), **out}, default=float) + "\n")
            fh.flush()
