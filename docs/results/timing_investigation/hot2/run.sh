# bash docs/results/timing_investigation/hot2/run.sh  (on the GPU machine, repository root)
python3 docs/results/timing_investigation/hot2/hot2.py > $OUT/hot2_h200.jsonl
nvcc -arch=sm_90 -cubin -o /tmp/hot2.cubin docs/results/timing_investigation/hot2/hot2.cu && cuobjdump -sass /tmp/hot2.cubin | gzip > $OUT/hot2_sass.txt.gz
cat $OUT/hot2_h200.jsonl
