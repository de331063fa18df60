# `cmake --install build --prefix P`: the CMake package of AMPRT.
#
#   P/include/amp/*.h                 the public API
#   P/lib/libamprt.so*                the library (runtime/CMakeLists.txt)
#   P/lib/cmake/AMPRT/                AMPRTConfig.cmake, exporting amprt::amprt
#   P/bin/amprun, amp-convert, amp-serve
#
# A user's CMakeLists.txt then needs only:
#   find_package(AMPRT 0.2 REQUIRED)
#   target_link_libraries(app PRIVATE amprt::amprt)
# (tests/tools/find_package_test.sh builds samples/load_and_run that way.)
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS amprt EXPORT AMPRTTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/runtime/include/amp
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.h")
foreach(tool amprun amp-convert amp-serve)
  if(TARGET ${tool})
    install(TARGETS ${tool} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  endif()
endforeach()

set(AMP_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/AMPRT)
install(EXPORT AMPRTTargets NAMESPACE amprt:: DESTINATION ${AMP_CMAKE_DIR})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/AMPRTConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/AMPRTConfig.cmake INSTALL_DESTINATION ${AMP_CMAKE_DIR})
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/AMPRTConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/AMPRTConfig.cmake
  ${CMAKE_CURRENT_BINARY_DIR}/AMPRTConfigVersion.cmake DESTINATION ${AMP_CMAKE_DIR})
