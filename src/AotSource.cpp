#include "AotSource.h"

#include <algorithm>
#include <set>
#include <sstream>

namespace coconet {

namespace {

std::string c_string(const std::string &s) {
    std::string r = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\') {
            r += '\\';
        }
        r += c;
    }
    return r + "\"";
}

template<typename T>
std::string list(const std::vector<T> &v) {
    std::ostringstream s;
    for (size_t i = 0; i < v.size(); i++) {
        s << (i ? ", " : "") << v[i];
    }
    return s.str();
}

template<typename T, size_t N>
std::string braced(const T (&v)[N]) {
    return "{" + list(std::vector<T>(v, v + N)) + "}";
}

// An int32_t array, or NULL when empty (a zero-length array is not C++).
std::string array(std::ostringstream &out, const std::string &name, const std::vector<int> &v) {
    if (v.empty()) {
        return "nullptr";
    }
    out << "const int32_t " << name << "[] = {" << list(v) << "};\n";
    return name;
}

// A struct's initializer with every field named (C++20 designated
// initializers, in declaration order), so that the compiler checks each
// field's name against the header it is built with.
class Fields {
public:
    template<typename T>
    Fields &operator()(const char *field, const T &value) {
        std::ostringstream v;
        v << value;
        text_ += (text_.empty() ? "{." : ", .") + std::string(field) + " = " + v.str();
        return *this;
    }
    std::string str() const { return text_ + "}"; }

private:
    std::string text_;
};

// The function pointer of a compiled function in the table.
std::string function(const std::string &name) {
    return name.empty() ? "{}" : Fields()("call", name + "_call").str();
}

std::string value_text(const ProgramValue &pv) {
    const coconet_value_info v = value_info(pv);
    return Fields()("name", c_string(v.name))("type_code", v.type_code)("type_bits", v.type_bits)(
               "dims", v.dims)("extents", braced(v.extents))("layout", v.layout)("dim", v.dim)(
               "nsplit", v.nsplit)("group", v.group)("device", v.device)
        .str();
}

const char *kind_name(coconet_step_kind k) {
    switch (k) {
    case COCONET_STEP_FUSED: return "COCONET_STEP_FUSED";
    case COCONET_STEP_COLLECTIVE: return "COCONET_STEP_COLLECTIVE";
    default: return "COCONET_STEP_HALIDE";
    }
}

std::string desc_text(const coconet_collective_desc &d) {
    return Fields()("version", d.version)("size", "sizeof(coconet_collective_desc)")(
               "kind", d.kind)("op", d.op)("root", d.root)("dim", d.dim)(
               "concat_dim", d.concat_dim)("chunk_dim", d.chunk_dim)("chunks", d.chunks)(
               "chunk_index", d.chunk_index)("local_value", d.local_value)("nsplit", d.nsplit)(
               "group", d.group)("dst_group", d.dst_group)("dims", d.dims)("extents",
                                                                           braced(d.extents))
        .str();
}

std::string pass_text(const ProgramStep &s, const std::string &gathered) {
    const coconet_fused_call c = pass_call(s);
    return Fields()("version", c.version)("size", "sizeof(coconet_fused_call)")(
               "name", c_string(s.name))("op", c.op)("dim", c.dim)("nsplit", c.nsplit)(
               "group", c.group)("dims", c.dims)("n", braced(c.n))("nout", c.nout)(
               "gathered", gathered)("chunk_elements", c.chunk_elements)("path", c.path)(
               "range_dim", c.range_dim)("replicable", c.replicable)
        .str();
}

// Parameter names of the entry point: the run-time sizes', then the
// arguments' (the Funcs' names), as C identifiers, unique, and none that the
// entry point's body or a C or C++ compiler reserves.
struct ParameterNames {
    std::vector<std::string> sizes, args;
};

