#include "AutoSchedule.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "Error.h"
#include "Partition.h"
#include "Rebuild.h"
#include "Strings.h"

namespace coconet {

using Halide::Internal::Function;

namespace {

// Rank 0's box of value v among `ranks` (at least one element per dimension:
// an estimate, not a bound).
Halide::Region estimate(const DFuncContents *v, const Analysis &a, int ranks) {
    const FuncInfo &info = a.of(v);
    std::vector<int> extents;
    for (const Halide::Expr &e : info.extents) {
        const int64_t n = coconet::estimate(e, -1);
        coconet_user_assert(n >= 0)
            << v->name << " has the run-time extent " << to_string(e)
            << ", which has no estimate for the autoscheduler; give one: " << to_string(e)
            << ".set_estimate(...).";
        extents.push_back((int)n);
    }
    Halide::Region r;
    for (const Range &b : rank_region(info.layout, extents, 0, ranks)) {
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

// The collective an extern stage of a segment runs (the stage has the
// collective's name).
const DFuncContents &collective_named(const std::string &name, const Analysis &a) {
    const DFuncContents *found = nullptr;
    for (const auto &[c, info] : a.info) {
        if (c->collective && c->name == name) {
            coconet_user_assert(!found)
                << "the autoscheduler needs the size of collective " << name
                << ", and more than one collective of the program has that name; give them "
                   "distinct names";
            found = c;
        }
    }
    coconet_internal_assert(found) << "no collective named " << name;
    return *found;
}

// The stand-in pipeline the autoscheduler sees for a segment: Halide's
// autoschedulers refuse or crash on extern stages (the collectives; see
// AutoSchedule.h), so it is a deep copy of the segment in which each
// collective is a Func reading an input of its shape, and whose outputs are
// the segment's plus the Funcs the collectives read (which stay at root: a
// collective takes its whole input). Its Funcs keep the segment's names, so
// their schedules carry back by name.
struct StandIn {
    Halide::Pipeline pipeline;
    std::map<std::string, Function> env; // the copies, by name
    std::set<std::string> root;          // the Funcs collectives read
    int collectives = 0;                 // each one's result an input of the stand-in
    std::set<std::string> funcs;         // the pipeline's, before scheduling
};

StandIn stand_in(const HalideSegment &h, const std::map<std::string, Function> &env,
                 const Analysis &a, int ranks) {
    std::vector<Function> outputs;
    for (const Halide::Func &f : h.pipeline.outputs()) {
        outputs.push_back(f.function());
    }
    StandIn s;
    std::vector<Function> copies;
    std::tie(copies, s.env) = Halide::Internal::deep_copy(outputs, env);
    std::map<std::string, Halide::Region> root_estimates;
    std::map<Halide::Internal::FunctionPtr, Halide::Internal::FunctionPtr> received;
    for (auto &[name, fn] : s.env) {
        if (!fn.has_extern_definition()) {
            // lower_spmd computes every distributed Func at root; the
            // autoschedulers want to place them (and refuse Funcs placed).
            fn.schedule().compute_level() = Halide::LoopLevel::inlined();
            fn.schedule().store_level() = Halide::LoopLevel::inlined();
            continue;
        }
        const DFuncContents &c = collective_named(plain_name(name), a);
        Halide::ImageParam in(fn.output_types()[0], fn.dimensions(), name + "_received");
        in.set_estimates(estimate(&c, a, ranks));
        std::vector<Halide::Var> args;
        for (const std::string &v : fn.args()) {
            args.emplace_back(v);
        }
        Halide::Func arrived(name + "_arrived");
        arrived(args) = in(args);
        received[fn.get_contents()] = arrived.function().get_contents();
        s.collectives++;
        for (const Halide::ExternFuncArgument &arg : fn.extern_arguments()) {
            if (arg.is_func()) {
                const std::string read = Function(arg.func).name();
                s.root.insert(read);
                root_estimates[read] = estimate(c.collective->source.get(), a, ranks);
            }
        }
    }
    std::vector<Halide::Func> stand_in_outputs;
    std::set<std::string> listed;
    auto add_output = [&](Function fn, const Halide::Region &estimates) {
        if (listed.insert(fn.name()).second) {
            Halide::Func out(fn);
            out.set_estimates(estimates);
            stand_in_outputs.push_back(out);
        }
    };
    // The autoschedulers want constant bounds (Li2018) and an estimate for
    // every parameter, which the user_context handle cannot take (Adams2019).
    AsRankZero rank_zero(ranks);
    for (auto &[name, fn] : s.env) {
        fn.substitute_calls(received);
        fn.mutate(&rank_zero);
    }
    for (size_t i = 0; i < copies.size(); i++) {
        auto it = received.find(copies[i].get_contents());
        add_output(it == received.end() ? copies[i] : Function(it->second),
                   estimate(h.outputs[i], a, ranks));
    }
    for (const std::string &name : s.root) {
        add_output(s.env.at(name), root_estimates.at(name));
    }
    s.pipeline = Halide::Pipeline(stand_in_outputs);
    for (const auto &[name, fn] : pipeline_functions(s.pipeline)) {
        s.funcs.insert(name);
    }
    return s;
}

// The stand-in's directives for a stage onto the segment's (whose reduction
// variables keep their rank-dependent bounds), with every loop split with a
// tail that cannot step outside its box: a rank holds exactly its slice of
// an input, so RoundUp (or ShiftInwards past a small extent), which the
// autoschedulers pick for the estimates' sizes, would read past it.
void carry_stage(const Halide::Internal::Definition &from, Halide::Internal::Definition to) {
    copy_stage_schedule(from, to);
    for (Halide::Internal::Split &split : to.schedule().splits()) {
        if (split.split_type == Halide::Internal::Split::SplitVar) {
            split.tail = Halide::TailStrategy::GuardWithIf;
        }
    }
}

// Carries the stand-in's schedules back to the segment's Funcs, but the
// collectives', and the Funcs they read stay at root. Directives that make
// Funcs of their own (Func::in, rfactor) would leave the segment calling the
// stand-in's, so they are refused.
void carry_back(const StandIn &s, std::map<std::string, Function> &env,
                const std::string &autoscheduler) {
    for (const auto &[name, fn] : pipeline_functions(s.pipeline)) {
        coconet_user_assert(s.funcs.count(name))
            << "autoscheduler " << autoscheduler << " made a Func of its own (" << plain_name(name)
            << ", by rfactor or Func::in), which a segment it schedules "
            << "through a stand-in cannot take";
    }
    for (auto &[name, fn] : env) {
        if (fn.has_extern_definition()) {
            continue;
        }
        const Function &scheduled = s.env.at(name);
        coconet_user_assert(scheduled.schedule().wrappers().empty())
            << "autoscheduler " << autoscheduler << " wrapped " << plain_name(name)
            << " (Func::in), which a segment it schedules through a stand-in cannot take";
        fn.schedule() = scheduled.schedule();
        carry_stage(scheduled.definition(), fn.definition());
        for (size_t i = 0; i < fn.updates().size(); i++) {
            carry_stage(scheduled.update(i), fn.update(i));
        }
        if (s.root.count(name)) {
            fn.schedule().compute_level() = Halide::LoopLevel::root();
            fn.schedule().store_level() = Halide::LoopLevel::root();
        }
    }
}

// Halide 21's autoschedulers abort the process (an exception thrown while
// unwinding) on a parameter they do not know, so those of the three CPU ones
// are checked here first; another plugin's go to it as they are.
void check_params(const std::string &name, const std::map<std::string, std::string> &params) {
    static const std::map<std::string, std::vector<std::string>> known = {
        {"Adams2019",
         {"parallelism", "beam_size", "random_dropout", "random_dropout_seed", "weights_path",
          "disable_subtiling", "disable_memoized_features", "disable_memoized_blocks",
          "memory_limit"}},
        {"Li2018", {"parallelism"}},
        {"Mullapudi2016", {"parallelism", "last_level_cache_size", "balance"}},
    };
    auto it = known.find(name);
    if (it == known.end()) {
        return;
    }
    for (const auto &[key, value] : params) {
        coconet_user_assert(std::count(it->second.begin(), it->second.end(), key))
            << "autoscheduler " << name << " has no parameter '" << key << "' (set to '" << value
            << "'); it has: " << join(it->second);
    }
}

} // namespace

std::string autoschedule_segment(const HalideSegment &h, const Analysis &a, const std::string &name,
                                 const Halide::Target &target, int ranks,
                                 const std::map<std::string, std::string> &params) {
    check_params(name, params);
    std::map<std::string, Function> env = pipeline_functions(h.pipeline);
    const std::vector<std::string> kept = user_scheduled(env);
    if (!kept.empty()) {
        return "kept the user's schedule (" + join(kept) + " scheduled by hand)";
    }
    for (size_t i = 0; i < h.params.size(); i++) {
        Halide::ImageParam p = h.params[i];
        p.set_estimates(estimate(h.param_values[i], a, ranks));
    }
    StandIn s = stand_in(h, env, a, ranks);
    Halide::AutoschedulerParams chosen(name);
    chosen.extra["parallelism"] = "1"; // one thread per rank
    for (const auto &[key, value] : params) {
        chosen.extra[key] = value;
    }
    try {
        s.pipeline.apply_autoscheduler(target, chosen);
    } catch (const Halide::Error &e) {
        coconet_user_assert(false)
            << "autoscheduler " << name << " failed on a segment computing "
            << plain_name(h.pipeline.outputs().front().name()) << ": " << e.what();
    }
    carry_back(s, env, name);
    return "scheduled by " + name +
           (s.collectives == 0
                ? ""
                : " (around its " + std::to_string(s.collectives) + " collective" +
                      (s.collectives > 1 ? "s" : "") + ", whose inputs stay at root)");
}

} // namespace coconet
