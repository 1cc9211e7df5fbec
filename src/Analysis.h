// What the analysis passes know about a program: its distributed Funcs in
// dependency order, and for each its layout, global shape and the reduction
// variables that range over a sliced dimension (restricted to the rank's slice
// when lowered).
#ifndef COCONET_ANALYSIS_H
#define COCONET_ANALYSIS_H

#include <map>
#include <string>
#include <vector>

#include "DFunc.h"
#include "Program.h"

namespace coconet {

// A reduction variable that indexes a Sliced Func along its sliced dimension:
// each rank reduces over its own slice only, giving a Local partial result.
struct SlicedRVar {
    Group group;
    Halide::Expr extent; // the global extent that is sliced
};

struct FuncInfo {
    Layout layout;
    Extents extents;
    std::map<std::string, SlicedRVar> sliced_rvars; // by RVar name
};

struct Analysis {
    std::vector<DFunc> order;  // producers before consumers
    std::vector<DFunc> inputs; // in creation order: the signature's order
    std::map<const DFuncContents *, FuncInfo> info;
    // The run-time sizes, in signature order, and what a call must check of them.
    std::vector<RuntimeSize> sizes;
    std::vector<ExtentConstraint> constraints;

    const FuncInfo &of(const DFunc &f) const;
    const FuncInfo &of(const DFuncContents *f) const;
};

// A call from one distributed Func's definition to another's.
struct DistributedCall {
    std::shared_ptr<DFuncContents> callee;
    std::vector<Halide::Expr> args;
};

// The pure definition and the updates of a computed Func.
std::vector<Halide::Internal::Definition> definitions_of(const DFuncContents &f);

// Calls to other distributed Funcs in a definition (its args, values and
// predicate); calls of f to itself are left out.
std::vector<DistributedCall> distributed_calls(const DFuncContents &f,
                                               const Halide::Internal::Definition &def);

} // namespace coconet

#endif