ParameterNames parameter_names(const AotPlan &plan) {
    std::vector<std::string> names = plan.sizes;
    for (int v : plan.args) {
        names.push_back(plan.values[v].name);
    }
    // The body's own names, then the keywords of C and C++.
    std::set<std::string> used;
    std::istringstream reserved(
        "comm a sizes program int32_t coconet_aot_run coconet_aot_run_sized alignas alignof "
        "and and_eq asm auto bitand bitor bool break case catch char char8_t char16_t char32_t "
        "class compl concept const consteval constexpr constinit const_cast continue co_await "
        "co_return co_yield decltype default delete do double dynamic_cast else enum explicit "
        "export extern false float for friend goto if inline int long mutable namespace new "
        "noexcept not not_eq nullptr operator or or_eq private protected public register "
        "reinterpret_cast requires restrict return short signed sizeof static static_assert "
        "static_cast struct switch template this thread_local throw true try typedef typeid "
        "typename union unsigned using virtual void volatile wchar_t while xor xor_eq");
    for (std::string word; reserved >> word;) {
        used.insert(word);
    }
    for (std::string &name : names) {
        std::string n;
        for (char c : name) {
            n += std::isalnum((unsigned char)c) ? c : '_';
        }
        if (n.empty() || std::isdigit((unsigned char)n[0])) {
            n = "_" + n;
        }
        while (used.count(n)) {
            n += "_";
        }
        used.insert(n);
        name = n;
    }
    const auto sizes_end = names.begin() + (long)plan.sizes.size();
    return ParameterNames{{names.begin(), sizes_end}, {sizes_end, names.end()}};
}

std::string signature(const AotPlan &plan) {
    const ParameterNames names = parameter_names(plan);
    std::string s = "int " + plan.options.function_name + "(coconet_comm *comm";
    for (const std::string &n : names.sizes) {
        s += ", int32_t " + n;
    }
    for (const std::string &n : names.args) {
        s += ", struct halide_buffer_t *" + n;
    }
    return s + ")";
}

std::string type_text(const Halide::Type &t) {
    std::ostringstream s;
    s << t;
    return s.str();
}

std::string shape_text(const ProgramValue &v, const AotPlan &plan) {
    std::string s = "[";
    for (size_t d = 0; d < v.extents.size(); d++) {
        const int e = v.extents[d];
        s += (d ? ", " : "") + (e >= 0 ? std::to_string(e) : plan.sizes.at(-e - 1));
    }
    return s + "]";
}

} // namespace

