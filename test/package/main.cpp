// Runs the consumer's library on 3 thread ranks (10 elements: 3 does not
// divide them) and checks y = 0.5 * sum over ranks of x.
#include <cmath>
#include <cstdio>
#include <thread>
#include <vector>

#include "HalideBuffer.h"
#include "scaled_sum.h"

int main() {
    const int ranks = 3, n = 10;
    coconet_threads_world *world = coconet_threads_world_create(ranks, 10.0);
    std::vector<int> status(ranks);
    std::vector<Halide::Runtime::Buffer<float>> y(ranks);
    std::vector<std::thread> threads;
    for (int r = 0; r < ranks; r++) {
        threads.emplace_back([&, r] {
            coconet_comm *comm = coconet_threads_world_comm(world, r);
            int32_t min[1], extent[1];
            coconet_arg_box(scaled_sum_program(), 0, r, ranks, min, extent);
            Halide::Runtime::Buffer<float> x(extent[0]);
            x.for_each_element([&](int i) { x(i) = (float)(r + 1) * (float)i; });
            coconet_arg_box(scaled_sum_program(), 1, r, ranks, min, extent);
            y[r] = Halide::Runtime::Buffer<float>(extent[0]);
            status[r] = scaled_sum(comm, x.raw_buffer(), y[r].raw_buffer());
            if (status[r] != 0) {
                std::fprintf(stderr, "%s\n", coconet_comm_last_error(comm));
            }
        });
    }
    for (std::thread &t : threads) {
        t.join();
    }
    coconet_threads_world_destroy(world);
    int bad = 0;
    for (int r = 0; r < ranks; r++) {
        bad += status[r] != 0;
        for (int i = 0; status[r] == 0 && i < n; i++) {
            const float want = 0.5f * (1 + 2 + 3) * (float)i;
            bad += std::fabs(y[r](i) - want) > 1e-6f;
        }
    }
    std::printf("consumer: %s\n", bad ? "FAILED" : "OK");
    return bad ? 1 : 0;
}
