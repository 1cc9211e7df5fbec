// One collective call as a plan every backend follows: who participates, the
// box of its input each rank provides, the box of the output it may produce,
// whose inputs it reads, and the element-wise computation of its output from
// those inputs (reductions in group-rank order, so every backend and the
// reference agree bit for bit).
#ifndef COCONET_RUNTIME_COLLECTIVE_H
#define COCONET_RUNTIME_COLLECTIVE_H

#include <string>
#include <vector>

#include "Box.h"
#include "coconet_runtime.h"

namespace coconet_rt {

struct GroupInfo {
    int first = 0, size = 0;
    bool has(int rank) const { return rank >= first && rank < first + size; }
};

struct Op {
    std::string name;
    int kind = 0, red = 0, root = 0, a = -1, b = -1;
    int dims = 0;
    int64_t n[kMaxDims] = {1, 1, 1, 1};
    GroupInfo src, dst; // dst == src except for SEND_RECV

    const char *kind_name() const;
    // Ranks taking part (sorted).
    std::vector<int> participants() const;
    bool participates(int rank) const;
    // The box of its input rank r provides (empty if none).
    Box input_box(int r) const;
    // The largest box of the output rank r can produce (empty if none).
    Box output_limit(int r) const;
    // All-reduce by blocks: the block of the outermost dimension of the full
    // box that rank q reduces for the whole group.
    Box block(int q) const;
    // Whether rank p's output reads rank q's input.
    bool reads_from(int p, int q) const;
    // A validation error for this call's arguments, or "".
    std::string check(int rank, const halide_buffer_t *in, const halide_buffer_t *out) const;

    // Filled by the backend: peer_inputs[q] holds rank q's input (at least
    // the part this rank reads) for every q this rank reads from.
    std::vector<const halide_buffer_t *> peer_inputs;
};

Op make_op(const char *name, int32_t kind, int32_t op, int32_t root, int32_t a, int32_t b,
           int32_t nsplit, int32_t group, int32_t dst_group, const int32_t n[kMaxDims], int dims,
           int world_size);

// Computes `out` on rank p from op.peer_inputs.
void compute_output(const Op &op, int p, halide_buffer_t *out);

// Bytes rank p's output reads from rank q's input.
uint64_t bytes_read(const Op &op, int p, int q, const halide_buffer_t *out);

} // namespace coconet_rt

#endif
