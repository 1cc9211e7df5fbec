#include "executor/OverlapTuning.h"

#include <algorithm>
#include <cstdio>
#include <limits>

#include "core/Env.h"

namespace coconet_rt {

bool overlap_tuning_enabled() {
    return env_is("COCONET_OVERLAP_TUNING", {"on", "off"}, "on");
}

OverlapTuner::OverlapTuner(int scheduled, bool tune, bool direct) : scheduled_(scheduled) {
    if (direct && tune) {
        candidates_.push_back(kDirect);
    }
    for (int k = std::max(1, scheduled);; k /= 2) {
        candidates_.push_back(k);
        if (k == 1 || !tune) {
            break;
        }
    }
    best_.assign(candidates_.size(), std::numeric_limits<double>::infinity());
    if (candidates_.size() == 1) {
        chosen_ = 0;
    }
}

int OverlapTuner::chunks() const {
    if (settled()) {
        return candidates_[chosen_];
    }
    return timing() ? candidates_[(calls_ - 1) % candidates_.size()] : candidates_[0];
}

bool OverlapTuner::timing() const {
    return !settled() && calls_ >= 1;
}

bool OverlapTuner::record(double seconds) {
    if (settled()) {
        return false;
    }
    if (timing()) {
        pending_ = (calls_ - 1) % (int)candidates_.size();
        mine_ = seconds;
    }
    calls_++;
    return pending_ >= 0 && calls_ > kSamples * (int)candidates_.size();
}

double OverlapTuner::unagreed() const {
    return pending_ >= 0 ? mine_ : 0.0;
}

void OverlapTuner::agree(double slowest) {
    if (settled() || pending_ < 0) {
        return;
    }
    best_[pending_] = std::min(best_[pending_], slowest);
    pending_ = -1;
    if (calls_ > kSamples * (int)candidates_.size()) {
        decide();
    }
}

void OverlapTuner::decide() {
    const auto fastest = std::min_element(best_.begin(), best_.end());
    // The fastest, or the fewest tiles within the margin of it (a count all
    // of whose times were NaN has none: agree() keeps the best, infinity).
    chosen_ = (int)(fastest - best_.begin());
    for (int i = 0; i < (int)best_.size(); i++) {
        if (best_[i] <= *fastest * (1.0 + kMargin) && candidates_[i] < candidates_[chosen_]) {
            chosen_ = i;
        }
    }
}

std::string OverlapTuner::describe() const {
    auto name = [](int k) { return k == kDirect ? std::string("direct") : std::to_string(k); };
    auto counts = [&] {
        std::string s;
        for (size_t i = 0; i < candidates_.size(); i++) {
            s += (i ? ", " : "") + name(candidates_[i]);
        }
        return s;
    };
    if (!settled()) {
        return "tuning " + counts() + " tiles";
    }
    if (candidates_.size() == 1) {
        return name(candidates_[chosen_]) + " tiles (not tuned)";
    }
    std::string times;
    for (size_t i = 0; i < best_.size(); i++) {
        char ms[32];
        std::snprintf(ms, sizeof ms, "%.3g", best_[i] * 1e3);
        times += (i ? ", " : "") + std::string(ms);
    }
    return name(candidates_[chosen_]) + " of " + counts() + " tiles (" + times + " ms)";
}

} // namespace coconet_rt
