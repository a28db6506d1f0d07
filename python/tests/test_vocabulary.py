"""The vocabulary round trip: every row of ElementTypes.def (as the
extension exports it, indexpool.dtypes.TABLE) is accepted by every consumer
that takes its use. A row some consumer misses fails here, naming the
consumer and the type.

Element types of tensors: the C API's names and sizes, NumPy and torch
storage, an IR signature through the API. Paged code types: the four paged
ops built with `codes = NAME` pass the dialect verifier (indexpool-opt),
run on the CPU JIT and in the GPU emulator against the float64 reference
(indexpool-run --verify), compile for a GPU into a manifest that
indexpool-launch reads up to the (fake) driver, and run through
indexpool.Cache (selects checked against the reference, a snapshot
restored with the same codes) and the torch ops.
"""

import ctypes
import os
import re
import subprocess

import numpy as np
import pytest

import indexpool
from indexpool import dtypes

TABLE = dtypes.TABLE
TENSOR_TYPES = [row["name"] for row in TABLE if row["tensor"]]
PAGED_CODES = [row["name"] for row in TABLE if row["paged_code"]]

# The build tree (ctest sets it; pytest alone skips what needs it).
BUILD = os.environ.get("INDEXPOOL_TEST_BUILD", "")
BIN = os.path.join(BUILD, "bin")
FAKE_CUDA = os.environ.get("INDEXPOOL_TEST_FAKE_CUDA", "")

D, E, P, H, K = 32, 4, 4, 2, 3


def test_the_table_is_the_enum():
    """Rows are numbered as the C ABI's enum; names are unique."""
    assert [row["code"] for row in TABLE] == list(range(len(TABLE)))
    assert len({row["name"] for row in TABLE}) == len(TABLE)
    assert set(dtypes.CODES) == set(TENSOR_TYPES)
    assert set(dtypes.PAGE_CODES) == {row["name"] for row in TABLE
                                     if not row["tensor"]}
    for row in TABLE:
        assert (row["qmax"] > 0) == (row["dense_code"] or row["paged_code"])


def c_api():
    if not BUILD:
        pytest.skip("INDEXPOOL_TEST_BUILD is not set")
    for directory in (os.path.join(BUILD, "lib"), BUILD):
        path = os.path.join(directory, "libIndexPool.so")
        if os.path.exists(path):
            lib = ctypes.CDLL(path)
            lib.indexpool_dtype_name.restype = ctypes.c_char_p
            lib.indexpool_dtype_bytes.restype = ctypes.c_size_t
            return lib
    pytest.fail("libIndexPool.so is not in the build")


@pytest.mark.parametrize("row", TABLE, ids=[r["name"] for r in TABLE])
def test_c_api_names_every_tensor_type(row):
    lib = c_api()
    name = lib.indexpool_dtype_name(row["code"])
    if row["tensor"]:
        assert name == row["name"].encode()
        assert lib.indexpool_dtype_bytes(row["code"]) == row["bits"] // 8
    else:  # a page code type: no tensor has it
        assert name is None


@pytest.mark.parametrize("name", TENSOR_TYPES)
def test_tensor_types_have_numpy_and_torch_storage(name):
    row = next(r for r in TABLE if r["name"] == name)
    assert dtypes.numpy_dtype(name).itemsize * 8 == row["bits"]
    assert dtypes.code(name) == row["code"]
    torch = pytest.importorskip("torch")
    element = torch.empty((), dtype=dtypes.torch_dtype(name)).element_size()
    assert element * 8 == row["bits"]
    # An IR signature of the type comes back through the API.
    module = indexpool.parse(
        f"func.func @f(%x: tensor<4x{name}>) -> tensor<4x{name}> {{\n"
        f"  return %x : tensor<4x{name}>\n}}\n")
    del torch
    assert f"tensor<4x{name}>" in str(module)


def paged_modules(codes):
    """The four paged ops with `codes`, static and small enough for the GPU
    emulator, as the builders write them: name -> Module."""
    layout = dict(pages=4, page_entries=E, codes=codes)
    return {
        "compress_paged": indexpool.ops.compress_paged(
            (16, D), "f32", pool_size=P, **layout),
        "select_paged": indexpool.ops.select_paged(
            (1, 2, H, D), "f32", k=K, pool_size=P, max_pages=4, **layout),
        "append_paged": indexpool.ops.append_paged(
            (1, 5, D), "f32", pool_size=P, max_pages=4, **layout),
        "refine_paged": indexpool.ops.refine_paged(
            (1, 1, H, D), "f32", k=4, candidates=8, max_pages=4, **layout),
    }


def tool(name, *args, env=None):
    if not BUILD:
        pytest.skip("INDEXPOOL_TEST_BUILD is not set")
    path = os.path.join(BIN, name)
    assert os.path.exists(path), f"{name} is not in the build"
    return subprocess.run([path, *args], capture_output=True, text=True,
                          env=env, timeout=600)


@pytest.fixture(params=PAGED_CODES)
def paged_files(request, tmp_path):
    """(codes, {function: path of its IR})."""
    files = {}
    for name, module in paged_modules(request.param).items():
        path = tmp_path / f"{name}-{request.param}.mlir"
        path.write_text(str(module))
        files[name] = str(path)
    return request.param, files


FUNCTIONS = ("compress_paged", "select_paged", "append_paged", "refine_paged")


