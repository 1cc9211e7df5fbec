// Bad input to every entry point (ctest -L error): the AOT libraries' typed
// entry points, coconet_aot_run and coconet_arg_box, and the JIT API. Every
// bad argument, communicator, world size and call order must fail with its
// error code and a message naming the argument, rank or call at fault: never
// a crash, a hang or a wrong answer.
#include <chrono>
#include <climits>
#include <cstdlib>
#include <optional>

#include "AotRunner.h"
#include "TestUtil.h"
#include "aot_adam.h"
#include "aot_adam_r3.h"
#include "aot_megatron_mlp_none.h"

using namespace coconet;
using Catch::Matchers::Contains;
using coconet_test::message_of;

namespace {

using Entry = int (*)(coconet_comm *, halide_buffer_t *const *);

// A library: its table and its typed entry point, called with args in order.
struct Library {
    const coconet_aot_program *table;
    Entry entry;
};

const std::vector<Library> &libraries() {
    static const std::vector<Library> libs = {
        {aot_adam_program(),
         [](coconet_comm *c, halide_buffer_t *const *a) {
             return aot_adam(c, a[0], a[1], a[2], a[3], a[4], a[5], a[6]);
         }},
        {aot_adam_r3_program(),
         [](coconet_comm *c, halide_buffer_t *const *a) {
             return aot_adam_r3(c, a[0], a[1], a[2], a[3], a[4], a[5], a[6]);
         }},
        {aot_megatron_mlp_none_program(),
         [](coconet_comm *c, halide_buffer_t *const *a) {
             return aot_megatron_mlp_none(c, a[0], a[1], a[2], a[3], a[4]);
         }},
    };
    return libs;
}

const Library &library(const coconet_aot_program *table) {
    for (const Library &l : libraries()) {
        if (l.table == table) {
            return l;
        }
    }
    FAIL("no such library");
    return libraries()[0];
}

// Every rank's inputs for library p on `size` ranks.
std::vector<RankBuffers> inputs_for(const coconet_aot_program *p, int size) {
    const Program program = apps::aot_program_source(p);
    return apps::inputs_for_generator(p->generator)(program, size, 1);
}

// One rank's good arguments for library p, in call order.
struct Call {
    RankBuffers in, out;
    std::vector<halide_buffer_t *> args;

