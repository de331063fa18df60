"""amprt's exceptions: one class per stable error code of the C++ API (amp/error.h).

Every error the runtime raises is an instance of a subclass of amprt.Error; `e.code` is its
amprt.ErrorCode (an IntEnum with the C++ values), and str(e) is the message, which names the
node, tensor or input involved."""
import enum


class ErrorCode(enum.IntEnum):
    INVALID_MODEL = 1
    UNSUPPORTED = 2
    INVALID_INPUT = 3
    INVALID_ARGUMENT = 4
    OUT_OF_MEMORY = 5
    BACKEND_FAILURE = 6
    NOT_FOUND = 7
    INTERNAL = 8
    NUMERIC_OVERFLOW = 9


class Error(RuntimeError):
    """Base of every amprt error."""
    code: ErrorCode = ErrorCode.INTERNAL


class InvalidModel(Error):
    """The model file or graph is malformed or inconsistent."""
    code = ErrorCode.INVALID_MODEL


class Unsupported(Error):
    """Well-formed, but uses an op, dtype or attribute AMPRT does not implement."""
    code = ErrorCode.UNSUPPORTED


class InvalidInput(Error):
    """Run-time inputs: wrong name, dtype, rank or dim, or not a C-contiguous array."""
    code = ErrorCode.INVALID_INPUT


class InvalidArgument(Error):
    """Options, policy files, API misuse."""
    code = ErrorCode.INVALID_ARGUMENT


class OutOfMemory(Error, MemoryError):
    """A host or device allocation failed, or a memory cap was exceeded."""
    code = ErrorCode.OUT_OF_MEMORY


class BackendFailure(Error):
    """CUDA, cuDNN, cuBLAS or oneDNN returned an error."""
    code = ErrorCode.BACKEND_FAILURE


class NotFound(Error, FileNotFoundError):
    """A file that does not exist or cannot be opened."""
    code = ErrorCode.NOT_FOUND


class Internal(Error):
    """A broken invariant inside AMPRT: a bug, please report it."""
    code = ErrorCode.INTERNAL


class NumericOverflow(Error, ArithmeticError):
    """check_numerics: a low-precision node produced Inf or NaN."""
    code = ErrorCode.NUMERIC_OVERFLOW


_BY_CODE = {cls.code: cls for cls in (InvalidModel, Unsupported, InvalidInput, InvalidArgument,
                                      OutOfMemory, BackendFailure, NotFound, Internal,
                                      NumericOverflow)}


def error_class(code: int) -> type:
    """The class for a C++ error code (called by the extension when it raises)."""
    return _BY_CODE.get(code, Internal)
