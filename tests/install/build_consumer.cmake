# Install reducelab from a build tree into a fresh prefix, then configure, build and run examples/consumer
# against that prefix alone, as a user would. Run by CTest (install.consumer_example_builds):
#   cmake -DBUILD_DIR=... -DSOURCE_DIR=... -DWORK_DIR=... -DNVCC=... -DCUDA_ARCHITECTURES=...
#         [-DCUDA_HOST_COMPILER=...] [-DBUILD_TYPE=...] -P build_consumer.cmake
# Without a GPU the example still has to build; it then exits 0 printing "(skipped: no GPU)".
foreach(var BUILD_DIR SOURCE_DIR WORK_DIR NVCC CUDA_ARCHITECTURES)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "build_consumer.cmake: -D${var}=... is required")
  endif()
endforeach()
set(prefix ${WORK_DIR}/prefix)
set(build ${WORK_DIR}/build)
file(REMOVE_RECURSE ${prefix} ${build})  # fresh: nothing left over from an earlier install or configure

# (a) Install.
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "step (a) failed: cmake --install ${BUILD_DIR} --prefix ${prefix} (exit ${rc}):\n${out}")
endif()
# Only the library ships: its headers and its package files, never the tool.
file(GLOB_RECURSE installed RELATIVE ${prefix} ${prefix}/*)
foreach(f IN LISTS installed)
  if(NOT f MATCHES "^include/reducelab/.*\\.(hpp|cuh)$" AND NOT f MATCHES "^lib[^/]*(/[^/]+)?/cmake/reducelab/[^/]+\\.cmake$")
    message(FATAL_ERROR "step (a): the install put ${f} under ${prefix}; only include/reducelab/*.hpp|*.cuh and "
                        "lib/cmake/reducelab/*.cmake belong there")
  endif()
endforeach()
if(NOT EXISTS ${prefix}/include/reducelab/reduce.cuh)
  message(FATAL_ERROR "step (a): ${prefix}/include/reducelab/reduce.cuh was not installed")
endif()

# (b) Configure the example with the project's nvcc and architectures, finding reducelab in the prefix only.
set(args -S ${SOURCE_DIR}/examples/consumer -B ${build} -G Ninja -DCMAKE_PREFIX_PATH=${prefix}
         -DCMAKE_CUDA_COMPILER=${NVCC})
if(CUDA_HOST_COMPILER)
  list(APPEND args -DCMAKE_CUDA_HOST_COMPILER=${CUDA_HOST_COMPILER})
endif()
if(BUILD_TYPE)
  list(APPEND args -DCMAKE_BUILD_TYPE=${BUILD_TYPE})
endif()
# The architectures may be a list ("80;90"): quoted here, one argument, never split into the list above.
execute_process(COMMAND ${CMAKE_COMMAND} ${args} "-DCMAKE_CUDA_ARCHITECTURES=${CUDA_ARCHITECTURES}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "step (b) failed: configuring examples/consumer against ${prefix} (exit ${rc}):\n${out}")
endif()
load_cache(${build} READ_WITH_PREFIX consumer_ reducelab_DIR CMAKE_MAKE_PROGRAM)
cmake_path(IS_PREFIX prefix "${consumer_reducelab_DIR}" NORMALIZE in_prefix)
if(NOT in_prefix)
  message(FATAL_ERROR "step (b): find_package(reducelab) found ${consumer_reducelab_DIR}, not the fresh ${prefix}")
endif()

# (c) Build.
execute_process(COMMAND ${CMAKE_COMMAND} --build ${build} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "step (c) failed: building examples/consumer (exit ${rc}):\n${out}")
endif()
# The headers nvcc actually read (Ninja's record of the depfile): reducelab's must come from the prefix, and
# none from the source tree's include/.
execute_process(COMMAND ${consumer_CMAKE_MAKE_PROGRAM} -C ${build} -t deps
                RESULT_VARIABLE rc OUTPUT_VARIABLE deps ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "step (c): ninja -t deps failed (exit ${rc}): ${err}")
endif()
string(FIND "${deps}" "${prefix}/include/reducelab/reduce.cuh" from_prefix)
string(FIND "${deps}" "${SOURCE_DIR}/include/" from_source)
if(from_prefix EQUAL -1 OR NOT from_source EQUAL -1)
  string(REGEX MATCHALL "[^\n]*reducelab/[^\n]*" read "${deps}")
  list(JOIN read "\n" read)
  message(FATAL_ERROR "step (c): main.cu must include reducelab from ${prefix}/include and nothing from "
                      "${SOURCE_DIR}/include; the reducelab headers it read:\n${read}")
endif()

# (d) Run: passes on a GPU, prints the skip note without one.
execute_process(COMMAND ${build}/consumer RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "step (d) failed: ${build}/consumer exited ${rc}:\n${out}")
endif()
message(STATUS "examples/consumer built against ${prefix} (reducelab headers from there only) and ran:\n${out}")
# Kept only on failure: on success its 8 MB would travel in scripts/pack_for_device.sh's build.tgz for nothing.
file(REMOVE_RECURSE ${WORK_DIR})
