//! The CUDA C source of every kernel, generated from the tables below: one program, compiled by
//! NVRTC once per device.
//!
//! Tensors reach kernels as a base pointer (the tensor's first element) and a `Geo`: sizes and
//! strides with mergeable dimensions merged (`torch::apply::Geometry`). A kernel walks the
//! elements in Torch's logical (row-major) order by a flat index and finds each operand's element
//! from its own geometry, so operands may have different shapes and any strides (views, expanded
//! and transposed tensors) with no copy first.
//!
//! One kernel per element type serves every elementwise operation, and one per type and shape of
//! work every reduction: the operation is a number the kernel switches on for each element. The
//! switch is uniform across a launch, so it costs a few instructions per element of work that is
//! bound by memory bandwidth; a kernel per operation would make the program ten times larger and
//! as much slower to compile.
//!
//! Element types: `f` float, `d` double, `l` long (long long). Kernel names end with the type.

/// Most dimensions a kernel takes after merging (Torch tensors rarely have more than a handful).
pub const MAX_DIMS: usize = 16;
/// Threads per block of every kernel (the reductions' shared arrays are sized for it).
pub const BLOCK: u32 = 256;
/// Elements per thread per step of the contiguous elementwise kernel (`PW_UNROLL` in the C).
pub const PW_UNROLL: usize = 4;
/// The elementwise operations and reductions that get a loop of their own in the contiguous
/// kernels, their operation fixed at compile time (the ones training loops spend their time in);
/// the others switch on the operation per element.
const PW_FAST: &[&str] = &["fill", "copy", "add_n", "mul_n", "add", "cmul", "cdiv", "addcmul"];
const RED_FAST: &[&str] = &["sum", "mean", "max", "min", "norm2"];

/// The element types kernels are made for: (suffix, C type, accumulator of reductions).
pub const TYPES: [(&str, &str, &str); 3] = [("f", "float", "double"), ("d", "double", "double"), ("l", "ll", "ll")];

const HEADER: &str = r#"
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

/// The kernels of one element type. `T` is the element type, `A` the accumulator type of
/// reductions, `S` the type suffix; `PW_CASES` are the elementwise operations as switch cases
/// computing `o` from x, y, z (the elements of a, b, c; absent operands read 0) and the numbers
/// v, w; `RED_*_CASES` the reductions (see REDUCE_STEPS).
const PER_TYPE: &str = r#"
// Elementwise, any geometries.
extern "C" __global__ void pw_S(int op, ll n, T* r, Geo gr, const T* a, Geo ga, const T* b, Geo gb,
                                const T* c, Geo gc, T v, T w) {
  GRID_LOOP(i, n) {
    T x = a ? a[off(ga, i)] : (T)0;
    T y = b ? b[off(gb, i)] : (T)0;
    T z = c ? c[off(gc, i)] : (T)0;
    T o;
    switch (op) { PW_CASES default: o = (T)0; }
    r[off(gr, i)] = o;
  }
}

// Moves by positions (1-based, checked by the caller), over the n elements of the index's shape;
// each operand's geometry is its view over that shape. Along a dimension, where gr or ga has
// stride 0 along it and sr or sa is the stride the position moves by:
//   0 gather:   r[off(gr, i)] = a[off(ga, i) + (p - 1) * sa]
//   1 scatter:  r[off(gr, i) + (p - 1) * sr] = a[off(ga, i)]
//   2 scatter, adding (atomically: positions may repeat)
//   3 scatter v
// By flat positions into a tensor's logical order (gx, its whole geometry):
//   4 take:     r[off(gr, i)] = a[off(gx, p - 1)]
//   5 put:      r[off(gx, p - 1)] = a[off(ga, i)]
extern "C" __global__ void gs_S(int mode, ll n, T* r, Geo gr, ll sr, const T* a, Geo ga, ll sa,
                                const ll* idx, Geo gi, Geo gx, T v) {
  GRID_LOOP(i, n) {
    ll p = idx[off(gi, i)] - 1;
    switch (mode) {
      case 0: r[off(gr, i)] = a[off(ga, i) + p * sa]; break;
      case 1: r[off(gr, i) + p * sr] = a[off(ga, i)]; break;
      case 2: add_at(r + off(gr, i) + p * sr, a[off(ga, i)]); break;
      case 3: r[off(gr, i) + p * sr] = v; break;
      case 4: r[off(gr, i)] = a[off(gx, p)]; break;
      case 5: r[off(gx, p)] = a[off(ga, i)]; break;
    }
  }
}

