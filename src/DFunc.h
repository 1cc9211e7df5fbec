// A distributed Func: a Halide Func in global coordinates with a layout. Inputs
// declare their layout; computed Funcs are defined with the full Halide
// expression language and get their layout by inference; collectives are
// distributed Funcs whose value is produced by communication.
#ifndef COCONET_DFUNC_H
#define COCONET_DFUNC_H

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "Extent.h"
#include "Halide.h"
#include "Layout.h"
#include "coconet_runtime.h"

namespace coconet {

class DFunc;

enum class FuncKind { Input, Compute, Collective };

enum class ReduceOp {
    Sum = COCONET_SUM,
    Prod = COCONET_PROD,
    Max = COCONET_MAX,
    Min = COCONET_MIN
};

enum class CollectiveKind {
    AllReduce = COCONET_ALL_REDUCE,
    ReduceScatter = COCONET_REDUCE_SCATTER,
    AllGather = COCONET_ALL_GATHER,
    Broadcast = COCONET_BROADCAST,
    Reduce = COCONET_REDUCE,
    AllToAll = COCONET_ALL_TO_ALL,
    SendRecv = COCONET_SEND_RECV,
};

const char *to_string(CollectiveKind k);
const char *to_string(ReduceOp op);

struct DFuncContents;

// Where a fused collective's data moves (fuse_with): reading peers' memory
// (threads; MPI ranks on one node, through a shared window) or a ring of
// messages (MPI, any nodes). Auto: the environment's COCONET_FUSED_PATH, else
// the backend's best.
enum class FusedPath {
    Auto = COCONET_PATH_AUTO,
    Direct = COCONET_PATH_DIRECT,
    Ring = COCONET_PATH_RING
};

struct FuseOptions {
    FusedPath path = FusedPath::Auto;
    int chunk_elements = 0; // elements per step of the fused pass; 0: a default that fits in cache
};

struct CollectiveDesc {
    CollectiveKind kind;
    ReduceOp op = ReduceOp::Sum;
    int root = 0;        // group rank, for Broadcast and Reduce
    int dim = -1;        // the result's sliced dimension (ReduceScatter, AllToAll)
    int concat_dim = -1; // AllToAll: the input's sliced dimension
    Group dst;           // SendRecv: the receiving group
    std::shared_ptr<DFuncContents> source;
};

struct DFuncContents {
    std::string name;
    FuncKind kind = FuncKind::Compute;
    Halide::Func func;                        // the definition in global coordinates
    Extents extents;                          // global shape: declared, or filled by inference
    std::optional<Layout> layout;             // declared for inputs
    std::optional<Halide::ImageParam> param;  // inputs
    std::optional<CollectiveDesc> collective; // collectives
    uint64_t serial = 0;                      // creation order, for stable argument order

    // Schedule (split_collective, compute_sliced): this Func's value is the
    // all_gather `gathered` of `sliced_part`, which is computed on slices.
    std::shared_ptr<DFuncContents> sliced_part, gathered;
    // The split is the lowering's (narrow_all_reduces), not the user's: a
    // later lowering may redo or undo it, and split_collective replaces it.
    bool split_by_default = false;
    // The directive that made this Func ("y.compute_sliced()"), for messages
    // about a Func the user never named; empty for the user's own.
    std::string made_by;

