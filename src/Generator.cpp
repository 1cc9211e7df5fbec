#include "Generator.h"

#include <sstream>

#include "Error.h"

namespace coconet {

namespace {

// The generator whose members are being constructed on this thread.
Generator *&constructing() {
    thread_local Generator *g = nullptr;
    return g;
}

std::map<std::string, GeneratorRegistry::Factory> &registry() {
    static std::map<std::string, GeneratorRegistry::Factory> r;
    return r;
}

} // namespace

Generator::ParamList::ParamList(Generator *g) {
    constructing() = g;
}

GeneratorParamBase::GeneratorParamBase(const std::string &name, const std::string &help)
    : name_(name), help_(help), owner_(constructing()) {
    coconet_user_assert(owner_) << "GeneratorParam " << name
                                << " must be a member of a coconet::Generator.";
    for (GeneratorParamBase *p : owner_->params_.params) {
        coconet_user_assert(p->name() != name)
            << "Generator: two GeneratorParams named " << name << ".";
    }
    owner_->params_.params.push_back(this);
}

void GeneratorParamBase::bad_value(const std::string &value, const char *expected) const {
    coconet_user_error << "Generator " << owner_->name() << ": GeneratorParam " << name_ << "="
                       << value << " is not " << expected << ".";
}

template<>
void GeneratorParam<std::string>::set_from_string(const std::string &value) {
    value_ = value;
}

template<>
void GeneratorParam<bool>::set_from_string(const std::string &value) {
    if (value == "true" || value == "1") {
        value_ = true;
    } else if (value == "false" || value == "0") {
        value_ = false;
    } else {
        bad_value(value, "a bool (true, false, 1 or 0)");
    }
}

template<typename T>
void GeneratorParam<T>::set_from_string(const std::string &value) {
    std::istringstream in(value);
    T parsed{};
    in >> parsed;
    if (in.fail() || !in.eof()) {
        bad_value(value, std::is_integral<T>::value ? "an integer" : "a number");
    }
    value_ = parsed;
}

template<typename T>
std::string GeneratorParam<T>::to_string() const {
    std::ostringstream out;
    out << std::boolalpha << value_;
    return out.str();
}

template class GeneratorParam<int>;
template class GeneratorParam<float>;
template class GeneratorParam<double>;
template class GeneratorParam<bool>;
template class GeneratorParam<std::string>;

Generator::Generator() : target_(Halide::get_host_target()) {}

Generator::~Generator() {
    if (constructing() == this) {
        constructing() = nullptr;
    }
}

void Generator::set_param(const std::string &name, const std::string &value) {
    coconet_user_assert(!built_) << "Generator " << name_ << ": GeneratorParam " << name
                                 << " set after the program was built.";
    std::string known;
    for (GeneratorParamBase *p : params_.params) {
        if (p->name() == name) {
            p->set_from_string(value);
            return;
        }
        known += " " + p->name();
    }
    coconet_user_error << "Generator " << name_ << " has no GeneratorParam " << name
                       << "; it has:" << known << ".";
}

void Generator::set_params(const std::string &assignments) {
    std::istringstream in(assignments);
    std::string a;
    while (in >> a) {
        const size_t eq = a.find('=');
        coconet_user_assert(eq != std::string::npos && eq > 0)
            << "Generator " << name_ << ": parameter '" << a << "' is not name=value.";
        set_param(a.substr(0, eq), a.substr(eq + 1));
    }
}

std::string Generator::params_string() const {
    std::string s;
    for (GeneratorParamBase *p : params_.params) {
        s += (s.empty() ? "" : " ") + p->name() + "=" + p->to_string();
    }
    return s;
}

const Program &Generator::build() {
    if (!built_) {
        built_ = true;
        program_ = std::make_unique<Program>(name_);
        generate();
        schedule();
        coconet_user_assert(!program_->outputs().empty())
            << "Generator " << name_ << ": generate() declared no output.";
    }
    return *program_;
}

void Generator::output(const DFunc &f, const Layout &layout) {
    coconet_user_assert(program_) << "Generator " << name_
                                  << ": output() is called from generate().";
    program_->output(f, layout);
}

void Generator::set_program(const Program &p) {
    coconet_user_assert(program_) << "Generator " << name_
                                  << ": set_program() is called from generate().";
    coconet_user_assert(program_->outputs().empty())
        << "Generator " << name_ << ": set_program() after output().";
    *program_ = Program(name_);
    for (const ProgramOutput &o : p.outputs()) {
        program_->output(o.func, o.layout);
    }
}

void GeneratorRegistry::add(const std::string &name, Factory factory) {
    coconet_internal_assert(!registry().count(name)) << "generator " << name << " registered twice";
    registry()[name] = std::move(factory);
}

std::unique_ptr<Generator> GeneratorRegistry::create(const std::string &name) {
    auto it = registry().find(name);
    if (it == registry().end()) {
        std::string known;
        for (const std::string &n : names()) {
            known += " " + n;
        }
        coconet_user_error << "No generator named " << name
                           << " is registered; there are:" << (known.empty() ? " none" : known)
                           << ".";
    }
    std::unique_ptr<Generator> g = it->second();
    constructing() = nullptr;
    g->name_ = name;
    return g;
}

std::vector<std::string> GeneratorRegistry::names() {
    std::vector<std::string> n;
    for (const auto &kv : registry()) {
        n.push_back(kv.first);
    }
    return n;
}

} // namespace coconet
