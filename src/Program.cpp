#include "Program.h"

#include "Error.h"

namespace coconet {

Program::Program(const std::string &name) : name_(name) {
    coconet_user_assert(!name.empty()) << "A program needs a name.";
}

Program &Program::output(const DFunc &f, const Layout &layout) {
    coconet_user_assert(f.defined()) << "Program " << name_ << ": output is a null DFunc.";
    for (const ProgramOutput &o : outputs_) {
        coconet_user_assert(o.func.get_contents() != f.get_contents())
            << "Program " << name_ << ": " << f.name() << " is declared an output twice.";
        coconet_user_assert(o.func.name() != f.name())
            << "Program " << name_ << ": two different distributed Funcs named " << f.name()
            << " are declared outputs; give them distinct names" << Internal::unnamed_hint(f)
            << ".";
    }
    outputs_.push_back(ProgramOutput{f, layout});
    return *this;
}

} // namespace coconet
