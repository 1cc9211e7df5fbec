// Overlap that pays: an overlapped step (a collective or fused pass computed
// tile by tile with its producer) runs in the number of tiles its schedule
// names only where that is fastest. Over its first calls on a communicator it
// times the scheduled count and fewer (halved down to 1, i.e. no overlap),
// kSamples times each, interleaved, each timed call started by the ranks
// together (the executor's all_reduce before it). A call's time is its slowest
// rank's: the all_reduce that starts the next timed call (or follows the
// last) carries each rank's time of the call before, so every rank holds the
// same times and picks the same count. The best of a count's calls stands for
// it, and the tuner keeps the fewest tiles within kMargin of the fastest count:
// more tiles cost more calls and meetings, so they must win by more than the
// noise to be kept. An all_to_all where ranks reach each other's memory has one more
// candidate, tried first: `direct` (0 tiles), its producer computing straight
// into the ranks' outputs in one call, which counts as the fewest. The tile
// count never changes results: every tiling reduces in the same order.
// COCONET_OVERLAP_TUNING=off keeps the scheduled count.
#ifndef COCONET_RUNTIME_OVERLAP_TUNING_H
#define COCONET_RUNTIME_OVERLAP_TUNING_H

#include <string>
#include <vector>

namespace coconet_rt {

// Whether overlapped steps tune their tile count (COCONET_OVERLAP_TUNING unset
// or `on`; `off` keeps the schedule's; another value warns once and tunes).
bool overlap_tuning_enabled();

class OverlapTuner {
public:
    // Times each candidate this many times before deciding: with the best of
    // two, one slow spell of a shared machine decided (CHANGELOG.md,
    // "The fewest tiles within 5%").
    static constexpr int kSamples = 4;
    // The fewest tiles whose time is within this fraction of the fastest's
    // are kept.
    static constexpr double kMargin = 0.05;

    // Candidates `scheduled`, scheduled / 2, ..., 1, after kDirect where
    // `direct`; with tuning off (the scheduled count), or one candidate,
    // decided at once.
    OverlapTuner(int scheduled, bool tune, bool direct = false);
    static constexpr int kDirect = 0;
    bool direct() const { return candidates_[0] == kDirect; }

    // The tile count (or kDirect) for the next call, and whether that call is
    // timed (the first call warms up, untimed).
    int chunks() const;
    bool timing() const;
    // After the call: its seconds on this rank (kept if timed). True after the
    // last timed call: the ranks then agree on it at once; on the others they
    // agree when the next timed call starts.
    bool record(double seconds);
    // What this rank brings to the agreement: its seconds for the timed call
    // not yet agreed on, 0 if none.
    double unagreed() const;
    // The agreement's result (the maximum over ranks of unagreed()): that
    // call's time. The last one decides.
    void agree(double slowest);

    bool settled() const { return chosen_ >= 0; }
    int scheduled() const { return scheduled_; }
    // The best agreed time per candidate so far.
    const std::vector<double> &best() const { return best_; }
    // "1 of 4, 2, 1 tiles (0.31, 0.27, 0.22 ms)", "direct of direct, 4, 2, 1
    // tiles (...)", "4 tiles (not tuned)", or "tuning 4, 2, 1 tiles".
    std::string describe() const;

private:
    // The fewest tiles within kMargin of the fastest of best_.
    void decide();

    int scheduled_;
    std::vector<int> candidates_;
    std::vector<double> best_; // per candidate, agreed seconds
    int calls_ = 0;
    int pending_ = -1; // the candidate of the timed call not yet agreed on
    double mine_ = 0;  // and its seconds on this rank
    int chosen_ = -1; // index into candidates_
};

} // namespace coconet_rt

#endif
