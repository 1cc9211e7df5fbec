#include "InPlace.h"

#include <algorithm>
#include <map>

namespace coconet {

using Halide::Internal::Call;
using Halide::Internal::Definition;
using Halide::Internal::Function;
using Halide::Internal::IRVisitor;
using Halide::Internal::Variable;

namespace {

// The calls of one callee in a Function's definitions: those at the
// Function's own pure variables in order, and the others.
class CallsOf : public IRVisitor {
public:
    CallsOf(const std::string &callee, const std::vector<std::string> &args)
        : callee_(callee), args_(args) {}

    int own = 0, other = 0;

private:
    using IRVisitor::visit;

    void visit(const Call *op) override {
        if (op->name == callee_ &&
            (op->call_type == Call::Halide || op->call_type == Call::Image)) {
            bool at_own = op->args.size() == args_.size();
            for (size_t k = 0; at_own && k < args_.size(); k++) {
                const Variable *v = op->args[k].as<Variable>();
                at_own = v && v->name == args_[k];
            }
            (at_own ? own : other)++;
        }
        IRVisitor::visit(op);
    }

    const std::string &callee_;
    const std::vector<std::string> &args_;
};

CallsOf calls_of(const Function &fn, const std::string &callee) {
    CallsOf c(callee, fn.args());
    fn.accept(&c);
    // An extern stage (a collective) reads its Func and buffer arguments whole.
    if (fn.has_extern_definition()) {
        for (const Halide::ExternFuncArgument &arg : fn.extern_arguments()) {
            const bool named = (arg.is_func() && Function(arg.func).name() == callee) ||
                               (arg.is_image_param() && arg.image_param.name() == callee) ||
                               (arg.is_buffer() && arg.buffer.name() == callee);
            c.other += named ? 1 : 0;
        }
    }
    return c;
}

// Whether a split of d (or of a specialization of it) computes some elements
// twice: ShiftInwards, which a pure output's Auto tail strategy becomes.
bool recomputes(const Definition &d) {
    for (const Halide::Internal::Split &s : d.schedule().splits()) {
        if (s.split_type == Halide::Internal::Split::SplitVar &&
            (s.tail == Halide::TailStrategy::ShiftInwards ||
             s.tail == Halide::TailStrategy::Auto)) {
            return true;
        }
    }
    return std::any_of(
        d.specializations().begin(), d.specializations().end(),
        [](const Halide::Internal::Specialization &s) { return recomputes(s.definition); });
}

bool same_value_shape(const ProgramValue &a, const ProgramValue &b) {
    const coconet_value_info x = value_info(a), y = value_info(b);
    return a.type == b.type && x.dims == y.dims &&
           std::equal(x.extents, x.extents + 4, y.extents) && x.layout == y.layout &&
           x.dim == y.dim && x.nsplit == y.nsplit && x.group == y.group;
}

// The steps that read value v.
std::vector<int> readers(const ProgramPlan &plan, int v) {
    auto has = [v](const std::vector<int> &ids) {
        return std::find(ids.begin(), ids.end(), v) != ids.end();
    };
    std::vector<int> r;
    for (size_t s = 0; s < plan.steps.size(); s++) {
        const ProgramStep &st = plan.steps[s];
        if (has(st.params) || st.src == v || has(st.extras)) {
            r.push_back((int)s);
        }
    }
    return r;
}

// Whether step `step` (a Halide pipeline) computes output value o reading
// input value i only at o's own coordinates, and nothing else of it reads i.
bool updates_in_place(const LoweredProgram &lowered, const ProgramStep &step, int i, int o) {
    const HalideSegment &h = lowered.spmd.segments[step.segment].halide;
    const auto param = std::find(step.params.begin(), step.params.end(), i);
    const auto out = std::find(step.outs.begin(), step.outs.end(), o);
    if (param == step.params.end() || out == step.outs.end()) {
        return false;
    }
    const std::string input = h.params[param - step.params.begin()].name();
    std::vector<Function> outputs;
    for (const Halide::Func &f : h.pipeline.outputs()) {
        outputs.push_back(f.function());
    }
    const Function fo = outputs[out - step.outs.begin()];
    if (fo.has_update_definition() || fo.has_extern_definition() || recomputes(fo.definition())) {
        return false;
    }
    // The input is read through its ImageParam's Func (`<name>_im`), an
    // identity: that Func alone may read the parameter, and o alone may
    // call that Func. Wherever that Func is computed, it reads the elements
    // o is about to write, before o writes them.
    const std::map<std::string, Function> env = Halide::Internal::build_environment(outputs);
    std::string reader;
    for (const auto &[name, fn] : env) {
        const CallsOf c = calls_of(fn, input);
        if (c.own + c.other == 0) {
            continue;
        }
        const bool identity = c.other == 0 && c.own == 1 && !fn.has_update_definition();
        if (!reader.empty() || !identity) {
            return false;
        }
        reader = name;
    }
    if (reader.empty()) {
        return false;
    }
    for (const auto &[name, fn] : env) {
        const CallsOf c = calls_of(fn, reader);
        if (c.other > 0 || (c.own > 0 && !fn.same_as(fo))) {
            return false;
        }
    }
    return true;
}

} // namespace

std::vector<int> find_in_place(const LoweredProgram &lowered, const ProgramPlan &plan) {
    const int noutputs = (int)plan.output_values.size();
    std::vector<int> in_place(noutputs, -1);
    if (plan.device_api != 0) {
        return in_place;
    }
    for (int k = 0; k < noutputs; k++) {
        const int o = plan.output_values[k];
        if (plan.args[plan.ninputs + k] != o || o < 0) {
            continue; // held by another value until the call ends
        }
        for (int a = 0; a < plan.ninputs && in_place[k] < 0; a++) {
            const int i = plan.args[a];
            const std::vector<int> steps = readers(plan, i);
            if (i != o && same_value_shape(plan.values[i], plan.values[o]) && steps.size() == 1 &&
                plan.steps[steps[0]].kind == COCONET_STEP_HALIDE &&
                updates_in_place(lowered, plan.steps[steps[0]], i, o)) {
                in_place[k] = a;
            }
        }
    }
    return in_place;
}

std::string in_place_text(const ProgramPlan &plan) {
    std::string s;
    for (size_t k = 0; k < plan.in_place_of.size(); k++) {
        if (plan.in_place_of[k] >= 0) {
            s += "  " + plan.values[plan.output_values[k]].name +
                 " may be passed in the memory of " +
                 plan.values[plan.args[plan.in_place_of[k]]].name + " (updating it in place)\n";
        }
    }
    return s;
}

} // namespace coconet
