"""Compare the variants of one family side by side: their counters, the emulator's
predicted time and, with ``--real``, the time measured on the GPU, as bars."""
from __future__ import annotations

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, ProgressBar, Static
from textual.worker import get_current_worker

from simt import counters as C
from tui import fmt
from tui.session import Options, gpu_available, measure_variant, run_variant

COLUMNS = [("variant", 24), ("ok", 4), ("warp inst", 10), ("SIMT eff", 8), ("bank confl", 10),
           ("gl sectors", 10), ("atomics", 8), ("predicted", 10), ("measured", 10)]


def _sum(m: dict, *keys) -> float:
    return sum(float(m.get(k, 0) or 0) for k in keys)


def bar(value: float | None, vmax: float, width: int) -> str:
    if value is None or vmax <= 0:
        return ""
    n = value / vmax * width
    full = int(n)
    frac = n - full
    parts = " ▏▎▍▌▋▊▉"
    return "█" * full + (parts[int(frac * 8)] if full < width and frac > 0.125 else "")


class CompareScreen(Screen):
    BINDINGS = [Binding("escape", "back", "back"), Binding("q", "quit", "quit")]

    class Row(Message):
        def __init__(self, row: dict, i: int, total: int) -> None:
            super().__init__()
            self.row, self.i, self.total = row, i, total

    class Finished(Message):
        def __init__(self, note: str = "") -> None:
            super().__init__()
            self.note = note

    def __init__(self, family: str, options: Options | None = None, current: str | None = None) -> None:
        super().__init__()
        self.family = family
        self.options = options or Options()
        self.current = current
        self.rows: dict[str, dict] = {}
        self.gpu_note = ""

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="cmp-title")
        yield ProgressBar(id="cmp-progress", show_eta=False)
        yield DataTable(id="cmp-table", cursor_type="row", zebra_stripes=True)
        yield Static(id="cmp-bars")
        yield Footer()

    def on_mount(self) -> None:
        from kernels_cuda import catalog

        self.app.sub_title = f"compare {self.family}"
        self.entries = [e for e in catalog.entries() if e.family == self.family]
        t = self.query_one(DataTable)
        for name, w in COLUMNS:
            t.add_column(name, key=name, width=w)
        for e in self.entries:
            t.add_row(e.variant, "…", "", "", "", "", "", "", "", key=e.id)
        if self.current:
            ids = [e.id for e in self.entries]
            if self.current in ids:
                t.move_cursor(row=ids.index(self.current))
        # one size for the whole family (counters, prediction and --real alike): the
        # smallest default size of its variants, or --n
        self.n = self.options.n or min(e.default_n for e in self.entries)
        real = bool(self.options.real)
        self.profile = None
        if real:
            ok, why = gpu_available()
            self.gpu_ok = ok
            self.gpu_note = (f"measured on {why}" if ok else f"--real: no usable GPU ({why})")
            if ok and "h200" in str(why).lower():
                self.profile = "h200"
        else:
            self.gpu_ok = False
            self.gpu_note = "measured: n/a (add --real to time the variants on a GPU)"
        self.query_one("#cmp-title", Static).update(Text.assemble(
            (f"{self.family}: {len(self.entries)} variants", "bold"),
            (f"   at n={self.n:,}: counters summed over each variant's launches, time predicted "
             "for a GPU from them", "#8a8a8a"),
            ("\n" + self.gpu_note, "#ff8787" if real and not self.gpu_ok else "#8a8a8a")))
        self.query_one(ProgressBar).update(total=len(self.entries) * (2 if self.gpu_ok else 1), progress=0)
        self._bars()
        self._work()

    @work(thread=True, exclusive=True)
    def _work(self) -> None:
        worker = get_current_worker()
        total = len(self.entries) * (2 if self.gpu_ok else 1)
        k = 0
        for e in self.entries:
            if worker.is_cancelled:
                return
            try:
                row = run_variant(e, min(self.n, e.default_n), self.options.seed,
                                  profile=self.profile)
            except Exception as err:  # one broken variant must not hide the others
                row = {"id": e.id, "variant": e.variant, "error": f"{type(err).__name__}: {err}",
                       "metrics": {}, "correct": None, "predicted_ms": None}
            k += 1
            self.post_message(self.Row(row, k, total))
        if self.gpu_ok:
            for e in self.entries:
                if worker.is_cancelled:
                    return
                row = dict(self.rows.get(e.id) or {"id": e.id, "variant": e.variant, "metrics": {}})
                try:
                    n = min(self.n, e.default_n)       # the size the emulator ran
                    row["measured_ms"] = measure_variant(e, n, self.options.seed)
                    row["measured_n"] = n
                except Exception as err:
                    row["measured_error"] = f"{type(err).__name__}: {err}"
                k += 1
                self.post_message(self.Row(row, k, total))
        self.post_message(self.Finished())

    def on_compare_screen_row(self, msg: "CompareScreen.Row") -> None:
        r = msg.row
        self.rows[r["id"]] = r
        m = r.get("metrics") or {}
        t = self.query_one(DataTable)
        ok = "ERR" if r.get("error") else ("-" if r.get("correct") is None else ("yes" if r["correct"] else "NO"))
        inst = m.get(C.INST)
        ratio = m.get(C.RATIO)
        vals = {
            "ok": Text(ok, style="bold #ff5f5f" if ok in ("NO", "ERR") else "#5fd787"),
            "warp inst": fmt.num(inst) if inst is not None else "",
            "SIMT eff": f"{float(ratio) / 32 * 100:.0f}%" if ratio else "",
            "bank confl": fmt.num(_sum(m, C.CONFL_LD, C.CONFL_ST)) if m else "",
            "gl sectors": fmt.num(_sum(m, C.SECT_LD, C.SECT_ST)) if m else "",
            "atomics": fmt.num(_sum(m, C.REQ_ATOM, C.REQ_RED, C.SHARED_ATOM)) if m else "",
            "predicted": fmt.ms(r.get("predicted_ms")),
            "measured": fmt.ms(r.get("measured_ms")),
        }
        for col, v in vals.items():
            t.update_cell(r["id"], col, v)
        self.query_one(ProgressBar).update(progress=msg.i)
        self._bars()

    def on_compare_screen_finished(self, msg: "CompareScreen.Finished") -> None:
        self.query_one(ProgressBar).display = False
        self._bars()

    def _bars(self) -> None:
        width = max(20, self.size.width - 36)
        t = Text()
        pred = {k: r.get("predicted_ms") for k, r in self.rows.items()}
        meas = {k: r.get("measured_ms") for k, r in self.rows.items()}
        have_pred = any(v is not None for v in pred.values())
        have_meas = any(v is not None for v in meas.values())
        if have_pred or have_meas:
            vmax = max([v for v in list(pred.values()) + list(meas.values()) if v is not None] + [1e-9])
            t.append("time: ", style="bold")
            prof = next((r.get("profile") for r in self.rows.values() if r.get("profile")), None)
            t.append("█ predicted by the emulator" + (f" ({prof} profile)" if prof else ""),
                     style="#5fafff")
            t.append("   ")
            t.append("█ measured on the GPU", style="#ffaf00")
            for e in self.entries:
                p, q = pred.get(e.id), meas.get(e.id)
                t.append(f"\n{e.variant[:22]:<22} ", style="bold")
                t.append(f"{fmt.ms(p):>9} ", style="#5fafff")
                t.append(bar(p, vmax, width), style="#5fafff")
                if have_meas or self.gpu_ok:
                    t.append(f"\n{'':<22} ")
                    t.append(f"{fmt.ms(q):>9} ", style="#ffaf00")
                    t.append(bar(q, vmax, width), style="#ffaf00")
            if not (have_meas or self.gpu_ok):
                t.append(f"\n{self.gpu_note}", style="#8a8a8a")
        else:
            t.append("predicted time: n/a (the emulator has no timing model yet); ", style="bold")
            t.append(self.gpu_note + "\n", style="#8a8a8a")
            insts = {k: (r.get("metrics") or {}).get(C.INST) for k, r in self.rows.items()}
            vmax = max([float(v) for v in insts.values() if v] + [1.0])
            t.append("emulated work (warp instructions, fewer is better):", style="#8a8a8a")
            for e in self.entries:
                v = insts.get(e.id)
                t.append(f"\n{e.variant[:22]:<22} ", style="bold")
                t.append(f"{fmt.compact(v, 7) if v is not None else '…':>7} ", style="#5fafff")
                t.append(bar(float(v) if v else None, vmax, width), style="#5fafff")
        self.query_one("#cmp-bars", Static).update(t)

    def action_back(self) -> None:
        self.workers.cancel_all()
        self.app.pop_screen()

    def action_quit(self) -> None:
        self.workers.cancel_all()
        self.app.exit()
