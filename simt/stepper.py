"""Step a launch one warp instruction at a time, inspect it, and travel back in time.

The stepper drives the same ``Machine`` as ``Launch.run`` with ``warp_steps=True``: the
scheduler picks the same groups, and each group's warps execute one after another.
Results and counters equal a whole-grid run (see machine.py).  Going back replays from
the nearest snapshot (taken every ``SNAP_EVERY`` steps), which is exact because
execution is deterministic for a seed and policy.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass

import numpy as np

from . import counters as C
from .ctypes_ import sizeof
from .errors import SimtError
from .ir import Op
from .machine import DONE, RUN, WAIT, Machine, _mask_bits
from .spaces import SHARED_BASE

SNAP_EVERY = 64


@dataclass
class StepEvent:
    index: int
    pc: int
    line: int
    op: str
    text: str
    block: int
    warp: int
    active_mask: int
    access: dict | None = None
    branch: dict | None = None


@dataclass
class WarpState:
    warp: int
    pc: int
    line: int
    state: str
    active: int
    exited: int
    divergent: int
    branch_line: int | None = None


def describe(ins) -> str:
    """A short human text for an IR instruction."""
    op = ins.op
    if op in (Op.LOAD, Op.STORE):
        return f"{op.name.lower()} {ins.ctype}"
    if op == Op.ATOM:
        return f"atomic{ins.sub.capitalize()} {ins.ctype}" + ("" if ins.dst is not None else " (result unused)")
    if op in (Op.BIN, Op.UN):
        return f"{ins.sub} {getattr(ins.dst, 'dtype', '')}"
    if op == Op.CALL:
        return ins.sub.replace("m_", "")
    if op == Op.KILL:
        return ins.sub or "kill"
    if op == Op.BAR:
        return f"{ins.sub or '__syncthreads'}()"
    return op.name.lower()


class Stepper:
    def __init__(self, launch):
        self.launch = launch
        self.ir = launch.ir
        self.file = self.ir.file
        self.source = launch.kernel.module.text
        self._batches = list(launch._batches())
        self.batch_index = -1
        self.m: Machine | None = None
        self.pending: list[int] = []
        self.pending_pc = -1
        self.steps = 0
        self.done = False
        self.error: SimtError | None = None
        self.last: StepEvent | None = None
        self.branch_line = {}
        self._snaps: dict[int, object] = {}
        self._next_batch()
        self._snap()

    # -------------------------------------------------------------- batches
    def _next_batch(self) -> bool:
        self.batch_index += 1
        if self.batch_index >= len(self._batches):
            self.done = True
            self.launch.done = True
            return False
        self.m = Machine(self.launch)
        self.m.setup(self._batches[self.batch_index])
        self.pending = []
        return True

    @property
    def blocks(self) -> list[int]:
        return [int(b) for b in self.m.b.blocks] if self.m is not None else []

    # ---------------------------------------------------------------- steps
    def step(self) -> StepEvent | None:
        if self.done:
            return None
        try:
            with np.errstate(all="ignore"):
                ev = self._step()
        except SimtError as e:
            self.error = e
            self.done = True
            return None
        if ev is not None:
            self.last = ev
            if self.steps % SNAP_EVERY == 0:
                self._snap()
        return ev

    def _step(self) -> StepEvent | None:
        m = self.m
        while True:
            while self.pending:
                w = self.pending.pop(0)
                if m.state[w] == RUN and m.pc[w] == self.pending_pc:
                    return self._exec_one(self.pending_pc, w)
            g = m.pick()
            if g is None:
                m.finish_batch()
                if not self._next_batch():
                    return None
                m = self.m
                continue
            self.pending_pc, ws = g
            self.pending = [int(x) for x in ws]

    def _exec_one(self, p: int, w: int) -> StepEvent:
        m = self.m
        ins = m.code[p]
        sel = slice(w * 32, w * 32 + 32)
        act = m.M[ins.depth][sel].copy()
        access = self._access_info(ins, sel, act) if ins.op in (Op.LOAD, Op.STORE, Op.ATOM) and act.any() else None
        cond = None
        if ins.op in (Op.IF, Op.LOOPTEST) and ins.args:
            cond = np.broadcast_to(np.asarray(m.rd(ins.args[0], sel), bool), act.shape).copy()
        m.exec(p, np.array([w]))
        budget = self.launch.step_budget
        if budget and m.wsteps[w] > budget:
            from .errors import LaunchError
            raise LaunchError(f"step budget exceeded: a warp executed more than {budget} instructions; "
                              f"a loop that never ends? (it is at line {ins.line})", ins.coord, tool="simt")
        branch = None
        if cond is not None:
            taken = act & cond
            div = bool(taken.any() and (taken != act).any())
            branch = {"taken": int(_mask_bits(taken[None])[0]), "not_taken": int(_mask_bits((act & ~cond)[None])[0]),
                      "diverged": div}
            if div:
                self.branch_line[(self.batch_index, w)] = ins.line
        blk = int(m.b.blocks[m.wblk[w]])
        ev = StepEvent(index=self.steps, pc=p, line=ins.line, op=ins.op.name, text=describe(ins),
                       block=blk, warp=w % m.b.wpb, active_mask=int(_mask_bits(act[None])[0]),
                       access=access, branch=branch)
        self.steps += 1
        self.launch.steps_done = self.steps
        return ev

    def _access_info(self, ins, sel, act) -> dict:
        m = self.m
        idx = np.flatnonzero(act)
        addr = m.rd(ins.args[0], sel)
        A = (np.asarray(addr)[idx] if np.ndim(addr) else np.full(len(idx), addr)).astype(np.int64)
        size = sizeof(ins.ctype)
        space = "shared" if ((A >= SHARED_BASE) & (A < (1 << 52))).all() else \
            ("local" if (A >= (1 << 52)).all() else "global")
        kind = {Op.LOAD: "ld", Op.STORE: "st"}.get(ins.op, "atom" if ins.dst is not None else "red")
        info = {"space": space, "kind": kind, "size": size, "lanes": idx.tolist(),
                "addresses": A.tolist()}
        mat = np.zeros((1, 32), np.int64)
        a2 = np.zeros((1, 32), bool)
        mat[0, idx] = A
        a2[0, idx] = True
        if space == "shared":
            off = A - SHARED_BASE
            info["offsets"] = off.tolist()
            info["words"] = (off // 4).tolist()
            info["banks"] = ((off // 4) % 32).tolist()
            if kind in ("ld", "st"):
                waves, ideal = C.wavefronts(mat - SHARED_BASE, a2, size)
                info["wavefronts"], info["ideal"] = int(waves[0]), int(ideal[0])
        elif space == "global":
            secs = sorted(set((A // 32).tolist()) | set(((A + size - 1) // 32).tolist()))
            info["sectors"] = secs
            info["n_sectors"] = len(secs)
            info["ideal_sectors"] = max(1, -(-len(idx) * size // 32))
        if ins.op == Op.ATOM:
            groups = {}
            for lane, a in zip(idx.tolist(), A.tolist()):
                groups.setdefault(a, []).append(lane)
            info["groups"] = [{"address": a, "lanes": l} for a, l in groups.items()]
            info["steps"] = max(len(l) for l in groups.values())
        return info

    def run(self, n: int) -> StepEvent | None:
        ev = None
        for _ in range(n):
            e = self.step()
            if e is None:
                break
            ev = e
        return ev

    def run_until(self, pred, max_steps: int = 1_000_000) -> StepEvent | None:
        ev = None
        for _ in range(max_steps):
            e = self.step()
            if e is None:
                return ev
            ev = e
            if pred(e):
                return e
        return ev

    def run_to_end(self, progress=None):
        """Finish the launch quickly (whole groups at a time); returns the LaunchResult."""
        import time
        t0 = time.perf_counter()
        try:
            with np.errstate(all="ignore"):
                # finish the group in flight warp by warp, then run groups whole
                while self.pending:
                    if self.step() is None:
                        break
                while not self.done:
                    before = int(self.m.wsteps.sum())
                    self.m.run()
                    # count the warp instructions run in bulk as steps
                    self.steps += int(self.m.wsteps.sum()) - before
                    self.launch.steps_done = self.steps
                    if progress:
                        progress(self.batch_index + 1, len(self._batches))
                    if not self._next_batch():
                        break
        except SimtError as e:
            self.error = e
            self.done = True
        self.steps = int(self.steps)
        return self.launch.result(time.perf_counter() - t0)

    def result(self):
        return self.launch.result(0.0)

    # -------------------------------------------------------- time travel
    def _snap(self):
        m = self.m
        if m is None:
            return
        L = self.launch
        self._snaps[self.steps] = copy.deepcopy({
            "batch": self.batch_index, "regs": m.regs, "M": m.M, "pc": m.pc, "state": m.state,
            "wsteps": m.wsteps, "sbuf": m.sbuf, "lbuf": m.lbuf, "rr": m.rr_next, "step_no": m.step_no,
            "rt": m.rt, "wclock": m.wclock, "inflight": m.inflight, "ifl_ptr": m.ifl_ptr,
            "shared_hot": m.shared_hot, "loc": m.loc, "spin_word": m.spin_word,
            "gbuf": L.device.buf, "counters": L.counters, "sanitizer": L.sanitizer,
            "rng": L.rng.bit_generator.state, "pending": list(self.pending), "pending_pc": self.pending_pc,
            "stdout": list(L.stdout), "done": self.done, "last": self.last,
            "branch_line": dict(self.branch_line)})

    def _restore(self, k: int):
        s = copy.deepcopy(self._snaps[k])
        L = self.launch
        if s["batch"] != self.batch_index or self.m is None:
            self.batch_index = s["batch"]
            self.m = Machine(L)
            self.m.setup(self._batches[self.batch_index])
        m = self.m
        m.regs, m.M, m.pc, m.state = s["regs"], s["M"], s["pc"], s["state"]
        m.wsteps, m.sbuf, m.lbuf, m.rr_next, m.step_no = s["wsteps"], s["sbuf"], s["lbuf"], s["rr"], s["step_no"]
        m.rt, m.wclock, m.inflight, m.ifl_ptr = s["rt"], s["wclock"], s["inflight"], s["ifl_ptr"]
        m.shared_hot = s["shared_hot"]
        m.loc = s["loc"]
        m.spin_word = s["spin_word"]
        L.device.buf[...] = s["gbuf"]
        L.counters = m.cnt = s["counters"]
        L.sanitizer = m.sanitizer = s["sanitizer"]
        L.rng.bit_generator.state = s["rng"]
        L.stdout[:] = s["stdout"]
        m.stdout = L.stdout
        m._views = {}
        self.pending, self.pending_pc = s["pending"], s["pending_pc"]
        self.done, self.last, self.error = s["done"], s["last"], None
        self.branch_line = s["branch_line"]
        self.steps = k

    def goto(self, k: int) -> StepEvent | None:
        k = max(0, int(k))
        if k < self.steps or self.error is not None:
            base = max(s for s in self._snaps if s <= k)
            self._restore(base)
        while self.steps < k and not self.done:
            if self.step() is None:
                break
        return self.last

    def back(self) -> StepEvent | None:
        return self.goto(self.steps - 1)

    # ------------------------------------------------------------ inspect
    def _block_index(self, block: int) -> int:
        bl = self.m.b.blocks
        j = np.flatnonzero(bl == block)
        if not len(j):
            raise KeyError(f"block {block} is not resident now (resident: {bl[0]}..{bl[-1]})")
        return int(j[0])

    def warps(self, block: int) -> list[WarpState]:
        m = self.m
        bi = self._block_index(block)
        out = []
        names = {RUN: "running", WAIT: "waiting", DONE: "done"}
        for k in range(m.b.wpb):
            w = bi * m.b.wpb + k
            sel = slice(w * 32, w * 32 + 32)
            pc = int(m.pc[w])
            ins = m.code[min(pc, len(m.code) - 1)]
            alive = m.M[0][sel]
            act = m.M[ins.depth][sel] & alive if m.state[w] != DONE else np.zeros(32, bool)
            exists = m.lane_tid[sel] < self.launch.cfg.block.size
            div = alive & ~act if m.state[w] == RUN else np.zeros(32, bool)
            out.append(WarpState(
                warp=k, pc=pc, line=ins.line, state=names[int(m.state[w])],
                active=int(_mask_bits(act[None])[0]), exited=int(_mask_bits((exists & ~alive)[None])[0]),
                divergent=int(_mask_bits(div[None])[0]),
                branch_line=self.branch_line.get((self.batch_index, w)) if div.any() else None))
        return out

    def variables(self) -> list[str]:
        names = []
        for r in self.ir.regs:
            if r.is_var and r.name and not r.name.startswith(("else", "logic", "cond")) and \
                    "." not in r.name and r.name not in names:
                names.append(r.name)
        for p in self.ir.params:          # a struct by value: each leaf member (p.alpha)
            for n in ([f"{p.name}.{f[0]}" for f in p.fields] if p.fields is not None else [p.name]):
                if n not in names:
                    names.append(n)
        for b in ("threadIdx.x", "threadIdx.y", "blockIdx.x"):
            names.append(b)
        return names

    def values(self, block: int, name: str):
        m = self.m
        bi = self._block_index(block)
        sel = slice(bi * m.b.wpb * 32, (bi + 1) * m.b.wpb * 32)
        for r in self.ir.regs:
            if (r.name == name and r.is_var) or (r.builtin and r.name == name):
                return m.regs[r.slot][sel].copy()
        for p in self.ir.params:
            if p.name == name and p.uniform is not None:
                return np.full(m.b.wpb * 32, self.launch.uniforms[p.uniform.index])
            for path, _, _, u in p.fields or ():
                if f"{p.name}.{path}" == name:
                    return np.full(m.b.wpb * 32, self.launch.uniforms[u.index])
        if name in ("threadIdx.x", "threadIdx.y", "threadIdx.z"):
            bx, by, _ = self.launch.cfg.block.as_tuple()
            t = m.lane_tid[sel]
            return {"x": t % bx, "y": (t // bx) % by, "z": t // (bx * by)}[name[-1]]
        if name.startswith("blockIdx."):
            return np.full(m.b.wpb * 32, self.launch.block_coords(block)["xyz".index(name[-1])])
        return None

    def shared(self, block: int) -> np.ndarray:
        m = self.m
        bi = self._block_index(block)
        return m.sbuf[bi * m.S:(bi + 1) * m.S].copy()

    def line_counters(self) -> dict:
        return self.launch.counters.per_line()

    def findings(self) -> list:
        out = self.launch.sanitizer.findings() if self.launch.sanitizer is not None else []
        if self.error is not None and getattr(self.error, "tool", None):
            from .sanitizer import finding_from_error
            out = out + [finding_from_error(self.error)]
        return out
