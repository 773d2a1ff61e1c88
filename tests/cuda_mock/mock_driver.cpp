// A stand-in for libcuda.so.1 that runs cutorch's kernels on the CPU, so that the whole cutorch
// stack (library loading, contexts, streams, memory, copies, kernel parameters, reductions with
// their block barriers, cuBLAS calls, IPC between processes, FFI) is exercised on machines
// without a GPU. Built by tests/cutorch.rs together with a host build of the kernels' CUDA source
// (kernel_shim.h). It checks what it can (known allocations, kernel names, launch sizes) and
// fails the call otherwise, as the driver would.
//
// Device memory is host memory in anonymous shared files (memfd), so that an IPC handle (the
// file's path under /proc/<pid>/fd) opens the same memory in another process, and so that the
// memory goes with the process however it ends (killed ones too): nothing is left in /dev/shm.
// Where memfd is not to be had (or the process runs out of descriptors), a named POSIX
// shared-memory object stands in, removed at free and at exit. Every thread of a launch runs on
// the calling thread; kernels with __syncthreads run their block's threads as coroutines that
// switch at each barrier.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <fcntl.h>
#include <map>
#include <mutex>
#include <string>
#include <sys/mman.h>
#include <sys/stat.h>
#include <ucontext.h>
#include <unistd.h>
#include <vector>

typedef long long ll;
struct Geo {
   int nd;
   ll size[16];
   ll stride[16];
};
struct dim3 {
   unsigned x, y, z;
};

extern "C" {
dim3 threadIdx, blockIdx, blockDim, gridDim;
}

enum {
   SUCCESS = 0,
   INVALID_VALUE = 1,
   OUT_OF_MEMORY = 2,
   INVALID_DEVICE = 101,
   INVALID_CONTEXT = 201,
   INVALID_IMAGE = 200,
   NOT_FOUND = 500,
   INVALID_HANDLE = 400,
   ALREADY_MAPPED = 208,
   PEER_ACCESS_ALREADY_ENABLED = 704,
   PEER_ACCESS_NOT_ENABLED = 705,
};

static int device_count() {
   const char *n = getenv("MOCK_CUDA_DEVICES");
   return n ? atoi(n) : 1;
}

// ---------------------------------------------------------------------------------------------
// Memory: every allocation and every opened IPC mapping, by base address.

struct Region {
   size_t bytes;
   std::string name; // what an IPC handle carries: /proc/<pid>/fd/<fd>, or a shm object's name
   bool imported;
   int fd; // the memfd held open for importers (-1: a named object, or an imported mapping)
};
static std::mutex lock;
static std::map<uintptr_t, Region> regions;
static size_t allocated;
static int counter;
// Device memory: 8 GiB, or MOCK_CUDA_MEMORY bytes.
static const size_t TOTAL = [] {
   const char *m = getenv("MOCK_CUDA_MEMORY");
   return m ? (size_t)strtoull(m, nullptr, 10) : (size_t)8 << 30;
}();
static int allocations; // cuMemAlloc calls that succeeded (mockAllocations)

// What the process still holds at exit (tensors alive then, cached blocks) goes with it, as a
// context's memory does: the shared-memory objects behind it are removed. Registered with
// atexit on the first allocation, so that it runs before `regions` is destroyed.
static void remove_shared_objects() {
   std::lock_guard<std::mutex> g(lock);
   for (auto &r : regions)
      if (!r.second.imported && r.second.fd < 0) shm_unlink(r.second.name.c_str());
}

static bool find(uintptr_t p, uintptr_t *base, size_t *bytes) {
   std::lock_guard<std::mutex> g(lock);
   auto it = regions.upper_bound(p);
   if (it == regions.begin()) return false;
   --it;
   if (p >= it->first + it->second.bytes) return false;
   *base = it->first;
   *bytes = it->second.bytes;
   return true;
}

static void *map_shared(const char *name, size_t bytes, bool create) {
   int fd = shm_open(name, create ? (O_RDWR | O_CREAT | O_EXCL) : O_RDWR, 0600);
   if (fd < 0) return nullptr;
   if (create && ftruncate(fd, (off_t)bytes) != 0) {
      close(fd);
      shm_unlink(name);
      return nullptr;
   }
   void *p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
   close(fd);
   return p == MAP_FAILED ? nullptr : p;
}

