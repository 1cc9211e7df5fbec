#include "DFunc.h"

#include <atomic>
#include <map>
#include <mutex>

#include "Error.h"

namespace coconet {

namespace {

// Maps the identity of each placeholder Halide Function to its distributed
// Func, so that passes can tell distributed calls from plain Halide calls. The
// entries are strong: a definition refers to its callees only through Halide
// Call nodes, so a callee's DFunc (an input made in a helper function, say)
// must outlive every handle the user held. Distributed Funcs are small and
// programs are built once, so they live until the process exits.
std::mutex registry_mutex;
std::map<const void *, std::shared_ptr<DFuncContents>> &registry() {
    static auto *r = new std::map<const void *, std::shared_ptr<DFuncContents>>();
    return *r;
}
std::atomic<uint64_t> next_serial{0};

const void *identity(const Halide::Internal::Function &f) {
    return f.get_contents().get();
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
    std::lock_guard<std::mutex> lock(registry_mutex);
    auto it = registry().find(identity(f));
    return it == registry().end() ? nullptr : it->second;
}

DFunc make_dfunc(const std::string &name, FuncKind kind, const Halide::Func &func) {
    coconet_user_assert(!name.empty()) << "A distributed Func needs a name.";
    auto c = std::make_shared<DFuncContents>();
    c->name = name;
    c->kind = kind;
    c->func = func.defined() ? func : Halide::Func(name);
    c->serial = next_serial++;
    std::lock_guard<std::mutex> lock(registry_mutex);
    registry()[identity(c->func.function())] = c;
    return DFunc(c);
}

} // namespace Internal

DFunc::DFunc(const std::string &name) : DFunc(Internal::make_dfunc(name, FuncKind::Compute)) {}

DFunc::DFunc(const std::string &name, const std::vector<int> &extents) : DFunc(name) {
    for (int e : extents) {
        coconet_user_assert(e >= 0) << "DFunc " << name << ": extent " << e << " is negative.";
    }
    contents->extents = extents;
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
    return contents->func;
}

DFunc input(const std::string &name, Halide::Type type, const std::vector<int> &extents,
            const Layout &layout) {
    coconet_user_assert(extents.size() <= 4)
        << "Input " << name << " has " << extents.size() << " dimensions; at most 4 are supported.";
    for (int e : extents) {
        coconet_user_assert(e >= 0) << "Input " << name << ": extent " << e << " is negative.";
    }
    coconet_user_assert(layout.kind != LayoutKind::Sliced ||
                        (layout.dim >= 0 && layout.dim < (int)extents.size()))
        << "Input " << name << " is declared " << layout.to_string() << " but has "
        << extents.size() << " dimensions.";
    DFunc f = Internal::make_dfunc(name, FuncKind::Input);
    DFuncContents &c = *f.get_contents();
    c.extents = extents;
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
