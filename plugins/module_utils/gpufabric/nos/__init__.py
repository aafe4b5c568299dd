"""The homes of the network operating systems the collection speaks: one package per NOS (``nos/<name>/``).

Each home holds everything specific to its NOS (renderer, schema gate, deploy semantics, collectors and parsers,
tenancy read-back, ZTP, twin stand-in) behind the contract of ``home_contract.py``. The homes sit at the top of
the package: neutral code never imports them, it asks ``nos_registry.home(name)``, which loads one by name
(docs/architecture.md, "One home per network OS"). This package's ``__init__`` holds nothing, so loading a home
loads no other.
"""
