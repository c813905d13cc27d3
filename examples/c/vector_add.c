/* Adds two vectors on the GPU with `add_kernel` from examples/vector_add.py, compiled
 * ahead of time into C (docs/c.md):
 *
 *   tritonc compile examples/vector_add.py --target sm_90 --emit c -o build
 *   cc -std=c11 -Ibuild examples/c/vector_add.c build/vector_add.c -ldl -pthread -o vector_add
 *   ./vector_add
 *
 * Exit status: 0 when every sum is right, 1 when one is not or a call fails, 3 when
 * there is no NVIDIA driver or GPU (tritonc's own code for that). */
#include <stdio.h>

#include "vector_add.h"

/* tritonc.toml compiles add_kernel as "*fp32:16, *fp32:16, *fp32:16, i32:16, 1024":
 * 16-byte aligned buffers, a length divisible by 16, blocks of 1024 elements. */
#define N 100000
#define BLOCK_SIZE 1024

static int fail(tritonc_status status) {
    fprintf(stderr, "vector_add: %s\n", vector_add_last_error());
    return status == TRITONC_NO_DRIVER || status == TRITONC_NO_DEVICE ? 3 : 1;
}

#define CHECK(call)                                                                       \
    do {                                                                                  \
        tritonc_status status_ = (call);                                                  \
        if (status_ != TRITONC_SUCCESS)                                                   \
            return fail(status_);                                                         \
    } while (0)

static float x[N], y[N], out[N];

int main(void) {
    unsigned long long dx, dy, dout;
    tritonc_grid grid = {(N + BLOCK_SIZE - 1) / BLOCK_SIZE, 1, 1};
    int i, wrong = 0;
    for (i = 0; i < N; i++) {
        x[i] = (float)i;
        y[i] = 0.5f * (float)i;
    }
    CHECK(vector_add_malloc(&dx, sizeof x));
    CHECK(vector_add_malloc(&dy, sizeof y));
    CHECK(vector_add_malloc(&dout, sizeof out));
    CHECK(vector_add_copy_to_device(dx, x, sizeof x));
    CHECK(vector_add_copy_to_device(dy, y, sizeof y));
    /* NULL: the default stream; a CUstream or cudaStream_t goes here. */
    CHECK(add_kernel(grid, NULL, dx, dy, dout, N));
    CHECK(vector_add_synchronize());
    CHECK(vector_add_copy_to_host(out, dout, sizeof out));
    for (i = 0; i < N; i++)
        wrong += out[i] != x[i] + y[i];
    CHECK(vector_add_free(dx));
    CHECK(vector_add_free(dy));
    CHECK(vector_add_free(dout));
    printf("%d of %d sums right\n", N - wrong, N);
    return wrong == 0 ? 0 : 1;
}
