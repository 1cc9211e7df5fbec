// Element types and reduction operators (see Reduce.h).
#include "core/Reduce.h"

namespace coconet_rt {

bool supported_type(const halide_type_t &t) {
    if (t.lanes != 1) {
        return false;
    }
    if (t.code == halide_type_float) {
        return t.bits == 32 || t.bits == 64;
    }
    return (t.code == halide_type_int || t.code == halide_type_uint) &&
           (t.bits == 8 || t.bits == 16 || t.bits == 32 || t.bits == 64);
}

std::string type_name(const halide_type_t &t) {
    const char *code = t.code == halide_type_float  ? "float"
                       : t.code == halide_type_int  ? "int"
                       : t.code == halide_type_uint ? "uint"
                                                    : "type";
    std::string s = code + std::to_string(t.bits);
    if (t.lanes != 1) {
        s += "x" + std::to_string(t.lanes);
    }
    return s;
}

bool valid_reduce_op(int op) {
    return op >= COCONET_SUM && op <= COCONET_MIN;
}

const char *reduce_op_name(int op) {
    switch (op) {
    case COCONET_SUM: return "sum";
    case COCONET_PROD: return "prod";
    case COCONET_MAX: return "max";
    case COCONET_MIN: return "min";
    default: return "unknown op";
    }
}

} // namespace coconet_rt