std::string aot_source(const AotPlan &plan, const std::string &header_name) {
    const std::string &fn = plan.options.function_name;
    std::ostringstream decl, tables, out;
    std::set<std::string> functions;
    for (const ProgramStep &s : plan.steps) {
        if (!s.pipeline.empty()) {
            functions.insert(s.pipeline);
        }
        for (const ProgramKernel &k : s.kernels) {
            functions.insert(k.function);
        }
    }
    for (const ProgramCombiner &c : plan.combiners) {
        functions.insert(c.function);
        functions.insert(c.identity);
    }
    std::set<std::string> interfaces;
    if (!plan.device_interface.empty()) {
        interfaces.insert(plan.device_interface);
    }
    for (const ProgramStep &s : plan.steps) {
        for (const ProgramKernel &k : s.kernels) {
            if (!k.device_interface.empty()) {
                interfaces.insert(k.device_interface);
            }
        }
    }
    decl << "extern \"C\" {\n";
    for (const std::string &f : interfaces) {
        decl << "const struct halide_device_interface_t *" << f << "(void);\n";
    }
    for (const std::string &f : functions) {
        decl << "int " << f << "_argv(void **args);\n";
    }
    decl << "}\n\nnamespace {\n\n";
    for (const std::string &f : functions) {
        decl << "int " << f << "_call(void *, void **args) {\n    return " << f
             << "_argv(args);\n}\n";
    }

    tables << "\nconst coconet_value_info values[] = {\n";
    for (const ProgramValue &v : plan.values) {
        tables << "    " << value_text(v) << ",\n";
    }
    tables << "};\n";
    const std::string args = array(tables, "args", plan.args);
    const std::string output_values = array(tables, "output_values", plan.output_values);
    const bool any_in_place =
        std::any_of(plan.in_place_of.begin(), plan.in_place_of.end(), [](int i) { return i >= 0; });
    const std::string in_place_of =
        array(tables, "in_place_of", any_in_place ? plan.in_place_of : std::vector<int>{});
    std::vector<std::string> steps;
    for (size_t i = 0; i < plan.steps.size(); i++) {
        const ProgramStep &s = plan.steps[i];
        const std::string p = "step" + std::to_string(i) + "_";
        std::string kernels = "nullptr";
        if (!s.kernels.empty()) {
            kernels = p + "kernels";
            tables << "const coconet_aot_kernel " << kernels << "[] = {\n";
            for (const ProgramKernel &k : s.kernels) {
                tables << "    "
                       << Fields()("nsrc", k.nsrc)("function", function(k.function))(
                              "device", k.device ? 1 : 0)(
                              "device_interface",
                              k.device_interface.empty() ? "nullptr" : k.device_interface + "()")
                              .str()
                       << ",\n";
            }
            tables << "};\n";
        }
        Fields st;
        st("kind", kind_name(s.kind))("pipeline", function(s.pipeline))("nparams", s.params.size())(
            "params", array(tables, p + "params", s.params))("nouts", s.outs.size())(
            "outs", array(tables, p + "outs", s.outs));
        if (s.kind == COCONET_STEP_FUSED) {
            st("pass", pass_text(s, array(tables, p + "gathered", s.gathered)))("src", s.src)(
                "pass_outs", array(tables, p + "pass_outs", s.pass_outs))(
                "slices", array(tables, p + "slices", s.slices))("nextras", s.extras.size())(
                "extras", array(tables, p + "extras", s.extras))("chunks", s.chunks)(
                "nkernels", s.kernels.size())("kernels", kernels);
        }
        if (s.kind == COCONET_STEP_COLLECTIVE) {
            st("src", s.src)("chunks", s.chunks)("collective_name", c_string(s.name))(
                "collective", desc_text(s.collective))("dst", s.dst);
        }
        steps.push_back("    " + st.str() + ",\n");
    }
    std::string device_stages = "nullptr";
    if (!plan.device_stages.empty()) {
        device_stages = "device_stages";
        tables << "const coconet_value_info device_stages[] = {\n";
        for (const ProgramValue &v : plan.device_stages) {
            tables << "    " << value_text(v) << ",\n";
        }
        tables << "};\n";
    }
    std::string combiners = "nullptr";
    if (!plan.combiners.empty()) {
        combiners = "combiners";
        tables << "const coconet_aot_combiner combiners[] = {\n";
        for (const ProgramCombiner &c : plan.combiners) {
            tables << "    "
                   << Fields()("op", c.op)("type_code", (int)c.type.code())("type_bits",
                                                                            c.type.bits())(
                          "function", function(c.function))("identity", function(c.identity))
                          .str()
                   << ",\n";
        }
        tables << "};\n";
    }
    std::string size_names = "nullptr", constraints = "nullptr";
    if (!plan.sizes.empty()) {
        size_names = "size_names";
        tables << "const char *const size_names[] = {";
        for (size_t k = 0; k < plan.sizes.size(); k++) {
            tables << (k ? ", " : "") << c_string(plan.sizes[k]);
        }
        tables << "};\n";
    }
    if (!plan.constraints.empty()) {
        constraints = "constraints";
        tables << "const coconet_size_constraint constraints[] = {\n";
        for (const SizeConstraint &c : plan.constraints) {
            tables << "    " << Fields()("a", c.a)("b", c.b)("what", c_string(c.what)).str()
                   << ",\n";
        }
        tables << "};\n";
    }
    tables << "const coconet_aot_step steps[] = {\n";
    for (const std::string &s : steps) {
        tables << s;
    }
    tables << "};\n\n";
    const std::string program =
        Fields()("version",
                 COCONET_AOT_VERSION)("size", "sizeof(coconet_aot_program)")("name", c_string(fn))(
            "generator", c_string(plan.options.generator))("params", c_string(plan.options.params))(
            "ranks", plan.options.ranks)("nvalues", plan.values.size())("values", "values")(
            "ninputs", plan.ninputs)("noutputs", plan.output_values.size())("args", args)(
            "output_values", output_values)("nsteps", plan.steps.size())("steps", "steps")(
            "with_device_context", "nullptr")("set_error_handler", "halide_set_error_handler")(
            "set_custom_malloc", "halide_set_custom_malloc")("set_custom_free",
                                                             "halide_set_custom_free")(
            "device_interface",
            plan.device_interface.empty() ? "nullptr" : plan.device_interface + "()")(
            "device_api", plan.device_api)("ndevice_stages", plan.device_stages.size())(
            "device_stages", device_stages)("ncombiners", plan.combiners.size())(
            "combiners", combiners)("nsizes", plan.sizes.size())("size_names", size_names)(
            "nconstraints", plan.constraints.size())("constraints", constraints)("in_place_of",
                                                                                 in_place_of)
            .str();
    const ParameterNames names = parameter_names(plan);
    const std::string run =
        plan.sizes.empty()
            ? "    return coconet_aot_run(comm, &program, a);\n"
            : "    const int32_t sizes[] = {" + list(names.sizes) +
                  "};\n    return coconet_aot_run_sized(comm, &program, sizes, a);\n";

    out << "// Generated by the CoCoNet generator driver: the table coconet_aot_run\n"
        << "// follows for " << fn << ", and its entry point. Do not edit.\n"
        << "#include " << c_string(header_name) << "\n\n"
        << "static_assert(COCONET_AOT_VERSION == " << COCONET_AOT_VERSION
        << " && COCONET_FUSED_CALL_VERSION == " << COCONET_FUSED_CALL_VERSION
        << ",\n              \"generated for another version of coconet_aot.h: rebuild the "
           "library\");\n\n"
        << decl.str() << tables.str() << "const coconet_aot_program program = " << program
        << ";\n\n"
        << "} // namespace\n\n"
        << "extern \"C\" const coconet_aot_program *" << fn << "_program(void) {\n"
        << "    return &program;\n}\n\n"
        << "extern \"C\" " << signature(plan) << " {\n"
        << "    struct halide_buffer_t *const a[] = {" << list(names.args) << "};\n"
        << run << "}\n";
    return out.str();
}

