"""Does a block have to reach much of the resident blocks' window for the window's busiest
slice to set the time? (simt.slicewin.coupled, session 56)

2^24 int atomicAdds in blocks of 256, as fchain3: block b's lanes hit W lines of a window
that starts at line floor(b * D), each lane a random line of the W and the first word of a
random one of its four sectors (so a warp's 32 lanes rarely share a word even at W = 8).
For each W, D = 4 lines a block spreads the 2112 blocks in flight over more than 1 MiB
(the even share); D = 1/16 and 1/4 keep them within about 17-25 and 66-100 KiB, whose
busiest slices hold 3 and 1.5 times the even share. A block reaches W / (W + 2112 D) of
the window: 1/17.5 to 1/1.5 at D = 1/16, 1/67 to 1/3 at D = 1/4. simt.slicewin prices
the window's busiest slice only where that is a sixteenth or more.

python fchain4.py > fchain4_GPU.jsonl     median of 9 CUDA-event timings each"""
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fchain2 import BLOCK, N, W as W_WORDS, time_cases  # noqa: E402  (the same add_i, 64 MiB of words)


def cases():
    for w in (8, 16, 64, 256):
        for num, den in ((1, 16), (1, 4), (4, 1)):
            yield f"w{w}_d{num}/{den}", w, num, den


def pattern(w, num, den, rng, n=N):
    b = np.arange(n) // BLOCK
    line = ((b * num) // den + rng.integers(0, w, n)) % (W_WORDS // 32)
    return (line * 32 + 8 * rng.integers(0, 4, n)).astype(np.int32)


def main():
    time_cases(cases, pattern, lambda case: {"hot": case[1], "drift": case[2] / case[3]})


if __name__ == "__main__":
    main()