// Inclusive scans along a dimension (op 0: sums, 1: products), accumulated in A: lane j has R
// elements as apart from a + off(gin, j) and is written rsr apart from r + off(gr, j). A thread
// per lane (many short lanes) ...
extern "C" __global__ void scan_dimt_S(int op, ll nout, ll R, const T* a, Geo gin, ll as, T* r, Geo gr, ll rsr) {
  GRID_LOOP(j, nout) {
    const T* src = a + off(gin, j);
    T* dst = r + off(gr, j);
    A acc = op ? (A)1 : (A)0;
    for (ll k = 0; k < R; ++k) {
      A x = (A)src[k * as];
      acc = op ? acc * x : acc + x;
      dst[k * rsr] = (T)acc;
    }
  }
}

// ... or a block per lane (long ones): chunks of BLOCK scanned in shared memory, each carrying
// the total of the chunks before it.
extern "C" __global__ void scan_dimb_S(int op, ll nout, ll R, const T* a, Geo gin, ll as, T* r, Geo gr, ll rsr) {
  __shared__ A sh[BLOCK];
  A unit = op ? (A)1 : (A)0;
  for (ll j = blockIdx.x; j < nout; j += gridDim.x) {
    const T* src = a + off(gin, j);
    T* dst = r + off(gr, j);
    A carry = unit;
    for (ll base = 0; base < R; base += BLOCK) {
      ll k = base + threadIdx.x;
      sh[threadIdx.x] = k < R ? (A)src[k * as] : unit;
      __syncthreads();
      for (int s = 1; s < BLOCK; s <<= 1) {
        A before = threadIdx.x >= s ? sh[threadIdx.x - s] : unit;
        __syncthreads();
        sh[threadIdx.x] = op ? sh[threadIdx.x] * before : sh[threadIdx.x] + before;
        __syncthreads();
      }
      A mine = op ? carry * sh[threadIdx.x] : carry + sh[threadIdx.x];
      if (k < R) dst[k * rsr] = (T)mine;
      A chunk = sh[BLOCK - 1];
      __syncthreads();
      carry = op ? carry * chunk : carry + chunk;
    }
  }
}

// Elementwise operation `op` at element i of n. Called with a constant `op` (the fast cases
// below), the switch folds away.
__device__ __forceinline__ T pw_eval_S(int op, ll i, ll n, T x, T y, T z, T v, T w) {
  T o;
  switch (op) { PW_CASES default: o = (T)0; }
  return o;
}

// Elementwise, every operand contiguous. Memory bound: each thread first loads PW_UNROLL
// elements of each operand (BLOCK apart, so every load of a warp is one coalesced line), then
// computes and stores them, so that many loads are in flight at once. OPC >= 0 is the
// operation, fixed at compile time; -1 switches on `op` per element.
template <int OPC>
__device__ __forceinline__ void pwc_run_S(int op_, ll n, T* r, const T* a, const T* b, const T* c, T v, T w) {
  const int op = OPC >= 0 ? OPC : op_;
  const ll step = (ll)gridDim.x * BLOCK * PW_UNROLL;
  for (ll base = (ll)blockIdx.x * BLOCK * PW_UNROLL + threadIdx.x; base < n; base += step) {
    T x[PW_UNROLL], y[PW_UNROLL], z[PW_UNROLL];
#pragma unroll
    for (int k = 0; k < PW_UNROLL; ++k) {
      ll i = base + (ll)k * BLOCK;
      bool in = i < n;
      x[k] = (a && in) ? a[i] : (T)0;
      y[k] = (b && in) ? b[i] : (T)0;
      z[k] = (c && in) ? c[i] : (T)0;
    }
#pragma unroll
    for (int k = 0; k < PW_UNROLL; ++k) {
      ll i = base + (ll)k * BLOCK;
      if (i < n) r[i] = pw_eval_S(op, i, n, x[k], y[k], z[k], v, w);
    }
  }
}

extern "C" __global__ void pwc_S(int op, ll n, T* r, const T* a, const T* b, const T* c, T v, T w) {
  switch (op) {
    PWC_FAST_CASES
    default: pwc_run_S<-1>(op, n, r, a, b, c, v, w);
  }
}

// Reductions: map an element x (parameter p) into an accumulator, combine two accumulators,
// and finish (from the accumulator and the count of elements).
__device__ __forceinline__ A red_init_S(int op) { switch (op) { RED_INIT_CASES default: return (A)0; } }
__device__ __forceinline__ A red_map_S(int op, T x, double p) { switch (op) { RED_MAP_CASES default: return (A)0; } }
__device__ __forceinline__ A red_comb_S(int op, A a, A b) { switch (op) { RED_COMB_CASES default: return a + b; } }
__device__ __forceinline__ A red_fin_S(int op, A acc, ll count, double p) { switch (op) { RED_FIN_CASES default: return acc; } }

