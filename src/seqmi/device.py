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
