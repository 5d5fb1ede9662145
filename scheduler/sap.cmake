# The SAP algorithm pieces (weighted sampling, dependency filter): pure logic, no sockets.
add_library(strads_sap
  ${CMAKE_CURRENT_LIST_DIR}/priority_sampler.cc
  ${CMAKE_CURRENT_LIST_DIR}/dependency_filter.cc
  ${CMAKE_CURRENT_LIST_DIR}/static_plan.cc
)
target_include_directories(strads_sap PUBLIC ${PROJECT_SOURCE_DIR})
target_link_libraries(strads_sap PUBLIC strads_common)
