#include "AutoSchedule.h"

#include <map>
#include <set>

#include "Error.h"
#include "Partition.h"
#include "PrintPlan.h"
#include "Rebuild.h"

namespace coconet {

using Halide::Internal::Function;

namespace {

// Rank 0's box of value v among `ranks` (at least one element per dimension:
// an estimate, not a bound).
Halide::Region estimate(const DFuncContents *v, const Analysis &a, int ranks) {
    const FuncInfo &info = a.of(v);
    Halide::Region r;
    for (const Range &b : rank_region(info.layout, info.extents, 0, ranks)) {
        r.emplace_back((int)b.begin, (int)std::max<int64_t>(b.extent(), 1));
    }
    return r;
}

// The Funcs of env with the user's Halide directives, by name.
std::vector<std::string> user_scheduled(const std::map<std::string, Function> &env) {
    std::vector<std::string> names;
    for (const auto &[name, fn] : env) {
        if (has_stage_directives(fn)) {
            names.push_back(plain_name(name));
        }
    }
    return names;
}

} // namespace

std::string autoschedule_segment(const HalideSegment &h, const Analysis &a,
                                 const std::string &name, const Halide::Target &target,
                                 int ranks) {
    std::map<std::string, Function> env = pipeline_functions(h.pipeline);
    const std::vector<std::string> kept = user_scheduled(env);
    if (!kept.empty()) {
        return "kept the user's schedule (" + join(kept) + " scheduled by hand)";
    }
    // lower_spmd computes every distributed Func at root; the autoschedulers
    // want to place them (and refuse Funcs already placed), so all start
    // unplaced but the extern stages (the collectives) and the Funcs they
    // read, which stay at root.
    std::set<std::string> root;
    for (const auto &[name, fn] : env) {
        if (fn.has_extern_definition()) {
            root.insert(name);
            for (const Halide::ExternFuncArgument &arg : fn.extern_arguments()) {
                if (arg.is_func()) {
                    root.insert(Function(arg.func).name());
                }
            }
        }
    }
    for (auto &[name, fn] : env) {
        if (!root.count(name)) {
            fn.schedule().compute_level() = Halide::LoopLevel::inlined();
            fn.schedule().store_level() = Halide::LoopLevel::inlined();
        }
    }
    for (size_t i = 0; i < h.params.size(); i++) {
        Halide::ImageParam p = h.params[i];
        p.set_estimates(estimate(h.param_values[i], a, ranks));
    }
    std::vector<Halide::Func> outputs = h.pipeline.outputs();
    for (size_t i = 0; i < outputs.size(); i++) {
        outputs[i].set_estimates(estimate(h.outputs[i], a, ranks));
    }
    Halide::AutoschedulerParams params(name);
    params.extra["parallelism"] = "1"; // one thread per rank
    try {
        h.pipeline.apply_autoscheduler(target, params);
    } catch (const Halide::Error &e) {
        coconet_user_assert(false)
            << "autoscheduler " << name << " failed on a segment computing "
            << plain_name(outputs.front().name()) << ": " << e.what()
            << " (Mullapudi2016 schedules segments without collectives; see AutoSchedule.h)";
    }
    return "scheduled by " + name;
}

} // namespace coconet
