"""One device convention: every public function takes ``"auto" | "cpu" | "cuda" | torch.device``.

Functions that run torch code accept a ``device`` argument of type ``DeviceLike``
and pass it through :func:`resolve_device` once, at their top, so that a chapter's
``device`` parameter (a string) and a :class:`torch.device` built by a user are both
accepted everywhere, and a bad value fails before any work starts.

Precision on CUDA is set here too, once: when :func:`resolve_device` picks a CUDA
device it calls :func:`use_ieee_float32`, so that float32 means IEEE float32 on the GPU
as on the CPU. Recent GPUs otherwise run cuDNN's RNN and LSTM products in TF32 (a
10-bit mantissa) by default; the recurrent models (``amp_safe = False``) are meant to
train in float32, and validation losses that pick a restart at 1e-3-nat differences
need it. bf16 is used only where a caller asks for autocast (the training losses of
``amp_safe`` models, :mod:`seqmi.train`).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, Union

from seqmi._optional import require
from seqmi.validate import check_choice

if TYPE_CHECKING:
    import torch

DEVICE_CHOICES = ("auto", "cpu", "cuda")

# a device argument: "auto", "cpu", "cuda" (or "cuda:N") or a torch.device
DeviceLike = Union[str, "torch.device"]


def check_device(device: Any, name: str = "device") -> DeviceLike:
    """Return ``device`` if :func:`resolve_device` accepts its form, else raise ``ValueError``.

    Settings records call it when they are built: it checks the spelling without
    looking for a GPU (a record may be built on a laptop and computed on a GPU worker,
    which resolves ``"auto"`` where it runs) and without importing torch.
    """
    if isinstance(device, str) and device.startswith("cuda:") and device[5:].isdigit():
        return device
    torch = sys.modules.get("torch")  # a torch.device exists only once torch is loaded
    if torch is not None and isinstance(device, torch.device):
        if device.type not in DEVICE_CHOICES:
            raise ValueError(f"{name} must be one of {list(DEVICE_CHOICES)} or a cpu/cuda torch.device, got {device!r}")
        return device
    return check_choice(name, device, DEVICE_CHOICES)


def resolve_device(device: DeviceLike = "auto") -> "torch.device":
    """Turn ``"auto" | "cpu" | "cuda" | "cuda:N" | torch.device`` into a :class:`torch.device`.

    ``"auto"`` picks CUDA when a GPU is visible and the CPU otherwise; an explicit
    CUDA device without a GPU is an error rather than a silent fallback, so that a
    full-profile run never quietly takes hours on the CPU. Whenever CUDA is picked,
    float32 work on it is made IEEE float32 (:func:`use_ieee_float32`).

    Parameters
    ----------
    device : str or torch.device
        One of ``"auto"``, ``"cpu"``, ``"cuda"``, ``"cuda:N"``, or a :class:`torch.device`
        of type ``cpu`` or ``cuda``.

    Returns
    -------
    torch.device
    """
    torch = require("torch")  # imported here: chapters that never touch torch stay fast to start

    device = check_device(device)
    kind = device.type if isinstance(device, torch.device) else device.partition(":")[0]
    if kind == "cpu":
        return torch.device("cpu")
    if kind == "cuda" and not torch.cuda.is_available():
        raise ValueError(
            f"device={device!r} was requested but torch sees no CUDA GPU "
            f"(torch {torch.__version__}); use device='auto' or 'cpu'"
        )
    if not torch.cuda.is_available():  # "auto" without a GPU
        return torch.device("cpu")
    use_ieee_float32()
    return torch.device(device if kind == "cuda" else "cuda")


def _new_precision_api() -> bool:
    """Whether torch has the per-backend ``fp32_precision`` settings (torch >= 2.9)."""
    torch = require("torch")

    return hasattr(torch.backends.cuda.matmul, "fp32_precision") and hasattr(torch.backends.cudnn, "rnn")


def use_ieee_float32() -> None:
    """Make float32 CUDA matrix products, convolutions and RNNs IEEE float32, not TF32.

    With torch's ``fp32_precision`` settings (torch >= 2.9) it sets the CUDA matmul, cuDNN,
    cuDNN convolution and cuDNN RNN precisions to ``"ieee"``; with older torch, the
    legacy ``allow_tf32`` flags of cuBLAS and cuDNN to ``False`` (the two APIs must not be
    mixed: torch refuses to read the legacy flags once the new ones disagree). The
    settings are process-wide and harmless on a CPU-only torch. bf16 autocast is not
    affected: it chooses its own dtype.
    """
    torch = require("torch")

    if _new_precision_api():
        torch.backends.cuda.matmul.fp32_precision = "ieee"
        torch.backends.cudnn.fp32_precision = "ieee"
        torch.backends.cudnn.conv.fp32_precision = "ieee"
        torch.backends.cudnn.rnn.fp32_precision = "ieee"
    else:
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False


def precision_flags() -> dict[str, Any]:
    """The float32 precision settings in force, as torch reports them (for reports and logs).

    Returns
    -------
    dict
        With torch's ``fp32_precision`` settings: ``matmul``, ``cudnn``, ``cudnn_conv`` and
        ``cudnn_rnn`` (``"ieee"``, ``"tf32"`` or ``"none"``: inherit); otherwise the legacy
        ``matmul_allow_tf32`` and ``cudnn_allow_tf32``. Always ``float32_matmul_precision``
        (``"highest"`` is IEEE) and ``api`` (``"fp32_precision"`` or ``"allow_tf32"``).
    """
    torch = require("torch")

    flags: dict[str, Any] = {"float32_matmul_precision": torch.get_float32_matmul_precision()}
    if _new_precision_api():
        flags.update(api="fp32_precision", matmul=torch.backends.cuda.matmul.fp32_precision,
                     cudnn=torch.backends.cudnn.fp32_precision,
                     cudnn_conv=torch.backends.cudnn.conv.fp32_precision,
                     cudnn_rnn=torch.backends.cudnn.rnn.fp32_precision)
    else:
        flags.update(api="allow_tf32", matmul_allow_tf32=torch.backends.cuda.matmul.allow_tf32,
                     cudnn_allow_tf32=torch.backends.cudnn.allow_tf32)
    return flags


def cuda_rng_state() -> dict[str, Any]:
    """``{"cuda_rng": [one state per GPU]}`` when CUDA is available, else ``{}``.

    For checkpoints: merged into a checkpoint dict beside the CPU generator's state, so
    that a run resumed on a GPU draws what it would have drawn uninterrupted (dropout,
    sampling on the device); a CPU-only torch writes nothing.
    """
    torch = require("torch")

    return {"cuda_rng": torch.cuda.get_rng_state_all()} if torch.cuda.is_available() else {}


def restore_cuda_rng_state(state: dict[str, Any]) -> None:
    """Restore what :func:`cuda_rng_state` saved in ``state``, if it saved anything.

    A checkpoint written on a CPU-only machine, or read on one, leaves the CUDA
    generators alone. A checkpoint from a machine with another number of GPUs is an
    error naming both counts.
    """
    torch = require("torch")

    saved = state.get("cuda_rng")
    if saved is None or not torch.cuda.is_available():
        return
    if len(saved) != torch.cuda.device_count():
        raise ValueError(f"the checkpoint holds CUDA generator states for {len(saved)} GPUs, "
                         f"this machine has {torch.cuda.device_count()}")
    torch.cuda.set_rng_state_all(saved)


#: The most threads :func:`set_cpu_threads` accepts (more than the cores present are cut to them).
MAX_CPU_THREADS = 1024
#: The environment variables that size each library's CPU thread pool when it loads, for
#: OpenMP (torch's intra-op pool, libgomp), MKL, OpenBLAS and numba's parallel loops.
THREAD_ENV_NAMES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "NUMBA_NUM_THREADS")


def thread_env(n: int) -> dict[str, str]:
    """The environment that starts every CPU thread pool at ``n`` threads.

    For processes started later (papermill's kernels, Dask workers, a test suite's
    subprocesses): the pools read these variables once, when their library loads, so a
    process sets them before it starts its children, and :func:`set_cpu_threads` sets the
    pools of a process that already runs.

    Parameters
    ----------
    n : int
        Threads, ``1 <= n <= MAX_CPU_THREADS``.

    Returns
    -------
    dict
        ``{name: str(n)}`` for every name of :data:`THREAD_ENV_NAMES`.

    Examples
    --------
    >>> thread_env(1)["OMP_NUM_THREADS"]
    '1'
    """
    from seqmi.validate import check_int

    check_int("threads", n, 1, MAX_CPU_THREADS)
    return {name: str(n) for name in THREAD_ENV_NAMES}


_CPU_THREADS: int | None = None


def set_cpu_threads(n: int) -> None:
    """Use ``n`` CPU threads in every pool the package runs work on.

    One setting for torch's intra-op pool, numba's parallel loops (the compiled pair
    counting), the BLAS and OpenMP pools of numpy and scipy (through threadpoolctl)
    and scipy's FFT workers. Setting only torch's is not enough on a busy machine:
    numba's OpenMP workers spin-wait between parallel regions, and while another
    process holds a core the spinning thread takes time from the one doing the work
    (a chapter ran more than ten times slower beside one busy core).

    Parameters
    ----------
    n : int
        Threads, ``1 <= n <= MAX_CPU_THREADS``; more than the cores present are cut to
        them, with a printed note (a profile sized for a larger node runs on a smaller
        one). Numba cannot start more threads than it was configured with at import,
        ``NUMBA_NUM_THREADS``: its pool is capped there.
    """
    import os

    from seqmi.validate import check_int

    check_int("cpu_threads", n, 1, MAX_CPU_THREADS)
    cores = os.cpu_count() or 1
    if n > cores:
        print(f"cpu_threads={n}: this machine has {cores} cores, using {cores} threads")
        n = cores
    import numba
    torch = require("torch")
    from threadpoolctl import threadpool_limits

    global _CPU_THREADS
    torch.set_num_threads(n)
    numba.set_num_threads(min(n, numba.config.NUMBA_NUM_THREADS))
    threadpool_limits(n)
    _CPU_THREADS = n


def cpu_threads() -> int:
    """Threads set by :func:`set_cpu_threads`, or every core (``-1``) if it was never called.

    The value suits the ``workers`` argument of ``scipy.fft``.
    """
    return -1 if _CPU_THREADS is None else _CPU_THREADS
