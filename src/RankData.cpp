#include "RankData.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <new>
#include <sstream>

#include "Error.h"
#include "InferLayouts.h"
#include "TypeDispatch.h"

namespace coconet {

namespace {

std::string box_string(const halide_buffer_t &b) {
    std::ostringstream s;
    s << "[";
    for (int d = 0; d < b.dimensions; d++) {
        s << (d ? ", " : "") << b.dim[d].min << ".." << b.dim[d].min + b.dim[d].extent;
    }
    s << "]";
    return s.str();
}

std::string box_string(const std::vector<Range> &box) {
    std::ostringstream s;
    s << "[";
    for (size_t d = 0; d < box.size(); d++) {
        s << (d ? ", " : "") << box[d].begin << ".." << box[d].end;
    }
    s << "]";
    return s.str();
}

// A 32-bit mix (murmur3's finalizer): cheap, deterministic, well spread.
uint32_t mix(uint32_t h) {
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    return h;
}

uint32_t hash_string(const std::string &s) {
    uint32_t h = 2166136261u;
    for (char c : s) {
        h = (h ^ (uint8_t)c) * 16777619u;
    }
    return h;
}

// The difference max_abs_diff counts: equal infinities (a max's identity)
// agree, and an infinity differs infinitely from a finite value. A NaN agrees
// with nothing, not even a NaN in the reference: the comparison could not vouch
// for either.
double element_diff(double x, double y) {
    if (std::isnan(x) || std::isnan(y)) {
        return INFINITY;
    }
    return x == y ? 0 : std::fabs(x - y);
}

bool same_shape(const Halide::Buffer<> &x, const Halide::Buffer<> &y) {
    bool same = x.type() == y.type() && x.dimensions() == y.dimensions();
    for (int d = 0; same && d < x.dimensions(); d++) {
        same = x.dim(d).min() == y.dim(d).min() && x.dim(d).extent() == y.dim(d).extent();
    }
    return same;
}

} // namespace

Halide::Buffer<> allocate_box(Halide::Type type, const std::vector<Range> &box) {
    std::vector<halide_dimension_t> dims;
    int64_t stride = 1, size = 1;
    for (const Range &r : box) {
        // Halide's strides and extents are 32-bit.
        coconet_user_assert(stride <= INT32_MAX && r.extent() <= INT32_MAX &&
                            r.begin >= INT32_MIN && r.end <= INT32_MAX)
            << "the box " << box_string(box) << " of " << type
            << " does not fit a Halide buffer (32-bit extents and strides)";
        dims.push_back(halide_dimension_t((int32_t)r.begin, (int32_t)r.extent(), (int32_t)stride));
        stride *= std::max<int64_t>(r.extent(), 1);
        size *= r.extent();
    }
    if (size > 0) {
        Halide::Buffer<> b(type, nullptr, (int)dims.size(), dims.data());
        try {
            b.allocate();
        } catch (const std::bad_alloc &) {
            coconet_user_error << "cannot allocate the box " << box_string(box) << " of " << type
                               << " (" << size * type.bytes() << " bytes)";
        }
        coconet_user_assert(b.data()) << "cannot allocate the box " << box_string(box) << " of "
                                      << type << " (" << size * type.bytes() << " bytes)";
        return b;
    }
    // Shared, never written: an empty box has no elements to write.
    static uint64_t empty_storage[8];
    return Halide::Buffer<>(type, empty_storage, (int)dims.size(), dims.data());
}

RankBuffers check_rank_inputs(const Program &program, const Analysis &analysis, int rank,
                              int world_size, const RankBuffers &inputs, const Sizes &sizes) {
    for (const auto &[name, buffer] : inputs) {
        const bool known = std::any_of(analysis.inputs.begin(), analysis.inputs.end(),
                                       [&](const DFunc &in) { return in.name() == name; });
        if (!known) {
            std::string names;
            for (const DFunc &in : analysis.inputs) {
                names += (names.empty() ? "" : ", ") + in.name();
            }
            coconet_user_error << "Program " << program.name() << ", rank " << rank
                               << ": a buffer for '" << name << "', which is none of its inputs ("
                               << names << ").";
        }
    }
    RankBuffers out;
    for (const DFunc &in : analysis.inputs) {
        const FuncInfo &info = analysis.of(in);
        const std::vector<int> extents =
            bind_extents(info.extents, sizes, "Program " + program.name() + ": input " + in.name());
        auto it = inputs.find(in.name());
        coconet_user_assert(it != inputs.end() && it->second.defined())
            << "Program " << program.name() << ", rank " << rank << ": no buffer for input "
            << in.name() << ".";
        Halide::Buffer<> b = it->second;
        const Halide::Type want = in.get_contents()->param->type();
        coconet_user_assert(b.type() == want)
            << "Program " << program.name() << ", rank " << rank << ": input " << in.name()
            << " has element type " << b.type() << ", expected " << want << ".";
        std::vector<Range> box = rank_region(info.layout, extents, rank, world_size);
        coconet_user_assert(b.dimensions() == (int)box.size())
            << "Program " << program.name() << ", rank " << rank << ": input " << in.name()
            << " has " << b.dimensions() << " dimensions, expected " << box.size() << ".";
        bool same_extents = true, same_mins = true, at_zero = true;
        for (size_t d = 0; d < box.size(); d++) {
            same_extents &= b.dim(d).extent() == box[d].extent();
            same_mins &= b.dim(d).min() == box[d].begin;
            at_zero &= b.dim(d).min() == 0;
        }
        // Any other min is a box of the wrong place, not a shifted copy of it.
        coconet_user_assert(same_extents && (same_mins || at_zero))
            << "Program " << program.name() << ", rank " << rank << " of " << world_size
            << ": input " << in.name() << " is " << info.layout.to_string()
            << " with global extents " << box_string(rank_region(Replicated(), extents, 0, 1))
            << ", so this rank must pass the box " << box_string(box) << ", but its buffer is "
            << box_string(*b.raw_buffer()) << " (a buffer whose mins are all 0 is taken as the "
            << "rank's box).";
        if (!same_mins) {
            for (size_t d = 0; d < box.size(); d++) {
                b.translate((int)d, (int)box[d].begin - b.dim(d).min());
            }
        }
        if (b.number_of_elements() == 0 && b.data() == nullptr) {
            b = allocate_box(b.type(), box);
        }
        out[in.name()] = b;
    }
    return out;
}

std::vector<RankBuffers> make_inputs(const Program &program, int world_size, uint32_t seed) {
    return make_sized_inputs(program, world_size, {}, seed);
}

std::vector<RankBuffers> make_sized_inputs(const Program &program, int world_size,
                                           const Sizes &sizes, uint32_t seed) {
    coconet_user_assert(world_size >= 1)
        << "make_inputs(" << program.name() << "): world size " << world_size << " < 1.";
    Analysis analysis = analyze(program);
    std::vector<RankBuffers> ranks(world_size);
    for (int r = 0; r < world_size; r++) {
        for (const DFunc &in : analysis.inputs) {
            const FuncInfo &info = analysis.of(in);
            const Halide::Type type = in.get_contents()->param->type();
            const std::vector<int> ext = bind_extents(
                info.extents, sizes, "make_inputs(" + program.name() + "): input " + in.name());
            Halide::Buffer<> b = allocate_box(type, rank_region(info.layout, ext, r, world_size));
            const bool local = info.layout.kind == LayoutKind::Local;
            const uint32_t base = mix(seed ^ hash_string(in.name()) ^ (local ? mix(r + 1) : 0));
            with_element_type(type, [&](auto zero) {
                using T = decltype(zero);
                Halide::Buffer<T> typed(b);
                typed.for_each_element([&](const int *pos) {
                    int64_t flat = 0;
                    for (int d = (int)ext.size() - 1; d >= 0; d--) {
                        flat = flat * ext[d] + pos[d];
                    }
                    uint32_t h = mix(base ^ mix((uint32_t)flat) ^ (uint32_t)(flat >> 32));
                    if constexpr (std::is_floating_point_v<T>) {
                        typed(pos) = (T)((h >> 8) * (2.0 / 16777216.0) - 1.0);
                    } else {
                        typed(pos) = (T)(h % 10);
                    }
                });
            });
            ranks[r][in.name()] = b;
        }
    }
    return ranks;
}

std::map<std::string, OutputDiff> output_diffs(const std::vector<RankBuffers> &a,
                                               const std::vector<RankBuffers> &b) {
    coconet_user_assert(a.size() == b.size())
        << "Comparing results of " << a.size() << " and " << b.size() << " ranks.";
    std::map<std::string, OutputDiff> diffs;
    for (size_t r = 0; r < a.size(); r++) {
        coconet_user_assert(a[r].size() == b[r].size())
            << "Rank " << r << ": " << a[r].size() << " versus " << b[r].size() << " outputs.";
        for (const auto &[name, x] : a[r]) {
            auto it = b[r].find(name);
            coconet_user_assert(it != b[r].end()) << "Rank " << r << ": no output " << name << ".";
            const Halide::Buffer<> &y = it->second;
            coconet_user_assert(same_shape(x, y))
                << "Rank " << r << ": output " << name
                << " has different shapes: " << box_string(*x.raw_buffer()) << " versus "
                << box_string(*y.raw_buffer()) << ".";
            OutputDiff &d = diffs[name];
            with_element_type(x.type(), [&](auto zero) {
                using T = decltype(zero);
                Halide::Buffer<const T> tx(x), ty(y);
                tx.for_each_element([&](const int *pos) {
                    const double dy = (double)ty(pos);
                    d.diff = std::max(d.diff, element_diff((double)tx(pos), dy));
                    d.magnitude = std::max(d.magnitude, std::fabs(dy));
                });
            });
        }
    }
    return diffs;
}

double max_abs_diff(const std::vector<RankBuffers> &a, const std::vector<RankBuffers> &b) {
    double worst = 0;
    for (const auto &[name, d] : output_diffs(a, b)) {
        worst = std::max(worst, d.diff);
    }
    return worst;
}

std::string ReplicatedMismatch::to_string() const {
    std::ostringstream s;
    s.precision(9);
    s << name << ": rank" << (ranks.size() > 1 ? "s " : " ");
    for (size_t i = 0; i < ranks.size(); i++) {
        s << (i ? ", " : "") << ranks[i];
    }
    s << (ranks.size() > 1 ? " differ" : " differs") << " from rank " << first_rank;
    if (index.empty()) {
        s << " in shape";
        return s.str();
    }
    s << ", rank " << ranks[0] << " first at [";
    for (size_t d = 0; d < index.size(); d++) {
        s << (d ? ", " : "") << index[d];
    }
    s << "] (" << value << " versus " << first_value << ")";
    return s.str();
}

std::string to_string(const std::vector<ReplicatedMismatch> &mismatches) {
    std::string s;
    for (const ReplicatedMismatch &m : mismatches) {
        s += (s.empty() ? ", replicated outputs differ across ranks: " : "; ") + m.to_string();
    }
    return s;
}

std::vector<ReplicatedMismatch> replicated_mismatches(const Program &program,
                                                      const std::vector<RankBuffers> &outputs,
                                                      double tolerance) {
    Analysis analysis = analyze(program);
    const int world_size = (int)outputs.size();
    std::vector<ReplicatedMismatch> bad;
    for (const ProgramOutput &o : program.outputs()) {
        const FuncInfo &info = analysis.of(o.func);
        if (info.layout.kind != LayoutKind::Replicated) {
            continue;
        }
        const Range members = group_ranks(info.layout.group, world_size);
        ReplicatedMismatch m;
        m.name = o.func.name();
        m.first_rank = (int)members.begin;
        const Halide::Buffer<> &first = outputs[members.begin].at(m.name);
        for (int64_t r = members.begin + 1; r < members.end; r++) {
            const Halide::Buffer<> &other = outputs[r].at(m.name);
            bool differs = !same_shape(first, other);
            if (!differs) {
                with_element_type(first.type(), [&](auto zero) {
                    using T = decltype(zero);
                    Halide::Buffer<const T> a(first), b(other);
                    a.for_each_element([&](const int *pos) {
                        const T x = a(pos), y = b(pos);
                        if (differs || std::memcmp(&x, &y, sizeof(T)) == 0 ||
                            (tolerance > 0 && element_diff((double)x, (double)y) <= tolerance)) {
                            return;
                        }
                        differs = true;
                        if (m.ranks.empty()) {
                            m.index.assign(pos, pos + a.dimensions());
                            m.value = (double)y;
                            m.first_value = (double)x;
                        }
                    });
                });
            }
            if (differs) {
                m.ranks.push_back((int)r);
            }
        }
        if (!m.ranks.empty()) {
            bad.push_back(m);
        }
    }
    return bad;
}

std::vector<ReplicatedMismatch> replicated_mismatches(const Program &program, coconet_comm *comm,
                                                      const RankBuffers &mine, const Sizes &sizes) {
    Analysis analysis = analyze(program);
    const int rank = coconet_comm_rank(comm), size = coconet_comm_size(comm);
    std::vector<RankBuffers> copies(size);
    for (const ProgramOutput &o : program.outputs()) {
        const FuncInfo &info = analysis.of(o.func);
        if (info.layout.kind != LayoutKind::Replicated) {
            continue;
        }
        const std::string name = o.func.name();
        const Halide::Buffer<> &own = mine.at(name);
        const Range members = group_ranks(info.layout.group, size);
        const std::vector<Range> box =
            rank_region(info.layout, bind_extents(info.extents, sizes, "output " + name),
                        (int)members.begin, size);
        int64_t bytes = own.type().bytes();
        for (const Range &r : box) {
            bytes *= r.extent();
        }
        // One row of bytes per rank, gathered over the world: rank r's copy
        // in row r (zeros from ranks outside the group, never read). An empty
        // value has nothing to gather (nor a host pointer to gather from).
        Halide::Buffer<uint8_t> row((int)bytes, 1), rows((int)bytes, size);
        if (bytes > 0) {
            row.set_min(0, rank);
            row.fill(0);
            if (rank >= members.begin && rank < members.end) {
                coconet_user_assert((int64_t)own.size_in_bytes() == bytes)
                    << "Rank " << rank << ": output " << name << " holds "
                    << box_string(*own.raw_buffer()) << ", not its copy " << box_string(box) << ".";
                std::memcpy(row.data(), own.data(), bytes);
            }
            coconet_collective_desc desc;
            coconet_collective_desc_init(&desc, COCONET_ALL_GATHER);
            desc.dim = 1;
            desc.dims = 2;
            desc.extents[0] = (int32_t)bytes;
            desc.extents[1] = size;
            coconet_user_assert(coconet_collective_call(comm, "replicated copies", &desc,
                                                        row.raw_buffer(),
                                                        rows.raw_buffer()) == COCONET_OK)
                << "Gathering the copies of " << name << ": " << coconet_comm_last_error(comm);
        }
        for (int64_t r = members.begin; r < members.end; r++) {
            Halide::Buffer<> copy = allocate_box(own.type(), box);
            if (bytes > 0) {
                std::memcpy(copy.data(), &rows(0, (int)r), bytes);
            }
            copies[r][name] = copy;
        }
    }
    return replicated_mismatches(program, copies, reference_tolerance(comm));
}

double reference_tolerance(const coconet_comm *comm) {
    return comm && !coconet_comm_deterministic(comm) ? 1e-5 : 0.0;
}

} // namespace coconet
