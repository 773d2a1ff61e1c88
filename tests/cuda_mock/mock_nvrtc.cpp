// A stand-in for libnvrtc.so for the mock GPU: every program "compiles" to a small image that the
// mock driver ignores (it runs host builds of the same kernels).
#include <cstdlib>
#include <cstring>

extern "C" {
typedef struct { int dummy; } *nvrtcProgram;

static const char IMAGE[] = "luatorch mock image";

int nvrtcCreateProgram(nvrtcProgram *prog, const char *, const char *, int, const char *const *, const char *const *) {
   *prog = (nvrtcProgram)calloc(1, sizeof(**prog));
   return 0;
}
int nvrtcDestroyProgram(nvrtcProgram *prog) {
   free(*prog);
   *prog = 0;
   return 0;
}
int nvrtcCompileProgram(nvrtcProgram, int, const char *const *) { return 0; }
int nvrtcGetPTXSize(nvrtcProgram, size_t *n) { *n = sizeof IMAGE; return 0; }
int nvrtcGetPTX(nvrtcProgram, char *out) { memcpy(out, IMAGE, sizeof IMAGE); return 0; }
int nvrtcGetCUBINSize(nvrtcProgram, size_t *n) { *n = sizeof IMAGE; return 0; }
int nvrtcGetCUBIN(nvrtcProgram, char *out) { memcpy(out, IMAGE, sizeof IMAGE); return 0; }
int nvrtcGetProgramLogSize(nvrtcProgram, size_t *n) { *n = 1; return 0; }
int nvrtcGetProgramLog(nvrtcProgram, char *out) { out[0] = 0; return 0; }
const char *nvrtcGetErrorString(int) { return "mock NVRTC error"; }
int nvrtcVersion(int *major, int *minor) { *major = 13; *minor = 0; return 0; }
}
