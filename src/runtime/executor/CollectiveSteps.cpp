// Unfused collectives, and steps overlapped with their producer tile by
// tile, in the tile count their tuner gives (see Executor.h).
#include "executor/Executor.h"

#include <chrono>

#include "core/Env.h"
#include "device/DeviceCollective.h"
#include "executor/ChunkLoop.h"
#include "executor/OverlapTuning.h"

namespace coconet_rt {

void Executor::produce_chunk(int s, halide_buffer_t *source, int dim, int min, int extent,
                             const halide_device_interface_t *device) {
    Box b = coconet_rt::box_of(source);
    if (b.count() == 0) {
        return;
    }
    if (device && b.min[dim] == min && b.extent[dim] == extent) {
        // One tile: the whole source, computed in place (no offset to align).
        run_pipeline(s, p_.steps[s], source);
        device_check(coconet_rt::host_to_device(*comm_, source, device),
                     "computing an overlapped source on the device");
        return;
    }
    b.min[dim] = min;
    b.extent[dim] = extent;
    if (!device) {
        coconet_rt::BufferView chunk(source, b);
        run_pipeline(s, p_.steps[s], &chunk.buf);
        // A chunk of an overlapped source is moved on the host.
        to_host(&chunk.buf);
        free_device(&chunk.buf);
        return;
    }
    OwnedBuffer chunk;
    dense_box(chunk, source->type, b);
    int rc = coconet_rt::device_malloc(*comm_, &chunk.buf, device);
    if (rc == 0) {
        run_pipeline(s, p_.steps[s], &chunk.buf);
        // A producer computing its output on the host leaves it there.
        rc = coconet_rt::host_to_device(*comm_, &chunk.buf, device);
    }
    if (rc == 0) {
        rc = coconet_rt::device_copy_box(*comm_, &chunk.buf, source, b);
    }
    free_device(&chunk.buf);
    device_check(rc, "computing a chunk of an overlapped source on the device");
}

void Executor::produce_parts(int s, halide_buffer_t *source, int dim,
                             const std::vector<coconet_rt::Range> &parts,
                             const halide_device_interface_t *device) {
    // Adjacent parts (every slice whole: one tile) as one range.
    for (size_t i = 0; i < parts.size();) {
        coconet_rt::Range r = parts[i];
        for (i++; i < parts.size() && parts[i].begin == r.end; i++) {
            r.end = parts[i].end;
        }
        produce_chunk(s, source, dim, (int)r.begin, (int)r.size(), device);
    }
}

coconet_rt::Chunking Executor::chunking(int chunks, int dim, int sliced, int64_t n,
                                        const coconet_rt::Group &group) {
    return coconet_rt::Chunking{n, chunks, dim == sliced ? group.size : 0};
}

std::string Executor::step_key(int s) const {
    const coconet_aot_step &st = p_.steps[s];
    const char *what = st.kind == COCONET_STEP_FUSED ? st.pass.name : st.collective_name;
    return std::string(p_.name) + " step " + std::to_string(s) + " (" + (what ? what : "") + ")";
}

template<typename Run>
void Executor::run_tuned(int s, bool direct, halide_buffer_t *device_value, Run &&run) {
    const coconet_aot_step &st = p_.steps[s];
    const bool tune = coconet_rt::overlap_tuning_enabled();
    ExecutorState &state = executor_state(comm_);
    ExecutorState::StepTuner &found = state.overlap_tuner_of_step[&st];
    if (found.step != s || found.program != p_.name) {
        // As named (programs of one name share their steps' tuners).
        auto it = state.overlap_tuners.try_emplace(step_key(s), st.chunks, tune, direct).first;
        found = {p_.name, s, &it->second};
    }
    // Whether `direct` may run changes with where the step runs
    // (COCONET_DEVICE_COLLECTIVES, programs sharing the name), and
    // tuning may be turned off between calls (COCONET_OVERLAP_TUNING).
    coconet_rt::OverlapTuner *tuner = found.tuner;
    if (tuner->scheduled() != st.chunks || tuner->direct() != (direct && tune) ||
        (!tune && !tuner->settled())) {
        *tuner = coconet_rt::OverlapTuner(st.chunks, tune, direct);
    }
    // Timed only while it tunes, from a start the ranks share: timed from
    // its own arrival, a rank that arrives last finds its peers waiting
    // and measures its step short, which favoured counts that compute
    // before they meet where ranks outnumber cores (CHANGELOG.md).
    // The same all_reduce agrees on the call before: its slowest rank's
    // time, since ranks that leave a step early do not make it shorter.
    const bool tuning = !tuner->settled();
    auto agree = [&] { tuner->agree(slowest_rank(tuner->unagreed(), step_key(s))); };
    auto finish_device_work = [&] {
        if (tuning && device_value) {
            device_check(coconet_rt::device_sync(*comm_, device_value),
                         "waiting for the device to time an overlapped step");
        }
    };
    finish_device_work();
    if (tuner->timing()) {
        agree();
    }
    const auto start =
        tuning ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point{};
    const int rc = run(tuner->chunks());
    if (rc != COCONET_OK) {
        fail(rc, coconet_comm_last_error(comm_));
    }
    finish_device_work();
    if (tuning) {
        const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
        if (tuner->record(took.count())) {
            agree();
        }
    }
}

double Executor::slowest_rank(double seconds, const std::string &what) {
    halide_dimension_t d(0, 1, 1);
    halide_buffer_t in{};
    in.host = reinterpret_cast<uint8_t *>(&seconds);
    in.type = halide_type_t(halide_type_float, 64);
    in.dimensions = 1;
    in.dim = &d;
    double slowest = 0;
    halide_buffer_t res = in;
    res.host = reinterpret_cast<uint8_t *>(&slowest);
    coconet_collective_desc desc;
    coconet_collective_desc_init(&desc, COCONET_ALL_REDUCE);
    desc.op = COCONET_MAX;
    desc.dims = 1;
    desc.extents[0] = 1;
    const std::string name = "the tile-count tuning of " + what;
    if (coconet_collective_call(comm_, name.c_str(), &desc, &in, &res) != COCONET_OK) {
        fail(coconet_comm_last_error_code(comm_), coconet_comm_last_error(comm_));
    }
    return slowest;
}

Box Executor::own_part(const coconet_rt::Chunking &ch, const coconet_rt::Group &group, int rank,
                       Box b, int dim, int j) {
    const coconet_rt::Range r = ch.slices > 0 ? ch.piece(j, group.local(rank)) : ch.parts(j)[0];
    b.min[dim] = r.begin;
    b.extent[dim] = r.size();
    return b;
}

void Executor::run_overlapped(int s, coconet_fused_call &c,
                              const halide_device_interface_t *device) {
    const coconet_aot_step &st = p_.steps[s];
    halide_buffer_t *source = output_buffer(st.src);
    if (device) {
        device_check(coconet_rt::device_malloc(*comm_, source, device),
                     "allocating an overlapped source on the device");
        set_newest(source, true);
    }
    c.src = source;
    const int dim = st.pass.range_dim;
    run_tuned(s, false, device ? source : nullptr, [&](int chunks) {
        const coconet_rt::Chunking ch = chunking(chunks, dim, st.pass.dim, st.pass.n[dim],
                                                 coconet_rt::group_of(size_, c.nsplit, c.group));
        auto produce = [&](int j) { produce_parts(s, source, dim, ch.parts(j), device); };
        int rc = COCONET_OK;
        auto reduce = [&](int j) {
            c.ranged = 1;
            const coconet_rt::Range r = ch.parts(j).empty() ? coconet_rt::Range{} : ch.parts(j)[0];
            c.range_min = (int32_t)r.begin;
            c.range_extent = (int32_t)r.size();
            c.pieces = ch.chunks;
            c.piece = j;
            rc = coconet_fused_reduce_scatter(comm_, &c);
            return rc == COCONET_OK;
        };
        coconet_rt::run_steps(executor_state(comm_).producer, ch.count(), produce, reduce);
        return rc;
    });
}

void Executor::run_collective(int s) {
    const coconet_aot_step &st = p_.steps[s];
    coconet_collective_desc desc = st.collective;
    halide_buffer_t *source = output_buffer(st.src);
    halide_buffer_t *dst = output_buffer(st.dst);
    // Among ranks sharing a device, chunks are produced and moved there
    // (the world's collectives, as the compiler's plan says).
    const halide_device_interface_t *device =
        desc.nsplit == 1 && coconet_rt::runs_on_device(*comm_, desc.kind, desc.op, dst->type)
            ? p_.device_interface
            : nullptr;
    if (device) {
        desc.device = 1;
        // The chunks write every element of both, there.
        for (halide_buffer_t *b : {source, dst}) {
            device_check(coconet_rt::device_malloc(*comm_, b, device),
                         "allocating an overlapped collective's value on the device");
            set_newest(b, true);
        }
    } else {
        to_host(dst);
    }
    const int dim = desc.chunk_dim;
    const coconet_rt::Group group = coconet_rt::group_of(size_, desc.nsplit, desc.group);
    const bool direct = !device && desc.kind == COCONET_ALL_TO_ALL &&
                        comm_->writes_peer_outputs() && !read_elsewhere(st.src, s);
    run_tuned(s, direct, device ? dst : nullptr, [&](int chunks) {
        if (chunks == coconet_rt::OverlapTuner::kDirect) {
            return run_produced(s, dst);
        }
        const coconet_rt::Chunking ch = chunking(chunks, dim, desc.dim, desc.extents[dim], group);
        auto produce = [&](int j) { produce_parts(s, source, dim, ch.parts(j), device); };
        int rc = COCONET_OK;
        auto move = [&](int j) {
            // A piece of every slice reads the source wherever the pieces are.
            std::unique_ptr<DeviceView> in;
            if (ch.slices == 0) {
                in = std::make_unique<DeviceView>(
                    *this, source, own_part(ch, group, rank_, coconet_rt::box_of(source), dim, j),
                    device);
            }
            DeviceView out(*this, dst, own_part(ch, group, rank_, coconet_rt::box_of(dst), dim, j),
                           device);
            desc.chunks = ch.chunks;
            desc.chunk_index = j;
            rc = coconet_collective_call(comm_, st.collective_name, &desc,
                                         in ? &in->view.buf : source, &out.view.buf);
            return rc == COCONET_OK;
        };
        coconet_rt::run_steps(executor_state(comm_).producer, ch.count(), produce, move);
        return rc;
    });
    set_newest(dst, device != nullptr);
}

bool Executor::read_elsewhere(int v, int s) const {
    for (int t = 0; t < p_.nsteps; t++) {
        const coconet_aot_step &st = p_.steps[t];
        const bool reads =
            std::find(st.params, st.params + st.nparams, v) != st.params + st.nparams ||
            std::find(st.extras, st.extras + st.nextras, v) != st.extras + st.nextras ||
            st.src == v;
        if (t != s && reads) {
            return true;
        }
    }
    return std::find(p_.output_values, p_.output_values + p_.noutputs, v) !=
           p_.output_values + p_.noutputs;
}

int Executor::run_produced(int s, halide_buffer_t *dst) {
    const coconet_aot_step &st = p_.steps[s];
    OwnedBuffer source; // the source's box and type, no memory
    source.buf.type = dst->type;
    source.buf.dimensions = info(st.src).dims;
    source.buf.dim = source.dim;
    coconet_rt::set_box(&source.buf, box_of_value(st.src));
    auto produce = [&](halide_buffer_t *view) -> int {
        try {
            run_pipeline(s, st, view);
            to_host(view);
            free_device(view);
            return COCONET_OK;
        } catch (const AotError &e) {
            coconet_comm_set_error(comm_, e.message.c_str());
            return e.code;
        } catch (const std::exception &e) {
            // Peers are writing into this rank's output: it must still
            // meet them before it returns.
            coconet_comm_set_error(comm_, e.what());
            return COCONET_ERR_INTERNAL;
        }
    };
    return coconet_rt::produced_all_to_all(comm_, st.collective_name, st.collective, &source.buf,
                                           dst, produce);
}

} // namespace coconet_rt
