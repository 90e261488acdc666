"""emulate_rows.py with module switches set first, for screens of a switch that is off:

    python docs/results/timing_investigation/repredict/emulate_rows_with.py simt.machine.SPIN_DRIFT_ANY_ATOMIC=1 OUT.jsonl JOBS IDS.txt

(each NAME=VALUE before the arguments: VALUE 1/0 -> True/False, else a number)."""
import importlib, runpy, sys
from pathlib import Path

args = sys.argv[1:]
while args and "=" in args[0]:
    name, val = args.pop(0).split("=", 1)
    mod, attr = name.rsplit(".", 1)
    v = {"1": True, "0": False}.get(val)
    setattr(importlib.import_module(mod), attr, float(val) if v is None else v)
sys.argv = [str(Path(__file__).with_name("emulate_rows.py"))] + args
runpy.run_path(sys.argv[0], run_name="__main__")
