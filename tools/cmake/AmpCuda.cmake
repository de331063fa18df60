# Decides whether the CUDA backend is built (AMP_ENABLE_CUDA = AUTO | ON | OFF) and finds
# cuBLAS, cuBLASLt and cuDNN (their headers, and the folders they are opened from at run
# time). Sets AMP_HAVE_CUDA and AMP_CUDA_LIBRARY_DIRS.
set(AMP_HAVE_CUDA OFF)
set(AMP_CUDA_FOUND_TEXT "disabled (AMP_ENABLE_CUDA=${AMP_ENABLE_CUDA})")

if(NOT AMP_ENABLE_CUDA STREQUAL "OFF")
  if(NOT CMAKE_CUDA_COMPILER AND EXISTS /usr/local/cuda/bin/nvcc)
    set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
  endif()
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    # 80 = A100 (Ampere), 90 = H100/H200 (Hopper). Override with -DCMAKE_CUDA_ARCHITECTURES=...
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      set(CMAKE_CUDA_ARCHITECTURES "80;90")
    endif()
    enable_language(CUDA)
    # CMake 3.25 does not know nvcc 13's C++20 dialect flag, so CUDA sources compile as
    # C++17 (the .cu code is written to C++17); host .cc files in CUDA targets are C++20.
    set(CMAKE_CUDA_STANDARD 17)
    find_package(CUDAToolkit REQUIRED)
    find_path(CUDNN_INCLUDE_DIR cudnn.h HINTS ${CUDAToolkit_INCLUDE_DIRS} /usr/include)
    find_library(CUDNN_LIBRARY cudnn HINTS ${CUDAToolkit_LIBRARY_DIR} /usr/lib/x86_64-linux-gnu)
    if(NOT CUDNN_INCLUDE_DIR OR NOT CUDNN_LIBRARY)
      message(FATAL_ERROR "CUDA found but cuDNN 9 is missing (cudnn.h / libcudnn). "
                          "Install cuDNN or configure with -DAMP_ENABLE_CUDA=OFF.")
    endif()
    # Headers only: cuBLAS, cuBLASLt and cuDNN are opened at run time by
    # kernels/cuda/cuda_libraries.cc (see its header), never linked. The folders found here
    # are where it looks after the libraries' sonames.
    get_filename_component(CUDNN_LIBRARY_DIR ${CUDNN_LIBRARY} DIRECTORY)
    set(AMP_CUDA_LIBRARY_DIRS "${CUDAToolkit_LIBRARY_DIR}")
    if(NOT CUDNN_LIBRARY_DIR STREQUAL CUDAToolkit_LIBRARY_DIR)
      string(APPEND AMP_CUDA_LIBRARY_DIRS ":${CUDNN_LIBRARY_DIR}")
    endif()
    add_library(amp_cuda_library_headers INTERFACE)
    target_include_directories(amp_cuda_library_headers SYSTEM INTERFACE ${CUDNN_INCLUDE_DIR})
    target_link_libraries(amp_cuda_library_headers INTERFACE CUDA::toolkit)
    set(AMP_HAVE_CUDA ON)
    set(AMP_CUDA_FOUND_TEXT "ON (nvcc ${CMAKE_CUDA_COMPILER_VERSION}, archs ${CMAKE_CUDA_ARCHITECTURES})")
  elseif(AMP_ENABLE_CUDA STREQUAL "ON")
    message(FATAL_ERROR "AMP_ENABLE_CUDA=ON but no CUDA compiler (nvcc) was found. "
                        "Install the CUDA toolkit or use -DAMP_ENABLE_CUDA=AUTO/OFF.")
  else()
    set(AMP_CUDA_FOUND_TEXT "OFF (nvcc not found)")
  endif()
endif()