// New shared memory of `bytes`, named in `name` (as an IPC handle will carry it), its descriptor
// in `fd` (-1 for a named object).
static void *new_shared(char *name, size_t size_of_name, size_t bytes, int *fd) {
   *fd = memfd_create("luatorch-mock", MFD_CLOEXEC);
   if (*fd >= 0) {
      void *p = MAP_FAILED;
      if (ftruncate(*fd, (off_t)bytes) == 0) p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, *fd, 0);
      if (p != MAP_FAILED) {
         snprintf(name, size_of_name, "/proc/%d/fd/%d", (int)getpid(), *fd);
         return p;
      }
      close(*fd);
      *fd = -1;
   }
   return map_shared(name, bytes, true);
}

// ---------------------------------------------------------------------------------------------
// Launches.

typedef void (*Caller)(void *fn, void **p);
#define P(i, T) (*(T *)p[i])

template <class T> static void call_pw(void *f, void **p) {
   ((void (*)(int, ll, T *, Geo, const T *, Geo, const T *, Geo, const T *, Geo, T, T))f)(
      P(0, int), P(1, ll), P(2, T *), P(3, Geo), P(4, T *), P(5, Geo), P(6, T *), P(7, Geo), P(8, T *), P(9, Geo),
      P(10, T), P(11, T));
}
template <class T> static void call_pwc(void *f, void **p) {
   ((void (*)(int, ll, T *, const T *, const T *, const T *, T, T))f)(P(0, int), P(1, ll), P(2, T *), P(3, T *),
                                                                      P(4, T *), P(5, T *), P(6, T), P(7, T));
}
template <class T, class A> static void call_part(void *f, void **p) {
   ((void (*)(int, ll, const T *, Geo, A *, double))f)(P(0, int), P(1, ll), P(2, T *), P(3, Geo), P(4, A *),
                                                       P(5, double));
}
template <class T, class A> static void call_partc(void *f, void **p) {
   ((void (*)(int, ll, const T *, A *, double))f)(P(0, int), P(1, ll), P(2, T *), P(3, A *), P(4, double));
}
template <class A> static void call_fin(void *f, void **p) {
   ((void (*)(int, ll, const A *, A *, ll, double))f)(P(0, int), P(1, ll), P(2, A *), P(3, A *), P(4, ll),
                                                      P(5, double));
}
template <class T> static void call_dim(void *f, void **p) {
   ((void (*)(int, ll, ll, const T *, Geo, ll, T *, Geo, double))f)(P(0, int), P(1, ll), P(2, ll), P(3, T *),
                                                                    P(4, Geo), P(5, ll), P(6, T *), P(7, Geo),
                                                                    P(8, double));
}
template <class T> static void call_arg(void *f, void **p) {
   ((void (*)(int, ll, ll, const T *, Geo, ll, T *, Geo, ll *, Geo))f)(P(0, int), P(1, ll), P(2, ll), P(3, T *),
                                                                       P(4, Geo), P(5, ll), P(6, T *), P(7, Geo),
                                                                       P(8, ll *), P(9, Geo));
}
template <class T> static void call_gs(void *f, void **p) {
   ((void (*)(int, ll, T *, Geo, ll, const T *, Geo, ll, const ll *, Geo, Geo, T))f)(
      P(0, int), P(1, ll), P(2, T *), P(3, Geo), P(4, ll), P(5, T *), P(6, Geo), P(7, ll), P(8, ll *), P(9, Geo),
      P(10, Geo), P(11, T));
}
template <class T> static void call_scan(void *f, void **p) {
   ((void (*)(int, ll, ll, const T *, Geo, ll, T *, Geo, ll))f)(P(0, int), P(1, ll), P(2, ll), P(3, T *), P(4, Geo),
                                                               P(5, ll), P(6, T *), P(7, Geo), P(8, ll));
}
// The sorting kernels (ull: the keys' type).
typedef unsigned long long ull;
static void call_sort_step(void *f, void **p) {
   ((void (*)(ll, ll, ll, ll, ull *, ll *))f)(P(0, ll), P(1, ll), P(2, ll), P(3, ll), P(4, ull *), P(5, ll *));
}
static void call_sort_block(void *f, void **p) {
   ((void (*)(ll, ll, ll, ll, ll, ull *, ll *))f)(P(0, ll), P(1, ll), P(2, ll), P(3, ll), P(4, ll), P(5, ull *),
                                                 P(6, ll *));
}
template <class T> static void call_sort_init(void *f, void **p) {
   ((void (*)(ll, ll, ll, const T *, Geo, ull, ull *, ll *))f)(P(0, ll), P(1, ll), P(2, ll), P(3, T *), P(4, Geo),
                                                              P(5, ull), P(6, ull *), P(7, ll *));
}
template <class T> static void call_sort_out(void *f, void **p) {
   ((void (*)(ll, ll, ll, ll, ll, const ll *, const T *, Geo, T *, Geo, ll *, Geo))f)(
      P(0, ll), P(1, ll), P(2, ll), P(3, ll), P(4, ll), P(5, ll *), P(6, T *), P(7, Geo), P(8, T *), P(9, Geo),
      P(10, ll *), P(11, Geo));
}
template <class T> static void call_sort_mode(void *f, void **p) {
   ((void (*)(ll, ll, ll, const ull *, const ll *, const T *, Geo, T *, Geo, ll *, Geo))f)(
      P(0, ll), P(1, ll), P(2, ll), P(3, ull *), P(4, ll *), P(5, T *), P(6, Geo), P(7, T *), P(8, Geo), P(9, ll *),
      P(10, Geo));
}
// nn's window kernels (NnWin: the geometry, as kernels/source/nn.rs has it).
struct NnWin {
   ll size[3], k[3], d[3], pad[3], dil[3], out[3];
};
template <class T> static void call_nn_cols(void *f, void **p) {
   ((void (*)(ll, T *, T *, NnWin, ll, ll))f)(P(0, ll), P(1, T *), P(2, T *), P(3, NnWin), P(4, ll), P(5, ll));
}
template <class T> static void call_nn_maxpool(void *f, void **p) {
   ((void (*)(ll, const T *, T *, ll *, NnWin))f)(P(0, ll), P(1, T *), P(2, T *), P(3, ll *), P(4, NnWin));
}
template <class T> static void call_nn_zero(void *f, void **p) { ((void (*)(ll, T *))f)(P(0, ll), P(1, T *)); }
template <class T> static void call_nn_maxpool_back(void *f, void **p) {
   ((void (*)(ll, T *, const T *, const ll *, ll, ll))f)(P(0, ll), P(1, T *), P(2, T *), P(3, ll *), P(4, ll),
                                                         P(5, ll));
}
template <class TO, class FROM> static void call_conv(void *f, void **p) {
   ((void (*)(ll, TO *, Geo, const FROM *, Geo))f)(P(0, ll), P(1, TO *), P(2, Geo), P(3, FROM *), P(4, Geo));
}

