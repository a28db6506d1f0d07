import torch, indexpool, indexpool.torch            # torch.ops.indexpool.*
keys, scores = torch.randn(4096, 128).bfloat16(), torch.randn(4096)
codes, scales = torch.ops.indexpool.compress(keys, scores)  # [1024, 128] FP8 codes (uint8), [1024] f32
query, heads = torch.randn(1, 64, 128).bfloat16(), torch.rand(1, 64)
tokens = torch.ops.indexpool.select(query, heads, codes, scales, None, k=64)  # [1, 256] i32
# The same select, checked against the float64 reference:
select = indexpool.ops.select((1, 64, 128), "bf16", k=64)
for line in indexpool.verify(select, "select", (query, heads, codes, scales), tokens):
    print(line)
print(indexpool.decode_f8e4m3fn(codes[0, :4]) * scales[0].item())  # dequantized
