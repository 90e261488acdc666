/* simt's cuda_pipeline.h: the primitives of cuda_pipeline_primitives.h (see there for what
 * differs from the GPU); the C++ pipeline class of CUDA's header is not read. */
#include <cuda_pipeline_primitives.h>
