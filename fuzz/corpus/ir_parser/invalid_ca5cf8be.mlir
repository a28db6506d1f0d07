func.func @compress_groups_disagree(%k: tensor<?x8xf32>, %s: tensor<?xf32>) {
  %q, %sc, %w = indexpool.compress %k, %s {pool_size = 4 : i64} : (tensor<?x8xf32>, tensor<?xf32>) -> (tensor<10x8xi8>, tensor<12xf32>, tensor<?x4xf32>)
  return
}


