"""The table ids whose kernels' in-order set simt.issue.INORDER_FROM_SLOW_PATH changes, slowest
first by their recorded emulation time (ids.txt). From the repository root, NO_DRAFTS=1."""
import sys
sys.path.insert(0, "docs/results/timing_investigation/repredict")
from table_kernels import kernel_irs
from simt import issue
ids = []
for r, irs in kernel_irs(["timing_h200", "timing_h100", "timing_probes_h200", "timing_probes_h100"]):
    ch = False
    for k in irs:
        issue.INORDER_FROM_SLOW_PATH = True
        if hasattr(k, "_simt_inorder"): delattr(k, "_simt_inorder")
        new = issue.inorder_pcs(k); delattr(k, "_simt_inorder")
        issue.INORDER_FROM_SLOW_PATH = False
        old = issue.inorder_pcs(k); delattr(k, "_simt_inorder")
        ch |= new != old
    if ch:
        ids.append((r.get("emulate_s", 0) or 0, r["id"]))
ids.sort(reverse=True)
open("docs/results/timing_investigation/inorder2/ids.txt", "w").write("\n".join(i for _, i in ids) + "\n")
print(len(ids), sum(e for e, _ in ids))
