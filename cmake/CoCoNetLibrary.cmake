# CoCoNet AOT libraries, as Halide's add_halide_library makes Halide ones.
#
#   add_coconet_generator(<exe> SOURCES <files...> [LIBS <libs...>])
#       A generator executable: the sources (each registering generators with
#       COCONET_REGISTER_GENERATOR) linked with the CoCoNet compiler and the
#       generator driver.
#
#   add_coconet_library(<name> FROM <generator exe> [GENERATOR <generator>]
#                       [FUNCTION_NAME <function>] [TARGETS <halide target>]
#                       [FEATURES <feature>...] [AUTOSCHEDULER <name>]
#                       [NO_DEFAULT_SCHEDULE] [PARAMS <param=value>...])
#       Runs the generator (default: <name>) at build time for one Halide
#       target (default: host; e.g. host-cuda-cuda_capability_80) and makes
#       the static library <name>: the entry point <function> (default:
#       <name>) declared in <name>.h, with the CoCoNet runtime linked in.
#       PARAMS set GeneratorParams (ranks=N builds for exactly N ranks).
#       AUTOSCHEDULER (Adams2019, Li2018, Mullapudi2016, or Halide::<name>)
#       schedules the Halide segments the user left unscheduled with that
#       Halide autoscheduler (its plugin from the Halide package), CPU targets.
#       Without one, those Funcs get CoCoNet's default schedule (register tiles
#       for MatMuls, vectors for the rest on CPU targets; on GPU targets,
#       MatMuls through the device's BLAS or in register tiles per GPU thread,
#       as PARAMS gpu_matmul=auto|library|kernels says);
#       NO_DEFAULT_SCHEDULE leaves them as Halide does (the generator parameter
#       default_schedule=false).
#
# The runtime target is CoCoNet::coconet_runtime (an alias in the build tree,
# imported by find_package(CoCoNet)).

function(add_coconet_generator exe)
    cmake_parse_arguments(ARG "" "" "SOURCES;LIBS" ${ARGN})
    add_executable(${exe} ${ARG_SOURCES})
    target_link_libraries(${exe} PRIVATE CoCoNet::coconet_generator_main CoCoNet::coconet
                                         ${ARG_LIBS})
endfunction()

function(add_coconet_library name)
    cmake_parse_arguments(ARG "NO_DEFAULT_SCHEDULE" "FROM;GENERATOR;FUNCTION_NAME;AUTOSCHEDULER"
                          "TARGETS;FEATURES;PARAMS" ${ARGN})
    if (NOT ARG_FROM)
        message(FATAL_ERROR "add_coconet_library(${name}): FROM <generator executable> is required")
    endif ()
    if (NOT ARG_GENERATOR)
        set(ARG_GENERATOR ${name})
    endif ()
    if (NOT ARG_FUNCTION_NAME)
        set(ARG_FUNCTION_NAME ${name})
    endif ()
    if (NOT ARG_TARGETS)
        set(ARG_TARGETS host)
    endif ()
    list(LENGTH ARG_TARGETS ntargets)
    if (ntargets GREATER 1)
        message(FATAL_ERROR "add_coconet_library(${name}): one target per library "
                            "(got ${ARG_TARGETS}); call it once per target")
    endif ()
    set(target ${ARG_TARGETS})
    foreach (feature IN LISTS ARG_FEATURES)
        string(APPEND target "-${feature}")
    endforeach ()

    set(autoscheduler)
    if (ARG_AUTOSCHEDULER)
        string(REGEX REPLACE "^Halide::" "" scheduler ${ARG_AUTOSCHEDULER})
        if (NOT TARGET Halide::${scheduler})
            message(FATAL_ERROR "add_coconet_library(${name}): no autoscheduler Halide::${scheduler} "
                                "in this Halide (Adams2019, Li2018, Mullapudi2016)")
        endif ()
        set(autoscheduler -p $<TARGET_FILE:Halide::${scheduler}> autoscheduler=${scheduler})
    endif ()
    if (ARG_NO_DEFAULT_SCHEDULE)
        list(APPEND ARG_PARAMS default_schedule=false)
    endif ()

    set(dir ${CMAKE_CURRENT_BINARY_DIR}/${name}.coconet)
    set(outputs ${dir}/${name}_halide.a ${dir}/${name}.cpp ${dir}/${name}.h)
    add_custom_command(
        OUTPUT ${outputs}
        COMMAND ${CMAKE_COMMAND} -E make_directory ${dir}
        COMMAND $<TARGET_FILE:${ARG_FROM}> -g ${ARG_GENERATOR} -f ${ARG_FUNCTION_NAME} -n ${name}
                -o ${dir} target=${target} ${autoscheduler} ${ARG_PARAMS}
        DEPENDS ${ARG_FROM}
        COMMENT "CoCoNet: generating ${name} (${ARG_GENERATOR}, ${target})"
        VERBATIM)
    add_custom_target(${name}.generate DEPENDS ${outputs})

    add_library(${name} STATIC ${dir}/${name}.cpp)
    add_dependencies(${name} ${name}.generate)
    # The table is written with designated initializers.
    target_compile_features(${name} PRIVATE cxx_std_20)
    target_include_directories(${name} PUBLIC $<BUILD_INTERFACE:${dir}>)
    target_link_libraries(${name} PUBLIC ${dir}/${name}_halide.a CoCoNet::coconet_runtime
                                         Threads::Threads ${CMAKE_DL_LIBS})
endfunction()
