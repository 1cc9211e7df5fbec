// A program's table with its run-time sizes resolved for one call: the
// extents of its values, fused passes and overlapped collectives as the
// call's sizes give them, so that the executor reads constants only. Before
// that, at sizes other than those every rank gave the program's last call on
// the communicator, every rank learns every rank's sizes: a call where they
// differ, or where they break one of the program's conditions, fails on
// every rank.
#ifndef COCONET_RUNTIME_EXECUTOR_SIZED_PROGRAM_H
#define COCONET_RUNTIME_EXECUTOR_SIZED_PROGRAM_H

#include <string>
#include <vector>

#include "coconet_aot.h"

namespace coconet_rt {

// The extents of `v` with its size references taken from sizes[0, nsizes);
// "" on success, else what is wrong ("size 'n' is -3").
std::string resolve_extents(coconet_value_info &v, const char *const *names, const int32_t *sizes,
                            int nsizes);

class SizedProgram {
public:
    // sizes: p.nsizes values (NULL when it has none). Throws AotError.
    SizedProgram(coconet_comm *comm, const coconet_aot_program &p, const int32_t *sizes);

    // The table to run: p itself when it has no run-time sizes.
    const coconet_aot_program &program() const { return sized_ ? resolved_ : table_; }
    // The table as the library holds it (what keys the memory kept between calls).
    const coconet_aot_program &table() const { return table_; }
    const int32_t *sizes() const { return sizes_.data(); }
    int nsizes() const { return (int)sizes_.size(); }

private:
    [[noreturn]] void fail(int code, const std::string &what) const;
    // Every rank's sizes (all-gathered), checked to agree.
    void check_ranks_agree();
    void check_constraints() const;
    int32_t extent(int32_t e) const { return e >= 0 ? e : sizes_[-e - 1]; }
    void resolve();

    coconet_comm *comm_;
    const coconet_aot_program &table_;
    bool sized_;
    std::vector<int32_t> sizes_;
    std::vector<coconet_value_info> values_, device_stages_;
    std::vector<coconet_aot_step> steps_;
    coconet_aot_program resolved_{};
};

} // namespace coconet_rt

#endif