// Tree reduction of sh[0..BLOCK) into sh[0].
__device__ __forceinline__ void block_reduce_S(int op, A* sh) {
  __syncthreads();
  for (int s = BLOCK / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) sh[threadIdx.x] = red_comb_S(op, sh[threadIdx.x], sh[threadIdx.x + s]);
    __syncthreads();
  }
}

// All n elements: each block reduces its share into part[blockIdx.x] ...
extern "C" __global__ void red_part_S(int op, ll n, const T* a, Geo ga, A* part, double p) {
  __shared__ A sh[BLOCK];
  A acc = red_init_S(op);
  GRID_LOOP(i, n) acc = red_comb_S(op, acc, red_map_S(op, a[off(ga, i)], p));
  sh[threadIdx.x] = acc;
  block_reduce_S(op, sh);
  if (threadIdx.x == 0) part[blockIdx.x] = sh[0];
}

// The same over a contiguous input, RED_UNROLL loads in flight per thread before they are
// combined; OPC as in pwc_run.
template <int OPC>
__device__ __forceinline__ A red_runc_S(int op_, ll n, const T* a, double p) {
  const int op = OPC >= 0 ? OPC : op_;
  A acc = red_init_S(op);
  const ll step = (ll)gridDim.x * BLOCK;
  ll i = (ll)blockIdx.x * BLOCK + threadIdx.x;
  for (; i + (RED_UNROLL - 1) * step < n; i += RED_UNROLL * step) {
    T x[RED_UNROLL];
#pragma unroll
    for (int k = 0; k < RED_UNROLL; ++k) x[k] = a[i + k * step];
#pragma unroll
    for (int k = 0; k < RED_UNROLL; ++k) acc = red_comb_S(op, acc, red_map_S(op, x[k], p));
  }
  for (; i < n; i += step) acc = red_comb_S(op, acc, red_map_S(op, a[i], p));
  return acc;
}

extern "C" __global__ void red_partc_S(int op, ll n, const T* a, A* part, double p) {
  __shared__ A sh[BLOCK];
  A acc;
  switch (op) {
    RED_FAST_CASES
    default: acc = red_runc_S<-1>(op, n, a, p);
  }
  sh[threadIdx.x] = acc;
  block_reduce_S(op, sh);
  if (threadIdx.x == 0) part[blockIdx.x] = sh[0];
}

// ... and one block combines the m partial results into out[0], finished over n elements.
extern "C" __global__ void red_fin_S(int op, ll m, const A* part, A* out, ll n, double p) {
  __shared__ A sh[BLOCK];
  A acc = red_init_S(op);
  for (ll i = threadIdx.x; i < m; i += BLOCK) acc = red_comb_S(op, acc, part[i]);
  sh[threadIdx.x] = acc;
  block_reduce_S(op, sh);
  if (threadIdx.x == 0) out[0] = red_fin_S(op, sh[0], n, p);
}

// Along a dimension: output element j reduces the R elements rs apart from a + off(gin, j).
// One thread per output (short reductions) ...
extern "C" __global__ void red_dimt_S(int op, ll nout, ll R, const T* a, Geo gin, ll rs, T* r, Geo gr, double p) {
  GRID_LOOP(j, nout) {
    const T* base = a + off(gin, j);
    A acc = red_init_S(op);
    for (ll k = 0; k < R; ++k) acc = red_comb_S(op, acc, red_map_S(op, base[k * rs], p));
    r[off(gr, j)] = (T)red_fin_S(op, acc, R, p);
  }
}

// ... or one block per output (long ones).
extern "C" __global__ void red_dimb_S(int op, ll nout, ll R, const T* a, Geo gin, ll rs, T* r, Geo gr, double p) {
  __shared__ A sh[BLOCK];
  for (ll j = blockIdx.x; j < nout; j += gridDim.x) {
    const T* base = a + off(gin, j);
    A acc = red_init_S(op);
    for (ll k = threadIdx.x; k < R; k += BLOCK) acc = red_comb_S(op, acc, red_map_S(op, base[k * rs], p));
    sh[threadIdx.x] = acc;
    block_reduce_S(op, sh);
    if (threadIdx.x == 0) r[off(gr, j)] = (T)red_fin_S(op, sh[0], R, p);
    __syncthreads();
  }
}

// max (is_min = 0) or min along a dimension, with the 1-based index of the first extreme, as
// Torch returns; R > 0.
__device__ __forceinline__ bool beats_S(int is_min, T a, T b) { return is_min ? beats_min(a, b) : beats_max(a, b); }