struct Function {
   void *fn;
   Caller call;
   bool barrier; // uses __syncthreads
};

static bool starts(const std::string &s, const char *prefix) { return s.rfind(prefix, 0) == 0; }

// The caller of a kernel, from its name (the kernels of src/cuda/kernels/source).
static Caller caller_of(const std::string &name, bool *barrier) {
   *barrier = starts(name, "red_part_") || starts(name, "red_partc_") || starts(name, "red_fin_") || starts(name, "red_dimb_") ||
              starts(name, "arg_dimb_") || starts(name, "scan_dimb_") || name == "sort_block";
   char t = name.empty() ? 0 : name.back();
#define BY_TYPE(tmpl) (t == 'f' ? (Caller)tmpl<float> : t == 'd' ? (Caller)tmpl<double> : (Caller)tmpl<ll>)
   if (starts(name, "pw_")) return BY_TYPE(call_pw);
   if (starts(name, "pwc_")) return BY_TYPE(call_pwc);
   if (starts(name, "red_part_")) return t == 'f' ? (Caller)call_part<float, double>
                                  : t == 'd'     ? (Caller)call_part<double, double>
                                                 : (Caller)call_part<ll, ll>;
   if (starts(name, "red_partc_")) return t == 'f' ? (Caller)call_partc<float, double>
                                   : t == 'd'     ? (Caller)call_partc<double, double>
                                                  : (Caller)call_partc<ll, ll>;
   if (starts(name, "red_fin_")) return t == 'l' ? (Caller)call_fin<ll> : (Caller)call_fin<double>;
   if (starts(name, "red_dim")) return BY_TYPE(call_dim);
   if (starts(name, "arg_dim")) return BY_TYPE(call_arg);
   if (starts(name, "gs_")) return BY_TYPE(call_gs);
   if (starts(name, "scan_dim")) return BY_TYPE(call_scan);
   if (name == "sort_step") return (Caller)call_sort_step;
   if (name == "sort_block") return (Caller)call_sort_block;
   if (starts(name, "sort_init_")) return BY_TYPE(call_sort_init);
   if (starts(name, "sort_out_")) return BY_TYPE(call_sort_out);
   if (starts(name, "sort_mode_")) return BY_TYPE(call_sort_mode);
   if (starts(name, "nn_unfold_") || starts(name, "nn_fold_")) return BY_TYPE(call_nn_cols);
   if (starts(name, "nn_maxpool_back_")) return BY_TYPE(call_nn_maxpool_back);
   if (starts(name, "nn_maxpool_")) return BY_TYPE(call_nn_maxpool);
   if (starts(name, "nn_zero_")) return BY_TYPE(call_nn_zero);
   if (starts(name, "conv_") && name.size() == 8) {
      char to = name[5], from = name[7];
#define CONV(a, A, b, B)                                                                                               \
   if (to == a && from == b) return (Caller)call_conv<A, B>;
      CONV('f', float, 'd', double) CONV('f', float, 'l', ll) CONV('d', double, 'f', float)
      CONV('d', double, 'l', ll) CONV('l', ll, 'f', float) CONV('l', ll, 'd', double)
   }
   return nullptr;
}

