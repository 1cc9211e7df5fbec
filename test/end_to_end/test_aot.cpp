// AOT libraries (add_coconet_library): the typed entry point, a library built
// for a fixed rank count, and the errors of bad calls and bad generator
// parameters. The apps' libraries are checked against the reference on
// thread ranks and under mpirun by coconet_aot_app (ctest -L aot).
#include <catch2/catch.hpp>

#include <chrono>
#include <map>
#include <set>
#include <string>

#include "AotCompile.h"
#include "AotRunner.h"
#include "AotSource.h"
#include "Generator.h"
#include "ThreadRanks.h"
#include "aot_adam.h"
#include "aot_adam_none.h"
#include "aot_adam_r3.h"
#include "aot_adam_shapes.h"
#include "aot_megatron_mlp_none.h"

using namespace coconet;

namespace {

// Rank r's buffers for aot_adam's arguments, from the reference's inputs.
struct AdamCall {
    RankBuffers in, out;
    std::vector<halide_buffer_t *> args;

    AdamCall(const coconet_aot_program *p, const RankBuffers &inputs, int rank, int size)
        : in(inputs), out(apps::allocate_aot_outputs(p, rank, size)) {
        for (const char *name : {"g", "w", "m", "v"}) {
            args.push_back(in.at(name).raw_buffer());
        }
        for (const char *name : {"w_new", "m_new", "v_new"}) {
            args.push_back(out.at(name).raw_buffer());
        }
    }
    int call(coconet_comm *comm) {
        return aot_adam(comm, args[0], args[1], args[2], args[3], args[4], args[5], args[6]);
    }
};

// Runs library p on this rank; its status (the error code of a failure).
int run_status(const coconet_aot_program *p, coconet_comm *comm, const RankBuffers &in) {
    try {
        apps::run_aot_rank(p, comm, in);
        return 0;
    } catch (const RuntimeError &) {
        return coconet_comm_last_error_code(comm);
    }
}

// Runs `body(rank, comm)` on every thread rank and returns each one's status;
// a rank that fails aborts the world with its error.
template<typename F>
std::vector<int> on_thread_ranks(int size, F body) {
    std::vector<int> status(size);
    coconet_test::run_thread_ranks(size, 5.0, [&](int r, coconet_comm *comm) {
        status[r] = body(r, comm);
        if (status[r] != 0) {
            coconet_comm_abort(comm, coconet_comm_last_error(comm));
        }
    });
    return status;
}

} // namespace

TEST_CASE("the typed entry point equals the reference on 1, 3 and 4 ranks", "[aot]") {
    const Program program = apps::aot_program_source(aot_adam_program());
    for (int size : {1, 3, 4}) {
        const std::vector<RankBuffers> inputs = apps::optimizer_inputs(program, size, 5);
        const std::vector<RankBuffers> expected = Reference(program).run(size, inputs);
        std::vector<RankBuffers> got(size);
        const std::vector<int> status = on_thread_ranks(size, [&](int r, coconet_comm *comm) {
            AdamCall c(aot_adam_program(), inputs[r], r, size);
            const int s = c.call(comm);
            got[r] = c.out;
            return s;
        });
        REQUIRE(status == std::vector<int>(size, 0));
        CHECK(max_abs_diff(got, expected) == 0.0);
        CHECK(replicated_mismatches(program, got).empty());
    }
}

TEST_CASE("buffers that start at 0 are taken as the rank's box", "[aot]") {
    const Program program = apps::aot_program_source(aot_adam_program());
    const int size = 3;
    const std::vector<RankBuffers> inputs = apps::optimizer_inputs(program, size, 2);
    const std::vector<RankBuffers> expected = Reference(program).run(size, inputs);
    std::vector<RankBuffers> got(size);
    on_thread_ranks(size, [&](int r, coconet_comm *comm) {
        RankBuffers in = inputs[r];
        for (auto &kv : in) {
            kv.second.set_min(std::vector<int>(kv.second.dimensions(), 0));
        }
        got[r] = apps::run_aot_rank(aot_adam_program(), comm, in);
        return 0;
    });
    CHECK(max_abs_diff(got, expected) == 0.0);
}