extern "C" __global__ void arg_dimt_S(int is_min, ll nout, ll R, const T* a, Geo gin, ll rs, T* r, Geo gr, ll* idx, Geo gi) {
  GRID_LOOP(j, nout) {
    const T* base = a + off(gin, j);
    T best = base[0];
    ll bi = 0;
    for (ll k = 1; k < R; ++k) {
      T x = base[k * rs];
      if (beats_S(is_min, x, best)) { best = x; bi = k; }
    }
    r[off(gr, j)] = best;
    idx[off(gi, j)] = bi + 1;
  }
}

extern "C" __global__ void arg_dimb_S(int is_min, ll nout, ll R, const T* a, Geo gin, ll rs, T* r, Geo gr, ll* idx, Geo gi) {
  __shared__ T shv[BLOCK];
  __shared__ ll shi[BLOCK];
  for (ll j = blockIdx.x; j < nout; j += gridDim.x) {
    const T* base = a + off(gin, j);
    T best = base[0];
    ll bi = 0;
    for (ll k = threadIdx.x; k < R; k += BLOCK) {
      T x = base[k * rs];
      if (beats_S(is_min, x, best)) { best = x; bi = k; }
    }
    shv[threadIdx.x] = best;
    shi[threadIdx.x] = bi;
    __syncthreads();
    for (int s = BLOCK / 2; s > 0; s >>= 1) {
      if (threadIdx.x < s) {
        T o = shv[threadIdx.x + s], m = shv[threadIdx.x];
        ll oi = shi[threadIdx.x + s], mi = shi[threadIdx.x];
        // The better one; between equals (or two NaNs) the earlier.
        if (beats_S(is_min, o, m) || (!beats_S(is_min, m, o) && oi < mi)) {
          shv[threadIdx.x] = o;
          shi[threadIdx.x] = oi;
        }
      }
      __syncthreads();
    }
    if (threadIdx.x == 0) {
      r[off(gr, j)] = shv[0];
      idx[off(gi, j)] = shi[0] + 1;
    }
    __syncthreads();
  }
}
"#;

/// Conversion between element types: r = (TO)a, any geometries.
const CONVERT: &str = r#"
extern "C" __global__ void conv_TO_FROM(ll n, TT* r, Geo gr, const FT* a, Geo ga) {
  GRID_LOOP(i, n) { r[off(gr, i)] = (TT)a[off(ga, i)]; }
}
"#;

// ------------------------------------------------------------------------------------------------
// Sorting along a dimension (src/cuda/sort.rs): sort, topk, kthvalue, median, mode.
//
// Each lane (the elements along the dimension at one position of the others) becomes a row of P
// (key, position) pairs, P the power of two at or above the lane's length L, padded with the
// largest key; a bitonic network sorts every row by (key, position), which is the host's order
// (`Reduce::key` in torch/methods/reduce.rs, ties by position: stable). The padding sorts after
// every element, even one of the largest key, as its positions are all >= L.

/// The kernels shared by every element type: the keys and the sorting network.
const SORT_COMMON: &str = r#"
typedef unsigned long long ull;
// Keys in the order of the values, as the host's `Reduce::key`: NaN above every number (every NaN
// one key), -0 the key of +0, negative numbers below positive ones with larger magnitudes lower.
// Integer operations on the bits only, so that no flush of subnormals or fast-math can change them.
__device__ __forceinline__ ull sort_key_f(float x) {
  unsigned b = __float_as_uint(x);
  if ((b & 0x7fffffffu) > 0x7f800000u) return 0xffffffffULL;
  if ((b & 0x7fffffffu) == 0u) b = 0u;
  return (b & 0x80000000u) ? (ull)(~b) : (ull)(b | 0x80000000u);
}
__device__ __forceinline__ ull sort_key_d(double x) {
  const ull sign = 0x8000000000000000ULL;
  ull b = (ull)__double_as_longlong(x);
  if ((b & ~sign) > 0x7ff0000000000000ULL) return ~0ULL;
  if ((b & ~sign) == 0ULL) b = 0ULL;
  return (b & sign) ? ~b : (b | sign);
}
__device__ __forceinline__ ull sort_key_l(ll x) { return (ull)x ^ 0x8000000000000000ULL; }

// Whether (ka, pa) comes after (kb, pb). Positions differ within a row, so no two pairs are equal.
__device__ __forceinline__ bool sort_after(ull ka, ll pa, ull kb, ll pb) { return ka > kb || (ka == kb && pa > pb); }

// One step of the bitonic network over rows of P pairs: pairs i and i ^ j are put in order,
// increasing where bit k of i's place in its row is clear (always when k = P), decreasing
// elsewhere. j < P, so both lie in one row.
extern "C" __global__ void sort_step(ll total, ll P, ll j, ll k, ull* keys, ll* pos) {
  GRID_LOOP(i, total) {
    ll o = i ^ j;
    if (o > i) {
      bool up = ((i & (P - 1)) & k) == 0;
      ull ki = keys[i], ko = keys[o];
      ll pi = pos[i], po = pos[o];
      if (sort_after(ki, pi, ko, po) == up) {
        keys[i] = ko; keys[o] = ki;
        pos[i] = po; pos[o] = pi;
      }
    }
  }
}

