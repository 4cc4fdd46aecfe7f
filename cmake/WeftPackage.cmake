# The library users get and the CMake package that finds it.
#
#   weft::weft    libweft (shared or static, as BUILD_SHARED_LIBS says) with
#                 include/weft: c_api.h and the header-only weft.hpp. A static
#                 libweft is linked whole (its op and kernel registrations are
#                 static initializers nothing references).
#   weft::plugin  header-only: plugin.h and plugin.hpp, for op libraries.
#                 Links nothing from weft; compiles the library with hidden
#                 visibility and links it with a version script, so it
#                 exports weft_plugin_init alone.
#
# `cmake --install` puts headers, the library, the weft CLI and
# lib/cmake/weft/weftConfig.cmake in the prefix; a host project then uses
#   find_package(weft CONFIG REQUIRED)
#   target_link_libraries(app PRIVATE weft::weft)

include(CMakePackageConfigHelpers)

# Made from the objects `weft` compiled; nothing compiles twice.
add_library(weft_library $<TARGET_OBJECTS:weft>)
set_target_properties(weft_library PROPERTIES
  OUTPUT_NAME weft
  EXPORT_NAME library
  LINKER_LANGUAGE CXX
  VERSION ${PROJECT_VERSION}
  # 0.x releases may change the C API between minor versions.
  SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR})
target_include_directories(weft_library INTERFACE
  $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
if(BUILD_SHARED_LIBS)
  # Whatever `weft` links, here or in a folder's CMakeLists.txt, reaches the
  # library through the archive's link interface (the archive itself adds no
  # object: they are all in already).
  target_link_libraries(weft_library PRIVATE weft)
  set(_weft_map "${PROJECT_SOURCE_DIR}/cmake/weft.map")
  target_link_options(weft_library PRIVATE
    "LINKER:--version-script=${_weft_map}"
    "LINKER:--no-undefined"
    "LINKER:--exclude-libs,ALL")
  set_property(TARGET weft_library APPEND PROPERTY LINK_DEPENDS "${_weft_map}")
else()
  # A static library's dependencies are its users' to link: in the build
  # tree whatever `weft` links; installed, the list below, which
  # weftConfig.cmake finds. A dependency a folder adds to `weft` must be
  # added here too (the installed-package tests link a host against it).
  target_link_libraries(weft_library INTERFACE $<BUILD_INTERFACE:weft>)
  set(_weft_static_deps ${WEFT_LINK_DEPENDENCIES} protobuf::libprotobuf)
  if(WEFT_HAVE_CUDA)
    list(APPEND _weft_static_deps CUDA::cudart_static ${CMAKE_DL_LIBS})
  endif()
  foreach(_dep IN LISTS _weft_static_deps)
    target_link_libraries(weft_library INTERFACE "$<INSTALL_INTERFACE:${_dep}>")
  endforeach()
endif()

add_library(weft_api INTERFACE)
add_library(weft::weft ALIAS weft_api)
set_target_properties(weft_api PROPERTIES EXPORT_NAME weft)
if(BUILD_SHARED_LIBS)
  target_link_libraries(weft_api INTERFACE weft_library)
else()
  # install(EXPORT) does not rename targets inside $<LINK_LIBRARY:...>, so
  # the installed form names the exported target itself.
  target_link_libraries(weft_api INTERFACE
    "$<BUILD_INTERFACE:$<LINK_LIBRARY:WHOLE_ARCHIVE,weft_library>>"
    "$<INSTALL_INTERFACE:$<LINK_LIBRARY:WHOLE_ARCHIVE,weft::library>>")
endif()

add_library(weft_plugin INTERFACE)
add_library(weft::plugin ALIAS weft_plugin)
set_target_properties(weft_plugin PROPERTIES EXPORT_NAME plugin)
target_include_directories(weft_plugin INTERFACE
  $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
target_compile_features(weft_plugin INTERFACE cxx_std_17)
target_compile_options(weft_plugin INTERFACE
  $<$<COMPILE_LANGUAGE:C,CXX>:-fvisibility=hidden>
  $<$<COMPILE_LANGUAGE:CXX>:-fvisibility-inlines-hidden>
  $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-fvisibility=hidden>)
# Hidden visibility leaves the standard library's template instantiations
# exported (namespace std is marked default-visible); the version script
# makes weft_plugin_init the library's only export.
set(_weft_plugin_map "${PROJECT_SOURCE_DIR}/cmake/weft_plugin.map")
set(_weft_cmake_dir "${CMAKE_INSTALL_LIBDIR}/cmake/weft")
target_link_options(weft_plugin INTERFACE
  "$<BUILD_INTERFACE:LINKER:--version-script=${_weft_plugin_map}>"
  "$<INSTALL_INTERFACE:LINKER:--version-script=$<INSTALL_PREFIX>/${_weft_cmake_dir}/weft_plugin.map>")

install(TARGETS weft_library weft_api weft_plugin
  EXPORT weftTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY "${PROJECT_SOURCE_DIR}/include/weft"
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
if(TARGET weft_cli)
  install(TARGETS weft_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
install(EXPORT weftTargets
  NAMESPACE weft::
  FILE weftTargets.cmake
  DESTINATION "${_weft_cmake_dir}")

set(WEFT_STATIC_PACKAGE ON)
if(BUILD_SHARED_LIBS)
  set(WEFT_STATIC_PACKAGE OFF)
endif()
set(WEFT_PACKAGE_CUDA ${WEFT_HAVE_CUDA})
configure_package_config_file(
  "${PROJECT_SOURCE_DIR}/cmake/weftConfig.cmake.in"
  "${PROJECT_BINARY_DIR}/weftConfig.cmake"
  INSTALL_DESTINATION "${_weft_cmake_dir}")
write_basic_package_version_file(
  "${PROJECT_BINARY_DIR}/weftConfigVersion.cmake"
  COMPATIBILITY SameMinorVersion)
install(FILES
  "${PROJECT_BINARY_DIR}/weftConfig.cmake"
  "${PROJECT_BINARY_DIR}/weftConfigVersion.cmake"
  "${_weft_plugin_map}"
  DESTINATION "${_weft_cmake_dir}")
