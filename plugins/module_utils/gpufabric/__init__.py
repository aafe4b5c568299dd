"""Core library of gpucluster.fabric: cluster spec -> plan (devices, cables, addresses, ASNs).

Nothing in this package imports Ansible; the inventory, action and module plugins are thin
layers over it, so every result can be produced and tested with plain Python.
"""