    Call(const coconet_aot_program *p, const RankBuffers &inputs, int rank, int size)
        : in(inputs), out(apps::allocate_aot_outputs(p, rank, size)) {
        for (int i = 0; i < p->ninputs + p->noutputs; i++) {
            RankBuffers &from = i < p->ninputs ? in : out;
            args.push_back(from.at(p->values[p->args[i]].name).raw_buffer());
        }
    }
};

struct RankResult {
    int code = COCONET_OK;
    std::string error;
};

// Runs body(rank, comm) on every rank of a threads world with `timeout`;
// each rank's code and message.
template<typename F>
std::vector<RankResult> on_thread_ranks(int size, double timeout, F body) {
    std::vector<RankResult> results(size);
    coconet_test::run_thread_ranks(size, timeout, [&](int r, coconet_comm *comm) {
        results[r].code = body(r, comm);
        results[r].error = coconet_comm_last_error(comm);
    });
    return results;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// A bad argument: breaks `arg` (pointing at a copy of a good one whose dim
// array has room for one more dimension) and returns the message the call
// must fail with; "" where it does not apply to this argument.
struct BadArgument {
    const char *name;
    std::string (*spoil)(halide_buffer_t *&arg, bool output);
};

const std::vector<BadArgument> &bad_arguments() {
    static const std::vector<BadArgument> bad = {
        {"null buffer",
         [](halide_buffer_t *&b, bool) -> std::string {
             b = nullptr;
             return "the buffer is NULL";
         }},
        {"int32 elements",
         [](halide_buffer_t *&b, bool) -> std::string {
             b->type = halide_type_t(halide_type_int, 32);
             return "the buffer holds int32";
         }},
        {"float64 elements",
         [](halide_buffer_t *&b, bool) -> std::string {
             b->type = halide_type_t(halide_type_float, 64);
             return "the buffer holds float64";
         }},
        {"vector elements",
         [](halide_buffer_t *&b, bool) -> std::string {
             b->type.lanes = 4;
             return "the buffer holds float32x4";
         }},
        {"one more dimension",
         [](halide_buffer_t *&b, bool) -> std::string {
             const int d = b->dimensions++;
             b->dim[d] = halide_dimension_t(0, 1, 1 << 20);
             return "the buffer has " + std::to_string(d + 1) + " dimensions, the value " +
                    std::to_string(d);
         }},
        {"one dimension fewer",
         [](halide_buffer_t *&b, bool) -> std::string {
             const int d = b->dimensions--;
             return "the buffer has " + std::to_string(d - 1) + " dimensions, the value " +
                    std::to_string(d);
         }},
        {"no dim array",
         [](halide_buffer_t *&b, bool) -> std::string {
             b->dim = nullptr;
             return "the buffer's dim array is NULL";
         }},
        {"extent one too large",
         [](halide_buffer_t *&b, bool) -> std::string {
             b->dim[b->dimensions - 1].extent++;
             return "the buffer covers [";
         }},
        {"min one too large",
         [](halide_buffer_t *&b, bool) -> std::string {
             b->dim[0].min++;
             return "the buffer covers [";
         }},
        {"min one too small",
         [](halide_buffer_t *&b, bool) -> std::string {
             b->dim[0].min--;
             return "the buffer covers [";
         }},
        {"negative extent",
         [](halide_buffer_t *&b, bool) -> std::string {
             b->dim[0].extent = -1;
             return "dimension 0 has extent -1";
         }},
        {"negative stride",
         [](halide_buffer_t *&b, bool) -> std::string {
             b->dim[0].stride = -1;
             return "dimension 0 has stride -1; the runtime takes positive strides";
         }},
        {"zero stride",
         [](halide_buffer_t *&b, bool) -> std::string {
             b->dim[0].stride = 0;
             return "dimension 0 has stride 0";
         }},
        {"byte size overflowing 64 bits",
         [](halide_buffer_t *&b, bool) -> std::string {
             b->dim[b->dimensions - 1] = halide_dimension_t(0, INT32_MAX, INT32_MAX);
             return "the buffer's byte size overflows 64 bits";
         }},
        {"no memory",
         [](halide_buffer_t *&b, bool) -> std::string {
             b->host = nullptr;
             return "the buffer has no memory (host is NULL and it has no device allocation)";
         }},
        {"device handle only",
         [](halide_buffer_t *&b, bool) -> std::string {
             b->host = nullptr;
             b->device = 1;
             return "a device allocation alone is not enough";
         }},
        {"device handle without an interface",
         [](halide_buffer_t *&b, bool) -> std::string {
             b->device = 1;
             b->set_device_dirty(true);
             return "the buffer has a device allocation but no device_interface";
         }},
        {"output whose elements overlap",
         [](halide_buffer_t *&b, bool output) -> std::string {
             if (!output || b->dimensions < 2) {
                 return "";
             }
             b->dim[1].stride = b->dim[0].stride;
             return "dimensions 0 and 1 overlap (stride " + std::to_string(b->dim[0].stride) +
                    " < " + std::to_string(b->dim[0].stride) + " x " +
                    std::to_string(b->dim[0].extent) +
                    "); an output's elements may not share memory";
         }},
    };
    return bad;
}

// A copy of argument i of `call` (its dim with room for one more), spoiled
// by `bad`; `expected` is "" where `bad` does not apply.
struct Spoiled {
    halide_buffer_t copy;
    halide_dimension_t dims[5] = {};
    halide_buffer_t *arg = &copy;
    std::string expected;

    Spoiled(const Call &call, int i, const BadArgument &bad, bool output) : copy(*call.args[i]) {
        std::copy(copy.dim, copy.dim + copy.dimensions, dims);
        copy.dim = dims;
        expected = bad.spoil(arg, output);
    }
};

// The world a library runs on in these tests (its own count when it has one).
int world_for(const coconet_aot_program *p) {
    return p->ranks > 0 ? p->ranks : 2;
}

// How messages name argument i: "input 'g'", then "(float32, " and its layout.
std::string argument_name(const coconet_aot_program *p, int i) {
    return std::string(i < p->ninputs ? "input '" : "output '") + p->values[p->args[i]].name + "'";
}

std::string argument_text(const coconet_aot_program *p, int i) {
    return argument_name(p, i) + " (float32, ";
}

} // namespace

TEST_CASE("every bad argument of every library is refused on its rank, its peers stopped",
          "[aot][error]") {
    int tried = 0;
    for (const Library &lib : libraries()) {
        const coconet_aot_program *p = lib.table;
        const int size = world_for(p), faulty = size - 1;
        const std::vector<RankBuffers> inputs = inputs_for(p, size);
        for (int i = 0; i < p->ninputs + p->noutputs; i++) {
            for (const BadArgument &bad : bad_arguments()) {
                INFO(p->name << ", argument " << i << ": " << bad.name);
                const bool output = i >= p->ninputs;
                const std::string expected =
                    Spoiled(Call(p, inputs[faulty], faulty, size), i, bad, output).expected;
                if (expected.empty()) {
                    continue;
                }
                const auto start = std::chrono::steady_clock::now();
                const std::vector<RankResult> results =
                    on_thread_ranks(size, 5.0, [&](int r, coconet_comm *comm) -> int {
                        Call call(p, inputs[r], r, size);
                        std::optional<Spoiled> spoiled;
                        if (r == faulty) {
                            spoiled.emplace(call, i, bad, output);
                            call.args[i] = spoiled->arg;
                        }
                        return lib.entry(comm, call.args.data());
                    });
                tried++;
                CHECK(seconds_since(start) < 5.0 + 5.0); // the codes below: no peer waited
                CHECK(results[faulty].code == COCONET_ERR_INVALID);
                CHECK_THAT(results[faulty].error,
                           Contains(std::string(p->name) + ", rank " + std::to_string(faulty) +
                                    " of " + std::to_string(size) + " (threads): ") &&
                               Contains(argument_text(p, i)) && Contains(expected));
                for (int r = 0; r < faulty; r++) {
                    CHECK(results[r].code == COCONET_ERR_ABORTED);
                }
            }
        }
    }
    CHECK(tried > 300);
}

TEST_CASE("every output aliasing any other argument is refused", "[aot][error]") {
    for (const Library &lib : libraries()) {
        const coconet_aot_program *p = lib.table;
        const int size = world_for(p), nargs = p->ninputs + p->noutputs;
        const std::vector<RankBuffers> inputs = inputs_for(p, size);
        for (int o = p->ninputs; o < nargs; o++) {
            for (int j = 0; j < nargs; j++) {
                if (j == o) {
                    continue;
                }
                // At the other argument's first element, and overlapping its last one.
                for (bool at_end : {false, true}) {
                    INFO(p->name << ": output " << o << " over argument " << j
                                 << (at_end ? "'s last element" : ""));
                    const std::vector<RankResult> results =
                        on_thread_ranks(size, 5.0, [&](int r, coconet_comm *comm) -> int {
                            // Both in a block of their own, so that they overlap
                            // each other only (the values are never read).
                            Call call(p, inputs[r], r, size);
                            halide_buffer_t out = *call.args[o], other = *call.args[j];
                            std::vector<uint8_t> block(out.size_in_bytes() + other.size_in_bytes());
                            other.host = block.data();
                            out.host = at_end ? other.end() - other.type.bytes() : other.host;
                            call.args[o] = &out;
                            call.args[j] = &other;
                            return lib.entry(comm, call.args.data());
                        });
                    for (int r = 0; r < size; r++) {
                        CHECK(results[r].code == COCONET_ERR_INVALID);
                        CHECK_THAT(results[r].error,
                                   Contains(", rank " + std::to_string(r) + " of ") &&
                                       Contains(argument_name(p, std::max(o, j)) +
                                                " shares memory with " +
                                                argument_name(p, std::min(o, j))));
                    }
                }
            }
        }
    }
}

TEST_CASE("null, destroyed and foreign communicators are refused without being read",
          "[aot][error]") {
    coconet_threads_world *world = coconet_threads_world_create(1, 5.0);
    coconet_comm *destroyed = coconet_threads_world_comm(world, 0);
    coconet_threads_world_destroy(world);
    int not_a_comm = 0;
    coconet_comm *foreign = reinterpret_cast<coconet_comm *>(&not_a_comm);
    for (const Library &lib : libraries()) {
        const coconet_aot_program *p = lib.table;
        const std::vector<RankBuffers> inputs = inputs_for(p, world_for(p));
        Call call(p, inputs[0], 0, world_for(p));
        INFO(p->name);
        // The message of a call without a communicator is this thread's.
        CHECK(lib.entry(nullptr, call.args.data()) == COCONET_ERR_INVALID);
        CHECK(coconet_comm_last_error_code(nullptr) == COCONET_ERR_INVALID);
        CHECK_THAT(coconet_comm_last_error(nullptr),
                   Contains(std::string(p->name) + ": the communicator is NULL"));
        for (coconet_comm *comm : {destroyed, foreign}) {
            CHECK(coconet_comm_valid(comm) == 0);
            CHECK(lib.entry(comm, call.args.data()) == COCONET_ERR_INVALID);
            CHECK(coconet_comm_last_error_code(comm) == COCONET_ERR_INVALID);
            CHECK_THAT(coconet_comm_last_error(comm),
                       Contains(std::string(p->name) + ": the communicator 0x") &&
                           Contains("does not exist (destroyed, or not a communicator)"));
        }
    }
    CHECK(coconet_comm_valid(nullptr) == 0);
}

TEST_CASE("window memory calls refuse null, destroyed, foreign and non-MPI communicators",
          "[aot][error]") {
    // Checked against the registry before the pointer is read (a destroyed
    // communicator crashed coconet_mpi_free before).
    coconet_threads_world *world = coconet_threads_world_create(1, 5.0);
    coconet_comm *threads = coconet_threads_world_comm(world, 0);
    int not_a_comm = 0;
    coconet_comm *foreign = reinterpret_cast<coconet_comm *>(&not_a_comm);
    for (coconet_comm *comm : {(coconet_comm *)nullptr, threads, foreign}) {
        CHECK(coconet_mpi_alloc(comm, 64) == nullptr);
        CHECK(coconet_comm_last_error_code(comm) == COCONET_ERR_INVALID);
        CHECK_THAT(coconet_comm_last_error(comm), Contains("coconet_mpi_alloc: "));
        CHECK(coconet_mpi_free(comm, &not_a_comm) == COCONET_ERR_INVALID);
        CHECK_THAT(coconet_comm_last_error(comm), Contains("coconet_mpi_free: "));
        CHECK(coconet_mpi_window_bytes(comm) == 0);
    }
    coconet_threads_world_destroy(world);
    CHECK(coconet_mpi_free(threads, &not_a_comm) == COCONET_ERR_INVALID);
    CHECK_THAT(coconet_comm_last_error(threads), Contains("coconet_mpi_free: "));
    CHECK(coconet_mpi_window_bytes(threads) == 0);
}

TEST_CASE("a null table or argument array is refused", "[aot][error]") {
    // Refused before any collective: one rank needs no thread of its own.
    std::unique_ptr<coconet_threads_world, void (*)(coconet_threads_world *)> world(
        coconet_threads_world_create(1, 5.0), coconet_threads_world_destroy);
    coconet_comm *comm = coconet_threads_world_comm(world.get(), 0);
    // Releasing: nothing is kept on thread ranks, so a program never run is fine.
    CHECK(coconet_aot_release(comm, aot_adam_program()) == COCONET_OK);
    CHECK(coconet_mpi_window_bytes(comm) == 0);
    CHECK(coconet_aot_run(comm, nullptr, nullptr) == COCONET_ERR_INVALID);
    CHECK_THAT(coconet_comm_last_error(comm),
               Contains("coconet_aot_run: the program table is NULL"));
    CHECK(coconet_aot_run(comm, aot_adam_program(), nullptr) == COCONET_ERR_INVALID);
    CHECK(coconet_comm_last_error_code(comm) == COCONET_ERR_INVALID);
    CHECK_THAT(coconet_comm_last_error(comm), Contains("aot_adam: the argument array is NULL"));
    CHECK(coconet_aot_run(nullptr, nullptr, nullptr) == COCONET_ERR_INVALID);
    CHECK_THAT(coconet_comm_last_error(nullptr),
               Contains("coconet_aot_run: the program table is NULL"));
    // The failed calls aborted the world: its ranks cannot meet to release.
    CHECK(coconet_aot_release(comm, aot_adam_program()) == COCONET_ERR_ABORTED);
    CHECK(coconet_aot_release(comm, nullptr) == COCONET_ERR_INVALID);
    CHECK_THAT(coconet_comm_last_error(comm),
               Contains("coconet_aot_release: the program table is NULL"));
    CHECK(coconet_aot_release(nullptr, aot_adam_program()) == COCONET_ERR_INVALID);
    CHECK_THAT(coconet_comm_last_error(nullptr),
               Contains("coconet_aot_release: not a live communicator"));
}

TEST_CASE("coconet_arg_box refuses tables, arguments and ranks that do not exist", "[aot][error]") {
    const coconet_aot_program *p = aot_adam_program();
    int32_t min[4], extent[4];
    CHECK(coconet_arg_box(p, 2, 1, 3, min, extent) == COCONET_OK);
    CHECK((min[0] == 334 && extent[0] == 334));
    struct Case {
        const coconet_aot_program *table;
        int arg, rank, size;
        int32_t *min;
        const char *message;
    };
    const Case cases[] = {
        {nullptr, 0, 0, 1, min, "the program table is NULL"},
        {p, 0, 0, 1, nullptr, "min is NULL"},
        {p, -1, 0, 1, min, "aot_adam has arguments 0..6, not -1"},
        {p, 7, 0, 1, min, "aot_adam has arguments 0..6, not 7"},
        {p, 0, 3, 3, min, "rank 3 of 3 is not a rank of a world"},
        {p, 0, -1, 3, min, "rank -1 of 3 is not a rank of a world"},
        {p, 0, 0, 0, min, "rank 0 of 0 is not a rank of a world"},
        {p, 0, 0, -2, min, "rank 0 of -2 is not a rank of a world"},
    };
    for (const Case &c : cases) {
        INFO(c.message);
        CHECK(coconet_arg_box(c.table, c.arg, c.rank, c.size, c.min, extent) ==
              COCONET_ERR_INVALID);
        CHECK(coconet_comm_last_error_code(nullptr) == COCONET_ERR_INVALID);
        CHECK_THAT(coconet_comm_last_error(nullptr),
                   Contains(std::string("coconet_arg_box: ") + c.message));
    }
}

TEST_CASE("a communicator of the wrong size is refused on every rank", "[aot][error]") {
    struct Case {
        const coconet_aot_program *table;
        int size;
        std::string message;
    };
    const std::vector<Case> cases = {
        {aot_adam_r3_program(), 1, "the library was built for 3 ranks"},
        {aot_adam_r3_program(), 2, "the library was built for 3 ranks"},
        {aot_adam_r3_program(), 4, "the library was built for 3 ranks"},
        // Built with max_ranks=8: no fused kernel for 9 sources.
        {aot_adam_program(), 9, "the fused pass of 'g_sum_rs' needs a kernel for 9 sources"},
    };
    for (const Case &c : cases) {
        INFO(c.table->name << " on " << c.size << " ranks");
        const std::vector<RankBuffers> inputs = inputs_for(c.table, c.size);
        const auto start = std::chrono::steady_clock::now();
        const std::vector<RankResult> results =
            on_thread_ranks(c.size, 5.0, [&](int r, coconet_comm *comm) -> int {
                Call call(c.table, inputs[r], r, c.size);
                return library(c.table).entry(comm, call.args.data());
            });
        CHECK(seconds_since(start) < 5.0 + 5.0);
        for (int r = 0; r < c.size; r++) {
            CHECK(results[r].code == COCONET_ERR_INVALID);
            CHECK_THAT(results[r].error,
                       Contains(std::string(c.table->name) + ", rank " + std::to_string(r) +
                                " of " + std::to_string(c.size)) &&
                           Contains(c.message));
        }
    }
    // Buffers cut for 3 ranks on a world of 2: rank 1's slice of m is another box.
    const std::vector<RankBuffers> for_3 = inputs_for(aot_adam_program(), 3);
    const std::vector<RankResult> results =
        on_thread_ranks(2, 5.0, [&](int r, coconet_comm *comm) -> int {
            Call call(aot_adam_program(), for_3[r], r, 2);
            return library(aot_adam_program()).entry(comm, call.args.data());
        });
    CHECK(results[1].code == COCONET_ERR_INVALID);
    CHECK_THAT(results[1].error,
               Contains("aot_adam, rank 1 of 2 (threads): input 'm' (float32, Sliced(0)) of "
                        "global shape [1000]: this rank's box is [500..1000], the buffer covers "
                        "[334..668]"));
}

TEST_CASE("calls in different orders on different ranks fail naming the call, never hang",
          "[aot][error]") {
    const coconet_aot_program *adam = aot_adam_program(), *mlp = aot_megatron_mlp_none_program();
    const std::vector<RankBuffers> adam_in = inputs_for(adam, 2), mlp_in = inputs_for(mlp, 2);
    auto run = [&](const coconet_aot_program *p, int r, coconet_comm *comm) {
        Call call(p, (p == adam ? adam_in : mlp_in)[r], r, 2);
        return library(p).entry(comm, call.args.data());
    };
    const double timeout = 1.0;

    SECTION("rank 0 runs adam then the MLP, rank 1 the MLP then adam") {
        const auto start = std::chrono::steady_clock::now();
        std::vector<RankResult> first(2);
        const std::vector<RankResult> second =
            on_thread_ranks(2, timeout, [&](int r, coconet_comm *comm) -> int {
                first[r].code = run(r == 0 ? adam : mlp, r, comm);
                first[r].error = coconet_comm_last_error(comm);
                return run(r == 0 ? mlp : adam, r, comm);
            });
        CHECK(seconds_since(start) < timeout + 5.0);
        // Both see the other's call; the second calls stop at once.
        for (int r = 0; r < 2; r++) {
            INFO("rank " << r << ": " << first[r].error);
            CHECK(first[r].code == COCONET_ERR_INVALID);
            CHECK_THAT(first[r].error,
                       Contains(", rank " + std::to_string(r) + " of 2 (threads): rank " +
                                std::to_string(r) + ": ") &&
                           Contains("must make the same collective calls in the same order"));
            CHECK(second[r].code == COCONET_ERR_ABORTED);
        }
        CHECK_THAT(first[0].error, Contains("fused reduce_scatter 'g_sum_rs': rank 1 called "
                                            "all_reduce 'summed' at the same time"));
        CHECK_THAT(first[1].error, Contains("all_reduce 'summed': rank 0 called fused "
                                            "reduce_scatter 'g_sum_rs' at the same time"));
    }
    SECTION("rank 0 runs adam twice, rank 1 once") {
        const auto start = std::chrono::steady_clock::now();
        const std::vector<RankResult> results =
            on_thread_ranks(2, timeout, [&](int r, coconet_comm *comm) -> int {
                const int rc = run(adam, r, comm);
                return rc == COCONET_OK && r == 0 ? run(adam, r, comm) : rc;
            });
        CHECK(seconds_since(start) < timeout + 5.0);
        CHECK(results[1].code == COCONET_OK);
        CHECK(results[0].code == COCONET_ERR_TIMEOUT);
        CHECK_THAT(results[0].error, Contains("rank 0: fused reduce_scatter 'g_sum_rs' timed out "
                                              "after 1.0 s waiting for rank 1"));
    }
    SECTION("rank 0 runs the MLP, rank 1 waits at a barrier") {
        const std::vector<RankResult> results =
            on_thread_ranks(2, timeout, [&](int r, coconet_comm *comm) -> int {
                return r == 0 ? run(mlp, r, comm) : coconet_barrier(comm, "checkpoint");
            });
        // They meet, and both are refused at once (not after the timeout),
        // each naming the other's call.
        CHECK(results[0].code == COCONET_ERR_INVALID);
        CHECK(results[1].code == COCONET_ERR_INVALID);
        CHECK_THAT(results[0].error, Contains("rank 0: all_reduce 'summed': rank 1 called "
                                              "barrier 'checkpoint' at the same time"));
        CHECK_THAT(results[1].error, Contains("rank 1: barrier 'checkpoint': rank 0 called "
                                              "all_reduce 'summed' at the same time"));
    }
    SECTION("rank 0 releases the MLP while rank 1 runs it") {
        const auto start = std::chrono::steady_clock::now();
        const std::vector<RankResult> results =
            on_thread_ranks(2, timeout, [&](int r, coconet_comm *comm) -> int {
                return r == 0 ? coconet_aot_release(comm, mlp) : run(mlp, r, comm);
            });
        // Refused at once on both ranks, each naming the other's call.
        CHECK(seconds_since(start) < timeout);
        CHECK(results[0].code == COCONET_ERR_INVALID);
        CHECK(results[1].code == COCONET_ERR_INVALID);
        CHECK_THAT(results[0].error,
                   Contains("rank 0: barrier 'coconet_aot_release of aot_megatron_mlp_none': "
                            "rank 1 called all_reduce 'summed' at the same time"));
        CHECK_THAT(results[1].error, Contains("rank 1: all_reduce 'summed': rank 0 called barrier "
                                              "'coconet_aot_release of aot_megatron_mlp_none'"));
    }
}

namespace {

// m (Sliced(0), 10 elements) doubled and gathered.
Program gathered_double() {
    DFunc m = input("m", Halide::Float(32), {10}, Sliced(0));
    Halide::Var i;
    DFunc twice("twice");
    twice(i) = m(i) * 2.0f;
    Program p("gathered_double");
    p.output(all_gather(twice), Replicated());
    return p;
}

// x (Local, 10 elements) summed over the ranks.
Program summed() {
    DFunc x = input("x", Halide::Float(32), {10}, Local());
    Program p("summed");
    p.output(all_reduce(x), Replicated());
    return p;
}

// Sets an environment variable for the scope, then restores it.
struct ScopedEnv {
    ScopedEnv(const char *name, const char *value) : name(name) {
        if (const char *old = std::getenv(name)) {
            previous = old;
            had = true;
        }
        setenv(name, value, 1);
    }
    ~ScopedEnv() {
        if (had) {
            setenv(name, previous.c_str(), 1);
        } else {
            unsetenv(name);
        }
    }
    const char *name;
    std::string previous;
    bool had = false;
};

} // namespace

TEST_CASE("JIT: world sizes below 1 are refused", "[error]") {
    const Program p = gathered_double();
    JitProgram jit(p);
    for (int size : {0, -1, INT_MIN}) {
        const std::string text = "world size " + std::to_string(size) + " < 1";
        CHECK_THAT(message_of<UserError>([&] { jit.run_threads(size, {}); }),
                   Contains("run_threads: " + text));
        CHECK_THAT(message_of<UserError>([&] { make_inputs(p, size); }),
                   Contains("make_inputs(gathered_double): " + text));
    }
}

TEST_CASE("JIT: inputs of the wrong box, type, dimensions or layout are refused", "[error]") {
    const Program p = gathered_double();
    JitProgram jit(p);
    const std::string rank1 = "Program gathered_double, rank 1";
    auto refused = [&](const std::function<void(Halide::Buffer<> &)> &spoil) {
        std::vector<RankBuffers> inputs = make_inputs(p, 3);
        spoil(inputs[1]["m"]);
        return message_of<UserError>([&] { jit.run_threads(3, inputs); });
    };
    // Rank 1 holds [4, 8).
    CHECK_THAT(refused([](Halide::Buffer<> &m) { m.set_min(std::vector<int>{5}); }),
               Contains(rank1 + " of 3: input m is Sliced(0) with global extents [0..10], so this "
                                "rank must pass the box [4..8], but its buffer is [5..9]"));
    CHECK_THAT(refused([](Halide::Buffer<> &m) { m = Halide::Buffer<float>(5); }),
               Contains("must pass the box [4..8], but its buffer is [0..5]"));
    CHECK_THAT(refused([](Halide::Buffer<> &m) { m = Halide::Buffer<float>(4, 1); }),
               Contains(rank1 + ": input m has 2 dimensions, expected 1"));
    CHECK_THAT(refused([](Halide::Buffer<> &m) { m = Halide::Buffer<double>(4); }),
               Contains(rank1 + ": input m has element type float64, expected float32"));
    CHECK_THAT(refused([](Halide::Buffer<> &m) { m = Halide::Buffer<>(); }),
               Contains(rank1 + ": no buffer for input m"));

    // The executor's checks reach JIT runs too: a reversed buffer.
    std::vector<RankBuffers> inputs = make_inputs(p, 1);
    Halide::Buffer<float> reversed(*inputs[0]["m"].raw_buffer());
    reversed = reversed.copy();
    reversed.raw_buffer()->dim[0].stride = -1;
    reversed.raw_buffer()->host += 9 * sizeof(float);
    inputs[0]["m"] = reversed;
    try {
        jit.run_threads(1, inputs);
        FAIL("a negative stride ran");
    } catch (const RuntimeError &e) {
        CHECK(e.code() == COCONET_ERR_INVALID);
        CHECK_THAT(e.what(), Contains("gathered_double, rank 0 of 1 (threads): input 'm' (float32, "
                                      "Sliced(0)): dimension 0 has stride -1"));
    }
}

TEST_CASE("JIT: a rank's bad input stops its peers at once, naming it", "[error]") {
    const Program p = gathered_double();
    JitProgram jit(p);
    std::vector<RankBuffers> inputs = make_inputs(p, 3);
    inputs[1]["m"] = Halide::Buffer<double>(4);
    const auto start = std::chrono::steady_clock::now();
    std::string refused;
    const std::vector<RankResult> results =
        on_thread_ranks(3, 30.0, [&](int r, coconet_comm *comm) -> int {
            try {
                jit.run_rank(comm, inputs[r]);
            } catch (const UserError &e) {
                refused = e.what(); // rank 1 alone
                return COCONET_ERR_INVALID;
            } catch (const RuntimeError &e) {
                return e.code();
            }
            return COCONET_OK;
        });
    CHECK(seconds_since(start) < 10.0); // not the 30 s timeout
    CHECK_THAT(refused, Contains("rank 1: input m has element type float64, expected float32"));
    for (int r : {0, 2}) {
        INFO("rank " << r << ": " << results[r].error);
        CHECK(results[r].code == COCONET_ERR_ABORTED);
        CHECK_THAT(results[r].error,
                   Contains("rank 1 failed: ") && Contains("input m has element type float64"));
    }
}

TEST_CASE("JIT: a null or destroyed communicator is refused without being read", "[error]") {
    const Program p = summed();
    JitProgram jit(p);
    const std::vector<RankBuffers> inputs = make_inputs(p, 1);
    CHECK_THAT(message_of<UserError>([&] { jit.run_rank(nullptr, inputs[0]); }),
               Contains("Program summed: null communicator"));
    coconet_threads_world *world = coconet_threads_world_create(1, 5.0);
    coconet_comm *comm = coconet_threads_world_comm(world, 0);
    coconet_threads_world_destroy(world);
    CHECK_THAT(message_of<UserError>([&] { jit.run_rank(comm, inputs[0]); }),
               Contains("Program summed: the communicator does not exist (destroyed, or not a "
                        "communicator)"));
}

TEST_CASE("JIT: ranks running different programs fail naming the mismatch", "[error]") {
    const Program a = summed(), b = gathered_double();
    JitProgram jit_a(a), jit_b(b);
    const std::vector<RankBuffers> in_a = make_inputs(a, 2), in_b = make_inputs(b, 2);
    const auto start = std::chrono::steady_clock::now();
    const std::vector<RankResult> results =
        on_thread_ranks(2, 2.0, [&](int r, coconet_comm *comm) -> int {
            try {
                r == 0 ? jit_a.run_rank(comm, in_a[r]) : jit_b.run_rank(comm, in_b[r]);
            } catch (const RuntimeError &e) {
                coconet_comm_abort(comm, e.what());
                return e.code();
            }
            return COCONET_OK;
        });
    CHECK(seconds_since(start) < 2.0 + 5.0);
    for (int r = 0; r < 2; r++) {
        INFO("rank " << r << ": " << results[r].error);
        CHECK(results[r].code == COCONET_ERR_INVALID);
        CHECK_THAT(results[r].error,
                   Contains("must make the same collective calls in the same order"));
    }
}

TEST_CASE("COCONET_TIMEOUT_S garbage warns and keeps the requested timeout", "[error]") {
    const Program p = summed();
    JitProgram jit(p);
    const std::vector<RankBuffers> inputs = make_inputs(p, 2);
    const std::vector<RankBuffers> want = Reference(p).run(2, inputs);
    const Program mlp = apps::aot_program_source(aot_megatron_mlp_none_program());
    const std::vector<RankBuffers> mlp_in = inputs_for(aot_megatron_mlp_none_program(), 2);
    for (const char *garbage : {"abc", "", "-1", "0", "nan", "-inf", "10s", " ", "1e99"}) {
        INFO("COCONET_TIMEOUT_S='" << garbage << "'");
        ScopedEnv env("COCONET_TIMEOUT_S", garbage);
        // A JIT run computes the reference's result.
        CHECK(max_abs_diff(jit.run_threads(2, inputs, 1.0), want) == 0.0);
        // A rank that never calls is a timeout after the requested second, not
        // a hang (1e99 is capped at a day: only its value is checked).
        const bool huge = std::string(garbage) == "1e99";
        const auto start = std::chrono::steady_clock::now();
        std::vector<double> timeouts(2);
        const std::vector<RankResult> results =
            on_thread_ranks(2, 1.0, [&](int r, coconet_comm *comm) -> int {
                timeouts[r] = coconet_comm_timeout(comm);
                if (r == 1 || huge) {
                    return COCONET_OK;
                }
                Call call(aot_megatron_mlp_none_program(), mlp_in[r], r, 2);
                return library(aot_megatron_mlp_none_program()).entry(comm, call.args.data());
            });
        CHECK(seconds_since(start) < 1.0 + 5.0);
        CHECK(timeouts == std::vector<double>(2, huge ? 86400.0 : 1.0));
        if (!huge) {
            CHECK(results[0].code == COCONET_ERR_TIMEOUT);
            CHECK_THAT(results[0].error, Contains("rank 0: all_reduce 'summed' timed out after "
                                                  "1.0 s waiting for rank 1"));
        }
    }
}