// Coroutines for the threads of one block.
static const size_t STACK = 64 * 1024;
static ucontext_t scheduler;
static std::vector<ucontext_t> threads;
static std::vector<char> stacks;
static std::vector<int> finished;
static Function *running;
static void **running_params;
static int current;

static void thread_main(int index) {
   (void)index;
   running->call(running->fn, running_params);
   finished[current] = 1;
}

extern "C" void mock_syncthreads(void) {
   if (running && running->barrier) swapcontext(&threads[current], &scheduler);
}

static void run_block_with_barriers(unsigned block) {
   threads.resize(block);
   finished.assign(block, 0);
   stacks.resize(block * STACK);
   for (unsigned i = 0; i < block; i++) {
      getcontext(&threads[i]);
      threads[i].uc_stack.ss_sp = &stacks[i * STACK];
      threads[i].uc_stack.ss_size = STACK;
      threads[i].uc_link = &scheduler;
      makecontext(&threads[i], (void (*)())thread_main, 1, (int)i);
   }
   // Round robin: each thread runs to its next barrier (or its end); a round is a barrier.
   for (;;) {
      bool any = false;
      for (unsigned i = 0; i < block; i++) {
         if (finished[i]) continue;
         any = true;
         current = (int)i;
         threadIdx = dim3{i, 0, 0};
         swapcontext(&scheduler, &threads[i]);
      }
      if (!any) break;
   }
}

// ---------------------------------------------------------------------------------------------
// The driver API.

