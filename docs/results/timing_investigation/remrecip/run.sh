#!/bin/bash
# bash docs/results/timing_investigation/remrecip/run.sh on the GPU machine (CuPy, nvcc)
cd docs/results/timing_investigation/remrecip
G=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | grep -q H200 && echo h200 || echo h100)
python3 micro.py > $OUT/micro_$G.jsonl
python3 -c "import micro; print(micro.SRC)" > /tmp/rem.cu
(cd /tmp && nvcc -arch=sm_90 -cubin -o rem.cubin rem.cu && cuobjdump -sass rem.cubin > $OUT/rem_sass.txt)
cat $OUT/micro_$G.jsonl
for k in rem_4 rem_16 urem_16 rem_32; do
  echo "$k: $(awk "/Function : $k\$/{f=1;next} /Function :/{f=0} f" $OUT/rem_sass.txt | grep -E '^\s+/\*[0-9a-f]{4}\*/' | grep -cvE 'NOP|BRA 0x[0-9a-f]+ ;.*$^') SASS instructions (NOPs left out)"
done
