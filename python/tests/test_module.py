"""Modules from IR text and from the builders; diagnostics as exceptions."""

import pytest

import indexpool
from conftest import COMPRESS_IR


def test_parse_and_signature(compress_text_module):
    module = compress_text_module
    assert module.function_names() == ["compress"]
    signature = module.signature("compress")
    assert signature.name == "compress"
    assert [a.dtype for a in signature.arguments] == ["f32", "f32"]
    assert signature.arguments[0].shape == (-1, 64)
    assert [repr(r) for r in signature.results] == [
        "tensor<?x64xf8E4M3FN>", "tensor<?xf32>", "tensor<?x4xf32>"]
    assert "indexpool.compress" in str(module)
    # The printed module parses again to the same signature.
    again = indexpool.Module(module.str())
    assert repr(again.signature("@compress")) == repr(signature)


def test_bad_ir_raises_with_line_and_column():
    text = COMPRESS_IR.replace("pool_size = 4", "pool_size = 3")
    with pytest.raises(indexpool.IndexPoolError) as error:
        indexpool.parse(text, "bad.mlir")
    assert isinstance(error.value, RuntimeError)
    message = str(error.value)
    # The op's line and column in the text (its line 1 is empty).
    assert ("bad.mlir:4:31: error: 'indexpool.compress' op pool_size must be "
            "a power of two") in message

    with pytest.raises(indexpool.IndexPoolError,
                       match=r"junk.mlir:1:\d+: error"):
        indexpool.Module("func.func @f(", "junk.mlir")


def test_missing_function_and_several_functions(compress_text_module):
    with pytest.raises(indexpool.IndexPoolError, match="nope"):
        compress_text_module.signature("nope")
    with pytest.raises(indexpool.IndexPoolError, match="nope"):
        indexpool.compile(compress_text_module, function="nope")
    two = indexpool.parse(COMPRESS_IR + COMPRESS_IR.replace("@compress",
                                                            "@other"))
    with pytest.raises(ValueError, match="function="):
        indexpool.compile(two)


def test_deeply_nested_ir_is_refused_before_parsing():
    """20000 levels overflowed the parser's stack (SIGSEGV): one error."""
    deep = 'func.func @f() {' + '"test.nest"() ({' * 20000
    with pytest.raises(indexpool.IndexPoolError,
                       match=r"deep.mlir:1: more than 1000 levels of nested "
                             r"brackets"):
        indexpool.parse(deep, "deep.mlir")


def test_bad_argument_types_name_the_argument(compress_text_module):
    """pybind11's own cast error names nothing ("Unable to cast Python
    instance to C++ type"): each conversion names its argument."""
    cases = [
        ({"input_shapes": [(64, 64)]}, r"input_shapes: expected a dict"),
        ({"input_shapes": {"keys": (64, 64)}},
         r"input_shapes \(a key\): expected an argument index \(int\), "
         r"got <class 'str'>"),
        ({"input_shapes": {0: (64, "x")}},
         r"input_shapes\[0\]: expected a shape \(a sequence of ints\)"),
    ]
    for options, message in cases:
        with pytest.raises(TypeError, match=message):
            indexpool.compile(compress_text_module, **options)


def test_vector_width_is_bounded(compress_text_module):
    """Past 64 lanes LLVM's backend aborts (65536) or hangs (2^20): one
    error before it."""
    for width in (-1, 3, 128, 65536, 1 << 20):
        with pytest.raises(indexpool.IndexPoolError,
                           match=r"vector width must be a power of two "
                                 r"from 1 to 64, got %d" % width):
            indexpool.compile(compress_text_module, vector_width=width)
    assert indexpool.compile(compress_text_module, vector_width=64)
    # 0 (the default): the CPU target's width.
    assert indexpool.compile(compress_text_module, vector_width=0)


def test_builders_print_their_ir():
    compress = indexpool.ops.compress((None, 128), "bf16", pool_size=4,
                                      rotate=True, pow2_scale=True)
    text = str(compress)
    assert "indexpool.compress" in text and "rotate" in text
    signature = compress.signature("compress")
    assert [repr(a) for a in signature.arguments] == [
        "tensor<?x128xbf16>", "tensor<?xf32>"]
    assert [repr(r) for r in signature.results] == [
        "tensor<?x128xf8E4M3FN>", "tensor<?xf32>"]

    select = indexpool.ops.select((1, 8, 64), "f32", k=16, codes="i8",
                                  valid=True)
    assert [repr(a) for a in select.signature("select").arguments] == [
        "tensor<1x8x64xf32>", "tensor<1x8xf32>", "tensor<?x64xi8>",
        "tensor<?xf32>", "tensor<1xi32>"]
    assert repr(select.signature("select").results[0]) == "tensor<1x64xi32>"


def test_builder_errors():
    with pytest.raises(indexpool.IndexPoolError, match="codeType"):
        indexpool.ops.compress((-1, 64), "f32", codes="i32")
    with pytest.raises(TypeError, match="not an IndexPool element type"):
        indexpool.ops.compress((-1, 64), "float64")