extern "C" {
typedef uintptr_t CUdeviceptr;

int cuGetErrorName(int e, const char **s) {
   *s = e == OUT_OF_MEMORY ? "CUDA_ERROR_OUT_OF_MEMORY" : "CUDA_ERROR_MOCK";
   return SUCCESS;
}
int cuGetErrorString(int e, const char **s) {
   *s = e == OUT_OF_MEMORY ? "out of memory" : "mock driver error";
   return SUCCESS;
}
int cuInit(unsigned) { return device_count() > 0 ? SUCCESS : 100; }
int cuDriverGetVersion(int *v) { *v = 13000; return SUCCESS; }
int cuDeviceGetCount(int *n) { *n = device_count(); return SUCCESS; }
int cuDeviceGet(int *d, int ordinal) {
   if (ordinal < 0 || ordinal >= device_count()) return INVALID_DEVICE;
   *d = ordinal;
   return SUCCESS;
}
// A UUID per device; MOCK_CUDA_UUID_SEED changes them all (a process that sees other GPUs).
int cuDeviceGetUuid_v2(unsigned char *uuid, int d) {
   if (d < 0 || d >= device_count()) return INVALID_DEVICE;
   const char *seed = getenv("MOCK_CUDA_UUID_SEED");
   for (int i = 0; i < 16; i++) uuid[i] = (unsigned char)(0x40 + i + 16 * d + (seed ? atoi(seed) : 0));
   return SUCCESS;
}
int cuDeviceGetName(char *name, int len, int d) {
   snprintf(name, (size_t)len, "Mock GPU %d", d);
   return SUCCESS;
}
int cuDeviceTotalMem_v2(size_t *b, int) { *b = TOTAL; return SUCCESS; }
int cuDeviceGetAttribute(int *v, int attr, int) {
   switch (attr) {
   case 75: *v = 9; break;   // compute capability major
   case 76: *v = 0; break;   // minor
   case 16: *v = 4; break;   // multiprocessors
   case 10: *v = 32; break;  // warp size
   case 1: *v = 1024; break; // max threads per block
   case 41: *v = 1; break;   // unified addressing
   default: *v = 0;
   }
   return SUCCESS;
}
// Two blocks of any kernel per multiprocessor: grids sized by occupancy (kernels::wave) are
// then a few blocks, whose threads loop over many elements each.
int cuOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, void *, int, size_t) {
   *blocks = 2;
   return SUCCESS;
}
static char contexts[16];
static thread_local void *current_context;
int cuDevicePrimaryCtxRetain(void **ctx, int d) { *ctx = &contexts[d]; return SUCCESS; }
int cuDevicePrimaryCtxRelease_v2(int) { return SUCCESS; }
int cuCtxSetCurrent(void *ctx) { current_context = ctx; return SUCCESS; }
int cuCtxGetCurrent(void **ctx) { *ctx = current_context; return SUCCESS; }
int cuCtxSynchronize(void) { return current_context ? SUCCESS : INVALID_VALUE; }
// A stream is one byte holding its creation flags. Work runs when it is queued, so streams and
// events order nothing here; events are checked to be live.
int cuStreamCreate(void **s, unsigned flags) {
   *s = malloc(1);
   *(unsigned char *)*s = (unsigned char)flags;
   return SUCCESS;
}
int cuStreamGetFlags(void *s, unsigned *flags) {
   *flags = s ? *(unsigned char *)s : 0;
   return SUCCESS;
}
static std::map<void *, bool> events; // live events, and whether recorded
int cuEventCreate(void **e, unsigned) {
   std::lock_guard<std::mutex> g(lock);
   *e = malloc(1);
   events[*e] = false;
   return SUCCESS;
}
int cuEventRecord(void *e, void *) {
   std::lock_guard<std::mutex> g(lock);
   if (!events.count(e)) return INVALID_HANDLE;
   events[e] = true;
   return SUCCESS;
}
int cuEventDestroy_v2(void *e) {
   std::lock_guard<std::mutex> g(lock);
   if (!events.erase(e)) return INVALID_HANDLE;
   free(e);
   return SUCCESS;
}
static int waits; // cuStreamWaitEvent calls (mockStreamWaits)
int cuStreamWaitEvent(void *, void *e, unsigned) {
   std::lock_guard<std::mutex> g(lock);
   if (!events.count(e) || !current_context) return INVALID_HANDLE;
   waits++;
   return SUCCESS;
}
int mockStreamWaits(void) {
   std::lock_guard<std::mutex> g(lock);
   return waits;
}
// Every pair of devices can access each other, unless MOCK_CUDA_NO_PEER is set.
int cuDeviceCanAccessPeer(int *can, int d, int peer) {
   if (d < 0 || peer < 0 || d >= device_count() || peer >= device_count()) return INVALID_DEVICE;
   *can = d != peer && !getenv("MOCK_CUDA_NO_PEER");
   return SUCCESS;
}
static std::map<std::pair<void *, void *>, bool> peer_access; // (context, peer context)
int cuCtxEnablePeerAccess(void *peer, unsigned) {
   std::lock_guard<std::mutex> g(lock);
   if (!current_context || peer == current_context || getenv("MOCK_CUDA_NO_PEER")) return INVALID_DEVICE;
   bool &on = peer_access[{current_context, peer}];
   if (on) return PEER_ACCESS_ALREADY_ENABLED;
   on = true;
   return SUCCESS;
}
int cuCtxDisablePeerAccess(void *peer) {
   std::lock_guard<std::mutex> g(lock);
   bool &on = peer_access[{current_context, peer}];
   if (!on) return PEER_ACCESS_NOT_ENABLED;
   on = false;
   return SUCCESS;
}
int cuStreamDestroy_v2(void *s) { free(s); return SUCCESS; }
int cuStreamSynchronize(void *) { return SUCCESS; }

