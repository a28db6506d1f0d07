#!/usr/bin/env python3
"""Adds every attention head's q and k of an ONNX model as graph outputs.

  expose_qk.py IN.onnx OUT.onnx OUT.json

Walks the graph for attention: a MatMul whose first input is q (optionally
through a Mul by the constant 1/sqrt(D)) and whose second input is a
Transpose swapping the last two axes of k, both [B, heads, N, D] after the
reshape/transposes into heads. Each such q and k (q before the scaling, so
that q.k / sqrt(D) are the logits) becomes an extra float output; OUT.json
lists them in graph order, one entry per attention layer. Needs Debian's
python3-onnx.
"""
import json
import sys

import numpy as np
import onnx
from onnx import helper, numpy_helper


def constant_value(name, producers, initializers):
    """The value of a Constant node or an initializer, else None."""
    if name in initializers:
        return numpy_helper.to_array(initializers[name])
    node = producers.get(name)
    if node is not None and node.op_type == "Constant":
        for attribute in node.attribute:
            if attribute.name == "value":
                return numpy_helper.to_array(attribute.t)
    return None


def attention_layers(graph):
    producers = {out: node for node in graph.node for out in node.output}
    initializers = {init.name: init for init in graph.initializer}
    layers = []
    for node in graph.node:
        if node.op_type != "MatMul" or len(node.input) != 2:
            continue
        q, kt = node.input
        transpose = producers.get(kt)
        if transpose is None or transpose.op_type != "Transpose":
            continue
        perm = [list(a.ints) for a in transpose.attribute if a.name == "perm"]
        if not perm or perm[0] != [0, 1, 3, 2]:
            continue
        scale = None
        scaled = producers.get(q)
        if scaled is not None and scaled.op_type == "Mul":
            values = [constant_value(x, producers, initializers)
                      for x in scaled.input]
            for i, value in enumerate(values):
                if value is not None and value.size == 1:
                    scale = float(value.ravel()[0])
                    q = scaled.input[1 - i]
                    break
        layers.append({"matmul": node.name, "q": q, "k": transpose.input[0],
                       "q_scale": scale})
    return layers


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__.strip())
    source, target, listing = sys.argv[1:]
    model = onnx.load(source)
    layers = attention_layers(model.graph)
    if not layers:
        sys.exit("expose_qk.py: error: no attention MatMul(q, Transpose(k)) "
                 f"found in {source}")
    existing = {out.name for out in model.graph.output}
    for layer in layers:
        for name in (layer["q"], layer["k"]):
            if name not in existing:
                # Rank 4, sizes left to the runtime: [B, heads, N, D].
                model.graph.output.append(helper.make_tensor_value_info(
                    name, onnx.TensorProto.FLOAT, [None] * 4))
                existing.add(name)
    onnx.checker.check_model(model)
    onnx.save(model, target)
    with open(listing, "w") as f:
        json.dump({"model_outputs": [o.name for o in model.graph.output],
                   "layers": layers}, f, indent=1)
    for i, layer in enumerate(layers):
        print(f"layer {i}: q = {layer['q']} (scaled by {layer['q_scale']}), "
              f"k = {layer['k']}")


if __name__ == "__main__":
    main()
