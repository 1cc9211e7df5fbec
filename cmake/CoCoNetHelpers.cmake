# CoCoNet build helpers.
#
#   coconet_target_warnings(<target>)          -Wall -Wextra on one of our targets
#   coconet_enable_sanitizer(<target> <tsan|asan>)  compile + link it with the sanitizer, -g -O1
#   coconet_add_test(NAME n SOURCES ... LABELS ... [TIMEOUT s] [LIBS ...] [ARGS ...])
#   coconet_add_tsan_test(NAME n SOURCES ... LABELS ... [TIMEOUT s] [LIBS ...] [ARGS ...])
#   coconet_add_asan_test(NAME n SOURCES ... LABELS ... [TIMEOUT s] [LIBS ...] [ARGS ...])
#   coconet_add_mpi_test(NAME n COMMAND <target> NP k LABELS ... [TIMEOUT s] [ARGS ...]
#                        [ENV VAR=value ...] [COLLECTIVES native|deterministic ...]
#                        [EXPECT re] [WILL_FAIL])
#       COLLECTIVES adds the test once per path of COCONET_MPI_COLLECTIVES, the
#       deterministic one named n_det; without it the default (native) runs.
#       EXPECT: as coconet_expect_command, status 0.
#   coconet_expect_command(<out> STATUS code PATTERN re COMMAND ...)
#       <out>: the command run by cmake/expect.cmake, which passes only if it
#       exits with `code` and its output matches `re` (a PASS_REGULAR_EXPRESSION
#       alone passes whatever the exit status). COMMAND names no bare target.
#   coconet_report_gpu_skips()                  every gpu test's "[SKIP] no GPU" as skipped
#
# Variables: COCONET_SANITIZERS (the supported ones of tsan, asan), COCONET_TSAN_SUPPORTED,
#            COCONET_ASAN_SUPPORTED, COCONET_HAVE_MPI (set in the top-level CMakeLists),
#            COCONET_MPIEXEC_FLAGS (flags put before -np), COCONET_MPIEXEC_IS_OPEN_MPI.

set(COCONET_DEFAULT_TEST_TIMEOUT 300)

function(coconet_target_warnings target)
    target_compile_options(${target} PRIVATE
        $<$<OR:$<CXX_COMPILER_ID:GNU>,$<CXX_COMPILER_ID:Clang>>:-Wall -Wextra>)
endfunction()

# --- Sanitizers ----------------------------------------------------------------
# Each supported variant builds our libraries and some tests a second time, with
# the variant's suffix (coconet -> coconet_tsan): tsan is ThreadSanitizer, asan
# AddressSanitizer + UndefinedBehaviorSanitizer (LeakSanitizer included, on Linux).
# COCONET_SANITIZERS lists the supported ones.
set(COCONET_TSAN_FLAGS -fsanitize=thread)
set(COCONET_ASAN_FLAGS -fsanitize=address,undefined -fno-sanitize-recover=undefined
                       -fno-omit-frame-pointer)
# halt_on_error: the first report fails the test. libHalide (the venv's wheel)
# is not instrumented, which ASan allows (its allocations are still tracked, and
# LeakSanitizer finds none of its own to suppress); it compiles on a stack of
# its own (makecontext), about which ASan prints a warning once per process.
# A rank of one thread never enters Halide's thread pool, whose threads
# synchronize in code ThreadSanitizer does not see (reporting races that are not).
set(COCONET_TSAN_ENV "TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1"
                     "COCONET_RANK_THREADS=1")
set(COCONET_ASAN_ENV
    "ASAN_OPTIONS=halt_on_error=1:detect_leaks=1:strict_init_order=1:check_initialization_order=1"
    "UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1")