// The steps of distance j < SORT_CHUNK / 2 in shared memory, a block per chunk of SORT_CHUNK
// pairs (such steps never leave a chunk): for k = k0, 2 k0, ... k1, the steps j = k / 2 ... 1
// (j0 ... 1 for k0). With k0 = 2 and k1 = min(P, SORT_CHUNK) this sorts every chunk (rows of
// P <= SORT_CHUNK whole); with k0 = k1 = k and j0 = SORT_CHUNK / 2 it ends stage k.
#define SORT_CHUNK (2 * BLOCK)
extern "C" __global__ void sort_block(ll total, ll P, ll k0, ll k1, ll j0, ull* keys, ll* pos) {
  __shared__ ull sk[SORT_CHUNK];
  __shared__ ll sp[SORT_CHUNK];
  for (ll base = (ll)blockIdx.x * SORT_CHUNK; base < total; base += (ll)gridDim.x * SORT_CHUNK) {
    for (int t = threadIdx.x; t < SORT_CHUNK; t += BLOCK) {
      ll g = base + t;
      sk[t] = g < total ? keys[g] : ~0ULL;
      sp[t] = g < total ? pos[g] : 0;
    }
    __syncthreads();
    for (ll k = k0; k <= k1; k <<= 1) {
      for (ll j = (k == k0 ? j0 : k >> 1); j > 0; j >>= 1) {
        // This thread's pair: the t-th index with bit j clear, and its partner.
        int t = threadIdx.x;
        int i = 2 * t - (t & (int)(j - 1));
        int o = i + (int)j;
        ll g = base + i;
        // Rows lie whole in [0, total): when i is in, so is its partner.
        if (g < total) {
          bool up = ((g & (P - 1)) & k) == 0;
          ull ki = sk[i], ko = sk[o];
          ll pi = sp[i], po = sp[o];
          if (sort_after(ki, pi, ko, po) == up) {
            sk[i] = ko; sk[o] = ki;
            sp[i] = po; sp[o] = pi;
          }
        }
        __syncthreads();
      }
    }
    for (int t = threadIdx.x; t < SORT_CHUNK; t += BLOCK) {
      ll g = base + t;
      if (g < total) { keys[g] = sk[t]; pos[g] = sp[t]; }
    }
    __syncthreads();
  }
}
"#;

/// The sorting kernels of one element type (`_S` and `T` as in PER_TYPE). `ga`, `gr` and `gi` are
/// the input's and results' geometries with the sorted dimension moved last, so that logical
/// index row * L + c is element c of lane `row`.
const SORT_PER_TYPE: &str = r#"
// Row `row` of the work buffers: the lane's keys (xor flip: complemented for decreasing order)
// and positions, then padding up to P.
extern "C" __global__ void sort_init_S(ll total, ll P, ll L, const T* a, Geo ga, ull flip, ull* keys, ll* pos) {
  GRID_LOOP(t, total) {
    ll row = t / P;
    ll c = t - row * P;
    keys[t] = c < L ? (sort_key_S(a[off(ga, row * L + c)]) ^ flip) : ~0ULL;
    pos[t] = c;
  }
}

// Results: K elements per lane, the sorted row's from `start` on: the input's values at those
// positions and the positions, 1-based.
extern "C" __global__ void sort_out_S(ll n, ll K, ll start, ll P, ll L, const ll* pos, const T* a, Geo ga,
                                      T* r, Geo gr, ll* ri, Geo gi) {
  GRID_LOOP(t, n) {
    ll row = t / K;
    ll p = pos[row * P + start + (t - row * K)];
    r[off(gr, t)] = a[off(ga, row * L + p)];
    ri[off(gi, t)] = p + 1;
  }
}

// The mode of each sorted row (a thread per row): the longest run of one key, the first (the
// smallest value) among the longest; its last element, the value's last position in the lane.
extern "C" __global__ void sort_mode_S(ll rows, ll P, ll L, const ull* keys, const ll* pos, const T* a, Geo ga,
                                       T* r, Geo gr, ll* ri, Geo gi) {
  GRID_LOOP(row, rows) {
    const ull* k = keys + row * P;
    ll best_end = 0, best_len = 0, start = 0;
    for (ll i = 0; i < L; ++i) {
      if (i + 1 == L || k[i] != k[i + 1]) {
        if (i + 1 - start > best_len) { best_len = i + 1 - start; best_end = i; }
        start = i + 1;
      }
    }
    ll p = pos[row * P + best_end];
    r[off(gr, row)] = a[off(ga, row * L + p)];
    ri[off(gi, row)] = p + 1;
  }
}
"#;

