#include "executor/SizedProgram.h"

#include <map>

#include "core/Comm.h"
#include "executor/Executor.h"

namespace coconet_rt {

std::string resolve_extents(coconet_value_info &v, const char *const *names, const int32_t *sizes,
                            int nsizes) {
    for (int d = 0; d < v.dims && d < 4; d++) {
        const int32_t e = v.extents[d];
        if (e >= 0) {
            continue;
        }
        const int k = -e - 1;
        if (k >= nsizes || !sizes) {
            return std::string("'") + v.name + "' has a run-time extent, but no sizes were given";
        }
        if (sizes[k] < 0) {
            return std::string("run-time size '") + names[k] + "' is " + std::to_string(sizes[k]);
        }
        v.extents[d] = sizes[k];
    }
    return "";
}

SizedProgram::SizedProgram(coconet_comm *comm, const coconet_aot_program &p, const int32_t *sizes)
    : comm_(comm), table_(p), sized_(p.nsizes > 0) {
    if (!sized_) {
        return;
    }
    if (!sizes) {
        std::string names;
        for (int k = 0; k < p.nsizes; k++) {
            names += std::string(k ? ", " : "") + p.size_names[k];
        }
        fail(COCONET_ERR_INVALID, "the program takes the run-time sizes " + names +
                                      ", but none were given (coconet_aot_run_sized)");
    }
    sizes_.assign(sizes, sizes + p.nsizes);
    // At the sizes every rank gave last time nothing is gathered: a rank that
    // changes its sizes alone then fails at the program's first collective,
    // whose call (extents included) every backend compares with its peers'
    // before it moves data.
    std::vector<int32_t> &agreed = executor_state(comm).agreed_sizes[value_memory_prefix(p)];
    if (agreed != sizes_) {
        check_ranks_agree();
        agreed = sizes_;
    }
    for (int k = 0; k < p.nsizes; k++) {
        if (sizes_[k] < 0) {
            fail(COCONET_ERR_INVALID, std::string("run-time size '") + p.size_names[k] + "' is " +
                                          std::to_string(sizes_[k]) + "; sizes are >= 0");
        }
    }
    check_constraints();
    resolve();
}

void SizedProgram::fail(int code, const std::string &what) const {
    fail_call(comm_, table_, code, what);
}

void SizedProgram::check_ranks_agree() {
    const int size = coconet_comm_size(comm_), rank = coconet_comm_rank(comm_);
    const int n = (int)sizes_.size();
    if (size == 1) {
        return;
    }
    std::vector<int32_t> all((size_t)n * size);
    halide_dimension_t in_dim(rank * n, n, 1), out_dim(0, n * size, 1);
    halide_buffer_t in{}, out{};
    in.host = reinterpret_cast<uint8_t *>(sizes_.data());
    in.type = halide_type_t(halide_type_int, 32);
    in.dimensions = 1;
    in.dim = &in_dim;
    out = in;
    out.host = reinterpret_cast<uint8_t *>(all.data());
    out.dim = &out_dim;
    coconet_collective_desc desc;
    coconet_collective_desc_init(&desc, COCONET_ALL_GATHER);
    desc.dim = 0;
    desc.dims = 1;
    desc.extents[0] = n * size;
    const std::string name = std::string("the run-time sizes of ") + table_.name;
    if (coconet_collective_call(comm_, name.c_str(), &desc, &in, &out) != COCONET_OK) {
        fail(coconet_comm_last_error_code(comm_), coconet_comm_last_error(comm_));
    }
    std::string differ;
    for (int k = 0; k < n; k++) {
        // The ranks giving each value, in rank order.
        std::map<int32_t, std::string> ranks;
        for (int r = 0; r < size; r++) {
            std::string &list = ranks[all[(size_t)r * n + k]];
            list += (list.empty() ? "" : ", ") + std::to_string(r);
        }
        if (ranks.size() == 1) {
            continue;
        }
        differ += std::string(differ.empty() ? "" : "; ") + "'" + table_.size_names[k] + "' is";
        bool first = true;
        for (const auto &[value, list] : ranks) {
            differ += std::string(first ? " " : ", ") + std::to_string(value) + " on " +
                      (list.find(',') == std::string::npos ? "rank " : "ranks ") + list;
            first = false;
        }
    }
    if (!differ.empty()) {
        fail(COCONET_ERR_INVALID, "every rank must give the same run-time sizes, but " + differ);
    }
}

void SizedProgram::check_constraints() const {
    auto describe = [&](int32_t e) {
        return e >= 0 ? std::to_string(e)
                      : std::string(table_.size_names[-e - 1]) + " = " + std::to_string(extent(e));
    };
    for (int c = 0; c < table_.nconstraints; c++) {
        const coconet_size_constraint &k = table_.constraints[c];
        if (extent(k.a) != extent(k.b)) {
            fail(COCONET_ERR_INVALID, std::string(k.what) + ", which must be equal: " +
                                          describe(k.a) + ", " + describe(k.b));
        }
    }
}

void SizedProgram::resolve() {
    const coconet_aot_program &p = table_;
    auto resolved = [&](const coconet_value_info *from, int count) {
        std::vector<coconet_value_info> out(from, from + count);
        for (coconet_value_info &v : out) {
            resolve_extents(v, p.size_names, sizes_.data(), (int)sizes_.size());
        }
        return out;
    };
    values_ = resolved(p.values, p.nvalues);
    device_stages_ = resolved(p.device_stages, p.ndevice_stages);
    steps_.assign(p.steps, p.steps + p.nsteps);
    for (coconet_aot_step &s : steps_) {
        for (int d = 0; d < 4; d++) {
            s.pass.n[d] = extent(s.pass.n[d]);
        }
        for (int d = 0; d < s.collective.dims && d < COCONET_MAX_DIMS; d++) {
            s.collective.extents[d] = extent(s.collective.extents[d]);
        }
    }
    resolved_ = p;
    resolved_.values = values_.data();
    resolved_.device_stages = device_stages_.data();
    resolved_.steps = steps_.data();
}

} // namespace coconet_rt
