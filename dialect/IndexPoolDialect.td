//===- IndexPoolDialect.td - the indexpool dialect --------*- tablegen -*-===//
//
// The dialect of the indexer key cache: pooling, rotation, quantization and
// selection over pooled keys. docs/IndexPoolOps.md, generated from here, is the contract.
//
//===----------------------------------------------------------------------===//

#ifndef INDEXPOOL_DIALECT_TD
#define INDEXPOOL_DIALECT_TD

include "mlir/IR/OpBase.td"

def IndexPool_Dialect : Dialect {
  let name = "indexpool";
  let cppNamespace = "::mlir::indexpool";
  let summary = "Pooled, rotated and quantized indexer key caches";
  let description = [{
    The `indexpool` dialect describes the indexer key cache of sparse-attention
    LLMs (DeepSeek-V3.2 DSA, GLM-5, GLM-5.3-Flash): every `pool_size`
    consecutive keys are merged by softmax-weighted pooling, optionally
    Hadamard-rotated, quantized to FP8 or INT8 with one scale per vector, and
    the query is scored against the pooled keys to select the top-k tokens.

    All ops work on ranked tensors with value semantics; any dimension may be
    dynamic. Verifiers check every relation that static shapes allow.
  }];
  // #indexpool.launch (IndexPoolAttrs.td); the dialect checks that the
  // discardable attribute `indexpool.launch` holds one.
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
}

// A ranked tensor whose element types are checked by the op's C++ verifier, so
// that the diagnostic can name the operand ("keys", "scores", ...) instead of
// an operand number. `elements` only documents the allowed element types.
class IndexPool_Tensor<string elements> :
    Type<CPred<"::llvm::isa<::mlir::RankedTensorType>($_self)">,
         "ranked tensor of " # elements, "::mlir::RankedTensorType">;

def IndexPool_KeyTensor : IndexPool_Tensor<"f32, f16 or bf16">;
def IndexPool_F32Tensor : IndexPool_Tensor<"f32">;
def IndexPool_I32Tensor : IndexPool_Tensor<"i32">;
def IndexPool_QuantTensor : IndexPool_Tensor<"i8 or f8E4M3FN">;
def IndexPool_QueryTensor : IndexPool_Tensor<"f32, f16, bf16 or f8E4M3FN">;
def IndexPool_CacheTensor :
    IndexPool_Tensor<"f32, f16, bf16, i8 or f8E4M3FN">;
def IndexPool_PagesTensor : IndexPool_Tensor<"i8">;
def IndexPool_I64Tensor : IndexPool_Tensor<"i64">;

#endif // INDEXPOOL_DIALECT_TD
