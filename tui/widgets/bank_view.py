"""Shared memory as 32 bank columns: the words the current instruction touches, which
bank each lane hits, and the wavefronts it costs.

Word ``w`` of the block's shared memory sits in bank ``w % 32``, row ``w // 32``.  A
warp access costs as many wavefronts as the busiest bank has distinct words (lanes
reading the same word share it: a broadcast).
"""
from __future__ import annotations

from collections import defaultdict

import numpy as np
from tui.widgets.lines import LinesWidget, Runs

from tui import fmt


def word_dtype(text: str):
    t = (text or "").lower()
    if "float" in t or "double" in t:
        return np.float32
    if "unsigned" in t or "uint" in t:
        return np.uint32
    return np.int32


def bank_summary(acc: dict) -> tuple[dict, dict, int, int]:
    """(bank -> distinct words, word -> lanes, wavefronts, ideal) of a shared access."""
    words_in_bank: dict[int, set] = defaultdict(set)
    lanes_of_word: dict[int, list] = defaultdict(list)
    size = int(acc.get("size", 4))
    per = max(1, size // 4)
    for lane, w in zip(acc.get("lanes", ()), acc.get("words", ())):
        for j in range(per):
            words_in_bank[(w + j) % 32].add(w + j)
            lanes_of_word[w + j].append(lane)
    waves = int(acc.get("wavefronts", max((len(s) for s in words_in_bank.values()), default=0)))
    ideal = int(acc.get("ideal", 1))
    return words_in_bank, lanes_of_word, waves, ideal


class BankView(LinesWidget):
    DEFAULT_CSS = """
    BankView { height: 1fr; text-wrap: nowrap; text-overflow: clip; }
    """


    def build(self, width: int, height: int) -> list:
        f = self.frame
        t = Runs()
        width = max(width, 40)
        height = max(height, 3)
        ev = f.last_shared if f is not None else None
        if ev is None:
            t.append("No shared-memory access yet. ", style="bold")
            t.append("This pane shows each __shared__ load, store or atomic: the 32 banks, "
                     "the words the warp touches and the wavefronts they cost.", style="dim")
            return self.wrap_runs(t.lines[0], width)
        acc = ev.access
        banks, lanes_of_word, waves, ideal = bank_summary(acc)
        kind = {"ld": "load", "st": "store", "atom": "atomic", "red": "atomic"}.get(acc["kind"], acc["kind"])
        now = f.event is not None and f.event.index == ev.index
        t.append("this step" if now else f"step {ev.index}", style="bold #ffd75f" if now else "bold")
        t.append(f"  {ev.text} (shared {kind})  block {ev.block} warp {ev.warp}  L{ev.line}  ")
        nl = len(acc.get("lanes", ()))
        busiest = max((len(s) for s in banks.values()), default=0)
        if acc["kind"] in ("ld", "st"):
            if waves > ideal:
                t.append(f"{busiest}-way bank conflict: {waves} wavefronts (ideal {ideal})",
                         style="bold #ff5f5f")
            else:
                t.append(f"{waves} wavefront{'s' if waves != 1 else ''}, no bank conflict",
                         style="bold #5fd787")
        else:
            t.append(f"{nl} lanes, busiest bank holds {busiest} word{'s' if busiest != 1 else ''}",
                     style="bold")
        label_w = 6
        cw = max(2, min(6, (width - label_w) // 32))
        # header: bank numbers
        t.append("\n")
        t.append(f"{'bank':<{label_w}}", style="bold")
        for b in range(32):
            t.append(f"{b:>{cw}}", style="bold #d0d0d0 on #3a3a3a" if b % 2 else "bold #d0d0d0")
        # lanes per bank
        t.append("\n")
        t.append(f"{'lanes':<{label_w}}", style="bold")
        lanes_in_bank = defaultdict(int)
        for w, ls in lanes_of_word.items():
            lanes_in_bank[w % 32] += len(ls)
        for b in range(32):
            n = lanes_in_bank.get(b, 0)
            st = ""
            if n:
                st = fmt.STYLE_CONFLICT if len(banks.get(b, ())) > 1 else fmt.STYLE_TOUCHED
            t.append(f"{(str(n) if n else '.'):>{cw}}", style=st or ("on #2a2a2a" if b % 2 else ""))
        # which bank each lane hits (column = lane)
        t.append("\n")
        t.append(f"{'l→bank':<{label_w}}", style="bold")
        bank_of_lane = dict(zip(acc.get("lanes", ()), acc.get("banks", ())))
        for lane in range(32):
            b = bank_of_lane.get(lane)
            st = ""
            if b is not None:
                st = fmt.STYLE_CONFLICT if len(banks.get(b, ())) > 1 else "#d0d0d0"
            t.append(f"{('' if b is None else str(b)):>{cw}}",
                     style=st + (" on #2a2a2a" if lane % 2 and " on " not in st else ""))
        # the words, 32 per row, around the touched ones
        rows_avail = height - 4
        sm = f.shared
        touched = sorted(lanes_of_word)
        if rows_avail <= 0 or sm is None or not len(sm):
            return t.lines
        dt = word_dtype(ev.text)
        nwords = len(sm) // 4
        words = sm[: nwords * 4].view(dt)
        nrows = -(-nwords // 32)
        trows = sorted({w // 32 for w in touched if w < nwords})
        first = trows[0] if trows else 0
        if nrows - first < rows_avail:
            first = max(0, nrows - rows_avail)
        for r in range(first, min(nrows, first + rows_avail)):
            t.append("\n")
            t.append(f"w{r * 32:<{label_w - 1}}"[:label_w], style="#8a8a8a")
            for b in range(32):
                w = r * 32 + b
                if w >= nwords:
                    break
                st = "#b0b0b0 on #2a2a2a" if b % 2 else "#b0b0b0"
                if w in lanes_of_word:
                    if len(banks.get(b, ())) > 1:
                        st = fmt.STYLE_CONFLICT
                    elif len(lanes_of_word[w]) > 1:
                        st = fmt.STYLE_BROADCAST
                    else:
                        st = fmt.STYLE_TOUCHED
                t.append(f"{fmt.compact(words[w], cw if cw <= 2 else cw - 1):>{cw}}", style=st)
        return t.lines
