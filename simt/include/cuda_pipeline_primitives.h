/* simt's cuda_pipeline_primitives.h: the asynchronous copy primitives of sm_80 and later
 * (__pipeline_memcpy_async, __pipeline_commit, __pipeline_wait_prior), written for simt.
 *
 * What differs from the GPU: the copy is done when __pipeline_memcpy_async is called, as
 * a load of 4, 8 or 16 bytes from global memory and a store of them to shared memory,
 * and committing and waiting do nothing.  A kernel that waits before it reads (as it
 * must on the GPU) sees the same values; one that reads too early sees the copied data
 * here where the GPU may show the old.  The counters show the copy as a global load and
 * a shared store (the GPU's LDGSTS counts under op_ldgsts, not op_ld), and the timing
 * model gives it a load's latency rather than overlapping it with the work issued before
 * the wait.  size_and_align must be 4, 8 or 16 (CUDA's rule) and zfill at most that:
 * the last zfill bytes are zeroed, not read.
 */
#ifndef SIMT_CUDA_PIPELINE_PRIMITIVES_H
#define SIMT_CUDA_PIPELINE_PRIMITIVES_H

__device__ void __pipeline_memcpy_async(void *dst_shared, const void *src_global,
                                        size_t size_and_align, size_t zfill = 0)
{
    if (zfill == 0) {
        if (size_and_align == 16)
            *(uint4 *)dst_shared = *(const uint4 *)src_global;
        else if (size_and_align == 8)
            *(uint2 *)dst_shared = *(const uint2 *)src_global;
        else
            *(unsigned int *)dst_shared = *(const unsigned int *)src_global;
    } else {
        for (size_t b = 0; b < size_and_align; b++)
            ((unsigned char *)dst_shared)[b] =
                b + zfill < size_and_align ? ((const unsigned char *)src_global)[b] : 0;
    }
}

__device__ void __pipeline_commit() {}

__device__ void __pipeline_wait_prior(size_t prior) {}

#endif
