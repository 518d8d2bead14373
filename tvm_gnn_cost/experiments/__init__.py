"""Experiments above the two searches: cost models by name (:mod:`.registry`) and each model
for each seed at one budget, built and timed in turns (:mod:`.runner`)."""
