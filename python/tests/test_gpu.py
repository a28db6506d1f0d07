"""indexpool.gpu and the CUDA path of indexpool.torch, on the project's fake
CUDA driver (test/FakeCuda: device memory is host memory, and only its own
test kernels compute anything). No GPU runs here, so these tests check what
the Python layer hands the runtime (pointers, shapes, types, in-place
outputs, streams, contexts, errors), not what real kernels compute: that is
checked against the float64 reference by the GPU emulator tests."""

import ctypes
import json
import os
import subprocess
import sys
import threading

import numpy as np
import pytest

FAKE_CUDA = os.environ.get("INDEXPOOL_TEST_FAKE_CUDA")
INPUTS = os.environ.get("INDEXPOOL_TEST_INPUTS")
pytestmark = pytest.mark.skipif(
    not FAKE_CUDA or not INPUTS,
    reason="needs INDEXPOOL_TEST_FAKE_CUDA and INDEXPOOL_TEST_INPUTS (ctest)")
if FAKE_CUDA:
    # Before any device is opened in this process.
    os.environ["INDEXPOOL_LIBCUDA_PATH"] = FAKE_CUDA
    os.environ["INDEXPOOL_FAKE_CUDA_ANY_KERNEL"] = "1"
    # One stderr line per launch, with its stream (read through capfd).
    os.environ["INDEXPOOL_FAKE_CUDA_LOG"] = "1"

import indexpool  # noqa: E402
import indexpool.gpu  # noqa: E402


class Driver:
    """The fake driver through ctypes, as a CUDA user would call the real
    one: device memory for the tests and the current context."""

    def __init__(self):
        self.lib = ctypes.CDLL(FAKE_CUDA)
        self.lib.cuMemAlloc_v2.argtypes = [ctypes.POINTER(ctypes.c_uint64),
                                           ctypes.c_size_t]
        self.lib.cuMemFree_v2.argtypes = [ctypes.c_uint64]
        self.lib.cuCtxGetCurrent.argtypes = [ctypes.POINTER(ctypes.c_void_p)]
        self.lib.cuCtxSetCurrent.argtypes = [ctypes.c_void_p]
        self.lib.cuStreamCreate.argtypes = [ctypes.POINTER(ctypes.c_void_p),
                                            ctypes.c_uint]

    def create_stream(self):
        stream = ctypes.c_void_p()
        assert self.lib.cuStreamCreate(ctypes.byref(stream), 0) == 0
        return stream.value

    def current_context(self):
        context = ctypes.c_void_p()
        assert self.lib.cuCtxGetCurrent(ctypes.byref(context)) == 0
        return context.value

    def set_current(self, context):
        assert self.lib.cuCtxSetCurrent(context) == 0


class DeviceArray:
    """Device memory of the fake driver with __cuda_array_interface__."""

    def __init__(self, driver, shape, dtype):
        self.shape = tuple(shape)
        self.dtype = np.dtype(dtype)
        self.nbytes = int(np.prod(self.shape)) * self.dtype.itemsize
        pointer = ctypes.c_uint64()
        assert driver.lib.cuMemAlloc_v2(ctypes.byref(pointer),
                                        max(self.nbytes, 1)) == 0
        self.address = pointer.value

    @property
    def __cuda_array_interface__(self):
        return {"shape": self.shape, "typestr": self.dtype.str,
                "data": (self.address, False), "strides": None,
                "version": 3}

    def view(self):
        """The memory as a NumPy array (the fake's device memory is host
        memory)."""
        buffer = (ctypes.c_char * self.nbytes).from_address(self.address)
        return np.frombuffer(buffer, dtype=self.dtype).reshape(self.shape)


@pytest.fixture(scope="module")
def device():
    return indexpool.gpu.device(0)


@pytest.fixture(scope="module")
def driver(device):
    return Driver()


@pytest.fixture(scope="module")
def expand(device):
    return indexpool.gpu.load(os.path.join(INPUTS, "expand-dynamic.json"))


def test_device_facts(device):
    # The fake reports compute capability 9.0 unless told otherwise.
    assert device.chip == "sm_90"
    assert device.multiprocessors > 0
    assert indexpool.gpu.device(0) is device
    assert "sm_90" in repr(device)


def launches(capfd):
    """The fake driver's log lines of the launches since the last call."""
    return [line for line in capfd.readouterr().err.splitlines()
            if line.startswith("fake-cuda: launch ")]


