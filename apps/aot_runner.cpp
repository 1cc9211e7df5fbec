#include "AotRunner.h"

#include <cstring>
#include <thread>

#include "Generator.h"

namespace coconet {
namespace apps {

std::vector<int32_t> table_sizes(const coconet_aot_program *p, const Sizes &sizes) {
    std::vector<int32_t> values;
    for (int k = 0; k < p->nsizes; k++) {
        auto it = sizes.find(p->size_names[k]);
        coconet_user_assert(it != sizes.end()) << p->name << " takes the run-time size "
                                               << p->size_names[k] << ", which was not given.";
        values.push_back(it->second);
    }
    return values;
}

Halide::Buffer<> allocate_aot_arg(const coconet_aot_program *p, int i, int rank, int size,
                                  const Sizes &sizes) {
    const coconet_value_info &v = p->values[p->args[i]];
    int32_t min[4], extent[4];
    const std::vector<int32_t> values = table_sizes(p, sizes);
    if (coconet_arg_box_sized(p, values.data(), i, rank, size, min, extent) != COCONET_OK) {
        throw UserError(coconet_comm_last_error(nullptr));
    }
    std::vector<Range> box;
    for (int d = 0; d < v.dims; d++) {
        box.push_back(Range{min[d], (int64_t)min[d] + extent[d]});
    }
    return allocate_box(Halide::Type((halide_type_code_t)v.type_code, v.type_bits, 1), box);
}

RankBuffers allocate_aot_outputs(const coconet_aot_program *p, int rank, int size,
                                 const Sizes &sizes) {
    RankBuffers out;
    for (int i = p->ninputs; i < p->ninputs + p->noutputs; i++) {
        out[p->values[p->args[i]].name] = allocate_aot_arg(p, i, rank, size, sizes);
    }
    return out;
}

WindowMemory::~WindowMemory() {
    for (void *block : blocks_) {
        coconet_mpi_free(comm_, block);
    }
}

Halide::Buffer<> WindowMemory::place(const Halide::Buffer<> &b, bool) {
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

DeviceMemory::DeviceMemory(const coconet_aot_program *p, coconet_comm *comm)
    : device_(p->device_interface), comm_(comm) {
    coconet_user_assert(device_) << p->name
                                 << " is built for the host: it has no device to "
                                    "place buffers on.";
}

DeviceMemory::~DeviceMemory() {
    for (Halide::Buffer<> &b : placed_) {
        (void)b.get()->device_free(comm_);
    }
}

namespace {

void check_device(int status, const char *what, coconet_comm *comm) {
    if (status != 0) {
        throw RuntimeError(std::string(what) + " failed on rank " +
                           std::to_string(coconet_comm_rank(comm)) + " (Halide error " +
                           std::to_string(status) + ")");
    }
}

} // namespace

Halide::Buffer<> DeviceMemory::place(const Halide::Buffer<> &b, bool input) {
    Halide::Buffer<> d = b.copy();
    if (d.number_of_elements() == 0) {
        return d;
    }
    if (input) {
        d.set_host_dirty();
        check_device(d.get()->copy_to_device(device_, comm_), "copying an input to the device",
                     comm_);
        std::memset(d.data(), 0xff, d.size_in_bytes());
        d.set_device_dirty(true);
    } else {
        check_device(d.get()->device_malloc(device_, comm_), "allocating an output on the device",
                     comm_);
    }
    placed_.push_back(d);
    return d;
}

void DeviceMemory::collect(RankBuffers &outputs) {
    for (auto &[name, b] : outputs) {
        if (b.number_of_elements() == 0) {
            continue;
        }
        if (!b.raw_buffer()->device_dirty()) {
            throw RuntimeError("output " + name + " of rank " +
                               std::to_string(coconet_comm_rank(comm_)) +
                               " is not newest on the device after the call");
        }
        check_device(b.get()->copy_to_host(comm_), "copying an output to the host", comm_);
    }
}

RankBuffers run_aot_rank(const coconet_aot_program *p, coconet_comm *comm,
                         const RankBuffers &inputs, BufferPlacement *placement,
                         const Sizes &sizes) {
    RankBuffers in = inputs;
    RankBuffers out =
        allocate_aot_outputs(p, coconet_comm_rank(comm), coconet_comm_size(comm), sizes);
    // Every rank places the same names in the same (map) order.
    for (RankBuffers *buffers : {&in, &out}) {
        for (auto it = buffers->begin(); placement && it != buffers->end(); ++it) {
            it->second = placement->place(it->second, buffers == &in);
        }
    }
    std::vector<halide_buffer_t *> args;
    // An empty box is passed with no memory, as Halide::Runtime::Buffer
    // makes it (and Halide would take it for a bounds query).
    std::vector<Halide::Buffer<>> empty;
    empty.reserve(p->ninputs + p->noutputs);
    for (int i = 0; i < p->ninputs + p->noutputs; i++) {
        const char *name = p->values[p->args[i]].name;
        RankBuffers &from = i < p->ninputs ? in : out;
        auto it = from.find(name);
        coconet_user_assert(it != from.end()) << p->name << ": no buffer for input " << name
                                              << " on rank " << coconet_comm_rank(comm) << ".";
        halide_buffer_t *b = it->second.raw_buffer();
        if (it->second.number_of_elements() == 0 && !b->device) {
            b = empty.emplace_back(it->second.type(), nullptr, b->dimensions, b->dim).raw_buffer();
        }
        args.push_back(b);
    }
    const std::vector<int32_t> values = table_sizes(p, sizes);
    if (coconet_aot_run_sized(comm, p, values.data(), args.data()) != COCONET_OK) {
        throw RuntimeError(coconet_comm_last_error(comm));
    }
    if (placement) {
        placement->collect(out);
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
    ThreadWorld(world_size, timeout_seconds).run(body);
}

std::vector<RankBuffers> run_aot_threads(const coconet_aot_program *p, int world_size,
                                         const std::vector<RankBuffers> &inputs,
                                         double timeout_seconds, const Sizes &sizes) {
    std::vector<RankBuffers> outputs(world_size);
    run_on_thread_ranks(world_size, timeout_seconds, [&](coconet_comm *comm) {
        const int r = coconet_comm_rank(comm);
        outputs[r] = run_aot_rank(p, comm, inputs.at(r), nullptr, sizes);
    });
    return outputs;
}

Program aot_program_source(const coconet_aot_program *p) {
    std::unique_ptr<Generator> g = GeneratorRegistry::create(p->generator);
    g->set_params(p->params);
    return g->build();
}

namespace {

bool is_optimizer(const std::string &generator) {
    return generator == "adam" || generator == "lamb";
}

} // namespace

InputMaker inputs_for_generator(const std::string &generator) {
    return is_optimizer(generator) ? InputMaker(optimizer_inputs) : InputMaker(make_inputs);
}

std::vector<RankBuffers> library_inputs(const coconet_aot_program *p, const Program &program,
                                        int world_size, const Sizes &sizes) {
    std::vector<RankBuffers> inputs = make_sized_inputs(program, world_size, sizes, 1);
    if (is_optimizer(p->generator)) {
        make_second_moments_nonnegative(inputs);
    }
    return inputs;
}

} // namespace apps
} // namespace coconet
