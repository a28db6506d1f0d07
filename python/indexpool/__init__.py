"""IndexPool from Python: build, compile and run IndexPool functions.

    import numpy as np, indexpool
    m = indexpool.ops.compress((-1, 128), "f32", pool_size=4, rotate=True)
    f = indexpool.compile(m)
    codes, scales = f(keys, scores)          # NumPy in, NumPy out
    indexpool.verify(m, "compress", (keys, scores), (codes, scales))

Arrays and tensors are passed by address, never copied; element types follow
indexpool.dtypes (bf16 as uint16 bit patterns, f8E4M3FN as uint8 codes in
NumPy). Every failure of the C++ API raises IndexPoolError with its message.
See python/README.md.
"""

import os as _os
import sys as _sys

import numpy as _np

from . import _indexpool
from ._indexpool import FunctionSignature, IndexPoolError, Module, TensorType
# The cache runtime (docs/cache.md), where the build has it.
Cache = getattr(_indexpool, "Cache", None)
from . import dtypes, gpu, ops
from .dtypes import decode_bf16, decode_f8e4m3fn, encode_bf16, encode_f8e4m3fn

__all__ = [
    "IndexPoolError", "Module", "TensorType", "FunctionSignature", "Function",
    "Cache",
    "GpuBinary", "parse", "compile", "compile_gpu", "reference", "verify",
    "dtypes", "gpu", "ops", "decode_f8e4m3fn", "decode_bf16", "encode_f8e4m3fn",
    "encode_bf16", "gate_scores", "cpu_targets",
]

_ndarray = _np.ndarray


def parse(text, name="<string>"):
    """Parses and verifies MLIR assembly (IndexPoolError: the diagnostics,
    each NAME:line:col: error: ...)."""
    return Module(text, name)


def _module(module):
    return module if isinstance(module, Module) else Module(module)


def _function_name(module, function):
    if function is not None:
        return function.lstrip("@")
    names = module.function_names()
    if len(names) != 1:
        raise ValueError("the module holds %d functions (%s): say which with "
                         "function=" % (len(names), ", ".join(names)))
    return names[0]


# torch tensors, seen without importing torch: a tensor exists only once
# torch was imported.
def _torch():
    return _sys.modules.get("torch")


def _has_torch(inputs):
    """Whether any input is a torch tensor (then results come back as
    tensors). The bindings read torch CPU tensors in place, checking their
    device, layout, dtype and contiguity themselves."""
    torch = _torch()
    return torch is not None and any(isinstance(value, torch.Tensor)
                                     for value in inputs)


def _to_torch(array):
    import torch

    if array.dtype == _np.uint16:  # bf16 bit patterns
        return torch.from_numpy(array.view(_np.int16)).view(torch.bfloat16)
    return torch.from_numpy(array)


class Function:
    """A function compiled for the CPU. Call it with NumPy arrays or torch
    CPU tensors (read in place): it returns new arrays (tensors when any
    input is a tensor), one or a tuple, or writes `out=` (an array or a
    sequence of them, one per result) and returns it."""

    __slots__ = ("module", "name", "signature", "_compiled", "_run")

    def __init__(self, compiled, module):
        self.module = module
        self._compiled = compiled
        self._run = compiled.run
        self.signature = compiled.signature
        self.name = self.signature.name

    def __call__(self, *inputs, out=None):
        if out is not None and type(out) is not tuple and type(out) is not list:
            return self._call(inputs, (out,))[0]
        for value in inputs:
            if type(value) is not _ndarray:
                return self._call(inputs, out)
        return self._run(inputs, out)

    def _call(self, inputs, out):
        if out is not None:
            self._run(inputs, out)
            return out
        results = self._run(inputs, None)
        if not _has_torch(inputs):
            return results
        if type(results) is tuple:
            return tuple(_to_torch(r) for r in results)
        return _to_torch(results)

    def result_shapes(self, *inputs):
        """The shapes of the results for these inputs (checked as a call
        checks them): what to allocate for out=."""
        return self._compiled.result_shapes(inputs)

    def __repr__(self):
        return f"<indexpool.Function {self.signature!r}>"


class GpuBinary:
    """A function compiled for a GPU chip: what indexpool-compile writes."""

    def __init__(self, artifact):
        self.chip = artifact.chip
        self.binary_name = artifact.binary_name
        self.binary = artifact.binary
        self.manifest = artifact.manifest

    @property
    def manifest_name(self):
        return _os.path.splitext(self.binary_name)[0] + ".json"

    def save(self, directory):
        """Writes the binary and its manifest into `directory`; returns
        their paths."""
        _os.makedirs(directory, exist_ok=True)
        binary = _os.path.join(directory, self.binary_name)
        manifest = _os.path.join(directory, self.manifest_name)
        with open(binary, "wb") as file:
            file.write(self.binary)
        with open(manifest, "w") as file:
            file.write(self.manifest)
        return binary, manifest


