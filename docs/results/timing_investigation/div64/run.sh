# bash docs/results/timing_investigation/div64/run.sh  (on the GPU machine, repository root)
set -e
D=docs/results/timing_investigation/div64
nvidia-smi --query-gpu=name --format=csv,noheader > $OUT/gpu.txt
python $D/div64.py > $OUT/div64_$1.jsonl
nvcc -arch=sm_90 -cubin -o /tmp/div64.cubin $D/div64.cu && cuobjdump -sass /tmp/div64.cubin | gzip > $OUT/div64_sass.txt.gz
