-- Symmetric eigen-solvers straight from the OpenBLAS that th loads (LuaJIT FFI): ?syevr, which
-- computes only the eigenpairs asked for (PCA's top k, SFA's slowest k), and ?syevd (numpy's
-- eigh) for all of them. Without the library (or FFI), `available` is false and mdp.utils
-- falls back to torch.symeig.
local M = { available = false }

local ok_ffi, ffi = pcall(require, 'ffi')
if not ok_ffi then return M end

local lib
for _, name in ipairs { 'libopenblas.so.0', 'libopenblas.so', 'liblapack.so.3' } do
   local ok, l = pcall(ffi.load, name)
   if ok then lib = l break end
end
if lib == nil then return M end

local ok_cdef = pcall(ffi.cdef, [[
void dsyevr_(const char *jobz, const char *range, const char *uplo, const int *n, double *a,
   const int *lda, const double *vl, const double *vu, const int *il, const int *iu,
   const double *abstol, int *m, double *w, double *z, const int *ldz, int *isuppz, double *work,
   const int *lwork, int *iwork, const int *liwork, int *info, size_t, size_t, size_t);
void ssyevr_(const char *jobz, const char *range, const char *uplo, const int *n, float *a,
   const int *lda, const float *vl, const float *vu, const int *il, const int *iu,
   const float *abstol, int *m, float *w, float *z, const int *ldz, int *isuppz, float *work,
   const int *lwork, int *iwork, const int *liwork, int *info, size_t, size_t, size_t);
void dpotrf_(const char *uplo, const int *n, double *a, const int *lda, int *info, size_t);
void spotrf_(const char *uplo, const int *n, float *a, const int *lda, int *info, size_t);
void dsygst_(const int *itype, const char *uplo, const int *n, double *a, const int *lda,
   const double *b, const int *ldb, int *info, size_t);
void ssygst_(const int *itype, const char *uplo, const int *n, float *a, const int *lda,
   const float *b, const int *ldb, int *info, size_t);
void dtrsm_(const char *side, const char *uplo, const char *transa, const char *diag, const int *m,
   const int *n, const double *alpha, const double *a, const int *lda, double *b, const int *ldb,
   size_t, size_t, size_t, size_t);
void strsm_(const char *side, const char *uplo, const char *transa, const char *diag, const int *m,
   const int *n, const float *alpha, const float *a, const int *lda, float *b, const int *ldb,
   size_t, size_t, size_t, size_t);
void dsyrk_(const char *uplo, const char *trans, const int *n, const int *k, const double *alpha,
   const double *a, const int *lda, const double *beta, double *c, const int *ldc, size_t, size_t);
void ssyrk_(const char *uplo, const char *trans, const int *n, const int *k, const float *alpha,
   const float *a, const int *lda, const float *beta, float *c, const int *ldc, size_t, size_t);
int openblas_get_num_threads(void);
void openblas_set_num_threads(int);
]])
if not ok_cdef then
   -- declared already (another copy of this module); ffi.C-style redeclaration is an error
end

local found = pcall(function()
   return lib.dsyevr_ and lib.ssyevr_ and lib.dpotrf_ and lib.dsygst_ and lib.dtrsm_ and lib.spotrf_
      and lib.ssygst_ and lib.strsm_ and lib.dsyrk_ and lib.ssyrk_
end)
if not found then return M end

local int1 = ffi.typeof('int[1]')

local cache = {}
local function routine(T)
   local c = cache[T]
   if c then return c end
   if T == 'torch.DoubleTensor' then
      c = { f = lib.dsyevr_, potrf = lib.dpotrf_, syrk = lib.dsyrk_, sygst = lib.dsygst_, trsm = lib.dtrsm_, real1 = ffi.typeof('double[1]'), realp = ffi.typeof('double*'), safmin = 2.2250738585072014e-308 }
   elseif T == 'torch.FloatTensor' then
      c = { f = lib.ssyevr_, potrf = lib.spotrf_, syrk = lib.ssyrk_, sygst = lib.ssygst_, trsm = lib.strsm_, real1 = ffi.typeof('float[1]'), realp = ffi.typeof('float*'), safmin = 1.1754943508222875e-38 }
   else
      return nil
   end
   cache[T] = c
   return c
end

-- OpenBLAS's threads only cost time on matrices of this size: one thread during the calls.
-- Not in the worker threads of a thread pool (__threadid set): the setting is global to the
-- process, and other threads may be in the middle of their own calls.
local has_threads = pcall(function() return lib.openblas_get_num_threads and lib.openblas_set_num_threads end)
   and rawget(_G, '__threadid') == nil
local function single_threaded(f, ...)
   if not has_threads then return f(...) end
   local before = lib.openblas_get_num_threads()
   if before <= 1 then return f(...) end
   lib.openblas_set_num_threads(1)
   local res = { pcall(f, ...) }
   lib.openblas_set_num_threads(before)
   if not res[1] then error(res[2], 0) end
   return unpack(res, 2, table.maxn(res))
end

-- For small matrix products: one OpenBLAS thread while they run (its threads cost more than
-- they give below a few million multiply-adds, the more so on a busy machine).
-- M.serial_begin(flops) returns the thread count to give back to M.serial_end, or nil.
M.SMALL_FLOPS = 8e6
function M.serial_begin(flops)
   if not has_threads or flops >= M.SMALL_FLOPS then return nil end
   local before = lib.openblas_get_num_threads()
   if before <= 1 then return nil end
   lib.openblas_set_num_threads(1)
   return before
