"""Benchmarks of the interview suite (`make bench`): the end-to-end suite and micro-benchmarks."""
