"""Exact solvers for Martian Dice: the turn, two-player win probabilities, solo, and batch
simulation. Built on numpy; the engines never import this package.
"""
