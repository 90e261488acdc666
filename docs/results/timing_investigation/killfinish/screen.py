"""Which rows session 63's fix to ``machine._kill`` moves, from one emulation per row.

A warp none of whose lanes is left after a ``return`` is done there; before the fix its
finish time (``Counters.finish``, which feeds ``simt__block_cycles.*`` and
``simt__warp_cycles.mean`` and nothing else) was never set and stayed 0.  So one emulation
with the fix gives both models: the launch's metrics as they are, and as they were with
the finish times set by ``_kill`` put back to 0.  Each listed id is emulated on a sample
of SCREEN_THREADS threads (32768 unless set), predicted on the H200 both ways, and written
as a JSON line (old, new, killed: warps finished by a return).  Rows that move by more
than 0.5% are then emulated whole (../repredict/emulate_rows.py).

    python docs/results/timing_investigation/killfinish/screen.py OUT.jsonl JOBS IDS.txt
"""
import json, os, sys, time
from pathlib import Path
import numpy as np
from kernels_cuda import timing_check as t
from kernels_cuda.backend import EmulatorBackend
from simt import counters, machine, timing
from simt.ir import Op

sys.path.insert(0, str(Path(__file__).parents[1] / "repredict"))
from screen_rows import screen  # noqa: E402

PROF = timing.load_profile("h200")
THREADS = int(os.environ.get("SCREEN_THREADS", 32768))
_kill, _finish, _metrics = machine.HANDLERS[Op.KILL], counters.Counters.warp_finish, counters.Counters.metrics
OLD: list = []


def kill(m, *a):
    m.cnt._in_kill = True
    try:
        return _kill(m, *a)
    finally:
        m.cnt._in_kill = False


def warp_finish(self, gw, cycles):
    if getattr(self, "_in_kill", False):
        self.__dict__.setdefault("_killed", []).append(np.atleast_1d(np.asarray(gw)).copy())
    return _finish(self, gw, cycles)


def metrics(self, scale=1.0):
    new = _metrics(self, scale)
    killed = self.__dict__.get("_killed")
    if not killed:
        OLD.append((new, new, 0, set(new)))
        return new
    ws = np.unique(np.concatenate(killed))
    keep = self.finish.copy()
    self.finish[ws] = 0.0
    try:
        old = _metrics(self, scale)
    finally:
        self.finish[:] = keep
    OLD.append((new, old, len(ws), set(new)))
    return new


machine.HANDLERS[Op.KILL] = kill
counters.Counters.warp_finish = warp_finish
counters.Counters.metrics = metrics


def work(key):
    eid, n = key
    t0 = time.time()
    try:
        e = t._entry(eid)
        bt = t._block_threads(e.block)
        be = EmulatorBackend(seed=0, policy="lockstep", sanitize=False,
                             sample_blocks=max(1, THREADS // max(32, bt)))
        OLD.clear()
        e.run(be, e.inputs(n=n, seed=0))
        by_new = {}
        for new, old, k, keys in OLD:       # ``new`` has since gained the launch's own keys
            later = {key: v for key, v in new.items() if key not in keys}
            by_new.setdefault(json.dumps(new, sort_keys=True, default=float), ({**later, **old}, k))
        a = b = 0.0
        killed = 0
        for r in be.launches:
            old, k = by_new[json.dumps(r.metrics, sort_keys=True, default=float)]
            b += timing.predict_result(r, PROF).ms
            r.metrics = old
            a += timing.predict_result(r, PROF).ms
            killed += k
        return key, {"old": a, "new": b, "killed": killed}, time.time() - t0
    except Exception as ex:
        return key, {"error": repr(ex)[:300]}, time.time() - t0


if __name__ == "__main__":
    screen(work, sys.argv)
