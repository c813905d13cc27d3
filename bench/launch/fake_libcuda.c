/* A stand-in libcuda.so.1 for measuring and testing the host side of a launch on a
 * machine without a GPU: every driver call tritonc_rt makes succeeds at once, a context
 * and a device exist, "device memory" is host memory (so copies work; no kernel runs, so
 * results are never computed), and cuLaunchKernel records what it was given (grid, block, shared
 * memory, stream and the first 8 bytes of each parameter) for fake_last_launch().
 *
 *   cc -O2 -shared -fPIC -o DIR/libcuda.so.1 bench/launch/fake_libcuda.c
 *   LD_LIBRARY_PATH=DIR python3 ...
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
static uintptr_t current_ctx = 0;
static long long launches = 0;
static unsigned last_dims[7];
static uintptr_t last_stream;
static unsigned char last_params[64][8];
static int param_count = 0;

/* How many parameters the next launches pass (the driver learns it from the module). */
void fake_set_param_count(int n) { param_count = n < 64 ? n : 64; }

CUresult cuInit(unsigned flags) { (void)flags; return 0; }
CUresult cuDriverGetVersion(int *v) { *v = 12080; return 0; }
CUresult cuGetErrorName(CUresult r, const char **name) {
    (void)r;
    *name = "CUDA_ERROR_FAKE";
    return 0;
}
CUresult cuCtxGetCurrent(uintptr_t *ctx) { *ctx = current_ctx; return 0; }
CUresult cuCtxSetCurrent(uintptr_t ctx) { current_ctx = ctx; return 0; }
CUresult cuCtxGetDevice(int *dev) { *dev = 0; return 0; }
CUresult cuDeviceGet(int *dev, int ordinal) { *dev = ordinal; return 0; }
CUresult cuDeviceGetCount(int *n) { *n = 1; return 0; }
CUresult cuDeviceGetAttribute(int *v, int attr, int dev) {
    (void)dev;
    *v = attr == 75 ? 9 : 0; /* compute capability 9.0 */
    return 0;
}
CUresult cuDevicePrimaryCtxRetain(uintptr_t *ctx, int dev) {
    *ctx = 0x1000 + (uintptr_t)dev;
    return 0;
}
CUresult cuModuleLoadData(uintptr_t *module, const void *image) {
    (void)image;
    *module = 0x2000;
    return 0;
}
CUresult cuModuleGetFunction(uintptr_t *f, uintptr_t module, const char *name) {
    (void)module;
    (void)name;
    *f = 0x3000;
    return 0;
}
CUresult cuFuncSetAttribute(uintptr_t f, int attr, int value) {
    (void)f;
    (void)attr;
    (void)value;
    return 0;
}
CUresult cuLaunchKernel(uintptr_t f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                        unsigned by, unsigned bz, unsigned shared, uintptr_t stream,
                        void **params, void **extra) {
    (void)f;
    (void)extra;
    unsigned dims[7] = {gx, gy, gz, bx, by, bz, shared};
    memcpy(last_dims, dims, sizeof dims);
    last_stream = stream;
    for (int i = 0; i < param_count && params; i++) memcpy(last_params[i], params[i], 8);
    launches++;
    return 0;
}

CUresult cuCtxSynchronize(void) { return 0; }
CUresult cuMemAlloc_v2(unsigned long long *ptr, size_t bytes) {
    void *p = aligned_alloc(256, (bytes + 255) / 256 * 256);
    *ptr = (unsigned long long)(uintptr_t)p;
    return p ? 0 : 2; /* CUDA_ERROR_OUT_OF_MEMORY */
}
CUresult cuMemFree_v2(unsigned long long ptr) {
    free((void *)(uintptr_t)ptr);
    return 0;
}
CUresult cuMemcpyHtoD_v2(unsigned long long dst, const void *src, size_t bytes) {
    memcpy((void *)(uintptr_t)dst, src, bytes);
    return 0;
}
CUresult cuMemcpyDtoH_v2(void *dst, unsigned long long src, size_t bytes) {
    memcpy(dst, (const void *)(uintptr_t)src, bytes);
    return 0;
}

/* What tritonc-runtime (cudarc) asks for besides. */
CUresult cuGetErrorString(CUresult r, const char **s) {
    (void)r;
    *s = "fake driver error";
    return 0;
}
CUresult cuDeviceGetName(char *name, int len, int dev) {
    (void)dev;
    strncpy(name, "stand-in GPU", (size_t)len);
    return 0;
}
CUresult cuDeviceTotalMem_v2(size_t *bytes, int dev) {
    (void)dev;
    *bytes = (size_t)1 << 34;
    return 0;
}
CUresult cuDevicePrimaryCtxRelease_v2(int dev) { (void)dev; return 0; }
CUresult cuMemsetD8_v2(unsigned long long dst, unsigned char v, size_t n) {
    memset((void *)(uintptr_t)dst, v, n);
    return 0;
}
CUresult cuMemGetInfo_v2(size_t *free_bytes, size_t *total) {
    *free_bytes = *total = (size_t)1 << 34;
    return 0;
}
CUresult cuModuleLoadDataEx(uintptr_t *module, const void *image, unsigned n, void *opts,
                            void **values) {
    (void)n;
    (void)opts;
    (void)values;
    return cuModuleLoadData(module, image);
}
CUresult cuModuleUnload(uintptr_t module) { (void)module; return 0; }
CUresult cuEventCreate(uintptr_t *e, unsigned flags) {
    (void)flags;
    *e = 0x4000;
    return 0;
}
CUresult cuEventRecord(uintptr_t e, uintptr_t stream) { (void)e; (void)stream; return 0; }
CUresult cuEventSynchronize(uintptr_t e) { (void)e; return 0; }
CUresult cuEventDestroy_v2(uintptr_t e) { (void)e; return 0; }
CUresult cuEventElapsedTime(float *ms, uintptr_t a, uintptr_t b) {
    (void)a;
    (void)b;
    *ms = 0.002f;
    return 0;
}

/* What the last launch was given: grid x,y,z, block x,y,z, shared bytes; its stream;
 * `n` parameters' first 8 bytes each. Returns the number of launches so far. */
long long fake_last_launch(unsigned *dims, uintptr_t *stream, unsigned char *params, int n) {
    memcpy(dims, last_dims, sizeof last_dims);
    *stream = last_stream;
    memcpy(params, last_params, (size_t)(n < 64 ? n : 64) * 8);
    return launches;
}
