"""The streams screen: seed 003's pipeline on the stream simulator, with keys to flip
what matters (pinned or pageable memory, depth- or breadth-first issue, one or two copy
engines, Fermi or Hyper-Q queues, the GPU, the number of streams, a heavier kernel) and
the timeline redrawn at once, synchronous above asynchronous on one time axis.

``StreamsScreen`` can be pushed by any app; ``StreamsApp`` runs it alone
(``simt streams --tui``).  Wiring it into the main app takes one binding, e.g. in the
catalog screen: ``self.app.push_screen(StreamsScreen(memory=...))`` for the
``streams/*`` entries.
"""
from __future__ import annotations

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Header, Static

from tui.widgets.timeline import TimelineView, legend

KERNEL_MS = (None, 0.1, 0.3, 1.0)      # None: the emulator's estimate


class StreamsScreen(Screen):
    DEFAULT_CSS = """
    StreamsScreen #st-summary { height: auto; padding: 0 1; }
    StreamsScreen #st-legend { height: 1; padding: 0 1; }
    StreamsScreen #st-scroll { height: 1fr; }
    StreamsScreen #st-explain { height: auto; max-height: 7; padding: 0 1;
                                border-top: solid $panel-lighten-2; }
    """
    BINDINGS = [
        Binding("m", "memory", "pinned/pageable"),
        Binding("o", "order", "depth/breadth"),
        Binding("c", "engines", "copy engines"),
        Binding("h", "queues", "fermi/hyperq"),
        Binding("g", "gpu", "GPU"),
        Binding("plus,equals_sign", "more", "+stream"),
        Binding("minus", "fewer", "-stream"),
        Binding("k", "kernel", "kernel time"),
        Binding("escape,q", "close", "back"),
    ]

    def __init__(self, *, memory: str = "pageable", order: str = "depth", nstreams: int = 6,
                 copy_engines: int | None = None, queues: str | None = None,
                 gpu: str | None = None, kernel_ms: float | None = None,
                 size: tuple[int, int] = (3840, 2160), measured=None) -> None:
        super().__init__()
        from simt import streams

        self.memory, self.order, self.nstreams = memory, order, int(nstreams)
        self.gpu = streams.get_profile(gpu)["id"]
        prof = streams.get_profile(self.gpu)
        self.copy_engines = int(copy_engines or prof["copy_engines"])
        self.queues = queues or prof["queues"]
        self.kernel_ms = kernel_ms
        self.size_wh = tuple(size)
        self.measured = measured          # a simt.streams.Schedule from --real, optional
        self.result = None

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="st-summary")
        yield Static(legend(), id="st-legend")
        with VerticalScroll(id="st-scroll"):
            yield TimelineView(id="st-timeline")
        yield Static(id="st-explain")
        yield Footer()

    def on_mount(self) -> None:
        self.app.sub_title = "streams (seed 003)"
        self.recompute()

    # ---- model
    def recompute(self) -> None:
        from kernels_cuda.fam_streams import (EXPLAIN_PAGEABLE, EXPLAIN_PINNED, simulate_seed)

        w, h = self.size_wh
        self.result = simulate_seed(w, h, self.nstreams, memory=self.memory, order=self.order,
                                    copy_engines=self.copy_engines, queues=self.queues,
                                    gpu=self.gpu, kernel_ms=self.kernel_ms)
        tl = self.query_one("#st-timeline", TimelineView)
        measured = self.measured if self._measured_matches() else None
        tl.measured = measured
        tl.result = self.result
        self.query_one("#st-summary", Static).update(self.summary())
        self.query_one("#st-explain", Static).update(
            EXPLAIN_PAGEABLE if self.memory == "pageable" else EXPLAIN_PINNED)

    def _measured_matches(self) -> bool:
        return self.measured is not None and getattr(self, "_measured_key", None) == self.key()

    def key(self) -> tuple:
        return (self.memory, self.order, self.nstreams, self.size_wh)

    def summary(self) -> Text:
        r = self.result
        p = r.params
        t = Text()
        t.append(f"seed 003: {p['size']} image in {self.nstreams} chunks / streams", style="bold")
        t.append(f"   [{p['catalog_id']}]\n", style="#8a8a8a")
        t.append("memory ")
        t.append(self.memory, style="bold #ff8787" if self.memory == "pageable" else "bold #5fd787")
        t.append(f" · {self.copy_engines} copy engine{'s' if self.copy_engines != 1 else ''}"
                 f" · {self.queues} queues · {self.order}-first · GPU {r.profile['id']}"
                 f" · kernel {'emulator estimate' if self.kernel_ms is None else f'{self.kernel_ms} ms'}\n")
        t.append("sync ")
        t.append(f"{r.sync_ms:.3f} ms", style="bold")
        t.append("   async ")
        t.append(f"{r.async_ms:.3f} ms", style="bold")
        t.append("   speedup ")
        sp = r.speedup
        t.append(f"{sp:.2f}x", style="bold #5fd787" if sp > 1.2 else "bold #ff8787")
        t.append(f"   overlap {r.async_.overlap_ms():.3f} ms", style="#8a8a8a")
        return t

    # ---- actions
    def action_memory(self) -> None:
        self.memory = "pinned" if self.memory == "pageable" else "pageable"
        self.recompute()

    def action_order(self) -> None:
        self.order = "breadth" if self.order == "depth" else "depth"
        self.recompute()

    def action_engines(self) -> None:
        self.copy_engines = 1 if self.copy_engines == 2 else 2
        self.recompute()

    def action_queues(self) -> None:
        self.queues = "hyperq" if self.queues == "fermi" else "fermi"
        self.recompute()

    def action_gpu(self) -> None:
        from simt import streams

        names = streams.gpu_names()
        self.gpu = names[(names.index(self.gpu) + 1) % len(names)]
        prof = streams.get_profile(self.gpu)
        self.copy_engines, self.queues = prof["copy_engines"], prof["queues"]
        self.recompute()

    def action_more(self) -> None:
        if self.nstreams < min(64, self.size_wh[1]):
            self.nstreams += 1
            self.recompute()

    def action_fewer(self) -> None:
        if self.nstreams > 1:
            self.nstreams -= 1
            self.recompute()

    def action_kernel(self) -> None:
        i = KERNEL_MS.index(self.kernel_ms) if self.kernel_ms in KERNEL_MS else 0
        self.kernel_ms = KERNEL_MS[(i + 1) % len(KERNEL_MS)]
        self.recompute()

    def action_close(self) -> None:
        if len(self.app.screen_stack) > 2:
            self.app.pop_screen()
        else:
            self.app.exit()

    def set_measured(self, schedule) -> None:
        """Show a measured schedule (for the current settings) under the simulated ones."""
        self.measured = schedule
        self._measured_key = self.key()
        if self.result is not None:
            self.recompute()


class StreamsApp(App):
    """The streams screen on its own (``simt streams --tui``)."""
    TITLE = "simt"
    SUB_TITLE = "streams"
    ENABLE_COMMAND_PALETTE = False

    def __init__(self, **screen_kw) -> None:
        super().__init__()
        self.screen_kw = screen_kw

    def on_mount(self) -> None:
        screen = StreamsScreen(**{k: v for k, v in self.screen_kw.items() if k != "measured"})
        self.push_screen(screen)
        if self.screen_kw.get("measured") is not None:
            screen.set_measured(self.screen_kw["measured"])
