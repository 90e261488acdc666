#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <vector>
#include <algorithm>

using namespace std;

#define CUDA_CHECK(call)                                                   \
  do {                                                                     \
    cudaError_t err_ = (call);                                             \
    if (err_ != cudaSuccess) {                                             \
      fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString(err_), \
              __FILE__, __LINE__);                                         \
      exit(EXIT_FAILURE);                                                  \
    }                                                                      \
  } while (0)

constexpr int BLOCK = 256;
static cudaStream_t g_stream;
std::vector<float> g_scratch;
void launch_saxpy(float a, const float *x, float *y, int n);

__device__ __forceinline__ float axpy(float a, float x, float y) { return a * x + y; }

__global__ void saxpy(float a, const float *__restrict__ x, float *__restrict__ y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = axpy(a, x[i], y[i]);
}

__host__ __device__ inline int ceil_div(int a, int b) { return (a + b - 1) / b; }

template <typename T>
void fill(std::vector<T> &v, T start) {
  for (size_t i = 0; i < v.size(); ++i) v[i] = start + T(i);
}

static float max_error(const vector<float> &got, const vector<float> &want) {
  float e = 0.0f;
  for (size_t i = 0; i < got.size(); ++i) e = max(e, fabsf(got[i] - want[i]));
  return e;
}

void launch_saxpy(float a, const float *x, float *y, int n) {
  saxpy<<<ceil_div(n, BLOCK), BLOCK, 0, g_stream>>>(a, x, y, n);
  CUDA_CHECK(cudaGetLastError());
}

int main(int argc, char **argv) {
  const int n = 1 << 20;
  const float a = 2.0f;
  std::vector<float> h_x(n), h_y(n), want(n);
  fill(h_x, 0.0f);
  fill(h_y, 1.0f);
  for (int i = 0; i < n; ++i) want[i] = a * h_x[i] + h_y[i];
  float *d_x = nullptr, *d_y = nullptr;
  CUDA_CHECK(cudaMalloc(&d_x, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc((void **)&d_y, n * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(d_x, h_x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_y, h_y.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  launch_saxpy(a, d_x, d_y, n);
  CUDA_CHECK(cudaDeviceSynchronize());
  CUDA_CHECK(cudaMemcpy(h_y.data(), d_y, n * sizeof(float), cudaMemcpyDeviceToHost));
  printf("max error %g\n", max_error(h_y, want));
  CUDA_CHECK(cudaFree(d_x));
  CUDA_CHECK(cudaFree(d_y));
  return 0;
}
