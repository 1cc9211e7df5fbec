// A distributed program: the outputs of an algorithm with their declared
// layouts. Inputs are found by walking the definitions from the outputs.
#ifndef COCONET_PROGRAM_H
#define COCONET_PROGRAM_H

#include <string>
#include <vector>

#include "DFunc.h"

namespace coconet {

struct ProgramOutput {
    DFunc func;
    Layout layout;
};

class Program {
public:
    explicit Program(const std::string &name);

    // Declares `f` an output with the given layout (part of the signature: a
    // schedule never changes it). Returns *this for chaining.
    Program &output(const DFunc &f, const Layout &layout);

    const std::string &name() const { return name_; }
    const std::vector<ProgramOutput> &outputs() const { return outputs_; }

private:
    std::string name_;
    std::vector<ProgramOutput> outputs_;
};

} // namespace coconet

#endif
