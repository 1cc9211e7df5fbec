// One collective call as a plan every backend follows: who participates, the
// box of its input each rank provides, the largest box of the output it may
// produce, whose inputs it reads, and the element-wise computation of its
// output from those inputs (reductions in group-rank order, so every backend
// and the compiler's reference agree bit for bit). Backends only move data.
#ifndef COCONET_RUNTIME_COLLECTIVE_H
#define COCONET_RUNTIME_COLLECTIVE_H

#include <string>
#include <vector>

#include "core/Box.h"
#include "core/Partition.h"
#include "coconet_aot.h"

namespace coconet_rt {

struct Op {
    std::string name;
    // The fields of coconet_collective_desc (see coconet_runtime.h).
    int kind = 0, red = 0, root = 0, dim = -1, concat_dim = -1;
    bool local_value = false;
    int nsplit = 1, world_size = 1;
    int dims = 0; // check_args refuses more than kMaxDims before n is read
    int64_t n[kMaxDims] = {1, 1, 1, 1};
    Group src, dst; // dst == src except for SEND_RECV
    // A chunk of an overlapped ALL_REDUCE / REDUCE_SCATTER / ALL_TO_ALL: every
    // participant calls with the same range of chunk_dim, and the call covers
    // only that range (set from the output by set_chunk).
    int chunk_dim = -1;
    int64_t chunk_min = 0, chunk_extent = 0;
    // chunk_dim == dim: piece chunk_index of `chunks` of every rank's slice
    // (chunk_min and chunk_extent unused).
    int chunks = 0, chunk_index = 0;
    bool pieces() const { return chunk_dim >= 0 && chunk_dim == dim; }
    void set_chunk(const halide_buffer_t *out);

    const char *kind_name() const;
    // "all_reduce 'g_sum'": how messages name the call.
    std::string what() const;

    // An error in the call's arguments that does not depend on the buffers'
    // contents (checked in bounds queries too), or "".
    std::string check_args() const;
    // An error in the buffers of a real call on `rank`, or "".
    std::string check_buffers(int rank, const halide_buffer_t *in,
                              const halide_buffer_t *out) const;
    // Whether two ranks' calls are the same collective (threads backend check).
    bool same_call(const Op &other) const;

    // Ranks taking part (sorted): the group, or both groups of a SEND_RECV.
    std::vector<int> participants() const;
    bool participates(int rank) const { return src.has(rank) || dst.has(rank); }
    // The box of its input rank r provides (empty if none).
    Box input_box(int r) const;
    // The largest box of the output rank r can produce (empty if none).
    Box output_limit(int r) const;
    // All-reduce by blocks: the block of the outermost dimension of the full
    // box that rank q reduces for the whole group.
    Box block(int q) const;
    // SEND_RECV of an unsliced value: the sender whose whole input rank p (of
    // the receiving group) gets: group rank i receives from i mod |src|.
    int sender_of(int p) const;
    // Whether rank p's output reads rank q's input.
    bool reads_from(int p, int q) const;

    // Filled by the backend: peer_inputs[q] holds rank q's input (at least
    // the part this rank reads) for every q this rank reads from.
    std::vector<const halide_buffer_t *> peer_inputs;

    // A device stage run where its data is (DeviceCollective.h): every
    // participant's input and output are device buffers of one device, and
    // reductions fold them with `combiner`.
    bool on_device = false;
    const coconet_aot_combiner *combiner = nullptr;
};

bool is_reduction(int kind);

// `desc` has this runtime's version and size (checked by the caller).
Op make_op(const char *name, const coconet_collective_desc &desc, int world_size);

// Copies the descriptor a caller passed into `desc`, or says why it cannot be
// used ("" if it can): another ABI version or size. `bytes` is how many bytes
// the caller's buffer holds.
std::string read_desc(const void *data, size_t bytes, coconet_collective_desc *desc);

// Computes `out` on rank p from op.peer_inputs, on up to `threads` CPU
// threads (for_parts).
void compute_output(const Op &op, int p, halide_buffer_t *out, int threads);

// Bytes of rank q's input that rank p reads to compute `out`.
uint64_t bytes_read(const Op &op, int p, int q, const halide_buffer_t *out);

} // namespace coconet_rt

#endif
