// CoCoNet tutorial lesson 1: distributed Funcs and their layouts
//
// This lesson introduces the three layouts a distributed Func can have
// (Replicated, Sliced and Local), shows how CoCoNet infers the layout of an
// element-wise Func from the layouts of what it reads, runs the program on
// several thread ranks and compares it with the single-process reference, and
// shows the errors you get when two layouts cannot be combined.
//
// Build and run it from the repository root (./scripts/test.sh or
// ./scripts/demo.sh configure the build directory `build` first):
//
//   cmake --build build --target lesson_01_layouts && ./build/tutorials/lesson_01_layouts

#include "CoCoNet.h"

#include <cstdio>
#include <string>

using namespace coconet;
using Halide::Float;
using Halide::Var;

// The layout that inference gave a Func, as text ("Replicated", "Sliced(0)", ...).
static std::string layout_of(const Program &p, const DFunc &f) {
    return inferred_layout(p, f).to_string();
}

int main() {
    // A size that 3 ranks do not divide: slices are blocks of ceil(n / R)
    // elements, so with 3 ranks they are 4, 4 and 2 elements long.
    const int n = 10;

    // Step 1: declare inputs with each layout.
    //
    // A distributed Func is a Halide Func in *global* coordinates: its shape
    // is the shape of the whole value, whatever the number of ranks. Its
    // layout says what each rank holds of it:
    //
    //   Replicated(): every rank holds the same, complete value (the model's
    //                 parameters in data-parallel training, say).
    //   Sliced(d):    rank r holds the r-th block of dimension d; together the
    //                 blocks make up the value (sharded optimizer state).
    //   Local():      every rank holds a complete value of its own, and they
    //                 differ; the value the program stands for is their
    //                 reduction over the ranks, usually the sum (each rank's
    //                 gradient of its own mini-batch).
    //
    // Inputs declare their layout: it is part of the program's signature.
    DFunc w = input("w", Float(32), {n}, Replicated());
    DFunc m = input("m", Float(32), {n}, Sliced(0));
    DFunc g = input("g", Float(32), {n}, Local());

    // Step 2: element-wise consumers, and the layouts CoCoNet infers for them.
    //
    // Computed Funcs are defined with ordinary Halide syntax and never declare
    // a layout: it follows from what they read.
    Var i("i");

    // Replicated op constant -> Replicated: every rank computes the whole value.
    DFunc scaled("scaled");
    scaled(i) = 2.0f * w(i);

    // Sliced op Replicated -> Sliced: each rank computes only its own slice,
    // reading the matching part of the replicated value.
    DFunc shifted("shifted");
    shifted(i) = m(i) + w(i);

    // Local op Replicated -> Local: each rank combines its own gradient with
    // the shared parameters.
    DFunc weighted("weighted");
    weighted(i) = g(i) * w(i);

    // A program is the set of its outputs, each with a declared layout. The
    // inputs are found by walking the definitions back from the outputs.
    Program p("layouts");
    p.output(scaled, Replicated()).output(shifted, Sliced(0)).output(weighted, Local());

    // inferred_layout() runs layout inference only. We check that it agrees
    // with the rules above.
    printf("Inferred layouts: scaled is %s, shifted is %s, weighted is %s\n",
           layout_of(p, scaled).c_str(), layout_of(p, shifted).c_str(),
           layout_of(p, weighted).c_str());
    if (layout_of(p, scaled) != "Replicated" ||
        layout_of(p, shifted) != "Sliced(0)" || layout_of(p, weighted) != "Local") {
        printf("Unexpected layouts\n");
        return 1;
    }

    // print_plan shows the lowered program for a given number of ranks: every
    // input, kernel and collective in execution order, its layout, and the
    // global box each rank holds of it ("r1:[4..8]" means rank 1 holds
    // elements 4 to 7). Note that the Replicated and Local Funcs cover
    // [0..10] on every rank, and the Sliced ones are split 4, 4, 2.
    printf("\n%s\n", print_plan(p, 3).c_str());

    // Step 3: run on thread ranks and compare with the reference.
    //
    // JitProgram lowers and compiles the program once; run_threads(R, inputs)
    // runs it on R ranks, each a thread of this process. make_inputs builds
    // each rank's box of every input, consistent with the layouts: the same
    // global values for Replicated and Sliced inputs, different values per
    // rank for Local ones.
    //
    // Reference(p).run evaluates the same program naively in one process,
    // Func by Func and rank by rank. It shares none of the lowered code, so
    // agreeing with it is a real check. Results are bit-identical, so we ask
    // for an exact match.
    JitProgram jit(p);
    Reference reference(p);
    for (int ranks : {1, 3, 4}) {
        std::vector<RankBuffers> inputs = make_inputs(p, ranks);
        std::vector<RankBuffers> outputs = jit.run_threads(ranks, inputs);
        std::vector<RankBuffers> expected = reference.run(ranks, inputs);
        double diff = max_abs_diff(outputs, expected);
        printf("%d ranks: max |difference| from the reference = %g\n", ranks, diff);
        if (diff != 0) {
            printf("The program on %d ranks differs from the reference\n", ranks);
            return 1;
        }
        // Every rank must hold the very same bits of a Replicated output.
        if (!replicated_mismatches(p, outputs).empty()) {
            printf("The copies of a Replicated output differ between ranks\n");
            return 1;
        }
    }

    // Step 4: what each rank holds of a Sliced output.
    //
    // Buffers are in global coordinates: the min of a rank's buffer is the
    // global index of its first element. With 4 ranks and 10 elements the
    // blocks are ceil(10 / 4) = 3 long, so the last rank gets only one element.
    // (With more ranks than elements, the last ranks would get empty boxes.)
    const int ranks = 4;
    std::vector<RankBuffers> inputs = make_inputs(p, ranks);
    std::vector<RankBuffers> outputs = jit.run_threads(ranks, inputs);
    printf("\nWhat each of %d ranks holds of shifted (Sliced(0)) and weighted (Local):\n", ranks);
    for (int r = 0; r < ranks; r++) {
        Halide::Buffer<float> slice = outputs[r]["shifted"];
        Halide::Buffer<float> m_in = inputs[r]["m"];
        Halide::Buffer<float> w_in = inputs[r]["w"];
        Halide::Buffer<float> local = outputs[r]["weighted"];
        Range expected = slice_range(n, ranks, r);
        printf("  rank %d: shifted box min %d extent %d:", r, slice.dim(0).min(),
               slice.dim(0).extent());
        if (slice.dim(0).min() != expected.begin || slice.dim(0).extent() != expected.extent()) {
            printf("\nRank %d holds the wrong box of shifted\n", r);
            return 1;
        }
        // Index with global coordinates: element x of the whole value.
        for (int x = slice.dim(0).min(); x < slice.dim(0).min() + slice.dim(0).extent(); x++) {
            printf(" %.4f", slice(x));
            if (slice(x) != m_in(x) + w_in(x)) {
                printf("\nshifted(%d) is wrong on rank %d\n", x, r);
                return 1;
            }
        }
        // A Local output is full-size on every rank, and differs between them.
        printf("; weighted box min %d extent %d, weighted(0) = %.4f\n", local.dim(0).min(),
               local.dim(0).extent(), local(0));
    }

    // Step 5: layouts that cannot be combined.
    //
    // Some combinations have no meaning, and CoCoNet refuses them when the
    // program is analyzed (by inferred_layout, print_plan, JitProgram or Reference) with a
    // coconet::UserError that names the Funcs and their layouts.
    printf("\nLayout errors:\n");

    // Local op Sliced: the Local value is a sum over ranks that has not been
    // taken yet, while the Sliced one exists only as pieces on different
    // ranks; no rank can compute an element of their sum. Reduce the Local
    // value first (all_reduce or reduce_scatter, lesson 2).
    DFunc bad_mix("bad_mix");
    bad_mix(i) = g(i) + m(i);
    Program local_op_sliced("local_op_sliced");
    local_op_sliced.output(bad_mix, Local());

    // Sliced(0) op Sliced(1): a rank holds rows of one and columns of the
    // other, so it has the two operands of only a few elements. Re-slice one
    // of them with all_to_all (lesson 2) first.
    DFunc rows = input("rows", Float(32), {4, 4}, Sliced(0));
    DFunc cols = input("cols", Float(32), {4, 4}, Sliced(1));
    Var x("x"), y("y");
    DFunc bad_slices("bad_slices");
    bad_slices(x, y) = rows(x, y) * cols(x, y);
    Program sliced_op_sliced("sliced_op_sliced");
    sliced_op_sliced.output(bad_slices, Sliced(0));

    struct Case {
        const Program *program;
        std::vector<std::string> names; // what the message must mention
    };
    for (const Case &c :
         {Case{&local_op_sliced, {"bad_mix", "g (Local)", "m (Sliced(0))"}},
          Case{&sliced_op_sliced, {"bad_slices", "rows (Sliced(0))", "cols (Sliced(1))"}}}) {
        std::string message;
        try {
            print_plan(*c.program, 2);
        } catch (const UserError &e) {
            message = e.what();
        }
        printf("  %s: %s\n", c.program->name().c_str(), message.c_str());
        if (message.empty()) {
            printf("Program %s was not refused\n", c.program->name().c_str());
            return 1;
        }
        for (const std::string &name : c.names) {
            if (message.find(name) == std::string::npos) {
                printf("The message does not mention %s\n", name.c_str());
                return 1;
            }
        }
    }

    printf("Success!\n");
    return 0;
}
