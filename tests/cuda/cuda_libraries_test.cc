// cuBLAS, cuBLASLt and cuDNN opened at run time (kernels/cuda/cuda_libraries.h). These run
// without a GPU: they need only the libraries the build found, and check that every
// function the kernels call is exported under the name the forwarder looks up, and that
// calls go through to the library with their arguments.
#include "kernels/cuda/cuda_libraries.h"

#include <gtest/gtest.h>

#include <cublasLt.h>
#include <cudnn.h>

#include <string>

namespace amp::kernels::cuda {
namespace {

TEST(CudaLibraries, SonamesFollowTheHeadersWeCompiledAgainst) {
  EXPECT_EQ(std::string(cuda_library_soname(CudaLibrary::kCublasLt)),
            "libcublasLt.so." + std::to_string(CUBLAS_VER_MAJOR));
  EXPECT_EQ(std::string(cuda_library_soname(CudaLibrary::kCublas)),
            "libcublas.so." + std::to_string(CUBLAS_VER_MAJOR));
  EXPECT_EQ(std::string(cuda_library_soname(CudaLibrary::kCudnn)),
            "libcudnn.so." + std::to_string(CUDNN_MAJOR));
}

TEST(CudaLibraries, EveryForwardedFunctionIsExported) {
  ASSERT_TRUE(load_cuda_libraries().is_ok()) << load_cuda_libraries().message();
  std::string missing;
  for (const ForwardedCudaSymbol& s : forwarded_cuda_symbols())
    if (cuda_library_symbol(s.lib, s.name) == nullptr)
      missing += std::string(s.name) + " (" + cuda_library_soname(s.lib) + ") ";
  EXPECT_TRUE(missing.empty()) << missing;
  EXPECT_GE(forwarded_cuda_symbols().size(), 40u);
}

// Host-only calls (no device needed) through the forwarders: versions, status strings,
// descriptors whose arguments the library checks.
TEST(CudaLibraries, CallsReachTheLibraryWithTheirArguments) {
  ASSERT_TRUE(load_cuda_libraries().is_ok()) << load_cuda_libraries().message();
  EXPECT_EQ(cudnnGetVersion() / 10000, static_cast<size_t>(CUDNN_MAJOR));
  EXPECT_EQ(cublasLtGetVersion() / 10000, static_cast<size_t>(CUBLAS_VER_MAJOR));
  EXPECT_NE(std::string(cudnnGetErrorString(CUDNN_STATUS_BAD_PARAM)).find("BAD_PARAM"),
            std::string::npos);
  EXPECT_EQ(std::string(cublasLtGetStatusString(CUBLAS_STATUS_SUCCESS)), "success");

  cudnnTensorDescriptor_t t = nullptr;
  ASSERT_EQ(cudnnCreateTensorDescriptor(&t), CUDNN_STATUS_SUCCESS);
  ASSERT_NE(t, nullptr);
  const int dims[4] = {2, 3, 4, 5}, strides[4] = {60, 20, 5, 1};
  EXPECT_EQ(cudnnSetTensorNdDescriptor(t, CUDNN_DATA_FLOAT, 4, dims, strides),
            CUDNN_STATUS_SUCCESS);
  const int bad_dims[4] = {2, 0, 4, 5};  // a zero extent: the library must see our arguments
  EXPECT_NE(cudnnSetTensorNdDescriptor(t, CUDNN_DATA_FLOAT, 4, bad_dims, strides),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnDestroyTensorDescriptor(t), CUDNN_STATUS_SUCCESS);

  // cublasLtMatrixLayoutInit is inline over the forwarded *_internal function.
  cublasLtMatrixLayoutOpaque_t layout;
  EXPECT_EQ(cublasLtMatrixLayoutInit(&layout, CUDA_R_32F, 8, 4, 8), CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(cublasLtMatrixLayoutInit_internal(&layout, 1, CUDA_R_32F, 8, 4, 8),
            CUBLAS_STATUS_ALLOC_FAILED)
      << "a 1-byte descriptor must be refused as too small";
}

TEST(CudaLibraries, AMissingLibraryIsAnErrorNamingItAndWhereWeLooked) {
  Result<void*> h = open_cuda_library("libamp-no-such-library.so.1", {"/nonexistent/amp-lib"});
  ASSERT_FALSE(h.is_ok());
  EXPECT_EQ(h.status().code(), ErrorCode::kUnsupported);
  const std::string& m = h.status().message();
  EXPECT_NE(m.find("libamp-no-such-library.so.1"), std::string::npos) << m;
  EXPECT_NE(m.find("/nonexistent/amp-lib"), std::string::npos) << m;
  EXPECT_NE(m.find("LD_LIBRARY_PATH"), std::string::npos) << m;
}

TEST(CudaLibraries, FallbackFoldersComeFromTheBuild) {
  // CMake passes the toolkit's (and cuDNN's) library folders; each is absolute.
  for (const std::string& d : cuda_library_fallback_dirs()) EXPECT_EQ(d.front(), '/') << d;
  EXPECT_FALSE(cuda_library_fallback_dirs().empty());
}

}  // namespace
}  // namespace amp::kernels::cuda
