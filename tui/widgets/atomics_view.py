"""The atomics queue: the addresses the current warp atomic hits, how many lanes per
address, and the order the hardware serializes them in."""
from __future__ import annotations

from tui.widgets.lines import LinesWidget, Runs

from tui import fmt


class AtomicsView(LinesWidget):
    DEFAULT_CSS = """
    AtomicsView { height: 1fr; text-wrap: nowrap; text-overflow: clip; }
    """


    def build(self, width: int, height: int) -> list:
        f = self.frame
        t = Runs()
        width = max(width, 40)
        height = max(height, 2)
        ev = f.last_atomic if f is not None else None
        if ev is None:
            t.append("No atomic yet. ", style="bold")
            t.append("This pane shows each warp atomic: the addresses it hits, the lanes per "
                     "address and the order they serialize in.", style="dim")
            return self.wrap_runs(t.lines[0], width)
        acc = ev.access
        groups = acc.get("groups") or []
        steps = int(acc.get("steps") or max((len(g["lanes"]) for g in groups), default=0))
        nl = len(acc.get("lanes", ()))
        now = f.event is not None and f.event.index == ev.index
        t.append("this step" if now else f"step {ev.index}", style="bold #ffd75f" if now else "bold")
        t.append(f"  {ev.text} on {acc['space']}  block {ev.block} warp {ev.warp}  L{ev.line}\n")
        t.append(f"{nl} lane{'s' if nl != 1 else ''} → {len(groups)} address"
                 f"{'es' if len(groups) != 1 else ''}: ", style="bold")
        if steps > 1:
            t.append(f"{steps} serialized steps", style="bold #ffaf00")
            t.append(" (lanes on the same address queue up; distinct addresses go together)",
                     style="dim")
        else:
            t.append("no serialization (every lane has its own address)", style="bold #5fd787")
        names = f.names
        rows = height - 2
        shown = groups if len(groups) <= rows else groups[: max(rows - 1, 0)]
        name_w = max([len(self._addr_name(names, acc, g["address"])) for g in shown] + [6])
        name_w = min(name_w, 24)
        bar_max = max(4, width - name_w - 22)
        for i, g in enumerate(shown):
            lanes = g["lanes"]
            nm = self._addr_name(names, acc, g["address"])
            t.append("\n")
            t.append(f"#{i + 1:<3}", style="#8a8a8a")
            t.append(f"{nm[:name_w]:<{name_w}} ", style="bold")
            k = len(lanes)
            bar = "█" * min(k, bar_max)
            t.append(bar, style="#ffaf00" if k > 1 else "#5fd787")
            t.append(f" {k} lane{'s' if k != 1 else ''}", style="")
            t.append(f"  [{fmt.ranges(lanes)}]", style="#8a8a8a")
        if len(shown) < len(groups):
            t.append(f"\n… {len(groups) - len(shown)} more addresses", style="dim")
        return t.lines

    @staticmethod
    def _addr_name(names, acc, addr) -> str:
        if names is None:
            return f"0x{int(addr):x}"
        return names.name_address(acc.get("space", "global"), int(addr), int(acc.get("size", 4)))