/// The names of the sorting kernels (see `kernel_names`).
fn sort_kernel_names() -> Vec<String> {
    let mut names = vec!["sort_step".to_string(), "sort_block".to_string()];
    for (suffix, _, _) in TYPES {
        for k in ["sort_init", "sort_out", "sort_mode"] {
            names.push(format!("{k}_{suffix}"));
        }
    }
    names
}

/// The sorting part of the program.
fn sort_program() -> String {
    let mut s = String::from(SORT_COMMON);
    for (suffix, ty, _) in TYPES {
        let body = SORT_PER_TYPE.replace("_S(", &format!("_{suffix}("));
        s.push_str(&format!("#define T {ty}\n{body}#undef T\n"));
    }
    s
}

/// An elementwise operation: its name, its expression for floating types, and for long (None:
/// not defined on integers). `x`, `y`, `z` are the operands' elements, `v`, `w` the numbers.
pub struct Pointwise {
    pub name: &'static str,
    pub float: &'static str,
    pub long: Option<&'static str>,
}

const fn pw(name: &'static str, float: &'static str, long: Option<&'static str>) -> Pointwise {
    Pointwise { name, float, long }
}

pub const POINTWISE: &[Pointwise] = &[
    pw("fill", "v", Some("v")),
    pw("copy", "x", Some("x")),
    // Numbers.
    pw("add_n", "x + v", Some("x + v")),
    pw("mul_n", "x * v", Some("x * v")),
    pw("div_n", "x / v", Some("l_div(x, v)")),
    pw("fmod_n", "fmod(x, v)", Some("l_mod(x, v)")),
    pw("remainder_n", "f_rem(x, v)", Some("l_rem(x, v)")),
    pw("pow_n", "pow(x, v)", Some("l_pow(x, v)")),
    pw("tpow_n", "pow(v, x)", Some("l_pow(v, x)")),
    pw("max_n", "big(x, v)", Some("big(x, v)")),
    pw("min_n", "small(x, v)", Some("small(x, v)")),
    pw(
        "clamp",
        "x < v ? v : (x > w ? w : x)",
        Some("x < v ? v : (x > w ? w : x)"),
    ),
    // Tensors (v: the scale of y where there is one).
    pw("add", "x + v * y", Some("x + v * y")),
    pw("cmul", "x * y", Some("x * y")),
    pw("cdiv", "x / y", Some("l_div(x, y)")),
    pw("cpow", "pow(x, y)", Some("l_pow(x, y)")),
    pw("cfmod", "fmod(x, y)", Some("l_mod(x, y)")),
    pw("cremainder", "f_rem(x, y)", Some("l_rem(x, y)")),
    pw("cmax", "big(x, y)", Some("big(x, y)")),
    pw("cmin", "small(x, y)", Some("small(x, y)")),
    pw("atan2", "atan2(x, y)", None),
    pw("lerp", "x + v * (y - x)", None),
    pw("addcmul", "x + v * y * z", Some("x + v * y * z")),
    pw("addcdiv", "x + v * y / z", Some("x + l_div(v * y, z)")),
    // Comparisons: 1 where true, 0 elsewhere, in the operand's type (as cutorch's CudaTensor
    // comparisons gave).
    pw("lt_n", "x < v", Some("x < v")),
    pw("le_n", "x <= v", Some("x <= v")),
    pw("gt_n", "x > v", Some("x > v")),
    pw("ge_n", "x >= v", Some("x >= v")),
    pw("eq_n", "x == v", Some("x == v")),
    pw("ne_n", "x != v", Some("x != v")),
    pw("lt", "x < y", Some("x < y")),
    pw("le", "x <= y", Some("x <= y")),
    pw("gt", "x > y", Some("x > y")),
    pw("ge", "x >= y", Some("x >= y")),
    pw("eq", "x == y", Some("x == y")),
    pw("ne", "x != y", Some("x != y")),
    pw("masked_fill", "y != 0 ? v : x", Some("y != 0 ? v : x")),
    // By position: `i` is the element's place in logical order, `n` the element count.
    // Triangles of a matrix with w columns, from diagonal v (0 the main one, above it positive).
    pw(
        "tril",
        "(i % (ll)w) - (i / (ll)w) <= (ll)v ? x : (T)0",
        Some("(i % w) - (i / w) <= v ? x : 0"),
    ),
    pw(
        "triu",
        "(i % (ll)w) - (i / (ll)w) >= (ll)v ? x : (T)0",
        Some("(i % w) - (i / w) >= v ? x : 0"),
    ),
    // v, v + w, v + 2w, ... (range).
    pw("arange", "v + (T)i * w", Some("v + i * w")),
    // n points from v to w, as the host computes them in the element type; logspace is 10 to
    // the power of each.
    pw("linspace", "n == 1 ? v : v + (T)i * (w - v) / (T)(n - 1)", None),
    pw(
        "logspace",
        "(T)pow(10.0, (double)(n == 1 ? v : v + (T)i * (w - v) / (T)(n - 1)))",
        None,
    ),
    // Functions of one element.
    pw("neg", "-x", Some("(ll)(0ULL - (unsigned long long)x)")),
    pw("abs", "fabs(x)", Some("l_abs(x)")),
    pw("sign", "f_sign(x)", Some("(ll)((x > 0) - (x < 0))")),
    pw("exp", "exp(x)", None),
    pw("log", "log(x)", None),
    pw("log1p", "log1p(x)", None),
    pw("sqrt", "sqrt(x)", None),
    pw("rsqrt", "1 / sqrt(x)", None),
    pw("cinv", "1 / x", None),
    pw("tanh", "tanh(x)", None),
    pw("sigmoid", "f_sigmoid(x)", None),
    pw("sinh", "sinh(x)", None),
    pw("cosh", "cosh(x)", None),
    pw("sin", "sin(x)", None),
    pw("cos", "cos(x)", None),
    pw("tan", "tan(x)", None),
    pw("asin", "asin(x)", None),
    pw("acos", "acos(x)", None),
    pw("atan", "atan(x)", None),
    pw("floor", "floor(x)", None),
    pw("ceil", "ceil(x)", None),
    pw("round", "round(x)", None),
    pw("trunc", "trunc(x)", None),
    pw("frac", "f_frac(x)", None),
];

