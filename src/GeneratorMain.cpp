// The generator driver, linked into every generator executable (as Halide's
// GenGen is): builds a registered generator with the given parameters and
// writes its AOT library for one target. add_coconet_library runs it.
//
//   <generator-exe> -g <name> -o <dir> [-f <function>] [-n <file base>]
//                   [-p <autoscheduler plugin>] target=<halide target>
//                   [autoscheduler=<name>] [autoscheduler.<key>=<value> ...]
//                   [param=value ...]
//   <generator-exe> -l            lists the registered generators and their parameters
//
// Writes (making <dir> where it is missing) <dir>/<base>_halide.a (the Halide pipelines and fused
// kernels, with Halide's runtime for the target), <dir>/<base>.cpp (the table and entry point) and
// <dir>/<base>.h.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>

#include "AotSource.h"
#include "Error.h"
#include "Generator.h"

using namespace coconet;

namespace {

int usage(const char *argv0) {
    std::fprintf(stderr,
                 "usage: %s -g <generator> -o <dir> [-f <function>] [-n <file base>] "
                 "[-p <plugin>] target=<target> [autoscheduler=<name>] "
                 "[autoscheduler.<key>=<value> ...] [param=value ...]\n"
                 "       %s -l\n",
                 argv0, argv0);
    return 2;
}

void write_file(const std::string &path, const std::string &text) {
    std::ofstream f(path);
    f << text;
    coconet_user_assert(f.good()) << "cannot write " << path << ".";
}

void list_generators() {
    for (const std::string &name : GeneratorRegistry::names()) {
        std::unique_ptr<Generator> g = GeneratorRegistry::create(name);
        std::printf("%s\n", name.c_str());
        for (const GeneratorParamBase *p : g->params()) {
            std::printf("    %s=%s  %s\n", p->name().c_str(), p->to_string().c_str(),
                        p->help().c_str());
        }
    }
}

} // namespace

int main(int argc, char **argv) {
    std::string generator, dir, function, base, plugin, autoscheduler, target = "host";
    std::vector<std::pair<std::string, std::string>> params;
    std::map<std::string, std::string> autoscheduler_params;
    for (int i = 1; i < argc; i++) {
        const std::string a = argv[i];
        if (a == "-l") {
            list_generators();
            return 0;
        }
        std::string *flag = a == "-g"   ? &generator
                            : a == "-o" ? &dir
                            : a == "-f" ? &function
                            : a == "-n" ? &base
                            : a == "-p" ? &plugin
                                        : nullptr;
        if (flag && i + 1 < argc) {
            *flag = argv[++i];
            continue;
        }
        const size_t eq = a.find('=');
        if (eq == std::string::npos || eq == 0) {
            std::fprintf(stderr, "unknown argument '%s'\n", a.c_str());
            return usage(argv[0]);
        }
        if (a.substr(0, eq) == "target") {
            target = a.substr(eq + 1);
        } else if (a.substr(0, eq) == "autoscheduler") {
            autoscheduler = a.substr(eq + 1);
        } else if (a.rfind("autoscheduler.", 0) == 0) {
            autoscheduler_params[a.substr(14, eq - 14)] = a.substr(eq + 1);
        } else {
            params.emplace_back(a.substr(0, eq), a.substr(eq + 1));
        }
    }
    if (generator.empty() || dir.empty()) {
        return usage(argv[0]);
    }
    function = function.empty() ? generator : function;
    base = base.empty() ? function : base;
    const auto start = std::chrono::steady_clock::now();
    try {
        std::error_code made;
        std::filesystem::create_directories(dir, made);
        coconet_user_assert(!made && std::filesystem::is_directory(dir))
            << "cannot make the output folder " << dir
            << (made ? " (" + made.message() + ")." : " (a file of that name is in the way).");
        if (!plugin.empty()) {
            Halide::load_plugin(plugin);
        }
        std::unique_ptr<Generator> g = GeneratorRegistry::create(generator);
        for (const auto &p : params) {
            g->set_param(p.first, p.second);
        }
        coconet_user_assert(Halide::Target::validate_target_string(target))
            << "Generator " << generator << ": '" << target << "' is not a Halide target.";
        g->set_target(Halide::Target(target));
        const Program &program = g->build();
        AotOptions options;
        options.function_name = function;
        options.target = g->target();
        options.ranks = g->ranks;
        options.max_ranks = g->max_ranks;
        options.generator = generator;
        options.params = g->params_string();
        options.autoscheduler = autoscheduler;
        options.autoscheduler_params = autoscheduler_params;
        options.default_schedule = g->default_schedule;
        options.gpu_matmul = g->gpu_matmul;
        std::printf("[coconet] %s: generator %s (%s), target %s%s%s\n", function.c_str(),
                    generator.c_str(), options.params.c_str(), target.c_str(),
                    autoscheduler.empty() ? "" : ", autoscheduler ", autoscheduler.c_str());
        std::fflush(stdout);
        AotLibrary lib = compile_aot(program, options, [](const std::string &name) {
            std::printf("[coconet]   compiling %s\n", name.c_str());
            std::fflush(stdout);
        });
        const std::string prefix = dir + "/" + base;
        lib.module.compile({{Halide::OutputFileType::static_library, prefix + "_halide.a"}});
        write_file(prefix + ".h", aot_header(lib.plan));
        write_file(prefix + ".cpp", aot_source(lib.plan, base + ".h"));
        const double s =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        std::printf("[coconet] %s: wrote %s_halide.a, %s.cpp, %s.h in %.1f s\n", function.c_str(),
                    prefix.c_str(), prefix.c_str(), prefix.c_str(), s);
    } catch (const UserError &e) {
        std::fprintf(stderr, "Error: %s\n", e.what());
        return 1;
    } catch (const Halide::CompileError &e) {
        std::fprintf(stderr, "Halide error: %s\n", e.what());
        return 1;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "Internal error: %s\n", e.what());
        return 1;
    }
    return 0;
}