TEST_CASE("a buffer of the wrong box is refused on every rank, naming it", "[aot][error]") {
    const Program program = apps::aot_program_source(aot_adam_program());
    const int size = 3;
    const std::vector<RankBuffers> inputs = apps::optimizer_inputs(program, size, 1);
    std::vector<std::string> errors(size);
    const std::vector<int> status = on_thread_ranks(size, [&](int r, coconet_comm *comm) {
        AdamCall c(aot_adam_program(), inputs[r], r, size);
        // m is Sliced(0): give rank 1 the whole value instead of its slice.
        Halide::Buffer<float> whole(1000);
        if (r == 1) {
            c.args[2] = whole.raw_buffer();
        }
        const int s = c.call(comm);
        errors[r] = coconet_comm_last_error(comm);
        return s;
    });
    CHECK(status[1] == COCONET_ERR_INVALID);
    CHECK_THAT(errors[1],
               Catch::Contains("aot_adam, rank 1 of 3") &&
                   Catch::Contains("input 'm' (float32, Sliced(0)) of global shape [1000]") &&
                   Catch::Contains("this rank's box is [334..668]") &&
                   Catch::Contains("the buffer covers [0..1000]"));
}

TEST_CASE("wrong types, dimensions and missing buffers are refused", "[aot][error]") {
    const Program program = apps::aot_program_source(aot_adam_program());
    const std::vector<RankBuffers> inputs = apps::optimizer_inputs(program, 1, 1);
    on_thread_ranks(1, [&](int r, coconet_comm *comm) {
        AdamCall c(aot_adam_program(), inputs[r], r, 1);
        Halide::Buffer<int32_t> ints(1000);
        Halide::Buffer<float> matrix(1000, 2);
        c.args[0] = ints.raw_buffer();
        CHECK(c.call(comm) == COCONET_ERR_INVALID);
        CHECK_THAT(std::string(coconet_comm_last_error(comm)),
                   Catch::Contains("input 'g' (float32, Local): the buffer holds int32"));
        c.args[0] = matrix.raw_buffer();
        CHECK(c.call(comm) == COCONET_ERR_INVALID);
        CHECK_THAT(std::string(coconet_comm_last_error(comm)),
                   Catch::Contains("the buffer has 2 dimensions, the value 1"));
        c.args[4] = nullptr;
        c.args[0] = c.in.at("g").raw_buffer();
        CHECK(c.call(comm) == COCONET_ERR_INVALID);
        CHECK_THAT(std::string(coconet_comm_last_error(comm)),
                   Catch::Contains("output 'w_new' (float32, Replicated): the buffer is NULL"));
        return 0;
    });
}

TEST_CASE("strides, spans and buffers without memory are refused", "[aot][error]") {
    const Program program = apps::aot_program_source(aot_adam_program());
    const std::vector<RankBuffers> inputs = apps::optimizer_inputs(program, 1, 1);
    on_thread_ranks(1, [&](int r, coconet_comm *comm) {
        AdamCall c(aot_adam_program(), inputs[r], r, 1);
        auto refused = [&](const std::string &message) {
            CHECK(c.call(comm) == COCONET_ERR_INVALID);
            CHECK_THAT(std::string(coconet_comm_last_error(comm)), Catch::Contains(message));
        };
        halide_buffer_t g = *c.args[0];
        halide_dimension_t dim = g.dim[0];
        g.dim = &dim;
        c.args[0] = &g;
        dim.stride = -1;
        refused("input 'g' (float32, Local): dimension 0 has stride -1; the runtime takes "
                "positive strides");
        dim.stride = 0;
        refused("dimension 0 has stride 0");
        dim.stride = 1;
        g.host = nullptr;
        refused("input 'g' (float32, Local): the buffer has no memory (host is NULL");
        return 0;
    });
}

