// The values that cross steps: their memory, where their newest data is
// (host or device), and the outputs returned where the caller keeps them
// (see Executor.h).
#include "executor/Executor.h"

#include <cstdio>

namespace coconet_rt {

std::string value_memory_prefix(const coconet_aot_program &p) {
    char table[32];
    std::snprintf(table, sizeof(table), "%p", (const void *)&p);
    return std::string(p.name) + "@" + table + " ";
}

void Executor::box(int v, int32_t *min, int32_t *extent) const {
    coconet_value_box(&info(v), rank_, size_, min, extent);
}

bool Executor::holds_box_of(const halide_buffer_t *b, int v) const {
    int32_t min[4], extent[4];
    box(v, min, extent);
    if (b->dimensions != info(v).dims) {
        return false;
    }
    for (int d = 0; d < b->dimensions; d++) {
        if (b->dim[d].min != min[d] || b->dim[d].extent != extent[d]) {
            return false;
        }
    }
    return true;
}

bool Executor::is_slice_view(int v) const {
    for (int s = 0; s < p_.nsteps; s++) {
        const coconet_aot_step &st = p_.steps[s];
        for (int o = 0; st.kind == COCONET_STEP_FUSED && o < st.pass.nout; o++) {
            if (st.slices[o] == v && st.pass.gathered[o]) {
                return true;
            }
        }
    }
    return false;
}

halide_buffer_t *Executor::output_buffer(int v) {
    if (!values_[v]) {
        values_[v] = &allocate(v).buf;
    }
    return values_[v];
}

void Executor::place_pass_values() {
    const size_t from = comm_->places_values_from();
    if (from == SIZE_MAX) {
        return;
    }
    std::vector<int> values;
    for (int v = 0; v < p_.nvalues; v++) {
        // The size first: whether a value is in a pass takes longer to say.
        if (member_share_bytes(v) >= from && coconet_aot_value_in_pass(&p_, v)) {
            values.push_back(v);
        }
    }
    if (values.empty()) {
        return; // nor the key, on every call of a program with small values
    }
    std::vector<size_t> bytes;
    const std::string prefix = value_memory_prefix(sized_.table());
    std::string key = prefix;
    for (int v : values) {
        bytes.push_back((size_t)box_of_value(v).count() * (info(v).type_bits / 8));
        key += info(v).name;
        for (int32_t e : info(v).extents) {
            key += "," + std::to_string(e);
        }
        key += " ";
    }
    if (sized_.nsizes() > 0) {
        // Every rank holds the same key (the sizes agree), so every rank
        // frees alike.
        std::string &held = executor_state(comm_).value_memory_key[prefix];
        if (!held.empty() && held != key && comm_->release_value_memory(held) != COCONET_OK) {
            fail(coconet_comm_last_error_code(comm_), coconet_comm_last_error(comm_));
        }
        held = key;
    }
    std::vector<uint8_t *> memory;
    const int rc = comm_->value_memory(key, bytes, &memory);
    if (rc != COCONET_OK) {
        fail(rc, coconet_comm_last_error(comm_));
    }
    for (size_t i = 0; i < memory.size(); i++) {
        placed_[values[i]] = memory[i];
    }
}

size_t Executor::member_share_bytes(int v) const {
    const coconet_value_info &vi = info(v);
    size_t bytes = vi.type_bits / 8;
    for (int d = 0; d < vi.dims; d++) {
        bytes *= (size_t)vi.extents[d];
    }
    int first = 0, count = 1;
    if (vi.layout == COCONET_LAYOUT_SLICED) {
        coconet_group_range(size_, vi.nsplit, vi.group, &first, &count);
    }
    return bytes / (size_t)std::max(count, 1);
}

OwnedBuffer &Executor::allocate(int v) {
    const coconet_value_info &vi = info(v);
    OwnedBuffer &b = own();
    auto placed = placed_.find(v);
    dense_box(b, halide_type_t((halide_type_code_t)vi.type_code, vi.type_bits), box_of_value(v),
              placed == placed_.end() ? nullptr : placed->second);
    return b;
}

void Executor::dense_box(OwnedBuffer &b, halide_type_t type, const Box &box,
                         uint8_t *memory) const {
    b.buf.type = type;
    b.buf.dimensions = box.dims;
    b.buf.dim = b.dim;
    int64_t count = 1;
    for (int d = 0; d < box.dims; d++) {
        b.dim[d] = halide_dimension_t((int32_t)box.min[d], (int32_t)box.extent[d], (int32_t)count);
        count *= box.extent[d];
    }
    // Empty boxes get a valid host pointer too: Halide takes a buffer
    // without one for a bounds query.
    if (memory && count > 0) {
        b.buf.host = memory;
        return;
    }
    b.data = executor_state(comm_).host_pool.take(std::max<int64_t>(count, 1) * type.bytes());
    b.buf.host = b.data.get();
}

halide_buffer_t *Executor::value(int v) const {
    if (!values_[v]) {
        fail(COCONET_ERR_INVALID, std::string("internal error: '") + info(v).name +
                                      "' is read before any step computed it");
    }
    return values_[v];
}

void Executor::to_host(halide_buffer_t *b) const {
    device_check(coconet_rt::device_to_host(*comm_, b), "copying a buffer to the host");
}

void Executor::device_check(int status, const std::string &what) const {
    if (status != 0) {
        const std::string why = coconet_comm_last_error(comm_);
        fail(COCONET_ERR_BACKEND, what + " failed (Halide error " + std::to_string(status) +
                                      (why.empty() ? ")" : "): " + why));
    }
}

void Executor::set_newest(halide_buffer_t *b, bool on_device) {
    on_device = on_device && b->device;
    b->set_host_dirty(!on_device);
    b->set_device_dirty(on_device);
}

void Executor::mark_host_newest(halide_buffer_t *b) {
    if (b->host && !b->device) {
        b->set_host_dirty(true);
    }
}

Box Executor::box_of_value(int v) const {
    int32_t min[4], extent[4];
    box(v, min, extent);
    Box b;
    b.dims = info(v).dims;
    for (int d = 0; d < b.dims; d++) {
        b.min[d] = min[d];
        b.extent[d] = extent[d];
    }
    return b;
}

halide_buffer_t *Executor::host_slice(halide_buffer_t *gathered, int v) {
    OwnedBuffer &view = own();
    coconet_rt::BufferView b(gathered, box_of_value(v));
    view.buf = b.buf;
    std::copy(b.dims, b.dims + 4, view.dim);
    view.buf.dim = view.dim;
    return &view.buf;
}

halide_buffer_t *Executor::device_slice(halide_buffer_t *gathered, int v) {
    halide_buffer_t *b = &allocate(v).buf;
    device_check(coconet_rt::device_malloc(*comm_, b, gathered->device_interface),
                 "allocating a slice on the device");
    device_check(coconet_rt::device_copy_box(*comm_, gathered, b, coconet_rt::box_of(b)),
                 "copying a slice on the device");
    set_newest(b, true);
    return b;
}

void Executor::finish_outputs(halide_buffer_t *const *args) {
    for (int i = 0; i < p_.noutputs; i++) {
        halide_buffer_t *from = value(p_.output_values[i]);
        halide_buffer_t *to = args_[p_.ninputs + i];
        halide_buffer_t *caller = args[p_.ninputs + i];
        const bool on_device = caller_device_[i] && coconet_rt::device_newest(from);
        if (on_device && from != to) {
            device_check(coconet_rt::device_copy_box(*comm_, from, to, coconet_rt::box_of(to)),
                         "copying an output on the device");
            set_newest(to, true);
        } else if (!on_device) {
            to_host(from);
            if (from != to) {
                // Every element is written: the device copy, if any, is stale.
                coconet_rt::copy_box(from, to, coconet_rt::box_of(to));
            }
            set_newest(to, false);
            if (caller_device_[i]) {
                // The value ended on the host (a collective wrote it last).
                device_check(coconet_rt::host_to_device(*comm_, to, to->device_interface),
                             "copying an output to the caller's device buffer");
                set_newest(to, true);
            }
        }
        // `to` may be a view of the caller's buffer (the same memory).
        if (caller != to) {
            caller->set_host_dirty(to->host_dirty());
            caller->set_device_dirty(to->device_dirty());
        }
    }
}

void Executor::give_back_caller_buffers() {
    for (size_t i = 0; i < caller_had_device_.size(); i++) {
        halide_buffer_t *b = caller_args_[i];
        if (caller_had_device_[i] || !b || !b->device) {
            continue;
        }
        // Halide's copies to the device attached it. An output computed
        // there comes back first; a failed copy leaves the call's error.
        if (b->device_dirty()) {
            coconet_rt::device_to_host(*comm_, b);
        }
        free_device(b);
    }
}

} // namespace coconet_rt
