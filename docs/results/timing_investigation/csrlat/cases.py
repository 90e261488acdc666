"""spmv_csr_vector (kernels_cuda/best.cu) on synthetic matrices: R rows of L non-zeros,
columns drawn at random from [0, X) (or in order, X = 0), `group` lanes a row, 256
threads a block.  The catalog's spmv/csr-vector at 600 rows sends its 11 long rows
(5776 non-zeros on average) to this kernel with group 64: 3 blocks, 21 us measured where
simt predicted 13.  Shared by sweep.py (GPU) and predict.py (simt)."""
import numpy as np

from kernels_cuda.fam_best import SRC, spmv_launch_dims

INT_MAX = 2**31 - 1
# (name, rows R, length L, x size X (0: columns in order), group)
CASES = [
    ("base", 11, 5776, 600, 64),
    ("r3", 3, 5776, 600, 64),
    ("r33", 33, 5776, 600, 64),
    ("r132", 132, 5776, 600, 64),
    ("r528", 528, 5776, 600, 64),
    ("x64", 11, 5776, 64, 64),
    ("x8k", 11, 5776, 8192, 64),
    ("x1m", 11, 5776, 1 << 20, 64),
    ("seq", 11, 5776, 0, 64),
    ("g32", 11, 5776, 600, 32),
    ("g128", 11, 5776, 600, 128),
    ("g256", 11, 5776, 600, 256),
    ("l1k", 11, 1000, 600, 64),
    ("l20k", 11, 20000, 600, 64),
    ("seq_r132", 132, 5776, 0, 64),
    # the catalog's own matrix (spmv/csr-vector at 600 rows): its second launch as the
    # driver makes it (a list of the 11 long rows), then the same rows copied to a CSR of
    # their own (rows in order, starting where the previous ends), then that CSR with
    # every row starting on a 128-byte line
    ("cat", 0, 0, -1, 64),
    ("cat_own", 0, 0, -2, 64),
    ("cat_aligned", 0, 0, -3, 64),
]


def inputs(R, L, X, seed=0):
    rng = np.random.default_rng(seed)
    ptr = (np.arange(R + 1, dtype=np.int64) * L).astype(np.int32)
    nnz = R * L
    if X:
        col = rng.integers(0, X, nnz).astype(np.int32)
        xs = X
    else:
        col = (np.arange(nnz) % L).astype(np.int32)        # a row reads x[0..L) in order
        xs = L
    vals = rng.standard_normal(nnz).astype(np.float32)
    x = rng.standard_normal(xs).astype(np.float32)
    return ptr, col, vals, x


def catalog(X):
    """The catalog matrix's long rows: (rows list or None, ptr, col, vals, x)."""
    from kernels_cuda.fam_best import spmv_plan
    from kernels_cuda.timing_check import _entry
    inp = _entry("spmv/csr-vector").inputs(n=600, seed=0)
    ptr, col, vals, x = inp["row_ptr"], inp["col_idx"], inp["vals"], inp["x"]
    launch = [p for p in spmv_plan(ptr, col) if p.kernel == "spmv_csr_vector"][0]
    if X == -1:
        return launch.rows.astype(np.int32), ptr, col, vals, x
    pad = 32 if X == -3 else 1
    segs = [np.arange(ptr[r], ptr[r + 1]) for r in launch.rows]
    lens = np.array([len(s) for s in segs])
    starts = np.concatenate([[0], np.cumsum(-(-lens // pad) * pad)])
    c2 = np.zeros(starts[-1], np.int32)
    v2 = np.zeros(starts[-1], np.float32)
    p2 = np.zeros(len(segs) + 1, np.int32)
    for k, s in enumerate(segs):
        c2[starts[k]:starts[k] + len(s)] = col[s]
        v2[starts[k]:starts[k] + len(s)] = vals[s]
    # a row's end is its start plus its length (padding after it belongs to no row)
    p2 = starts.astype(np.int32)
    return None, p2, c2, v2, x, lens


def run(be, name, R, L, X, group, block=256):
    rows = None
    if X < 0:
        got = catalog(X)
        rows, ptr, col, vals, x = got[:5]
        if rows is None:
            lens = got[5]
    else:
        ptr, col, vals, x = inputs(R, L, X)
    d = [be.to_device(a) for a in (ptr, col, vals, x)]
    if rows is not None:              # the driver's launch: a list of rows
        R = len(rows)
        rdev, use, nr = be.to_device(rows), 1, len(ptr) - 1
        y = be.zeros(nr, np.float32)
        sel = rows
    elif X < 0:                       # rows of their own, padded: row k ends at start + len
        R = len(lens)
        ends = (ptr[:-1] + lens).astype(np.int32)
        pe = np.stack([ptr[:-1], ends], 1).ravel().astype(np.int32)   # [start, end] pairs
        rdev = be.to_device(np.arange(0, 2 * R, 2, dtype=np.int32))
        d[0] = be.to_device(pe)
        use, y, sel = 1, be.zeros(2 * R, np.float32), np.arange(0, 2 * R, 2)
        ptr = pe
    else:
        rdev, use, y, sel = d[0], 0, be.zeros(R, np.float32), np.arange(R)
    grid, blk = spmv_launch_dims(R, group, block)
    be.launch(SRC, "spmv_csr_vector", grid, blk,
              [rdev, np.int32(use), np.int32(R), np.int32(INT_MAX), d[0], d[1], d[2], d[3], y,
               np.int32(group)])
    got = be.to_host(y)[sel]
    ptr = np.asarray(ptr, np.int64)
    want = np.array([np.dot(vals[ptr[r]:ptr[r + 1]].astype(np.float64),
                            x[col[ptr[r]:ptr[r + 1]]].astype(np.float64)) for r in sel])
    assert np.allclose(got, want, rtol=1e-3, atol=1e-2), name
    return grid, blk
