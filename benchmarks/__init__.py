"""Benchmarks of the embedded backend against the stores users would pick instead."""
