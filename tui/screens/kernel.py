"""The kernel screen: step a launch warp instruction by warp instruction.

The screen owns the ``Session`` (the prepared launch and its ``simt.Stepper``).  After
every step or jump it builds a ``Frame`` and hands it down to the widgets (reactive
attributes); widgets send messages up (a finding to jump to).  Anything that may take
long (run to the next barrier or the end, a jump forward, a restart, the next launch)
runs in a thread worker that reports progress by message, so the screen never freezes;
``escape`` stops it.
"""
from __future__ import annotations

import time
from collections import deque

from rich.markup import escape
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, TabbedContent, TabPane
from textual.worker import get_current_worker

from tui import fmt
from tui.frame import AddressNames, Frame
from tui.screens.dialogs import GotoDialog, RestartDialog, VariableDialog
from tui.session import Options, Session, open_session, restart
from tui.widgets.atomics_view import AtomicsView
from tui.widgets.bank_view import BankView
from tui.widgets.counters_table import CountersTable
from tui.widgets.findings_list import FindingsList
from tui.widgets.lane_detail import LaneDetail
from tui.widgets.sectors_view import SectorsView
from tui.widgets.source_view import SourceView
from tui.widgets.step_bar import StepBar
from tui.widgets.warp_grid import WarpGrid

HISTORY = 8192            # events kept to find the last shared/atomic/global access
STEPWISE_END = 5_000      # 'e' steps one by one up to this many, then finishes in bulk
WIDE = 130                # columns from which source and panes sit side by side

PREFERRED_VARS = ("chunk", "bin", "value", "val", "v", "sum", "i", "tid", "t", "idx", "index",
                  "gid", "tid_global", "row", "x")


def pick_variable(names: list[str]) -> str | None:
    """A telling default for the lanes: a kernel variable, else threadIdx.x."""
    for p in PREFERRED_VARS:
        if p in names:
            return p
    return names[0] if names else None    # the kernel's own variables come first