def test_launch_on_caller_memory(expand, driver, rng, capfd):
    assert [str(t) for t in expand.input_types] == ["tensor<?x?xi32>"]
    assert expand.in_place_inputs == [-1]
    indices = DeviceArray(driver, (3, 5), np.int32)
    indices.view()[...] = rng.integers(-1, 50, size=(3, 5), dtype=np.int32)
    assert expand.output_shapes(indices) == [(3, 20)]
    tokens = DeviceArray(driver, (3, 20), np.int32)
    expand.launch((indices,), (tokens,))
    # The test kernel's definition (test/FakeCuda): token j*4+s of index j.
    given = indices.view().astype(np.int64)
    expected = np.where(given[..., None] < 0, -1,
                        given[..., None] * 4 + np.arange(4)).reshape(3, 20)
    np.testing.assert_array_equal(tokens.view(), expected)
    # (address, dtype, shape) tuples are the same memory; the kernels go
    # on the caller's stream.
    tokens.view()[...] = 0
    stream = driver.create_stream()
    launches(capfd)
    expand.launch(((indices.address, "i32", (3, 5)),),
                  ((tokens.address, "i32", (3, 20)),), stream=stream)
    np.testing.assert_array_equal(tokens.view(), expected)
    lines = launches(capfd)
    assert len(lines) == 1 and "indexpool_test_expand " in lines[0]
    assert " stream=default" not in lines[0]


def test_launch_from_another_thread(expand, driver, rng):
    """A Python thread with no current context launches (the runtime makes
    the device's current) and finds its own context as it was."""
    indices = DeviceArray(driver, (1, 8), np.int32)
    indices.view()[...] = rng.integers(0, 9, size=(1, 8), dtype=np.int32)
    tokens = DeviceArray(driver, (1, 32), np.int32)
    seen = {}

    def worker():
        seen["before"] = driver.current_context()
        expand.launch((indices,), (tokens,))
        seen["after"] = driver.current_context()

    thread = threading.Thread(target=worker)
    thread.start()
    thread.join()
    assert seen == {"before": None, "after": None}
    np.testing.assert_array_equal(
        tokens.view()[0, ::4], indices.view()[0].astype(np.int64) * 4)


def test_bad_launches(expand, driver):
    indices = DeviceArray(driver, (2, 4), np.int32)
    tokens = DeviceArray(driver, (2, 16), np.int32)
    with pytest.raises(TypeError, match="expected a CUDA tensor"):
        expand.launch((np.zeros((2, 4), np.int32),), (tokens,))
    with pytest.raises(TypeError, match=r"input #0 of @expand_any_size"):
        expand.launch(((indices.address, "f32", (2, 4)),), (tokens,))
    with pytest.raises(indexpool.IndexPoolError,
                       match=r"output #0 is \[2, 15\], expected tensor<2x16xi32>"):
        expand.launch((indices,), ((tokens.address, "i32", (2, 15)),))
    with pytest.raises(TypeError, match="takes 1 inputs"):
        expand.launch((indices, indices), (tokens,))
    with pytest.raises(TypeError, match="without out="):
        expand(indices)
    with pytest.raises(indexpool.IndexPoolError, match="cannot"):
        indexpool.gpu.load("/nonexistent/f.sm_90.json")


