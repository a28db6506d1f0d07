"""GPU functions from Python: an artifact of compile_gpu (or indexpool-compile)
loaded onto a CUDA device and launched on the caller's device memory and
stream, through the MLIR-free runtime (include/indexpool/Runtime/GpuFunction.h).

    binary = indexpool.compile_gpu(module, chip=indexpool.gpu.device().chip)
    f = indexpool.gpu.load(binary)                # or load("dir/f.sm_90.json")
    codes, scales = f(keys, scores)               # torch CUDA tensors
    f.launch((keys, scores), (codes, scales), stream=s)   # caller's outputs

Tensors are device memory passed by address, never copied: torch CUDA
tensors, objects with __cuda_array_interface__ (CuPy, Numba; uint8 are FP8
E4M3FN codes and uint16 bf16 bits, as in NumPy: see indexpool.dtypes), or
(address, dtype name, shape) tuples. Host memory is refused. A launch is
queued on `stream` (a torch.cuda.Stream, a CUstream handle as an int, or
None: torch's current stream for torch tensors, else the default stream)
and returns at once; the results are ready when the stream gets there.
Without a driver or a device, device() and load() raise IndexPoolError.

A step of launches (a decode step: append_paged, then select_paged) can be
captured into a CUDA graph once and replayed with one driver call:

    f.launch(inputs, outputs, stream=s)            # once: binds the shapes
    graph = indexpool.gpu.capture(lambda: f.launch(inputs, outputs, stream=s),
                                  stream=s)
    graph.replay()                                  # on s; new contents, same
                                                    # addresses
The graph keeps the addresses it was captured with (inputs, outputs and
the functions' temporaries), as torch.cuda.CUDAGraph does: write new
contents there between replays, keep that memory alive, and allocate
nothing inside the step (launch on outputs of your own, out=). Inside
torch.cuda.graph the torch ops (indexpool.torch) are captured by torch
itself; see docs/embedding.md.
"""

import sys as _sys
import threading as _threading

from . import _indexpool, dtypes
from ._indexpool import IndexPoolError

__all__ = ["device", "load", "capture", "GpuFunction", "Graph"]

_devices = {}
_devices_lock = _threading.Lock()


def device(ordinal=0):
    """The CUDA device `ordinal` (opened once, with its primary context):
    .chip ("sm_90", ...), .name, .multiprocessors."""
    return _open(ordinal)


def _open(ordinal):
    with _devices_lock:
        found = _devices.get(ordinal)
        if found is None:
            found = _devices[ordinal] = _indexpool.GpuDevice(ordinal)
        return found


# __cuda_array_interface__ typestrs (byte order stripped) -> IndexPool names.
_TYPESTRS = {"f4": "f32", "f2": "f16", "u2": "bf16", "u1": "f8E4M3FN",
             "i1": "i8", "i4": "i32", "i8": "i64"}


def _contiguous(shape, strides, itemsize):
    if strides is None:
        return True
    expected = itemsize
    for size, stride in zip(reversed(shape), reversed(strides)):
        if size != 1 and stride != expected:
            return False
        expected *= size
    return True


def _device_ref(value, what):
    """(address, DType code, shape, dtype for messages) of device memory."""
    torch = _sys.modules.get("torch")
    if torch is not None and isinstance(value, torch.Tensor):
        if value.device.type != "cuda":
            raise ValueError(f"{what}: a {value.device.type} tensor; a GPU "
                             "function takes CUDA tensors")
        if not value.is_contiguous():
            raise ValueError(f"{what}: the tensor is not contiguous (the "
                             "kernels read it in place)")
        try:
            code = dtypes.code(value.dtype)
        except TypeError:
            code = -1
        return (value.data_ptr(), code, tuple(value.shape), value.dtype)
    interface = getattr(value, "__cuda_array_interface__", None)
    if interface is not None:
        typestr = interface["typestr"]
        name = _TYPESTRS.get(typestr[1:], None)
        shape = tuple(interface["shape"])
        if not _contiguous(shape, interface.get("strides"), int(typestr[2:])):
            raise ValueError(f"{what}: the array is not C-contiguous (the "
                             "kernels read it in place)")
        return (interface["data"][0],
                dtypes.CODES[name] if name else -1, shape, typestr)
    if isinstance(value, tuple) and len(value) == 3:
        address, dtype, shape = value
        name = dtypes.name(dtype)
        return (int(address), dtypes.CODES[name], tuple(shape), name)
    raise TypeError(f"{what}: expected a CUDA tensor, an object with "
                    "__cuda_array_interface__ or (address, dtype, shape), "
                    f"got {type(value).__name__}")


