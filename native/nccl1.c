/* libnccl.so.1: NCCL 1.x's C interface, for Lua scripts written against NCCL 1.x that declare its
 * header through LuaJIT's FFI and load it with ffi.load('libnccl.so.1').
 *
 * This file only holds the 1.x ABI (int counts, 1.x data-type and result codes, 1.x AllGather
 * argument order, a void ncclCommDestroy). The work is done inside `th` (src/cuda/nccl/v1.rs),
 * which loads this library by its absolute path and hands it a table of functions through
 * luatorch_nccl1_bind; loaded by anything else, every call answers "lib wrapper not initialized".
 */
#include <stddef.h>

typedef struct { char internal[128]; } ncclUniqueId;
typedef void *ncclComm_t;
typedef void *cudaStream_t;

/* NCCL 1.x result codes. */
enum { ok = 0, lib_wrapper_not_set = 9, nresults = 15 };

/* What th provides (src/cuda/nccl/v1.rs, struct Ops: the same layout). */
struct luatorch_nccl1_ops {
   int (*get_unique_id)(ncclUniqueId *id);
   int (*comm_init_rank)(ncclComm_t *comm, int ndev, const ncclUniqueId *id, int rank);
   int (*comm_init_all)(ncclComm_t *comm, int ndev, const int *devlist);
   void (*comm_destroy)(ncclComm_t comm);
   int (*comm_query)(ncclComm_t comm, int what, int *out);
   int (*collective)(int kind, const void *send, void *recv, int count, int type, int op, int root,
                     ncclComm_t comm, cudaStream_t stream);
};

static const struct luatorch_nccl1_ops *ops;

__attribute__((visibility("default"))) void luatorch_nccl1_bind(const struct luatorch_nccl1_ops *o) { ops = o; }

#define API __attribute__((visibility("default")))

API int ncclGetUniqueId(ncclUniqueId *id) { return ops ? ops->get_unique_id(id) : lib_wrapper_not_set; }

API int ncclCommInitRank(ncclComm_t *comm, int ndev, ncclUniqueId id, int rank) {
   return ops ? ops->comm_init_rank(comm, ndev, &id, rank) : lib_wrapper_not_set;
}

API int ncclCommInitAll(ncclComm_t *comm, int ndev, const int *devlist) {
   return ops ? ops->comm_init_all(comm, ndev, devlist) : lib_wrapper_not_set;
}

API void ncclCommDestroy(ncclComm_t comm) {
   if (ops) ops->comm_destroy(comm);
}

/* comm_query's `what`: 0 count, 1 device, 2 rank. */
API int ncclCommCount(const ncclComm_t comm, int *count) { return ops ? ops->comm_query(comm, 0, count) : lib_wrapper_not_set; }
API int ncclCommCuDevice(const ncclComm_t comm, int *dev) { return ops ? ops->comm_query(comm, 1, dev) : lib_wrapper_not_set; }
API int ncclCommUserRank(const ncclComm_t comm, int *rank) { return ops ? ops->comm_query(comm, 2, rank) : lib_wrapper_not_set; }

/* collective's `kind`: 0 AllReduce, 1 Reduce, 2 Bcast, 3 AllGather, 4 ReduceScatter. */
API int ncclReduce(const void *send, void *recv, int count, int type, int op, int root, ncclComm_t comm, cudaStream_t stream) {
   return ops ? ops->collective(1, send, recv, count, type, op, root, comm, stream) : lib_wrapper_not_set;
}
API int ncclAllReduce(const void *send, void *recv, int count, int type, int op, ncclComm_t comm, cudaStream_t stream) {
   return ops ? ops->collective(0, send, recv, count, type, op, 0, comm, stream) : lib_wrapper_not_set;
}
API int ncclReduceScatter(const void *send, void *recv, int recvcount, int type, int op, ncclComm_t comm, cudaStream_t stream) {
   return ops ? ops->collective(4, send, recv, recvcount, type, op, 0, comm, stream) : lib_wrapper_not_set;
}
API int ncclBcast(void *buff, int count, int type, int root, ncclComm_t comm, cudaStream_t stream) {
   return ops ? ops->collective(2, buff, buff, count, type, 0, root, comm, stream) : lib_wrapper_not_set;
}
API int ncclAllGather(const void *send, int count, int type, void *recv, ncclComm_t comm, cudaStream_t stream) {
   return ops ? ops->collective(3, send, recv, count, type, 0, 0, comm, stream) : lib_wrapper_not_set;
}

/* The 1.x messages, by 1.x code. */
static const char *const messages[nresults] = {
   "no error", "unhandled cuda error", "system error", "internal error", "invalid device pointer",
   "invalid rank", "unsupported device count", "device not found", "invalid device index",
   "lib wrapper not initialized", "cuda malloc failed", "parameter mismatch between ranks",
   "invalid argument", "invalid data type", "invalid reduction operations",
};

API const char *ncclGetErrorString(int result) {
   return result >= 0 && result < nresults ? messages[result] : "unknown result code";
}
