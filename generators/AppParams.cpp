#include "AppParams.h"

namespace coconet {
namespace generators {

apps::Schedule ScheduleParams::parsed_schedule() const {
    const std::string &s = schedule.value();
    coconet_user_assert(s == "none" || s == "split" || s == "fused")
        << "GeneratorParam schedule=" << s << " is not one of none, split, fused.";
    return s == "none"    ? apps::Schedule::None
           : s == "split" ? apps::Schedule::Split
                          : apps::Schedule::Fused;
}

FuseOptions ScheduleParams::fuse() const {
    FuseOptions o;
    o.chunk_elements = chunk_elements;
    const std::string &p = path.value();
    coconet_user_assert(p == "auto" || p == "direct" || p == "ring")
        << "GeneratorParam path=" << p << " is not one of auto, direct, ring.";
    o.path = p == "direct" ? FusedPath::Direct : p == "ring" ? FusedPath::Ring : FusedPath::Auto;
    return o;
}

apps::OptimizerConfig OptimizerParams::config() const {
    apps::OptimizerConfig c;
    c.n = n;
    c.lr = lr;
    sched.apply(c);
    return c;
}

apps::MlpConfig MlpParams::config() const {
    apps::MlpConfig c;
    c.batch = batch;
    c.hidden = hidden;
    c.ffn = ffn;
    c.dropout = dropout;
    c.seed = seed;
    return c;
}

} // namespace generators
} // namespace coconet
