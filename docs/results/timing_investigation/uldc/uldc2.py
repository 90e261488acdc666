"""uldc.cu again, for where the cost starts and how it scales with the warps: table
footprints of 16 to 256 floats (64 B to 1 KB) with 64 warps an SM, and 1 KB with 1, 2, 4,
8, 16, 32 and 64 warps an SM (blocks of 32 to 256, one or more an SM).  python uldc2.py > uldc2_GPU.jsonl"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from uldc import setup  # noqa: E402


def main():
    sms, run = setup()
    for kernel in ("uldc_one", "uldc_two"):
        for words in (16, 32, 64, 128, 256):        # the index is a & (words - 1)
            run(kernel, words, sms * 8, 256, 64)
    for kernel in ("uldc_one", "uldc_two"):
        for warps in (1, 2, 4, 8, 16, 32, 64):
            blocks, block = (sms * (warps // 8), 256) if warps >= 8 else (sms, 32 * warps)
            run(kernel, 256, blocks, block, warps)


if __name__ == "__main__":
    main()
