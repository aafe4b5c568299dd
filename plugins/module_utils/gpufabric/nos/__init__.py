"""The homes of the network operating systems the collection speaks: one package per NOS (``nos/<name>/``).

Each home holds everything specific to its NOS (renderer, schema gate, deploy semantics, collectors and parsers,
tenancy read-back, ZTP) behind the contract of ``home_contract.py``; the twin's emulator of a NOS is not in its
home but in twin/emulators/<name>/, and imports nothing of it. The homes sit at the top of the package: neutral
code never imports them, it asks ``nos_registry.home(name)``, which loads one by name (docs/architecture.md, "One
home per network OS"). This package's ``__init__`` holds nothing, so loading a home
loads no other.
"""
