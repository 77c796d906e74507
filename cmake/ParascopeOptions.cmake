# Build options. PARASCOPE_GUI and PARASCOPE_CUDA are tri-states: ON (required), OFF, AUTO (build if
# this machine can, and say what was skipped).
set(PARASCOPE_GUI AUTO CACHE STRING "Build the Qt GUI and render library: ON, OFF or AUTO")
set_property(CACHE PARASCOPE_GUI PROPERTY STRINGS ON OFF AUTO)
set(PARASCOPE_CUDA AUTO CACHE STRING "Build the CUPTI collector and the CUDA kernels: ON, OFF or AUTO")
set_property(CACHE PARASCOPE_CUDA PROPERTY STRINGS ON OFF AUTO)
option(PARASCOPE_SIMDJSON "Reserved for a simdjson-backed JSON path (the built-in streaming parser needs no library)" OFF)
option(PARASCOPE_SQLITE "Build the Nsight Systems SQLite reader and the SQLite writer (needs sqlite3)" ON)
option(PARASCOPE_BUILD_TESTS "Build the Catch2 tests" ON)
option(PARASCOPE_SANITIZE "Build with AddressSanitizer and UndefinedBehaviorSanitizer" OFF)
option(PARASCOPE_FUZZ "Build libFuzzer targets (needs clang)" OFF)

foreach(opt PARASCOPE_GUI PARASCOPE_CUDA)
  if(NOT ${opt} MATCHES "^(ON|OFF|AUTO)$")
    message(FATAL_ERROR "${opt} must be ON, OFF or AUTO, not '${${opt}}'")
  endif()
endforeach()

# Warnings for our own targets only (third-party headers are SYSTEM includes).
add_library(parascope_warnings INTERFACE)
target_compile_options(parascope_warnings INTERFACE
  $<$<COMPILE_LANG_AND_ID:CXX,GNU,Clang>:-Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wno-missing-field-initializers>)

if(PARASCOPE_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "PARASCOPE_FUZZ needs clang: configure with the fuzz preset or -DCMAKE_CXX_COMPILER=clang++")
  endif()
  # every library gets coverage instrumentation; fuzz targets link the libFuzzer driver themselves
  add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
endif()

if(PARASCOPE_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
endif()

find_program(PARASCOPE_CCACHE ccache)
if(PARASCOPE_CCACHE AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  set(CMAKE_C_COMPILER_LAUNCHER ${PARASCOPE_CCACHE})
  set(CMAKE_CXX_COMPILER_LAUNCHER ${PARASCOPE_CCACHE})
  set(CMAKE_CUDA_COMPILER_LAUNCHER ${PARASCOPE_CCACHE})
endif()

set(PARASCOPE_SKIPPED "")
macro(parascope_skip what why)
  list(APPEND PARASCOPE_SKIPPED "${what}: ${why}")
endmacro()

function(parascope_print_summary)
  message(STATUS "Parascope: GUI ${PARASCOPE_BUILD_GUI}, CUDA ${PARASCOPE_BUILD_CUDA}, SQLite ${PARASCOPE_HAVE_SQLITE}, tests ${PARASCOPE_BUILD_TESTS}")
  foreach(s IN LISTS PARASCOPE_SKIPPED)
    message(STATUS "Parascope: skipped ${s}")
  endforeach()
endfunction()
