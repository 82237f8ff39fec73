# FindNCCL: NVIDIA's collective communication library, for the optional multi-GPU part (include/reducelab/multigpu*).
#
# Looks, in this order, in
#   1. NCCL_ROOT (CMake or environment variable): a folder with include/nccl.h and lib/libnccl.so(.2), such as the
#      one scripts/fetch_nccl.sh unpacks, or an NCCL install prefix;
#   2. the Python package nvidia-nccl-cu13 (`import nvidia.nccl`), where the GPU machines keep NCCL;
#   3. the system's default paths (a libnccl-dev install).
# Defines NCCL_FOUND, NCCL_INCLUDE_DIR, NCCL_LIBRARY, NCCL_VERSION, NCCL_FOUND_VIA (what found it) and the imported
# target NCCL::nccl. NCCL_NOT_FOUND_REASON says why when it is not found.

set(_nccl_hints)
set(NCCL_FOUND_VIA "")
if(NCCL_ROOT)
  list(APPEND _nccl_hints "${NCCL_ROOT}")
  set(_nccl_via "NCCL_ROOT=${NCCL_ROOT}")
elseif(DEFINED ENV{NCCL_ROOT})
  list(APPEND _nccl_hints "$ENV{NCCL_ROOT}")
  set(_nccl_via "environment NCCL_ROOT=$ENV{NCCL_ROOT}")
else()
  # The wheel nvidia-nccl-cu13 has no libnccl.so (only .so.2) and no CMake config: ask Python where it is. A
  # machine without python3 or without the package just moves on to the system paths.
  find_program(_nccl_python NAMES python3 python)
  if(_nccl_python)
    execute_process(COMMAND ${_nccl_python} -c "import nvidia.nccl, os; print(nvidia.nccl.__path__[0])"
                    OUTPUT_VARIABLE _nccl_py_dir OUTPUT_STRIP_TRAILING_WHITESPACE
                    RESULT_VARIABLE _nccl_py_rc ERROR_QUIET)
    if(_nccl_py_rc EQUAL 0 AND IS_DIRECTORY "${_nccl_py_dir}")
      list(APPEND _nccl_hints "${_nccl_py_dir}")
      set(_nccl_via "the Python package nvidia.nccl (${_nccl_py_dir})")
    endif()
  endif()
  unset(_nccl_python CACHE)
endif()

if(_nccl_hints)
  # With a hint, only the hint: a half-found NCCL (header from one place, library from another) is worse than none.
  find_path(NCCL_INCLUDE_DIR nccl.h HINTS ${_nccl_hints} PATH_SUFFIXES include NO_DEFAULT_PATH)
  find_library(NCCL_LIBRARY NAMES nccl libnccl.so.2 HINTS ${_nccl_hints} PATH_SUFFIXES lib lib64 NO_DEFAULT_PATH)
else()
  set(_nccl_via "the system paths")
  find_path(NCCL_INCLUDE_DIR nccl.h)
  find_library(NCCL_LIBRARY NAMES nccl libnccl.so.2)
endif()

if(NCCL_INCLUDE_DIR AND EXISTS "${NCCL_INCLUDE_DIR}/nccl.h")
  file(STRINGS "${NCCL_INCLUDE_DIR}/nccl.h" _nccl_version_lines REGEX "^#define NCCL_(MAJOR|MINOR|PATCH) [0-9]+")
  foreach(_part MAJOR MINOR PATCH)
    string(REGEX REPLACE ".*#define NCCL_${_part} ([0-9]+).*" "\\1" _nccl_${_part} "${_nccl_version_lines}")
  endforeach()
  set(NCCL_VERSION "${_nccl_MAJOR}.${_nccl_MINOR}.${_nccl_PATCH}")
endif()

if(NOT NCCL_INCLUDE_DIR AND NOT NCCL_LIBRARY)
  set(NCCL_NOT_FOUND_REASON "no nccl.h and no libnccl.so(.2) in ${_nccl_via}")
elseif(NOT NCCL_INCLUDE_DIR)
  set(NCCL_NOT_FOUND_REASON "no nccl.h in ${_nccl_via}")
elseif(NOT NCCL_LIBRARY)
  set(NCCL_NOT_FOUND_REASON "no libnccl.so(.2) in ${_nccl_via}")
endif()

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(NCCL REQUIRED_VARS NCCL_LIBRARY NCCL_INCLUDE_DIR VERSION_VAR NCCL_VERSION
                                  REASON_FAILURE_MESSAGE "${NCCL_NOT_FOUND_REASON}")

if(NCCL_FOUND)
  set(NCCL_FOUND_VIA "${_nccl_via}")
  if(NOT TARGET NCCL::nccl)
    add_library(NCCL::nccl SHARED IMPORTED)
    set_target_properties(NCCL::nccl PROPERTIES IMPORTED_LOCATION "${NCCL_LIBRARY}"
                                                INTERFACE_INCLUDE_DIRECTORIES "${NCCL_INCLUDE_DIR}")
    # Linked by its full path (the wheel's file is libnccl.so.2, SONAME libnccl.so.2); the build tree's RPATH
    # finds it at run time.
  endif()
endif()
mark_as_advanced(NCCL_INCLUDE_DIR NCCL_LIBRARY)
unset(_nccl_hints)
unset(_nccl_via)