def test_the_dialect_verifier_takes_every_code_type(paged_files):
    codes, files = paged_files
    for path in files.values():
        run = tool("indexpool-opt", path, "--verify-roundtrip")
        assert run.returncode == 0, f"codes = {codes}: {run.stderr}"
        if codes != "f8E4M3FN":  # the default is not printed
            assert f"codes = {codes}" in run.stdout


@pytest.mark.parametrize("function", FUNCTIONS)
def test_cpu_and_emulator_match_the_reference(paged_files, function):
    codes, files = paged_files
    path = files[function]
    for device in (["--device=cpu"],
                   ["--device=gpu-emulator", "--chip=sm_90"]):
        run = tool("indexpool-run", path, f"--function={function}",
                   "--random-inputs=7", "--verify", *device)
        assert run.returncode == 0, \
            f"codes = {codes}, {function} {device}: {run.stderr}"
        lines = [l for l in run.stdout.splitlines() if "->" in l]
        assert lines and all(l.endswith("-> ok") for l in lines), run.stdout


@pytest.mark.parametrize("function", ("select_paged", "compress_paged"))
def test_manifests_reach_the_driver(paged_files, function, tmp_path):
    """indexpool-compile's manifest is read by indexpool-launch: every
    check before the device passes, and the fake driver (which has no
    paged kernels) is the first thing that fails."""
    if not FAKE_CUDA:
        pytest.skip("INDEXPOOL_TEST_FAKE_CUDA is not set")
    codes, files = paged_files
    path = files[function]
    out = tmp_path / "out"
    run = tool("indexpool-compile", path, "--chip=sm_90", "--emit=ptx",
               "-o", str(out), f"--function={function}")
    assert run.returncode == 0, f"codes = {codes}: {run.stderr}"
    manifest = out / f"{function}.sm_90.json"
    assert f'"codes": "{codes}"' in manifest.read_text()
    # The fake driver as it comes: no option another test set (one that
    # makes any kernel name resolve would let the launch go further).
    env = {key: value for key, value in os.environ.items()
           if not key.startswith("INDEXPOOL_FAKE_CUDA")}
    env["INDEXPOOL_LIBCUDA_PATH"] = FAKE_CUDA
    run = tool("indexpool-launch", str(manifest), "--random-inputs=1",
               "--verify", env=env)
    assert "is not in the binary" in run.stderr, \
        f"codes = {codes}: {run.stderr}"


@pytest.mark.parametrize("codes", PAGED_CODES)
def test_the_cache_runs_every_code_type(codes, tmp_path):
    if indexpool.Cache is None:
        pytest.skip("built without the cache runtime")
    rng = np.random.default_rng(20261206)
    cache = indexpool.Cache(layers=1, dim=D, pool_size=P, page_entries=E,
                            pages=32, heads=H, k=K, threads=2, codes=codes)
    assert cache.codes == codes
    seq = cache.add()
    # 15 pools for k = 3: the selection depends on the decoded codes.
    for n in (41, 22):
        cache.append([seq], rng.standard_normal((1, 1, n, D), np.float32),
                     rng.standard_normal((1, 1, n), np.float32))
    module = indexpool.ops.select_paged((-1, 1, H, D), "f32", k=K,
                                        pool_size=P, page_entries=E,
                                        codes=codes)
    ids = cache.block_table(seq)
    table = np.zeros((1, max(len(ids), -(-K // E))), np.int32)
    table[0, :len(ids)] = ids
    q = rng.standard_normal((1, H, D), np.float32)
    w = rng.standard_normal((1, H), np.float32)
    tokens = cache.select([seq], 0, q, w)
    pages = cache.pages(0)
    report = indexpool.verify(
        module, "select_paged",
        (q[:, None], w[:, None], pages, table,
         np.array([[cache.length(seq)]], np.int32)), (tokens[:, None],))
    assert all(line.endswith("-> ok") for line in report), report
    # A snapshot keeps the code type: it restores into the same codes.
    path = str(tmp_path / "cache.snap")
    cache.snapshot(path)
    restored, _ = indexpool.Cache.restore(path, threads=2)
    assert restored.codes == codes
    assert np.array_equal(restored.pages(0), pages)


def test_the_cache_refuses_unknown_code_types():
    if indexpool.Cache is None:
        pytest.skip("built without the cache runtime")
    known = ", ".join(PAGED_CODES[:-1]) + " or " + PAGED_CODES[-1]
    with pytest.raises(ValueError, match=re.escape(
            f'unknown code type "f16" (known: {known})')):
        indexpool.Cache(dim=D, codes="f16")


@pytest.mark.parametrize("codes", PAGED_CODES)
def test_torch_ops_take_every_code_type(codes):
    torch = pytest.importorskip("torch")
    import indexpool.torch  # noqa: F401 (registers torch.ops.indexpool)
    gen = torch.Generator().manual_seed(35)
    module = indexpool.ops.compress_paged((-1, D), "f32", pool_size=P,
                                          page_entries=E, codes=codes)
    width = int(re.search(r"tensor<\?x(\d+)xi8>", str(module)).group(1))
    pages = torch.randint(-128, 128, (4, width), generator=gen,
                          dtype=torch.int8)
    before = pages.clone()
    keys = torch.randn(16, D, generator=gen)
    scores = torch.randn(16, generator=gen)
    slots = torch.randperm(4 * E, generator=gen)[:4].to(torch.int64)
    torch.ops.indexpool.compress_paged(keys, scores, None, pages, slots,
                                       codes=codes, page_entries=E,
                                       pool_size=P)
    indexpool.verify(module, "compress_paged",
                     (keys, scores, before, slots), (pages,))
