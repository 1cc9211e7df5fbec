# CoCoNet for Halide: find_package(CoCoNet) gives
#   CoCoNet::coconet                 the compiler (DSL, lowering, JIT) on Halide
#   CoCoNet::coconet_runtime         the runtime AOT libraries link (threads, MPI)
#   CoCoNet::coconet_generator_main  the generator driver (main) for generator executables
#   CoCoNet::coconet_runtime_nccl    the NCCL backend (coconet_nccl.h), when it was built:
#                                    COCONET_HAVE_NCCL is then ON
#   add_coconet_generator(), add_coconet_library()   (see CoCoNetLibrary.cmake)

####### Expanded from @PACKAGE_INIT@ by configure_package_config_file() #######
####### Any changes to this file will be overwritten by the next CMake run ####
####### The input file was CoCoNetConfig.cmake.in                            ########

get_filename_component(PACKAGE_PREFIX_DIR "${CMAKE_CURRENT_LIST_DIR}/../../../" ABSOLUTE)

macro(set_and_check _var _file)
  set(${_var} "${_file}")
  if(NOT EXISTS "${_file}")
    message(FATAL_ERROR "File or directory ${_file} referenced by variable ${_var} does not exist !")
  endif()
endmacro()

macro(check_required_components _NAME)
  foreach(comp ${${_NAME}_FIND_COMPONENTS})
    if(NOT ${_NAME}_${comp}_FOUND)
      if(${_NAME}_FIND_REQUIRED_${comp})
        set(${_NAME}_FOUND FALSE)
      endif()
    endif()
  endforeach()
endmacro()

####################################################################################

include(CMakeFindDependencyMacro)
find_dependency(Halide 21)
find_dependency(Threads)
set(COCONET_HAVE_MPI ON)
if (COCONET_HAVE_MPI)
    find_dependency(MPI COMPONENTS CXX)
endif ()

include(${CMAKE_CURRENT_LIST_DIR}/CoCoNetTargets.cmake)
if (TARGET CoCoNet::coconet_runtime_nccl)
    set(COCONET_HAVE_NCCL ON)
else ()
    set(COCONET_HAVE_NCCL OFF)
endif ()
include(${CMAKE_CURRENT_LIST_DIR}/CoCoNetLibrary.cmake)
check_required_components(CoCoNet)