set(COCONET_SANITIZERS)
include(CheckCXXSourceCompiles)
foreach (variant tsan asan)
    string(TOUPPER ${variant} V)
    set(COCONET_${V}_SUPPORTED OFF)
    if (COCONET_ENABLE_${V}_TESTS AND CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
        list(JOIN COCONET_${V}_FLAGS " " CMAKE_REQUIRED_FLAGS)
        set(CMAKE_REQUIRED_LINK_OPTIONS ${COCONET_${V}_FLAGS})
        check_cxx_source_compiles("int main() { return 0; }" COCONET_${V}_LINKS)
        unset(CMAKE_REQUIRED_FLAGS)
        unset(CMAKE_REQUIRED_LINK_OPTIONS)
        if (COCONET_${V}_LINKS)
            set(COCONET_${V}_SUPPORTED ON)
            list(APPEND COCONET_SANITIZERS ${variant})
        endif ()
    endif ()
    message(STATUS "CoCoNet: ${V} tests ${COCONET_${V}_SUPPORTED}")
endforeach ()

# Compiles and links `target` with a sanitizer variant (tsan or asan).
function(coconet_enable_sanitizer target variant)
    string(TOUPPER ${variant} V)
    # -g for the reports' stacks; appended after CMAKE_CXX_FLAGS_RELEASE, so -O1
    # overrides -O3.
    target_compile_options(${target} PRIVATE ${COCONET_${V}_FLAGS} -g -O1)
    target_link_options(${target} PUBLIC ${COCONET_${V}_FLAGS})
endfunction()

# For each library name, its variant if there is one (coconet -> coconet_asan).
function(_coconet_variant_libs out variant)
    set(result)
    foreach (lib IN LISTS ARGN)
        if (TARGET ${lib}_${variant})
            list(APPEND result ${lib}_${variant})
        else ()
            list(APPEND result ${lib})
        endif ()
    endforeach ()
    set(${out} ${result} PARENT_SCOPE)
endfunction()

# --- Catch2 tests ---------------------------------------------------------------
# `variant`: empty for a plain test, else a sanitizer of COCONET_SANITIZERS.
function(_coconet_add_catch_test variant)
    cmake_parse_arguments(ARG "" "NAME;TIMEOUT" "SOURCES;LABELS;LIBS;ARGS" ${ARGN})
    if (NOT ARG_NAME OR NOT ARG_SOURCES)
        message(FATAL_ERROR "coconet_add_test: NAME and SOURCES are required")
    endif ()
    if (NOT ARG_TIMEOUT)
        set(ARG_TIMEOUT ${COCONET_DEFAULT_TEST_TIMEOUT})
    endif ()
    set(libs coconet coconet_runtime_mpi ${ARG_LIBS})
    set(labels ${ARG_LABELS})
    if (variant)
        _coconet_variant_libs(libs ${variant} ${libs})
        list(APPEND labels ${variant})
    endif ()
    add_executable(${ARG_NAME} ${ARG_SOURCES})
    target_link_libraries(${ARG_NAME} PRIVATE coconet_catch_main ${libs} Catch2::Catch2 Threads::Threads)
    coconet_target_warnings(${ARG_NAME})
    add_test(NAME ${ARG_NAME} COMMAND ${ARG_NAME} ${ARG_ARGS})
    list(REMOVE_DUPLICATES labels)
    set_tests_properties(${ARG_NAME} PROPERTIES TIMEOUT ${ARG_TIMEOUT} LABELS "${labels}")
    if (variant)
        string(TOUPPER ${variant} V)
        coconet_enable_sanitizer(${ARG_NAME} ${variant})
        set_tests_properties(${ARG_NAME} PROPERTIES ENVIRONMENT "${COCONET_${V}_ENV}")
    endif ()
endfunction()

function(coconet_add_test)
    _coconet_add_catch_test("" ${ARGN})
endfunction()

# A test built with a sanitizer and linked with the variant of our libraries,
# labelled with the variant; skipped (with a message) where the compiler lacks it.
function(_coconet_add_sanitized_test variant)
    if (NOT variant IN_LIST COCONET_SANITIZERS)
        cmake_parse_arguments(ARG "" "NAME" "" ${ARGN})
        message(STATUS "CoCoNet: skipping ${variant} test ${ARG_NAME}")
        return()
    endif ()
    _coconet_add_catch_test(${variant} ${ARGN})
endfunction()

function(coconet_add_tsan_test)
    _coconet_add_sanitized_test(tsan ${ARGN})
endfunction()

function(coconet_add_asan_test)
    _coconet_add_sanitized_test(asan ${ARGN})
endfunction()

# --- MPI tests ------------------------------------------------------------------
set(COCONET_MPIEXEC_FLAGS)
set(COCONET_MPIEXEC_NUMPROC_FLAG ${MPIEXEC_NUMPROC_FLAG})
set(COCONET_MPIEXEC_IS_OPEN_MPI OFF)
if (COCONET_HAVE_MPI AND MPIEXEC_EXECUTABLE)
    execute_process(COMMAND ${MPIEXEC_EXECUTABLE} --version
                    OUTPUT_VARIABLE _coconet_mpiexec_version ERROR_QUIET TIMEOUT 20)
    if (_coconet_mpiexec_version MATCHES "Open MPI|OpenRTE")
        # Containers run as root; CI machines have few cores.
        set(COCONET_MPIEXEC_FLAGS --allow-run-as-root --oversubscribe)
        set(COCONET_MPIEXEC_NUMPROC_FLAG -np)
        set(COCONET_MPIEXEC_IS_OPEN_MPI ON)
    endif ()
endif ()

function(coconet_add_mpi_test)
    cmake_parse_arguments(ARG "WILL_FAIL" "NAME;COMMAND;NP;TIMEOUT;EXPECT"
                          "LABELS;ARGS;ENV;COLLECTIVES" ${ARGN})
    if (NOT ARG_NAME OR NOT ARG_COMMAND OR NOT ARG_NP)
        message(FATAL_ERROR "coconet_add_mpi_test: NAME, COMMAND and NP are required")
    endif ()
    if (NOT COCONET_HAVE_MPI)
        message(STATUS "CoCoNet: MPI not found, skipping MPI test ${ARG_NAME}")
        return()
    endif ()
    if (NOT ARG_TIMEOUT)
        set(ARG_TIMEOUT ${COCONET_DEFAULT_TEST_TIMEOUT})
    endif ()
    set(labels ${ARG_LABELS} mpi)
    list(REMOVE_DUPLICATES labels)
    if (NOT ARG_COLLECTIVES)
        set(ARG_COLLECTIVES default)
    endif ()
    foreach (path IN LISTS ARG_COLLECTIVES)
        set(name ${ARG_NAME})
        set(env OMPI_MCA_btl_vader_single_copy_mechanism=none ${ARG_ENV})
        if (path STREQUAL "deterministic")
            set(name ${ARG_NAME}_det)
        endif ()
        if (NOT path STREQUAL "default")
            list(APPEND env COCONET_MPI_COLLECTIVES=${path})
        endif ()
        set(command ${MPIEXEC_EXECUTABLE} ${COCONET_MPIEXEC_FLAGS} ${COCONET_MPIEXEC_NUMPROC_FLAG}
                    ${ARG_NP} ${MPIEXEC_PREFLAGS} $<TARGET_FILE:${ARG_COMMAND}>
                    ${MPIEXEC_POSTFLAGS} ${ARG_ARGS})
        if (ARG_EXPECT)
            coconet_expect_command(command STATUS 0 PATTERN "${ARG_EXPECT}" COMMAND ${command})
        endif ()
        add_test(NAME ${name} COMMAND ${command})
        set_tests_properties(${name} PROPERTIES
            TIMEOUT ${ARG_TIMEOUT}
            LABELS "${labels}"
            PROCESSORS ${ARG_NP}
            ENVIRONMENT "${env}")
        if (ARG_WILL_FAIL)
            set_tests_properties(${name} PROPERTIES WILL_FAIL ON)
        endif ()
    endforeach ()
endfunction()

# --- Tests that match a pattern ---------------------------------------------------------
set(_COCONET_EXPECT_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/expect.cmake)
function(coconet_expect_command out)
    cmake_parse_arguments(ARG "" "STATUS;PATTERN" "COMMAND" ${ARGN})
    if (ARG_STATUS STREQUAL "" OR NOT ARG_PATTERN OR NOT ARG_COMMAND)
        message(FATAL_ERROR "coconet_expect_command: STATUS, PATTERN and COMMAND are required")
    endif ()
    set(${out} ${CMAKE_COMMAND} -DSTATUS=${ARG_STATUS} "-DPATTERN=${ARG_PATTERN}"
               -P ${_COCONET_EXPECT_SCRIPT} -- ${ARG_COMMAND} PARENT_SCOPE)
endfunction()

# --- GPU tests ------------------------------------------------------------------------
# A gpu test prints "[SKIP] no GPU" (or "[SKIP] no CUDA toolkit at build
# time") and exits 0 where it cannot run: CTest reports it skipped, not passed.
# Only these lines, which a test prints instead of any result: a [SKIP] of one
# case beside others (a library that needs 2 ranks, at 1) must not hide a
# failure, and a SKIP_REGULAR_EXPRESSION match wins over the exit status.
# Called once all tests exist, so that no gpu test is missed.
function(coconet_report_gpu_skips)
    set(dirs ${PROJECT_SOURCE_DIR})
    while (dirs)
        list(POP_FRONT dirs dir)
        get_property(tests DIRECTORY ${dir} PROPERTY TESTS)
        foreach (t IN LISTS tests)
            get_test_property(${t} LABELS DIRECTORY ${dir} labels)
            if ("gpu" IN_LIST labels)
                set_tests_properties(${t} DIRECTORY ${dir} PROPERTIES
                                     SKIP_REGULAR_EXPRESSION "\\[SKIP\\] no (GPU|CUDA toolkit)")
            endif ()
        endforeach ()
        get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
        list(APPEND dirs ${subdirs})
    endwhile ()
endfunction()
