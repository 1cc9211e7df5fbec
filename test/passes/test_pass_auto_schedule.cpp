// The autoscheduler pass (autoschedule_segment) on the lowered Megatron
// block, whose segment holds its all_reduce as an extern stage: each of
// Halide 21's CPU autoschedulers schedules the Funcs around the collective,
// the Funcs the collective reads stay at root, the stand-in it was given
// leaves nothing behind, and the segment still compiles. End-to-end results
// of autoscheduled libraries are checked in the aot tests.
#include "Apps.h"
#include "AutoSchedule.h"
#include "Lower.h"
#include "Rebuild.h"
#include "TestUtil.h"

#include <optional>
#include <sstream>

using namespace coconet;
using Halide::Internal::Function;

namespace {

// The plugins, loaded once (CMake passes their paths).
void load_autoschedulers() {
    static const bool loaded = [] {
        for (const char *plugin : {COCONET_ADAMS2019, COCONET_LI2018, COCONET_MULLAPUDI2016}) {
            Halide::load_plugin(plugin);
        }
        return true;
    }();
    (void)loaded;
}

// The block's segment computing from its inputs to y, all_reduce inside.
LoweredProgram unscheduled_block(bool hand_schedule) {
    apps::MlpConfig c;
    c.batch = 5;
    c.hidden = 12;
    c.ffn = 19; // no rank count divides it: slices of unequal size
    c.hand_schedule = hand_schedule;
    return lower(apps::megatron_mlp(c));
}

HalideSegment &segment_with_collective(LoweredProgram &m) {
    for (SpmdSegment &seg : m.spmd.segments) {
        if (!seg.halide.pipeline.defined()) {
            continue;
        }
        for (const auto &[name, fn] : pipeline_functions(seg.halide.pipeline)) {
            if (fn.has_extern_definition()) {
                return seg.halide;
            }
        }
    }
    FAIL("no segment holds a collective");
    throw std::logic_error("unreachable");
}

bool is_root(const Function &fn) {
    Halide::LoopLevel at = fn.schedule().compute_level();
    return at.lock().is_root();
}

// Each Func's loops as its stages' schedules give them (splits, then each
// loop's variable and kind), by plain name: what an autoscheduler changes.
std::map<std::string, std::string> loops(const Halide::Pipeline &p) {
    std::map<std::string, std::string> out;
    for (const auto &[unique, fn] : pipeline_functions(p)) {
        std::ostringstream os;
        std::vector<Halide::Internal::Definition> stages{fn.definition()};
        stages.insert(stages.end(), fn.updates().begin(), fn.updates().end());
        for (const Halide::Internal::Definition &def : stages) {
            os << def.schedule().splits().size() << ":";
            for (const Halide::Internal::Dim &d : def.schedule().dims()) {
                os << d.var << "/" << (int)d.for_type << " ";
            }
            os << "; ";
        }
        out[plain_name(unique)] = os.str();
    }
    return out;
}

} // namespace

TEST_CASE("autoschedule_segment: every CPU autoscheduler schedules around a collective",
          "[passes][autoschedule]") {
    load_autoschedulers();
    const Halide::Target host = Halide::get_host_target();
    for (const std::string name : {"Adams2019", "Li2018", "Mullapudi2016"}) {
        INFO(name);
        LoweredProgram m = unscheduled_block(false);
        HalideSegment &h = segment_with_collective(m);
        const std::map<std::string, std::string> before = loops(h.pipeline);
        CHECK(autoschedule_segment(h, m.analysis, name, host, 3) ==
              "scheduled by " + name + " (around its 1 collective, whose inputs stay at root)");
        const std::map<std::string, Function> env = pipeline_functions(h.pipeline);
        std::optional<Function> partial;
        for (const auto &[unique, fn] : env) {
            const std::string plain = plain_name(unique);
            // The stand-in's inputs and Funcs do not leak into the segment.
            CHECK(plain.find("_received") == std::string::npos);
            CHECK(plain.find("_arrived") == std::string::npos);
            if (fn.has_extern_definition()) {
                CHECK(plain == "summed");
                continue;
            }
            if (plain == "partial") {
                CHECK(is_root(fn)); // the collective reads it whole
                partial = fn;
            }
        }
        // The schedules reached the segment's own Funcs: some loops changed.
        const std::map<std::string, std::string> after = loops(h.pipeline);
        CHECK(after.size() == before.size());
        CHECK(after != before);
        // The sliced contraction's bounds in the segment still depend on the
        // rank: the stand-in's (rank 0's) bounds do not reach the segment.
        REQUIRE(partial);
        REQUIRE(!partial->updates().empty());
        std::ostringstream extent;
        extent << partial->update(0).schedule().rvars().at(0).extent;
        CHECK(extent.str().find("coconet_rank") != std::string::npos);
        CHECK_NOTHROW(h.pipeline.compile_to_module(
            std::vector<Halide::Argument>(h.params.begin(), h.params.end()), "block_" + name,
            host));
    }
}

TEST_CASE("autoschedule_segment: a segment the user scheduled keeps its schedule",
          "[passes][autoschedule]") {
    load_autoschedulers();
    LoweredProgram m = unscheduled_block(true);
    HalideSegment &h = segment_with_collective(m);
    const std::string line =
        autoschedule_segment(h, m.analysis, "Adams2019", Halide::get_host_target(), 2);
    CHECK(line.rfind("kept the user's schedule (", 0) == 0);
    CHECK(line.find("hidden") != std::string::npos);
}

TEST_CASE("JitProgram: an autoscheduler as an option, with its parameters",
          "[passes][autoschedule]") {
    apps::MlpConfig c;
    c.batch = 5;
    c.hidden = 12;
    c.ffn = 19;
    c.hand_schedule = false;
    JitOptions options;
    options.autoscheduler = "Adams2019";
    options.autoscheduler_plugin = COCONET_ADAMS2019;
    options.autoscheduler_params = {{"beam_size", "1"}};
    coconet_test::check_matches_reference(apps::megatron_mlp(c), {1, 3, 4}, 0.0, 1, make_inputs,
                                          options);
    // A parameter the autoscheduler does not have is refused, by name.
    options.autoscheduler_params = {{"no_such_parameter", "1"}};
    CHECK_THAT(
        coconet_test::message_of<UserError>([&] { JitProgram(apps::megatron_mlp(c), options); }),
        Catch::Matchers::Contains("no_such_parameter"));
}
