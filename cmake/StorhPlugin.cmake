# storh_add_plugin(<name> SOURCES <files>... [LINK <targets>...] [ALLOW_UNDEFINED]
#                  [OUTPUT_DIRECTORY <dir>])
#
# Builds the engine plugin module storh_<name>.so: a MODULE library with hidden
# visibility, a linker version script that exports only storh_* symbols, and
# --no-undefined so a missing symbol fails the link instead of the dlopen.
# ALLOW_UNDEFINED exists for the loader's own test fixtures.
#
# Works in-tree and from an installed SDK (find_package(storh)).
include_guard(GLOBAL)

set(STORH_PLUGIN_VERSION_SCRIPT "${CMAKE_CURRENT_LIST_DIR}/storh_plugin.map"
    CACHE INTERNAL "Linker version script for storh plugins")

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