/// A reduction: name, and its parts for floating types and for long (None: not on integers),
/// as C expressions: `init` the neutral accumulator, `map` of an element `x` (with parameter
/// `p`), `comb` of accumulators `a` and `b`, `fin` of the accumulator `acc` over `count`
/// elements. `A` is the accumulator type (double for float and double, long for long), `T` the
/// element type.
pub struct Reduction {
    pub name: &'static str,
    pub float: Option<Red>,
    pub long: Option<Red>,
}

#[derive(Clone, Copy)]
pub struct Red {
    pub init: &'static str,
    pub map: &'static str,
    pub comb: &'static str,
    pub fin: &'static str,
}

const fn red(init: &'static str, map: &'static str, comb: &'static str, fin: &'static str) -> Option<Red> {
    Some(Red { init, map, comb, fin })
}

const SUM: &str = "a + b";
const MAX: &str = "beats_max(b, a) ? b : a";
const MIN: &str = "beats_min(b, a) ? b : a";

pub const REDUCTIONS: &[Reduction] = &[
    Reduction {
        name: "sum",
        float: red("0", "(A)x", SUM, "acc"),
        long: red("0", "(A)x", SUM, "acc"),
    },
    Reduction {
        name: "mean",
        float: red("0", "(A)x", SUM, "acc / (A)count"),
        long: red("0", "(A)x", SUM, "count == 0 ? 0 : acc / count"),
    },
    Reduction {
        name: "prod",
        float: red("1", "(A)x", "a * b", "acc"),
        long: red("1", "(A)x", "a * b", "acc"),
    },
    Reduction {
        name: "max",
        float: red("-INF_D", "(A)x", MAX, "acc"),
        long: red("LL_MIN", "(A)x", MAX, "acc"),
    },
    Reduction {
        name: "min",
        float: red("INF_D", "(A)x", MIN, "acc"),
        long: red("LL_MAX", "(A)x", MIN, "acc"),
    },
    // Norms: p = 0 counts non-zeros, 1 and 2 have their own maps, others use pow; infinity is
    // the largest absolute value.
    Reduction {
        name: "norm0",
        float: red("0", "(A)(x != (T)0)", SUM, "acc"),
        long: None,
    },
    Reduction {
        name: "norm1",
        float: red("0", "fabs((A)x)", SUM, "acc"),
        long: None,
    },
    Reduction {
        name: "norm2",
        float: red("0", "(A)x * (A)x", SUM, "sqrt(acc)"),
        long: None,
    },
    Reduction {
        name: "normp",
        float: red("0", "pow(fabs((A)x), (A)p)", SUM, "pow(acc, (A)(1 / p))"),
        long: None,
    },
    Reduction {
        name: "norminf",
        float: red("0", "fabs((A)x)", MAX, "acc"),
        long: None,
    },
    // Counts the positions outside 1..=p (the check of gather's and scatter's positions).
    Reduction {
        name: "outside",
        float: None,
        long: red("0", "(A)(x < 1 || (double)x > p)", SUM, "acc"),
    },
    // Counts the zeros (the check before an integer division).
    Reduction {
        name: "zeros",
        float: red("0", "(A)(x == (T)0)", SUM, "acc"),
        long: red("0", "(A)(x == 0)", SUM, "acc"),
    },
];

