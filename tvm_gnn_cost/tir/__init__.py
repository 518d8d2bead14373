"""Reading TVM's tensor IR, for both searches: what each stage computes (:mod:`.opstats`) and
the differences between TVM versions (:mod:`.compat`)."""
