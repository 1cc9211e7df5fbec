# Lessons 7 to 9: ahead-of-time libraries (included by tutorials/CMakeLists.txt).
#
#   lesson_07_aot_generate   the generator executable (lesson_07_aot_generate.cpp)
#   lesson_07_sgd            its library for the host, any n (lesson_07_sgd.h)
#   lesson_07_aot_run        lesson 7, part 2: runs lesson_07_sgd on thread ranks
#   lesson_08_mpi            lesson 8: the same library, one rank per MPI process
#   lesson_07_sgd_cuda       the library for host-cuda-cuda_capability_80 (CUDA only)
#   lesson_09_gpu            lesson 9: the CUDA-target library where there is a GPU
#
# The generator is compiled once, as an object library: its objects make the
# generator executable, and they are also linked into the lessons so that those
# can build the library's Program in process (through the generator registry)
# and check the library against its reference.

add_library(lesson_07_generator OBJECT lesson_07_aot_generate.cpp)
target_link_libraries(lesson_07_generator PUBLIC coconet)
coconet_target_warnings(lesson_07_generator)

add_coconet_generator(lesson_07_aot_generate SOURCES $<TARGET_OBJECTS:lesson_07_generator>)

set(LESSON_07_PARAMS lr=0.05 momentum=0.9)
add_coconet_library(lesson_07_sgd FROM lesson_07_aot_generate GENERATOR sgd_momentum
                    PARAMS ${LESSON_07_PARAMS})

add_executable(lesson_07_aot_run lesson_07_aot_run.cpp)
target_link_libraries(lesson_07_aot_run PRIVATE lesson_07_sgd lesson_07_generator coconet)
coconet_target_warnings(lesson_07_aot_run)

# Built everywhere (it prints [SKIP] no MPI without an MPI backend); run by
# CTest under mpirun where MPI is found (the tests at the end).
add_executable(lesson_08_mpi lesson_08_mpi.cpp)
target_link_libraries(lesson_08_mpi PRIVATE lesson_07_sgd lesson_07_generator coconet coconet_runtime_mpi)
coconet_target_warnings(lesson_08_mpi)

add_executable(lesson_09_gpu lesson_09_gpu.cpp)
target_link_libraries(lesson_09_gpu PRIVATE lesson_07_generator coconet)
coconet_target_warnings(lesson_09_gpu)
if (COCONET_HAVE_CUDA)
    add_coconet_library(lesson_07_sgd_cuda FROM lesson_07_aot_generate GENERATOR sgd_momentum
                        TARGETS host FEATURES cuda cuda_capability_80 PARAMS ${LESSON_07_PARAMS})
    target_link_libraries(lesson_09_gpu PRIVATE lesson_07_sgd_cuda)
    target_compile_definitions(lesson_09_gpu PRIVATE LESSON_09_HAVE_CUDA=1)
else ()
    target_compile_definitions(lesson_09_gpu PRIVATE LESSON_09_HAVE_CUDA=0)
endif ()

if (COCONET_WITH_TESTS)
    add_test(NAME lesson_07_aot_run COMMAND lesson_07_aot_run)
    set_tests_properties(lesson_07_aot_run PROPERTIES LABELS tutorial TIMEOUT 300)
    coconet_add_mpi_test(NAME lesson_08_mpi COMMAND lesson_08_mpi NP 3 LABELS tutorial
                         TIMEOUT 120)
    add_test(NAME lesson_09_gpu COMMAND lesson_09_gpu)
    set_tests_properties(lesson_09_gpu PROPERTIES LABELS "tutorial;gpu" TIMEOUT 300)
endif ()
