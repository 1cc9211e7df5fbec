// Rebuilds a computed distributed Func's definitions as a fresh Halide Func for
// one lowering: calls to distributed Funcs go to whatever implements them there
// (an extern stage, an input buffer, another rebuilt Func), and reduction
// variables over a sliced dimension are restricted to the rank's slice.
// Halide directives given on the user's Func (vectorize, parallel, split, ...)
// are carried over to the rebuilt one.
#ifndef COCONET_REBUILD_H
#define COCONET_REBUILD_H

#include <functional>
#include <map>

#include "Analysis.h"

namespace coconet {

using CalleeMap = std::function<Halide::Func(const DFuncContents &)>;

// The new Func is named `name`, or f's name if empty.
Halide::Func rebuild_compute(const DFuncContents &f, const FuncInfo &info, const CalleeMap &callee,
                             Halide::Expr rank, Halide::Expr world_size,
                             const std::string &name = "");

// Whether the user gave Halide directives (split, vectorize, ...) on any of
// fn's definitions: the passes that schedule Funcs (register tiles, the GPU
// pass, the autoscheduler) leave those alone or refuse.
bool has_stage_directives(const Halide::Internal::Function &fn);

// Halide's directives of `from`'s stage (split, vectorize, parallel, ...)
// onto `to`'s; the loop bounds of to's reduction variables stay its own.
void copy_stage_schedule(const Halide::Internal::Definition &from,
                         Halide::Internal::Definition &to);

// Every Function a pipeline computes, by Halide's unique name, and that name
// without Halide's uniquifier (partial$1 -> partial), for those passes.
std::map<std::string, Halide::Internal::Function> pipeline_functions(const Halide::Pipeline &p);
std::string plain_name(const std::string &unique_name);

// Whether update u writes at fn's own pure variables, in their order (a
// MatMul's `c(i, j) +=`): each element's reduction is then its own.
bool writes_at_pure_vars(const Halide::Internal::Function &fn,
                         const Halide::Internal::Definition &u);

struct DefaultSchedule;

// f's Func as a lowering computes it: rebuild_compute, or, where f asks to
// accumulate_in_registers (or its default schedule, when given, has tiles),
// a Func named like f that copies a staging Func <name>_acc (f's rebuilt
// definitions) computed at each of its tiles; or with its default's vectors;
// or, where its default gives it to a device's BLAS, an extern stage of
// coconet_gemm taking `user_context` (the segment's one). Refuses Halide
// directives on f's definitions with tiles (they would fight them).
Halide::Func rebuild_scheduled(const DFuncContents &f, const FuncInfo &info,
                               const CalleeMap &callee, Halide::Expr rank, Halide::Expr world_size,
                               Halide::Expr user_context,
                               const DefaultSchedule *default_schedule = nullptr);

} // namespace coconet

#endif