    // Schedule (fuse_with): this Func is computed inside the pass owned by
    // `fused_into`: a reduce_scatter (that of a split all_reduce), or an
    // all_gather of this Func or of a Func computed from it (set on the Func
    // computed on slices).
    std::shared_ptr<DFuncContents> fused_into;
    // On a collective that owns a fused pass: how its pass runs.
    FuseOptions fuse_options;
    // Schedule (overlap): this collective and its producer run in this many
    // chunks (0: not overlapped) along dimension overlap_dim (-1: the
    // default, see overlap_dim in ScheduledReads.h).
    int overlap_chunks = 0;
    int overlap_dim = -1;
    // Schedule (accumulate_in_registers): computed in tiles of these pure
    // variables, each tile's updates accumulated in registers.
    struct RegisterTile {
        std::string x, y;
        int x_factor = 0, y_factor = 0;
    };
    std::optional<RegisterTile> register_tile;
};

class DFunc {
public:
    DFunc() = default;
    // A computed Func; its shape is inferred from what it reads unless given.
    explicit DFunc(const std::string &name);
    DFunc(const std::string &name, const std::vector<int> &extents);
    // Extents may be run-time sizes (Extent.h).
    DFunc(const std::string &name, const Extents &extents);
    DFunc(const std::string &name, std::initializer_list<ExtentArg> extents)
        : DFunc(name, to_extents(extents)) {}

    // Define or call, exactly as with a Halide Func, in global coordinates.
    template<typename... Args>
    Halide::FuncRef operator()(Args &&...args) const {
        return contents->func(std::forward<Args>(args)...);
    }
    Halide::FuncRef operator()(const std::vector<Halide::Expr> &args) const {
        return contents->func(args);
    }
    Halide::FuncRef operator()(const std::vector<Halide::Var> &args) const {
        return contents->func(args);
    }

    // Scheduling directives (they never change what the program computes).

    // AllReduce -> ReduceScatter along `dim` + AllGather. Consumers that are
    // sliced along the same dimension read their slice of the ReduceScatter
    // directly; when all do, the AllGather is dead and disappears.
    DFunc &split_collective(int dim = 0);

    // Reorder: this Replicated, element-wise consumer of gathered values (a
    // split all_reduce, an all_gather) is computed on slices, from the values
    // before their gathers, and the all_gather moves to its output. On a send
    // of a gathered value: the slices are sent and gathered on arrival.
    DFunc &compute_sliced();

    // Fuse: this element-wise consumer of `collective` (a reduce_scatter, or
    // an all_reduce split with split_collective) is computed inside the
    // collective's pass: each rank reduces a chunk of its slice and applies
    // this Func's definition to it while the chunk is in cache. If this Func
    // is computed on slices (compute_sliced), its all_gather happens in the
    // same pass: each rank writes its slice straight into its peers' copies.
    // `collective` may also be the all_gather of this Func: the pass then has
    // nothing to reduce, and each rank computes its slice and writes it into
    // every peer's copy. Element-wise producers of the gathered Func, sliced
    // like it, may join that pass too (all of those between them and the
    // gathered Func); those that are outputs or read later are written as
    // their layouts say.
    DFunc &fuse_with(const DFunc &collective, const FuseOptions &options = FuseOptions());

    // Overlap: this collective (an all_reduce, a reduce_scatter, an
    // all_to_all, or an all_reduce split with split_collective: its
    // reduce_scatter) and `producer`, the computation it reads, run in
    // `chunks` chunks of dimension `dim`: the producer computes a chunk, the
    // collective sends it, the producer goes on with the next one (the
    // executor computes the next chunk on a second thread while the last one
    // moves). A reduce_scatter that owns a fused pass is overlapped as that
    // pass, the same way. Along the dimension the result is sliced along
    // (a reduce_scatter's, an all_to_all's split dimension), chunk j is piece
    // j of every rank's slice: each rank's slice is cut into `chunks` pieces
    // and every rank sends and receives piece j of every slice in step j
    // (sequence parallelism's reduce_scatter along tokens). dim = -1: the
    // outermost dimension `producer` is not sliced along (an all_to_all's
    // input is sliced along its concatenated dimension); a dimension it is
    // sliced along is refused, as no chunk of it would be computed by every
    // rank; so is a producer that anything else reads (another Func, the
    // program's outputs). The count is the most the executor runs: it may
    // choose fewer (coconet_comm_overlap_report).
    DFunc &overlap(const DFunc &producer, int chunks, int dim = -1);

