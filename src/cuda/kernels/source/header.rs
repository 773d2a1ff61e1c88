//! The common head of the kernel program: the `Geo` geometry and the element offset it gives,
//! the grid-stride loop, and the device helpers every element type's kernels use (Torch's integer
//! arithmetic, NaN-aware extremes, atomic additions). Text only: `source::program` puts it first.

pub const HEADER: &str = r#"
typedef long long ll;
#define MAXD 16
#define BLOCK 256
#define PW_UNROLL 4
#define RED_UNROLL 8
struct Geo { int nd; ll size[MAXD]; ll stride[MAXD]; };

// Offset of element i (in logical order) of a tensor of geometry g. The loop is not unrolled:
// the common case (merged to one dimension) never enters it.
__device__ __forceinline__ ll off(const Geo& g, ll i) {
  if (g.nd == 1) return i * g.stride[0];
  ll o = 0;
#pragma unroll 1
  for (int d = g.nd - 1; d >= 0; --d) {
    ll s = g.size[d];
    ll q = i / s;
    o += (i - q * s) * g.stride[d];
    i = q;
  }
  return o;
}

#define GRID_LOOP(i, n) for (ll i = (ll)blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += (ll)gridDim.x * blockDim.x)

// No math.h under NVRTC: infinity and NaN from their bits.
#define INF_D __longlong_as_double(0x7ff0000000000000LL)
#define NAN_D __longlong_as_double(0x7ff8000000000000LL)
#define LL_MAX 9223372036854775807LL
#define LL_MIN (-LL_MAX - 1)

// Integer arithmetic as the host kernels have it: division by zero gives 0, % keeps the sign of
// the dividend, remainder takes the sign of the divisor, powers are exact (wrapping).
__device__ __forceinline__ ll l_neg(ll x) { return (ll)(0ULL - (unsigned long long)x); }
__device__ __forceinline__ ll l_div(ll x, ll y) { return y == 0 ? 0 : (y == -1 ? l_neg(x) : x / y); }
__device__ __forceinline__ ll l_mod(ll x, ll y) { return (y == 0 || y == -1) ? 0 : x % y; }
__device__ __forceinline__ ll l_rem(ll x, ll y) { ll r = l_mod(x, y); return (r != 0 && ((r < 0) != (y < 0))) ? r + y : r; }
__device__ __forceinline__ ll l_pow(ll x, ll e) {
  if (e < 0) return x == 1 ? 1 : (x == -1 ? ((e & 1) ? -1 : 1) : 0);
  unsigned long long r = 1, b = (unsigned long long)x;
  while (e) { if (e & 1) r *= b; b *= b; e >>= 1; }
  return (ll)r;
}
__device__ __forceinline__ ll l_abs(ll x) { return x < 0 ? l_neg(x) : x; }
template <typename T> __device__ __forceinline__ T f_rem(T x, T y) { return y == (T)0 ? (T)NAN_D : x - y * floor(x / y); }
template <typename T> __device__ __forceinline__ T f_sign(T x) { return (T)((x > (T)0) - (x < (T)0)); }
template <typename T> __device__ __forceinline__ T f_sigmoid(T x) { return (T)1 / ((T)1 + exp(-x)); }
template <typename T> __device__ __forceinline__ T f_frac(T x) { return x - trunc(x); }
template <typename T> __device__ __forceinline__ T big(T a, T b) { return a > b ? a : b; }
template <typename T> __device__ __forceinline__ T small(T a, T b) { return a < b ? a : b; }
// Atomic additions (for scatterAdd and indexAdd, whose positions may repeat).
__device__ __forceinline__ void add_at(float* p, float x) { atomicAdd(p, x); }
__device__ __forceinline__ void add_at(double* p, double x) { atomicAdd(p, x); }
__device__ __forceinline__ void add_at(ll* p, ll x) { atomicAdd((unsigned long long*)p, (unsigned long long)x); }
// Max/min that keep the first NaN (Torch's rule: NaN beats every number).
template <typename T> __device__ __forceinline__ bool beats_max(T a, T b) { return a > b || (a != a && b == b); }
template <typename T> __device__ __forceinline__ bool beats_min(T a, T b) { return a < b || (a != a && b == b); }
"#;
