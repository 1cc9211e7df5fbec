// Every collective under MPI (one rank per process), against the reference
// that each rank computes for itself: all kinds and ops, several types, both
// sliced dimensions of a 2-D value, extents that do not divide the rank count;
// every rank's copy of a Replicated output must be its group's first rank's.
//
//   mpirun --allow-run-as-root --oversubscribe -np 3 build/test/mpi_collectives
#include <cstdio>
#include <functional>

#include "CoCoNet.h"

using namespace coconet;

namespace {

struct Case {
    std::string name;
    std::function<Program()> make;
    int min_ranks = 1;
};

std::vector<Case> cases() {
    std::vector<Case> all;
    for (Halide::Type t : {Halide::Float(32), Halide::Float(64), Halide::Int(32)}) {
        for (ReduceOp op : {ReduceOp::Sum, ReduceOp::Prod, ReduceOp::Max, ReduceOp::Min}) {
            all.push_back(
                {std::string("all_reduce ") + to_string(op), [=] {
                     Program p("all_reduce");
                     p.output(all_reduce(input("x", t, {7, 3}, Local()), op), Replicated());
                     return p;
                 }});
        }
    }
    for (int dim : {0, 1}) {
        all.push_back({"reduce_scatter", [=] {
                           Program p("reduce_scatter");
                           p.output(
                               reduce_scatter(input("x", Halide::Float(32), {5, 9}, Local()), dim),
                               Sliced(dim));
                           return p;
                       }});
        all.push_back({"all_gather", [=] {
                           Program p("all_gather");
                           p.output(all_gather(input("x", Halide::Int(32), {6, 4}, Sliced(dim))),
                                    Replicated());
                           return p;
                       }});
    }
    all.push_back({"scalar all_reduce", [] {
                       Program p("scalar");
                       DFunc x = input("x", Halide::Float(32), {11}, Sliced(0));
                       Halide::RDom r(0, 11);
                       DFunc part("part");
                       part() = 0.0f;
                       part() += x(r);
                       p.output(all_reduce(part), Replicated());
                       return p;
                   }});
    all.push_back(
        {"broadcast",
         [] {
             Program p("broadcast");
             p.output(broadcast(input("x", Halide::Float(32), {4, 2}, Local()), 1), Replicated());
             return p;
         },
         2});
    all.push_back({"reduce",
                   [] {
                       Program p("reduce");
                       p.output(reduce(input("x", Halide::Float(32), {4, 2}, Local()), 1), Local());
                       return p;
                   },
                   2});
    all.push_back({"all_to_all", [] {
                       Program p("all_to_all");
                       p.output(all_to_all(input("x", Halide::Float(32), {10, 3}, Sliced(1)), 0, 1),
                                Sliced(0));
                       return p;
                   }});
    all.push_back({"send between groups",
                   [] {
                       std::vector<Group> g = Group::world().split(2);
                       Program p("send");
                       p.output(send(input("x", Halide::Float(32), {9}, Replicated(g[0])), g[1]),
                                Replicated(g[1]));
                       return p;
                   },
                   2});
    return all;
}

} // namespace

int main() {
    coconet_comm *comm = coconet_mpi_comm_create(30.0);
    if (!comm) {
        return 2;
    }
    const int rank = coconet_comm_rank(comm), size = coconet_comm_size(comm);
    const double tolerance = reference_tolerance(comm);
    if (rank == 0) {
        std::printf("[path] %s (tolerance %g)\n",
                    coconet_comm_deterministic(comm) ? "deterministic" : "native", tolerance);
    }
    int failures = 0;
    for (const Case &c : cases()) {
        if (size < c.min_ranks) {
            continue;
        }
        Program program = c.make();
        JitProgram jit(program);
        std::vector<RankBuffers> inputs = make_inputs(program, size, 3);
        RankBuffers mine = jit.run_rank(comm, inputs[rank]);
        std::vector<RankBuffers> expected = Reference(program).run(size, inputs);
        const double err = max_abs_diff({mine}, {expected[rank]});
        const std::vector<ReplicatedMismatch> differ = replicated_mismatches(program, comm, mine);
        const bool ok = err <= tolerance && differ.empty();
        failures += ok ? 0 : 1;
        std::printf("[%s] rank %d of %d: %s max error %g%s\n", ok ? "PASS" : "FAIL", rank, size,
                    c.name.c_str(), err, to_string(differ).c_str());
    }
    coconet_mpi_comm_destroy(comm);
    coconet_mpi_finalize();
    return failures ? 1 : 0;
}
