# `cmake --install`: headers, libIndexPool.so (compiler + API, when built),
# libIndexPoolRuntime.so (MLIR-free), the tools, the plugin and the CMake
# package (find_package(IndexPool CONFIG), cmake/IndexPoolConfig.cmake.in).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# The runtime as one shared library: every object of the static runtime,
# reference and target libraries, so that a consumer links one file without
# MLIR.
add_library(IndexPoolRuntimeShared SHARED
  $<TARGET_OBJECTS:IndexPoolRuntime>
  $<TARGET_OBJECTS:IndexPoolReference>
  $<TARGET_OBJECTS:IndexPoolTarget>)
target_link_libraries(IndexPoolRuntimeShared PRIVATE ${CMAKE_DL_LIBS})
target_include_directories(IndexPoolRuntimeShared PUBLIC
  $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
target_compile_features(IndexPoolRuntimeShared PUBLIC cxx_std_17)
set_target_properties(IndexPoolRuntimeShared PROPERTIES
  OUTPUT_NAME IndexPoolRuntime EXPORT_NAME Runtime
  LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/lib
  VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR})

# Sanitized shared libraries leave the sanitizer runtime's symbols to the
# executable that loads them; LLVM's flags (-z defs) would refuse that.
if(INDEXPOOL_ENABLE_SANITIZERS OR INDEXPOOL_FUZZ OR INDEXPOOL_ENABLE_TSAN)
  foreach(library IndexPoolRuntimeShared IndexPool)
    if(TARGET ${library})
      target_link_options(${library} PRIVATE -Wl,-z,undefs)
    endif()
  endforeach()
endif()

set(INDEXPOOL_INSTALL_TARGETS IndexPoolRuntimeShared)
if(TARGET IndexPool)
  list(APPEND INDEXPOOL_INSTALL_TARGETS IndexPool)
  # Installed, libIndexPool.so finds libMLIR.so where Debian put it.
  set_target_properties(IndexPool PROPERTIES
    INSTALL_RPATH "${LLVM_LIBRARY_DIR}")
endif()
install(TARGETS ${INDEXPOOL_INSTALL_TARGETS} EXPORT IndexPoolTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

foreach(tool indexpool-opt indexpool-run indexpool-compile indexpool-launch)
  if(TARGET ${tool})
    install(TARGETS ${tool} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
    # libIndexPool.so (the tools are thin over it) next to them, libMLIR.so
    # where Debian put it.
    set_target_properties(${tool} PROPERTIES
      INSTALL_RPATH "\$ORIGIN/../${CMAKE_INSTALL_LIBDIR};${LLVM_LIBRARY_DIR}")
  endif()
endforeach()
# The plugin installs itself (add_llvm_library) into lib/.

install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/indexpool
                  ${PROJECT_SOURCE_DIR}/include/indexpool-c
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.h"
  PATTERN "*.def")
# The dialect's generated declarations, for code built on the dialect.
install(DIRECTORY ${PROJECT_BINARY_DIR}/include/indexpool
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.inc"
  PATTERN CMakeFiles EXCLUDE)

set(INDEXPOOL_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/IndexPool)
install(EXPORT IndexPoolTargets NAMESPACE IndexPool::
  DESTINATION ${INDEXPOOL_CMAKE_DIR})
configure_package_config_file(
  ${PROJECT_SOURCE_DIR}/cmake/IndexPoolConfig.cmake.in
  ${PROJECT_BINARY_DIR}/IndexPoolConfig.cmake
  INSTALL_DESTINATION ${INDEXPOOL_CMAKE_DIR}
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR CMAKE_INSTALL_BINDIR CMAKE_INSTALL_LIBDIR)
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/IndexPoolConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/IndexPoolConfig.cmake
              ${PROJECT_BINARY_DIR}/IndexPoolConfigVersion.cmake
  DESTINATION ${INDEXPOOL_CMAKE_DIR})