def _stream_handle(stream, inputs):
    if stream is None:
        torch = _sys.modules.get("torch")
        for value in inputs:
            if torch is not None and isinstance(value, torch.Tensor) and \
                    value.device.type == "cuda":
                return torch.cuda.current_stream(value.device).cuda_stream
        return 0
    return int(getattr(stream, "cuda_stream", stream))


class GpuFunction:
    """A function loaded onto a device. Call it with torch CUDA tensors to
    get new tensors (allocated on the inputs' device by torch; an output
    in place of an input, e.g. a paged op's pages, is that input), or
    launch() it on outputs of your own."""

    def __init__(self, loaded, device):
        self._loaded = loaded
        self.device = device
        self.name = loaded.name
        self.input_types = loaded.input_types
        self.output_types = loaded.output_types
        #: Per output: the input whose memory it is written in, or -1.
        self.in_place_inputs = loaded.in_place_inputs

    def _refs(self, values, kind):
        return [_device_ref(v, f"{kind} #{i} of @{self.name}")
                for i, v in enumerate(values)]

    def output_shapes(self, *inputs):
        """The outputs' shapes for these inputs (their data is not read)."""
        return [tuple(s) for s in
                self._loaded.output_shapes(self._refs(inputs, "input"))]

    def launch(self, inputs, outputs, stream=None):
        """Queues the kernels on `stream` over `inputs` and `outputs` (one
        per output; an in-place output is its input) and returns."""
        self._loaded.launch(self._refs(inputs, "input"),
                            self._refs(outputs, "output"),
                            _stream_handle(stream, inputs))

    def __call__(self, *inputs, out=None, stream=None):
        if out is None:
            out = self._allocate(inputs)
        elif type(out) is not tuple and type(out) is not list:
            self.launch(inputs, (out,), stream)
            return out
        self.launch(inputs, out, stream)
        return out[0] if len(out) == 1 else tuple(out)

    def _allocate(self, inputs):
        import torch

        first = next((v for v in inputs if isinstance(v, torch.Tensor)), None)
        if first is None:
            raise TypeError(f"@{self.name}: without out=, the inputs must be "
                            "torch tensors (the outputs are allocated by "
                            "torch on their device)")
        table = dtypes._torch_table()
        outputs = []
        for i, shape in enumerate(self.output_shapes(*inputs)):
            source = self.in_place_inputs[i]
            if source >= 0:
                outputs.append(inputs[source])
            else:
                outputs.append(torch.empty(
                    shape, dtype=table[self.output_types[i].dtype],
                    device=first.device))
        return outputs

    def __repr__(self):
        return f"<indexpool.gpu.GpuFunction @{self.name} on {self.device!r}>"


def load(artifact, device=0):
    """Loads `artifact` (a GpuBinary of compile_gpu, or the path of a
    manifest written by indexpool-compile / GpuBinary.save) onto CUDA device
    `device` (an ordinal or a GpuDevice)."""
    if isinstance(device, int):
        device = _open(device)
    if isinstance(artifact, str):
        loaded = _indexpool.GpuFunction.load(device, artifact)
    else:
        loaded = _indexpool.GpuFunction.from_memory(
            device, artifact.manifest, artifact.binary, artifact.binary_name)
    return GpuFunction(loaded, device)


class Graph:
    """Launches captured into a CUDA graph by capture(): replay() queues all
    of them with one driver call."""

    def __init__(self, captured, stream, device):
        self._captured = captured
        self.stream = stream
        self.device = device

    def replay(self, stream=None):
        """Queues the captured work on `stream` (default: the stream it was
        captured on) and returns without waiting."""
        self._captured.replay(self.stream if stream is None
                              else _stream_handle(stream, ()))

    def __repr__(self):
        return f"<indexpool.gpu.Graph on {self.device!r}>"


def capture(step, stream, device=0):
    """Captures the launches `step()` queues on `stream` (a torch.cuda.Stream
    or a CUstream handle; not the default stream, which CUDA cannot
    capture) into a CUDA graph, and returns it (Graph). Nothing runs during
    the capture. Every function launched must have run (or been launched)
    once with the same shapes before, and the step must allocate nothing:
    anything that cannot be captured raises IndexPoolError (a Python
    exception in step() is raised as it is), and the stream is left usable."""
    if isinstance(device, int):
        device = _open(device)
    handle = _stream_handle(stream, ())
    return Graph(_indexpool.GpuGraph.capture(device, step, handle), handle,
                 device)
