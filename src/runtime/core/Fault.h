// Fault injection for the fault tests, off unless COCONET_FAULT is set:
//
//   COCONET_FAULT=<action>:<rank>:<site>[:<n>]
//
// makes world rank <rank> act at its <n>-th call (default 1) of <site> in the
// process: `collective` (any collective), `pass` (any fused pass), `kernel`
// (a chunk's fused kernel, inside the pass), `chunk` (a chunk of an overlapped
// collective or pass), `blocking` (just before a blocking MPI call inside a
// call: a group's communicator or shared window made; kill or stop only) or a
// collective's or pass's name. Actions: `fail` (the call returns an error,
// as a rank whose computation threw: its executor aborts the communicator), `kill` (SIGKILL) and
// `stop` (SIGSTOP: frozen until SIGCONT). It fires once per process, so that a world created
// afterwards runs clean.
#ifndef COCONET_RUNTIME_FAULT_H
#define COCONET_RUNTIME_FAULT_H

#include <functional>
#include <string>

struct coconet_comm;

namespace coconet_rt {

enum class FaultSite { Collective, Pass, Kernel, Blocking };

// Called on entry to a collective, fused pass or fused kernel on comm, which
// `what()` names (asked only when COCONET_FAULT is set: this runs on every
// call); `chunk`: one chunk of an overlapped one. Returns COCONET_OK, or the
// error of an injected failure (recorded on comm).
int fault_point(coconet_comm *comm, FaultSite site, const std::function<std::string()> &what,
                bool chunk);

} // namespace coconet_rt

#endif
