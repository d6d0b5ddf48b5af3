"""Placeholder until its experiments land."""

EXPERIMENTS: tuple = ()