def compile(module, function=None, target="cpu", *, fuse=True, threads=0,
            vector_width=0, check_bounds=False, input_shapes=None, in_place=(),
            cpu="", int8_query=False, **gpu):
    """Compiles `function` (the only one when None) of `module` (a Module
    or IR text). target "cpu" returns a callable Function; a chip
    ("sm_90", ...) returns compile_gpu's GpuBinary. cpu: the CPU target
    ("" or "host": the host's; a name of cpu_targets(): one this host runs);
    vector_width: f32 lanes of the CPU loops (0: the target's). input_shapes:
    {argument index: shape} to specialize dynamic sizes first. in_place:
    indices of arguments the CPU code updates where they are (the pages of
    a paged cache): the results that are their new values are the caller's
    arrays themselves. int8_query: i8 and i4 keys scored with the CPU's
    int8 dot, the query quantized per head (approximate: docs/design.md,
    "CPU targets", bounds the difference; ignored where the target has no
    int8 dot)."""
    module = _module(module)
    name = _function_name(module, function)
    if target != "cpu":
        return compile_gpu(module, name, chip=target, fuse=fuse,
                           input_shapes=input_shapes, **gpu)
    if gpu:
        raise TypeError("options for GPU targets only: " + ", ".join(gpu))
    compiled = _indexpool.compile_cpu(
        module, name, fuse=fuse, threads=threads, vector_width=vector_width,
        check_bounds=check_bounds, input_shapes=input_shapes,
        in_place_arguments=list(in_place), cpu=cpu, int8_query=int8_query)
    return Function(compiled, module)


def cpu_targets():
    """The CPU target table (docs/design.md, "CPU targets"): one dict per
    row (name, arch, description, vector_width, bf16_dot, int8_dot,
    byte_table: FP8 keys decoded by byte tables; host: the row compile()
    picks here; runs_here, else why_not)."""
    return _indexpool.cpu_targets()


def compile_gpu(module, function=None, chip="sm_90", *, fuse=True,
                tuning_db="", binary_format="ptx", input_shapes=None):
    """Compiles for `chip`: a GpuBinary with .binary (PTX or cubin bytes),
    .manifest (JSON text), .binary_name and .save(directory)."""
    module = _module(module)
    name = _function_name(module, function)
    return GpuBinary(_indexpool.compile_gpu(
        module, name, chip, fuse=fuse, tuning_db=tuning_db,
        binary_format=binary_format, input_shapes=input_shapes))


def reference(module, function, *inputs):
    """Function `function` of `module` evaluated in float64 (the project's
    reference semantics; codes decoded): one float64 array per result (the
    array alone when there is one)."""
    module = _module(module)
    results = _indexpool.reference(module, function.lstrip("@"), inputs)
    return results[0] if len(results) == 1 else results


def verify(module, function, inputs, outputs):
    """Compares `outputs` of `function` on `inputs` with the float64
    reference under the element types' tolerances. Returns the report (one
    line per result); raises IndexPoolError when one is out of tolerance."""
    module = _module(module)
    if type(outputs) is not tuple and type(outputs) is not list:
        outputs = (outputs,)
    ok, message, report = _indexpool.verify(module, function.lstrip("@"),
                                            inputs, outputs)
    if not ok:
        raise IndexPoolError("\n".join([message] + report))
    return report


def gate_scores(keys, gate):
    """The query-aware gate's pooling scores: scores[..., t] = gate . keys[..., t, :].

    keys: [..., T, D] (NumPy or torch, any float type, unrotated as the
    model made them); gate: [D] float32, as `indexpool-calibrate
    --gate=mean-query --gate-output=g.npy` writes it. Returns float32
    [..., T] (a tensor for tensors), the `scores` operand of compress,
    compress_paged or append_paged in place of the model's gate logits
    (docs/IndexPoolOps.md, pool; docs/fidelity.md, "First-stage
    selection"). Computed in float32, so it is what a serving engine
    computes beside its kernels.
    """
    if hasattr(keys, "detach"):  # a torch tensor
        torch = _torch()
        g = torch.as_tensor(gate, dtype=torch.float32, device=keys.device)
        if g.dim() != 1 or keys.dim() < 1 or keys.shape[-1] != g.shape[0]:
            raise ValueError(f"gate_scores: gate must be [D] with D = the "
                             f"keys' last dimension, got gate "
                             f"{list(g.shape)} for keys {list(keys.shape)}")
        return keys.to(torch.float32) @ g
    keys = _np.asarray(keys)
    if not _np.issubdtype(keys.dtype, _np.floating):
        raise TypeError(f"gate_scores: keys must be floating point, got "
                        f"{keys.dtype} (bf16 bit patterns: "
                        f"indexpool.decode_bf16 them first)")
    g = _np.asarray(gate, dtype=_np.float32)
    if g.ndim != 1 or keys.ndim < 1 or keys.shape[-1] != g.shape[0]:
        raise ValueError(f"gate_scores: gate must be [D] with D = the keys' "
                         f"last dimension, got gate {list(g.shape)} for keys "
                         f"{list(keys.shape)}")
    return keys.astype(_np.float32) @ g
