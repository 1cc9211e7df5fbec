// The caller's buffers checked against the program's signature and bound
// to its values (see Executor.h).
#include "executor/Executor.h"

#include <sstream>

namespace {

std::string type_name(int code, int bits, int lanes = 1) {
    static const char *names[] = {"int", "uint", "float", "handle", "bfloat"};
    return std::string(code >= 0 && code < 5 ? names[code] : "type") + std::to_string(bits) +
           (lanes != 1 ? "x" + std::to_string(lanes) : "");
}

std::string layout_name(const coconet_value_info &v) {
    std::string s = v.layout == COCONET_LAYOUT_SLICED  ? "Sliced(" + std::to_string(v.dim) + ")"
                    : v.layout == COCONET_LAYOUT_LOCAL ? "Local"
                                                       : "Replicated";
    if (v.nsplit > 1) {
        s += " on group " + std::to_string(v.group) + " of world.split(" +
             std::to_string(v.nsplit) + ")";
    }
    return s;
}

std::string box_text(int dims, const int32_t *min, const int32_t *extent) {
    std::ostringstream s;
    s << "[";
    for (int d = 0; d < dims; d++) {
        s << (d ? ", " : "") << min[d] << ".." << (int64_t)min[d] + extent[d];
    }
    s << "]";
    return s.str();
}

std::string shape_text(const coconet_value_info &v) {
    std::string s = "[";
    for (int d = 0; d < v.dims; d++) {
        s += (d ? ", " : "") + std::to_string(v.extents[d]);
    }
    return s + "]";
}

// The start of the keys of program p's value memory (Comm::value_memory):

} // namespace

