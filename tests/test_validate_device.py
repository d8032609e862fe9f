import pytest

from seqmi.device import resolve_device
from seqmi.validate import check_choice, check_float, check_float_list, check_int, check_int_list


def test_checks_accept_and_reject():
    assert check_int("n", 3, 1, 5) == 3
    assert check_float("x", 0.5, 0.0, 1.0, low_open=True) == 0.5
    with pytest.raises(ValueError, match=r"n must be in \[1, 5\], got 7"):
        check_int("n", 7, 1, 5)
    with pytest.raises(ValueError, match="n must be an integer, got True"):
        check_int("n", True)
    with pytest.raises(ValueError, match=r"x must be in \(0.0, 1.0\], got 0.0"):
        check_float("x", 0.0, 0.0, 1.0, low_open=True)
    with pytest.raises(ValueError, match="x must be a real number"):
        check_float("x", float("nan"))
    with pytest.raises(ValueError, match=r"mode must be one of \['a', 'b'\], got 'c'"):
        check_choice("mode", "c", ["a", "b"])


def test_device_resolution():
    torch = pytest.importorskip("torch")
    assert resolve_device("cpu").type == "cpu"
    assert resolve_device("auto").type == ("cuda" if torch.cuda.is_available() else "cpu")
    with pytest.raises(ValueError, match="device must be one of"):
        resolve_device("tpu")
    if not torch.cuda.is_available():
        with pytest.raises(ValueError, match="device='cuda' was requested but torch sees no CUDA GPU"):
            resolve_device("cuda")


def test_list_checks():
    assert check_int_list("w", [1, 2], 1) == [1, 2]
    assert check_float_list("r", [0.5], 0.0, 1.0, high_open=True) == [0.5]
    with pytest.raises(ValueError, match=r"w must be a list of at least 1 integers, got \[\]"):
        check_int_list("w", [], 1)
    with pytest.raises(ValueError, match=r"w must be a list of at least 2 integers, got 3"):
        check_int_list("w", 3, min_len=2)
    with pytest.raises(ValueError, match=r"w\[1\] must be in \[1, inf\], got 0"):
        check_int_list("w", [2, 0], 1)
    with pytest.raises(ValueError, match=r"r\[0\] must be in \(0.0, 1.0\), got 1.0"):
        check_float_list("r", [1.0], 0.0, 1.0, low_open=True, high_open=True)


def test_check_lags():
    from seqmi.validate import check_lags

    assert check_lags([1, 5]).tolist() == [1, 5]
    with pytest.raises(ValueError, match="lags must be >= 1, got minimum 0"):
        check_lags([0, 1])
    with pytest.raises(ValueError, match="lags must be a non-empty array of integers"):
        check_lags([1.5])


def test_device_resolution_accepts_a_torch_device():
    torch = pytest.importorskip("torch")
    assert resolve_device(torch.device("cpu")) == torch.device("cpu")
    with pytest.raises(ValueError, match="device must be one of"):
        resolve_device(torch.device("meta"))
    if not torch.cuda.is_available():
        with pytest.raises(ValueError, match="no CUDA GPU"):
            resolve_device(torch.device("cuda"))
        with pytest.raises(ValueError, match="no CUDA GPU"):
            resolve_device("cuda:0")


def test_set_cpu_threads_sets_every_pool(cpu_threads):
    import numba
    import torch
    from threadpoolctl import threadpool_info

    from seqmi import device

    with cpu_threads(1):
        assert torch.get_num_threads() == 1
        assert numba.get_num_threads() == 1
        assert all(pool["num_threads"] == 1 for pool in threadpool_info())
        assert device.cpu_threads() == 1
        with pytest.raises(ValueError, match="cpu_threads must be in"):
            device.set_cpu_threads(0)
        with pytest.raises(ValueError, match="cpu_threads must be in"):
            device.set_cpu_threads(device.MAX_CPU_THREADS + 1)


