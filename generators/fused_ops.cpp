// The fused computation-collective operators (apps/fused_ops.cpp) as
// generators. The default schedule overlaps each producer with its
// collective in `overlap` chunks of tiles (GEMV: also the bias fused into the
// reduce-scatter's pass); producer_only=true leaves out the collective, for
// the benchmark's baseline (compute, then a collective library).
#include "AppParams.h"

namespace coconet {
namespace generators {

namespace {

const char *overlap_doc = "chunks of tiles the producer and the collective run in (0: none)";
const char *producer_doc = "the producer alone, without the collective";

} // namespace

class EmbeddingAllToAll : public Generator {
public:
    GeneratorParam<int> dim{"dim", 8, "embedding width"};
    GeneratorParam<int> rows{"rows", 50, "rows per table"};
    GeneratorParam<int> tables{"tables", 7, "tables, sliced across ranks"};
    GeneratorParam<int> bag{"bag", 3, "rows pooled per sample and table"};
    GeneratorParam<int> tile{"tile", 6, "samples per tile"};
    GeneratorParam<int> tiles{"tiles", 4, "tiles in the batch"};
    GeneratorParam<int> overlap{"overlap", 2, overlap_doc};
    GeneratorParam<bool> producer_only{"producer_only", false, producer_doc};
    ComputeParams compute;
    ShapeParams shape;

    void generate() override {
        apps::EmbeddingConfig c;
        c.dim = dim;
        c.rows = rows;
        c.tables = tables;
        c.bag = bag;
        c.tile = tile;
        c.tiles = tiles;
        c.overlap = overlap;
        c.producer_only = producer_only;
        compute.apply(c, target());
        shape.apply(c);
        set_program(apps::embedding_all_to_all(c));
    }
};

class GemvAllReduce : public Generator {
public:
    GeneratorParam<int> tile{"tile", 16, "output rows per tile"};
    GeneratorParam<int> tiles{"tiles", 4, "tiles of output rows"};
    GeneratorParam<int> cols{"cols", 40, "columns (the contraction, sliced across ranks)"};
    GeneratorParam<int> overlap{"overlap", 2, overlap_doc};
    GeneratorParam<bool> producer_only{"producer_only", false, producer_doc};
    ComputeParams compute;
    ScheduleParams sched;
    ShapeParams shape;

    void generate() override {
        apps::GemvConfig c;
        c.tile = tile;
        c.tiles = tiles;
        c.cols = cols;
        c.overlap = overlap;
        c.producer_only = producer_only;
        compute.apply(c, target());
        sched.apply(c);
        shape.apply(c);
        set_program(apps::gemv_all_reduce(c));
    }
};

class GemmAllToAll : public Generator {
public:
    GeneratorParam<int> hidden{"hidden", 12, "token width in"};
    GeneratorParam<int> out{"out", 10, "token width out"};
    GeneratorParam<int> experts{"experts", 7, "experts, sliced across ranks"};
    GeneratorParam<int> capacity{"capacity", 6, "token slots per expert and tile"};
    GeneratorParam<int> tiles{"tiles", 4, "tiles of token slots"};
    GeneratorParam<int> overlap{"overlap", 2, overlap_doc};
    GeneratorParam<bool> producer_only{"producer_only", false, producer_doc};
    ComputeParams compute;
    ShapeParams shape;

    void generate() override {
        apps::GemmConfig c;
        c.hidden = hidden;
        c.out = out;
        c.experts = experts;
        c.capacity = capacity;
        c.tiles = tiles;
        c.overlap = overlap;
        c.producer_only = producer_only;
        compute.apply(c, target());
        c.register_cols = register_tile_columns(target());
        shape.apply(c);
        set_program(apps::gemm_all_to_all(c));
    }
};

} // namespace generators
} // namespace coconet

COCONET_REGISTER_GENERATOR(coconet::generators::EmbeddingAllToAll, embedding_all_to_all)
COCONET_REGISTER_GENERATOR(coconet::generators::GemvAllReduce, gemv_all_reduce)
COCONET_REGISTER_GENERATOR(coconet::generators::GemmAllToAll, gemm_all_to_all)