    // Compute this Func (a reduction such as a MatMul: pure definition,
    // then updates at its own pure variables) in tiles of x_factor x
    // y_factor elements of dimensions x and y, each tile's updates
    // accumulated in registers: Halide's staging-Func idiom (a Func named
    // <name>_acc computed at each tile, its storage bounded to the tile),
    // vectorized along x, unrolled along y, the reduction loops outside
    // them. Every element still sums in its definitions' order, so results
    // are unchanged. Tails are guarded; full tiles take the unguarded path.
    // Halide's own directives on this Func's definitions are then refused.
    // A CPU schedule: in a GPU-target library the tiled Func stays on the host
    // (the GPU pass maps only Funcs nobody scheduled), so give it for CPUs.
    DFunc &accumulate_in_registers(const Halide::Var &x, const Halide::Var &y, int x_factor,
                                   int y_factor);

    const std::string &name() const;
    FuncKind kind() const;
    int dimensions() const;
    // The Halide Func holding the definition (for Halide's own directives later).
    Halide::Func &func() const;
    bool defined() const { return contents != nullptr; }

    const std::shared_ptr<DFuncContents> &get_contents() const { return contents; }
    explicit DFunc(std::shared_ptr<DFuncContents> c) : contents(std::move(c)) {}

private:
    std::shared_ptr<DFuncContents> contents;
};

// The columns (y_factor) of a 16-row float register tile that `target`'s
// vector registers hold with room to spare: 8 with AVX-512's 32, else 6 (12 of
// AVX2's 16 hold the sums). The default schedule's MatMul tiles use it.
int register_tile_columns(const Halide::Target &target);

// A distributed input: its global shape and its layout are part of the program's
// signature. Each rank passes the box of it that the layout gives the rank.
DFunc input(const std::string &name, Halide::Type type, const std::vector<int> &extents,
            const Layout &layout);
// The same with extents that may be run-time sizes: Halide Param<int32_t>s
// whose values each call gives (Extent.h), so that one compiled program
// serves every size. Use the Param in definitions too (an RDom's extent).
DFunc input(const std::string &name, Halide::Type type, const Extents &extents,
            const Layout &layout);
// A braced list of extents: constants, generator parameters or sizes
// ({n, 1024}; {} for a scalar).
inline DFunc input(const std::string &name, Halide::Type type,
                   std::initializer_list<ExtentArg> extents, const Layout &layout) {
    return input(name, type, to_extents(extents), layout);
}

namespace Internal {
// The distributed Func whose definition is the Halide Function `f`, or null if
// `f` is a plain Halide Func.
std::shared_ptr<DFuncContents> find_dfunc(const Halide::Internal::Function &f);
// Makes a distributed Func of the given kind and registers it; its definition
// is `func` if given (a schedule's rewrite), else a new Func named `name`.
DFunc make_dfunc(const std::string &name, FuncKind kind, const Halide::Func &func = Halide::Func());
// A distributed Func lives while a handle, a Program or a plan holds it, or a
// live one reaches it (its definition calls it, its schedule or collective
// refers to it). The registry frees the others whenever it has doubled since
// the last collection and holds at least this many. A collection reads every
// live Func's definitions, so distributed Funcs are defined on one thread at a
// time.
constexpr size_t dfunc_collection_threshold = 256;
// How many distributed Funcs are registered (live, or not collected yet).
size_t registered_dfuncs();
// Frees the distributed Funcs nothing reaches any more; returns how many remain.
size_t collect_dfuncs();
// For a message about a name two Funcs share: how a collective got it when
// the caller gave none (" (a collective given no name is named ...)"), or "".
std::string unnamed_hint(const DFunc &f);
// Refuses (UserError naming `what`) an element type the collectives and the
// runtime do not take: a float other than 32 or 64 bits, or bool.
void check_element_type(const Halide::Type &type, const std::string &what);
} // namespace Internal

} // namespace coconet

#endif
