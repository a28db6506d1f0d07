"""IndexPool Python package (placeholder: the bindings are not built yet)."""