def test_no_driver_is_one_error():
    code = ("import indexpool.gpu\n"
            "try:\n"
            "    indexpool.gpu.device()\n"
            "except indexpool.IndexPoolError as e:\n"
            "    print('error:', e)\n")
    env = dict(os.environ, INDEXPOOL_LIBCUDA_PATH="/nonexistent/libcuda.so")
    out = subprocess.run([sys.executable, "-c", code], env=env,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("error: no CUDA driver"), out.stdout


def fake_log(capfd, prefix):
    """The fake driver's log lines since the last read that start with
    "fake-cuda: " + prefix."""
    return [line for line in capfd.readouterr().err.splitlines()
            if line.startswith("fake-cuda: " + prefix)]


def test_capture_replays_new_contents(expand, driver, rng, capfd):
    """A launch captured into a CUDA graph runs nothing until replayed, and
    each replay reads what the captured addresses hold then."""
    stream = driver.create_stream()
    indices = DeviceArray(driver, (4, 6), np.int32)
    tokens = DeviceArray(driver, (4, 24), np.int32)
    indices.view()[...] = rng.integers(-1, 50, size=(4, 6), dtype=np.int32)
    expand.launch((indices,), (tokens,), stream=stream)  # binds the shapes
    tokens.view()[...] = 0
    capfd.readouterr()
    graph = indexpool.gpu.capture(
        lambda: expand.launch((indices,), (tokens,), stream=stream), stream)
    captured = capfd.readouterr().err.splitlines()
    assert not tokens.view().any()
    assert any(line.startswith("fake-cuda: capture: launch ")
               for line in captured)
    assert not [line for line in captured if line.startswith(
        ("fake-cuda: launch", "fake-cuda: alloc", "fake-cuda: synchronize",
         "fake-cuda: capture invalidated"))]
    for _ in range(2):
        indices.view()[...] = rng.integers(-1, 50, size=(4, 6),
                                           dtype=np.int32)
        graph.replay()
        given = indices.view().astype(np.int64)
        expected = np.where(given[..., None] < 0, -1,
                            given[..., None] * 4 + np.arange(4))
        np.testing.assert_array_equal(tokens.view(), expected.reshape(4, 24))


def test_capture_errors(expand, driver):
    stream = driver.create_stream()
    indices = DeviceArray(driver, (2, 3), np.int32)
    tokens = DeviceArray(driver, (2, 12), np.int32)
    expand.launch((indices,), (tokens,), stream=stream)
    other = DeviceArray(driver, (5, 3), np.int32)
    wide = DeviceArray(driver, (5, 12), np.int32)
    with pytest.raises(indexpool.IndexPoolError,
                       match=r"cannot take new input shapes \(\[5, 3\]\) "
                             "while its stream is capturing"):
        indexpool.gpu.capture(
            lambda: expand.launch((other,), (wide,), stream=stream), stream)

    def raising():
        expand.launch((indices,), (tokens,), stream=stream)
        raise KeyError("from the step")

    with pytest.raises(KeyError, match="from the step"):
        indexpool.gpu.capture(raising, stream)
    with pytest.raises(indexpool.IndexPoolError,
                       match="cannot capture the default stream"):
        indexpool.gpu.capture(
            lambda: expand.launch((indices,), (tokens,)), None)
    # The stream left capture mode each time: it captures again.
    graph = indexpool.gpu.capture(
        lambda: expand.launch((indices,), (tokens,), stream=stream), stream)
    graph.replay()


# --- The CUDA implementation of the torch ops -----------------------------

torch = pytest.importorskip("torch")


class CudaLooking(torch.Tensor):
    """A CPU tensor that says it is on cuda:0. Its memory is host memory,
    which is what the fake driver's device memory is. Calling the ops'
    Python implementation with these runs their CUDA path: compile for
    the fake device's chip, load, allocate outputs, launch on the stream
    (the kernels are no-ops here: INDEXPOOL_FAKE_CUDA_ANY_KERNEL)."""

    @property
    def device(self):
        return torch.device("cuda", 0)


def cuda_looking(tensor):
    return tensor.as_subclass(CudaLooking)


@pytest.fixture
def fake_torch_cuda(monkeypatch, device):
    """torch.empty on cuda and the current stream, which CPU torch lacks."""
    import indexpool.torch as ops

    empty = torch.empty

    def empty_on_device(*shape, dtype=None, device=None, **kwargs):
        made = empty(*shape, dtype=dtype, **kwargs)
        return cuda_looking(made) if str(device).startswith("cuda") else made

    class Stream:
        cuda_stream = 0

    streams = []
    monkeypatch.setattr(torch, "empty", empty_on_device)
    monkeypatch.setattr(torch.cuda, "current_stream",
                        lambda device=None: streams.append(device) or Stream())
    monkeypatch.setattr(torch.cuda, "current_device", lambda: 0)
    return ops, streams


def test_torch_compress_on_cuda(fake_torch_cuda, rng, capfd):
    ops, streams = fake_torch_cuda
    launches(capfd)
    keys = cuda_looking(torch.from_numpy(
        rng.standard_normal((64, 128), dtype=np.float32)))
    scores = cuda_looking(torch.from_numpy(
        rng.standard_normal((64,), dtype=np.float32)))
    codes, scales = ops._compress(keys, scores, pool_size=4)
    assert codes.device.type == "cuda" and scales.device.type == "cuda"
    assert codes.dtype == torch.uint8 and tuple(codes.shape) == (16, 128)
    assert scales.dtype == torch.float32 and tuple(scales.shape) == (16,)
    assert streams == [torch.device("cuda", 0)]
    # Every kernel of the artifact, on torch's current stream (here the
    # default one).
    binary = indexpool.compile_gpu(indexpool.ops.compress(
        (-1, 128), "f32", pool_size=4, rotate=True), chip="sm_90")
    expected = json.loads(binary.manifest)["launches"]
    lines = launches(capfd)
    assert expected and [line.split()[2] for line in lines] == \
        [launch["kernel"] for launch in expected]
    assert all(" stream=default " in line for line in lines)
    # Compiled once for the device, for the chip the driver reports.
    keys_on_device = [k for k in ops.compiled_functions() if "cuda" in k]
    assert len(keys_on_device) == 1
    function = ops.compiled_functions()[keys_on_device[0]]
    assert isinstance(function, indexpool.gpu.GpuFunction)
    ops._compress(keys, scores, pool_size=4)
    assert len([k for k in ops.compiled_functions() if "cuda" in k]) == 1


def test_torch_paged_ops_update_in_place_on_cuda(fake_torch_cuda, rng):
    ops, _ = fake_torch_cuda
    dim, entries, pool = 64, 8, 4
    pages = cuda_looking(torch.zeros((3, entries * (dim + 4)),
                                     dtype=torch.int8))
    keys = cuda_looking(torch.from_numpy(
        rng.standard_normal((2, 5, dim), dtype=np.float32)))
    scores = cuda_looking(torch.from_numpy(
        rng.standard_normal((2, 5), dtype=np.float32)))
    tail_keys = cuda_looking(torch.zeros((2, pool - 1, dim)))
    tail_scores = cuda_looking(torch.zeros((2, pool - 1)))
    lengths = cuda_looking(torch.tensor([3, 9], dtype=torch.int32))
    table = cuda_looking(torch.tensor([[0, 1], [2, 1]], dtype=torch.int32))
    result = ops._append_paged(keys, scores, None, tail_keys, tail_scores,
                               lengths, pages, table, pool_size=pool,
                               page_entries=entries)
    assert result[0] is pages and result[1] is tail_keys and \
        result[2] is tail_scores
    function = [f for k, f in ops.compiled_functions().items()
                if k[0] == "append_paged" and "cuda" in k][0]
    # pages, tail keys and tail scores are the inputs' own memory.
    assert function.in_place_inputs == [5, 2, 3]
    # A pages tensor on another device is refused before anything runs.
    with pytest.raises(ValueError, match="pages is on cpu, the keys on "
                       "cuda:0"):
        ops._append_paged(keys, scores, None, tail_keys, tail_scores,
                          lengths, torch.zeros_like(pages.as_subclass(
                              torch.Tensor)), table, pool_size=pool,
                          page_entries=entries)


def test_torch_decode_step_is_capturable(fake_torch_cuda, driver, rng,
                                         monkeypatch, capfd):
    """The decode step of indexpool.torch (append_paged, then select_paged)
    on torch's current stream, captured by indexpool.gpu.capture after one
    eager step (the warm-up torch.cuda.graph needs too): the capture
    allocates, frees and waits for nothing, and a replay runs exactly the
    captured kernels. CPU-only torch here: torch.cuda.graph itself is not
    run (docs/embedding.md)."""
    ops, _ = fake_torch_cuda
    stream = driver.create_stream()

    class Stream:
        cuda_stream = stream

    monkeypatch.setattr(torch.cuda, "current_stream",
                        lambda device=None: Stream())
    dim, heads, entries, pool = 64, 4, 8, 4
    pages = cuda_looking(torch.zeros((4, entries * (dim + 4)),
                                     dtype=torch.int8))
    tail_keys = cuda_looking(torch.zeros((2, pool - 1, dim)))
    tail_scores = cuda_looking(torch.zeros((2, pool - 1)))
    table = cuda_looking(torch.tensor([[0, 1], [2, 3]], dtype=torch.int32))
    lengths = cuda_looking(torch.tensor([9, 13], dtype=torch.int32))
    seen = cuda_looking(torch.tensor([[10], [14]], dtype=torch.int32))

    def randn(*shape):
        return cuda_looking(torch.from_numpy(
            rng.standard_normal(shape, dtype=np.float32)))

    keys, scores = randn(2, 1, dim), randn(2, 1)
    query, weights = randn(2, 1, heads, dim), randn(2, 1, heads)

    def step():
        ops._append_paged(keys, scores, None, tail_keys, tail_scores, lengths,
                          pages, table, pool_size=pool, page_entries=entries)
        return ops._select_paged(query, weights, pages, table, seen, k=4,
                                 pool_size=pool, page_entries=entries)

    step()
    capfd.readouterr()
    results = []
    graph = indexpool.gpu.capture(lambda: results.append(step()), stream)
    captured = capfd.readouterr().err.splitlines()
    assert len(results) == 1 and tuple(results[0].shape) == (2, 1, 4 * 4 + 3)
    recorded = [line.split()[3:] for line in captured
                if line.startswith("fake-cuda: capture: launch ")]
    assert recorded, captured
    assert not [line for line in captured if line.startswith(
        ("fake-cuda: launch", "fake-cuda: alloc", "fake-cuda: free",
         "fake-cuda: synchronize", "fake-cuda: capture invalidated"))]
    graph.replay()
    # "launch NAME grid=.. block=.. params=[..] stream=S ...": the kernels
    # and parameters recorded ("capture: launch NAME params=[..]").
    replayed = [line.split() for line in fake_log(capfd, "launch ")]
    assert [[line[2], line[5]] for line in replayed] == \
        [[line[0], line[1]] for line in recorded]
    assert all(f"stream={driver_stream_number(captured)}" in " ".join(line)
               for line in replayed)


def driver_stream_number(log):
    """The fake's number of the stream a capture began on."""
    begin = [line for line in log if line.startswith("fake-cuda: capture begin")]
    return begin[0].split("stream=")[1].split()[0]
