#include "DFunc.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <set>
#include <sstream>

#include "Analysis.h"
#include "Error.h"

namespace coconet {

namespace {

using Halide::Internal::Call;

// Maps the identity of each placeholder Halide Function to its distributed
// Func, so that passes can tell distributed calls from plain Halide calls. The
// entries are strong: a definition refers to its callees only through Halide
// Call nodes, so a callee's DFunc (an input made in a helper function, say)
// must outlive every handle the user held. What nothing reaches any more is
// freed by collect(), run whenever the registry has doubled since the last
// one, so that a process building programs again and again stays bounded.
struct Registry {
    std::mutex mutex;
    std::map<const void *, std::shared_ptr<DFuncContents>> funcs;
    size_t next_collection = Internal::dfunc_collection_threshold;
};
Registry &registry() {
    static auto *r = new Registry();
    return *r;
}
std::atomic<uint64_t> next_serial{0};

const void *identity(const Halide::Internal::Function &f) {
    return f.get_contents().get();
}

// The distributed Funcs a Func holds through its schedule and its collective.
std::vector<DFuncContents *> held_by(const DFuncContents &f) {
    std::vector<DFuncContents *> held;
    for (const auto *p : {&f.sliced_part, &f.gathered, &f.fused_into}) {
        if (*p) {
            held.push_back(p->get());
        }
    }
    if (f.collective && f.collective->source) {
        held.push_back(f.collective->source.get());
    }
    return held;
}

// The placeholder Functions a definition calls.
class CalledFunctions : public Halide::Internal::IRGraphVisitor {
public:
    std::vector<const void *> called;

private:
    using IRGraphVisitor::visit;

