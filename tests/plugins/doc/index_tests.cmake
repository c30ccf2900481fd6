# Tests of the doc engine's indexes, queries and plugin (included by
# tests/plugins/doc/CMakeLists.txt).
storh_add_test(index_test
  SOURCES index_keys_test.cpp index_store_test.cpp
  LINK storh::doc storh::bench_support)
storh_add_test(query_test SOURCES query_model_test.cpp LINK storh::doc)
storh_add_test(doc_plugin_test SOURCES doc_plugin_test.cpp
  LINK storh::plugin_sdk ${CMAKE_DL_LIBS})
target_include_directories(doc_plugin_test PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/..)
target_compile_definitions(doc_plugin_test PRIVATE
  STORH_TEST_DOC_PLUGIN="$<TARGET_FILE:storh_plugin_doc>")
add_dependencies(doc_plugin_test storh_plugin_doc)