TEST_CASE("non-dense strides compute the reference's result", "[aot]") {
    const Program program = apps::aot_program_source(aot_adam_program());
    const std::vector<RankBuffers> inputs = apps::optimizer_inputs(program, 2, 1);
    const std::vector<RankBuffers> want = Reference(program).run(2, inputs);
    std::vector<RankBuffers> got(2);
    on_thread_ranks(2, [&](int r, coconet_comm *comm) {
        AdamCall c(aot_adam_program(), inputs[r], r, 2);
        // Every input and output every other element of a buffer twice as long.
        std::vector<Halide::Buffer<float>> wide;
        wide.reserve(2 * c.args.size()); // args point into it
        for (size_t i = 0; i < c.args.size(); i++) {
            const halide_dimension_t d = c.args[i]->dim[0];
            Halide::Buffer<float> b(2 * d.extent);
            b.fill(-1.0f);
            halide_dimension_t strided(d.min, d.extent, 2);
            Halide::Buffer<float> view(b.data(), 1, &strided);
            if (i < 4) {
                Halide::Buffer<float> in(*c.args[i]);
                view.for_each_element([&](int x) { view(x) = in(x); });
            }
            wide.push_back(b);
            wide.push_back(view);
            c.args[i] = wide.back().raw_buffer();
        }
        const int rc = c.call(comm);
        for (const char *name : {"w_new", "m_new", "v_new"}) {
            Halide::Buffer<float> dense(*c.out.at(name).raw_buffer());
            Halide::Buffer<float> view(*c.args[4 + (name[0] == 'm') + 2 * (name[0] == 'v')]);
            view.for_each_element([&](int x) { dense(x) = view(x); });
        }
        got[r] = c.out;
        return rc;
    });
    CHECK(max_abs_diff(got, want) == 0.0);
}

TEST_CASE("a destroyed communicator is refused, not read", "[aot][error]") {
    coconet_threads_world *world = coconet_threads_world_create(1, 5.0);
    coconet_comm *comm = coconet_threads_world_comm(world, 0);
    coconet_threads_world_destroy(world);
    // The pointer is checked against the live communicators before any use.
    CHECK(aot_adam(comm, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr) ==
          COCONET_ERR_INVALID);
    CHECK(coconet_aot_run(nullptr, nullptr, nullptr) == COCONET_ERR_INVALID);
}

TEST_CASE("ranks calling different libraries fail naming the mismatch, never hang",
          "[aot][error]") {
    const Program adam = apps::aot_program_source(aot_adam_program());
    const Program mlp = apps::aot_program_source(aot_megatron_mlp_none_program());
    const std::vector<RankBuffers> adam_in = apps::optimizer_inputs(adam, 3, 1);
    const std::vector<RankBuffers> mlp_in =
        apps::inputs_for_generator(aot_megatron_mlp_none_program()->generator)(mlp, 3, 1);
    std::vector<std::string> errors(3);
    const auto start = std::chrono::steady_clock::now();
    const std::vector<int> status = on_thread_ranks(3, [&](int r, coconet_comm *comm) {
        coconet_comm_set_timeout(comm, 2.0);
        int rc = 0;
        if (r == 1) {
            rc = run_status(aot_megatron_mlp_none_program(), comm, mlp_in[r]);
        } else {
            AdamCall c(aot_adam_program(), adam_in[r], r, 3);
            rc = c.call(comm);
        }
        errors[r] = coconet_comm_last_error(comm);
        return rc;
    });
    const double took =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    CHECK(took < 2.0 + 5.0);
    for (int r = 0; r < 3; r++) {
        INFO("rank " << r << ": " << errors[r]);
        CHECK(status[r] != 0);
        CHECK_THAT(errors[r], Catch::Contains("rank " + std::to_string(r)));
    }
    // The ranks that met name the other call.
    CHECK_THAT(errors[0] + errors[1] + errors[2],
               Catch::Contains("must make the same collective calls in the same order"));
}

TEST_CASE("a collective failing inside a library's pipeline is an error, not an abort",
          "[aot][error]") {
    // Rank 1 never calls: rank 0 times out inside the Halide pipeline's
    // collective (Halide's default error handler would end the process).
    const Program mlp = apps::aot_program_source(aot_megatron_mlp_none_program());
    const std::vector<RankBuffers> in =
        apps::inputs_for_generator(aot_megatron_mlp_none_program()->generator)(mlp, 2, 1);
    std::string error;
    const std::vector<int> status = on_thread_ranks(2, [&](int r, coconet_comm *comm) {
        coconet_comm_set_timeout(comm, 1.0);
        if (r == 1) {
            return 0;
        }
        const int rc = run_status(aot_megatron_mlp_none_program(), comm, in[r]);
        error = coconet_comm_last_error(comm);
        return rc;
    });
    CHECK(status[0] == COCONET_ERR_TIMEOUT);
    CHECK_THAT(error, Catch::Contains("rank 0: all_reduce 'summed' timed out after 1.0 s waiting "
                                      "for rank 1"));
}

