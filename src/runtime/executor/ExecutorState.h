// What the executor keeps for one communicator between calls: the host
// memory of its values, the tile-count tuning of every overlapped step and
// the thread its producers run on.
// The executor creates it at the first call on a communicator; the
// communicator holds it (coconet_comm::executor) and frees it with itself, so
// backends never see it.
#ifndef COCONET_RUNTIME_EXECUTOR_EXECUTOR_STATE_H
#define COCONET_RUNTIME_EXECUTOR_EXECUTOR_STATE_H

#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "executor/ChunkLoop.h"
#include "executor/HostPool.h"
#include "executor/OverlapTuning.h"

struct coconet_comm;

namespace coconet_rt {

struct ExecutorState {
    // Host memory of the executor's values, kept between calls.
    HostPool host_pool;
    // The tile-count tuning of every overlapped step run on this rank, by
    // "<program> step <s> (<collective>)"; only this rank's thread uses it.
    std::map<std::string, OverlapTuner> overlap_tuners;
    // The same tuners by step (a coconet_aot_step's address), found without
    // building the name on every call; the program's name and the step's
    // index confirm a hit (a JIT program's steps may reuse a freed one's
    // address).
    struct StepTuner {
        std::string program;
        int step = -1;
        OverlapTuner *tuner = nullptr;
    };
    std::unordered_map<const void *, StepTuner> overlap_tuner_of_step;
    std::string overlap_report; // coconet_comm_overlap_report's text
    // The key of the window memory (Comm::value_memory) each program with
    // run-time sizes holds, by value_memory_prefix: a call at other sizes
    // frees it first, so that a program holds one size's memory at a time.
    std::map<std::string, std::string> value_memory_key;
    // The run-time sizes every rank last gave each program (by
    // value_memory_prefix): a call at these sizes skips the gather that
    // compares them (SizedProgram).
    std::map<std::string, std::vector<int32_t>> agreed_sizes;
    // The thread that produces an overlapped step's next chunk.
    ProducerThread producer;
};

// comm's state, created at its first use.
ExecutorState &executor_state(coconet_comm *comm);

// Halide's allocator for the pipelines that run on comm (halide_malloc and
// halide_free): HostPool::pipeline_malloc with comm's pool, so that a large
// intermediate Func is not faulted in afresh at every call. The executor
// creates comm's state before it runs a pipeline.
void *pipeline_malloc(coconet_comm *comm, size_t bytes);
void pipeline_free(coconet_comm *comm, void *p);

} // namespace coconet_rt

#endif
