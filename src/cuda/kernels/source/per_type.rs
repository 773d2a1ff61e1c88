//! The kernels of one element type, as text with placeholders that `source::program` fills per
//! type: elementwise (any geometries, and contiguous with the hot operations compiled as loops of
//! their own), moves by position (gather, scatter, take, put), scans, and the reductions (of
//! everything, along a dimension, and the arg-extremes); and the conversion between two types.

/// The kernels of one element type. `T` is the element type, `A` the accumulator type of
/// reductions, `S` the type suffix; `PW_CASES` are the elementwise operations as switch cases
/// computing `o` from x, y, z (the elements of a, b, c; absent operands read 0) and the numbers
/// v, w; `RED_*_CASES` the reductions (see `operations::REDUCTIONS`).
pub const PER_TYPE: &str = r#"
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
pub const CONVERT: &str = r#"
extern "C" __global__ void conv_TO_FROM(ll n, TT* r, Geo gr, const FT* a, Geo ga) {
  GRID_LOOP(i, n) { r[off(gr, i)] = (TT)a[off(ga, i)]; }
}
"#;
