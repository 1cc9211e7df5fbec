#include "Analysis.h"

#include "Error.h"

namespace coconet {

using namespace Halide::Internal;

const FuncInfo &Analysis::of(const DFunc &f) const {
    return of(f.get_contents().get());
}

const FuncInfo &Analysis::of(const DFuncContents *f) const {
    auto it = info.find(f);
    coconet_internal_assert(it != info.end()) << "no analysis of " << (f ? f->name : "null");
    return it->second;
}

std::vector<Definition> definitions_of(const DFuncContents &f) {
    std::vector<Definition> defs;
    Function fn = f.func.function();
    if (fn.has_pure_definition()) {
        defs.push_back(fn.definition());
    }
    for (const Definition &u : fn.updates()) {
        defs.push_back(u);
    }
    return defs;
}

namespace {

class CallFinder : public IRGraphVisitor {
public:
    CallFinder(const DFuncContents &self) : self(self) {}

    const DFuncContents &self;
    std::vector<DistributedCall> calls;

private:
    using IRGraphVisitor::visit;

    void visit(const Call *op) override {
        IRGraphVisitor::visit(op);
        if (op->call_type == Call::Image && op->param.defined()) {
            coconet_user_error << self.name << " reads the Halide parameter " << op->name
                               << " directly; declare distributed inputs with coconet::input.";
        }
        if (op->call_type != Call::Halide) {
            return;
        }
        Function callee(op->func);
        auto c = Internal::find_dfunc(callee);
        if (c && c.get() != &self) {
            calls.push_back(DistributedCall{c, op->args});
        }
    }
};

} // namespace

std::vector<DistributedCall> distributed_calls(const DFuncContents &f, const Definition &def) {
    CallFinder finder(f);
    for (const Halide::Expr &e : def.args()) {
        e.accept(&finder);
    }
    for (const Halide::Expr &e : def.values()) {
        e.accept(&finder);
    }
    if (def.predicate().defined()) {
        def.predicate().accept(&finder);
    }
    return finder.calls;
}

} // namespace coconet