def test_thread_env_names_every_pool_and_checks_its_count():
    from seqmi.device import THREAD_ENV_NAMES, thread_env

    assert thread_env(2) == {name: "2" for name in THREAD_ENV_NAMES}
    assert {"OMP_NUM_THREADS", "NUMBA_NUM_THREADS", "OPENBLAS_NUM_THREADS"} <= set(THREAD_ENV_NAMES)
    with pytest.raises(ValueError, match="threads must be in"):
        thread_env(0)


def test_more_cpu_threads_than_cores_are_cut_to_the_cores_with_a_note(capsys, monkeypatch, cpu_threads):
    import os

    import torch

    from seqmi import device

    with cpu_threads(1):  # the suite's count is back afterwards, on the real core count
        monkeypatch.setattr(os, "cpu_count", lambda: 1)
        device.set_cpu_threads(8)  # the full profile's 8 on a one-core node
        assert device.cpu_threads() == 1 and torch.get_num_threads() == 1
        assert "cpu_threads=8: this machine has 1 cores, using 1 threads" in capsys.readouterr().out
        monkeypatch.undo()


@pytest.fixture
def float32_settings():
    """Restore torch's float32 precision settings after a test that changes them."""
    torch = pytest.importorskip("torch")
    from seqmi.device import _new_precision_api

    if _new_precision_api():
        b = torch.backends
        objects = (b.cuda.matmul, b.cudnn, b.cudnn.conv, b.cudnn.rnn)
        saved = [o.fp32_precision for o in objects]
        yield
        for o, value in zip(objects, saved):
            o.fp32_precision = value
    else:
        saved = (torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32)
        yield
        torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32 = saved


def test_ieee_float32_turns_tf32_off(float32_settings):
    torch = pytest.importorskip("torch")
    from seqmi.device import _new_precision_api, precision_flags, use_ieee_float32

    if _new_precision_api():
        torch.backends.cudnn.rnn.fp32_precision = "tf32"  # cuDNN RNNs' default on recent torch
        torch.backends.cuda.matmul.fp32_precision = "tf32"
        use_ieee_float32()
        flags = precision_flags()
        assert flags["api"] == "fp32_precision"
        assert [flags[k] for k in ("matmul", "cudnn", "cudnn_conv", "cudnn_rnn")] == ["ieee"] * 4
    else:
        torch.backends.cudnn.allow_tf32 = True
        use_ieee_float32()
        flags = precision_flags()
        assert flags["api"] == "allow_tf32"
        assert not flags["matmul_allow_tf32"] and not flags["cudnn_allow_tf32"]


def test_picking_cuda_sets_ieee_float32(monkeypatch):
    torch = pytest.importorskip("torch")
    import seqmi.device

    calls = []
    monkeypatch.setattr(seqmi.device, "use_ieee_float32", lambda: calls.append(1))
    assert resolve_device("cpu").type == "cpu" and calls == []
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    assert resolve_device("auto") == torch.device("cuda")
    assert resolve_device("cuda:1") == torch.device("cuda:1")
    assert len(calls) == 2


def test_cuda_generator_state_is_saved_and_restored_only_with_cuda(monkeypatch, fake_cuda_generators):
    torch = pytest.importorskip("torch")
    from seqmi.device import cuda_rng_state, restore_cuda_rng_state

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert cuda_rng_state() == {}
    restore_cuda_rng_state({"cuda_rng": [torch.zeros(4, dtype=torch.uint8)]})  # no GPU: left alone
    states = [torch.arange(4, dtype=torch.uint8)]
    restored = fake_cuda_generators(states)
    assert cuda_rng_state() == {"cuda_rng": states}
    restore_cuda_rng_state({"torch_rng": None})  # a checkpoint written without a GPU
    assert restored == []
    restore_cuda_rng_state({"cuda_rng": states})
    assert restored == [states]
    with pytest.raises(ValueError, match="CUDA generator states for 2 GPUs, this machine has 1"):
        restore_cuda_rng_state({"cuda_rng": states * 2})
