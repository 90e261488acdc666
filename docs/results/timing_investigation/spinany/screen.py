"""The screen's figures: each row emulated with simt.machine.SPIN_DRIFT_ANY_ATOMIC = True
(rows*.jsonl.gz: emulate_rows_with.py over ids.txt) against the tables
committed at BASE; rows that moved by more than 2%, and how many are within 1.5x before
and after.  From the repository root (git needed for BASE's tables):

    PYTHONPATH=$PWD:docs/results/timing_investigation/repredict python docs/results/timing_investigation/spinany/screen.py"""
from pathlib import Path

from screen_setting import compare_rows

BASE = "94bdfde"
D = Path(__file__).parent
compare_rows(BASE, [str(p) for p in sorted(D.glob("rows*.jsonl.gz"))])
