// Lets the kernels' CUDA C source (cutorch._kernelSource()) compile as host C++ for the mock
// driver: a launch runs every thread of every block on the CPU, and __syncthreads() switches
// between the threads of a block (mock_driver.cpp). Nothing here is used on a real GPU.
#include <cmath>
#include <cstring>
using namespace std;

struct dim3 { unsigned x, y, z; };
extern "C" dim3 threadIdx, blockIdx, blockDim, gridDim;
extern "C" void mock_syncthreads(void);

#define __global__
#define __device__
#define __forceinline__ inline
#define __noinline__
#define __shared__ static
#define __syncthreads() mock_syncthreads()

static inline double __longlong_as_double(long long v) {
   double d;
   memcpy(&d, &v, sizeof d);
   return d;
}
// The mock runs one thread at a time (switching only at barriers): a plain add is atomic.
template <class T> static inline T atomicAdd(T *p, T x) {
   T old = *p;
   *p = old + x;
   return old;
}
static inline unsigned __float_as_uint(float v) {
   unsigned u;
   memcpy(&u, &v, sizeof u);
   return u;
}
static inline long long __double_as_longlong(double v) {
   long long u;
   memcpy(&u, &v, sizeof u);
   return u;
}
