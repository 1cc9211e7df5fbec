// Pass: layout and shape inference. Element-wise, Replicated op X -> X,
// Sliced(d) op Sliced(d) -> Sliced(d), Local op Replicated -> Local; a reduction
// over a sliced dimension gives a Local partial result; Local op Sliced and
// Sliced(d) op Sliced(e != d) are errors, as is reading a slice at any index
// other than the consumer's own pure variable. Collectives map layouts as in
// Collectives.h. Declared output layouts are checked against the result.
#ifndef COCONET_INFER_LAYOUTS_H
#define COCONET_INFER_LAYOUTS_H

#include "Analysis.h"

namespace coconet {

void infer_layouts(const Program &program, Analysis &analysis);

// The analysis passes alone, collect_funcs then infer_layouts: for the
// reference and the rank data helpers, which need no pipeline.
Analysis analyze(const Program &program);

// The layout and shape f's definition gives it, from inference over f and the
// Funcs it reads: for directives, which are given before any program exists.
FuncInfo infer_func(const DFunc &f);

} // namespace coconet

#endif