namespace coconet_rt {

std::string Executor::argument_label(int i) const {
    const coconet_value_info &vi = info(p_.args[i]);
    return std::string(i < p_.ninputs ? "input" : "output") + " '" + vi.name + "' (" +
           type_name(vi.type_code, vi.type_bits) + ", " + layout_name(vi) + ")";
}

halide_buffer_t *Executor::checked_argument(int i, halide_buffer_t *b) {
    const int v = p_.args[i];
    const coconet_value_info &vi = info(v);
    auto what = [&] { return argument_label(i); };
    if (!b) {
        fail(COCONET_ERR_INVALID, what() + ": the buffer is NULL");
    }
    if (b->type.code != vi.type_code || b->type.bits != vi.type_bits || b->type.lanes != 1) {
        fail(COCONET_ERR_INVALID,
             what() + ": the buffer holds " + type_name(b->type.code, b->type.bits, b->type.lanes));
    }
    if (b->dimensions != vi.dims) {
        fail(COCONET_ERR_INVALID, what() + ": the buffer has " + std::to_string(b->dimensions) +
                                      " dimensions, the value " + std::to_string(vi.dims));
    }
    if (vi.dims > 0 && !b->dim) {
        fail(COCONET_ERR_INVALID, what() + ": the buffer's dim array is NULL");
    }
    check_layout(i, b);
    if (i >= p_.ninputs) {
        check_no_self_overlap(i, b);
    }
    int32_t min[4], extent[4], got_min[4], got_extent[4];
    box(v, min, extent);
    bool at_zero = true, same = true, same_extents = true;
    for (int d = 0; d < vi.dims; d++) {
        got_min[d] = b->dim[d].min;
        got_extent[d] = b->dim[d].extent;
        at_zero &= got_min[d] == 0;
        same &= got_min[d] == min[d] && got_extent[d] == extent[d];
        same_extents &= got_extent[d] == extent[d];
    }
    // Only an empty box may come without memory (check_layout), as
    // Halide::Runtime::Buffer makes one; Halide would take such a buffer for
    // a bounds query, skip the pipeline (its collectives too) and write a
    // box into it.
    const bool memory = b->host || b->device;
    if (same && memory && (i >= p_.ninputs || b->device)) {
        return dense_input(i, b);
    }
    if (!same && !(at_zero && same_extents)) {
        fail(COCONET_ERR_INVALID,
             what() + " of global shape " + shape_text(vi) + ": this rank's box is " +
                 box_text(vi.dims, min, extent) + ", the buffer covers " +
                 box_text(vi.dims, got_min, got_extent) +
                 (p_.nsizes > 0 ? " (see coconet_arg_box_sized)" : " (see coconet_arg_box)"));
    }
    if (!memory) {
        return &allocate(v).buf;
    }
    // The rank's box, with its mins moved to global coordinates: the same
    // memory, on the host and on the device alike. A host input is a view
    // even in place: the flags and device copies Halide gives it are then
    // this call's, never the caller's (whose buffer other ranks may be
    // reading at the same time).
    OwnedBuffer &view = own();
    view.buf = *b;
    view.borrowed_device = b->device != 0;
    view.buf.dim = view.dim;
    for (int d = 0; d < vi.dims; d++) {
        view.dim[d] = b->dim[d];
        view.dim[d].min = min[d];
    }
    return dense_input(i, &view.buf);
}

halide_buffer_t *Executor::dense_input(int i, halide_buffer_t *b) {
    if (i >= p_.ninputs || coconet_rt::is_dense(b)) {
        return b;
    }
    to_host(b);
    halide_buffer_t *copy = &allocate(p_.args[i]).buf;
    coconet_rt::copy_box(b, copy, coconet_rt::box_of(b));
    return copy;
}

void Executor::check_layout(int i, const halide_buffer_t *b) const {
    auto what = [&] { return argument_label(i); };
    int64_t span = 1;
    bool empty = false;
    for (int d = 0; d < b->dimensions; d++) {
        if (b->dim[d].extent < 0) {
            fail(COCONET_ERR_INVALID, what() + ": dimension " + std::to_string(d) + " has extent " +
                                          std::to_string(b->dim[d].extent));
        }
        empty |= b->dim[d].extent == 0;
    }
    for (int d = 0; d < b->dimensions; d++) {
        const halide_dimension_t &dim = b->dim[d];
        auto where = [&] { return what() + ": dimension " + std::to_string(d); };
        if (!empty && dim.extent > 1 && dim.stride <= 0) {
            fail(COCONET_ERR_INVALID, where() + " has stride " + std::to_string(dim.stride) +
                                          "; the runtime takes positive strides");
        }
        int64_t reach = 0;
        if (__builtin_mul_overflow((int64_t)(dim.extent > 0 ? dim.extent - 1 : 0),
                                   (int64_t)dim.stride, &reach) ||
            __builtin_add_overflow(span, reach, &span)) {
            fail(COCONET_ERR_INVALID, where() + ": the buffer's span overflows 64 bits");
        }
    }
    int64_t bytes = 0;
    if (__builtin_mul_overflow(span, (int64_t)b->type.bytes(), &bytes)) {
        fail(COCONET_ERR_INVALID, what() + ": the buffer's byte size overflows 64 bits");
    }
    if (!empty && !b->host) {
        fail(COCONET_ERR_INVALID,
             what() + (b->device ? ": the buffer has no memory (host is NULL; a device "
                                   "allocation alone is not enough, the runtime reads and "
                                   "writes host memory)"
                                 : ": the buffer has no memory (host is NULL and it has no "
                                   "device allocation)"));
    }
    if (b->device && !b->device_interface) {
        fail(COCONET_ERR_INVALID, what() + ": the buffer has a device allocation but no "
                                           "device_interface");
    }
}

void Executor::check_no_self_overlap(int i, const halide_buffer_t *b) const {
    int dims[COCONET_MAX_DIMS];
    int n = 0;
    for (int d = 0; d < b->dimensions; d++) {
        if (b->dim[d].extent > 1) {
            dims[n++] = d;
        }
    }
    std::sort(dims, dims + n, [&](int x, int y) { return b->dim[x].stride < b->dim[y].stride; });
    for (int k = 1; k < n; k++) {
        const halide_dimension_t &inner = b->dim[dims[k - 1]], &outer = b->dim[dims[k]];
        if ((int64_t)outer.stride < (int64_t)inner.stride * inner.extent) {
            fail(COCONET_ERR_INVALID,
                 argument_label(i) + ": dimensions " + std::to_string(dims[k - 1]) + " and " +
                     std::to_string(dims[k]) + " overlap (stride " + std::to_string(outer.stride) +
                     " < " + std::to_string(inner.stride) + " x " + std::to_string(inner.extent) +
                     "); an output's elements may not share memory");
        }
    }
}

std::string Executor::argument_name(int i) const {
    return std::string(i < p_.ninputs ? "input '" : "output '") + info(p_.args[i]).name + "'";
}

void Executor::check_no_aliasing(halide_buffer_t *const *args) const {
    // The host bytes a buffer spans; none for an empty box (whose
    // begin() and end() are not meaningful) or a device-only buffer.
    auto bytes = [](const halide_buffer_t *b) {
        return b->host && b->number_of_elements() > 0 ? std::make_pair(b->begin(), b->end())
                                                      : std::make_pair(b->host, b->host);
    };
    for (int o = p_.ninputs; o < p_.ninputs + p_.noutputs; o++) {
        const auto [ob, oe] = bytes(args[o]);
        const int in_place = p_.in_place_of ? p_.in_place_of[o - p_.ninputs] : -1;
        for (int i = 0; i < o && ob != oe; i++) {
            const auto [ib, ie] = bytes(args[i]);
            if (ib == ie || ob >= ie || ib >= oe ||
                (i == in_place && coconet_rt::same_elements(args[i], args[o]))) {
                continue;
            }
            std::string why = "; pass outputs that alias no other argument";
            if (i == in_place) {
                why = "; it may update that input in place only as the same host memory and "
                      "box, element for element (same mins, extents and strides, no device "
                      "allocation)";
            } else if (in_place >= 0) {
                why += " (or, updating it in place, " + argument_name(in_place) + ")";
            }
            fail(COCONET_ERR_INVALID,
                 argument_name(o) + " shares memory with " + argument_name(i) + why);
        }
    }
}

void Executor::bind_arguments(halide_buffer_t *const *args) {
    args_.reserve(p_.ninputs + p_.noutputs);
    caller_device_.reserve(p_.noutputs);
    caller_args_ = args;
    caller_had_device_.reserve(p_.ninputs + p_.noutputs);
    for (int i = 0; i < p_.ninputs + p_.noutputs; i++) {
        caller_had_device_.push_back(args[i] && args[i]->device != 0);
    }
    for (int i = 0; i < p_.ninputs + p_.noutputs; i++) {
        args_.push_back(checked_argument(i, args[i]));
    }
    for (int i = 0; i < p_.noutputs; i++) {
        caller_device_.push_back(args[p_.ninputs + i]->device != 0);
    }
    check_no_aliasing(args);
    for (int i = 0; i < p_.ninputs; i++) {
        values_[p_.args[i]] = args_[i];
    }
    // A step writes an output straight into the caller's buffer, unless
    // the output is an input, a view of another value or held in another
    // box (copied at the end).
    for (int i = 0; i < p_.noutputs; i++) {
        const int v = p_.output_values[i];
        halide_buffer_t *user = args_[p_.ninputs + i];
        if (!values_[v] && !is_slice_view(v) && holds_box_of(user, v) &&
            coconet_rt::is_dense(user)) {
            values_[v] = user;
        }
    }
}

} // namespace coconet_rt
