#----------------------------------------------------------------
# Generated CMake target import file for configuration "Release".
#----------------------------------------------------------------

# Commands may need to know the format version.
set(CMAKE_IMPORT_FILE_VERSION 1)

# Import target "CoCoNet::coconet" for configuration "Release"
set_property(TARGET CoCoNet::coconet APPEND PROPERTY IMPORTED_CONFIGURATIONS RELEASE)
set_target_properties(CoCoNet::coconet PROPERTIES
  IMPORTED_LINK_INTERFACE_LANGUAGES_RELEASE "CXX"
  IMPORTED_LOCATION_RELEASE "${_IMPORT_PREFIX}/lib/libcoconet.a"
  )

list(APPEND _cmake_import_check_targets CoCoNet::coconet )
list(APPEND _cmake_import_check_files_for_CoCoNet::coconet "${_IMPORT_PREFIX}/lib/libcoconet.a" )

# Import target "CoCoNet::coconet_runtime" for configuration "Release"
set_property(TARGET CoCoNet::coconet_runtime APPEND PROPERTY IMPORTED_CONFIGURATIONS RELEASE)
set_target_properties(CoCoNet::coconet_runtime PROPERTIES
  IMPORTED_LINK_INTERFACE_LANGUAGES_RELEASE "CXX"
  IMPORTED_LOCATION_RELEASE "${_IMPORT_PREFIX}/lib/libcoconet_runtime.a"
  )

list(APPEND _cmake_import_check_targets CoCoNet::coconet_runtime )
list(APPEND _cmake_import_check_files_for_CoCoNet::coconet_runtime "${_IMPORT_PREFIX}/lib/libcoconet_runtime.a" )

# Import target "CoCoNet::coconet_generator_main" for configuration "Release"
set_property(TARGET CoCoNet::coconet_generator_main APPEND PROPERTY IMPORTED_CONFIGURATIONS RELEASE)
set_target_properties(CoCoNet::coconet_generator_main PROPERTIES
  IMPORTED_LINK_INTERFACE_LANGUAGES_RELEASE "CXX"
  IMPORTED_LOCATION_RELEASE "${_IMPORT_PREFIX}/lib/libcoconet_generator_main.a"
  )

list(APPEND _cmake_import_check_targets CoCoNet::coconet_generator_main )
list(APPEND _cmake_import_check_files_for_CoCoNet::coconet_generator_main "${_IMPORT_PREFIX}/lib/libcoconet_generator_main.a" )

# Import target "CoCoNet::coconet_runtime_nccl" for configuration "Release"
set_property(TARGET CoCoNet::coconet_runtime_nccl APPEND PROPERTY IMPORTED_CONFIGURATIONS RELEASE)
set_target_properties(CoCoNet::coconet_runtime_nccl PROPERTIES
  IMPORTED_LINK_INTERFACE_LANGUAGES_RELEASE "CXX"
  IMPORTED_LOCATION_RELEASE "${_IMPORT_PREFIX}/lib/libcoconet_runtime_nccl.a"
  )

list(APPEND _cmake_import_check_targets CoCoNet::coconet_runtime_nccl )
list(APPEND _cmake_import_check_files_for_CoCoNet::coconet_runtime_nccl "${_IMPORT_PREFIX}/lib/libcoconet_runtime_nccl.a" )

# Commands beyond this point should not need to know the version.
set(CMAKE_IMPORT_FILE_VERSION)
