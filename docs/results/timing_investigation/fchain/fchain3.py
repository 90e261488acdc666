"""Hot lines that move with the block index: the resident blocks' window, not the grid's.

probe/lidar-voxel-atomic (0.29) and probe/cic-graded-mesh-atomic (0.45): neighbouring
blocks hit the same few hot voxels or cells, far blocks others, so the grid as a whole
spreads over many lines while the blocks resident at once share a few. Here 2^24 int
atomicAdds (blocks of 256) where block b's lanes hit, at random, one of W lines (a word
each, a line apart) of a window that starts at line floor(b * D) of a 64 MiB region:
D = 0 is a fixed hot set of W lines; D = 1/16 .. 4 lines a block moves it, so the 1056
blocks resident at once (132 SMs x 8) cover about W + 1056 D lines.

python fchain3.py > fchain3_GPU.jsonl     median of 9 CUDA-event timings each
python fchain3.py --once                 one launch each (for ncu)"""
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fchain2 import BLOCK, N, W as W_WORDS, time_cases  # noqa: E402  (the same add_i, 64 MiB of words)


def cases():
    for w in (64, 256, 1024):
        for num, den in ((0, 1), (1, 16), (1, 4), (1, 1), (4, 1)):
            yield f"w{w}_d{num}/{den}", w, num, den


def pattern(w, num, den, rng, n=N):
    b = np.arange(n) // BLOCK
    start = (b * num) // den
    line = (start + rng.integers(0, w, n)) % (W_WORDS // 32)
    return (line * 32).astype(np.int32)


def main():
    time_cases(cases, pattern, lambda case: {"hot": case[1], "drift": case[2] / case[3]})


if __name__ == "__main__":
    main()
