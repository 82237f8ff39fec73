# The optional multi-GPU part (issue 14): include/reducelab/multigpu.cuh over NCCL, the INTERFACE target
# reducelab::multigpu and its test. The core library (reducelab::reducelab) and the tool never depend on NCCL.
#
#   -DREDUCELAB_WITH_NCCL=AUTO   (default) build the part when NCCL is found (cmake/FindNCCL.cmake says where it looks)
#   -DREDUCELAB_WITH_NCCL=ON     require it: stop the configure when NCCL is not found
#   -DREDUCELAB_WITH_NCCL=OFF    leave it out
#   -DNCCL_ROOT=DIR              where NCCL is (DIR/include/nccl.h, DIR/lib/libnccl.so.2): see scripts/fetch_nccl.sh
set(REDUCELAB_WITH_NCCL AUTO CACHE STRING "Build the multi-GPU part over NCCL: AUTO (when found), ON or OFF")
set_property(CACHE REDUCELAB_WITH_NCCL PROPERTY STRINGS AUTO ON OFF)
string(TOUPPER "${REDUCELAB_WITH_NCCL}" _reducelab_with_nccl)

if(_reducelab_with_nccl STREQUAL "OFF")
  message(STATUS "reducelab: multi-GPU part (NCCL) left out: REDUCELAB_WITH_NCCL=OFF")
  return()
elseif(NOT _reducelab_with_nccl MATCHES "^(AUTO|ON)$")
  message(FATAL_ERROR "reducelab: REDUCELAB_WITH_NCCL is '${REDUCELAB_WITH_NCCL}'; use AUTO, ON or OFF")
endif()

list(PREPEND CMAKE_MODULE_PATH ${CMAKE_CURRENT_LIST_DIR})
find_package(NCCL QUIET)
if(NOT NCCL_FOUND)
  if(_reducelab_with_nccl STREQUAL "ON")
    message(FATAL_ERROR "reducelab: REDUCELAB_WITH_NCCL=ON but NCCL was not found: ${NCCL_NOT_FOUND_REASON} "
                        "(pass -DNCCL_ROOT=DIR; scripts/fetch_nccl.sh downloads one)")
  endif()
  message(STATUS "reducelab: multi-GPU part (NCCL) left out: ${NCCL_NOT_FOUND_REASON} "
                 "(pass -DNCCL_ROOT=DIR to build it; scripts/fetch_nccl.sh downloads one)")
  return()
endif()
message(STATUS "reducelab: multi-GPU part built with NCCL ${NCCL_VERSION} from ${NCCL_FOUND_VIA} (${NCCL_LIBRARY})")

# Header-only like the core; not exported into the package config, so reducelab::reducelab stays NCCL-free. A
# consumer of the installed headers links NCCL itself and includes <reducelab/multigpu.cuh>.
add_library(reducelab_multigpu INTERFACE)
add_library(reducelab::multigpu ALIAS reducelab_multigpu)
target_link_libraries(reducelab_multigpu INTERFACE reducelab NCCL::nccl)

# `reducelab-multigpu compare` (comparisons/multigpu/): the multi-GPU operations timed beside one GPU's
# reducelab::reduce and NCCL's ncclAllReduce, through the tool's shared timing engine and provenance. An executable
# of its own, so `reducelab` never links NCCL. Its pure host logic (options, goals) is a library of its own, which
# tests/test_multigpu_tool.cpp links without a GPU.
add_library(reducelab_multigpu_tool STATIC
  comparisons/multigpu/options.cpp
  comparisons/multigpu/goals.cpp)
target_link_libraries(reducelab_multigpu_tool PUBLIC reducelab_lab PRIVATE CLI11::CLI11)

add_executable(reducelab-multigpu
  comparisons/multigpu/main.cpp
  comparisons/multigpu/compare.cpp
  comparisons/multigpu/session.cu
  comparisons/multigpu/scalar_cases.cu
  comparisons/multigpu/all_reduce_cases.cu)
target_link_libraries(reducelab-multigpu PRIVATE reducelab_multigpu_tool reducelab_multigpu reducelab_lab)
set_target_properties(reducelab-multigpu PROPERTIES CUDA_RUNTIME_LIBRARY Static)
