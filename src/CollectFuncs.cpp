#include "CollectFuncs.h"

#include <algorithm>
#include <set>

#include "Error.h"

namespace coconet {

namespace {

class Collector {
public:
    Collector(const Program &p, Analysis &a) : program(p), analysis(a) {}

    void visit(const std::shared_ptr<DFuncContents> &f, const std::string &user) {
        if (done.count(f.get())) {
            return;
        }
        coconet_user_assert(!active.count(f.get()))
            << "Program " << program.name() << ": " << f->name << " depends on itself ("
            << cycle_from(f.get()) << "): an update of a Func cannot read a value computed "
            << "from that Func (such as a collective of it); give the updated value a Func of "
            << "its own.";
        auto named = by_name.find(f->name);
        coconet_user_assert(named == by_name.end() || named->second == f.get())
            << "Program " << program.name() << " uses two different distributed Funcs named "
            << f->name << "; give them distinct names" << Internal::unnamed_hint(DFunc(f)) << ".";
        by_name[f->name] = f.get();
        active.insert(f.get());
        path.push_back(f.get());
        for (const auto &dep : dependencies(f, user)) {
            visit(dep, f->name);
        }
        path.pop_back();
        active.erase(f.get());
        done.insert(f.get());
        analysis.order.push_back(DFunc(f));
        if (f->kind == FuncKind::Input) {
            analysis.inputs.push_back(DFunc(f));
        }
    }

private:
    // "a reads s, which reads a": the path from f's visit to this one, in
    // the order each reads the next.
    std::string cycle_from(const DFuncContents *f) const {
        const auto start = std::find(path.begin(), path.end(), f);
        std::string text = f->name;
        for (auto it = start + 1; it != path.end(); ++it) {
            text += (it == start + 1 ? " reads " : ", which reads ") + (*it)->name;
        }
        return text + (path.end() - start > 1 ? ", which reads " : " reads ") + f->name;
    }

    std::vector<std::shared_ptr<DFuncContents>>
    dependencies(const std::shared_ptr<DFuncContents> &f, const std::string &user) {
        switch (f->kind) {
        case FuncKind::Input: return {};
        case FuncKind::Collective:
            // A scheduled collective stands for its gather; its own source is
            // still analyzed, for its layout.
            if (f->gathered) {
                return {f->gathered, f->collective->source};
            }
            return {f->collective->source};
        case FuncKind::Compute: break;
        }
        coconet_user_assert(f->func.defined())
            << f->name << " is used by " << user << " but has no definition.";
        coconet_user_assert(f->func.outputs() == 1)
            << f->name << " has " << f->func.outputs()
            << " values; distributed Funcs are single-valued.";
        coconet_user_assert(f->func.dimensions() <= 4) << f->name << " has " << f->func.dimensions()
                                                       << " dimensions; at most 4 are supported.";
        Internal::check_element_type(f->func.type(), f->name);
        std::vector<std::shared_ptr<DFuncContents>> deps;
        for (const auto &def : definitions_of(*f)) {
            for (const auto &call : distributed_calls(*f, def)) {
                deps.push_back(call.callee);
            }
        }
        if (f->gathered) {
            // compute_sliced: the Func stands for the gather of its sliced version.
            deps.push_back(f->gathered);
        }
        return deps;
    }

    const Program &program;
    Analysis &analysis;
    std::set<const DFuncContents *> done, active;
    std::vector<const DFuncContents *> path; // the Funcs being visited, outermost first
    std::map<std::string, const DFuncContents *> by_name;
};

} // namespace

Analysis collect_funcs(const Program &program) {
    coconet_user_assert(!program.outputs().empty())
        << "Program " << program.name() << " has no outputs.";
    Analysis analysis;
    Collector collector(program, analysis);
    for (const ProgramOutput &o : program.outputs()) {
        collector.visit(o.func.get_contents(), "program " + program.name());
    }
    std::stable_sort(analysis.inputs.begin(), analysis.inputs.end(),
                     [](const DFunc &a, const DFunc &b) {
                         return a.get_contents()->serial < b.get_contents()->serial;
                     });
    return analysis;
}

} // namespace coconet