TEST_CASE("an output that shares memory with another argument is refused", "[aot][error]") {
    const Program program = apps::aot_program_source(aot_adam_program());
    const std::vector<RankBuffers> inputs = apps::optimizer_inputs(program, 1, 1);
    on_thread_ranks(1, [&](int r, coconet_comm *comm) {
        AdamCall c(aot_adam_program(), inputs[r], r, 1);
        // An in-place update: w_new written over w, which later steps read.
        c.args[4] = c.args[1];
        CHECK(c.call(comm) == COCONET_ERR_INVALID);
        CHECK_THAT(std::string(coconet_comm_last_error(comm)),
                   Catch::Contains("output 'w_new' shares memory with input 'w'"));
        // Two outputs in one allocation, overlapping by one element.
        Halide::Buffer<float> both(1001);
        Halide::Buffer<float> m_new = both.cropped(0, 0, 1000), v_new = both.cropped(0, 1, 1000);
        m_new.set_min(0);
        v_new.set_min(0);
        c.args[4] = c.out.at("w_new").raw_buffer();
        c.args[5] = m_new.raw_buffer();
        c.args[6] = v_new.raw_buffer();
        CHECK(c.call(comm) == COCONET_ERR_INVALID);
        CHECK_THAT(std::string(coconet_comm_last_error(comm)),
                   Catch::Contains("output 'v_new' shares memory with output 'm_new'"));
        return 0;
    });
}

TEST_CASE("a library's outputs passed in the inputs they update are written in place", "[aot]") {
    // Adam unscheduled: m_new may update m and v_new v (its header's plan
    // says so); w_new is an all_gather's and may not update w.
    const coconet_aot_program *p = aot_adam_none_program();
    REQUIRE(p->in_place_of);
    CHECK(std::vector<int32_t>(p->in_place_of, p->in_place_of + 3) ==
          std::vector<int32_t>{-1, 2, 3});
    const Program program = apps::aot_program_source(p);
    for (int R : {1, 3, 4}) {
        INFO(R << " ranks");
        std::vector<RankBuffers> inputs = apps::optimizer_inputs(program, R, 5 + R);
        const std::vector<RankBuffers> expected = Reference(program).run(R, inputs);
        std::vector<RankBuffers> outputs(R);
        const std::vector<int> status = on_thread_ranks(R, [&](int r, coconet_comm *comm) {
            RankBuffers &in = inputs[r];
            outputs[r] = apps::allocate_aot_outputs(p, r, R);
            outputs[r]["m_new"] = in.at("m");
            outputs[r]["v_new"] = in.at("v");
            std::vector<halide_buffer_t *> a;
            for (const char *name : {"g", "w", "m", "v"}) {
                a.push_back(in.at(name).raw_buffer());
            }
            for (const char *name : {"w_new", "m_new", "v_new"}) {
                a.push_back(outputs[r].at(name).raw_buffer());
            }
            return aot_adam_none(comm, a[0], a[1], a[2], a[3], a[4], a[5], a[6]);
        });
        CHECK(status == std::vector<int>(R, 0));
        CHECK(max_abs_diff(outputs, expected) == 0.0);
        for (int r = 0; r < R; r++) {
            CHECK(outputs[r].at("m_new").data() == inputs[r].at("m").data());
        }
    }
    // w_new over w, and m_new one element on in m's memory: refused (each
    // aborting its world, so on one rank), naming both.
    on_thread_ranks(1, [&](int, coconet_comm *comm) {
        RankBuffers in = apps::optimizer_inputs(program, 1, 3)[0];
        RankBuffers out = apps::allocate_aot_outputs(p, 0, 1);
        CHECK(aot_adam_none(comm, in.at("g").raw_buffer(), in.at("w").raw_buffer(),
                            in.at("m").raw_buffer(), in.at("v").raw_buffer(),
                            in.at("w").raw_buffer(), out.at("m_new").raw_buffer(),
                            out.at("v_new").raw_buffer()) == COCONET_ERR_INVALID);
        CHECK_THAT(std::string(coconet_comm_last_error(comm)),
                   Catch::Contains("output 'w_new' shares memory with input 'w'; pass outputs "
                                   "that alias no other argument"));
        return 0;
    });
    on_thread_ranks(1, [&](int, coconet_comm *comm) {
        RankBuffers in = apps::optimizer_inputs(program, 1, 3)[0];
        RankBuffers out = apps::allocate_aot_outputs(p, 0, 1);
        const int n = in.at("m").dim(0).extent();
        Halide::Buffer<float> both(n + 1);
        Halide::Buffer<float> m = both.cropped(0, 0, n), m_new = both.cropped(0, 1, n);
        m_new.set_min(0);
        const int rc =
            aot_adam_none(comm, in.at("g").raw_buffer(), in.at("w").raw_buffer(), m.raw_buffer(),
                          in.at("v").raw_buffer(), out.at("w_new").raw_buffer(), m_new.raw_buffer(),
                          out.at("v_new").raw_buffer());
        CHECK(rc == COCONET_ERR_INVALID);
        CHECK_THAT(std::string(coconet_comm_last_error(comm)),
                   Catch::Contains("output 'm_new' shares memory with input 'm'; it may update "
                                   "that input in place only as the same host memory"));
        return 0;
    });
}

