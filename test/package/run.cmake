# The package test: installs the CoCoNet build into a fresh prefix, then
# configures, builds and runs test/package as a separate project against it.
#   cmake -DBUILD_DIR=... -DWORK_DIR=... -DHalide_DIR=... [-DMAKE_PROGRAM=...]
#         [-DLAUNCHER=...] -P run.cmake
foreach (var BUILD_DIR WORK_DIR Halide_DIR)
    if (NOT ${var})
        message(FATAL_ERROR "run.cmake: ${var} is required")
    endif ()
endforeach ()

function(step what)
    message(STATUS "package test: ${what}")
    execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc)
    if (NOT rc EQUAL 0)
        message(FATAL_ERROR "package test: ${what} failed (${rc})")
    endif ()
endfunction()

file(REMOVE_RECURSE ${WORK_DIR})
step("installing ${BUILD_DIR} into ${WORK_DIR}/prefix"
     ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK_DIR}/prefix)
set(configure ${CMAKE_COMMAND} -S ${CMAKE_CURRENT_LIST_DIR} -B ${WORK_DIR}/build -G Ninja
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix -DHalide_DIR=${Halide_DIR})
if (MAKE_PROGRAM)
    list(APPEND configure -DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM})
endif ()
if (LAUNCHER)
    list(APPEND configure -DCMAKE_CXX_COMPILER_LAUNCHER=${LAUNCHER})
endif ()
step("configuring the consumer project" ${configure})
step("building it" ${CMAKE_COMMAND} --build ${WORK_DIR}/build --parallel 2)
step("running it" ${WORK_DIR}/build/consumer)
