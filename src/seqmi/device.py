"""One device convention: every public function takes ``"auto" | "cpu" | "cuda" | torch.device``.

Functions that run torch code accept a ``device`` argument of type ``DeviceLike``
and pass it through :func:`resolve_device` once, at their top, so that a chapter's
``device`` parameter (a string) and a :class:`torch.device` built by a user are both
accepted everywhere, and a bad value fails before any work starts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Union

from seqmi.validate import check_choice

if TYPE_CHECKING:
    import torch

DEVICE_CHOICES = ("auto", "cpu", "cuda")

# a device argument: "auto", "cpu", "cuda" (or "cuda:N") or a torch.device
DeviceLike = Union[str, "torch.device"]


def resolve_device(device: DeviceLike = "auto") -> "torch.device":
    """Turn ``"auto" | "cpu" | "cuda" | "cuda:N" | torch.device`` into a :class:`torch.device`.

    ``"auto"`` picks CUDA when a GPU is visible and the CPU otherwise; an explicit
    CUDA device without a GPU is an error rather than a silent fallback, so that a
    full-profile run never quietly takes hours on the CPU.

    Parameters
    ----------
    device : str or torch.device
        One of ``"auto"``, ``"cpu"``, ``"cuda"``, ``"cuda:N"``, or a :class:`torch.device`
        of type ``cpu`` or ``cuda``.

    Returns
    -------
    torch.device
    """
    import torch  # imported here: chapters that never touch torch stay fast to start

    if isinstance(device, torch.device):
        kind = device.type
    elif isinstance(device, str) and device.startswith("cuda:") and device[5:].isdigit():
        kind = "cuda"
    else:
        kind = check_choice("device", device, DEVICE_CHOICES)
    if kind not in DEVICE_CHOICES:
        raise ValueError(f"device must be one of {list(DEVICE_CHOICES)} or a cpu/cuda torch.device, got {device!r}")
    if kind == "cpu":
        return torch.device("cpu")
    if kind == "cuda" and not torch.cuda.is_available():
        raise ValueError(
            f"device={device!r} was requested but torch sees no CUDA GPU "
            f"(torch {torch.__version__}); use device='auto' or 'cpu'"
        )
    if kind == "cuda":
        return torch.device(device)
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


_CPU_THREADS: int | None = None
#: The most threads :func:`set_cpu_threads` accepts (more than the cores present are cut to them).
MAX_CPU_THREADS = 1024


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
    import torch
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
