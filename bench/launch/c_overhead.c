/* Host launch overhead from C: the launch function `tritonc compile --emit c` generates
 * for `add_kernel` (examples/vector_add.py), called back to back on a 16 Ki-element add
 * (16 programs; the GPU finishes each in about 2 µs, so the host is the bottleneck).
 * Prints the median microseconds per launch over ROUNDS rounds of LAUNCHES launches and
 * writes them to OUT/c.json (bench/launch/run.sh builds and runs it).
 *
 *   tritonc compile examples/vector_add.py --target sm_90 --emit c -o build
 *   cc -O2 -std=c11 -Ibuild bench/launch/c_overhead.c build/vector_add.c -ldl -pthread -o c_overhead
 *   ./c_overhead OUT [LAUNCHES] [ROUNDS]
 *
 * Exit status: 0 when measured and every sum is right, 1 otherwise, 3 without a GPU. */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "vector_add.h"

#define N (16 * 1024)
#define BLOCK_SIZE 1024
#define MAX_ROUNDS 101

static double now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int fail(tritonc_status status) {
    fprintf(stderr, "c_overhead: %s\n", vector_add_last_error());
    return status == TRITONC_NO_DRIVER || status == TRITONC_NO_DEVICE ? 3 : 1;
}

#define CHECK(call)                                                                       \
    do {                                                                                  \
        tritonc_status status_ = (call);                                                  \
        if (status_ != TRITONC_SUCCESS)                                                   \
            return fail(status_);                                                         \
    } while (0)

static float x[N], y[N], out[N];

int main(int argc, char **argv) {
    const char *dir = argc > 1 ? argv[1] : ".";
    int launches = argc > 2 ? atoi(argv[2]) : 20000;
    int rounds = argc > 3 ? atoi(argv[3]) : 15;
    unsigned long long dx, dy, dout;
    tritonc_grid grid = {N / BLOCK_SIZE, 1, 1};
    double us[MAX_ROUNDS];
    int i, r, wrong = 0;
    if (rounds < 1 || rounds > MAX_ROUNDS || launches < 1) {
        fprintf(stderr, "usage: c_overhead OUT [LAUNCHES] [ROUNDS <= %d]\n", MAX_ROUNDS);
        return 2;
    }
    for (i = 0; i < N; i++) {
        x[i] = (float)i;
        y[i] = 0.25f * (float)i;
    }
    CHECK(vector_add_malloc(&dx, sizeof x));
    CHECK(vector_add_malloc(&dy, sizeof y));
    CHECK(vector_add_malloc(&dout, sizeof out));
    CHECK(vector_add_copy_to_device(dx, x, sizeof x));
    CHECK(vector_add_copy_to_device(dy, y, sizeof y));
    for (i = 0; i < 100; i++) /* load, warm up */
        CHECK(add_kernel(grid, NULL, dx, dy, dout, N));
    CHECK(vector_add_synchronize());
    for (r = 0; r < rounds; r++) {
        double t0 = now_us();
        for (i = 0; i < launches; i++)
            CHECK(add_kernel(grid, NULL, dx, dy, dout, N));
        us[r] = (now_us() - t0) / launches;
        CHECK(vector_add_synchronize());
    }
    CHECK(vector_add_copy_to_host(out, dout, sizeof out));
    for (i = 0; i < N; i++)
        wrong += out[i] != x[i] + y[i];
    qsort(us, (size_t)rounds, sizeof us[0], cmp);
    printf("C (--emit c)   %7.2f us per launch (median of %d rounds of %d; min %.2f)%s\n",
           us[rounds / 2], rounds, launches, us[0], wrong ? "  WRONG SUMS" : "");
    {
        char path[4096];
        FILE *f;
        snprintf(path, sizeof path, "%s/c.json", dir);
        f = fopen(path, "w");
        if (!f) {
            perror(path);
            return 1;
        }
        fprintf(f, "{\"us_per_launch_median\": %.3f, \"us_per_launch_min\": %.3f, "
                   "\"rounds\": %d, \"launches_per_round\": %d, \"wrong_sums\": %d}\n",
                us[rounds / 2], us[0], rounds, launches, wrong);
        fclose(f);
    }
    return wrong ? 1 : 0;
}