int cuMemGetInfo_v2(size_t *free_bytes, size_t *total) {
   std::lock_guard<std::mutex> g(lock);
   *total = TOTAL;
   *free_bytes = TOTAL - allocated;
   return SUCCESS;
}

int cuMemAlloc_v2(CUdeviceptr *p, size_t bytes) {
   if (!current_context) return INVALID_VALUE;
   if (bytes == 0) return INVALID_VALUE;
   char name[64];
   {
      std::lock_guard<std::mutex> g(lock);
      if (allocated + bytes > TOTAL) return OUT_OF_MEMORY;
      snprintf(name, sizeof name, "/luatorch-mock-%d-%d", (int)getpid(), ++counter);
   }
   static const bool cleanup = atexit(remove_shared_objects) == 0;
   (void)cleanup;
   int fd;
   void *m = new_shared(name, sizeof name, bytes, &fd);
   if (!m) return OUT_OF_MEMORY;
   // Not zero: what must be zeroed is zeroed, and results left partly unset show (as NaN in
   // floating types, -1 in integer ones).
   memset(m, 0xFF, bytes);
   std::lock_guard<std::mutex> g(lock);
   regions[(uintptr_t)m] = Region{bytes, name, false, fd};
   allocated += bytes;
   allocations++;
   *p = (CUdeviceptr)m;
   return SUCCESS;
}

// For tests, through LuaJIT's FFI: how many allocations the driver has made.
int mockAllocations(void) {
   std::lock_guard<std::mutex> g(lock);
   return allocations;
}

int cuMemFree_v2(CUdeviceptr p) {
   std::lock_guard<std::mutex> g(lock);
   auto it = regions.find(p);
   if (it == regions.end() || it->second.imported) return INVALID_VALUE;
   munmap((void *)p, it->second.bytes);
   if (it->second.fd >= 0)
      close(it->second.fd);
   else
      shm_unlink(it->second.name.c_str());
   allocated -= it->second.bytes;
   regions.erase(it);
   return SUCCESS;
}

int cuMemGetAddressRange_v2(CUdeviceptr *base, size_t *bytes, CUdeviceptr p) {
   uintptr_t b;
   size_t n;
   if (!find(p, &b, &n)) return NOT_FOUND;
   if (base) *base = b;
   if (bytes) *bytes = n;
   return SUCCESS;
}

// Every device range a call touches must lie in one known region.
static bool known(CUdeviceptr p, size_t bytes) {
   uintptr_t b;
   size_t n;
   return bytes == 0 || (find(p, &b, &n) && p + bytes <= b + n);
}

int cuMemsetD8Async(CUdeviceptr p, unsigned char v, size_t n, void *) {
   if (!known(p, n)) return INVALID_VALUE;
   memset((void *)p, v, n);
   return SUCCESS;
}
int cuMemsetD8_v2(CUdeviceptr p, unsigned char v, size_t n) { return cuMemsetD8Async(p, v, n, nullptr); }
int cuMemcpyHtoDAsync_v2(CUdeviceptr d, const void *h, size_t n, void *) {
   if (!known(d, n)) return INVALID_VALUE;
   memcpy((void *)d, h, n);
   return SUCCESS;
}
int cuMemcpyDtoHAsync_v2(void *h, CUdeviceptr d, size_t n, void *) {
   if (!known(d, n)) return INVALID_VALUE;
   memcpy(h, (void *)d, n);
   return SUCCESS;
}
int cuMemcpyDtoDAsync_v2(CUdeviceptr d, CUdeviceptr s, size_t n, void *) {
   if (!known(d, n) || !known(s, n)) return INVALID_VALUE;
   memmove((void *)d, (void *)s, n);
   return SUCCESS;
}
int cuMemcpyHtoD_v2(CUdeviceptr d, const void *h, size_t n) { return cuMemcpyHtoDAsync_v2(d, h, n, nullptr); }
int cuMemcpyDtoH_v2(void *h, CUdeviceptr d, size_t n) { return cuMemcpyDtoHAsync_v2(h, d, n, nullptr); }

