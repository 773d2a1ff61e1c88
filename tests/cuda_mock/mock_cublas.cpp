// A stand-in for libcublas.so for the mock GPU: the functions cutorch calls, as plain loops with
// cuBLAS's column-major semantics and its argument checks (a wrong leading dimension or size is
// CUBLAS_STATUS_INVALID_VALUE, as on a GPU), so cutorch's row-major handling is really checked.
#include <cstdlib>

typedef void *cublasHandle_t;
enum { OK = 0, INVALID_VALUE = 7 };
enum { OP_N = 0, OP_T = 1 };

template <class T>
static int gemm(int ta, int tb, int m, int n, int k, const T *alpha, const T *a, int lda, const T *b, int ldb,
                const T *beta, T *c, int ldc) {
   if (m < 0 || n < 0 || k < 0) return INVALID_VALUE;
   int arows = ta == OP_N ? m : k, brows = tb == OP_N ? k : n;
   if (lda < (arows > 1 ? arows : 1) || ldb < (brows > 1 ? brows : 1) || ldc < (m > 1 ? m : 1)) return INVALID_VALUE;
   for (int i = 0; i < m; i++)
      for (int j = 0; j < n; j++) {
         double s = 0;
         for (int l = 0; l < k; l++) {
            double x = ta == OP_N ? a[i + (long)l * lda] : a[l + (long)i * lda];
            double y = tb == OP_N ? b[l + (long)j * ldb] : b[j + (long)l * ldb];
            s += x * y;
         }
         T *out = &c[i + (long)j * ldc];
         *out = (T)(*alpha * s + (*beta == 0 ? 0 : *beta * *out));
      }
   return OK;
}

template <class T>
static int gemv(int t, int m, int n, const T *alpha, const T *a, int lda, const T *x, int incx, const T *beta, T *y,
                int incy) {
   if (m < 0 || n < 0 || lda < (m > 1 ? m : 1) || incx == 0 || incy == 0) return INVALID_VALUE;
   int ylen = t == OP_N ? m : n, xlen = t == OP_N ? n : m;
   for (int i = 0; i < ylen; i++) {
      double s = 0;
      for (int l = 0; l < xlen; l++) {
         double v = t == OP_N ? a[i + (long)l * lda] : a[l + (long)i * lda];
         s += v * x[(long)l * incx];
      }
      T *out = &y[(long)i * incy];
      *out = (T)(*alpha * s + (*beta == 0 ? 0 : *beta * *out));
   }
   return OK;
}

template <class T> static int dot(int n, const T *x, int incx, const T *y, int incy, T *r) {
   if (incx <= 0 || incy <= 0) return INVALID_VALUE;
   double s = 0;
   for (int i = 0; i < n; i++) s += (double)x[(long)i * incx] * y[(long)i * incy];
   *r = (T)s;
   return OK;
}

extern "C" {
int cublasCreate_v2(cublasHandle_t *h) { *h = malloc(1); return OK; }
int cublasDestroy_v2(cublasHandle_t h) { free(h); return OK; }
int cublasSetStream_v2(cublasHandle_t, void *) { return OK; }

int cublasSgemm_v2(cublasHandle_t, int ta, int tb, int m, int n, int k, const float *al, const float *a, int lda,
                   const float *b, int ldb, const float *be, float *c, int ldc) {
   return gemm(ta, tb, m, n, k, al, a, lda, b, ldb, be, c, ldc);
}
int cublasDgemm_v2(cublasHandle_t, int ta, int tb, int m, int n, int k, const double *al, const double *a, int lda,
                   const double *b, int ldb, const double *be, double *c, int ldc) {
   return gemm(ta, tb, m, n, k, al, a, lda, b, ldb, be, c, ldc);
}
int cublasSgemv_v2(cublasHandle_t, int t, int m, int n, const float *al, const float *a, int lda, const float *x,
                   int incx, const float *be, float *y, int incy) {
   return gemv(t, m, n, al, a, lda, x, incx, be, y, incy);
}
int cublasDgemv_v2(cublasHandle_t, int t, int m, int n, const double *al, const double *a, int lda, const double *x,
                   int incx, const double *be, double *y, int incy) {
   return gemv(t, m, n, al, a, lda, x, incx, be, y, incy);
}
int cublasSdot_v2(cublasHandle_t, int n, const float *x, int incx, const float *y, int incy, float *r) {
   return dot(n, x, incx, y, incy, r);
}
int cublasDdot_v2(cublasHandle_t, int n, const double *x, int incx, const double *y, int incy, double *r) {
   return dot(n, x, incx, y, incy, r);
}
}
