# Secondary indexes, queries and the benchmark adapter of the doc engine (engines.md
# 4.7, 11.1). Included by plugins/doc/CMakeLists.txt after storh_doc is defined.
target_sources(storh_doc PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/index_bucket_cache.cpp
  ${CMAKE_CURRENT_LIST_DIR}/index_build.cpp
  ${CMAKE_CURRENT_LIST_DIR}/index_files.cpp
  ${CMAKE_CURRENT_LIST_DIR}/index_keys.cpp
  ${CMAKE_CURRENT_LIST_DIR}/index_manager.cpp
  ${CMAKE_CURRENT_LIST_DIR}/index_range.cpp
  ${CMAKE_CURRENT_LIST_DIR}/index_verify.cpp
  ${CMAKE_CURRENT_LIST_DIR}/query.cpp
  ${CMAKE_CURRENT_LIST_DIR}/query_planner.cpp)

# The benchmark adapter (engines.md 11.1): module build/plugins/storh_doc.so.
storh_add_plugin(doc SOURCES ${CMAKE_CURRENT_LIST_DIR}/doc_plugin.cpp ${CMAKE_CURRENT_LIST_DIR}/doc_load.cpp
  LINK storh_build_flags storh_doc storh::bench_support)