TEST_CASE("a library built for 3 ranks runs on 3 and refuses other counts", "[aot][error]") {
    const Program program = apps::aot_program_source(aot_adam_r3_program());
    const std::vector<RankBuffers> inputs = apps::optimizer_inputs(program, 3, 1);
    CHECK(max_abs_diff(apps::run_aot_threads(aot_adam_r3_program(), 3, inputs),
                       Reference(program).run(3, inputs)) == 0.0);
    for (int size : {1, 4}) {
        const std::vector<RankBuffers> in = apps::optimizer_inputs(program, size, 1);
        CHECK_THROWS_WITH(apps::run_aot_threads(aot_adam_r3_program(), size, in),
                          Catch::Contains("was built for 3 ranks (generator parameter ranks=3)") &&
                              Catch::Contains("the communicator has " + std::to_string(size)));
    }
}

TEST_CASE("a NULL communicator (no backend) is refused", "[aot][error]") {
    CHECK(aot_adam(nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr) ==
          COCONET_ERR_INVALID);
    if (!coconet_mpi_available()) {
        CHECK(coconet_mpi_comm_create(1.0) == nullptr);
    }
}

TEST_CASE("a table or fused call of another version is refused, naming both", "[aot][error]") {
    const Program program = apps::aot_program_source(aot_adam_program());
    const std::vector<RankBuffers> inputs = apps::optimizer_inputs(program, 1, 1);
    on_thread_ranks(1, [&](int r, coconet_comm *comm) {
        AdamCall c(aot_adam_program(), inputs[r], r, 1);
        // A table as a library generated for version 1 would hand the executor.
        coconet_aot_program old = *aot_adam_program();
        old.version = 1;
        CHECK(coconet_aot_run(comm, &old, c.args.data()) == COCONET_ERR_INVALID);
        CHECK_THAT(std::string(coconet_comm_last_error(comm)),
                   Catch::Contains("the library's table has version 1 (") &&
                       Catch::Contains("this runtime reads version " +
                                       std::to_string(COCONET_AOT_VERSION)));
        coconet_aot_program shorter = *aot_adam_program();
        shorter.size -= 8;
        CHECK(coconet_aot_run(comm, &shorter, c.args.data()) == COCONET_ERR_INVALID);
        // The same table, whole, still runs.
        CHECK(coconet_aot_run(comm, aot_adam_program(), c.args.data()) == COCONET_OK);

        coconet_fused_call call = coconet_fused_call_init();
        call.version = COCONET_FUSED_CALL_VERSION + 1;
        CHECK(coconet_fused_reduce_scatter(comm, &call) == COCONET_ERR_INVALID);
        CHECK_THAT(std::string(coconet_comm_last_error(comm)),
                   Catch::Contains("a fused call of version " +
                                   std::to_string(COCONET_FUSED_CALL_VERSION + 1)) &&
                       Catch::Contains("runtime of coconet_fused_call version " +
                                       std::to_string(COCONET_FUSED_CALL_VERSION)));
        return 0;
    });
}

