# bash docs/results/timing_investigation/divconst/run.sh  (on the GPU machine, repository root)
set -e
D=docs/results/timing_investigation/divconst
G=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | grep -q H200 && echo h200 || echo h100)
nvidia-smi --query-gpu=name --format=csv,noheader > $OUT/gpu.txt
python3 $D/divconst.py > $OUT/divconst_$G.jsonl
nvcc -arch=sm_90 -cubin -o /tmp/divconst.cubin $D/divconst.cu && cuobjdump -sass /tmp/divconst.cubin | gzip > $OUT/divconst_sass.txt.gz
