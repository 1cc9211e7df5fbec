# CoCoNet build helpers.
#
#   coconet_target_warnings(<target>)          -Wall -Wextra on one of our targets
#   coconet_enable_tsan(<target>)              compile + link it with -fsanitize=thread -g -O1
#   coconet_add_test(NAME n SOURCES ... LABELS ... [TIMEOUT s] [LIBS ...] [ARGS ...])
#   coconet_add_tsan_test(NAME n SOURCES ... LABELS ... [TIMEOUT s] [LIBS ...] [ARGS ...])
#   coconet_add_mpi_test(NAME n COMMAND <target> NP k LABELS ... [TIMEOUT s] [ARGS ...]
#                        [PASS_REGULAR_EXPRESSION re] [WILL_FAIL])
#
# Variables: COCONET_TSAN_SUPPORTED, COCONET_HAVE_MPI (set in the top-level CMakeLists),
#            COCONET_MPIEXEC_FLAGS (flags put before -np), COCONET_MPIEXEC_IS_OPEN_MPI.

set(COCONET_DEFAULT_TEST_TIMEOUT 300)

function(coconet_target_warnings target)
    target_compile_options(${target} PRIVATE
        $<$<OR:$<CXX_COMPILER_ID:GNU>,$<CXX_COMPILER_ID:Clang>>:-Wall -Wextra>)
endfunction()

# --- ThreadSanitizer ----------------------------------------------------------
set(COCONET_TSAN_FLAGS -fsanitize=thread -g -O1)
set(COCONET_TSAN_SUPPORTED OFF)
if (COCONET_ENABLE_TSAN_TESTS AND CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    include(CheckCXXSourceCompiles)
    set(CMAKE_REQUIRED_FLAGS "-fsanitize=thread")
    set(CMAKE_REQUIRED_LINK_OPTIONS "-fsanitize=thread")
    check_cxx_source_compiles("int main() { return 0; }" COCONET_TSAN_LINKS)
    unset(CMAKE_REQUIRED_FLAGS)
    unset(CMAKE_REQUIRED_LINK_OPTIONS)
    if (COCONET_TSAN_LINKS)
        set(COCONET_TSAN_SUPPORTED ON)
    endif ()
endif ()
message(STATUS "CoCoNet: ThreadSanitizer tests ${COCONET_TSAN_SUPPORTED}")

function(coconet_enable_tsan target)
    # Appended after CMAKE_CXX_FLAGS_RELEASE, so -O1 overrides -O3.
    target_compile_options(${target} PRIVATE ${COCONET_TSAN_FLAGS})
    target_link_options(${target} PUBLIC -fsanitize=thread)
endfunction()

# For a library name, the TSAN variant if there is one (coconet -> coconet_tsan).
function(_coconet_tsan_libs out)
    set(result)
    foreach (lib IN LISTS ARGN)
        if (TARGET ${lib}_tsan)
            list(APPEND result ${lib}_tsan)
        else ()
            list(APPEND result ${lib})
        endif ()
    endforeach ()
    set(${out} ${result} PARENT_SCOPE)
endfunction()

# --- Catch2 tests ---------------------------------------------------------------
function(_coconet_add_catch_test tsan)
    cmake_parse_arguments(ARG "" "NAME;TIMEOUT" "SOURCES;LABELS;LIBS;ARGS" ${ARGN})
    if (NOT ARG_NAME OR NOT ARG_SOURCES)
        message(FATAL_ERROR "coconet_add_test: NAME and SOURCES are required")
    endif ()
    if (NOT ARG_TIMEOUT)
        set(ARG_TIMEOUT ${COCONET_DEFAULT_TEST_TIMEOUT})
    endif ()
    set(libs coconet ${ARG_LIBS})
    set(main coconet_catch_main)
    set(labels ${ARG_LABELS})
    if (tsan)
        _coconet_tsan_libs(libs ${libs})
        set(main coconet_catch_main_tsan)
        list(APPEND labels tsan)
    endif ()
    add_executable(${ARG_NAME} ${ARG_SOURCES})
    target_link_libraries(${ARG_NAME} PRIVATE ${main} ${libs} Catch2::Catch2 Threads::Threads)
    coconet_target_warnings(${ARG_NAME})
    if (tsan)
        coconet_enable_tsan(${ARG_NAME})
    endif ()
    add_test(NAME ${ARG_NAME} COMMAND ${ARG_NAME} ${ARG_ARGS})
    list(REMOVE_DUPLICATES labels)
    set_tests_properties(${ARG_NAME} PROPERTIES TIMEOUT ${ARG_TIMEOUT} LABELS "${labels}")
    if (tsan)
        set_tests_properties(${ARG_NAME} PROPERTIES
            ENVIRONMENT "TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1")
    endif ()
endfunction()

function(coconet_add_test)
    _coconet_add_catch_test(OFF ${ARGN})
endfunction()

function(coconet_add_tsan_test)
    if (NOT COCONET_TSAN_SUPPORTED)
        cmake_parse_arguments(ARG "" "NAME" "" ${ARGN})
        message(STATUS "CoCoNet: skipping TSAN test ${ARG_NAME}")
        return()
    endif ()
    _coconet_add_catch_test(ON ${ARGN})
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
    cmake_parse_arguments(ARG "WILL_FAIL" "NAME;COMMAND;NP;TIMEOUT;PASS_REGULAR_EXPRESSION"
                          "LABELS;ARGS" ${ARGN})
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
    add_test(NAME ${ARG_NAME}
             COMMAND ${MPIEXEC_EXECUTABLE} ${COCONET_MPIEXEC_FLAGS} ${COCONET_MPIEXEC_NUMPROC_FLAG} ${ARG_NP}
                     ${MPIEXEC_PREFLAGS} $<TARGET_FILE:${ARG_COMMAND}> ${MPIEXEC_POSTFLAGS} ${ARG_ARGS})
    set(labels ${ARG_LABELS} mpi)
    list(REMOVE_DUPLICATES labels)
    set_tests_properties(${ARG_NAME} PROPERTIES
        TIMEOUT ${ARG_TIMEOUT}
        LABELS "${labels}"
        PROCESSORS ${ARG_NP}
        ENVIRONMENT "OMPI_MCA_btl_vader_single_copy_mechanism=none")
    if (ARG_PASS_REGULAR_EXPRESSION)
        set_tests_properties(${ARG_NAME} PROPERTIES
            PASS_REGULAR_EXPRESSION "${ARG_PASS_REGULAR_EXPRESSION}")
    endif ()
    if (ARG_WILL_FAIL)
        set_tests_properties(${ARG_NAME} PROPERTIES WILL_FAIL ON)
    endif ()
endfunction()
