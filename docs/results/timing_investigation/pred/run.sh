# From the repository root on the GPU machine: bash docs/results/timing_investigation/pred/run.sh
set -x
D=docs/results/timing_investigation/pred
cd $D && nvcc -O3 -arch=sm_90 -o /tmp/pm pred_main.cu && cd - >/dev/null
nvidia-smi --query-gpu=name --format=csv,noheader > $OUT/gpu.txt
cuobjdump -sass /tmp/pm > $OUT/pred_sass.txt
/tmp/pm 16384 21 > $OUT/times.txt
ncu --csv --metrics l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,smsp__inst_executed_op_shared_ld.sum,smsp__inst_executed_op_shared_st.sum,smsp__inst_executed.sum,gpu__time_duration.sum /tmp/pm 264 1 > $OUT/ncu264.csv 2> $OUT/ncu.err
cat $OUT/times.txt; grep -c . $OUT/ncu264.csv
