"""Choosing the torch device from a chapter's ``device`` parameter."""

from __future__ import annotations

from typing import TYPE_CHECKING

from seqmi.validate import check_choice

if TYPE_CHECKING:
    import torch

DEVICE_CHOICES = ("auto", "cpu", "cuda")


def resolve_device(device: str) -> "torch.device":
    """Turn ``"auto" | "cpu" | "cuda"`` into a :class:`torch.device`.

    ``"auto"`` picks CUDA when a GPU is visible and the CPU otherwise; an explicit
    ``"cuda"`` without a GPU is an error rather than a silent fallback, so that a
    full-profile run never quietly takes hours on the CPU.

    Parameters
    ----------
    device : str
        One of ``"auto"``, ``"cpu"``, ``"cuda"``.

    Returns
    -------
    torch.device
    """
    check_choice("device", device, DEVICE_CHOICES)
    import torch  # imported here: chapters that never touch torch stay fast to start

    if device == "cpu":
        return torch.device("cpu")
    if device == "cuda" and not torch.cuda.is_available():
        raise ValueError(
            "device='cuda' was requested but torch sees no CUDA GPU "
            f"(torch {torch.__version__}); use device='auto' or 'cpu'"
        )
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")
