/* A stand-in libcuda.so.1 for measuring and testing the host side of a launch on a
 * machine without a GPU: every driver call tritonc_rt makes succeeds at once, a context
 * and a device exist, and cuLaunchKernel records what it was given (grid, block, shared
 * memory, stream and the first 8 bytes of each parameter) for fake_last_launch().
 *
 *   cc -O2 -shared -fPIC -o DIR/libcuda.so.1 bench/launch/fake_libcuda.c
 *   LD_LIBRARY_PATH=DIR python3 ...
 */
#include <stdint.h>
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

/* What the last launch was given: grid x,y,z, block x,y,z, shared bytes; its stream;
 * `n` parameters' first 8 bytes each. Returns the number of launches so far. */
long long fake_last_launch(unsigned *dims, uintptr_t *stream, unsigned char *params, int n) {
    memcpy(dims, last_dims, sizeof last_dims);
    *stream = last_stream;
    memcpy(params, last_params, (size_t)(n < 64 ? n : 64) * 8);
    return launches;
}
