#include "AotRunner.h"

#include <thread>

#include "Generator.h"

namespace coconet {
namespace apps {

RankBuffers allocate_aot_outputs(const coconet_aot_program *p, int rank, int size) {
    RankBuffers out;
    for (int i = p->ninputs; i < p->ninputs + p->noutputs; i++) {
        const coconet_value_info &v = p->values[p->args[i]];
        int32_t min[4], extent[4];
        coconet_arg_box(p, i, rank, size, min, extent);
        std::vector<Range> box;
        for (int d = 0; d < v.dims; d++) {
            box.push_back(Range{min[d], (int64_t)min[d] + extent[d]});
        }
        out[v.name] =
            allocate_box(Halide::Type((halide_type_code_t)v.type_code, v.type_bits, 1), box);
    }
    return out;
}

WindowMemory::~WindowMemory() {
    for (void *block : blocks_) {
        coconet_mpi_free(comm_, block);
    }
}

Halide::Buffer<> WindowMemory::place(const Halide::Buffer<> &b) {
    void *block = coconet_mpi_alloc(comm_, b.size_in_bytes());
    if (!block) {
        throw RuntimeError(coconet_comm_last_error(comm_));
    }
    blocks_.push_back(block);
    std::vector<halide_dimension_t> dims(b.raw_buffer()->dim, b.raw_buffer()->dim + b.dimensions());
    Halide::Buffer<> placed(b.type(), block, b.dimensions(), dims.data());
    placed.copy_from(b);
    return placed;
}

RankBuffers run_aot_rank(const coconet_aot_program *p, coconet_comm *comm,
                         const RankBuffers &inputs, WindowMemory *window) {
    RankBuffers in = inputs;
    RankBuffers out = allocate_aot_outputs(p, coconet_comm_rank(comm), coconet_comm_size(comm));
    // Every rank places the same names in the same (map) order.
    for (RankBuffers *buffers : {&in, &out}) {
        for (auto it = buffers->begin(); window && it != buffers->end(); ++it) {
            it->second = window->place(it->second);
        }
    }
    std::vector<halide_buffer_t *> args;
    for (int i = 0; i < p->ninputs + p->noutputs; i++) {
        const char *name = p->values[p->args[i]].name;
        RankBuffers &from = i < p->ninputs ? in : out;
        auto it = from.find(name);
        coconet_user_assert(it != from.end()) << p->name << ": no buffer for input " << name
                                              << " on rank " << coconet_comm_rank(comm) << ".";
        args.push_back(it->second.raw_buffer());
    }
    if (coconet_aot_run(comm, p, args.data()) != COCONET_OK) {
        throw RuntimeError(coconet_comm_last_error(comm));
    }
    return out;
}

void run_on_ranks(const std::vector<coconet_comm *> &comms,
                  const std::function<void(coconet_comm *)> &body) {
    std::vector<std::string> errors(comms.size());
    std::vector<std::thread> threads;
    for (size_t r = 0; r < comms.size(); r++) {
        threads.emplace_back([&, r] {
            try {
                body(comms[r]);
            } catch (const std::exception &e) {
                errors[r] = e.what();
                coconet_comm_abort(comms[r], e.what());
            }
        });
    }
    for (std::thread &t : threads) {
        t.join();
    }
    // Report a rank that failed first, not one that stopped because of it.
    std::string report;
    for (const std::string &e : errors) {
        if (!e.empty() && (report.empty() || report.find("aborted") != std::string::npos)) {
            report = e;
        }
    }
    if (!report.empty()) {
        throw RuntimeError(report);
    }
}

void run_on_thread_ranks(int world_size, double timeout_seconds,
                         const std::function<void(coconet_comm *)> &body) {
    std::unique_ptr<coconet_threads_world, void (*)(coconet_threads_world *)> world(
        coconet_threads_world_create(world_size, timeout_seconds), coconet_threads_world_destroy);
    coconet_user_assert(world) << "cannot make a world of " << world_size << " thread ranks.";
    std::vector<coconet_comm *> comms;
    for (int r = 0; r < world_size; r++) {
        comms.push_back(coconet_threads_world_comm(world.get(), r));
    }
    run_on_ranks(comms, body);
}

std::vector<RankBuffers> run_aot_ranks(const coconet_aot_program *p,
                                       const std::vector<coconet_comm *> &comms,
                                       const std::vector<RankBuffers> &inputs) {
    std::vector<RankBuffers> outputs(comms.size());
    run_on_ranks(comms, [&](coconet_comm *comm) {
        const int r = coconet_comm_rank(comm);
        outputs[r] = run_aot_rank(p, comm, inputs.at(r));
    });
    return outputs;
}

std::vector<RankBuffers> run_aot_threads(const coconet_aot_program *p, int world_size,
                                         const std::vector<RankBuffers> &inputs,
                                         double timeout_seconds) {
    std::vector<RankBuffers> outputs(world_size);
    run_on_thread_ranks(world_size, timeout_seconds, [&](coconet_comm *comm) {
        const int r = coconet_comm_rank(comm);
        outputs[r] = run_aot_rank(p, comm, inputs.at(r));
    });
    return outputs;
}

Program aot_program_source(const coconet_aot_program *p) {
    std::unique_ptr<Generator> g = GeneratorRegistry::create(p->generator);
    g->set_params(p->params);
    return g->build();
}

InputMaker inputs_for_generator(const std::string &generator) {
    return generator == "adam" || generator == "lamb" ? InputMaker(optimizer_inputs)
                                                      : InputMaker(make_inputs);
}

} // namespace apps
} // namespace coconet
