# Cut the worked example out of README.md (the ```cpp block after "Save as `functors/NAME.cuh`") into
# WORK_DIR/functors/NAME.cuh, then compile uses_the_functor.cu against it. Run by CTest:
#   cmake -DREADME=... -DWORK_DIR=... -DNVCC=... -DPROJECT_DIR=... -P extract_and_compile.cmake
file(READ "${README}" readme)
string(FIND "${readme}" "Save as `functors/sum_of_squares_merge.cuh`" at)
if(at EQUAL -1)
  message(FATAL_ERROR "README.md no longer has the worked example 'Save as `functors/sum_of_squares_merge.cuh`'")
endif()
string(SUBSTRING "${readme}" ${at} -1 rest)
string(FIND "${rest}" "```cpp\n" open)
string(FIND "${rest}" "\n```\n" close)
if(open EQUAL -1 OR close EQUAL -1 OR close LESS open)
  message(FATAL_ERROR "README.md: no ```cpp block after the worked example's file name")
endif()
math(EXPR first "${open} + 7")
math(EXPR length "${close} - ${first} + 1")
string(SUBSTRING "${rest}" ${first} ${length} header)
file(WRITE "${WORK_DIR}/functors/sum_of_squares_merge.cuh" "${header}")
execute_process(
  COMMAND "${NVCC}" -std=c++17 --expt-relaxed-constexpr -I${WORK_DIR} -I${PROJECT_DIR}/include -I${PROJECT_DIR}/src
          -I${PROJECT_DIR} -c -o "${WORK_DIR}/uses_the_functor.o" "${PROJECT_DIR}/tests/readme_example/uses_the_functor.cu"
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the README's worked example does not compile against the functor contract:\n${out}${err}")
endif()
message(STATUS "the README's worked example compiles and instantiates grid_stride_shuffle for float and double")
