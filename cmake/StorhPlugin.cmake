# storh_add_plugin(<name> SOURCES <files>... [LINK <targets>...] [ALLOW_UNDEFINED]
#                  [OUTPUT_DIRECTORY <dir>])
#
# Builds the engine plugin module storh_<name>.so: a MODULE library with hidden
# visibility, a linker version script that exports only storh_* symbols, and
# --no-undefined so a missing symbol fails the link instead of the dlopen.
# ALLOW_UNDEFINED exists for the loader's own test fixtures.
#
# With a single-configuration generator and no CMAKE_BUILD_TYPE, CMake compiles
# without optimisation; a benchmark of that build measures the compiler's -O0. So
# unless CMAKE_CXX_FLAGS already picks an -O level, the plugin gets -O2 -DNDEBUG and
# records its build type as "default-optimized". Every plugin records its build type
# and flags in its manifest (STORH_PLUGIN_BUILD_TYPE, STORH_PLUGIN_BUILD_FLAGS: the
# global and build-type flags, not options set on the target) for the result file.
#
# Works in-tree and from an installed SDK (find_package(storh)).
include_guard(GLOBAL)

set(STORH_PLUGIN_VERSION_SCRIPT "${CMAKE_CURRENT_LIST_DIR}/storh_plugin.map"
    CACHE INTERNAL "Linker version script for storh plugins")

# The C string literal body of `text`: backslashes and double quotes escaped.
function(storh_plugin_c_string out text)
  string(REPLACE "\\" "\\\\" text "${text}")
  string(REPLACE "\"" "\\\"" text "${text}")
  string(REGEX REPLACE "[ \t]+" " " text "${text}")
  string(STRIP "${text}" text)
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

# Sets STORH_PLUGIN_BUILD_TYPE and STORH_PLUGIN_BUILD_FLAGS on `target`, and the
# default optimisation when no build type is given (see above).
function(storh_plugin_build_provenance target)
  get_property(multi_config GLOBAL PROPERTY GENERATOR_IS_MULTI_CONFIG)
  if(multi_config)
    set(type "$<CONFIG>")
    set(flags "${CMAKE_CXX_FLAGS}")
    foreach(config IN LISTS CMAKE_CONFIGURATION_TYPES)
      string(TOUPPER "${config}" upper)
      string(REPLACE ">" "$<ANGLE-R>" config_flags "${CMAKE_CXX_FLAGS_${upper}}")
      string(APPEND flags "$<$<CONFIG:${config}>: ${config_flags}>")
    endforeach()
  elseif(CMAKE_BUILD_TYPE)
    string(TOUPPER "${CMAKE_BUILD_TYPE}" upper)
    set(type "${CMAKE_BUILD_TYPE}")
    set(flags "${CMAKE_CXX_FLAGS} ${CMAKE_CXX_FLAGS_${upper}}")
  elseif(CMAKE_CXX_FLAGS MATCHES "(^|[ \t])-O")
    set(type "none")
    set(flags "${CMAKE_CXX_FLAGS}")
  else()
    target_compile_options(${target} PRIVATE -O2)
    target_compile_definitions(${target} PRIVATE NDEBUG)
    set(type "default-optimized")
    set(flags "${CMAKE_CXX_FLAGS} -O2 -DNDEBUG")
  endif()
  storh_plugin_c_string(type "${type}")
  storh_plugin_c_string(flags "${flags}")
  target_compile_definitions(${target} PRIVATE
    "STORH_PLUGIN_BUILD_TYPE=\"${type}\"" "STORH_PLUGIN_BUILD_FLAGS=\"${flags}\"")
endfunction()

function(storh_add_plugin name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "ALLOW_UNDEFINED" "OUTPUT_DIRECTORY" "SOURCES;LINK")
  if(NOT arg_SOURCES)
    message(FATAL_ERROR "storh_add_plugin(${name}): SOURCES is required")
  endif()
  set(target storh_plugin_${name})
  add_library(${target} MODULE ${arg_SOURCES})
  target_link_libraries(${target} PRIVATE storh::plugin_sdk ${arg_LINK})
  set_target_properties(${target} PROPERTIES
    OUTPUT_NAME storh_${name}
    PREFIX ""
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON
    LINK_DEPENDS "${STORH_PLUGIN_VERSION_SCRIPT}")
  target_link_options(${target} PRIVATE "LINKER:--version-script=${STORH_PLUGIN_VERSION_SCRIPT}")
  storh_plugin_build_provenance(${target})
  if(NOT arg_ALLOW_UNDEFINED)
    target_link_options(${target} PRIVATE "LINKER:--no-undefined")
  endif()
  if(arg_OUTPUT_DIRECTORY)
    set_target_properties(${target} PROPERTIES LIBRARY_OUTPUT_DIRECTORY "${arg_OUTPUT_DIRECTORY}")
  elseif(DEFINED STORH_PLUGIN_OUTPUT_DIRECTORY)
    set_target_properties(${target} PROPERTIES
      LIBRARY_OUTPUT_DIRECTORY "${STORH_PLUGIN_OUTPUT_DIRECTORY}")
  endif()
endfunction()