int cuIpcGetMemHandle(char *handle, CUdeviceptr p) {
   std::lock_guard<std::mutex> g(lock);
   auto it = regions.find(p);
   if (it == regions.end() || it->second.imported) return INVALID_VALUE;
   memset(handle, 0, 64);
   strncpy(handle, it->second.name.c_str(), 63);
   return SUCCESS;
}
// The handle is a 64-byte struct passed by value, as in cuda.h.
struct IpcHandle {
   char reserved[64];
};
int cuIpcOpenMemHandle_v2(CUdeviceptr *p, IpcHandle handle, unsigned) {
   char name[65];
   memcpy(name, handle.reserved, 64);
   name[64] = 0;
   {
      // As with the real driver, a process cannot open what it exported itself.
      std::lock_guard<std::mutex> g(lock);
      for (auto &r : regions) {
         if (!r.second.imported && r.second.name == name) return INVALID_CONTEXT;
         // Nor open a handle twice before closing it.
         if (r.second.imported && r.second.name == name) return ALREADY_MAPPED;
      }
   }
   // A memfd is opened through its exporter's descriptor; a named object by its name.
   bool memfd = strncmp(name, "/proc/", 6) == 0;
   int fd = memfd ? open(name, O_RDWR | O_CLOEXEC) : shm_open(name, O_RDWR, 0600);
   if (fd < 0) return INVALID_HANDLE;
   struct stat st;
   fstat(fd, &st);
   void *m = mmap(nullptr, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
   close(fd);
   if (m == MAP_FAILED) return INVALID_HANDLE;
   std::lock_guard<std::mutex> g(lock);
   regions[(uintptr_t)m] = Region{(size_t)st.st_size, name, true, -1};
   *p = (CUdeviceptr)m;
   return SUCCESS;
}
int cuIpcCloseMemHandle(CUdeviceptr p) {
   std::lock_guard<std::mutex> g(lock);
   auto it = regions.find(p);
   if (it == regions.end() || !it->second.imported) return INVALID_VALUE;
   munmap((void *)p, it->second.bytes);
   regions.erase(it);
   return SUCCESS;
}

static char module_tag;
int cuModuleLoadData(void **m, const void *image) {
   if (!image) return INVALID_IMAGE;
   *m = &module_tag;
   return SUCCESS;
}
int cuModuleGetFunction(void **f, void *, const char *name) {
   static void *self;
   if (!self) {
      Dl_info info;
      dladdr((void *)&cuModuleGetFunction, &info);
      self = dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD);
   }
   void *fn = self ? dlsym(self, name) : nullptr;
   Function k;
   k.call = caller_of(name, &k.barrier);
   if (!fn || !k.call) return NOT_FOUND;
   k.fn = fn;
   *f = new Function(k);
   return SUCCESS;
}

int cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                   unsigned shared, void *, void **params, void **extra) {
   (void)shared;
   if (!current_context) return INVALID_VALUE;
   // One launch at a time: the thread and block indices are process-wide here.
   static std::mutex launching;
   std::lock_guard<std::mutex> g(launching);
   if (!f || gy != 1 || gz != 1 || by != 1 || bz != 1 || extra || gx == 0 || bx == 0 || bx > 1024) {
      return INVALID_VALUE;
   }
   Function *k = (Function *)f;
   gridDim = dim3{gx, 1, 1};
   blockDim = dim3{bx, 1, 1};
   running = k;
   running_params = params;
   for (unsigned b = 0; b < gx; b++) {
      blockIdx = dim3{b, 0, 0};
      if (k->barrier) {
         run_block_with_barriers(bx);
      } else {
         for (unsigned t = 0; t < bx; t++) {
            threadIdx = dim3{t, 0, 0};
            k->call(k->fn, params);
         }
      }
   }
   running = nullptr;
   return SUCCESS;
}
}