TEST_CASE("generator parameters: unknown names, bad values, unknown generators", "[aot][error]") {
    std::unique_ptr<Generator> g = GeneratorRegistry::create("adam");
    CHECK_THROWS_WITH(g->set_param("size", "3"),
                      Catch::Contains("Generator adam has no GeneratorParam size; it has: ranks "
                                      "max_ranks default_schedule gpu_matmul n"));
    CHECK_THROWS_WITH(g->set_param("n", "ten"),
                      Catch::Contains("Generator adam: GeneratorParam n=ten is not an integer"));
    CHECK_THROWS_WITH(g->set_param("n", "10x"), Catch::Contains("is not an integer"));
    CHECK_THROWS_WITH(g->set_params("n"), Catch::Contains("parameter 'n' is not name=value"));
    g->set_param("schedule", "fastest");
    CHECK_THROWS_WITH(g->build(), Catch::Contains("schedule=fastest is not one of none, split"));
    std::unique_ptr<Generator> mlp = GeneratorRegistry::create("megatron_mlp");
    mlp->set_param("split_dim", "2");
    CHECK_THROWS_WITH(mlp->build(),
                      Catch::Contains("split_dim=2 is not 0 (the features) or 1 (the tokens)"));
    CHECK_THROWS_WITH(GeneratorRegistry::create("adamw"),
                      Catch::Contains("No generator named adamw is registered; there are: adam "
                                      "embedding_all_to_all gemm_all_to_all gemv_all_reduce "
                                      "lamb megatron_epilogue megatron_mlp megatron_partial "
                                      "pipeline_stage."));
}

TEST_CASE("the entry point's parameters never take a name its body or C++ reserves", "[aot]") {
    // Funcs named like the entry point's locals or like keywords: each
    // parameter gets a name of its own, so the generated source compiles.
    Halide::Param<int32_t> n("comm");
    DFunc a = input("a", Halide::Float(32), {n}, Local());
    DFunc sizes = input("sizes", Halide::Float(32), {n}, Local());
    Halide::Var i("i");
    DFunc sum("int"), program("program");
    sum(i) = a(i) + sizes(i);
    program(i) = 2.0f * sum(i);
    Program p("names");
    p.output(sum, Local()).output(program, Local());
    AotOptions options;
    options.function_name = "names";
    options.target = Halide::get_host_target();
    const std::string source = aot_source(compile_aot(p, options).plan, "names.h");
    CHECK_THAT(source,
               Catch::Contains("int names(coconet_comm *comm, int32_t comm_, "
                               "struct halide_buffer_t *a_, struct halide_buffer_t *sizes_, "
                               "struct halide_buffer_t *int_, "
                               "struct halide_buffer_t *program_)"));
    CHECK_THAT(source, Catch::Contains("const int32_t sizes[] = {comm_};"));
    CHECK_THAT(source, Catch::Contains("a[] = {a_, sizes_, int_, program_};"));
}

TEST_CASE("coconet_aot_value_in_pass names the values fused passes reach in place", "[aot]") {
    // Fused Adam reads the gradients and gathers the updated parameters (the
    // moments stay sliced); the unscheduled Megatron block has no pass.
    auto in_pass = [](const coconet_aot_program *p) {
        std::set<std::string> names;
        for (int v = 0; v < p->nvalues; v++) {
            if (coconet_aot_value_in_pass(p, v)) {
                names.insert(p->values[v].name);
            }
        }
        return names;
    };
    CHECK(in_pass(aot_adam_program()) == std::set<std::string>{"g", "w_new"});
    CHECK(in_pass(aot_megatron_mlp_none_program()).empty());
    CHECK(coconet_aot_value_in_pass(nullptr, 0) == 0);
    CHECK(coconet_aot_value_in_pass(aot_adam_program(), -1) == 0);
    CHECK(coconet_aot_value_in_pass(aot_adam_program(), aot_adam_program()->nvalues) == 0);
}

