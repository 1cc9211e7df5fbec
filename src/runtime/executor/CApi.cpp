// The executor's C ABI (coconet_aot.h): boxes of values and arguments, the
// questions a library's steps ask, and coconet_aot_run.
#include <sstream>

#include "core/Env.h"
#include "executor/Executor.h"

using coconet_rt::AotError;
using coconet_rt::Executor;

extern "C" {

void coconet_value_box(const coconet_value_info *v, int rank, int size, int32_t *min,
                       int32_t *extent) {
    int first = 0, count = 0;
    coconet_group_range(size, v->nsplit, v->group, &first, &count);
    const bool member = rank >= first && rank < first + count;
    for (int d = 0; d < v->dims; d++) {
        int64_t lo = 0, hi = v->extents[d];
        if (!member) {
            hi = 0;
        } else if (v->layout == COCONET_LAYOUT_SLICED && d == v->dim) {
            coconet_slice_range(v->extents[d], count, rank - first, &lo, &hi);
        }
        min[d] = (int32_t)lo;
        extent[d] = (int32_t)(hi - lo);
    }
}

int32_t coconet_aot_step_sources(const coconet_comm *comm, const coconet_aot_step *step) {
    if (step->src < 0) {
        return 0;
    }
    int first = 0, count = 0;
    coconet_group_range(coconet_comm_size(comm), step->pass.nsplit, step->pass.group, &first,
                        &count);
    return coconet_fused_sources(comm, step->pass.path, count);
}

int coconet_aot_step_takes_library(const coconet_comm *comm, const coconet_aot_step *step,
                                   const halide_device_interface_t *device) {
    // The comm is not changed: asking for the library only looks it up.
    auto *c = const_cast<coconet_comm *>(comm);
    return device && step->pass.nsplit == 1 && c->device_library(device) ? 1 : 0;
}

int coconet_aot_value_in_pass(const coconet_aot_program *p, int v) {
    for (int s = 0; p && v >= 0 && v < p->nvalues && s < p->nsteps; s++) {
        const coconet_aot_step &st = p->steps[s];
        for (int o = -1; st.kind == COCONET_STEP_FUSED && o < st.pass.nout; o++) {
            if (v == (o < 0 ? st.src : st.pass.gathered[o] ? st.pass_outs[o] : -1)) {
                return 1;
            }
        }
    }
    return 0;
}

int coconet_arg_box_sized(const coconet_aot_program *p, const int32_t *sizes, int arg, int rank,
                          int size, int32_t *min, int32_t *extent) {
    std::string problem;
    if (!p || !min || !extent) {
        problem = std::string(!p ? "the program table" : !min ? "min" : "extent") + " is NULL";
    } else if (arg < 0 || arg >= p->ninputs + p->noutputs) {
        problem = std::string(p->name) + " has arguments 0.." +
                  std::to_string(p->ninputs + p->noutputs - 1) + ", not " + std::to_string(arg);
    } else if (size < 1 || rank < 0 || rank >= size) {
        problem = "rank " + std::to_string(rank) + " of " + std::to_string(size) +
                  " is not a rank of a world (0 <= rank < size)";
    }
    coconet_value_info v{};
    if (problem.empty()) {
        v = p->values[p->args[arg]];
        problem = coconet_rt::resolve_extents(v, p->size_names, sizes, sizes ? p->nsizes : 0);
    }
    if (!problem.empty()) {
        return coconet_rt::fail(nullptr, COCONET_ERR_INVALID, "coconet_arg_box: " + problem);
    }
    coconet_value_box(&v, rank, size, min, extent);
    return COCONET_OK;
}

int coconet_arg_box(const coconet_aot_program *p, int arg, int rank, int size, int32_t *min,
                    int32_t *extent) {
    return coconet_arg_box_sized(p, nullptr, arg, rank, size, min, extent);
}

int coconet_aot_release(coconet_comm *comm, const coconet_aot_program *p) {
    if (!p || !coconet_rt::is_live_comm(comm)) {
        return coconet_rt::fail(comm, COCONET_ERR_INVALID,
                                std::string("coconet_aot_release: ") +
                                    (p ? "not a live communicator" : "the program table is NULL"));
    }
    const coconet_rt::CommUse use(comm, "coconet_aot_release of", p->name);
    if (use.status() != COCONET_OK) {
        return use.status();
    }
    // The pool is this rank's alone: freed even when the ranks cannot meet.
    coconet_rt::executor_state(comm).host_pool.release();
    // Collective: a peer in another call (a library's collective) is named at
    // once, as barriers name it, rather than waiting out its timeout.
    const int met = comm->barrier((std::string("coconet_aot_release of ") + p->name).c_str());
    if (met != COCONET_OK) {
        return met;
    }
    return comm->release_value_memory(coconet_rt::value_memory_prefix(*p));
}

int coconet_aot_run(coconet_comm *comm, const coconet_aot_program *p,
                    halide_buffer_t *const *args) {
    return coconet_aot_run_sized(comm, p, nullptr, args);
}

int coconet_aot_run_sized(coconet_comm *comm, const coconet_aot_program *p, const int32_t *sizes,
                          halide_buffer_t *const *args) {
    // Without a live communicator the message goes to coconet_comm_last_error(NULL).
    if (!p) {
        return coconet_rt::fail(comm, COCONET_ERR_INVALID,
                                "coconet_aot_run: the program table is NULL");
    }
    if (!comm) {
        return coconet_rt::fail(
            comm, COCONET_ERR_INVALID,
            std::string(p->name) +
                ": the communicator is NULL. Create one with coconet_threads_world_comm(), or "
                "coconet_mpi_comm_create() under MPI");
    }
    if (!coconet_rt::is_live_comm(comm)) {
        std::ostringstream pointer;
        pointer << (const void *)comm;
        return coconet_rt::fail(comm, COCONET_ERR_INVALID,
                                std::string(p->name) + ": the communicator " + pointer.str() +
                                    " does not exist (destroyed, or not a communicator)");
    }
    // A table of another version is refused before it is read, the
    // communicator left usable (the library, not the call, is wrong).
    if (p->version != COCONET_AOT_VERSION || p->size != sizeof(coconet_aot_program)) {
        return comm->fail(COCONET_ERR_INVALID,
                          std::string("coconet_aot_run: the library's table has version ") +
                              std::to_string(p->version) + " (" + std::to_string(p->size) +
                              " bytes), this runtime reads version " +
                              std::to_string(COCONET_AOT_VERSION) + " (" +
                              std::to_string(sizeof(coconet_aot_program)) +
                              " bytes); rebuild the library with this CoCoNet's generator driver");
    }
    // Refused without aborting: the call in progress on the other thread goes on.
    const coconet_rt::CommUse use(comm, p->name);
    if (use.status() != COCONET_OK) {
        return use.status();
    }
    // From here, a failing rank aborts the communicator, so that peers
    // waiting for it fail at once (under MPI, at their next wait) instead of
    // at the timeout; the message stays this rank's.
    auto failed = [&](int code, const std::string &message) {
        coconet_comm_abort(comm, message.c_str());
        comm->set_error(code, message);
        return code;
    };
    if (!args) {
        return failed(COCONET_ERR_INVALID, std::string(p->name) + ": the argument array is NULL");
    }
    try {
        const coconet_rt::EnvScope switches; // read as they are now, once
        const coconet_rt::SizedProgram sized(comm, *p, sizes);
        Executor(comm, sized).run(args);
        return COCONET_OK;
    } catch (const AotError &e) {
        return failed(e.code, e.message);
    } catch (const std::exception &e) {
        return failed(COCONET_ERR_INVALID, std::string(p->name) + ": " + e.what());
    }
}

} // extern "C"