/// The operation number of an elementwise operation (what the kernels switch on).
pub fn pointwise_op(name: &str) -> Option<&'static Pointwise> {
    POINTWISE.iter().find(|p| p.name == name)
}

/// The operation number and parts of a reduction.
pub fn reduction_op(name: &str) -> Option<(i32, &'static Reduction)> {
    REDUCTIONS
        .iter()
        .enumerate()
        .find(|(_, r)| r.name == name)
        .map(|(i, r)| (i as i32, r))
}

impl Pointwise {
    pub fn code(&self) -> i32 {
        POINTWISE
            .iter()
            .position(|p| std::ptr::eq(p, self))
            .unwrap_or(usize::MAX) as i32
    }
}

/// The whole program.
pub fn program() -> String {
    let mut s = String::from(HEADER);
    for (suffix, ty, acc) in TYPES {
        let is_long = suffix == "l";
        let mut pw_cases = String::new();
        for (i, op) in POINTWISE.iter().enumerate() {
            let expr = if is_long { op.long } else { Some(op.float) };
            if let Some(expr) = expr {
                pw_cases.push_str(&format!("case {i}: o = (T)({expr}); break; "));
            }
        }
        let (mut init, mut map, mut comb, mut fin) = (String::new(), String::new(), String::new(), String::new());
        for (i, r) in REDUCTIONS.iter().enumerate() {
            let Some(red) = (if is_long { r.long } else { r.float }) else {
                continue;
            };
            init.push_str(&format!("case {i}: return (A)({}); ", red.init));
            map.push_str(&format!("case {i}: return (A)({}); ", red.map));
            comb.push_str(&format!("case {i}: return (A)({}); ", red.comb));
            fin.push_str(&format!("case {i}: return (A)({}); ", red.fin));
        }
        let mut pw_fast = String::new();
        for name in PW_FAST {
            let code = POINTWISE
                .iter()
                .position(|p| p.name == *name)
                .expect("a fast case is an operation");
            pw_fast.push_str(&format!(
                "case {code}: pwc_run_S<{code}>(op, n, r, a, b, c, v, w); break; "
            ));
        }
        let mut red_fast = String::new();
        for name in RED_FAST {
            let (code, r) = reduction_op(name).expect("a fast case is a reduction");
            if (if is_long { r.long } else { r.float }).is_some() {
                red_fast.push_str(&format!("case {code}: acc = red_runc_S<{code}>(op, n, a, p); break; "));
            }
        }
        let body = PER_TYPE
            .replace("PWC_FAST_CASES", &pw_fast)
            .replace("RED_FAST_CASES", &red_fast)
            .replace("PW_CASES", &pw_cases)
            .replace("RED_INIT_CASES", &init)
            .replace("RED_MAP_CASES", &map)
            .replace("RED_COMB_CASES", &comb)
            .replace("RED_FIN_CASES", &fin)
            .replace("_S(", &format!("_{suffix}("))
            .replace("_S<", &format!("_{suffix}<"));
        // The types by name (T and A are whole words in the text above).
        s.push_str(&format!("#define T {ty}\n#define A {acc}\n{body}#undef T\n#undef A\n"));
        for (to_suffix, to_ty, _) in TYPES {
            if to_suffix != suffix {
                s.push_str(
                    &CONVERT
                        .replace("conv_TO_FROM", &format!("conv_{to_suffix}_{suffix}"))
                        .replace("TT", to_ty)
                        .replace("FT", ty),
                );
            }
        }
    }
    s.push_str(&sort_program());
    s
}

/// Every kernel name the program defines (what a compile check looks up).
pub fn kernel_names() -> Vec<String> {
    let mut names = Vec::new();
    for (suffix, _, _) in TYPES {
        for k in [
            "pw",
            "pwc",
            "gs",
            "scan_dimt",
            "scan_dimb",
            "red_part",
            "red_partc",
            "red_fin",
            "red_dimt",
            "red_dimb",
            "arg_dimt",
            "arg_dimb",
        ] {
            names.push(format!("{k}_{suffix}"));
        }
        for (to_suffix, _, _) in TYPES {
            if to_suffix != suffix {
                names.push(format!("conv_{to_suffix}_{suffix}"));
            }
        }
    }
    names.extend(sort_kernel_names());
    names
}