end

function M.serial_end(before)
   if before then lib.openblas_set_num_threads(before) end
end

-- syevr on `a` (a scratch copy, destroyed): w, and the eigenvectors as the rows of zt.
local function syevr(r, A, a, lo, hi)
   local n = A:size(1)
   local range = 'A'
   local il, iu = int1(1), int1(n)
   if lo ~= nil then
      range = 'I'
      il[0], iu[0] = lo, hi
   end
   local count = (lo ~= nil) and (hi - lo + 1) or n
   local w = A.new(n)
   local zt = A.new(count, n) -- column-major n × count is row-major count × n
   local isuppz = ffi.new('int[?]', 2 * math.max(1, n))
   local nn, lda = int1(n), int1(math.max(1, n))
   local vl, vu, abstol = r.real1(0), r.real1(0), r.real1(r.safmin)
   local m, info = int1(0), int1(0)
   local wq, iwq = r.real1(0), int1(0)
   local lq = int1(-1)
   r.f('V', range, 'L', nn, ffi.cast(r.realp, a:data()), lda, vl, vu, il, iu, abstol, m,
      ffi.cast(r.realp, w:data()), ffi.cast(r.realp, zt:data()), lda, isuppz, wq, lq, iwq, lq, info, 1, 1, 1)
   if info[0] ~= 0 then error('?syevr workspace query failed (info ' .. info[0] .. ')', 0) end
   local lwork, liwork = int1(math.floor(tonumber(wq[0]))), int1(iwq[0])
   local work = A.new(lwork[0])
   local iwork = ffi.new('int[?]', liwork[0])
   r.f('V', range, 'L', nn, ffi.cast(r.realp, a:data()), lda, vl, vu, il, iu, abstol, m,
      ffi.cast(r.realp, w:data()), ffi.cast(r.realp, zt:data()), lda, isuppz, ffi.cast(r.realp, work:data()),
      lwork, iwork, int1(liwork[0]), info, 1, 1, 1)
   if info[0] ~= 0 then error('?syevr failed (info ' .. info[0] .. ')', 0) end
   local got = m[0]
   return w:narrow(1, 1, got):clone(), zt:narrow(1, 1, got)
end

-- Eigenvalues (ascending) and eigenvectors (columns) of the symmetric matrix A; with lo, hi
-- (1-based, inclusive) only those. A is not changed. Returns nil when the type is not handled;
-- raises on a LAPACK failure.
function M.eigh(A, lo, hi)
   local r = routine(A:type())
   if r == nil then return nil end
   local w, zt = single_threaded(syevr, r, A, A:clone(), lo, hi)
   return w, zt:t():contiguous()
end

local function sygv(r, A, B, lo, hi)
   local n = A:size(1)
   local nn, info = int1(n), int1(0)
   local b = B:clone()
   r.potrf('L', nn, ffi.cast(r.realp, b:data()), nn, info, 1)
   if info[0] ~= 0 then return false end
   local a = A:clone()
   r.sygst(int1(1), 'L', nn, ffi.cast(r.realp, a:data()), nn, ffi.cast(r.realp, b:data()), nn, info, 1)
   if info[0] ~= 0 then error('?sygst failed (info ' .. info[0] .. ')', 0) end
   local w, zt = syevr(r, A, a, lo, hi)
   -- eigenvectors of the original problem: solve Lᵀ W = Z
   local m = w:size(1)
   r.trsm('L', 'L', 'T', 'N', nn, int1(m), r.real1(1), ffi.cast(r.realp, b:data()), nn,
      ffi.cast(r.realp, zt:data()), nn, 1, 1, 1, 1)
   return true, w, zt
end

-- The generalized problem A w = λ B w for a positive definite B (Cholesky reduction, as LAPACK's
-- sygv): eigenvalues ascending, eigenvectors as columns with Wᵀ B W = I; lo, hi as eigh's.
-- Returns nil when B is not positive definite or the type is not handled.
function M.sygv(A, B, lo, hi)
   local r = routine(A:type())
   if r == nil or B:type() ~= A:type() then return nil end
   local ok, w, zt = single_threaded(sygv, r, A, B, lo, hi)
   if not ok then return nil end
   return w, zt:t():contiguous()
end

-- C += xᵀx for a contiguous N×n x and a contiguous n×n C of x's type, computing only the upper
-- triangle of C (row-major; the rest is left as it is): half of a matrix product's work.
-- Returns false when it cannot (then nothing is done).
function M.syrk_upper(C, x)
   local r = routine(x:type())
   if r == nil or C:type() ~= x:type() or not x:isContiguous() or not C:isContiguous() then return false end
   local N, n = x:size(1), x:size(2)
   local one = r.real1(1)
   -- column-major: x is the n×N matrix X = xᵀ; C += X·Xᵀ in its lower triangle (row-major upper)
   r.syrk('L', 'N', int1(n), int1(N), one, ffi.cast(r.realp, x:data()), int1(n), one,
      ffi.cast(r.realp, C:data()), int1(n), 1, 1)
   return true
end

M.available = true
return M