    void visit(const Call *op) override {
        IRGraphVisitor::visit(op);
        if (op->call_type == Call::Halide) {
            called.push_back(op->func.get());
        }
    }
};

// Frees the entries that no handle, Program or plan holds and no held entry
// reaches (through its pointers or the calls of its definitions). An entry is
// held from outside when it has more owners than the registry and the other
// entries' pointers. Returns how many entries remain. Called with the lock.
size_t collect(Registry &r) {
    std::map<const DFuncContents *, long> owners_inside;
    for (const auto &kv : r.funcs) {
        owners_inside[kv.second.get()]++;
        for (const DFuncContents *h : held_by(*kv.second)) {
            owners_inside[h]++;
        }
    }
    std::vector<DFuncContents *> pending;
    std::set<const DFuncContents *> live;
    for (const auto &kv : r.funcs) {
        if (kv.second.use_count() > owners_inside[kv.second.get()]) {
            pending.push_back(kv.second.get());
            live.insert(kv.second.get());
        }
    }
    while (!pending.empty()) {
        DFuncContents *f = pending.back();
        pending.pop_back();
        std::vector<DFuncContents *> reached = held_by(*f);
        if (f->func.defined()) {
            CalledFunctions calls;
            for (const auto &def : definitions_of(*f)) {
                def.accept(&calls);
            }
            for (const void *callee : calls.called) {
                auto it = r.funcs.find(callee);
                if (it != r.funcs.end()) {
                    reached.push_back(it->second.get());
                }
            }
        }
        for (DFuncContents *g : reached) {
            if (live.insert(g).second) {
                pending.push_back(g);
            }
        }
    }
    std::vector<std::shared_ptr<DFuncContents>> dead;
    for (auto it = r.funcs.begin(); it != r.funcs.end();) {
        if (live.count(it->second.get())) {
            ++it;
        } else {
            dead.push_back(std::move(it->second));
            it = r.funcs.erase(it);
        }
    }
    // The dead may hold each other in cycles (a Func fused into the pass of
    // its own all_gather): cut them.
    for (const auto &f : dead) {
        f->sliced_part = f->gathered = f->fused_into = nullptr;
        f->collective.reset();
    }
    return r.funcs.size();
}

} // namespace

const char *to_string(CollectiveKind k) {
    switch (k) {
    case CollectiveKind::AllReduce: return "all_reduce";
    case CollectiveKind::ReduceScatter: return "reduce_scatter";
    case CollectiveKind::AllGather: return "all_gather";
    case CollectiveKind::Broadcast: return "broadcast";
    case CollectiveKind::Reduce: return "reduce";
    case CollectiveKind::AllToAll: return "all_to_all";
    case CollectiveKind::SendRecv: return "send";
    }
    return "?";
}

const char *to_string(ReduceOp op) {
    switch (op) {
    case ReduceOp::Sum: return "sum";
    case ReduceOp::Prod: return "prod";
    case ReduceOp::Max: return "max";
    case ReduceOp::Min: return "min";
    }
    return "?";
}

namespace Internal {

std::shared_ptr<DFuncContents> find_dfunc(const Halide::Internal::Function &f) {
    Registry &r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    auto it = r.funcs.find(identity(f));
    return it == r.funcs.end() ? nullptr : it->second;
}

DFunc make_dfunc(const std::string &name, FuncKind kind, const Halide::Func &func) {
    coconet_user_assert(!name.empty()) << "A distributed Func needs a name.";
    auto c = std::make_shared<DFuncContents>();
    c->name = name;
    c->kind = kind;
    c->func = func.defined() ? func : Halide::Func(name);
    c->serial = next_serial++;
    Registry &r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    r.funcs[identity(c->func.function())] = c;
    if (r.funcs.size() >= r.next_collection) {
        r.next_collection = std::max(dfunc_collection_threshold, 2 * collect(r));
    }
    return DFunc(c);
}

size_t registered_dfuncs() {
    Registry &r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    return r.funcs.size();
}

size_t collect_dfuncs() {
    Registry &r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    return collect(r);
}

std::string unnamed_hint(const DFunc &f) {
    const DFuncContents &c = *f.get_contents();
    if (!c.collective || !c.collective->source) {
        return "";
    }
    const std::string kind = to_string(c.collective->kind);
    if (c.name != kind + "_" + c.collective->source->name) {
        return "";
    }
    return " (a collective given no name is named " + kind +
           "_<input>: name it with the collective's last argument)";
}

void check_element_type(const Halide::Type &type, const std::string &what) {
    const bool ok =
        type.lanes() == 1 && (type.is_float() ? type.bits() == 32 || type.bits() == 64
                                              : type.is_int_or_uint() && type.bits() >= 8);
    if (!ok) {
        std::ostringstream name;
        if (type.is_bool()) {
            name << "bool";
        } else {
            name << type;
        }
        coconet_user_error << what << " has element type " << name.str()
                           << "; distributed Funcs take float, double or an 8- to 64-bit integer.";
    }
}

} // namespace Internal

DFunc::DFunc(const std::string &name) : DFunc(Internal::make_dfunc(name, FuncKind::Compute)) {}

DFunc::DFunc(const std::string &name, const std::vector<int> &extents)
    : DFunc(name, to_extents(extents)) {}

DFunc::DFunc(const std::string &name, const Extents &extents) : DFunc(name) {
    for (const Halide::Expr &e : extents) {
        contents->extents.push_back(checked_extent(e, "DFunc " + name));
    }
}

const std::string &DFunc::name() const {
    return contents->name;
}

FuncKind DFunc::kind() const {
    return contents->kind;
}

int DFunc::dimensions() const {
    return contents->func.defined() ? contents->func.dimensions() : (int)contents->extents.size();
}

Halide::Func &DFunc::func() const {
    coconet_user_assert(contents) << "func() on a null DFunc.";
    coconet_user_assert(contents->kind == FuncKind::Compute)
        << contents->name << ".func(): " << contents->name << " is "
        << (contents->kind == FuncKind::Input
                ? std::string("an input")
                : std::string("a collective (") + to_string(contents->collective->kind) + ")")
        << ", whose Halide Func is the runtime's; Halide's directives apply to computed Funcs "
           "(a collective is scheduled with split_collective, overlap and fuse_with).";
    return contents->func;
}

DFunc input(const std::string &name, Halide::Type type, const std::vector<int> &extents,
            const Layout &layout) {
    return input(name, type, to_extents(extents), layout);
}

DFunc input(const std::string &name, Halide::Type type, const Extents &extents,
            const Layout &layout) {
    coconet_user_assert(extents.size() <= 4)
        << "Input " << name << " has " << extents.size() << " dimensions; at most 4 are supported.";
    coconet_user_assert(layout.kind != LayoutKind::Sliced ||
                        (layout.dim >= 0 && layout.dim < (int)extents.size()))
        << "Input " << name << " is declared " << layout.to_string() << " but has "
        << extents.size() << " dimensions.";
    Internal::check_element_type(type, "Input " + name);
    DFunc f = Internal::make_dfunc(name, FuncKind::Input);
    DFuncContents &c = *f.get_contents();
    for (const Halide::Expr &e : extents) {
        c.extents.push_back(checked_extent(e, "Input " + name));
    }
    c.layout = layout;
    c.param = Halide::ImageParam(type, (int)extents.size(), name);
    // The placeholder forwards to the parameter so that calls to the input are
    // ordinary Halide calls.
    std::vector<Halide::Var> args;
    for (size_t d = 0; d < extents.size(); d++) {
        args.push_back(Halide::Var("d" + std::to_string(d)));
    }
    c.func(args) = (*c.param)(args);
    return f;
}

} // namespace coconet
