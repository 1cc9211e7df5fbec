#include "Extent.h"

#include <sstream>

#include "Error.h"

namespace coconet {

using namespace Halide::Internal;

std::string size_name(const Halide::Expr &e) {
    const Variable *v = e.as<Variable>();
    return v && v->param.defined() ? v->param.name() : "";
}

std::optional<int> constant_extent(const Halide::Expr &e) {
    if (const std::optional<int64_t> c = as_const_int(e)) {
        return (int)*c;
    }
    return std::nullopt;
}

Halide::Expr checked_extent(const Halide::Expr &e, const std::string &what) {
    coconet_user_assert(e.defined()) << what << ": an extent is undefined.";
    if (const std::optional<int64_t> c = as_const_int(e)) {
        coconet_user_assert(*c >= 0 && *c <= INT32_MAX)
            << what << ": extent " << *c << " is negative or does not fit in 32 bits.";
        return Halide::Expr((int32_t)*c);
    }
    const Variable *v = e.as<Variable>();
    coconet_user_assert(v && v->param.defined() && !v->param.is_buffer() &&
                        v->type == Halide::Int(32))
        << what << ": extent " << to_string(e)
        << " is neither a constant nor a run-time size (a Halide Param<int32_t>).";
    return e;
}

Extents to_extents(const std::vector<int> &extents) {
    return Extents(extents.begin(), extents.end());
}

Extents to_extents(std::initializer_list<ExtentArg> extents) {
    Extents out;
    for (const ExtentArg &e : extents) {
        out.push_back(e.expr);
    }
    return out;
}

bool same_extent(const Halide::Expr &a, const Halide::Expr &b) {
    return equal(a, b);
}

std::string to_string(const Halide::Expr &e) {
    if (const std::string n = size_name(e); !n.empty()) {
        return n;
    }
    std::ostringstream s;
    s << e;
    return s.str();
}

std::string to_string(const Extents &extents) {
    std::string s;
    for (size_t d = 0; d < extents.size(); d++) {
        s += (d ? ", " : "") + to_string(extents[d]);
    }
    return s;
}

std::vector<int> bind_extents(const Extents &extents, const Sizes &sizes, const std::string &who) {
    std::vector<int> out;
    for (const Halide::Expr &e : extents) {
        if (const std::optional<int> c = constant_extent(e)) {
            out.push_back(*c);
            continue;
        }
        const std::string n = size_name(e);
        auto it = sizes.find(n);
        coconet_user_assert(it != sizes.end()) << who << " has the run-time extent " << n
                                               << ", but no value of " << n << " was given.";
        coconet_user_assert(it->second >= 0)
            << who << ": run-time size " << n << " = " << it->second << " is negative.";
        out.push_back(it->second);
    }
    return out;
}

int32_t table_extent(const Halide::Expr &e, const std::vector<RuntimeSize> &sizes) {
    if (const std::optional<int> c = constant_extent(e)) {
        return *c;
    }
    const std::string n = size_name(e);
    for (size_t k = 0; k < sizes.size(); k++) {
        if (sizes[k].name == n) {
            return -(int32_t)k - 1;
        }
    }
    coconet_internal_assert(false) << "extent " << n << " is not among the program's sizes";
    return 0;
}

std::vector<Halide::Argument> size_arguments(const std::vector<RuntimeSize> &sizes) {
    std::vector<Halide::Argument> args;
    for (const RuntimeSize &s : sizes) {
        args.emplace_back(s.name, Halide::Argument::InputScalar, s.param.type(), 0,
                          s.param.get_argument_estimates());
    }
    return args;
}

int64_t estimate(const Halide::Expr &e, int64_t fallback) {
    if (const std::optional<int> c = constant_extent(e)) {
        return *c;
    }
    const Variable *v = e.as<Variable>();
    if (v && v->param.defined()) {
        if (const std::optional<int64_t> c = as_const_int(v->param.estimate())) {
            return *c;
        }
    }
    return fallback;
}

} // namespace coconet
