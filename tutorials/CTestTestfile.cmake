# CMake generated Testfile for 
# Source directory: /work/main/tutorials
# Build directory: /work/main/tutorials
# 
# This file includes the relevant testing commands required for 
# testing this directory and lists subdirectories to be tested as well.
add_test("lesson_01_layouts" "/work/main/tutorials/lesson_01_layouts")
set_tests_properties("lesson_01_layouts" PROPERTIES  LABELS "tutorial" TIMEOUT "300" _BACKTRACE_TRIPLES "/work/main/tutorials/CMakeLists.txt;21;add_test;/work/main/tutorials/CMakeLists.txt;0;")
add_test("lesson_02_collectives" "/work/main/tutorials/lesson_02_collectives")
set_tests_properties("lesson_02_collectives" PROPERTIES  LABELS "tutorial" TIMEOUT "300" _BACKTRACE_TRIPLES "/work/main/tutorials/CMakeLists.txt;21;add_test;/work/main/tutorials/CMakeLists.txt;0;")
add_test("lesson_03_split_reorder" "/work/main/tutorials/lesson_03_split_reorder")
set_tests_properties("lesson_03_split_reorder" PROPERTIES  LABELS "tutorial" TIMEOUT "300" _BACKTRACE_TRIPLES "/work/main/tutorials/CMakeLists.txt;21;add_test;/work/main/tutorials/CMakeLists.txt;0;")
add_test("lesson_04_fuse_adam" "/work/main/tutorials/lesson_04_fuse_adam")
set_tests_properties("lesson_04_fuse_adam" PROPERTIES  LABELS "tutorial" TIMEOUT "300" _BACKTRACE_TRIPLES "/work/main/tutorials/CMakeLists.txt;21;add_test;/work/main/tutorials/CMakeLists.txt;0;")
add_test("lesson_05_overlap_megatron" "/work/main/tutorials/lesson_05_overlap_megatron")
set_tests_properties("lesson_05_overlap_megatron" PROPERTIES  LABELS "tutorial" TIMEOUT "300" _BACKTRACE_TRIPLES "/work/main/tutorials/CMakeLists.txt;21;add_test;/work/main/tutorials/CMakeLists.txt;0;")
add_test("lesson_06_pipeline" "/work/main/tutorials/lesson_06_pipeline")
set_tests_properties("lesson_06_pipeline" PROPERTIES  LABELS "tutorial" TIMEOUT "300" _BACKTRACE_TRIPLES "/work/main/tutorials/CMakeLists.txt;21;add_test;/work/main/tutorials/CMakeLists.txt;0;")
add_test("lesson_07_aot_run" "/work/main/tutorials/lesson_07_aot_run")
set_tests_properties("lesson_07_aot_run" PROPERTIES  LABELS "tutorial" TIMEOUT "300" _BACKTRACE_TRIPLES "/work/main/tutorials/aot_lessons.cmake;48;add_test;/work/main/tutorials/aot_lessons.cmake;0;;/work/main/tutorials/CMakeLists.txt;27;include;/work/main/tutorials/CMakeLists.txt;0;")
add_test("lesson_08_mpi" "/usr/bin/mpiexec" "--allow-run-as-root" "--oversubscribe" "-np" "3" "/work/main/tutorials/lesson_08_mpi")
set_tests_properties("lesson_08_mpi" PROPERTIES  ENVIRONMENT "OMPI_MCA_btl_vader_single_copy_mechanism=none" LABELS "tutorial;mpi" PROCESSORS "3" TIMEOUT "120" _BACKTRACE_TRIPLES "/work/main/cmake/CoCoNetHelpers.cmake;178;add_test;/work/main/tutorials/aot_lessons.cmake;50;coconet_add_mpi_test;/work/main/tutorials/aot_lessons.cmake;0;;/work/main/tutorials/CMakeLists.txt;27;include;/work/main/tutorials/CMakeLists.txt;0;")
add_test("lesson_09_gpu" "/work/main/tutorials/lesson_09_gpu")
set_tests_properties("lesson_09_gpu" PROPERTIES  LABELS "tutorial;gpu" TIMEOUT "300" _BACKTRACE_TRIPLES "/work/main/tutorials/aot_lessons.cmake;52;add_test;/work/main/tutorials/aot_lessons.cmake;0;;/work/main/tutorials/CMakeLists.txt;27;include;/work/main/tutorials/CMakeLists.txt;0;")
