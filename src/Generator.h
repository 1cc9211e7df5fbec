// Generators in Halide's manner: a class with GeneratorParams whose
// generate() defines a distributed algorithm (inputs with layouts, outputs
// with declared layouts) and whose schedule() schedules it, registered under
// a name with COCONET_REGISTER_GENERATOR. The generator driver
// (GeneratorMain.cpp, run by add_coconet_library) compiles a registered
// generator ahead of time into a static library and header; tests and tools
// can also build its Program in process (GeneratorRegistry::create).
//
//   class Scale : public coconet::Generator {
//   public:
//       GeneratorParam<int> n{"n", 1024};
//       void generate() override {
//           DFunc x = input("x", Halide::Float(32), {n}, Local());
//           sum = all_reduce(x, ReduceOp::Sum, "sum");
//           output(sum, Replicated());
//       }
//       void schedule() override { sum.split_collective(0); }
//   private:
//       DFunc sum;
//   };
//   COCONET_REGISTER_GENERATOR(Scale, scale)
#ifndef COCONET_GENERATOR_H
#define COCONET_GENERATOR_H

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "Program.h"

namespace coconet {

class Generator;

// A named parameter of a generator, set from the build (PARAMS name=value).
class GeneratorParamBase {
public:
    GeneratorParamBase(const std::string &name, const std::string &help);
    virtual ~GeneratorParamBase() = default;
    GeneratorParamBase(const GeneratorParamBase &) = delete;
    GeneratorParamBase &operator=(const GeneratorParamBase &) = delete;
    const std::string &name() const { return name_; }
    const std::string &help() const { return help_; }
    // Parses `value`; throws UserError naming the generator and the parameter.
    virtual void set_from_string(const std::string &value) = 0;
    virtual std::string to_string() const = 0;

protected:
    [[noreturn]] void bad_value(const std::string &value, const char *expected) const;

private:
    std::string name_, help_;
    Generator *owner_;
};

// T is int, float, double, bool or std::string.
template<typename T>
class GeneratorParam : public GeneratorParamBase {
public:
    GeneratorParam(const std::string &name, const T &value, const std::string &help = "")
        : GeneratorParamBase(name, help), value_(value) {}
    operator T() const { return value_; }
    const T &value() const { return value_; }
    void set_from_string(const std::string &value) override;
    std::string to_string() const override;

private:
    T value_;
};

class Generator {
    // Declared first: parameters constructed after it (this class's and the
    // subclass's) register in it.
    struct ParamList {
        explicit ParamList(Generator *g);
        std::vector<GeneratorParamBase *> params;
    } params_{this};

public:
    Generator();
    virtual ~Generator();
    Generator(const Generator &) = delete;
    Generator &operator=(const Generator &) = delete;

    // Defines the algorithm: inputs with input(...), outputs with output(...)
    // or a whole Program with set_program(...).
    virtual void generate() = 0;
    // Schedules it (split_collective, fuse_with, overlap, Halide's directives).
    virtual void schedule() {}

    // Every generator has these.
    // Ranks the library runs on; 0: any count (fused kernels are then built
    // for groups of up to max_ranks ranks on the direct path).
    GeneratorParam<int> ranks{"ranks", 0, "ranks the library runs on (0: any)"};
    GeneratorParam<int> max_ranks{"max_ranks", 8, "largest group a fused pass reads directly"};
    // The default schedule for the Funcs left unscheduled (on GPU targets,
    // MatMuls' register tiles).
    GeneratorParam<bool> default_schedule{"default_schedule", true,
                                          "schedule the Funcs left unscheduled"};
    // Its MatMuls on a GPU target: through the device's BLAS or in kernels.
    GeneratorParam<std::string> gpu_matmul{
        "gpu_matmul", "auto",
        "MatMuls on a GPU target: auto (cuBLAS on CUDA), library (also CLBlast on OpenCL), "
        "kernels"};

    // The registered name, and the target the library is built for.
    const std::string &name() const { return name_; }
    const Halide::Target &target() const { return target_; }
    void set_target(const Halide::Target &t) { target_ = t; }

    // Sets a parameter from text; throws UserError for unknown names or bad values.
    void set_param(const std::string &name, const std::string &value);
    // "name=value" pairs separated by spaces, as PARAMS gives them.
    void set_params(const std::string &assignments);
    const std::vector<GeneratorParamBase *> &params() const { return params_.params; }
    // The parameters as set, "name=value ..." in declaration order.
    std::string params_string() const;

    // Runs generate() then schedule() once and returns the program.
    const Program &build();

protected:
    void output(const DFunc &f, const Layout &layout);
    void set_program(const Program &p);

private:
    friend class GeneratorParamBase;
    friend class GeneratorRegistry;
    std::string name_;
    Halide::Target target_;
    std::unique_ptr<Program> program_;
    bool built_ = false;
};

class GeneratorRegistry {
public:
    using Factory = std::function<std::unique_ptr<Generator>()>;
    static void add(const std::string &name, Factory factory);
    // A new instance of the generator registered as `name`; throws UserError
    // listing the registered names when there is none.
    static std::unique_ptr<Generator> create(const std::string &name);
    static std::vector<std::string> names();
};

struct RegisterGenerator {
    RegisterGenerator(const char *name, GeneratorRegistry::Factory factory) {
        GeneratorRegistry::add(name, std::move(factory));
    }
};

} // namespace coconet

#define COCONET_REGISTER_GENERATOR(CLASS, NAME)                  \
    static ::coconet::RegisterGenerator coconet_register_##NAME( \
        #NAME, [] { return std::unique_ptr<::coconet::Generator>(new CLASS()); });

#endif
