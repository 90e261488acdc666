"""The screen's figures: each emulated row (rows1/rows2.jsonl.gz of session 72, rows3/rows4.jsonl.gz of session 73, made with
simt.issue.INORDER_FROM_SLOW_PATH = True) against the tables committed at BASE (the
tables it was screened against); rows that moved by more than 2%, and how many are within
1.5x before and after.  From the repository root (git needed for BASE's tables):

    PYTHONPATH=$PWD:docs/results/timing_investigation/repredict python docs/results/timing_investigation/inorder2/screen.py"""
from pathlib import Path

from screen_setting import compare_rows

BASE = "f41f945"
D = Path(__file__).parent
compare_rows(BASE, [str(D / f"rows{i}.jsonl.gz") for i in (1, 2, 3, 4)])
