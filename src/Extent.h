// Global extents: a constant, or a size given at run time. A run-time size is
// a Halide Param<int32_t> (as a Halide generator takes a scalar parameter):
// the program's libraries and JIT programs take its value at each call, so one
// compiled program serves every size.
#ifndef COCONET_EXTENT_H
#define COCONET_EXTENT_H

#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "Halide.h"

namespace coconet {

using Extents = std::vector<Halide::Expr>;

// One extent of a braced list ({n, 1024}, {}): an integer, a generator
// parameter, or an Expr (a Param<int32_t> among them). One type, so that
// every braced list, the empty one included, picks one overload.
struct ExtentArg {
    template<typename T>
    ExtentArg(const T &value) // NOLINT: implicit, as the list's elements
        : expr(to_expr(value)) {}
    Halide::Expr expr;

private:
    template<typename T>
    static Halide::Expr to_expr(const T &value) {
        if constexpr (std::is_convertible_v<T, Halide::Expr>) {
            return Halide::Expr(value);
        } else {
            return Halide::Expr((int)value); // a generator parameter converts to int
        }
    }
};

Extents to_extents(std::initializer_list<ExtentArg> extents);

// Values of a program's run-time sizes, by the names of their Params.
using Sizes = std::map<std::string, int>;

// The run-time size `e` names, or "" for a constant.
std::string size_name(const Halide::Expr &e);

// The constant, if `e` is one.
std::optional<int> constant_extent(const Halide::Expr &e);

// Checks that `e` is a constant >= 0 or a scalar int32 Param (user error
// naming `what` otherwise) and returns it, constants as int32.
Halide::Expr checked_extent(const Halide::Expr &e, const std::string &what);

Extents to_extents(const std::vector<int> &extents);

// Whether two extents are the same constant or the same run-time size.
bool same_extent(const Halide::Expr &a, const Halide::Expr &b);

// "1024", "n"; "n, 64" for a list.
std::string to_string(const Halide::Expr &e);
std::string to_string(const Extents &extents);

// The extents with their run-time sizes taken from `sizes`; a size missing
// there is a user error naming `who` and the size.
std::vector<int> bind_extents(const Extents &extents, const Sizes &sizes, const std::string &who);

// For choices made when compiling: the constant, or the size's estimate
// (Param::set_estimate), else `fallback`.
int64_t estimate(const Halide::Expr &e, int64_t fallback);

// A program's run-time sizes, in the order of its signature: those of its
// inputs' extents (inputs in creation order, dimensions in order), then
// those only declared Funcs name.
struct RuntimeSize {
    std::string name;
    Halide::Parameter param;
    Halide::Expr expr; // the Param as an Expr
};

// An extent as the runtime's tables hold it: the constant, or -(k + 1) for
// run-time size k of `sizes` (COCONET_SIZE_REF in coconet_aot.h).
int32_t table_extent(const Halide::Expr &e, const std::vector<RuntimeSize> &sizes);

// The sizes as arguments of a compiled function (Halide int32 scalars).
std::vector<Halide::Argument> size_arguments(const std::vector<RuntimeSize> &sizes);

// A condition on the run-time sizes that the program needs and only a call
// can check: extents `a` and `b` (at least one a run-time size) are equal.
// `what` says which Funcs need it, for the message.
struct ExtentConstraint {
    Halide::Expr a, b;
    std::string what;
};

} // namespace coconet

#endif