std::string aot_header(const AotPlan &plan) {
    const std::string &fn = plan.options.function_name;
    const std::vector<std::string> names = parameter_names(plan).args;
    const std::string box =
        plan.sizes.empty() ? "coconet_arg_box(" + fn + "_program(), i, rank, size, min, extent)"
                           : "coconet_arg_box_sized(" + fn +
                                 "_program(), sizes, i, rank,\n//   size, min, extent)";
    std::ostringstream h;
    h << "// " << fn << ": a CoCoNet library generated from generator '" << plan.options.generator
      << "'\n//   (" << plan.options.params << ")\n// for target "
      << plan.options.target.to_string() << ". Do not edit.\n//\n"
      << "// Every rank of the communicator calls " << fn << " with its own box of each\n"
      << "// argument, in global coordinates: a buffer's min is the global index of its\n"
      << "// first element (buffers whose mins are all 0 are taken as the rank's box).\n"
      << "// " << box << " gives the\n"
      << "// box of argument i (in the order below) on rank `rank` of `size`:\n"
      << "//   Replicated / Local: the whole global shape on every rank (Local: each\n"
      << "//     rank's own value);\n"
      << "//   Sliced(d): block `rank` of ceil(n_d / size) elements along dimension d\n"
      << "//     (the last blocks may be short or empty);\n"
      << "//   on a group of world.split(k): nothing (extents 0) on ranks outside it.\n//\n";
    for (size_t i = 0; i < plan.args.size(); i++) {
        const ProgramValue &v = plan.values[plan.args[i]];
        h << "//   " << i << " " << ((int)i < plan.ninputs ? "input  " : "output ") << names[i]
          << ": " << type_text(v.type) << " " << shape_text(v, plan) << ", " << v.layout.to_string()
          << "\n";
    }
    if (!plan.sizes.empty()) {
        h << "//\n// Run-time sizes (int32 arguments before the buffers, the same on every rank;\n"
          << "// `sizes` above holds them in this order): " << list(plan.sizes) << ".\n";
        for (const SizeConstraint &c : plan.constraints) {
            h << "//   " << c.what << ": must be equal.\n";
        }
    }
    h << "//\n// "
      << (plan.options.ranks > 0
              ? "Built for exactly " + std::to_string(plan.options.ranks) + " ranks."
              : std::string("Runs on any number of ranks."))
      << " Returns 0, or a COCONET_ERR_* code with the\n"
      << "// message in coconet_comm_last_error(comm).\n//\n// The lowered plan:\n";
    std::istringstream plan_lines(plan.plan_text);
    for (std::string line; std::getline(plan_lines, line);) {
        h << "//   " << line << "\n";
    }
    const std::string guard = "COCONET_GENERATED_" + fn + "_H";
    h << "#ifndef " << guard << "\n#define " << guard << "\n\n#include \"coconet_aot.h\"\n\n"
      << "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n"
      << signature(plan) << ";\n\n"
      << "// The table coconet_aot_run follows (argument layouts, steps).\n"
      << "const coconet_aot_program *" << fn << "_program(void);\n\n"
      << "#ifdef __cplusplus\n} // extern \"C\"\n#endif\n\n#endif\n";
    return h.str();
}

} // namespace coconet