class KernelScreen(Screen):
    BINDINGS = [
        Binding("s", "step", "step"),
        Binding("right", "step", "step", show=False, priority=True),
        Binding("n", "next_line", "line"),
        Binding("c", "continue", "barrier"),
        Binding("b", "back", "back"),
        Binding("left", "back", "back", show=False, priority=True),
        Binding("g", "goto", "goto"),
        Binding("w", "warp(1)", "warp"),
        Binding("W", "warp(-1)", "prev warp", show=False),
        Binding("k", "block(1)", "block"),
        Binding("K", "block(-1)", "prev block", show=False),
        Binding("v", "variable", "var"),
        Binding("r", "restart", "restart"),
        Binding("e", "end", "end", show=False),
        Binding("f", "follow", "follow", show=False),
        Binding("l", "next_launch", "next launch", show=False),
        Binding("m", "compare", "compare", show=False),
        Binding("question_mark", "help", "keys", show=False),
        Binding("1", "pane('tab-shared')", "shared pane", show=False),
        Binding("2", "pane('tab-atomics')", "atomics pane", show=False),
        Binding("3", "pane('tab-global')", "global pane", show=False),
        Binding("4", "pane('tab-counters')", "counters pane", show=False),
        Binding("5", "pane('tab-sanitizer')", "sanitizer pane", show=False),
        Binding("t", "app.streams", "streams", show=False),   # the app's, kept off this footer
        Binding("escape", "stop_or_leave", "catalog", show=False),
        Binding("q", "quit", "quit"),
    ]

    # ------------------------------------------------------------------ messages
    class Opened(Message):
        def __init__(self, session: Session, keep_view: bool = False) -> None:
            super().__init__()
            self.session = session
            self.keep_view = keep_view

    class Measured(Message):
        """The launch timed on the GPU (``--real``), or why it could not be."""

        def __init__(self, note: str) -> None:
            super().__init__()
            self.note = note

    class Progress(Message):
        def __init__(self, done: float, total: float | None, label: str = "") -> None:
            super().__init__()
            self.done, self.total, self.label = done, total, label

    class RunDone(Message):
        def __init__(self, events: list, note: str = "") -> None:
            super().__init__()
            self.events = events
            self.note = note

    # ------------------------------------------------------------------ set-up
    def __init__(self, target: str, options: Options | None = None,
                 session: Session | None = None) -> None:
        super().__init__()
        self.target = target
        self.options = options or Options()
        self.session: Session | None = session
        self.history: deque = deque(maxlen=HISTORY)
        self.block: int | None = None
        self.warp = 0
        self.follow = True
        self.variable: str | None = None
        self.busy: str | None = None
        self.mark: int | None = None
        self.bulk_end = False          # the end was reached in bulk (no per-step history)
        self.frame = Frame()
        self.real_note = ""

    def compose(self) -> ComposeResult:
        # narrow (80 columns): source, memory panes, warps, lanes, one above the other;
        # wide: source and panes side by side above warps that span the full width
        yield StepBar(id="stepbar")
        with Vertical(id="main"):
            with Horizontal(id="top"):
                yield SourceView(id="source")
                with TabbedContent(id="panes", initial="tab-shared"):
                    with TabPane("1 Shared", id="tab-shared"):
                        yield BankView(id="banks")
                    with TabPane("2 Atomics", id="tab-atomics"):
                        yield AtomicsView(id="atomics")
                    with TabPane("3 Global", id="tab-global"):
                        yield SectorsView(id="sectors")
                    with TabPane("4 Counters", id="tab-counters"):
                        yield CountersTable(id="counters")
                    with TabPane("5 Sanitizer", id="tab-sanitizer"):
                        yield FindingsList(id="findings")
            yield WarpGrid(id="warps")
            yield LaneDetail(id="lanes")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self._layout(self.app.size.width)
        if self.session is not None:
            self._install(self.session)
        else:
            self.query_one(StepBar).where = f"[b]{escape(self.target)}[/b]  opening…"
            self._open()

    def on_resize(self, event) -> None:
        self._layout(event.size.width)

    def _layout(self, width: int) -> None:
        self.set_class(width >= WIDE, "-wide")

    @work(thread=True, exclusive=True, group="emu")
    def _open(self) -> None:
        s = open_session(self.target, self.options)
        self.post_message(self.Opened(s))

    def on_kernel_screen_opened(self, msg: "KernelScreen.Opened") -> None:
        self._install(msg.session, msg.keep_view)

    def _install(self, s: Session, keep_view: bool = False) -> None:
        self.session = s
        self.options = s.options
        self.history.clear()
        self.busy = None
        self.bulk_end = False
        bar = self.query_one(StepBar)
        bar.stop_busy()
        src = self.query_one(SourceView)
        src.set_source(s.source_text)
        src.error_line = None
        src.mark_line = None
        self.mark = None
        for n in s.notes:
            self.notify(n)
        if s.options.real and s.spec is not None and not keep_view:
            self.real_note = "GPU: timing…"
            self._measure(s)
        bar.where = self._where()
        st = s.stepper
        if s.error is not None or st is None:
            src.error_line = s.error_line
            self.frame = Frame(error=s.error, policy=s.policy, seed=s.options.seed)
            self._push_frame()
            if s.error is not None:
                self.query_one("#panes", TabbedContent).active = "tab-sanitizer"
                self.notify(str(s.error), title="cannot run this kernel", severity="error",
                            timeout=8)
            return
        names = st.variables()
        if not keep_view or self.variable not in names:
            self.variable = pick_variable(names)
        if not keep_view:
            self.block = None
            self.warp = 0
            self.follow = True
        self.names = AddressNames(s.kernel.params, s.spec.args, getattr(st.ir, "shared_symbols", ()),
                                  _shared_base())
        self.refresh_frame()

    def _where(self) -> str:
        s = self.session
        if s is None:
            return ""
        if s.spec is None:
            return f"[b]{escape(s.target)}[/b]  [red]cannot run[/red]"
        spec = s.spec
        k = f"launch {spec.index + 1}" + (f" of {spec.n_launches}" if spec.n_launches else "")
        n = f"n={s.n:,}  " if s.n else ""
        return (f"[b]{escape(s.target)}[/b]  {k}: [b]{spec.kernel}[/b]{spec.config}  {n}"
                f"policy {s.policy}  seed {s.options.seed}"
                + ("" if s.options.sanitize else "  sanitizer off")
                + (f"  {self.real_note}" if self.real_note else ""))

    @work(thread=True, exclusive=True, group="gpu")
    def _measure(self, s: Session) -> None:
        from tui.session import gpu_available, measure_launch

        ok, why = gpu_available()
        if not ok:
            self.post_message(self.Measured(f"[#ff8787]--real: no usable GPU ({escape(str(why))})[/]"))
            return
        try:
            ms = measure_launch(s)
        except Exception as e:  # NVRTC refusing the file, a driver error: say it
            self.post_message(self.Measured(
                f"[#ff8787]--real failed: {type(e).__name__}: {escape(str(e))}[/]"))
            return
        self.post_message(self.Measured(
            f"[#ffaf00]GPU {escape(str(why))}: {fmt.ms(ms)}[/]" if ms is not None
            else f"GPU {escape(str(why))}: not timed"))

    def on_kernel_screen_measured(self, msg: "KernelScreen.Measured") -> None:
        self.real_note = msg.note
        self.query_one(StepBar).where = self._where()

    # ------------------------------------------------------------------ frames
    @property
    def stepper(self):
        return self.session.stepper if self.session is not None else None

    def refresh_frame(self) -> None:
        """Read the stepper's state into a new Frame and show it."""
        st = self.stepper
        if st is None:
            return
        ev = st.last if st.steps else None
        blocks = st.blocks
        if self.follow and ev is not None:
            self.block, self.warp = ev.block, ev.warp
        if self.block not in blocks:
            self.block = blocks[0] if blocks else None
        warps = []
        values = None
        if self.block is not None:
            try:
                warps = st.warps(self.block)
            except KeyError:
                warps = []
            if warps:
                self.warp = min(max(self.warp, 0), len(warps) - 1)
            if self.variable:
                try:
                    values = st.values(self.block, self.variable)
                except KeyError:
                    values = None
        last_shared = last_atomic = last_global = None
        now = st.steps
        for e in reversed(self.history):
            if e.index >= now:
                continue
            a = e.access
            if a is None:
                continue
            if last_shared is None and a["space"] == "shared":
                last_shared = e
            if last_atomic is None and a.get("groups") is not None:
                last_atomic = e
            if last_global is None and a["space"] == "global":
                last_global = e
            if last_shared is not None and last_atomic is not None and last_global is not None:
                break
        shared = None
        sb = last_shared.block if last_shared is not None else self.block
        if sb is not None:
            try:
                shared = st.shared(sb)
            except KeyError:
                shared = None
        findings = st.findings()
        panes = self.query_one("#panes", TabbedContent)
        metrics = st.result().metrics if panes.active == "tab-counters" else self.frame.metrics
        self.frame = Frame(
            step=st.steps, done=st.done, event=ev, block=self.block, warp=self.warp,
            blocks=blocks, warps=warps, variable=self.variable, values=values, shared=shared,
            line_counters=st.line_counters(), findings=findings, error=st.error,
            last_shared=last_shared, last_atomic=last_atomic, last_global=last_global,
            metrics=metrics, names=self.names, policy=self.session.policy,
            seed=self.session.options.seed,
            threads_per_block=self.session.spec.block[0] * self.session.spec.block[1] * self.session.spec.block[2])
        self._push_frame()

    def _push_frame(self) -> None:
        f = self.frame
        self.query_one(StepBar).frame = f
        src = self.query_one(SourceView)
        marks = []
        for x in f.findings:               # a finding counts once on each line it names
            marks.append((getattr(x, "line", None), 1))
            if getattr(x, "line2", None) and x.line2 != getattr(x, "line", None):
                marks.append((x.line2, 1))
        src.update_figures(f.line_counters, marks)
        err_line = getattr(getattr(f.error, "coord", None), "line", None)
        if f.error is not None and err_line:
            src.error_line = err_line
        src.current_line = f.event.line if f.event is not None else None
        if f.event is None and self.session is not None and self.session.kernel is not None \
                and f.error is None:
            line = self.session.kernel.ir.coord.line
            self.call_after_refresh(src.show_line, line, True)
        self.query_one(WarpGrid).frame = f
        self.query_one(LaneDetail).frame = f
        self._push_panes()

    def _push_panes(self) -> None:
        """Only the visible tab renders (keeps a step cheap)."""
        f = self.frame
        active = self.query_one("#panes", TabbedContent).active
        widget = {"tab-shared": BankView, "tab-atomics": AtomicsView, "tab-global": SectorsView,
                  "tab-counters": CountersTable, "tab-sanitizer": FindingsList}.get(active)
        if widget is not None:
            self.query_one(widget).frame = f

    @on(TabbedContent.TabActivated, "#panes")
    def _tab_changed(self, event: TabbedContent.TabActivated) -> None:
        st = self.stepper
        if event.pane.id == "tab-counters" and st is not None and self.busy is None:
            self.frame.metrics = st.result().metrics
        self._push_panes()

    def _follow_tab(self, ev) -> None:
        """Show the memory pane of the access the last step made (unless the user is
        reading counters or findings)."""
        if ev is None or ev.access is None:
            return
        panes = self.query_one("#panes", TabbedContent)
        if panes.active not in ("tab-shared", "tab-atomics", "tab-global"):
            return
        a = ev.access
        want = "tab-atomics" if a.get("groups") is not None else (
            "tab-shared" if a["space"] == "shared" else "tab-global" if a["space"] == "global" else None)
        if want and panes.active != want:
            panes.active = want

    # ------------------------------------------------------------------ guards
    def _ready(self) -> bool:
        if self.busy is not None:
            self.notify(f"busy: {self.busy} (esc stops it)", timeout=2)
            return False
        s = self.session
        if s is None:
            self.notify("still opening…", timeout=2)
            return False
        if s.stepper is None:
            self.notify(f"cannot step: {s.error}", severity="error", timeout=4)
            return False
        return True

    def _after_steps(self, events: list) -> None:
        self.history.extend(events)
        st = self.stepper
        if st.error is not None:
            self.query_one("#panes", TabbedContent).active = "tab-sanitizer"
            self.notify(str(st.error), title="the launch stopped", severity="error", timeout=8)
        self._follow_tab(next((e for e in reversed(events) if e.access is not None), None))
        self.refresh_frame()

    # ------------------------------------------------------------------ actions
    def action_step(self) -> None:
        if not self._ready():
            return
        st = self.stepper
        if st.done:
            self.notify("the launch has finished (b steps back, r restarts)", timeout=3)
            return
        ev = st.step()
        self._after_steps([ev] if ev is not None else [])

    def action_back(self) -> None:
        if not self._ready():
            return
        st = self.stepper
        if st.steps == 0:
            self.notify("at step 0: nothing before it", timeout=2)
            return
        st.back()
        self.bulk_end = False
        self.refresh_frame()

    def action_next_line(self) -> None:
        if not self._ready():
            return
        st = self.stepper
        if st.done:
            self.notify("the launch has finished", timeout=2)
            return
        line0 = st.last.line if st.steps and st.last is not None else None
        self._run(lambda e: line0 is not None and e.line != line0, "to the next source line",
                  stop_on_first=line0 is None)

    def action_continue(self) -> None:
        if not self._ready():
            return
        if self.stepper.done:
            self.notify("the launch has finished", timeout=2)
            return
        st = self.stepper
        if not any(getattr(ins.op, "name", "") == "BAR" for ins in st.ir.code):
            self.notify("no __syncthreads() in this kernel: running to the end", timeout=3)
            self._run(lambda e: False, "to the end of the launch", bulk_after=STEPWISE_END)
            return
        pinned = None if self.follow else self.block

        def released(e) -> bool:
            """A __syncthreads() released its block (the selected one when pinned); when
            following, once no warp of the resident blocks waits at a barrier any more."""
            if e.op != "BAR":
                return False
            if pinned is not None and e.block != pinned:
                return False
            try:
                if any(w.state == "waiting" for w in st.warps(e.block)):
                    return False
                if pinned is None:
                    return not any(w.state == "waiting" for b in st.blocks for w in st.warps(b))
            except KeyError:
                return True
            return True

        self._run(released, "to the next __syncthreads() or the end")

    def action_end(self) -> None:
        if not self._ready():
            return
        if self.stepper.done:
            self.notify("the launch has finished", timeout=2)
            return
        self._run(lambda e: False, "to the end of the launch", bulk_after=STEPWISE_END)

    def action_goto(self) -> None:
        if not self._ready():
            return

        def done(k: int | None) -> None:
            if k is None or not self._ready():
                return
            st = self.stepper
            if k <= st.steps:
                st.goto(k)
                self.bulk_end = False
                self.refresh_frame()
            else:
                target = k
                self._run(lambda e: e.index + 1 >= target, f"to step {k:,}", total=k)

        self.app.push_screen(GotoDialog(self.stepper.steps), done)

    def action_warp(self, d: int) -> None:
        f = self.frame
        if not f.warps:
            return
        self.follow = False
        self.warp = (self.warp + d) % len(f.warps)
        if self.busy is None:
            self.refresh_frame()

    def action_block(self, d: int) -> None:
        st = self.stepper
        if st is None or self.busy is not None:
            return
        blocks = st.blocks
        if not blocks:
            return
        self.follow = False
        i = blocks.index(self.block) if self.block in blocks else 0
        self.block = blocks[(i + d) % len(blocks)]
        self.refresh_frame()

    def action_follow(self) -> None:
        self.follow = True
        if self.busy is None:
            self.refresh_frame()
        self.notify("following the warp that executes", timeout=2)

    def action_variable(self) -> None:
        if not self._ready():
            return

        def done(name: str | None) -> None:
            if name:
                self.variable = name
                if self.busy is None:
                    self.refresh_frame()

        self.app.push_screen(VariableDialog(self.stepper.variables(), self.variable), done)

    def action_restart(self) -> None:
        if self.busy is not None or self.session is None:
            self._ready()
            return
        s = self.session

        def done(r) -> None:
            if r is None:
                return
            seed, policy = r
            self._reopen(seed=seed, policy=policy, label=f"restarting with seed {seed}, {policy}")

        self.app.push_screen(RestartDialog(s.options.seed, s.policy), done)

    def action_next_launch(self) -> None:
        if self.busy is not None or self.session is None or self.session.spec is None:
            return
        spec = self.session.spec
        nxt = spec.index + 1
        if spec.n_launches and nxt >= spec.n_launches:
            nxt = 0
        self._reopen(launch=nxt, label=f"running launches 1..{nxt} to reach launch {nxt + 1}")

    def action_compare(self) -> None:
        s = self.session
        if s is None or s.entry is None:
            self.notify("compare works on catalog entries (variants of one family)", timeout=3)
            return
        from tui.screens.compare import CompareScreen
        self.app.push_screen(CompareScreen(s.entry.family, s.options, current=s.entry.id))

    def action_stop_or_leave(self) -> None:
        if self.busy is not None:
            self.workers.cancel_group(self, "emu")
            self.notify("stopping…", timeout=2)
            return
        if len(self.app.screen_stack) > 2:
            self.app.pop_screen()
        else:
            from tui.screens.catalog import CatalogScreen
            sel = self.session.entry.id if self.session is not None and self.session.entry else None
            self.app.switch_screen(CatalogScreen(select=sel))

    def action_pane(self, pane: str) -> None:
        panes = self.query_one("#panes", TabbedContent)
        panes.active = pane
        if pane == "tab-sanitizer":
            self.query_one(FindingsList).focus()     # enter on a finding jumps to its line
        elif pane == "tab-counters":
            self.query_one(CountersTable).focus()

    def action_help(self) -> None:
        if self.app.screen.query("HelpPanel"):
            self.app.action_hide_help_panel()
        else:
            self.app.action_show_help_panel()

    async def action_quit(self) -> None:
        self.workers.cancel_group(self, "emu")
        self.app.exit()

    # ------------------------------------------------------------------ workers
    def _begin(self, label: str, total: float | None = None) -> None:
        self.busy = label
        self.query_one(StepBar).start_busy(label + "  (esc stops)", total)

    def _reopen(self, label: str, **kw) -> None:
        self._begin(label)
        self._reopen_worker(kw)

    @work(thread=True, exclusive=True, group="emu")
    def _reopen_worker(self, kw: dict) -> None:
        s = restart(self.session, **kw)
        self.post_message(self.Opened(s, keep_view=True))

    def _run(self, pred, label: str, total: int | None = None, bulk_after: int | None = None,
             stop_on_first: bool = False) -> None:
        self._begin("running " + label, total)
        self._run_worker(pred, total, bulk_after, stop_on_first)

    @work(thread=True, exclusive=True, group="emu")
    def _run_worker(self, pred, total, bulk_after, stop_on_first) -> None:
        worker = get_current_worker()
        st = self.stepper
        events: list = []
        t_last = time.monotonic()
        note = ""
        start = st.steps
        limit = bulk_after or 10_000_000
        while True:
            ev = st.step()
            if ev is None:
                break
            events.append(ev)
            if len(events) > HISTORY:
                del events[: len(events) - HISTORY]
            if stop_on_first or pred(ev):
                break
            if worker.is_cancelled:
                note = "stopped"
                break
            if st.steps - start >= limit:
                # a long launch: finish it in whole groups (fast), without per-step history
                self.post_message(self.Progress(0, None, "finishing the launch in bulk…"))
                st.run_to_end(progress=lambda d, t: self.post_message(
                    self.Progress(d, t, f"finishing in bulk: batch {d} of {t}")))
                note = "bulk"
                break
            now = time.monotonic()
            if now - t_last > 0.1:
                t_last = now
                done, tot = (st.steps, total) if total else _warp_progress(st)
                self.post_message(self.Progress(done, tot, f"step {st.steps:,}"))
        self.post_message(self.RunDone(events, note))

    def on_kernel_screen_progress(self, msg: "KernelScreen.Progress") -> None:
        bar = self.query_one(StepBar)
        bar.set_progress(msg.done, msg.total)
        if msg.label and self.busy:
            bar.query_one("#busy-label").update(f"running: {self.busy.removeprefix('running ')}"
                                                f"  {msg.label}  (esc stops)")

    def on_kernel_screen_run_done(self, msg: "KernelScreen.RunDone") -> None:
        self.busy = None
        self.query_one(StepBar).stop_busy()
        if msg.note == "bulk":
            self.bulk_end = True
            self.notify("finished the launch in bulk: time travel goes back to the steps "
                        "taken one by one", timeout=5)
        self._after_steps(msg.events)

    @on(FindingsList.Jump)
    def _jump(self, msg: FindingsList.Jump) -> None:
        src = self.query_one(SourceView)
        src.mark_line = msg.line
        src.show_line(msg.line, center=True)


def _warp_progress(st) -> tuple[float, float | None]:
    """Fraction of warps finished (or at a barrier) in the resident batch, for the bar."""
    m = getattr(st, "m", None)
    state = getattr(m, "state", None)
    if state is None or not len(state):
        return 0, None
    done = int((state != 0).sum())
    return done, int(len(state))


def _shared_base() -> int:
    try:
        from simt.spaces import SHARED_BASE
        return int(SHARED_BASE)
    except Exception:  # pragma: no cover
        return 0