TEST_CASE("a run-time-shaped library takes its sizes at each call, the same on every rank",
          "[aot][shapes][error]") {
    const coconet_aot_program *p = aot_adam_shapes_program();
    REQUIRE(p->nsizes == 1);
    CHECK(std::string(p->size_names[0]) == "n");
    const Program program = apps::aot_program_source(p);
    for (int n : {5, 77}) {
        const Sizes sizes = {{"n", n}};
        const auto inputs = apps::library_inputs(p, program, 3, sizes);
        CHECK(max_abs_diff(apps::run_aot_threads(p, 3, inputs, 30.0, sizes),
                           Reference(program).run(3, inputs, sizes)) == 0);
    }
    // The typed entry point takes n before the buffers; coconet_aot_run
    // without sizes, and ranks giving different sizes, are refused (each
    // refusal aborts its world, so each gets a world of its own).
    const Sizes sizes = {{"n", 9}};
    auto inputs = apps::library_inputs(p, program, 2, sizes);
    auto arguments = [&](int r, RankBuffers &out) {
        out = apps::allocate_aot_outputs(p, r, 2, sizes);
        std::vector<halide_buffer_t *> args;
        for (int i = 0; i < p->ninputs + p->noutputs; i++) {
            const std::string name = p->values[p->args[i]].name;
            args.push_back((i < p->ninputs ? inputs[r].at(name) : out.at(name)).raw_buffer());
        }
        return args;
    };
    coconet_test::run_thread_ranks(2, 5.0, [&](int r, coconet_comm *comm) {
        RankBuffers out;
        const std::vector<halide_buffer_t *> a = arguments(r, out);
        CHECK(aot_adam_shapes(comm, 9, a[0], a[1], a[2], a[3], a[4], a[5], a[6]) == COCONET_OK);
    });
    std::vector<std::string> unsized(2), differ(2);
    coconet_test::run_thread_ranks(2, 5.0, [&](int r, coconet_comm *comm) {
        RankBuffers out;
        std::vector<halide_buffer_t *> a = arguments(r, out);
        CHECK(coconet_aot_run(comm, p, a.data()) == COCONET_ERR_INVALID);
        unsized[r] = coconet_comm_last_error(comm);
    });
    coconet_test::run_thread_ranks(2, 5.0, [&](int r, coconet_comm *comm) {
        RankBuffers out;
        std::vector<halide_buffer_t *> a = arguments(r, out);
        const int32_t n = r == 1 ? 10 : 9; // rank 1's buffers are those of 9
        CHECK(coconet_aot_run_sized(comm, p, &n, a.data()) == COCONET_ERR_INVALID);
        differ[r] = coconet_comm_last_error(comm);
    });
    for (int r = 0; r < 2; r++) {
        CHECK_THAT(unsized[r],
                   Catch::Contains("the program takes the run-time sizes n, but none were given"));
        CHECK_THAT(differ[r], Catch::Contains("every rank must give the same run-time sizes, but "
                                              "'n' is 9 on rank 0, 10 on rank 1"));
    }
}

TEST_CASE("a rank changing its run-time sizes alone fails with every rank, each naming the "
          "other's call",
          "[aot][shapes][error]") {
    // After a call at sizes every rank gave, ranks compare their sizes again
    // only where they change them: rank 1 alone compares, and the others
    // meet it at the program's first collective.
    const coconet_aot_program *p = aot_adam_shapes_program();
    const Program program = apps::aot_program_source(p);
    std::map<int32_t, std::vector<RankBuffers>> inputs;
    for (int32_t n : {9, 10}) {
        inputs[n] = apps::library_inputs(p, program, 2, {{"n", n}});
    }
    auto call = [&](coconet_comm *comm, int r, int32_t n) {
        RankBuffers out = apps::allocate_aot_outputs(p, r, 2, {{"n", n}});
        std::vector<halide_buffer_t *> a;
        for (int i = 0; i < p->ninputs + p->noutputs; i++) {
            const std::string name = p->values[p->args[i]].name;
            a.push_back((i < p->ninputs ? inputs[n][r].at(name) : out.at(name)).raw_buffer());
        }
        return coconet_aot_run_sized(comm, p, &n, a.data());
    };
    int agreed[2], alone[2];
    std::string msg[2];
    coconet_test::run_thread_ranks(2, 5.0, [&](int r, coconet_comm *comm) {
        agreed[r] = call(comm, r, 9);
        alone[r] = call(comm, r, r == 1 ? 10 : 9);
        msg[r] = coconet_comm_last_error(comm);
    });
    for (int r = 0; r < 2; r++) {
        INFO(msg[r]);
        CHECK(agreed[r] == COCONET_OK);
        CHECK(alone[r] == COCONET_ERR_INVALID);
    }
    CHECK_THAT(msg[0], Catch::Contains("rank 1 called all_gather 'the run-time sizes of"));
    CHECK_THAT(msg[1], Catch::Contains("rank 0 called "));
}
